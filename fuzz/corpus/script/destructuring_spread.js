// Destructuring with defaults, renaming, rest and nesting; spread in calls,
// arrays and objects.
const { a, b: renamed, c = 'default', d: { e = 5, ...restOfD } = {}, ...others } =
  { a: 1, b: 2, d: { e: undefined, f: 6, g: 7 }, h: 8, i: 9 };
console.log(a, renamed, c, e, restOfD, others);

const [x, , y = 'y default', [z] = ['z default'], ...tail] = [1, 2, undefined, undefined, 5, 6];
console.log(x, y, z, tail);

let p = 1, q = 2;
[p, q] = [q, p];
console.log(p, q);

const nullDefault = ({ v = 'used' } = {}) => v;
console.log(nullDefault(), nullDefault({}), nullDefault({ v: null }), nullDefault({ v: 0 }));

function params({ name, tags: [firstTag, ...moreTags] = [] }, ...extra) {
  return `${name}:${firstTag}:${moreTags.length}:${extra.length}`;
}
console.log(params({ name: 'n', tags: ['t1', 't2', 't3'] }, 'e1', 'e2'), params({ name: 'bare' }));

const key = 'dynamic';
const { [key]: dyn, [`${key}2`]: dyn2 = 'missing' } = { dynamic: 'found' };
console.log(dyn, dyn2);

const [s1, s2, ...sRest] = 'héllo😀';
console.log(s1, s2, sRest);
const { length } = 'abc';
console.log(length);
for (const [k, v] of new Map([['m1', 1], ['m2', 2]])) console.log(k, v);
for (const { id, data: { value } } of [{ id: 1, data: { value: 'v1' } }]) console.log(id, value);

try {
  const { boom } = null;
  console.log(boom);
} catch (e) {
  console.log(e.constructor.name);
}
try {
  const [first] = {};
  console.log(first);
} catch (e) {
  console.log(e.constructor.name);
}

// Spread.
const arr = [1, 2, 3];
console.log(Math.max(...arr), [...arr, ...'ab', ...new Set([9, 9, 8])], [...[], ...[[]]]);
const base = { a: 1, b: { nested: true }, get computed() { return 'getter value'; } };
const copy = { ...base, a: 'overridden', extra: 1 };
console.log(copy, copy.b === base.b, Object.getOwnPropertyDescriptor(copy, 'computed').value);
console.log({ ...null, ...undefined, ...[7], ...42, ...true });
const order = { z: 1, y: 2, ...{ y: 'later', x: 3 } };
console.log(Object.keys(order), order.y);
function collect(...args) {
  return args.length;
}
console.log(collect(...arr, ...[4, 5]), collect(...'four'), collect(...new Map([[1, 1]]).keys()));
const clone = [...arr];
clone.push(4);
console.log(arr.length, clone.length, Array.from({ length: 3 }, (_, i) => i * 2), [...Array(2).keys()]);
