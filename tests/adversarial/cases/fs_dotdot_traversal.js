// Climbing out of /workspace with '..' ends at the sandbox's own root: the host's
// files are never there.
const tries = ['../../../../etc/passwd', '/workspace/../../../etc/passwd', '/../../etc/shadow',
  'a/../../../../../proc/self/environ', '/tmp/../../../../root/.ssh/id_rsa'];
const out = [];
for (const p of tries) {
  try { fs.readFileSync(p, 'utf8'); out.push('READ ' + p); }
  catch (e) { out.push(e.code); }
}
console.log(out.join(','));
