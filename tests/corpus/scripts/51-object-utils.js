// Object helpers agents write: deep merge, pick/omit, get/set by path, flatten/unflatten keys.
const isPlain = (v) => v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;
function deepMerge(target, ...sources) {
  for (const src of sources) {
    for (const [k, v] of Object.entries(src)) {
      if (isPlain(v) && isPlain(target[k])) target[k] = deepMerge({ ...target[k] }, v);
      else if (Array.isArray(v) && Array.isArray(target[k])) target[k] = [...target[k], ...v];
      else target[k] = isPlain(v) ? deepMerge({}, v) : v;
    }
  }
  return target;
}
const defaults = { server: { host: 'localhost', port: 80, tls: { enabled: false } }, plugins: ['core'], retries: 3 };
const user = { server: { port: 8443, tls: { enabled: true, cert: '/etc/cert.pem' } }, plugins: ['auth'], retries: undefined, debug: true };
const merged = deepMerge({}, defaults, user);
console.dir(merged, { depth: null });
console.log(defaults.server.tls.enabled, defaults.plugins);
const pick = (o, keys) => Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));
const omit = (o, keys) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
console.log(pick(merged, ['retries', 'debug', 'nope']), Object.keys(omit(merged, ['server'])));
const getPath = (o, path, dflt) => path.replace(/\[(\d+)\]/g, '.$1').split('.').reduce((acc, k) => (acc == null ? acc : acc[k]), o) ?? dflt;
const setPath = (o, path, value) => {
  const keys = path.replace(/\[(\d+)\]/g, '.$1').split('.');
  keys.slice(0, -1).reduce((acc, k, i) => (acc[k] ??= /^\d+$/.test(keys[i + 1]) ? [] : {}), o)[keys.at(-1)] = value;
  return o;
};
console.log(getPath(merged, 'server.tls.cert'), getPath(merged, 'plugins[1]'), getPath(merged, 'a.b.c', 'default'));
console.log(setPath({}, 'a.list[2].name', 'x'), setPath({ a: { b: 1 } }, 'a.c', 2));
const flatten = (o, prefix = '') => Object.entries(o).reduce((acc, [k, v]) => {
  const key = prefix ? `${prefix}.${k}` : k;
  return isPlain(v) && Object.keys(v).length ? { ...acc, ...flatten(v, key) } : { ...acc, [key]: v };
}, {});
const flat = flatten(merged);
console.log(flat);
const unflatten = (f) => Object.entries(f).reduce((acc, [k, v]) => setPath(acc, k, v), {});
console.log(JSON.stringify(unflatten(flat)) === JSON.stringify(merged), unflatten({ 'x.y': 1, 'x.z': 2, w: 3 }));
const invert = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [v, k]));
console.log(invert({ a: 'x', b: 'y', c: 'x' }));
const mapValues = (o, fn) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, fn(v, k)]));
console.log(mapValues({ a: 1, b: 2 }, (v, k) => `${k}${v * 10}`));
const obj = {};
Object.defineProperty(obj, 'hidden', { value: 1, enumerable: false });
Object.defineProperty(obj, 'computed', { get() { return 42; }, enumerable: true });
obj.visible = 2;
console.log(obj, Object.keys(obj), JSON.stringify(obj), Object.getOwnPropertyNames(obj), { ...obj });
console.log(Object.entries([7, 8]), Object.assign({}, 'ab', null, [9]), Object.fromEntries(new Map([['m', 1]])), Object.values('hi'));
const sym = Symbol('id');
const withSym = { [sym]: 1, regular: 2 };
console.log(withSym, Object.keys(withSym), Object.getOwnPropertySymbols(withSym), JSON.stringify(withSym));
