// Write per-region CSV files into a directory, read them back and build a summary report.
const fs = await import('fs');
const dir = 'reports-28';
fs.mkdirSync(`${dir}/raw`, { recursive: true });
const data = {
  north: [['2024-01', 120], ['2024-02', 135.5], ['2024-03', 99]],
  south: [['2024-01', 80], ['2024-02', 82.25]],
  west: [],
};
for (const [region, rows] of Object.entries(data)) {
  const body = ['month,amount', ...rows.map((r) => r.join(','))].join('\n') + '\n';
  fs.writeFileSync(`${dir}/raw/${region}.csv`, body);
}
fs.writeFileSync(`${dir}/raw/README.txt`, 'not a csv');
const files = fs.readdirSync(`${dir}/raw`).sort();
console.log(files);
const report = [];
for (const f of files.filter((f) => f.endsWith('.csv'))) {
  const text = fs.readFileSync(`${dir}/raw/${f}`, 'utf8');
  const [, ...lines] = text.trim().split('\n');
  const amounts = lines.map((l) => Number(l.split(',')[1]));
  const total = amounts.reduce((a, b) => a + b, 0);
  report.push({ region: f.replace(/\.csv$/, ''), months: amounts.length, total, max: amounts.length ? Math.max(...amounts) : null });
}
console.table(report);
fs.writeFileSync(`${dir}/summary.json`, JSON.stringify(report, null, 2));
const back = JSON.parse(fs.readFileSync(`${dir}/summary.json`, 'utf8'));
console.log(back.length, back[0], fs.readFileSync(`${dir}/summary.json`, 'utf8').split('\n').length);
fs.appendFileSync(`${dir}/log.txt`, 'line 1\n');
fs.appendFileSync(`${dir}/log.txt`, 'line 2\n');
console.log(JSON.stringify(fs.readFileSync(`${dir}/log.txt`, 'utf8')));
const st = fs.statSync(`${dir}/summary.json`);
console.log(st.isFile(), st.isDirectory(), st.size, fs.statSync(`${dir}/raw`).isDirectory());
console.log(fs.existsSync(`${dir}/raw/north.csv`), fs.existsSync(`${dir}/nope.csv`));
const entries = fs.readdirSync(dir, { withFileTypes: true }).map((d) => `${d.name}${d.isDirectory() ? '/' : ''}`).sort();
console.log(entries);
try {
  fs.readFileSync(`${dir}/missing.txt`, 'utf8');
} catch (e) {
  console.log(e.code, e.syscall, e.path, e.errno, e.message);
}
const bytes = fs.readFileSync(`${dir}/raw/south.csv`);
console.log(bytes instanceof Uint8Array, bytes.length, bytes[0]);
