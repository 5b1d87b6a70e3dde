// Integers and dates written as strings: the digits, signs and zero padding of
// String(int), property keys from indices (up to 2^32 - 2 and past it), and every
// Date format QuickJS writes itself, at the edges of their widths (years below 0,
// past 9999 and at the ends of the time range; one-digit fields). The expected
// output is what Node.js prints (TZ=UTC).
const ints = [0, -0, 1, -1, 7, 10, -10, 99, 100, 12345, -98765, 1073741823, 1073741824,
  -1073741824, -1073741825, 2147483647, -2147483647, -2147483648, 4294967294, 4294967295,
  4294967296, 9007199254740991];
console.log(ints.map(String).join(' '));
console.log(ints.map((n) => 'n' + n + '|' + `${n | 0}` + '|' + (n >>> 0)).join(' '));
const keyed = {};
for (const n of [0, 9, 10, 4294967294, 4294967295, 4294967296, -1]) keyed[n] = 1;
console.log(Object.keys(keyed).join(' '));
const sparse = [];
sparse[4294967294] = 'last';
sparse[7] = 'seven';
console.log(Object.keys(sparse).join(' '), JSON.stringify({ [2 ** 31]: 1, [-(2 ** 31)]: 2 }));
console.log(JSON.stringify([-2147483648, 2147483647, 0, -5]));

const times = [0, -1, 1, 86399999, 951782400000, 1577836800000, 1700000000007,
  Date.UTC(2021, 5, 7, 9, 5, 3, 4), Date.UTC(2021, 11, 31, 23, 59, 59, 999),
  253402300799999, 253402300800000, -62167219200000, -62167219200001, -62198755200000,
  -8640000000000000, 8640000000000000, Date.UTC(-12345, 0, 2), Date.UTC(123456, 6, 8, 1, 2, 3)];
for (const t of times) {
  const d = new Date(t);
  console.log([d.toISOString(), d.toUTCString(), d.toString(), d.toDateString(),
    d.toTimeString(), JSON.stringify(d)].join(' | '));
}
const bad = new Date(NaN);
console.log(String(bad), bad.toUTCString(), bad.toDateString(), bad.toTimeString(), JSON.stringify(bad));
try {
  bad.toISOString();
} catch (e) {
  console.log(e.name);
}
