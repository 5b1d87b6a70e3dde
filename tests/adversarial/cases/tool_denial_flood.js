// A flood of denied calls with big arguments, the audit trail on stderr: denied
// arguments over 4 KiB are logged as their size and SHA-256, and after 1000
// denials in a run every further call fails at once with resource_exhausted, with
// one summary line instead of a line each. Without those bounds this script
// would send 50 MB of audit lines to the host.
const pad = 'x'.repeat(256 << 10);
const n = {};
for (let i = 0; i < 1200; i++) {
  try { await tools.math.add(i < 200 ? { a: 1, b: 2, pad } : { a: 1, b: 2 }); } catch (e) { n[e.code] = (n[e.code] || 0) + 1; }
}
console.log(JSON.stringify(n));
