// A line-based diff (LCS) printed as a unified-style patch, plus a word-level inline diff.
const oldText = `# Config
name: api
port: 8080
debug: false
workers: 4
# end`;
const newText = `# Config
name: api-v2
port: 8080
debug: true
workers: 4
timeout: 30
# end`;
function diffLines(a, b) {
  const n = a.length, m = b.length;
  const dp = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) dp[i][j] = a[i] === b[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
  const ops = [];
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) { ops.push([' ', a[i]]); i++; j++; }
    else if (dp[i + 1][j] >= dp[i][j + 1]) ops.push(['-', a[i++]]);
    else ops.push(['+', b[j++]]);
  }
  while (i < n) ops.push(['-', a[i++]]);
  while (j < m) ops.push(['+', b[j++]]);
  return ops;
}
const ops = diffLines(oldText.split('\n'), newText.split('\n'));
console.log('--- a/config.yml\n+++ b/config.yml');
console.log(`@@ -1,${oldText.split('\n').length} +1,${newText.split('\n').length} @@`);
console.log(ops.map(([op, line]) => op + line).join('\n'));
const stats = ops.reduce((s, [op]) => ({ ...s, [op]: (s[op] || 0) + 1 }), {});
console.log(stats, `${stats['+']} insertions(+), ${stats['-']} deletions(-)`);
const wordDiff = (a, b) => diffLines(a.split(/(\s+)/), b.split(/(\s+)/)).map(([op, w]) => (op === ' ' ? w : op === '-' ? `[-${w}-]` : `{+${w}+}`)).join('');
console.log(wordDiff('the quick brown fox jumps', 'the slow brown dog jumps high'));
const changedKeys = ops.filter(([op]) => op !== ' ').map(([op, l]) => [op, l.split(':')[0]]);
const grouped = changedKeys.reduce((acc, [op, k]) => { (acc[k] ??= []).push(op); return acc; }, {});
console.log(Object.entries(grouped).map(([k, v]) => `${k}: ${v.includes('-') && v.includes('+') ? 'modified' : v[0] === '+' ? 'added' : 'removed'}`));
const patchLines = ops.filter(([op]) => op !== ' ').length;
console.log(`${patchLines} changed lines of ${ops.length}`, ops.length === new Set(ops.map(String)).size);
