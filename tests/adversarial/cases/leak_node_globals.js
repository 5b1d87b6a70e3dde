// Node's, Deno's, Bun's and QuickJS's own ambient objects are all absent, but for the
// sandbox's own process, require and Buffer.
const names = ['process', 'require', 'module', 'exports', '__dirname', '__filename',
  'Buffer', 'Deno', 'Bun', 'std', 'os', 'scriptArgs', 'print', 'gc', 'load', 'quit',
  'readline', 'environ', 'navigator', 'importScripts', 'Worker', 'postMessage'];
const present = names.filter((n) => typeof globalThis[n] !== 'undefined' || n in globalThis);
let viaEval = [];
for (const n of names) {
  try {
    eval(n);
    viaEval.push(n);
  } catch (e) {
    if (!(e instanceof ReferenceError)) viaEval.push(n + ': ' + e);
  }
}
return { present, viaEval };
