// NumberFormat formatToParts, resolvedOptions, format as a bound getter, formatRange.
const nf = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2 });
for (const v of [1234567.891, -0.5, 0, NaN, -Infinity, 12n]) console.log(JSON.stringify(nf.formatToParts(v)));
console.log(JSON.stringify(new Intl.NumberFormat('en', { style: 'currency', currency: 'USD', currencySign: 'accounting' }).formatToParts(-1234.5)));
console.log(JSON.stringify(new Intl.NumberFormat('en', { style: 'currency', currency: 'CHF' }).formatToParts(-1)));
console.log(JSON.stringify(new Intl.NumberFormat('en', { style: 'currency', currency: 'EUR', currencyDisplay: 'name' }).formatToParts(2)));
console.log(JSON.stringify(new Intl.NumberFormat('en', { style: 'percent' }).formatToParts(-0.42)));
const format = nf.format;
console.log(format === nf.format, typeof format, format.name === '', format.length, [1, 2.5, 1000].map(format).join(' '));
console.log(Object.getOwnPropertyNames(Intl.NumberFormat.prototype).sort().join(','));
console.log(Object.prototype.toString.call(nf), String(Intl.NumberFormat.prototype[Symbol.toStringTag]));
for (const o of [{}, { style: 'percent' }, { style: 'currency', currency: 'jpy' },
  { style: 'currency', currency: 'USD', currencyDisplay: 'name', currencySign: 'accounting' },
  { maximumSignificantDigits: 3 }, { minimumSignificantDigits: 2 }, { maximumFractionDigits: 5 },
  { minimumFractionDigits: 4 }, { useGrouping: false }, { useGrouping: 'min2' }, { useGrouping: 'true' },
  { notation: 'scientific', signDisplay: 'never' }, { roundingPriority: 'lessPrecision' },
  { roundingIncrement: 25, maximumFractionDigits: 2, minimumFractionDigits: 2, roundingMode: 'floor' },
  { minimumIntegerDigits: 4, trailingZeroDisplay: 'stripIfInteger' }]) {
  console.log(JSON.stringify(o), JSON.stringify(new Intl.NumberFormat('en-US', o).resolvedOptions()));
}
const r = new Intl.NumberFormat('en');
console.log(r.formatRange(1, 5), r.formatRange(5, 1), r.formatRange(1000, 1000000), r.formatRange(-5, -1), r.formatRange(1, 1), r.formatRange(1.0001, 1));
const rc = new Intl.NumberFormat('en', { style: 'currency', currency: 'USD' });
console.log(JSON.stringify([rc.formatRange(1, 5), rc.formatRange(3, 3)]));
console.log(JSON.stringify(r.formatRangeToParts(1, 5)));
console.log(new Intl.NumberFormat('en', { style: 'percent' }).formatRange(0.1, 0.2));
