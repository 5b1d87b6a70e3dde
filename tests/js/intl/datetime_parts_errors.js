// DateTimeFormat formatToParts, resolvedOptions, the format getter and bad input.
function t(label, fn) {
  try {
    const r = fn();
    console.log(label, '->', typeof r === 'string' ? r : JSON.stringify(r));
  } catch (e) {
    console.log(label, '->', e.name + ': ' + e.message);
  }
}
const d = Date.UTC(2024, 0, 2, 15, 4, 5, 67);
for (const o of [{}, { dateStyle: 'full', timeStyle: 'long' }, { weekday: 'short', month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', fractionalSecondDigits: 2 },
  { era: 'long', year: 'numeric', month: 'long' }, { hour: 'numeric', dayPeriod: 'long' }, { year: '2-digit', timeZoneName: 'long' }]) {
  console.log(JSON.stringify(o));
  console.log('  ' + JSON.stringify(new Intl.DateTimeFormat('en-US', o).formatToParts(d)));
}
for (const o of [{}, { dateStyle: 'medium' }, { timeStyle: 'short' }, { dateStyle: 'long', timeStyle: 'long', hour12: false },
  { hour: 'numeric' }, { hour: 'numeric', hour12: false }, { hour: 'numeric', hourCycle: 'h23' }, { hour: '2-digit', minute: '2-digit', hourCycle: 'h11' },
  { minute: '2-digit' }, { second: '2-digit' }, { minute: 'numeric', second: 'numeric' }, { weekday: 'narrow', era: 'narrow' },
  { month: '2-digit', day: '2-digit', year: '2-digit' }, { hour12: true }, { fractionalSecondDigits: 3, second: 'numeric' },
  { dayPeriod: 'short' }, { timeZoneName: 'shortOffset' }, { timeZone: 'etc/utc' }, { timeZone: 'GMT', weekday: 'long' },
  { era: 'short' }, { calendar: 'gregory', numberingSystem: 'latn' }]) {
  console.log(JSON.stringify(o), JSON.stringify(new Intl.DateTimeFormat('en-US', o).resolvedOptions()));
}
const f = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC' });
const format = f.format;
console.log(format === f.format, format.name === '', format.length, [d, new Date(0)].map(format).join(' '));
console.log(Object.getOwnPropertyNames(Intl.DateTimeFormat.prototype).sort().join(','), Object.prototype.toString.call(f));
t('format undefined is now', () => typeof f.format());
t('format NaN', () => f.format(NaN));
t('format huge', () => f.format(8.64e15 + 1));
t('format string', () => f.format('2024-01-02'));
t('format Date', () => f.format(new Date(d)));
t('formatToParts NaN', () => f.formatToParts(new Date(NaN)));
t('month bogus', () => new Intl.DateTimeFormat('en', { month: 'bogus' }));
t('weekday 2-digit', () => new Intl.DateTimeFormat('en', { weekday: '2-digit' }));
t('hourCycle h25', () => new Intl.DateTimeFormat('en', { hourCycle: 'h25' }));
t('timeZone bad', () => new Intl.DateTimeFormat('en', { timeZone: 'Foo/Bar' }));
t('dateStyle bogus', () => new Intl.DateTimeFormat('en', { dateStyle: 'bogus' }));
t('dateStyle with year', () => new Intl.DateTimeFormat('en', { dateStyle: 'full', year: 'numeric' }));
t('timeStyle with hour', () => new Intl.DateTimeFormat('en', { timeStyle: 'short', hour: 'numeric' }));
t('fractionalSecondDigits 0', () => new Intl.DateTimeFormat('en', { fractionalSecondDigits: 0 }));
t('fractionalSecondDigits 4', () => new Intl.DateTimeFormat('en', { fractionalSecondDigits: 4 }));
t('timeZoneName bogus', () => new Intl.DateTimeFormat('en', { timeZoneName: 'medium' }));
t('formatMatcher bogus', () => new Intl.DateTimeFormat('en', { formatMatcher: 'worst' }));
t('calendar bad', () => new Intl.DateTimeFormat('en', { calendar: 'a' }));
t('options null', () => new Intl.DateTimeFormat('en', null));
t('toLocaleDateString timeStyle', () => new Date(d).toLocaleDateString('en', { timeStyle: 'short' }));
t('toLocaleTimeString dateStyle', () => new Date(d).toLocaleTimeString('en', { dateStyle: 'short' }));
t('toLocaleString on non-date', () => Date.prototype.toLocaleString.call({}));
t('resolvedOptions on {}', () => Intl.DateTimeFormat.prototype.resolvedOptions.call({}));
t('format getter on proto', () => Intl.DateTimeFormat.prototype.format);
t('call without new', () => Intl.DateTimeFormat('en', { timeZone: 'UTC' }).format(d));
const r = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC' });
console.log(JSON.stringify([r.formatRange(d, d + 3 * 86400000), r.formatRange(d, d + 1000)]));
console.log(JSON.stringify(r.formatRangeToParts(d, d + 3 * 86400000)));
console.log(JSON.stringify(r.formatRangeToParts(d, d)));
t('formatRange missing', () => r.formatRange(d));
t('formatRange NaN', () => r.formatRange(d, NaN));
