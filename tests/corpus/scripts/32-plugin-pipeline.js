// Discover plugin modules in a directory, import them in order and run a text pipeline.
const fs = await import('fs');
const dir = 'plugins32';
fs.mkdirSync(dir, { recursive: true });
const plugins = {
  '10-trim.mjs': `export const name = 'trim'; export default (lines) => lines.map((l) => l.trim());`,
  '20-drop-empty.mjs': `export const name = 'drop-empty'; export default (lines) => lines.filter(Boolean);`,
  '30-number.mjs': `export const name = 'number';
    export const options = { width: 3 };
    export default (lines) => lines.map((l, i) => String(i + 1).padStart(options.width, '0') + ': ' + l);`,
  '25-dedupe.mjs': `export const name = 'dedupe'; export default (lines) => [...new Set(lines)];`,
  'notes.txt': 'ignore me',
};
for (const [file, src] of Object.entries(plugins)) fs.writeFileSync(`${dir}/${file}`, src);
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.mjs')).sort();
const loaded = [];
for (const f of files) {
  const mod = await import(`./${dir}/${f}`);
  loaded.push({ file: f, name: mod.name, run: mod.default, options: mod.options ?? null });
}
console.log(loaded.map(({ file, name, options }) => ({ file, name, options })));
const input = ['  alpha ', '', 'beta', '  alpha', 'gamma  ', '   ', 'beta'];
let lines = input;
for (const p of loaded) {
  const before = lines.length;
  lines = p.run(lines);
  console.log(`${p.name.padEnd(10)} ${before} -> ${lines.length}`);
}
console.log(lines.join('\n'));
const mods = await Promise.all(files.map((f) => import(`./${dir}/${f}`)));
console.log(mods.every((m, i) => m.default === loaded[i].run));
fs.writeFileSync(`${dir}/40-upper.mjs`, `export const name = 'upper'; export default (ls) => ls.map((l) => l.toUpperCase());`);
const upper = await import(`./${dir}/40-upper.mjs`);
console.log(upper.default(lines));
