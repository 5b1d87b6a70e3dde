// Array.prototype.at, %TypedArray%.prototype.at and String.prototype.at (ES2022):
// relative indexing from the end, on arrays, array-likes, typed arrays and strings.
const show = (label, f) => {
  try {
    console.log(label, f());
  } catch (e) {
    console.log(label, 'threw', e.name);
  }
};

const a = [10, 20, 30];
show('at(0)', () => a.at(0));
show('at(-1)', () => a.at(-1));
show('at(-3)', () => a.at(-3));
show('at(3)', () => a.at(3));
show('at(-4)', () => a.at(-4));
show('at()', () => a.at());
show('at(1.9)', () => a.at(1.9));
show('at(-0.5)', () => a.at(-0.5));
show("at('1')", () => a.at('1'));
show('at(NaN)', () => a.at(NaN));
show('at(Infinity)', () => a.at(Infinity));
show('at(-Infinity)', () => a.at(-Infinity));
show('at({ valueOf })', () => a.at({ valueOf: () => 2 }));
show('hole', () => [1, , 3].at(1));
show('empty', () => [].at(0));
show('array-like', () => Array.prototype.at.call({ length: 2, 0: 'x', 1: 'y' }, -1));
show('array-like, length 1.5', () => Array.prototype.at.call({ length: 1.5, 0: 'x', 1: 'y' }, -1));
show('string receiver', () => Array.prototype.at.call('abc', -1));
show('number receiver', () => Array.prototype.at.call(5, 0));
show('null receiver', () => Array.prototype.at.call(null, 0));
show('undefined receiver', () => Array.prototype.at.call(undefined, 0));
show('bigint index', () => a.at(1n));
show('symbol index', () => a.at(Symbol('i')));
show('getter order', () => {
  const log = [];
  const o = {
    get length() { log.push('length'); return 2; },
    get 1() { log.push('get 1'); return 'one'; },
  };
  const r = Array.prototype.at.call(o, { valueOf() { log.push('index'); return -1; } });
  return [r, log.join(', ')];
});
show('length converted once', () => {
  let n = 0;
  const o = { length: { valueOf() { n++; return 2; } }, 1: 'b' };
  return [Array.prototype.at.call(o, -1), n];
});
show('length over 2^53', () => Array.prototype.at.call({ length: 2 ** 60, [2 ** 53 - 2]: 'last' }, -1));

const t = new Int16Array([1, -2, 3]);
show('typed at(-1)', () => t.at(-1));
show('typed at(5)', () => t.at(5));
show('typed at(-4)', () => t.at(-4));
show('bigint typed', () => new BigInt64Array([5n, 6n]).at(-1));
show('float typed', () => new Float32Array([0.5, 1.5]).at(1));
show('typed on array', () => Object.getPrototypeOf(Int8Array.prototype).at.call([1], 0));
show('typed on object', () => Int8Array.prototype.at.call({ length: 1, 0: 1 }, 0));
show('typed ignores own length', () => {
  const u = new Uint8Array([7, 8]);
  Object.defineProperty(u, 'length', { value: 10 });
  return [u.at(-1), u.at(5)];
});

show("'abc'.at(-1)", () => 'abc'.at(-1));
show("'abc'.at(3)", () => 'abc'.at(3));
show('surrogate pair', () => '\u{1F600}'.at(0) === '\uD83D');
show('String.at on number', () => String.prototype.at.call(12345, -2));
show('String.at on object', () => String.prototype.at.call({ toString: () => 'xyz' }, 1));
show('String.at on null', () => String.prototype.at.call(null, 0));
show('String.at on symbol', () => String.prototype.at.call(Symbol('s'), 0));
