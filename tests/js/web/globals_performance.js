// The globals themselves (names, attributes, global) and performance's clock.
const names = ['global', 'clearImmediate', 'setImmediate', 'clearInterval', 'clearTimeout',
  'setInterval', 'setTimeout', 'queueMicrotask', 'structuredClone', 'atob', 'btoa',
  'performance', 'crypto', 'URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder',
  'DOMException'];
for (const name of names) {
  const d = Object.getOwnPropertyDescriptor(globalThis, name);
  console.log(name.padEnd(16), typeof globalThis[name], d.enumerable, d.configurable,
    d.writable === true || typeof d.set === 'function');
}
console.log(Object.keys(globalThis).filter((k) => names.includes(k)));
console.log(global === globalThis, global.global === global);
for (const f of [structuredClone, atob, btoa, queueMicrotask]) console.log(f.name, f.length);
for (const C of [URL, URLSearchParams, TextEncoder, TextDecoder, DOMException]) {
  console.log(C.name, C.length, typeof C.prototype, Object.prototype.toString.call(C.prototype));
}

// performance.now(): a number of milliseconds with a fraction, never going back.
const t0 = performance.now();
let last = t0;
let monotonic = true;
for (let i = 0; i < 10000; i++) {
  const t = performance.now();
  if (t < last) monotonic = false;
  last = t;
}
console.log(typeof t0, t0 >= 0, monotonic, Object.prototype.toString.call(performance));
console.log(typeof performance.timeOrigin,
  Math.abs(performance.timeOrigin + performance.now() - Date.now()) < 1000);
console.log(Object.keys(performance.toJSON()).includes('timeOrigin'));

// A 50 ms sleep takes about 50 ms.
const start = performance.now();
new Promise((resolve) => setTimeout(resolve, 50)).then(() => {
  const elapsed = performance.now() - start;
  console.log('slept at least 49 ms:', elapsed >= 49, 'and less than a second:', elapsed < 1000);
});
