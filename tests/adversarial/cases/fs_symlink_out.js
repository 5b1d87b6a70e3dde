// Symlinks resolve inside the sandbox only: one to /etc/passwd names the
// sandbox's (missing) /etc/passwd; relative ones climbing out stop at its root.
fs.symlinkSync('/etc/passwd', '/workspace/pw');
fs.symlinkSync('../../../../../../etc/passwd', '/workspace/pw2');
fs.symlinkSync('/', '/workspace/root');
const out = [];
for (const p of ['/workspace/pw', '/workspace/pw2', '/workspace/root/etc/passwd']) {
  try { fs.readFileSync(p, 'utf8'); out.push('READ'); } catch (e) { out.push(e.code); }
}
out.push(fs.readdirSync('/workspace/root').join('+'));
console.log(out.join(','));
