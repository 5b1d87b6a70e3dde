// Arguments over the limit are refused without reaching the policy or the tool;
// the host survives and the next call works.
const big = 'x'.repeat(2 << 20);
let code;
try { await tools.math.add({ a: 1, b: 2, pad: big }); } catch (e) { code = e.code; }
const r = await tools.math.add({ a: 2, b: 3 });
console.log(code, JSON.stringify(r));
