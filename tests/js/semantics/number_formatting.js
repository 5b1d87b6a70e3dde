// Number to string: shortest round-trip form, exponent thresholds, radix, and
// toFixed/toPrecision/toExponential, which round exact ties up (away from zero
// for negatives) and otherwise round the exact binary value.
console.log(String(0.1), String(1 / 3), String(123e-20), String(1e21), String(1e-7), String(123456789012345680), String(-1e-7), String(2 ** 64));
console.log(0.000001, 1e-6 / 10, 1e20, 1e20 * 10, 5e-324, 1.7976931348623157e308, 4.35, 0.1 * 3, 100, 1e2, -0, [-0] + '');
console.log((255).toString(16), (255).toString(2), (-255).toString(36), (-0).toString(2), Number.MAX_SAFE_INTEGER.toString(36), (2 ** 53 - 1).toString(2).length);

// Exact ties go up: these values are exactly representable.
console.log((2.5).toFixed(0), (1.25).toFixed(1), (0.5).toFixed(0), (-2.5).toFixed(0), (1.5).toFixed(0), (-0.5).toFixed(0), (0.125).toFixed(2), (-1.25).toFixed(1));
console.log((2.5).toPrecision(1), (1.25).toPrecision(2), (0.125).toPrecision(2), (-2.5).toPrecision(1), (12.5).toPrecision(2), (1.5).toPrecision(1));
console.log((2.5).toExponential(0), (1.25).toExponential(1), (12.5).toExponential(1), (-1.25).toExponential(1), (0.125).toExponential(1), (5e-324).toExponential(0));

// Not ties: the binary value is slightly below or above the decimal one.
console.log((1.005).toFixed(2), (1.015).toFixed(2), (1.045).toFixed(2), (8.345).toFixed(2), (0.615).toFixed(2), (10.235).toFixed(2), (1.45).toFixed(1), (2.675).toFixed(2));
console.log((1.005).toPrecision(3), (0.045).toPrecision(1), (1.45).toPrecision(2), (1.005).toExponential(2), (4.35).toExponential(1));

// Padding, large values, limits and errors.
console.log((0).toFixed(2), (-0).toFixed(2), (0.000001).toFixed(7), (1e21).toFixed(2), (1e20).toFixed(2), (123.456).toFixed(10), (1.23e-10).toFixed(20));
console.log((123.456).toPrecision(1), (123.456).toPrecision(2), (123.456).toPrecision(4), (0.00001234).toPrecision(2), (1e21).toPrecision(3), (123456).toPrecision(21));
console.log((123456).toExponential(), (0).toExponential(), (0).toExponential(2), (1e-7).toExponential(3), (-1e21).toExponential(), (123.456).toExponential(0));
console.log(NaN.toFixed(2), Infinity.toFixed(1), (-Infinity).toPrecision(3), NaN.toExponential(), (5).toPrecision(), (5).toFixed());
for (const bad of [() => (1).toFixed(101), () => (1).toPrecision(0), () => (1).toPrecision(101), () => (1).toExponential(-1), () => (1).toString(1), () => (1).toString(37)]) {
  try {
    console.log(bad());
  } catch (e) {
    console.log(e.constructor.name);
  }
}
console.log((25).toFixed(100).length, (1 / 3).toFixed(100).slice(0, 40), (0.1).toFixed(30));

// Parsing back.
console.log(Number('1e3'), Number('.5'), Number('5.'), Number('-0'), Number('0x10'), Number('1_000'), Number('Infinity'), Number('-infinity'), Number('\n 42 \t'));
console.log(parseFloat('1e-7x'), parseFloat('.5e1'), parseFloat('-.0'), parseInt('  -42abc'), parseInt('1e3'), parseInt(0.0000005), parseInt('123', 0), parseInt('11', 2));
