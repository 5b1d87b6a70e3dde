// Intl.PluralRules for English: cardinal and ordinal, with digit options.
const values = [0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 21, 22, 23, 24, 101, 102, 103, 111, 112, 113, 1000,
  -1, -2, 1.0, 1.5, 0.5, 2.5, 1.00001, NaN, Infinity, '1', '1.0', 1n];
for (const o of [{}, { type: 'ordinal' }, { minimumFractionDigits: 1 }, { maximumFractionDigits: 0 },
  { maximumSignificantDigits: 1 }, { minimumSignificantDigits: 2 }, { type: 'ordinal', maximumFractionDigits: 0 }]) {
  const pr = new Intl.PluralRules('en-US', o);
  console.log(JSON.stringify(o), values.map((v) => { try { return pr.select(v); } catch (e) { return e.name; } }).join(' '));
  console.log('  ', JSON.stringify(pr.resolvedOptions()));
}
const ordinal = new Intl.PluralRules('en', { type: 'ordinal' });
const suffix = { one: 'st', two: 'nd', few: 'rd', other: 'th' };
console.log([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 100, 101, 111, 1001, 1011].map((n) => n + suffix[ordinal.select(n)]).join(' '));
console.log(new Intl.PluralRules('en').selectRange(1, 2), new Intl.PluralRules('en').selectRange(0, 1),
  ordinal.selectRange(1, 2), ordinal.selectRange(1, 3));
console.log(Object.getOwnPropertyNames(Intl.PluralRules.prototype).sort().join(','), Object.prototype.toString.call(ordinal), ordinal);
function t(label, fn) {
  try {
    console.log(label, '->', fn());
  } catch (e) {
    console.log(label, '->', e.name + ': ' + e.message);
  }
}
t('without new', () => Intl.PluralRules());
t('type bad', () => new Intl.PluralRules('en', { type: 'cardinals' }));
t('maxFD bad', () => new Intl.PluralRules('en', { maximumFractionDigits: 101 }));
t('select on {}', () => Intl.PluralRules.prototype.select.call({}, 1));
t('select symbol', () => new Intl.PluralRules().select(Symbol()));
t('selectRange NaN', () => new Intl.PluralRules().selectRange(NaN, 1));
t('selectRange undefined', () => new Intl.PluralRules().selectRange(1));
