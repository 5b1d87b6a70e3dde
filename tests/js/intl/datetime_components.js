// DateTimeFormat date components: every combination of weekday, year, month and day, with
// and without an era, formatted as en-US.
const dates = [new Date(Date.UTC(2024, 0, 2, 15, 4, 5, 67)), new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 999))];
const widths = {
  weekday: [undefined, 'short', 'long', 'narrow'],
  year: [undefined, 'numeric', '2-digit'],
  month: [undefined, 'numeric', '2-digit', 'short', 'long', 'narrow'],
  day: [undefined, 'numeric', '2-digit'],
};
for (const era of [undefined, 'short']) {
  for (const weekday of widths.weekday) {
    for (const year of widths.year) {
      for (const month of widths.month) {
        for (const day of widths.day) {
          const o = { timeZone: 'UTC' };
          if (era) o.era = era;
          if (weekday) o.weekday = weekday;
          if (year) o.year = year;
          if (month) o.month = month;
          if (day) o.day = day;
          if (!weekday && !year && !month && !day && era) continue;
          const f = new Intl.DateTimeFormat('en-US', o);
          console.log([era, weekday, year, month, day].map((x) => x || '-').join(' '), '|',
            dates.map((d) => f.format(d)).join(' | '));
        }
      }
    }
  }
}
for (const era of ['short', 'long', 'narrow']) {
  for (const o of [{ year: 'numeric' }, { year: 'numeric', month: 'long', day: 'numeric' },
    { year: 'numeric', month: 'numeric', day: 'numeric' }, {}]) {
    const f = new Intl.DateTimeFormat('en-US', { era, ...o });
    console.log(era, JSON.stringify(o), f.format(dates[0]), '|', f.format(Date.UTC(-500, 5, 15)));
  }
}
