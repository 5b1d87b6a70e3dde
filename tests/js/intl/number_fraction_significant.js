// NumberFormat digit options: fraction digits, significant digits, integer digits.
const values = [0, -0, 1, -1, 0.5, 1.005, 2.675, 1.255, 0.1 + 0.2, 123.456, -123.456, 1234.5678,
  0.000123456, 999.9995, 1e21, 1.5e-7, 123456789.987654321, 5e-324, 2 ** 53, 0.045, 8.345];
const optionSets = [
  {},
  { maximumFractionDigits: 0 },
  { maximumFractionDigits: 1 },
  { maximumFractionDigits: 2 },
  { minimumFractionDigits: 2 },
  { minimumFractionDigits: 2, maximumFractionDigits: 4 },
  { minimumFractionDigits: 5 },
  { maximumFractionDigits: 20 },
  { maximumSignificantDigits: 1 },
  { maximumSignificantDigits: 3 },
  { minimumSignificantDigits: 3 },
  { minimumSignificantDigits: 2, maximumSignificantDigits: 4 },
  { maximumSignificantDigits: 21 },
  { minimumIntegerDigits: 3 },
  { minimumIntegerDigits: 5, minimumFractionDigits: 1 },
  { useGrouping: false },
  { useGrouping: 'min2' },
  { useGrouping: 'always' },
];
for (const options of optionSets) {
  const nf = new Intl.NumberFormat('en-US', options);
  console.log(JSON.stringify(options));
  for (const v of values) console.log('  ' + String(v).padEnd(22) + ' ' + nf.format(v));
}
for (const n of [1, 12, 123, 1234, 12345, 123456, 1234567, -1234567]) {
  console.log(n, ['auto', 'always', 'min2', false, true].map(
    (g) => new Intl.NumberFormat('en', { useGrouping: g }).format(n)).join(' | '));
}
