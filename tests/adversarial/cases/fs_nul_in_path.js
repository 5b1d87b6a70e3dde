// A NUL byte cannot cut a path short to reach another file.
fs.writeFileSync('/workspace/a', 'a');
const out = [];
for (const p of ['/workspace/a\0.txt', '/workspace/a\0', '\0']) {
  try { fs.readFileSync(p, 'utf8'); out.push('READ'); } catch (e) { out.push(e.code); }
}
console.log(out.join(','));
