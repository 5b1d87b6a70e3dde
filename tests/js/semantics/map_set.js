// Map and Set: SameValueZero keys, insertion order, iteration while mutating.
const m = new Map();
const objKey = { id: 1 };
m.set('a', 1).set(1, 'number one').set('1', 'string one').set(objKey, 'object').set(NaN, 'nan').set(-0, 'zero');
console.log(m.size, m.get(1), m.get('1'), m.get({ id: 1 }), m.get(objKey), m.get(NaN), m.get(0), m.get(+0), [...m.keys()]);
m.set('a', 'replaced');
console.log([...m.entries()][0], m.has('a'), m.delete('a'), m.delete('a'), m.has('a'), m.size);
m.set('a', 'back at the end');
console.log([...m.keys()]);

const visited = [];
const mm = new Map([[1, 'x'], [2, 'y'], [3, 'z']]);
for (const [k] of mm) {
  visited.push(k);
  if (k === 1) {
    mm.delete(2);
    mm.set(4, 'added during iteration');
  }
}
console.log(visited);

const s = new Set([3, 1, 3, 2, 1, NaN, NaN, 0, -0, '3']);
console.log(s, s.size, s.has(-0), s.has('1'));
s.add(1).add(99);
console.log([...s], [...s.values()].length === s.size, [...s.entries()][0]);
const a = new Set([1, 2, 3, 4]);
const b = new Set([3, 4, 5]);
console.log([...a].filter((x) => b.has(x)), [...new Set([...a, ...b])], [...a].filter((x) => !b.has(x)));
const forEachOrder = [];
new Map([['k1', 'v1'], ['k2', 'v2']]).forEach((value, key, map) => forEachOrder.push(`${key}=${value}/${map.size}`));
new Set(['s']).forEach((value, key) => forEachOrder.push(`${key}=${value}`));
console.log(forEachOrder);

// Conversions and grouping by hand.
const obj = Object.fromEntries(new Map([['x', 1], ['y', 2]]));
const back = new Map(Object.entries(obj));
console.log(obj, back, JSON.stringify([...back]), JSON.stringify(new Map([[1, 2]])), JSON.stringify(new Set([1])));
const words = ['apple', 'avocado', 'banana', 'blueberry', 'cherry'];
const byLetter = new Map();
for (const w of words) {
  const k = w[0];
  if (!byLetter.has(k)) byLetter.set(k, []);
  byLetter.get(k).push(w);
}
console.log(byLetter);
const counts = words.join('').split('').reduce((acc, ch) => acc.set(ch, (acc.get(ch) ?? 0) + 1), new Map());
console.log([...counts].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, 3));
m.clear();
console.log(m.size, [...m]);

// WeakMap and WeakSet take objects only.
const wm = new WeakMap();
const ws = new WeakSet();
const key = {};
wm.set(key, 'weak value');
ws.add(key);
console.log(wm.get(key), wm.has({}), ws.has(key), wm.delete(key), wm.has(key));
try {
  wm.set('string key', 1);
} catch (e) {
  console.log(e.constructor.name);
}
console.log(Object.prototype.toString.call(new Map()), typeof Map.prototype[Symbol.iterator], Map.prototype[Symbol.iterator] === Map.prototype.entries);
