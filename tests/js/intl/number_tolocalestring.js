// Number.prototype.toLocaleString and BigInt.prototype.toLocaleString, and the values
// NumberFormat accepts: numbers, BigInts, numeric strings, objects.
const nums = [0, -0, 1, -1, 3.14159, 1234.5, 1e21, 1e-7, 123456789012345680000, 0.1, 2 ** 31, -(2 ** 53),
  Number.MAX_VALUE, Number.MIN_VALUE, Number.EPSILON, NaN, Infinity, -Infinity];
for (const n of nums) {
  console.log(String(n).padEnd(24), n.toLocaleString(), n.toLocaleString('en-US', { maximumFractionDigits: 1 }),
    n.toLocaleString('en', { style: 'percent' }));
}
for (const b of [0n, 1n, -1n, 1234n, -1234567890n, 12345678901234567890123456789n]) {
  console.log(String(b).padEnd(30), b.toLocaleString(), b.toLocaleString('en', { style: 'currency', currency: 'USD' }),
    b.toLocaleString('en', { notation: 'compact' }), b.toLocaleString('en', { maximumSignificantDigits: 3 }));
}
const nf = new Intl.NumberFormat('en');
for (const v of ['1.005', '12345678901234567890.5', ' 42 ', '-0', '1e3', '.5', '5.', '+7', '0x10', '0b11',
  'abc', '', 'Infinity', '-Infinity', '1_000', '1,000', '00012', '1.23456789012345678901234567890']) {
  console.log(JSON.stringify(v).padEnd(36), nf.format(v));
}
console.log(nf.format(), nf.format(true), nf.format(false), nf.format(null), nf.format([]), nf.format([7]),
  nf.format({ valueOf() { return 42; } }), nf.format(new Number(5.5)), nf.format(Object(9n)));
console.log(new Intl.NumberFormat('en', { maximumFractionDigits: 2 }).format('1.005'),
  new Intl.NumberFormat('en', { maximumFractionDigits: 2 }).format('1.004999999999999999999'));
console.log((1234.5).toLocaleString('en-US', { minimumFractionDigits: 2 }), (0).toLocaleString('en', { minimumIntegerDigits: 2 }));
console.log([1234.5, 6789, 0.125].toLocaleString(), [1e6, new Date(Date.UTC(2024, 0, 2))].toLocaleString());
console.log(Number.prototype.toLocaleString.call(5), Number.prototype.toLocaleString.length, BigInt.prototype.toLocaleString.length);
