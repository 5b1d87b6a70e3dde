// Integer strings longer than 19 digits must round correctly to the nearest
// double, in source literals, Number(), parseInt, parseFloat and JSON.parse.
// The expected output is Node's; each value is also compared with the same
// number written with an exponent, which is parsed correctly.
// (QuickJS 2021 keeps the first 19 or 20 digits and scales them by a power of
// ten, rounding twice: 123456789012345680000 becomes 123456789012345670000.)
const text = '81612583732351801949';
console.log(123456789012345680000, 123456789012345680000 === 1.2345678901234568e20);
console.log(81612583732351801949, Number(text), parseInt(text), parseFloat(text), JSON.parse(text));
console.log([81612583732351801949, Number(text), parseInt(text), parseFloat(text), JSON.parse(text)].every((x) => x === 8.1612583732351801949e19));
console.log(Number('123456789012345680000') === Number('1.2345678901234568e20'), parseInt('123456789012345680000', 10));
console.log(0x10000000000000801, Number('0x10000000000000801'), 0x100000000000008010);
console.log(18446744073709551616, 36893488147419103232, 99999999999999999999, 9007199254740993000);
