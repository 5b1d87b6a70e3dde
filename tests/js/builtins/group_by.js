// Object.groupBy and Map.groupBy (ES2024). Node 20 has neither: the expected output
// was written by hand from the specification (GroupBy, AddValueToKeyedGroup), in the
// layout Node 20's console gives those values.
const show = (label, f) => {
  try {
    console.log(label, f());
  } catch (e) {
    console.log(label, 'threw', e.name);
  }
};

const inventory = [
  { name: 'asparagus', type: 'vegetables', quantity: 5 },
  { name: 'bananas', type: 'fruit', quantity: 0 },
  { name: 'goat', type: 'meat', quantity: 23 },
  { name: 'cherries', type: 'fruit', quantity: 5 },
  { name: 'fish', type: 'meat', quantity: 22 },
];
show('by type', () => {
  const g = Object.groupBy(inventory, ({ type }) => type);
  return Object.entries(g).map(([k, v]) => `${k}: ${v.map((i) => i.name).join(',')}`);
});
show('null prototype', () => Object.getPrototypeOf(Object.groupBy([], (x) => x)));
show('groups are arrays', () => {
  const g = Object.groupBy([1, 2, 3], (x) => (x % 2 ? 'odd' : 'even'));
  return [Array.isArray(g.odd), g.odd, g.even, Object.keys(g)];
});
show('callback arguments', () => {
  const seen = [];
  Object.groupBy(['a', 'b'], function (v, i) {
    'use strict';
    seen.push(`${v} ${i} ${arguments.length} ${this}`);
    return v;
  });
  return seen;
});
show('keys coerced', () => Object.keys(Object.groupBy([1, 2, 3, 4], (x) => x % 2 === 0)));
show('number keys', () => Object.keys(Object.groupBy([3, 1, 2, 1], (x) => x)));
show('symbol key', () => {
  const s = Symbol('s');
  const g = Object.groupBy([1], () => s);
  return [Object.getOwnPropertySymbols(g).length, g[s]];
});
show('__proto__ key', () => {
  const g = Object.groupBy([1], () => '__proto__');
  return [Object.keys(g), Array.isArray(g.__proto__)];
});
show('key object converted once', () => {
  let n = 0;
  const key = { toString() { n++; return 'k'; } };
  const g = Object.groupBy([1, 2], () => key);
  return [Object.keys(g), g.k, n];
});
show('descriptor of a group', () => {
  const d = Object.getOwnPropertyDescriptor(Object.groupBy([1], () => 'a'), 'a');
  return [d.writable, d.enumerable, d.configurable];
});
show('string items', () => Object.groupBy('hello', (c) => (c === 'l' ? 'l' : 'other')));
show('set items', () => Object.groupBy(new Set([1, 2, 3]), (x) => (x > 1 ? 'big' : 'small')));
show('generator items', () => Object.groupBy((function* () { yield 1; yield 2; })(), (x, i) => i));
show('empty', () => Object.groupBy([], () => 'a'));
show('null items', () => Object.groupBy(null, (x) => x));
show('undefined items', () => Object.groupBy(undefined, (x) => x));
show('not iterable', () => Object.groupBy({}, (x) => x));
show('number items', () => Object.groupBy(5, (x) => x));
show('non-callable', () => Object.groupBy([1], 'type'));
show('missing callback', () => Object.groupBy([1]));
show('callback checked before iterating', () => {
  const log = [];
  const items = { [Symbol.iterator]() { log.push('iterator'); return [][Symbol.iterator](); } };
  try {
    Object.groupBy(items, null);
  } catch (e) {
    log.push(e.name);
  }
  return log;
});
show('iterator closed when the callback throws', () => {
  const log = [];
  const items = {
    [Symbol.iterator]() {
      let i = 0;
      return {
        next() { log.push('next'); return { value: i++, done: false }; },
        return() { log.push('return'); return {}; },
      };
    },
  };
  try {
    Object.groupBy(items, (v) => { if (v === 1) throw new RangeError('stop'); return 'k'; });
  } catch (e) {
    log.push(e.name);
  }
  return log;
});
show('iterator closed when the key throws', () => {
  const log = [];
  const items = {
    [Symbol.iterator]() {
      return {
        next() { return { value: 1, done: false }; },
        return() { log.push('return'); return {}; },
      };
    },
  };
  try {
    Object.groupBy(items, () => ({ toString() { throw new SyntaxError('bad key'); } }));
  } catch (e) {
    log.push(e.name);
  }
  return log;
});
show('array not changed', () => {
  const a = [1, 2];
  Object.groupBy(a, (x) => x);
  return a;
});

show('Map.groupBy', () => {
  const restock = { restock: true };
  const sufficient = { restock: false };
  const m = Map.groupBy(inventory, ({ quantity }) => (quantity < 6 ? restock : sufficient));
  return [m instanceof Map, m.size, m.get(restock).map((i) => i.name), m.get(sufficient).map((i) => i.name)];
});
show('Map.groupBy key order', () => [...Map.groupBy([3, 1, 2, 1, 3], (x) => x).keys()]);
show('Map.groupBy keys not coerced', () => {
  const m = Map.groupBy([1, '1', 1n], (x) => x);
  return [m.size, [...m.keys()].map((k) => typeof k)];
});
show('Map.groupBy -0', () => {
  const m = Map.groupBy([1, 2], (x) => (x === 1 ? -0 : 0));
  const [key] = m.keys();
  return [m.size, Object.is(key, 0), m.get(0)];
});
show('Map.groupBy NaN', () => Map.groupBy([1, 2], () => NaN).get(NaN));
show('Map.groupBy ignores Map.prototype.set', () => {
  const set = Map.prototype.set;
  let called = false;
  Map.prototype.set = function () { called = true; return set.apply(this, arguments); };
  try {
    const m = Map.groupBy([1, 2], (x) => x);
    return [m.size, called];
  } finally {
    Map.prototype.set = set;
  }
});
show('Map.groupBy null items', () => Map.groupBy(null, (x) => x));
show('Map.groupBy non-callable', () => Map.groupBy([1], {}));
show('Map.groupBy empty', () => Map.groupBy([], (x) => x));
show('Map.groupBy subclass this ignored', () => {
  class MyMap extends Map {}
  return Map.groupBy.call(MyMap, [1], (x) => x).constructor === Map;
});

for (const [label, fn] of [['Object.groupBy', Object.groupBy], ['Map.groupBy', Map.groupBy]]) {
  const d = Object.getOwnPropertyDescriptor(label === 'Map.groupBy' ? Map : Object, 'groupBy');
  show(`${label} shape`, () => [fn.length, fn.name, d.writable, d.enumerable, d.configurable,
    Object.hasOwn(fn, 'prototype')]);
  show(`${label} new`, () => new fn([], (x) => x));
}
