// The guest may read the host's audit trail, never add to it: a partial line
// appended to /log/actions.jsonl would glue onto the host's next line (which then
// fails to parse), and a whole line would pass for the host's.
await tools.math.add({ a: 1, b: 2 });
const out = [];
for (const text of ['{"event":"tool_call","tool":"forged",', '\n{"event":"tool_call","tool":"forged"}\n']) {
  try { fs.appendFileSync('/log/actions.jsonl', text); out.push('APPENDED'); } catch (e) { out.push(e.code); }
}
try { fs.writeFileSync('/log/actions.jsonl', 'x', { flag: 'a' }); out.push('APPENDED'); } catch (e) { out.push(e.code); }
await tools.math.add({ a: 3, b: 4 });
const lines = fs.readFileSync('/log/actions.jsonl', 'utf8').split('\n');
const last = lines.pop();
const tools_ = lines.map((l) => JSON.parse(l)).filter((e) => e.event === 'tool_call').map((e) => e.tool);
console.log(out.join(','), JSON.stringify(last), tools_.join(','));
