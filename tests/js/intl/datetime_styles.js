// dateStyle/timeStyle, date and time combined, and Date.prototype.toLocale*String.
const dates = [new Date(Date.UTC(2024, 0, 2, 15, 4, 5, 67)), new Date(Date.UTC(2000, 1, 29, 0, 0, 0)),
  new Date(Date.UTC(1969, 6, 20, 20, 17, 40)), new Date(0), new Date(-1), new Date(8.64e15), new Date(-8.64e15)];
for (const dateStyle of [undefined, 'full', 'long', 'medium', 'short']) {
  for (const timeStyle of [undefined, 'full', 'long', 'medium', 'short']) {
    if (!dateStyle && !timeStyle) continue;
    const f = new Intl.DateTimeFormat('en-US', { dateStyle, timeStyle, timeZone: 'UTC' });
    console.log(dateStyle || '-', timeStyle || '-', '|', dates.slice(0, 3).map((d) => f.format(d)).join(' | '));
  }
}
for (const hourCycle of ['h11', 'h23', 'h24']) {
  for (const timeStyle of ['full', 'short']) {
    const f = new Intl.DateTimeFormat('en', { timeStyle, dateStyle: 'short', hourCycle });
    console.log(hourCycle, timeStyle, f.format(dates[0]), '|', f.format(dates[1]));
  }
}
const dateOnly = [{ year: 'numeric', month: 'long', day: 'numeric' }, { year: 'numeric', month: 'short', day: 'numeric' },
  { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' }, { month: 'short', day: 'numeric' },
  { year: 'numeric', month: 'numeric', day: 'numeric' }, { weekday: 'long' }, { weekday: 'short' }, { month: 'long' },
  { year: 'numeric' }, { era: 'short', year: 'numeric' }, { weekday: 'short', month: 'long', day: 'numeric' },
  { month: 'narrow', day: 'numeric' }, { year: '2-digit', month: '2-digit', day: '2-digit' }];
for (const o of dateOnly) {
  for (const time of [{ hour: 'numeric' }, { hour: 'numeric', minute: '2-digit' }, { hour: 'numeric', minute: 'numeric', second: 'numeric' }, { hour: 'numeric', minute: 'numeric', timeZoneName: 'short' }]) {
    console.log(JSON.stringify(o), JSON.stringify(time), new Intl.DateTimeFormat('en', { ...o, ...time }).format(dates[0]));
  }
}
for (const d of dates) {
  console.log(d.toLocaleString(), '|', d.toLocaleDateString(), '|', d.toLocaleTimeString(), '|',
    d.toLocaleString('en-US'), '|', d.toLocaleDateString('en-US', { dateStyle: 'medium' }));
}
const d = dates[0];
console.log(d.toLocaleDateString('en', { month: 'long' }), '|', d.toLocaleTimeString('en', { month: 'long' }), '|',
  d.toLocaleDateString('en', { hour: 'numeric' }), '|', d.toLocaleTimeString('en', { hour: 'numeric' }), '|',
  d.toLocaleString('en', { hour12: false }), '|', d.toLocaleTimeString('en-US', { hour12: false }), '|',
  d.toLocaleString(undefined, { timeZone: 'UTC', timeZoneName: 'short' }));
console.log(new Date(NaN).toLocaleString(), new Date(NaN).toLocaleDateString(), new Date(NaN).toLocaleTimeString('en', { bogus: 1 }));
for (const y of [-1, 0, 1, 99, 999, 1000, 10000, 275760, -271820]) {
  const x = new Date(Date.UTC(2000, 5, 15));
  x.setUTCFullYear(y);
  console.log(y, x.toLocaleDateString(), '|', x.toLocaleDateString('en', { era: 'short' }), '|',
    x.toLocaleDateString('en', { year: '2-digit', month: 'short' }), '|', x.toLocaleDateString('en', { dateStyle: 'full' }));
}
