// An observable store with Proxy/Reflect: change tracking, validation, read-only views.
'use strict';
function observable(target, onChange, path = []) {
  return new Proxy(target, {
    get(obj, key, recv) {
      const v = Reflect.get(obj, key, recv);
      return v && typeof v === 'object' ? observable(v, onChange, [...path, key]) : v;
    },
    set(obj, key, value, recv) {
      const old = obj[key];
      const ok = Reflect.set(obj, key, value, recv);
      if (old !== value) onChange([...path, key].join('.'), old, value);
      return ok;
    },
    deleteProperty(obj, key) {
      onChange([...path, key].join('.'), obj[key], undefined);
      return Reflect.deleteProperty(obj, key);
    },
  });
}
const changes = [];
const state = observable({ user: { name: 'Ann', roles: ['dev'] }, count: 0 }, (p, a, b) => changes.push(`${p}: ${JSON.stringify(a)} -> ${JSON.stringify(b)}`));
state.count++;
state.count += 2;
state.user.name = 'Anna';
state.user.roles.push('admin');
state.user.name = 'Anna';
delete state.user.roles;
state.extra = { x: 1 };
console.log(changes.join('\n'));
console.log(JSON.stringify(state), Object.keys(state), 'count' in state);

const typed = (shape) => new Proxy({}, {
  set(o, k, v) {
    if (!(k in shape)) throw new TypeError(`unknown field ${String(k)}`);
    if (typeof v !== shape[k]) throw new TypeError(`${String(k)} must be ${shape[k]}, got ${typeof v}`);
    o[k] = v;
    return true;
  },
});
const rec = typed({ id: 'number', label: 'string' });
rec.id = 7;
for (const [k, v] of [['label', 5], ['nope', 1], ['label', 'ok']]) {
  try { rec[k] = v; console.log('set', k); } catch (e) { console.log(e.message); }
}
console.log({ ...rec });

const readonly = (o) => new Proxy(o, { set: () => false, deleteProperty: () => false, defineProperty: () => false });
const ro = readonly({ a: 1 });
try { ro.a = 2; } catch (e) { console.log(e.name, 'from the set trap (strict mode)'); }
console.log(ro.a, Reflect.set(ro, 'a', 3), Reflect.ownKeys({ b: 1, [Symbol.for('s')]: 2, 1: 0 }));
const defaults = new Proxy({}, { get: (o, k) => (k in o ? o[k] : `<${String(k)}>`), has: () => true });
console.log(defaults.anything, 'x' in defaults, `${defaults.name}`);
const counter = new Proxy(function add(a, b) { return a + b; }, {
  apply(fn, self, args) { counter.calls = (counter.calls || 0) + 1; return fn(...args) * 10; },
});
console.log(counter(1, 2), counter(3, 4), counter.calls, typeof counter);
console.log(Reflect.has({ x: 1 }, 'x'), Reflect.getPrototypeOf([]) === Array.prototype, Reflect.apply(Math.max, null, [1, 9, 3]), Reflect.construct(Date, [0]).toISOString());
const frozen = Object.freeze({ n: 1, inner: { m: 2 } });
frozen.inner.m = 3;
try { frozen.n = 2; } catch (e) { console.log(e.name); }
console.log(Object.isFrozen(frozen), Object.isFrozen(frozen.inner), frozen, Object.getOwnPropertyDescriptor(frozen, 'n'));
