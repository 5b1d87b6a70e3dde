// NumberFormat notations: compact (short and long), scientific, engineering.
const values = [0, -0, 1, 1.5, 12.345, 99.5, 999, 999.9, 1000, 1234, 1500, 9999, 12345, 99999,
  123456, 999999, 999999.9, 1e6, 1234567, 1e9, 1.5e12, 1e15, 1.2345e16, 1e21, 0.001234, -1234,
  -999999, 12345678901234567890n, NaN, Infinity, -Infinity];
const sets = [
  { notation: 'compact' },
  { notation: 'compact', compactDisplay: 'long' },
  { notation: 'compact', maximumSignificantDigits: 3 },
  { notation: 'compact', maximumFractionDigits: 1 },
  { notation: 'compact', minimumFractionDigits: 2 },
  { notation: 'compact', compactDisplay: 'long', maximumSignificantDigits: 4 },
  { notation: 'compact', useGrouping: 'always' },
  { notation: 'compact', style: 'currency', currency: 'USD' },
  { notation: 'compact', style: 'currency', currency: 'EUR', compactDisplay: 'long' },
  { notation: 'compact', signDisplay: 'always' },
  { notation: 'scientific' },
  { notation: 'scientific', maximumFractionDigits: 1 },
  { notation: 'scientific', maximumSignificantDigits: 2 },
  { notation: 'scientific', minimumFractionDigits: 2 },
  { notation: 'engineering' },
  { notation: 'engineering', maximumSignificantDigits: 2 },
];
for (const o of sets) {
  const nf = new Intl.NumberFormat('en-US', o);
  console.log(JSON.stringify(o));
  console.log('  ' + JSON.stringify(values.map((v) => nf.format(v))));
}
console.log(JSON.stringify(new Intl.NumberFormat('en', { notation: 'compact', compactDisplay: 'long' }).formatToParts(-1234)));
console.log(JSON.stringify(new Intl.NumberFormat('en', { notation: 'scientific' }).formatToParts(-0.00123)));
console.log(JSON.stringify(new Intl.NumberFormat('en', { notation: 'engineering' }).formatToParts(123456)));
console.log(new Intl.NumberFormat('en', { notation: 'compact' }).resolvedOptions());
console.log(new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 2 }).resolvedOptions());
console.log(new Intl.NumberFormat('en', { notation: 'engineering' }).resolvedOptions());
