// Walks everything reachable from the global object: own properties (getters
// are not called), prototypes, and what they hold. The runtime's host objects
// (__capsa: write, promiseState, promiseResult; __capsaWeb: enqueueJob, detach,
// the UTF-8 helpers, ...) must not be among them, nor their functions that no
// web API stands for. (performance.now or crypto.getRandomValues may well be
// natives of the host: they are the web APIs themselves; process.stdout.write and
// process.stderr.write are node.js's own functions, which show as native because
// the runtime's code is stripped: they must check what they are given, as the
// host's write does not.)
const seen = new Set();
const found = [];
const queue = [[globalThis, 'globalThis']];
const hostOnly = /^(write|promiseState|promiseResult|enqueueJob|detach|utf8Encode|utf8EncodeInto|utf8Decode|timeOrigin)$/;
const hostAll = /^(write|promiseState|promiseResult|now|timeOrigin|getRandomValues|enqueueJob|detach|utf8Encode|utf8EncodeInto|utf8Decode)$/;
const isNative = (f) => Function.prototype.toString.call(f).includes('[native code]');
while (queue.length) {
  const [v, path] = queue.shift();
  if (v === null || (typeof v !== 'object' && typeof v !== 'function') || seen.has(v)) continue;
  seen.add(v);
  const nodeWrite = /^globalThis\.process\.std(out|err)\.write$/.test(path) && (() => {
    try { v(5); } catch (e) { return e.code === 'ERR_INVALID_ARG_TYPE'; }
    return false;
  })();
  if (typeof v === 'function' && hostOnly.test(v.name) && isNative(v) && !nodeWrite) found.push(path);
  let keys;
  try { keys = Reflect.ownKeys(v); } catch { continue; }
  const natives = keys.filter((k) => {
    const d = Reflect.getOwnPropertyDescriptor(v, k);
    return typeof k === 'string' && hostAll.test(k) && d && typeof d.value === 'function' && isNative(d.value);
  });
  if (natives.length >= 2 && !natives.every((k) => k === 'now' || k === 'getRandomValues'))
    found.push(path + ' {' + natives.join(', ') + '}');
  for (const k of keys) {
    let d;
    try { d = Reflect.getOwnPropertyDescriptor(v, k); } catch { continue; }
    if (!d) continue;
    for (const part of ['value', 'get', 'set'])
      if (part in d) queue.push([d[part], path + '.' + String(k) + (part === 'value' ? '' : '<' + part + '>')]);
  }
  try { queue.push([Object.getPrototypeOf(v), path + '.__proto__']); } catch {}
}
return { objects: seen.size > 500, found };
