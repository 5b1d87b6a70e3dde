// NumberFormat percent style and signDisplay.
const pv = [0, 0.1234, 1, -0.5, 0.005, 0.0049, 12.3456, -0.0001, 1e-10, NaN, Infinity];
for (const o of [{}, { maximumFractionDigits: 2 }, { minimumFractionDigits: 1 }, { maximumSignificantDigits: 2 }, { signDisplay: 'always' }]) {
  const nf = new Intl.NumberFormat('en', { style: 'percent', ...o });
  console.log(JSON.stringify(o), JSON.stringify(pv.map((v) => nf.format(v))));
}
const sv = [1, -1, 0, -0, 0.0001, -0.0001, 0.5, -0.5, NaN, Infinity, -Infinity, 123n, -123n, 0n];
for (const signDisplay of ['auto', 'always', 'never', 'exceptZero', 'negative']) {
  const nf = new Intl.NumberFormat('en', { signDisplay });
  const nf2 = new Intl.NumberFormat('en', { signDisplay, maximumFractionDigits: 0 });
  console.log(signDisplay.padEnd(10), JSON.stringify(sv.map((v) => nf.format(v))));
  console.log(''.padEnd(10), JSON.stringify(sv.map((v) => nf2.format(v))));
}
console.log(JSON.stringify(new Intl.NumberFormat('en', { style: 'percent', signDisplay: 'exceptZero' }).formatToParts(-0.256)));
console.log(JSON.stringify(new Intl.NumberFormat('en', { signDisplay: 'always' }).formatToParts(0)));
