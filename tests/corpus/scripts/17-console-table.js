// console.table for tabular results, plus a hand-rolled padded table.
const people = [
  { name: 'Ann', dept: 'eng', salary: 120000, start: '2019-04-01' },
  { name: 'Bo', dept: 'ops', salary: 95000 },
  { name: 'Carmen', dept: 'eng', salary: 134500.5, remote: true },
];
console.table(people);
console.table(people, ['name', 'salary']);
console.table([[1, 2], [3, 4, 5]]);
console.table({ a: { x: 1 }, b: { y: 2 } });
console.table(['apple', 'kiwi']);
console.table(new Map([['one', 1], ['two', { n: 2 }]]));
console.table('not tabular');

const cols = ['name', 'dept', 'salary'];
const widths = cols.map((c) => Math.max(c.length, ...people.map((p) => String(p[c] ?? '').length)));
const line = (cells) => '| ' + cells.map((c, i) => (typeof c === 'number' ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i]))).join(' | ') + ' |';
console.log(line(cols));
console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
for (const p of people) console.log(line(cols.map((c) => p[c])));
const total = people.reduce((s, p) => s + p.salary, 0);
console.log(`total: ${total.toFixed(2).padStart(12, '.')}`);
console.log('avg:   ' + (total / people.length).toFixed(1).padStart(12));
