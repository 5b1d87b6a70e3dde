// Allowed calls log their arguments whole, so a script can make the --audit file
// grow by 1 MiB a call. capsa appends at most 64 MiB to it per command; past that,
// calls are refused before their tool runs (audit_unavailable: fail closed, as
// when /log/actions.jsonl is full).
const pad = 'x'.repeat((1 << 20) - 64);
const n = {};
for (let i = 0; i < 80; i++) {
  try { await tools.math.add({ a: 1, b: 2, pad }); n.ok = (n.ok || 0) + 1; } catch (e) { n[e.code] = (n[e.code] || 0) + 1; }
}
console.log(Object.keys(n).join(','), n.ok > 50, n.ok + n.audit_unavailable);
