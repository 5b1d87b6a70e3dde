// Dynamic import reaches no module but the sandbox's own fs: not the QuickJS ones,
// not Node's, not host files (the scratch directory's canary is not in the sandbox).
const out = [];
for (const spec of ['os', 'std', 'fs', 'node:fs', 'child_process', 'qjs:os', './canary.txt',
  'canary.txt', '/etc/passwd', 'file:///etc/passwd', 'data:text/javascript,export default 1',
  'https://example.com/x.js']) {
  try {
    await import(spec);
    out.push(spec + ': loaded');
  } catch (e) {
    out.push(spec + ': ' + e.name);
  }
}
return out;
