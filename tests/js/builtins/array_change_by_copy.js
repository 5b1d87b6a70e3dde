// Array.prototype.toReversed, toSorted, toSpliced and with (ES2023): the copying
// versions of reverse, sort, splice and index assignment. The original is unchanged,
// the result is always a plain dense Array, and any array-like works as `this`.
const show = (label, f) => {
  try {
    console.log(label, f());
  } catch (e) {
    console.log(label, 'threw', e.name);
  }
};

const a = [3, 1, 2];
show('toReversed', () => [a.toReversed(), a]);
show('toSorted', () => [a.toSorted(), a]);
show('toSorted desc', () => a.toSorted((x, y) => y - x));
show('toSorted strings', () => [10, 9, 1, 100].toSorted());
show('toSorted undefined last', () => [undefined, 3, undefined, 1].toSorted());
show('toSorted holes', () => [3, , 1].toSorted());
show('toSorted stable', () => [
  { k: 1, v: 'a' }, { k: 0, v: 'b' }, { k: 1, v: 'c' }, { k: 0, v: 'd' },
].toSorted((x, y) => x.k - y.k).map((o) => o.v).join(''));
show('toSorted comparefn not called on undefined', () => {
  let calls = 0;
  [undefined, 2, undefined, 1].toSorted((x, y) => { calls++; return x - y; });
  return calls > 0 && calls <= 1;
});
show('toSorted bad comparefn', () => a.toSorted('nope'));
show('toSorted null comparefn', () => a.toSorted(null));
show('toSorted checks comparefn first', () => {
  const log = [];
  try {
    Array.prototype.toSorted.call({ get length() { log.push('length'); return 0; } }, 1);
  } catch (e) {
    log.push(e.name);
  }
  return log.join(', ');
});
show('toReversed holes', () => [1, , 3].toReversed());
show('toReversed sparse keys', () => Object.keys([1, , 3].toReversed()));

const b = [1, 2, 3, 4, 5];
show('toSpliced(1, 2)', () => [b.toSpliced(1, 2), b]);
show("toSpliced(1, 2, 'x', 'y', 'z')", () => b.toSpliced(1, 2, 'x', 'y', 'z'));
show('toSpliced(-2)', () => b.toSpliced(-2));
show('toSpliced(2, 0, 9)', () => b.toSpliced(2, 0, 9));
show('toSpliced()', () => b.toSpliced());
show('toSpliced(undefined)', () => b.toSpliced(undefined));
show('toSpliced(1, undefined)', () => b.toSpliced(1, undefined));
show('toSpliced(10, 1, 0)', () => b.toSpliced(10, 1, 0));
show('toSpliced(-10, 2)', () => b.toSpliced(-10, 2));
show('toSpliced(1, -5)', () => b.toSpliced(1, -5));
show('toSpliced(1, Infinity)', () => b.toSpliced(1, Infinity));
show('toSpliced holes', () => [1, , 3].toSpliced(0, 0));
show('toSpliced too long', () => Array.prototype.toSpliced.call({ length: 2 ** 53 - 1 }, 0, 0, 1));
show('toSpliced over 2^32-1', () => Array.prototype.toSpliced.call({ length: 2 ** 32 - 1 }, 0, 0, 1));

show('with(1)', () => [b.with(1, 'x'), b]);
show('with(-1)', () => b.with(-1, 'last'));
show('with(5)', () => b.with(5, 0));
show('with(-6)', () => b.with(-6, 0));
show('with(1.7)', () => b.with(1.7, 'x'));
show('with(NaN)', () => b.with(NaN, 'x'));
show('with on empty', () => [].with(0, 1));
show('with holes', () => [1, , 3].with(0, 0));
show('with index checked before copy', () => Array.prototype.with.call({ length: 2 ** 32 }, 2 ** 32, 0));
show('with over 2^32-1', () => Array.prototype.with.call({ length: 2 ** 32 }, 0, 0));

const like = { length: 3, 0: 'c', 1: 'a', 2: 'b' };
show('array-like toReversed', () => Array.prototype.toReversed.call(like));
show('array-like toSorted', () => Array.prototype.toSorted.call(like));
show('array-like toSpliced', () => Array.prototype.toSpliced.call(like, 0, 1));
show('array-like with', () => Array.prototype.with.call(like, 0, 'z'));
show('string toSorted', () => Array.prototype.toSorted.call('cab'));
show('null toReversed', () => Array.prototype.toReversed.call(null));
show('undefined toSorted', () => Array.prototype.toSorted.call(undefined));
show('null toSpliced', () => Array.prototype.toSpliced.call(null, 0));
show('null with', () => Array.prototype.with.call(null, 0, 0));

class MyArray extends Array {}
const mine = MyArray.from([2, 1]);
show('no species', () => [mine.toSorted(), mine.toReversed(), mine.toSpliced(0, 0), mine.with(0, 0)]
  .map((r) => r.constructor.name).join(' '));
show('setters on Array.prototype are not run', () => {
  let called = false;
  Object.defineProperty(Array.prototype, '0', {
    set(v) { called = true; }, get() { return 'proto'; }, configurable: true,
  });
  try {
    const r = [[1, 2].toReversed()[0], [2, 1].toSorted()[0], [1].with(0, 5)[0], [1].toSpliced(0, 1, 7)[0]];
    return [r, called];
  } finally {
    delete Array.prototype[0];
  }
});
show('unscopables', () => {
  const u = Array.prototype[Symbol.unscopables];
  return [Object.getPrototypeOf(u), ['at', 'findLast', 'findLastIndex', 'toReversed', 'toSorted',
    'toSpliced', 'with'].map((k) => `${k}:${u[k]}`).join(' ')];
});
show('with statement', () => {
  const toSorted = 'outer';
  const at = 'outer';
  const r = [];
  with ([]) {
    r.push(toSorted, at, typeof push);
  }
  return r;
});
