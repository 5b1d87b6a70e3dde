// The audit trail is append-only for the guest: it cannot truncate, rewrite,
// rename or remove it.
await tools.call('math.add', '{"a":1,"b":2}').catch(() => {});
const before = fs.readFileSync('/log/actions.jsonl', 'utf8');
const out = [];
for (const f of [() => fs.writeFileSync('/log/actions.jsonl', ''), () => fs.truncateSync('/log/actions.jsonl', 0),
  () => fs.rmSync('/log/actions.jsonl'), () => fs.renameSync('/log/actions.jsonl', '/tmp/a'),
  () => fs.unlinkSync('/log/actions.jsonl')]) {
  try { f(); out.push('DONE'); } catch (e) { out.push(e.code); }
}
const after = fs.readFileSync('/log/actions.jsonl', 'utf8');
console.log(out.join(','), after.startsWith(before));
