// DateTimeFormat time components: hour cycles, widths, fractional seconds, day periods,
// time zone names.
const times = [Date.UTC(2024, 0, 2, 0, 4, 5, 67), Date.UTC(2024, 0, 2, 3, 4, 5, 67),
  Date.UTC(2024, 0, 2, 12, 0, 0, 0), Date.UTC(2024, 0, 2, 15, 45, 30, 999), Date.UTC(2024, 0, 2, 23, 59, 59, 5)];
const hours = [undefined, 'numeric', '2-digit'];
for (const hc of [undefined, 'h11', 'h12', 'h23', 'h24']) {
  for (const hour of hours) {
    for (const minute of hours) {
      for (const second of hours) {
        if (!hour && !minute && !second) continue;
        if (hour && !minute && second) continue;
        const o = { timeZone: 'UTC' };
        if (hc) o.hourCycle = hc;
        if (hour) o.hour = hour;
        if (minute) o.minute = minute;
        if (second) o.second = second;
        const f = new Intl.DateTimeFormat('en-US', o);
        console.log([hc, hour, minute, second].map((x) => x || '-').join(' '), '|', times.map((t) => f.format(t)).join(' | '));
      }
    }
  }
}
for (const hour12 of [true, false]) {
  for (const o of [{ hour: 'numeric' }, { hour: 'numeric', minute: '2-digit' }, { timeStyle: 'medium' }, { hour: '2-digit', hourCycle: 'h23' }]) {
    const f = new Intl.DateTimeFormat('en', { ...o, hour12, timeZone: 'UTC' });
    console.log('hour12', hour12, JSON.stringify(o), times.map((t) => f.format(t)).join(' | '), f.resolvedOptions().hourCycle);
  }
}
for (const fsd of [1, 2, 3]) {
  for (const o of [{ hour: 'numeric', minute: 'numeric', second: 'numeric' }, { minute: 'numeric', second: 'numeric' }, { second: 'numeric' }, { hour: 'numeric', minute: '2-digit', second: '2-digit', hour12: false }]) {
    const f = new Intl.DateTimeFormat('en', { ...o, fractionalSecondDigits: fsd, timeZone: 'UTC' });
    console.log('fsd', fsd, JSON.stringify(o), times.map((t) => f.format(t)).join(' | '));
  }
}
for (const dayPeriod of ['narrow', 'short', 'long']) {
  for (const o of [{}, { hour: 'numeric' }, { hour: 'numeric', minute: 'numeric' }, { hour: 'numeric', minute: 'numeric', second: 'numeric' }, { hour: 'numeric', hour12: false }]) {
    const f = new Intl.DateTimeFormat('en', { ...o, dayPeriod, timeZone: 'UTC' });
    console.log('dayPeriod', dayPeriod, JSON.stringify(o), [0, 1, 6, 11, 12, 13, 17, 18, 20, 21, 23].map((h) => f.format(Date.UTC(2024, 0, 2, h, h === 12 ? 0 : 30))).join(' | '));
  }
}
for (const tzn of ['short', 'long', 'shortOffset', 'longOffset', 'shortGeneric', 'longGeneric']) {
  for (const o of [{}, { hour: 'numeric' }, { hour: 'numeric', minute: 'numeric' }, { year: 'numeric', month: 'long', day: 'numeric', hour: 'numeric', minute: 'numeric' }, { hour: 'numeric', minute: 'numeric', hour12: false }]) {
    const f = new Intl.DateTimeFormat('en', { ...o, timeZoneName: tzn, timeZone: 'UTC' });
    console.log('timeZoneName', tzn, JSON.stringify(o), f.format(times[3]));
  }
}
