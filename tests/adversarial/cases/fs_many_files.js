// Creating files without end stops at the entry quota with ENOSPC.
let n = 0, code = '';
try { for (;;) { fs.writeFileSync('/tmp/f' + n, ''); n++; } } catch (e) { code = e.code; }
console.log(code, n);
fs.rmSync('/tmp/f0');
fs.writeFileSync('/tmp/again', 'ok');
console.log(fs.readFileSync('/tmp/again', 'utf8'));
