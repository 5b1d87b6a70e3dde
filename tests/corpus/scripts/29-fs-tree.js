// Create a project skeleton, walk it recursively, rename, copy and clean up.
const fs = await import('fs');
const root = 'proj-29';
const layout = {
  'package.json': JSON.stringify({ name: 'demo', version: '1.0.0' }, null, 2),
  'src/index.js': 'export const main = () => 1;\n',
  'src/util/strings.js': 'export const up = (s) => s.toUpperCase();\n',
  'src/util/numbers.js': 'export const sq = (n) => n * n;\n',
  'test/index.test.js': '// todo\n',
  'docs/README.md': '# Demo\n\nSome docs.\n',
};
for (const [rel, content] of Object.entries(layout)) {
  const path = `${root}/${rel}`;
  fs.mkdirSync(path.slice(0, path.lastIndexOf('/')), { recursive: true });
  fs.writeFileSync(path, content);
}
function walk(dir, prefix = '') {
  const out = [];
  const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (b.isDirectory() - a.isDirectory()) || a.name.localeCompare(b.name));
  entries.forEach((e, i) => {
    const last = i === entries.length - 1;
    const size = e.isFile() ? ` (${fs.statSync(`${dir}/${e.name}`).size} B)` : '';
    out.push(`${prefix}${last ? '└── ' : '├── '}${e.name}${size}`);
    if (e.isDirectory()) out.push(...walk(`${dir}/${e.name}`, prefix + (last ? '    ' : '│   ')));
  });
  return out;
}
console.log([root, ...walk(root)].join('\n'));
const all = [];
const collect = (d) => { for (const n of fs.readdirSync(d)) { const p = `${d}/${n}`; fs.statSync(p).isDirectory() ? collect(p) : all.push(p); } };
collect(root);
console.log(all.sort());
const jsFiles = all.filter((p) => p.endsWith('.js'));
const lines = jsFiles.reduce((n, p) => n + fs.readFileSync(p, 'utf8').split('\n').filter(Boolean).length, 0);
console.log(`${jsFiles.length} js files, ${lines} lines`);
fs.renameSync(`${root}/docs/README.md`, `${root}/README.md`);
fs.copyFileSync(`${root}/package.json`, `${root}/package.backup.json`);
fs.rmdirSync(`${root}/docs`);
fs.rmSync(`${root}/test`, { recursive: true, force: true });
fs.unlinkSync(`${root}/src/util/numbers.js`);
console.log([root, ...walk(root)].join('\n'));
const pkg = JSON.parse(fs.readFileSync(`${root}/package.backup.json`, 'utf8'));
pkg.version = pkg.version.replace(/(\d+)$/, (m) => Number(m) + 1);
fs.writeFileSync(`${root}/package.json`, JSON.stringify(pkg, null, 2) + '\n');
console.log(fs.readFileSync(`${root}/package.json`, 'utf8'));
try { fs.mkdirSync(`${root}/src`); } catch (e) { console.log(e.code); }
try { fs.rmdirSync(`${root}/src`); } catch (e) { console.log(e.code); }
fs.rmSync(root, { recursive: true });
console.log(fs.existsSync(root));
