// Regular expressions nested too deeply to compile.
const out = [];
for (const src of ['('.repeat(1e5) + ')'.repeat(1e5), '(?='.repeat(1e4) + 'a' + ')'.repeat(1e4),
  '(?:a|'.repeat(1e4) + ')'.repeat(1e4), '[' + 'a-z'.repeat(1e5) + ']', 'a{1000000000}']) {
  try {
    out.push(new RegExp(src).test('a'));
  } catch (e) {
    out.push(e.name + ': ' + e.message);
  }
}
return out;
