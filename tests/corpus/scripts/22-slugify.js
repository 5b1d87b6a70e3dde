// Slugs, title case, truncation and other string cleanup helpers.
const slugify = (s) => s
  .normalize('NFKD')
  .replace(/[\u0300-\u036f]/g, '')
  .toLowerCase()
  .replace(/&/g, ' and ')
  .replace(/[^a-z0-9]+/g, '-')
  .replace(/^-+|-+$/g, '');
const titles = ['Hello, World!', '  Crème Brûlée & Café au lait  ', 'Ünïcödé — dashes – and “quotes”', '10 Tips: JS/TS in 2024', '---', 'ALLCAPS already-slugged'];
for (const t of titles) console.log(JSON.stringify(t), '->', slugify(t));

const titleCase = (s) => s.toLowerCase().replace(/\b(\w)(\w*)/g, (m, a, rest, offset) =>
  (offset > 0 && /^(a|an|the|of|in|and|or)$/.test(m) ? m : a.toUpperCase() + rest));
console.log(titleCase('the lord OF the rings: the return of the king'));
const camel = (s) => s.replace(/[-_\s]+(.)?/g, (_, c) => (c ? c.toUpperCase() : ''));
const snake = (s) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[-\s]+/g, '_').toLowerCase();
const kebab = (s) => snake(s).replaceAll('_', '-');
for (const s of ['user_id', 'created-at date', 'HTTPServerError', 'parseJSONResponse']) console.log(s, '|', camel(s), '|', snake(s), '|', kebab(s));

const truncate = (s, n) => (s.length <= n ? s : s.slice(0, n - 1).replace(/\s+\S*$/, '') + '…');
const para = 'The quick brown fox jumps over the lazy dog and keeps running far away';
for (const n of [10, 20, 40, 100]) console.log(n, truncate(para, n));
const wrap = (s, width) => s.split(' ').reduce((lines, w) => {
  const last = lines[lines.length - 1];
  if (last && (last + ' ' + w).length <= width) lines[lines.length - 1] = last + ' ' + w;
  else lines.push(w);
  return lines;
}, []);
console.log(wrap(para, 22));
console.log('  padded\t\n'.trim() + '|', 'x'.trimStart(), '\u00a0nbsp\u00a0'.trim().length);
console.log('straße'.toUpperCase(), 'İ'.toLowerCase().length, 'ǅ'.toLowerCase(), 'ﬁ'.normalize('NFKC'));
console.log(['b', 'a', 'C', 'é', 'e', 'Z'].sort(), ['b', 'a', 'C', 'é', 'e', 'Z'].sort((x, y) => x.localeCompare(y)));
console.log(['item10', 'item2', 'Item1'].sort(new Intl.Collator('en', { numeric: true, sensitivity: 'base' }).compare));
console.log('abc'.at(-1), 'a-b-c'.split('-', 2), 'mississippi'.lastIndexOf('ss'), 'x'.concat(1, null));
