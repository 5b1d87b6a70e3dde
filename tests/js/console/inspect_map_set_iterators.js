// Map and Set iterators list the items they have still to give, without advancing.
// Expected: Node's output.
const map = new Map([[1, 2], ['a', { b: [1, 2] }]]);
console.log(map.keys());
console.log(map.values());
console.log(map.entries());
console.log(map[Symbol.iterator]());
const set = new Set([1, 'x', { y: 2 }]);
console.log(set.values());
console.log(set.keys());
console.log(set.entries());

// Inspecting does not consume: the iterator gives the same items afterwards.
const keys = map.keys();
console.log(keys);
console.log([...keys]);
console.log(keys);
const partly = map.entries();
partly.next();
console.log(partly);
console.log(new Set().values());

// Items added after the iterator was made are still to come.
const growing = new Set([1]);
const values = growing.values();
growing.add(2);
growing.delete(1);
console.log(values);

// Long, nested and limited.
console.log(new Set(Array.from({ length: 102 }, (_, i) => i)).values());
console.log(new Map(Array.from({ length: 8 }, (_, i) => [`key-number-${i}`, `value-${i}`])).entries());
console.log({ nested: map.values(), deeper: { a: { b: { c: map.keys() } } } });
console.dir(map.entries(), { maxArrayLength: 1 });
console.dir(set.values(), { depth: 0 });
console.dir({ a: set.values() }, { depth: 0 });
const extra = map.entries();
extra.label = 'x';
console.log(extra);
console.log([map.keys()]);
console.log('%o', set.values());
