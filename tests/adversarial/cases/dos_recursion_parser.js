// Code nested too deeply for the parser, through eval and Function.
const out = [];
for (const code of ['('.repeat(1e5) + '1' + ')'.repeat(1e5), '['.repeat(1e5), '{'.repeat(1e5),
  'a' + '.b'.repeat(1e5), '!'.repeat(1e6) + '1', 'x => '.repeat(1e5) + '1']) {
  try {
    eval(code);
    out.push('ran');
  } catch (e) {
    out.push(e.name + ': ' + e.message);
  }
}
try {
  new Function('return ' + '['.repeat(1e5) + ']'.repeat(1e5));
} catch (e) {
  out.push(e.name + ': ' + e.message);
}
return out;
