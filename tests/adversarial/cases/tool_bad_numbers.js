// Numbers JSON can spell but the host cannot hold exactly are refused, not rounded
// past the policy: the tool never sees a value the policy did not (10.0000000000000001
// would be read as 10, 1e-400 as 0). A NUL byte is refused too (the parser would
// step over it: the text would not be what it parsed).
const out = [];
for (const text of ['{"a":1e400,"b":1}', '{"a":123456789012345678901234567890,"b":1}',
  '{"a":-1e999,"b":0}', '{"a":10.0000000000000001,"b":1}', '{"a":1e-400,"b":1}',
  '[1,2]', '"str"', '{"a":1,"b":2', '', '{"a":0e4\0,"b":1}', '{"a":1,"b":2}\0']) {
  try { await tools.call('math.add', text); out.push('CALLED'); } catch (e) { out.push(e.code); }
}
console.log(out.join(','));
