// Math: rounding, exact results, special values, and a few transcendental
// functions whose results are printed exactly (both engines agree on these).
// One line differs from Node on purpose: 10 ** -5 is 0.00001, the double nearest
// to 1e-5 (as Number('1e-5') is), where V8's pow gives 0.000009999999999999999;
// the specification leaves the precision of ** to the implementation.
console.log(Math.round(2.5), Math.round(-2.5), Math.round(0.5), Math.round(-0.5), Math.round(1.4999999999999998), Math.round(2 ** 52 + 0.5));
console.log(Math.floor(-1.5), Math.ceil(-1.5), Math.trunc(-1.9), Math.trunc(1.9), Math.sign(-3), Math.sign(-0), Math.sign(NaN));
console.log(Math.max(), Math.min(), Math.max(1, NaN, 3), Math.max(-0, 0), Math.min(0, -0), Math.max(...[4, 9, 2]));
console.log(Math.abs(-7.25), Math.abs(-0), Math.abs('-3'), Math.abs(null), Math.abs(undefined));
console.log(Math.sqrt(2), Math.sqrt(-1), Math.cbrt(27), Math.cbrt(-8), Math.hypot(3, 4), Math.hypot(), Math.hypot(NaN, Infinity));
console.log(2 ** 10, 2 ** -1, (-8) ** (1 / 3), 0 ** 0, Math.pow(NaN, 0), Math.pow(1, Infinity), 10 ** 21, 10 ** -5);
console.log(7 % 3, -7 % 3, 7 % -3, 5.5 % 2, -0 % 5, 5 % 0, Infinity % 1, 1 % Infinity);
console.log(Math.clz32(1), Math.clz32(0), Math.clz32(-1), Math.imul(3, 4), Math.imul(0xffffffff, 5), Math.fround(5.5), Math.fround(5.05), Math.fround(2 ** 128));
console.log(Math.log2(8), Math.log10(1000), Math.log(1), Math.log(0), Math.log(-1), Math.exp(0), Math.expm1(0), Math.log1p(0));
console.log(Math.sin(0), Math.cos(0), Math.tan(0), Math.atan2(0, -0), Math.atan2(-0, 0), Math.atan2(1, 1) * 4 === Math.PI);
console.log(Math.PI, Math.E, Math.LN2, Math.LN10, Math.LOG2E, Math.LOG10E, Math.SQRT2, Math.SQRT1_2);
console.log(Math.sin(Math.PI / 2), Math.cos(Math.PI), Math.asin(1) * 2 === Math.PI, Math.acos(-1) === Math.PI, Math.atan(Infinity) * 2 === Math.PI);
console.log(Math.sinh(0), Math.cosh(0), Math.tanh(Infinity), Math.asinh(0), Math.acosh(1), Math.atanh(0));

// Transcendental functions rounded to 12 significant digits (the last bits may
// legitimately differ between libraries).
const p12 = (x) => Number(x.toPrecision(12));
console.log([Math.sin(1), Math.cos(1), Math.tan(1), Math.exp(1), Math.log(10), Math.atan(0.5), Math.pow(2, 0.5), Math.sinh(1), Math.cbrt(2)].map(p12));

// Integer arithmetic limits and bitwise operators.
console.log(2 ** 53 + 1, 2 ** 53 === 2 ** 53 + 1, Number.MAX_SAFE_INTEGER + 2, 0.1 * 3, 0.1 + 0.7, 1.1 * 1.1);
console.log(1 << 31, 1 << 32, -1 >>> 0, -1 >> 28, 5 & 3, 5 | 3, 5 ^ 3, ~5, ~~3.7, 2 ** 31 | 0, 2 ** 32 + 5 | 0);
console.log(Number.MAX_VALUE * 2, -Number.MAX_VALUE * 2, Number.MIN_VALUE / 2, 1 / 3, 2 / 3, 100 / 3);

// Math.random: a number in [0, 1).
let ok = true;
for (let i = 0; i < 1000; i++) {
  const r = Math.random();
  if (!(r >= 0 && r < 1)) ok = false;
}
console.log('random in range:', ok);
