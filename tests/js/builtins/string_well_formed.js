// String.prototype.isWellFormed and toWellFormed (ES2024): lone surrogates are found
// and replaced by U+FFFD; well-formed pairs are kept.
const show = (label, f) => {
  try {
    console.log(label, f());
  } catch (e) {
    console.log(label, 'threw', e.name);
  }
};
const hex = (s) => [...s].map((c) => c.codePointAt(0).toString(16)).join(' ');

const cases = [
  ['empty', ''],
  ['ascii', 'abc'],
  ['pair', 'a\uD83D\uDE00b'],
  ['lone high', 'a\uD83Db'],
  ['lone low', 'a\uDE00b'],
  ['high at end', 'ab\uD83D'],
  ['low at start', '\uDE00ab'],
  ['low then high', '\uDE00\uD83D'],
  ['pair then low', '\uD83D\uDE00\uDE00'],
  ['two highs then low', '\uD800\uD800\uDC00'],
  ['only lone', '\uD800'],
  ['many', 'x\uD800y\uDFFFz\uDBFF\uDC00w\uDC00'],
];
for (const [label, s] of cases) {
  show(label, () => [s.isWellFormed(), hex(s.toWellFormed()), s.toWellFormed().isWellFormed()]);
}
show('same string when well formed', () => 'abc'.toWellFormed() === 'abc');
show('long', () => {
  const s = 'a'.repeat(100000) + '\uD800' + 'b'.repeat(100000);
  const w = s.toWellFormed();
  return [s.isWellFormed(), w.length, w[100000] === '\uFFFD', w.isWellFormed()];
});
show('number receiver', () => String.prototype.isWellFormed.call(123));
show('object receiver', () => String.prototype.toWellFormed.call({ toString: () => 'o\uD800' }).length);
show('null isWellFormed', () => String.prototype.isWellFormed.call(null));
show('undefined toWellFormed', () => String.prototype.toWellFormed.call(undefined));
show('symbol receiver', () => String.prototype.isWellFormed.call(Symbol('s')));
show('regexp exec replaced', () => {
  const exec = RegExp.prototype.exec;
  RegExp.prototype.exec = () => null;
  try {
    return ['a\uD800'.isWellFormed(), hex('a\uD800'.toWellFormed())];
  } finally {
    RegExp.prototype.exec = exec;
  }
});
