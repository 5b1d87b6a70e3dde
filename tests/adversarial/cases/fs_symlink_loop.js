// A loop of symlinks fails with ELOOP instead of hanging the host.
fs.symlinkSync('b', '/workspace/a');
fs.symlinkSync('a', '/workspace/b');
fs.symlinkSync('self', '/workspace/self');
const out = [];
for (const p of ['/workspace/a', '/workspace/self', '/workspace/a/x']) {
  try { fs.readFileSync(p); out.push('READ'); } catch (e) { out.push(e.code); }
}
console.log(out.join(','));
