// Names that are not registered reach nothing, whatever they look like.
const names = ['../../bin/sh', 'math.add\u0000x', 'math/add', 'MATH.ADD', '', 'x'.repeat(5000),
  'deploys/list/../../math.add', '__proto__', 'constructor'];
const out = [];
for (const n of names) {
  try { await tools.call(n, '{}'); out.push('CALLED'); } catch (e) { out.push(e.code); }
}
console.log(out.join(','));
