// typeof, Object.prototype.toString tags, equality and conversions.
const values = [
  undefined, null, true, 0, -0, NaN, 1n, 'str', Symbol('s'), {}, [], () => 1,
  class {}, new Date(0), /re/, new Map(), new Set(), new Error('e'), Promise.resolve(),
  new Uint8Array(1), new ArrayBuffer(1), new DataView(new ArrayBuffer(1)),
  function* () {}, async () => {}, Math, JSON, new Proxy({}, {}),
];
for (const v of values) {
  console.log(typeof v, Object.prototype.toString.call(v));
}

console.log(null == undefined, null === undefined, NaN == NaN, Object.is(NaN, NaN));
console.log(0 === -0, Object.is(0, -0), 1 / -0, [NaN].includes(NaN), [NaN].indexOf(NaN));
console.log('1' == 1, '' == 0, '0' == false, [] == false, [0] == false, null == 0, null >= 0);
console.log(1 + '2', '3' * '4', '10' / 4, '5' - 2, +'', +' 12 ', +'1e3', +'0x1f', +'0b101', +'12px');
console.log([] + [], [] + {}, [1, 2] + [3], String({}), String([1, [2, 3]]), String(null));
console.log(Number(undefined), Number(null), Number(true), Number([]), Number([7]), Number('  '));
console.log(Boolean(''), Boolean('0'), Boolean([]), Boolean(0n), Boolean(NaN), !!Symbol.iterator);
console.log(parseInt('08'), parseInt('0x10'), parseInt('12.9px'), parseFloat('3.14abc'), parseInt('z', 36));
console.log(Number.isInteger(5.0), Number.isSafeInteger(2 ** 53), Number.EPSILON > 0, Number.MAX_SAFE_INTEGER);
console.log(typeof typeof 1, void 0, [1, 2, 3].length, 'abc'.length, (function (a, b) {}).length);
console.log(Array.isArray([]), Array.isArray(new Uint8Array(1)), [] instanceof Object, Object.create(null) instanceof Object);
