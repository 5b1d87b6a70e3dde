// NumberFormat rounding: exact half-expand on the shortest decimal, rounding modes,
// increments, priorities and trailing zeros.
const ties = [1.005, 1.015, 1.025, 1.035, 1.045, 1.055, 1.065, 1.075, 1.085, 1.095, 2.675, 0.125,
  0.375, 10.235, 1.0005, 0.0005, 4.35, 4.45, 8.575, 1.45, -1.005, -2.675];
for (const v of ties) {
  console.log(String(v).padEnd(8), [0, 1, 2, 3].map((d) => v.toLocaleString(undefined,
    { maximumFractionDigits: d })).join(' '), v.toLocaleString('en-US', { maximumSignificantDigits: 2 }));
}
const modes = ['ceil', 'floor', 'expand', 'trunc', 'halfCeil', 'halfFloor', 'halfExpand', 'halfTrunc', 'halfEven'];
const mv = [2.5, -2.5, 1.5, -1.5, 2.4, -2.6, 0.5, -0.5, 2.51, 3.5, 0.4, -0.4];
for (const m of modes) {
  const nf = new Intl.NumberFormat('en', { roundingMode: m, maximumFractionDigits: 0 });
  console.log(m.padEnd(10), mv.map((v) => nf.format(v)).join(' '));
}
for (const m of modes) {
  const nf = new Intl.NumberFormat('en', { roundingMode: m, maximumSignificantDigits: 2 });
  console.log(m.padEnd(10), [1.25, -1.25, 1.35, 125, -135, 0.0125].map((v) => nf.format(v)).join(' '));
}
for (const inc of [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000]) {
  const nf = new Intl.NumberFormat('en', { roundingIncrement: inc, minimumFractionDigits: 2, maximumFractionDigits: 2 });
  console.log('increment', inc, [1.23, 1.27, 1.5, 12.345, 99.99, -0.13].map((v) => nf.format(v)).join(' '));
}
console.log(new Intl.NumberFormat('en', { roundingIncrement: 5, maximumFractionDigits: 0 }).format(12));
for (const p of ['auto', 'morePrecision', 'lessPrecision']) {
  for (const o of [{ maximumFractionDigits: 1, maximumSignificantDigits: 3 },
    { maximumFractionDigits: 3, maximumSignificantDigits: 2 },
    { minimumFractionDigits: 2, minimumSignificantDigits: 2 }]) {
    const nf = new Intl.NumberFormat('en', { ...o, roundingPriority: p });
    console.log(p, JSON.stringify(o), [1.2345, 123.45, 0.012345, 5, 98765.4321].map((v) => nf.format(v)).join(' '));
  }
}
for (const tz of ['auto', 'stripIfInteger']) {
  const nf = new Intl.NumberFormat('en', { minimumFractionDigits: 2, trailingZeroDisplay: tz });
  const cur = new Intl.NumberFormat('en', { style: 'currency', currency: 'USD', trailingZeroDisplay: tz });
  console.log(tz, [1, 1.5, 1.004, 0, -3].map((v) => nf.format(v) + '/' + cur.format(v)).join(' '));
}
