// Filling the disk ends in ENOSPC, and the files written before are intact.
fs.writeFileSync('/workspace/keep.txt', 'precious');
const chunk = 'x'.repeat(1 << 20);
let n = 0, code = '';
try { for (;;) { fs.writeFileSync('/tmp/fill' + n, chunk); n++; } } catch (e) { code = e.code; }
console.log(code, n > 0 && n < 100);
let appended = 0;
try { for (;;) { fs.appendFileSync('/workspace/grow', chunk); appended++; } } catch (e) { console.log('append', e.code); }
console.log(fs.readFileSync('/workspace/keep.txt', 'utf8'));
fs.rmSync('/workspace/grow');
for (let i = 0; i < n; i++) fs.rmSync('/tmp/fill' + i);
fs.writeFileSync('/workspace/after.txt', chunk);
console.log('after', fs.statSync('/workspace/after.txt').size);
