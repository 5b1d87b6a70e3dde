// The ES2021-ES2023 built-ins look like the engine's own: the specification's length
// and name, writable and configurable but not enumerable, not constructors, their source
// not shown, and no frame of their implementation in stack traces.
const TypedArrayPrototype = Object.getPrototypeOf(Int8Array.prototype);
const entries = [
  ['Array.prototype', Array.prototype, ['at', 'findLast', 'findLastIndex', 'toReversed', 'toSorted', 'toSpliced', 'with']],
  ['%TypedArray%.prototype', TypedArrayPrototype, ['at', 'findLast', 'findLastIndex', 'toReversed', 'toSorted', 'with']],
  ['String.prototype', String.prototype, ['at', 'isWellFormed', 'toWellFormed', 'replaceAll']],
  ['Object', Object, ['hasOwn']],
  ['Promise', Promise, ['any']],
];
for (const [where, target, names] of entries) {
  for (const name of names) {
    const d = Object.getOwnPropertyDescriptor(target, name);
    const fn = d.value;
    let constructs;
    try {
      new fn();
      constructs = true;
    } catch (e) {
      constructs = e instanceof TypeError ? false : e.name;
    }
    const source = Function.prototype.toString.call(fn);
    console.log(`${where}.${name}`, fn.length, fn.name, d.writable, d.enumerable, d.configurable,
      Object.hasOwn(fn, 'prototype'), constructs,
      source.startsWith(`function ${name}() {`) && source.includes('[native code]'));
  }
}
console.log('for-in sees none', (() => {
  const seen = [];
  for (const k in []) seen.push(k);
  for (const k in '') seen.push(k);
  for (const k in new Int8Array(0)) seen.push(k);
  return seen.length;
})());
console.log('no extra globals', Object.getOwnPropertyNames(globalThis).filter((k) => /capsa|builtin|polyfill/i.test(k)));
console.log('name and length configurable', (() => {
  const d = Object.getOwnPropertyDescriptor(Array.prototype.at, 'name');
  const l = Object.getOwnPropertyDescriptor(Array.prototype.toSpliced, 'length');
  return [d.writable, d.enumerable, d.configurable, l.writable, l.enumerable, l.configurable];
})());
try {
  [1, 2].findLast(function predicate() {
    throw new Error('inside');
  });
} catch (e) {
  console.log('stack names the predicate', /predicate/.test(e.stack), 'and no source file of the built-ins',
    !/builtins\.js/.test(e.stack));
}
console.log('replaced helpers do not matter', (() => {
  const { call, apply } = Function.prototype;
  const { push } = Array.prototype;
  const { from } = Array;
  Function.prototype.call = () => 'hijacked';
  Function.prototype.apply = () => 'hijacked';
  Array.prototype.push = () => 'hijacked';
  Array.from = () => 'hijacked';
  try {
    return [
      [1, 2, 3].findLast((x) => x < 3),
      [3, 1, 2].toSorted(),
      [1, 2].toReversed(),
      [1, 2].with(0, 0),
      Object.groupBy === undefined ? 'n/a' : 'ok',
    ];
  } finally {
    Function.prototype.call = call;
    Function.prototype.apply = apply;
    Array.prototype.push = push;
    Array.from = from;
  }
})().slice(0, 4));
