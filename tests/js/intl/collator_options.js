// Collator options: numeric, caseFirst, ignorePunctuation, locale extensions, and
// localeCompare's arguments.
const files = ['file10.txt', 'file2.txt', 'file1.txt', 'File3.txt', 'file20.txt', 'file02.txt', 'file001.txt',
  'file1a.txt', 'file1.10.txt', 'file1.9.txt', 'v1.10.0', 'v1.9.2', 'v1.2.10', 'v10.0', 'a100', 'a99', 'a0100',
  '1000', '999', '0', '00', '-5', '12345678901234567890', '12345678901234567891', 'x9y', 'x10y'];
for (const numeric of [false, true]) {
  console.log('numeric', numeric, JSON.stringify(files.slice().sort(new Intl.Collator('en', { numeric }).compare)));
}
console.log(JSON.stringify(files.slice().sort(new Intl.Collator('en-u-kn').compare)));
console.log(JSON.stringify(files.slice().sort((a, b) => a.localeCompare(b, undefined, { numeric: true, sensitivity: 'base' }))));
const cased = ['a', 'A', 'b', 'B', 'ab', 'Ab', 'aB', 'AB', 'á', 'Á', 'c', 'C', 'Ca', 'ca', 'cA'];
for (const caseFirst of [undefined, 'upper', 'lower', 'false']) {
  console.log('caseFirst', caseFirst, cased.slice().sort(new Intl.Collator('en', { caseFirst }).compare).join(' '));
}
console.log(cased.slice().sort(new Intl.Collator('en-US-u-kf-upper').compare).join(' '));
const punct = ['a b', 'ab', 'a-b', 'A-B', 'a.b', 'a,b', 'a_b', 'a$b', 'a+b', 'a  b', 'ab!', '!ab', 'a\tb'];
for (const ignorePunctuation of [false, true]) {
  const c = new Intl.Collator('en', { ignorePunctuation });
  console.log('ignorePunctuation', ignorePunctuation, JSON.stringify(punct.slice().sort(c.compare)),
    c.compare('a b', 'ab'), c.compare('a$b', 'ab'), c.compare('a-b', 'A-B'));
}
for (const o of [{}, { numeric: true }, { caseFirst: 'upper' }, { sensitivity: 'base' }, { usage: 'search' },
  { ignorePunctuation: true }, { collation: 'default' }]) {
  console.log(JSON.stringify(o), JSON.stringify(new Intl.Collator('en-US', o).resolvedOptions()));
}
for (const loc of ['en-u-kn', 'en-u-kn-false', 'en-US-u-kf-lower', 'en-u-kf-upper-kn', 'en-u-co-phonebk']) {
  const c = new Intl.Collator(loc);
  console.log(loc, JSON.stringify(c.resolvedOptions()), c.compare('a2', 'a10'), c.compare('a', 'A'));
}
console.log(new Intl.Collator('en-u-kn', { numeric: false }).resolvedOptions().locale);
console.log('a'.localeCompare('b'), 'b'.localeCompare('a'), 'a'.localeCompare('a'), 'a'.localeCompare('A'),
  'a'.localeCompare('á', 'en', { sensitivity: 'base' }), 'a'.localeCompare(), 'undefined'.localeCompare(),
  'null'.localeCompare(null), String.prototype.localeCompare.length);
const c = new Intl.Collator();
const compare = c.compare;
console.log(compare === c.compare, compare.name === '', compare.length, compare('a', 'b'), compare(1, 2), compare(10, 9));
console.log(Object.getOwnPropertyNames(Intl.Collator.prototype).sort().join(','), Object.prototype.toString.call(c));
function t(label, fn) {
  try {
    console.log(label, '->', fn());
  } catch (e) {
    console.log(label, '->', e.name + ': ' + e.message);
  }
}
t('sensitivity bad', () => new Intl.Collator('en', { sensitivity: 'x' }));
t('usage bad', () => new Intl.Collator('en', { usage: 'filter' }));
t('caseFirst bad', () => new Intl.Collator('en', { caseFirst: 'yes' }));
t('collation bad', () => new Intl.Collator('en', { collation: 'a' }));
t('compare on proto', () => Intl.Collator.prototype.compare);
t('localeCompare null this', () => String.prototype.localeCompare.call(null, 'a'));
t('localeCompare bad locale', () => 'a'.localeCompare('b', 'not a locale!'));
t('call without new', () => Intl.Collator('en', { numeric: true }).compare('2', '10'));
