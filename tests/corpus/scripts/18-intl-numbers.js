// Currency, percent, compact and grouped numbers for a financial summary.
const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const eur = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR' });
const jpy = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'JPY' });
const pct = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 });
const compact = new Intl.NumberFormat('en-US', { notation: 'compact' });
const quarters = [
  { q: 'Q1', revenue: 1234567.891, cost: 987654.321 },
  { q: 'Q2', revenue: 1500000, cost: 1620000.5 },
  { q: 'Q3', revenue: 99.995, cost: 0.004 },
  { q: 'Q4', revenue: 0, cost: 42 },
];
for (const { q, revenue, cost } of quarters) {
  const margin = revenue ? (revenue - cost) / revenue : 0;
  console.log(q, usd.format(revenue), usd.format(revenue - cost), pct.format(margin), compact.format(revenue), eur.format(cost), jpy.format(cost));
}
console.log(usd.formatToParts(-1234.5).map((p) => `${p.type}:${p.value}`).join(' '));
console.log(new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', currencyDisplay: 'code' }).format(12));
console.log(new Intl.NumberFormat('en-US', { style: 'currency', currency: 'GBP', currencyDisplay: 'name' }).format(2));
console.log(new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', signDisplay: 'always' }).format(5));
console.log(new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', currencySign: 'accounting' }).format(-5));
console.log(new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(1234.5));
console.log(new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 }).format(123456));
console.log(new Intl.NumberFormat('en-US', { notation: 'compact', compactDisplay: 'long' }).format(2500000));
console.log(new Intl.NumberFormat('en-US', { notation: 'scientific' }).format(123456), new Intl.NumberFormat('en-US', { notation: 'engineering' }).format(123456));
console.log(new Intl.NumberFormat('en-US', { useGrouping: false }).format(1234567.25));
console.log([0.5, 0.123, 1.5, -0.02].map((n) => new Intl.NumberFormat('en-US', { style: 'percent' }).format(n)));
console.log((1234567.891).toLocaleString(), (1234567.891).toLocaleString('en-US', { maximumFractionDigits: 0 }));
console.log((0.000001234).toLocaleString(), (-0).toLocaleString(), NaN.toLocaleString(), (1e21).toLocaleString());
console.log((42).toLocaleString('en-US', { style: 'currency', currency: 'USD' }), 12345n.toLocaleString());
console.log([1.005, 2.675, 1.45, 8.345].map((n) => [n.toFixed(2), new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }).format(n)]));
console.log((0.1 * 3).toFixed(20), (123.456).toPrecision(4), (0.00001).toExponential(2), (255).toString(16), (1e21).toFixed(2));
const pr = new Intl.PluralRules('en-US');
const ord = new Intl.PluralRules('en-US', { type: 'ordinal' });
const suffix = { one: 'st', two: 'nd', few: 'rd', other: 'th' };
console.log([1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map((n) => n + suffix[ord.select(n)]).join(' '));
console.log([0, 1, 2].map((n) => `${n} file${pr.select(n) === 'one' ? '' : 's'}`));
