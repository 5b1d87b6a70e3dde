// Date arithmetic in UTC: parse ISO strings, add days/months, diff, week numbers.
const DAY = 86400000;
const parse = (s) => new Date(s);
const start = parse('2024-01-31T09:30:00Z');
const addDays = (d, n) => new Date(d.getTime() + n * DAY);
const addMonths = (d, n) => {
  const r = new Date(d);
  const day = r.getUTCDate();
  r.setUTCDate(1);
  r.setUTCMonth(r.getUTCMonth() + n);
  const last = new Date(Date.UTC(r.getUTCFullYear(), r.getUTCMonth() + 1, 0)).getUTCDate();
  r.setUTCDate(Math.min(day, last));
  return r;
};
console.log(start.toISOString(), addDays(start, 30).toISOString());
for (let i = 1; i <= 4; i++) console.log(`+${i}mo`, addMonths(start, i).toISOString().slice(0, 10));

const a = parse('2024-02-28'), b = parse('2024-03-01');
console.log('days between:', (b - a) / DAY, 'leap:', new Date(Date.UTC(2024, 1, 29)).getUTCDate() === 29);

function isoWeek(d) {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  const dayNum = t.getUTCDay() || 7;
  t.setUTCDate(t.getUTCDate() + 4 - dayNum);
  const yearStart = new Date(Date.UTC(t.getUTCFullYear(), 0, 1));
  return [t.getUTCFullYear(), Math.ceil(((t - yearStart) / DAY + 1) / 7)];
}
for (const s of ['2024-01-01', '2024-12-30', '2021-01-03', '2020-12-31']) console.log(s, isoWeek(parse(s)));

const dates = ['2024-03-10T05:00:00Z', '2023-11-02T18:45:00.250Z', '2024-03-09T23:59:59Z'].map(parse);
dates.sort((x, y) => x - y);
console.log(dates);
console.log(JSON.stringify({ when: dates[0] }));
console.log(new Date(0).toISOString(), new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 999)).toJSON());
console.log(Date.UTC(2024, 0, 1), Date.parse('2024-01-01T00:00:00.000+02:00'));
const bad = new Date('not a date');
console.log(isNaN(bad), String(bad), bad.getTime());
console.log(new Date('2024-06-15T12:00:00Z').toUTCString());
const d = new Date('2024-07-04T15:06:07Z');
console.log([d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCDay(), d.getUTCHours()].join(' '));
