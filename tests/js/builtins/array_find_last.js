// Array.prototype.findLast and findLastIndex (ES2023), on arrays, array-likes and
// typed arrays: the search runs from the end; holes are visited as undefined.
const show = (label, f) => {
  try {
    console.log(label, f());
  } catch (e) {
    console.log(label, 'threw', e.name);
  }
};

const a = [1, 2, 3, 4, 5];
show('findLast even', () => a.findLast((x) => x % 2 === 0));
show('findLastIndex even', () => a.findLastIndex((x) => x % 2 === 0));
show('findLast none', () => a.findLast((x) => x > 10));
show('findLastIndex none', () => a.findLastIndex((x) => x > 10));
show('empty', () => [[].findLast(() => true), [].findLastIndex(() => true)]);
show('visit order', () => {
  const seen = [];
  a.findLast((x, i, arr) => { seen.push(`${i}:${x}:${arr === a}`); return false; });
  return seen.join(' ');
});
show('thisArg', () => a.findLast(function (x) { return x === this.want; }, { want: 3 }));
show('holes', () => {
  const seen = [];
  const r = [1, , 3].findLastIndex((x, i) => { seen.push(`${i}=${x}`); return x === undefined; });
  return [r, seen.join(' ')];
});
show('truthiness', () => [0, '', 'x', null].findLastIndex((x) => x));
show('length read once', () => {
  const arr = [1, 2, 3];
  return arr.findLast((x, i) => { arr.push(9); return i === 2; });
});
show('array-like', () => Array.prototype.findLast.call({ length: 3, 0: 'a', 1: 'b', 2: 'c' }, (x) => x !== 'c'));
show('array-like index', () => Array.prototype.findLastIndex.call({ length: 3, 0: 'a', 2: 'c' }, (x) => x === undefined));
show('string receiver', () => Array.prototype.findLast.call('hello', (c) => c === 'l'));
show('negative length', () => Array.prototype.findLastIndex.call({ length: -3, 0: 1 }, () => true));
show('null receiver', () => Array.prototype.findLast.call(null, () => true));
show('non-callable', () => a.findLast(3));
show('non-callable index', () => a.findLastIndex({}));
show('missing predicate', () => a.findLast());
show('callable checked after length', () => {
  const log = [];
  try {
    Array.prototype.findLast.call({ get length() { log.push('length'); return 1; } }, null);
  } catch (e) {
    log.push(e.name);
  }
  return log.join(', ');
});
show('predicate throws', () => a.findLast(() => { throw new RangeError('stop'); }));

const t = new Uint8Array([5, 12, 8, 130, 44]);
show('typed findLast', () => t.findLast((x) => x > 10 && x < 100));
show('typed findLastIndex', () => t.findLastIndex((x) => x > 200));
show('typed index args', () => {
  const seen = [];
  t.findLastIndex((x, i, arr) => { seen.push(i); return arr !== t; });
  return seen.join(',');
});
show('bigint typed', () => new BigUint64Array([1n, 2n, 3n]).findLast((x) => x < 3n));
show('typed non-callable', () => t.findLast('x'));
show('typed on array', () => Uint8Array.prototype.findLast.call([1, 2], () => true));
show('typed on null', () => Uint8Array.prototype.findLastIndex.call(null, () => true));
