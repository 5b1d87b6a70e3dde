// Human-friendly date formatting for a report, all in UTC.
const events = [
  { title: 'Kickoff', at: '2024-01-08T14:00:00Z' },
  { title: 'Design review', at: '2024-02-29T09:15:00Z' },
  { title: 'Launch', at: '2024-07-04T23:30:00Z' },
  { title: 'Retro', at: '2024-12-31T00:05:00Z' },
];
const opts = { timeZone: 'UTC' };
for (const e of events) {
  const d = new Date(e.at);
  console.log(e.title.padEnd(14),
    d.toLocaleDateString('en-US', opts),
    '|', d.toLocaleDateString('en-US', { ...opts, weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' }),
    '|', d.toLocaleTimeString('en-US', opts));
}
const d = new Date('2024-03-05T17:08:09Z');
console.log(d.toLocaleString('en-US', opts));
console.log(d.toLocaleDateString('en-US', { ...opts, month: 'short', day: 'numeric' }));
console.log(d.toLocaleDateString('en-US', { ...opts, year: '2-digit', month: '2-digit', day: '2-digit' }));
console.log(d.toLocaleTimeString('en-US', { ...opts, hour: '2-digit', minute: '2-digit' }));
console.log(d.toLocaleTimeString('en-US', { ...opts, hour12: false }));
console.log(d.toLocaleString('en-US', { ...opts, dateStyle: 'medium', timeStyle: 'short' }));
console.log(d.toLocaleString('en-US', { ...opts, dateStyle: 'full' }));
const fmt = new Intl.DateTimeFormat('en-US', { ...opts, month: 'long', year: 'numeric' });
console.log(fmt.format(d), fmt.formatToParts(d).map((p) => p.type).join(','));
const byMonth = {};
for (const e of events) (byMonth[fmt.format(new Date(e.at))] ||= []).push(e.title);
console.log(byMonth);
const rtf = new Intl.RelativeTimeFormat('en-US', { numeric: 'auto' });
console.log([-1, 0, 1, 3].map((n) => rtf.format(n, 'day')));
console.log(rtf.format(-2, 'week'), rtf.format(5, 'month'));
const ref = Date.parse('2024-07-01T00:00:00Z');
for (const e of events) {
  const days = Math.round((Date.parse(e.at) - ref) / 86400000);
  console.log(`${e.title}: ${new Intl.RelativeTimeFormat('en-US').format(days, 'day')}`);
}
