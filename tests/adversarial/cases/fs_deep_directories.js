// Nesting directories without end stops at the depth limit (256 levels below /),
// cleanly; so does stacking deep trees into each other by renames, which no path
// length limit would stop. The deep tree is then removed by the guest itself.
let p = '/workspace', depth = 0, code = '';
try { for (;;) { p += '/d'; fs.mkdirSync(p); depth++; } } catch (e) { code = e.code; }
console.log(code, depth);
let q = '/workspace/' + 'n'.repeat(300);
try { fs.writeFileSync(q, 'x'); } catch (e) { console.log('long name', e.code); }
// Two chains of 200 levels: moving one into the other's bottom would make 400.
let a = '/workspace/a', b = '/workspace/b';
for (let i = 0; i < 200; i++) { a += '/x'; b += '/y'; }
fs.mkdirSync(a, { recursive: true });
fs.mkdirSync(b, { recursive: true });
try { fs.renameSync('/workspace/b', a + '/b'); console.log('stacked'); } catch (e) { console.log('rename', e.code); }
fs.rmSync('/workspace/d', { recursive: true });
console.log('removed', fs.readdirSync('/workspace').join(','));
