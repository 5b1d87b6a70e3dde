// With tools registered but no capability granted, every call is refused on the host.
const out = [];
for (const f of [() => tools.math.add({ a: 1, b: 2 }), () => math_add({ a: 1, b: 2 }),
  () => tools.call('math.add', '{"a":1,"b":2}'), () => tools.deploys.list({})]) {
  try { await f(); out.push('CALLED'); } catch (e) { out.push(e.code); }
}
console.log(out.join(','));
