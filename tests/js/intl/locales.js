// Intl.getCanonicalLocales, supportedLocalesOf, resolved locales, and how Intl objects print.
function t(label, fn) {
  try {
    console.log(label, '->', JSON.stringify(fn()));
  } catch (e) {
    console.log(label, '->', e.name + ': ' + e.message);
  }
}
for (const tag of ['en', 'EN-us', 'en-Latn-US', 'zh-hant-tw', 'sr-latn-rs', 'de-DE-1996', 'en-US-u-ca-gregory-nu-latn',
  'en-u-kn-true', 'en-US-u-kf-upper-kn-true', 'x-private', 'en-x-private', 'en-a-bbb-x-a-ccc', 'iw', 'in-ID', 'und',
  'en-US-POSIX', 'es-419', 'ja-JP-u-ca-japanese', 'en-GB-oxendict', 'root', 'en_US', 'en-', '-en', 'e', 'en-US-US',
  'de-1996-1996', 'en-u', 'en-a-b', 'abcdefghi', 'en-US-u-va-posix', 'EN-LATN-us-U-KN-TRUE']) {
  t('getCanonicalLocales ' + tag, () => Intl.getCanonicalLocales(tag));
}
t('list', () => Intl.getCanonicalLocales(['en-us', 'EN-US', 'en', 'en-GB']));
t('undefined', () => Intl.getCanonicalLocales());
t('empty list', () => Intl.getCanonicalLocales([]));
t('null item', () => Intl.getCanonicalLocales(['en', null]));
t('number item', () => Intl.getCanonicalLocales([1]));
t('null', () => Intl.getCanonicalLocales(null));
t('array-like', () => Intl.getCanonicalLocales({ length: 2, 0: 'en-us', 1: 'fr' }));
for (const C of [Intl.NumberFormat, Intl.DateTimeFormat, Intl.Collator, Intl.PluralRules, Intl.RelativeTimeFormat, Intl.ListFormat]) {
  t(C.name + ' supportedLocalesOf', () => C.supportedLocalesOf(['en-US', 'en']));
  t(C.name + ' supportedLocalesOf string', () => C.supportedLocalesOf('EN'));
  t(C.name + ' supportedLocalesOf bad', () => C.supportedLocalesOf(['en', 'en_US']));
  t(C.name + ' supportedLocalesOf matcher', () => C.supportedLocalesOf('en', { localeMatcher: 'lookup' }));
  t(C.name + ' supportedLocalesOf bad matcher', () => C.supportedLocalesOf('en', { localeMatcher: 'x' }));
  for (const loc of [undefined, 'en', 'en-US', ['en-US', 'en'], 'EN-us', [], 'en-US-u-nu-latn', 'en-u-ca-gregory']) {
    t(C.name + ' locale ' + JSON.stringify(loc), () => new C(loc).resolvedOptions().locale);
  }
  console.log(C.name, C.length, typeof C.prototype.resolvedOptions, Object.prototype.toString.call(new C()));
  console.log(new C(), C);
}
console.log(Intl, Object.prototype.toString.call(Intl), Object.getOwnPropertyNames(Intl).filter((n) => !['Locale', 'DisplayNames', 'Segmenter'].includes(n)));
console.log(Intl.supportedValuesOf('calendar').includes('gregory'), Intl.supportedValuesOf('numberingSystem').includes('latn'), Intl.supportedValuesOf('currency').includes('USD'));
t('supportedValuesOf bad', () => Intl.supportedValuesOf('colour'));
console.log([new Intl.NumberFormat(), { f: new Intl.DateTimeFormat() }]);
console.log(new Intl.DateTimeFormat().resolvedOptions().timeZone, new Intl.NumberFormat('en-US').resolvedOptions().locale);
