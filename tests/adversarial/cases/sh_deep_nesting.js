// Nesting deep enough to exhaust a recursive parser or evaluator: refused with a
// message instead.
const deep = '( '.repeat(100000) + 'echo x' + ' )'.repeat(100000);
let r = await shell(deep);
console.log(r.exitCode, r.stderr.trim());
r = await shell('f() { f; }; f');
console.log(r.exitCode, r.stderr.trim());
r = await shell('echo $((' + '('.repeat(100000) + '1' + ')'.repeat(100000) + '))');
console.log(r.exitCode, r.stderr.trim().slice(0, 80));
r = await shell('x=' + '$('.repeat(5000) + 'echo y' + ')'.repeat(5000) + '; echo $x');
console.log(r.exitCode, r.stderr.trim().slice(0, 80));
