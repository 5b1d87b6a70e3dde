// Intl.RelativeTimeFormat for English: styles, numeric auto, units, parts.
const units = ['second', 'seconds', 'minute', 'minutes', 'hour', 'hours', 'day', 'days', 'week', 'weeks',
  'month', 'months', 'quarter', 'quarters', 'year', 'years'];
const values = [-2, -1, -0, 0, 1, 2, 1.5, -0.5, 1000, -1234.5678, 100];
for (const style of ['long', 'short', 'narrow']) {
  for (const numeric of ['always', 'auto']) {
    const rtf = new Intl.RelativeTimeFormat('en-US', { style, numeric });
    for (const unit of units) {
      console.log(style, numeric, unit.padEnd(8), '|', values.map((v) => rtf.format(v, unit)).join(' | '));
    }
  }
}
const rtf = new Intl.RelativeTimeFormat('en');
console.log(JSON.stringify(rtf.formatToParts(-1234.5, 'days')));
console.log(JSON.stringify(rtf.formatToParts(2, 'hour')));
console.log(JSON.stringify(new Intl.RelativeTimeFormat('en', { numeric: 'auto' }).formatToParts(1, 'day')));
console.log(JSON.stringify(new Intl.RelativeTimeFormat('en', { numeric: 'auto' }).formatToParts(5, 'day')));
console.log(rtf.resolvedOptions(), new Intl.RelativeTimeFormat('en', { style: 'narrow', numeric: 'auto' }).resolvedOptions());
console.log(rtf.format('3', 'days'), rtf.format(1e21, 'year'), rtf.format(0.001, 'second'));
console.log(Object.getOwnPropertyNames(Intl.RelativeTimeFormat.prototype).sort().join(','), rtf);
function t(label, fn) {
  try {
    console.log(label, '->', fn());
  } catch (e) {
    console.log(label, '->', e.name + ': ' + e.message);
  }
}
t('unit bad', () => rtf.format(1, 'fortnight'));
t('unit millisecond', () => rtf.format(1, 'millisecond'));
t('value NaN', () => rtf.format(NaN, 'day'));
t('value Infinity', () => rtf.format(Infinity, 'day'));
t('style bad', () => new Intl.RelativeTimeFormat('en', { style: 'tiny' }));
t('numeric bad', () => new Intl.RelativeTimeFormat('en', { numeric: 'sometimes' }));
t('without new', () => Intl.RelativeTimeFormat('en'));
t('format on {}', () => Intl.RelativeTimeFormat.prototype.format.call({}, 1, 'day'));
