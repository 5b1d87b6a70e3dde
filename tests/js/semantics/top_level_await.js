// Top-level await: the script is the body of an async function. Its last line,
// `return`, is capsa's (the run's value, printed as JSON after the output); the
// rest prints what Node prints for the same code as a module, except that var and
// function declarations become properties of the global object, as in a classic
// script (a module keeps them local: Node prints "undefined undefined let").
const wait = (v) => new Promise((resolve) => Promise.resolve().then(() => resolve(v)));
console.log('start');
const first = await wait(1);
console.log('first', first);
const [a, b] = await Promise.all([wait('a'), wait('b')]);
console.log(a, b);
let total = 0;
for (const n of [1, 2, 3]) {
  total += await wait(n);
}
console.log('total', total);
try {
  await Promise.reject(new RangeError('awaited rejection'));
} catch (e) {
  console.log('caught', e.name, e.message);
}
for await (const x of (async function* () { yield 'g1'; yield 'g2'; })()) {
  console.log(x);
}
const late = [];
Promise.resolve().then(() => late.push('microtask before the next await'));
await null;
console.log(late);
var declaredWithVar = 'var';
let declaredWithLet = 'let';
function declaredFunction() { return 'function'; }
console.log(typeof globalThis.declaredWithVar, typeof globalThis.declaredFunction, declaredWithLet);
return { first, total, done: await wait(true) };
