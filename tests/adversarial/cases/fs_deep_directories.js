// Nesting directories without end stops at the path length limit, cleanly.
let p = '/workspace', depth = 0, code = '';
try { for (;;) { p += '/d'; fs.mkdirSync(p); depth++; } } catch (e) { code = e.code; }
console.log(code, depth > 1000);
let q = '/workspace/' + 'n'.repeat(300);
try { fs.writeFileSync(q, 'x'); } catch (e) { console.log('long name', e.code); }
