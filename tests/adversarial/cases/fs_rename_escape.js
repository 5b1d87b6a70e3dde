// Renaming or linking cannot move files out of the writable mounts.
fs.writeFileSync('/workspace/f', 'x');
const out = [];
const tries = [
  () => fs.renameSync('/workspace/f', '/f'),
  () => fs.renameSync('/workspace/f', '/tools/f'),
  () => fs.renameSync('/workspace/f', '/log/f'),
  () => fs.linkSync('/workspace/f', '/tools/f'),
  () => fs.renameSync('/workspace', '/tmp/w'),
];
for (const t of tries) { try { t(); out.push('DONE'); } catch (e) { out.push(e.code); } }
console.log(out.join(','));
console.log(fs.readFileSync('/workspace/f', 'utf8'));
