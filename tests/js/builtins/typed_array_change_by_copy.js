// %TypedArray%.prototype.toReversed, toSorted and with (ES2023): copies of the same
// element type (never a species), the original unchanged.
const show = (label, f) => {
  try {
    console.log(label, f());
  } catch (e) {
    console.log(label, 'threw', e.name);
  }
};

const t = new Int8Array([3, -1, 2]);
show('toReversed', () => [t.toReversed(), t]);
show('toSorted', () => [t.toSorted(), t]);
show('toSorted desc', () => t.toSorted((x, y) => y - x));
show('toSorted numeric', () => new Float64Array([10, 9, 1, 100, -0, 0, NaN, -Infinity]).toSorted());
show('toSorted bad comparefn', () => t.toSorted({}));
show('toSorted comparefn before receiver', () => Int8Array.prototype.toSorted.call([], 1));
show('with(0, 7)', () => [t.with(0, 7), t]);
show('with(-1, 300)', () => t.with(-1, 300));
show('with(1, "5")', () => t.with(1, '5'));
show('with(3)', () => t.with(3, 0));
show('with(-4)', () => t.with(-4, 0));
show('with(0, 1n)', () => t.with(0, 1n));
show('with converts before the index check', () => {
  const log = [];
  try {
    t.with(10, { valueOf() { log.push('valueOf'); return 1; } });
  } catch (e) {
    log.push(e.name);
  }
  return log.join(', ');
});
show('bigint with', () => new BigInt64Array([1n, 2n]).with(1, -5n));
show('bigint with string', () => new BigUint64Array([1n]).with(0, '42'));
show('bigint with number', () => new BigInt64Array([1n]).with(0, 1));
show('clamped with', () => new Uint8ClampedArray([1]).with(0, 300));
show('float toReversed', () => new Float32Array([0.5, 1.5, 2.5]).toReversed());
show('empty', () => [new Uint16Array(0).toSorted(), new Uint16Array(0).toReversed()]);

class MyInts extends Int32Array {}
const mine = new MyInts([2, 1]);
show('same type, no species', () =>
  [mine.toSorted(), mine.toReversed(), mine.with(0, 5)].map((r) => r.constructor.name).join(' '));
show('subarray view', () => new Uint8Array([1, 2, 3, 4]).subarray(1, 3).toReversed());
show('on array', () => Int8Array.prototype.toReversed.call([1, 2]));
show('on null', () => Int8Array.prototype.with.call(null, 0, 0));
show('on DataView', () => Int8Array.prototype.toSorted.call(new DataView(new ArrayBuffer(2))));
show('no toSpliced', () => typeof Int8Array.prototype.toSpliced);
