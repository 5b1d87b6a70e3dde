// Human-readable sizes, durations, relative times, ordinals and lists.
const units = ['B', 'KB', 'MB', 'GB', 'TB'];
const bytes = (n, base = 1024) => { let i = 0; while (n >= base && i < units.length - 1) { n /= base; i++; } return `${i ? n.toFixed(n < 10 ? 2 : 1) : n} ${units[i]}`; };
console.log([0, 1, 1023, 1024, 1536, 1048576, 5e9, 1.5e12, 9e15].map((n) => bytes(n)));
console.log([999, 1000, 1e6].map((n) => bytes(n, 1000)));
const duration = (ms) => {
  const parts = [];
  for (const [unit, size] of [['d', 864e5], ['h', 36e5], ['m', 6e4], ['s', 1e3]]) {
    if (ms >= size) { parts.push(`${Math.floor(ms / size)}${unit}`); ms %= size; }
  }
  return parts.join(' ') || `${ms}ms`;
};
console.log([450, 1000, 61000, 3599999, 90061000, 864e5 * 3 + 5000].map(duration));
const clock = (sec) => [Math.floor(sec / 3600), Math.floor((sec % 3600) / 60), sec % 60].map((v, i) => (i ? String(v).padStart(2, '0') : v)).join(':');
console.log([0, 59, 61, 3661, 86399].map(clock));
const now = Date.parse('2024-06-15T12:00:00Z');
const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const ago = (iso) => {
  const diff = (Date.parse(iso) - now) / 1000;
  for (const [unit, s] of [['year', 31536000], ['month', 2592000], ['week', 604800], ['day', 86400], ['hour', 3600], ['minute', 60]]) {
    if (Math.abs(diff) >= s) return rtf.format(Math.round(diff / s), unit);
  }
  return rtf.format(Math.round(diff), 'second');
};
for (const iso of ['2024-06-15T11:59:30Z', '2024-06-15T11:15:00Z', '2024-06-14T12:00:00Z', '2024-06-01T00:00:00Z', '2023-01-01T00:00:00Z', '2024-06-16T12:00:00Z', '2024-09-01T00:00:00Z']) console.log(iso, '→', ago(iso));
const lf = new Intl.ListFormat('en', { style: 'long', type: 'conjunction' });
const lfOr = new Intl.ListFormat('en', { type: 'disjunction' });
const lfUnit = new Intl.ListFormat('en', { style: 'narrow', type: 'unit' });
for (const list of [[], ['apples'], ['apples', 'pears'], ['apples', 'pears', 'plums', 'figs']]) console.log(JSON.stringify(lf.format(list)), lfOr.format(list), lfUnit.format(list));
const plural = (n, word, pl = word + 's') => `${n.toLocaleString('en-US')} ${new Intl.PluralRules('en-US').select(n) === 'one' ? word : pl}`;
console.log([0, 1, 2, 1000, 1.5].map((n) => plural(n, 'file')), plural(3, 'child', 'children'));
const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
console.log([999, 1000, 1250, 15300, 999999, 1234567, 2.5e9, 7e12].map((n) => compact.format(n)).join(', '));
