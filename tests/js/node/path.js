// node:path (POSIX), against Node's own results.
const path = require('node:path');
console.log(path === require('path'), path.posix === path, path.sep, path.delimiter);
const show = (name, ...args) => {
  try {
    console.log(name, JSON.stringify(args), JSON.stringify(path[name](...args)));
  } catch (e) {
    console.log(name, JSON.stringify(args), e.code, e.message);
  }
};
for (const p of ['', '/', '//', 'a', '/a/b/', 'a//b/../c/.', '/../x', '../../a/./b', './', 'a/..']) {
  show('normalize', p);
  show('dirname', p);
  show('basename', p);
  show('extname', p);
  show('isAbsolute', p);
  show('parse', p);
}
show('basename', '/a/b.txt', '.txt');
show('basename', '/a/b.txt', 'b.txt');
show('basename', 'file.tar.gz', '.gz');
for (const p of ['.bashrc', 'a.', 'a.b.c', '..', 'x/.y.z']) show('extname', p);
show('join', '/a', 'b', '../c', './d');
show('join');
show('join', '', '');
show('join', 'a', 5);
show('resolve', '/a/b', './c', '../d');
show('resolve', '/x', '/y', 'z/');
show('relative', '/a/b/c', '/a/d');
show('relative', '/a', '/a');
show('relative', '/a/b', '/a/b/c/d');
show('relative', '/', '/x');
show('format', { dir: '/home/u', base: 'f.txt' });
show('format', { root: '/', name: 'n', ext: 'e' });
show('format', { name: 'n', ext: '.e' });
show('format', null);
show('toNamespacedPath', '/a/b');
show('parse', '/home/user/dir/file.txt');
show('parse', './a.b/c.d.e');
console.log(path.resolve('x') === path.join(process.cwd(), 'x'), path.isAbsolute(path.resolve()));
// path.win32 and path.matchesGlob are not in the sandbox.
console.log(Object.keys(path).filter((k) => k !== 'win32' && k !== 'matchesGlob').sort().join());
