// Intl.ListFormat for English: conjunction, disjunction and unit lists in every style.
const lists = [[], ['A'], ['A', 'B'], ['A', 'B', 'C'], ['A', 'B', 'C', 'D'], ['apples', 'oranges', 'pears', 'plums', 'figs']];
for (const type of ['conjunction', 'disjunction', 'unit']) {
  for (const style of ['long', 'short', 'narrow']) {
    const lf = new Intl.ListFormat('en-US', { type, style });
    console.log(type, style, JSON.stringify(lists.map((l) => lf.format(l))));
  }
}
const lf = new Intl.ListFormat('en');
console.log(JSON.stringify(lf.formatToParts(['a', 'b', 'c'])));
console.log(JSON.stringify(new Intl.ListFormat('en', { type: 'disjunction' }).formatToParts(['x', 'y'])));
console.log(lf.format(new Set(['one', 'two', 'three'])), '|', lf.format('xyz'), '|', lf.format());
console.log(lf.resolvedOptions(), new Intl.ListFormat('en', { type: 'unit', style: 'narrow' }).resolvedOptions());
console.log(Object.getOwnPropertyNames(Intl.ListFormat.prototype).sort().join(','), lf);
function t(label, fn) {
  try {
    console.log(label, '->', fn());
  } catch (e) {
    console.log(label, '->', e.name + ': ' + e.message);
  }
}
t('non-string item', () => lf.format(['a', 1]));
t('null list', () => lf.format(null));
t('type bad', () => new Intl.ListFormat('en', { type: 'and' }));
t('style bad', () => new Intl.ListFormat('en', { style: 'tiny' }));
t('without new', () => Intl.ListFormat());
t('format on {}', () => Intl.ListFormat.prototype.format.call({}, []));
