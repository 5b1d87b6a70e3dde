// Date arithmetic in UTC (local time depends on the host, so it is not used).
const DAY = 24 * 60 * 60 * 1000;
const d = new Date(Date.UTC(2024, 0, 31, 10, 30, 45, 123));
console.log(d.toISOString(), d.getTime(), d.valueOf() === +d, JSON.stringify({ d }));
console.log(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCDay(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
console.log(d.toUTCString());

// Month overflow: Jan 31 + 1 month is March 2 in a leap year.
const nextMonth = new Date(d);
nextMonth.setUTCMonth(nextMonth.getUTCMonth() + 1);
console.log(nextMonth.toISOString());
const plusDays = new Date(d.getTime() + 45 * DAY);
console.log(plusDays.toISOString());
const endOfFeb = new Date(Date.UTC(2024, 2, 0));
const endOfFeb2023 = new Date(Date.UTC(2023, 2, 0));
console.log(endOfFeb.getUTCDate(), endOfFeb2023.getUTCDate());
console.log((Date.UTC(2025, 0, 1) - Date.UTC(2024, 0, 1)) / DAY, (Date.UTC(2024, 0, 1) - Date.UTC(2023, 0, 1)) / DAY);
console.log(Math.round((Date.UTC(2024, 11, 25) - Date.UTC(2024, 0, 31)) / DAY));

const s = new Date(0);
s.setUTCFullYear(2000, 1, 29);
s.setUTCHours(23, 59, 59, 999);
console.log(s.toISOString());
s.setUTCMilliseconds(1000);
console.log(s.toISOString());
s.setUTCDate(0);
console.log(s.toISOString());
s.setUTCHours(-1);
console.log(s.toISOString());

// Parsing ISO strings: date-only and Z forms are UTC.
console.log(Date.parse('2024-03-10'), Date.parse('2024-03-10T12:00:00Z'), Date.parse('2024-03-10T12:00:00.5+02:00'));
console.log(new Date('2024-03-10T12:00:00.000Z').toISOString(), new Date('1970-01-01T00:00:00Z').getTime());
console.log(new Date(Date.parse('2024-02-29T00:00:00Z') + DAY).toISOString());

// Extremes and invalid dates.
console.log(new Date(8.64e15).toISOString(), new Date(-8.64e15).toISOString());
console.log(new Date(8.64e15 + 1).getTime(), String(new Date(NaN)), new Date('not a date').getTime());
console.log(new Date(Date.UTC(-1, 0, 1)).toISOString(), new Date(Date.UTC(0, 0, 1)).toISOString(), new Date(Date.UTC(99, 0, 1)).toISOString());
console.log(new Date(Date.UTC(10000, 0, 1)).toISOString());
try {
  new Date(NaN).toISOString();
} catch (e) {
  console.log(e.constructor.name);
}
console.log(JSON.stringify(new Date(NaN)), new Date(NaN).toJSON());

// Comparison, sorting and weekday names computed in UTC.
const dates = ['2024-05-01', '2023-12-31', '2024-01-15'].map((x) => new Date(x));
dates.sort((a, b) => a - b);
console.log(dates.map((x) => x.toISOString().slice(0, 10)));
const names = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
console.log(dates.map((x) => names[x.getUTCDay()]), dates[0] < dates[1], +dates[2] === +new Date('2024-05-01'));
console.log(typeof Date.now(), Date.now() > Date.UTC(2020, 0, 1), typeof Date(), new Date(2020, 0) instanceof Date);
console.log(Date.UTC(2024), Date.UTC(2024, 1), Date.UTC(1970, 0, 1, 0, 0, 0, -1));
