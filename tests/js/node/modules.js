// The module system over the sandbox's files: static import and export in .mjs files,
// modules imported by relative path, require() of CommonJS and JSON files, packages in
// node_modules (require and import, with "exports" conditions), and the built-in
// modules under both names.
const fs = require('node:fs');
const write = (file, text) => {
  fs.mkdirSync(file.slice(0, file.lastIndexOf('/')), { recursive: true });
  fs.writeFileSync(file, text);
};
fs.rmSync('mods', { recursive: true, force: true });
write('mods/lib/shapes.mjs', `
  import { twice } from './util.mjs';
  import counter, * as util from './util.mjs';
  import data from '../data.cjs';
  import { readFileSync } from 'node:fs';
  import path, { basename } from 'path';
  export const area = (w, h) => w * h;
  export function perimeter(w, h) { return twice(w + h); }
  export default class Square { constructor(s) { this.s = s; } get area() { return area(this.s, this.s); } }
  export { counter as loads, data };
  export const sameUtil = util.twice === twice && util.default === counter;
  export const file = basename(import.meta.url) + ' ' + path.extname(readFileSync.name);
`);
write('mods/lib/util.mjs', `
  export const twice = (x) => 2 * x;
  let loads = 0;
  loads++;
  export default loads;
`);
write('mods/data.cjs', `
  exports.kind = 'commonjs';
  exports.dir = require('path').basename(__dirname);
  exports.file = require('path').basename(__filename);
`);
write('mods/main.mjs', `
  import Square, { area, perimeter, loads, data, sameUtil, file } from './lib/shapes.mjs';
  export * from './lib/util.mjs';
  export * as shapes from './lib/shapes.mjs';
  export const results = [new Square(3).area, area(2, 5), perimeter(1, 2), loads, data.kind,
    data.dir, data.file, sameUtil, file];
`);
write('mods/cjs/index.js', `
  const helper = require('./helper');
  const json = require('./config.json');
  module.exports = { sum: helper.sum(1, 2, 3), name: json.name, same: require('./helper.js') === helper,
    id: typeof module.id, loaded: module.loaded };
`);
write('mods/cjs/helper.js', `
  exports.sum = (...n) => n.reduce((a, b) => a + b, 0);
  exports.count = (exports.count || 0) + 1;
`);
write('mods/cjs/config.json', '{ "name": "config", "list": [1, 2] }');
write('mods/node_modules/pkg/package.json', '{ "name": "pkg", "main": "lib/entry.js" }');
write('mods/node_modules/pkg/lib/entry.js', 'module.exports = () => "from pkg";');
write('mods/node_modules/expkg/package.json',
  '{ "name": "expkg", "exports": { ".": { "require": "./r.cjs", "import": "./i.mjs" }, "./sub": "./sub.js" } }');
write('mods/node_modules/expkg/r.cjs', 'module.exports = "expkg require";');
write('mods/node_modules/expkg/i.mjs', 'export default "expkg import";');
write('mods/node_modules/expkg/sub.js', 'module.exports = "expkg sub";');
write('mods/usepkg.js', `
  module.exports = [require('pkg')(), require('expkg'), require('expkg/sub')];
`);
write('mods/usepkg.mjs', `
  import a from 'pkg';
  import b from 'expkg';
  import c from 'expkg/sub';
  export default [a(), b, c];
`);
write('mods/cycle/a.js', `
  exports.early = 'a early';
  const b = require('./b.js');
  exports.late = 'a late';
  exports.seen = b.seen;
`);
write('mods/cycle/b.js', `
  const a = require('./a.js');
  exports.seen = a.early + ' only';
`);
write('mods/throws.cjs', 'throw new RangeError("module threw");');
write('mods/bad.json', '{ nope');

(async () => {
  const main = await import('./mods/main.mjs');
  console.log(main.results);
  console.log(Object.keys(main).sort(), main.twice(4), Object.keys(main.shapes).sort());
  const cjs = require('./mods/cjs');
  console.log(cjs, require('./mods/cjs/index.js') === cjs, require('./mods/cjs/helper').count);
  console.log(require('./mods/cjs/config.json'), require('./mods/cjs/config') === require('./mods/cjs/config.json'));
  console.log(require('./mods/usepkg.js'), (await import('./mods/usepkg.mjs')).default);
  console.log(require('./mods/cycle/a.js'));
  const cjsNs = await import('./mods/cjs/helper.js');
  console.log(typeof cjsNs.default.sum, typeof cjsNs.sum, cjsNs.default === require('./mods/cjs/helper'));
  for (const id of ['./mods/throws.cjs', './mods/throws.cjs', './mods/bad.json']) {
    try {
      require(id);
    } catch (e) {
      console.log(e.name, e.message.includes('bad.json') || e.message);
    }
  }
  for (const id of ['./mods/missing', 'no-such-package']) {
    try {
      require(id);
    } catch (e) {
      console.log(e.code, e.message.split('\n')[0]);
    }
  }
  for (const id of ['./mods/missing.mjs', 'no-such-package']) {
    try {
      await import(id);
    } catch (e) {
      console.log(e.code, e.message.split(' imported from')[0].replace(/'.*\/mods\//, "'mods/"));
    }
  }
  const names = ['assert', 'assert/strict', 'buffer', 'events', 'fs', 'fs/promises', 'path',
    'path/posix', 'querystring', 'string_decoder', 'url', 'util', 'util/types', 'timers',
    'timers/promises', 'process', 'console'];
  const same = [];
  for (const n of names) {
    const a = require(n);
    const b = require(`node:${n}`);
    const ns = await import(`node:${n}`);
    const ns2 = await import(n);
    same.push(a === b && ns.default === a && ns2.default === a);
  }
  console.log(same.every(Boolean), require('process') === process, require('console') === console);
  const { readFile } = await import('node:fs/promises');
  console.log(readFile === require('fs').promises.readFile);
  console.log(typeof require.resolve, require.resolve('./mods/cjs').endsWith('/mods/cjs/index.js'),
    require.resolve('path'), typeof require.cache);
})();
