// Collator and localeCompare: ICU's root order for Latin text, accents and case.
const words = ['résumé', 'resume', 'Résumé', 'Resume', 'rèsume', 'resumes', 'résumés', 'apple', 'Apple',
  'APPLE', 'äpple', 'Äpple', 'banana', 'Banana', 'cote', 'coté', 'côte', 'côté', 'zebra', 'Zebra', 'zèbre',
  'Ångström', 'angstrom', 'naïve', 'naive', 'Noël', 'noel', 'façade', 'facade', 'straße', 'strasse', 'Strasse',
  'encyclopædia', 'encyclopaedia', 'Ærø', 'aero', 'œuvre', 'oeuvre', 'piñata', 'pinata', 'Łódź', 'lodz',
  'Øresund', 'oresund', 'ðe', 'de', 'ħ', 'h', 'ı', 'i', 'İ', 'þorn', 'thorn', 'zz', 'ij', 'ĳ', 'ﬁne', 'fine',
  'a', 'A', 'á', 'à', 'â', 'ä', 'ã', 'å', 'ā', 'ă', 'ą', 'b', 'c', 'ç', 'č', 'ć', 'd', 'ď', 'đ', 'e', 'é',
  'è', 'ê', 'ë', 'ē', 'ě', 'ę', 'n', 'ñ', 'ň', 'o', 'ó', 'ò', 'ô', 'ö', 'õ', 'ő', 'ø', 's', 'š', 'ś', 'ş',
  'u', 'ú', 'ù', 'û', 'ü', 'ů', 'ű', 'y', 'ý', 'ÿ', 'z', 'ž', 'ź', 'ż', 'Ü', 'Ö', 'É', 'Ñ', 'Ç'];
console.log(words.slice().sort(new Intl.Collator('en').compare).join(' '));
console.log(words.slice().sort((x, y) => x.localeCompare(y)).join(' '));
const mixed = ['10', '9', '2', '1', 'a', 'B', '_x', '-x', ' x', 'x', '!', '?', '.', ',', '#', '$', '%', '&', '(', ')',
  '*', '+', '/', ':', ';', '<', '=', '>', '@', '[', ']', '^', '`', '{', '|', '}', '~', '\\', '"', "'", '0', '½',
  '¹', '²', '€', '£', '¥', '©', '°', '±', '×', '÷', '§', '¶', '«', '»', '¿', '¡', '–', '—', '‘', '’', '“', '”', '…',
  'α', 'Ω', 'β', 'я', 'Ж', 'а', '日本', '中文', 'abc', 'ABC', 'aBc', 'Abc', 'ab', 'a b', 'a-b', 'a_b', 'ab c', ''];
console.log(JSON.stringify(mixed.slice().sort(new Intl.Collator('en-US').compare)));
const pairs = [['a', 'b'], ['a', 'A'], ['A', 'a'], ['a', 'á'], ['á', 'A'], ['ä', 'b'], ['résumé', 'resume'],
  ['resume', 'Resume'], ['ß', 'ss'], ['ß', 'SS'], ['æ', 'ae'], ['œ', 'oe'], ['ø', 'o'], ['ł', 'l'], ['ı', 'i'],
  ['ĳ', 'ij'], ['ﬁ', 'fi'], ['a', 'a\u0301'], ['á', 'a\u0301'], ['Å', 'A\u030a'], ['\u212b', 'Å'], ['ª', 'a'],
  ['1', '¹'], ['x', ''], ['', ''], ['a\u00adb', 'ab'], ['a b', 'a\u00a0b'], ['hello', 'help'], ['Hello', 'hello'],
  ['ab', 'aB'], ['cote', 'côte'], ['côte', 'coté'], ['peché', 'pêche'], ['a1', 'a01'], ['a2', 'a10']];
for (const sensitivity of ['base', 'accent', 'case', 'variant']) {
  const c = new Intl.Collator('en', { sensitivity });
  console.log(sensitivity.padEnd(8), pairs.map(([x, y]) => c.compare(x, y)).join(' '));
}
const search = new Intl.Collator('en', { usage: 'search', sensitivity: 'base' });
console.log(['Résumé', 'resume', 'RESUME', 'resumé', 'resumes'].filter((w) => search.compare(w, 'resume') === 0).join(','));
console.log(search.resolvedOptions());
