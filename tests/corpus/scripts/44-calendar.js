// Render month calendars (like `cal`) and business-day calculations, all in UTC.
const monthNames = Array.from({ length: 12 }, (_, m) => new Date(Date.UTC(2024, m, 1)).toLocaleString('en-US', { month: 'long', timeZone: 'UTC' }));
const dayNames = Array.from({ length: 7 }, (_, d) => new Date(Date.UTC(2024, 0, 7 + d)).toLocaleString('en-US', { weekday: 'short', timeZone: 'UTC' }).slice(0, 2));
console.log(monthNames.join(' '), '|', dayNames.join(' '));
function cal(year, month, marks = []) {
  const first = new Date(Date.UTC(year, month, 1)).getUTCDay();
  const days = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const title = `${monthNames[month]} ${year}`;
  const lines = [title.padStart(10 + Math.ceil(title.length / 2)).padEnd(20), dayNames.join(' ')];
  let line = '   '.repeat(first);
  for (let d = 1; d <= days; d++) {
    line += (marks.includes(d) ? '*' + String(d).padStart(1) : String(d).padStart(2)).padStart(2) + ' ';
    if ((first + d) % 7 === 0 || d === days) { lines.push(line.trimEnd()); line = ''; }
  }
  return lines.join('\n');
}
console.log(cal(2024, 1, [14, 29]));
console.log(cal(2023, 9));
const holidays = new Set(['2024-12-25', '2024-12-26', '2025-01-01']);
const isBusiness = (d) => d.getUTCDay() % 6 !== 0 && !holidays.has(d.toISOString().slice(0, 10));
function addBusinessDays(iso, n) {
  const d = new Date(iso);
  while (n > 0) { d.setUTCDate(d.getUTCDate() + 1); if (isBusiness(d)) n--; }
  return d.toISOString().slice(0, 10);
}
for (const [start, n] of [['2024-12-20', 1], ['2024-12-20', 3], ['2024-12-27', 2], ['2024-02-28', 2]]) {
  console.log(`${start} + ${n} business days = ${addBusinessDays(start, n)}`);
}
const countBusiness = (from, to) => { let n = 0; for (let d = new Date(from); d <= new Date(to); d.setUTCDate(d.getUTCDate() + 1)) n += isBusiness(d); return n; };
console.log('Dec 2024 business days:', countBusiness('2024-12-01', '2024-12-31'));
const quarterOf = (d) => `Q${Math.floor(d.getUTCMonth() / 3) + 1} ${d.getUTCFullYear()}`;
const dayOfYear = (d) => Math.floor((d - Date.UTC(d.getUTCFullYear(), 0, 1)) / 864e5) + 1;
for (const iso of ['2024-01-01', '2024-03-31', '2024-12-31', '2023-12-31']) {
  const d = new Date(iso);
  console.log(iso, quarterOf(d), dayOfYear(d), d.toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' }));
}
const lastFridays = Array.from({ length: 12 }, (_, m) => { const d = new Date(Date.UTC(2024, m + 1, 0)); d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 2) % 7)); return d.getUTCDate(); });
console.log('last Fridays 2024:', lastFridays);
const age = (birth, on) => { const b = new Date(birth), o = new Date(on); let a = o.getUTCFullYear() - b.getUTCFullYear(); if (o.getUTCMonth() < b.getUTCMonth() || (o.getUTCMonth() === b.getUTCMonth() && o.getUTCDate() < b.getUTCDate())) a--; return a; };
console.log(age('2000-02-29', '2024-02-28'), age('2000-02-29', '2024-02-29'), age('1990-07-15', '2024-07-14'));
