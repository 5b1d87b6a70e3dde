// Produce a Markdown report (headings, aligned table, bullet lists) from benchmark results.
const results = [
  { name: 'parse-json', runs: [12.31, 11.9, 12.05, 13.4, 12.0], unit: 'ms' },
  { name: 'regex-scan', runs: [3.2, 3.25, 3.1, 9.8, 3.3], unit: 'ms' },
  { name: 'sort-100k', runs: [45.5, 44.1, 46.9, 45.0, 44.8], unit: 'ms' },
  { name: 'gzip', runs: [101.2, 99.9, 100.4, 100.1, 102.8], unit: 'ms' },
];
const median = (xs) => { const s = xs.toSorted((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const stdev = (xs) => { const mu = xs.reduce((a, b) => a + b) / xs.length; return Math.sqrt(xs.reduce((a, x) => a + (x - mu) ** 2, 0) / (xs.length - 1)); };
const rows = results.map((r) => ({
  name: r.name,
  min: Math.min(...r.runs),
  median: median(r.runs),
  max: Math.max(...r.runs),
  sd: stdev(r.runs),
  cv: stdev(r.runs) / median(r.runs),
}));
const headers = ['Benchmark', 'Min', 'Median', 'Max', 'Std dev', 'CV'];
const cells = rows.map((r) => [r.name, r.min.toFixed(2), r.median.toFixed(2), r.max.toFixed(2), r.sd.toFixed(3), `${(r.cv * 100).toFixed(1)}%`]);
const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
const fmtRow = (cs) => `| ${cs.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
const md = [
  '# Benchmark report',
  '',
  `Ran ${results.length} benchmarks × ${results[0].runs.length} runs.`,
  '',
  fmtRow(headers),
  `|${widths.map((w, i) => (i === 0 ? ':' + '-'.repeat(w + 1) : '-'.repeat(w + 1) + ':')).join('|')}|`,
  ...cells.map(fmtRow),
  '',
  '## Noisy benchmarks',
  '',
  ...rows.filter((r) => r.cv > 0.05).map((r) => `- **${r.name}**: CV ${(r.cv * 100).toFixed(1)}% (max ${r.max} vs median ${r.median})`),
  '',
  '## Ranking',
  '',
  ...rows.toSorted((a, b) => a.median - b.median).map((r, i) => `${i + 1}. \`${r.name}\` — ${r.median.toFixed(1)} ms`),
];
console.log(md.join('\n'));
const outliers = results.map((r) => ({ name: r.name, outliers: r.runs.filter((x) => Math.abs(x - median(r.runs)) > 3 * stdev(r.runs.filter((y) => y !== Math.max(...r.runs)))) }));
console.log(outliers.filter((o) => o.outliers.length));
console.log(Math.sqrt(2), Math.hypot(3, 4), Math.cbrt(27), Math.log10(1000), Math.round(-2.5), Math.trunc(-2.7), Math.sign(-3), (2.345).toFixed(2), 1 / 3);
