// /log is append-only for the guest: no create, truncate, overwrite, remove, rename.
const out = [];
const tries = [
  () => fs.writeFileSync('/log/new.txt', 'x'),
  () => fs.appendFileSync('/log/new2.txt', 'x'),
  () => fs.rmSync('/log', { recursive: true }),
  () => fs.mkdirSync('/log/d'),
  () => fs.symlinkSync('/workspace', '/log/l'),
];
for (const t of tries) { try { t(); out.push('DONE'); } catch (e) { out.push(e.code); } }
console.log(out.join(','));
console.log(JSON.stringify(fs.readdirSync('/log')));
