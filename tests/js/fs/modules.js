// ES modules from the sandbox's filesystem: dynamic import() from the script (relative
// to /workspace), static imports inside modules (relative to the importing module),
// cycles, import.meta, the 'fs' modules, and the errors of imports and require().
const write = (path, text) => {
  fs.mkdirSync(path.slice(0, path.lastIndexOf('/')) || '/', { recursive: true });
  fs.writeFileSync(path, text);
};
const fail = async (label, f) => {
  try {
    await f();
    console.log(label, 'did not fail');
  } catch (e) {
    console.log(label, `${e.name} ${e.code} |`, e.message);
  }
};

write('/workspace/lib/math.js', `
  import { twice } from './util/twice.mjs';
  import * as util from '/workspace/lib/util/twice.mjs';
  export const square = (x) => x * x;
  export default function quad(x) { return twice(twice(x)); }
  export const same = util.twice === twice;
`);
write('/workspace/lib/util/twice.mjs', `
  import { counter } from '../../state.js';
  counter.loads++;
  export const twice = (x) => 2 * x;
`);
write('/workspace/state.js', 'export const counter = { loads: 0 };');

// Relative to /workspace, absolute, with "." and "..": one module instance.
const m = await import('./lib/math.js');
console.log(m.square(7), m.default(3), m.same, Object.keys(m).sort().join(','));
const again = await import('/workspace/lib/../lib/./math.js');
const util = await import('./lib/util/twice.mjs');
const state = await import('/workspace/state.js');
console.log(again === m, util.twice(21), state.counter.loads);
console.log(String(m[Symbol.toStringTag]), typeof (await import('file:///workspace/state.js')).counter);

// A cycle: each module sees the other's bindings once both are evaluated.
write('/workspace/cycle/a.js', `
  import { b, whoIsA } from './b.js';
  export const a = 'a';
  export const both = () => a + b + whoIsA();
`);
write('/workspace/cycle/b.js', `
  import { a } from './a.js';
  export const b = 'b';
  export function whoIsA() { return a; }
`);
console.log((await import('./cycle/a.js')).both());

// import.meta of a module read from a file.
write('/workspace/meta dir/meta.js', 'export const meta = import.meta;');
const { meta } = await import('./meta dir/meta.js');
console.log(meta.url, meta.filename, meta.dirname);

// A module's own dynamic import() is relative to it too.
write('/workspace/dyn/loader.js', "export const load = () => import('./target.js');");
write('/workspace/dyn/target.js', "export const value = 'dynamic target';");
console.log((await (await import('./dyn/loader.js')).load()).value);

// Modules in /tmp and read-only places load the same way.
write('/tmp/mods/t.js', "export const where = import.meta.dirname;");
console.log((await import('/tmp/mods/t.js')).where);
console.log((await import('../tmp/mods/t.js')).where);

// The fs modules: default export and named exports, static and dynamic.
write('/workspace/usefs.js', `
  import fs, { readFileSync, promises } from 'fs';
  import * as nodeFs from 'node:fs';
  import fsp, { readFile } from 'fs/promises';
  import * as nodeFsp from 'node:fs/promises';
  export const ok = [fs === globalThis.fs, readFileSync === fs.readFileSync,
    promises === fs.promises, nodeFs.default === fs, nodeFs.existsSync === fs.existsSync,
    fsp === fs.promises, readFile === fs.promises.readFile, nodeFsp.default === fsp];
  export const text = readFileSync('state.js', 'utf8').length;
`);
const usefs = await import('./usefs.js');
console.log(usefs.ok.join(), usefs.text);
const dynFs = await import('fs');
console.log(dynFs.default === fs, dynFs.readFileSync === fs.readFileSync,
  (await import('node:fs/promises')).default === fs.promises);

// require(): the fs modules, ES modules (their namespace: they are the ones import gave),
// and what it cannot find (tests/js/node/modules.js has require() of CommonJS files).
console.log(require('fs') === fs, require('node:fs') === fs,
  require('fs/promises') === fs.promises, require('node:fs/promises') === fs.promises);
console.log(require('./lib/math.js') === m, require('/workspace/state.js') === state,
  require('path') === (await import('node:path')).default);
for (const id of ['lodash', './lib/nope.js', 'node:child_process', 'node:nope', 'os']) {
  await fail(`require ${id}`, () => require(id));
}
await fail('require()', () => require());

// Imports that fail.
await fail('missing', () => import('./nope.js'));
await fail('missing absolute', () => import('/workspace/lib/nope.mjs'));
write('/workspace/bad/nested.js', "import './missing.js';");
await fail('missing nested', () => import('./bad/nested.js'));
await fail('missing nested again', () => import('./bad/nested.js'));
write('/workspace/bad/pkg.js', "import _ from 'lodash';");
await fail('package', () => import('./bad/pkg.js'));
await fail('package from script', () => import('left-pad'));
await fail('builtin', () => import('node:os'));
await fail('builtin bare', () => import('child_process'));
await fail('directory', () => import('./lib'));
await fail('not a directory', () => import('./state.js/x.js'));
write('/workspace/bad/syntax.js', 'export const x = ;');
await fail('syntax', () => import('./bad/syntax.js'));
write('/workspace/bad/throws.js', "throw new RangeError('thrown while loading');");
await fail('throws', () => import('./bad/throws.js'));
write('/workspace/bad/noexport.js', "import { nothing } from '../state.js';");
await fail('no such export', () => import('./bad/noexport.js'));

// A file fixed after a failed import can then be imported.
write('/workspace/bad/nested.js', "export const fixed = true;");
write('/workspace/bad/missing.js', '');
console.log((await import('./bad/nested.js')).fixed);
