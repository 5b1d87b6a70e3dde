// Nothing outside /workspace and /tmp can be created or changed.
const out = [];
const tries = [
  () => fs.writeFileSync('/evil', 'x'),
  () => fs.mkdirSync('/etc'),
  () => fs.writeFileSync('/tools/github.d.ts', 'x'),
  () => fs.rmSync('/workspace', { recursive: true }),
  () => fs.rmdirSync('/tmp'),
  () => fs.renameSync('/workspace', '/w2'),
  () => fs.symlinkSync('/workspace', '/link'),
];
for (const t of tries) { try { t(); out.push('DONE'); } catch (e) { out.push(e.code); } }
console.log(out.join(','));
console.log(fs.readdirSync('/').join(','));
