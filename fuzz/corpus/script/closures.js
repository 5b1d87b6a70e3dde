// Closures capture variables, not values; let makes one binding per iteration.
function counter(start = 0) {
  let n = start;
  return { inc: () => ++n, dec: () => --n, get value() { return n; } };
}
const c1 = counter();
const c2 = counter(10);
c1.inc(); c1.inc(); c2.dec();
console.log(c1.value, c2.value);

const withVar = [];
for (var i = 0; i < 3; i++) withVar.push(() => i);
const withLet = [];
for (let j = 0; j < 3; j++) withLet.push(() => j);
console.log(withVar.map((f) => f()), withLet.map((f) => f()));

const curry = (f) => (a) => (b) => (c) => f(a, b, c);
console.log(curry((a, b, c) => a + b * c)(1)(2)(3));

function memoize(fn) {
  const cache = new Map();
  let misses = 0;
  const wrapped = (x) => {
    if (!cache.has(x)) {
      misses++;
      cache.set(x, fn(x));
    }
    return cache.get(x);
  };
  wrapped.misses = () => misses;
  return wrapped;
}
const slowSquare = memoize((x) => x * x);
console.log(slowSquare(4), slowSquare(4), slowSquare(5), slowSquare.misses());

const once = (fn) => { let done = false, result; return (...args) => (done ? result : (done = true, result = fn(...args))); };
const init = once((x) => `initialised with ${x}`);
console.log(init('a'), init('b'));

// Shared environment between closures created together.
function pair() {
  let shared = 0;
  return [() => shared++, () => shared];
}
const [bump, read] = pair();
bump(); bump();
console.log(read());

// IIFE and block scope.
const result = (() => {
  const hidden = 'private';
  return hidden.toUpperCase();
})();
{
  let blockScoped = 1;
  var functionScoped = 2;
}
console.log(result, typeof blockScoped, functionScoped);

// this in arrows vs functions.
const obj = {
  name: 'obj',
  regular() { return [1].map(function () { return this; })[0]; },
  arrow() { return [1].map(() => this.name)[0]; },
};
console.log(obj.regular() === undefined || obj.regular() === globalThis, obj.arrow());

// Hoisting and the temporal dead zone.
console.log(typeof hoisted, hoisted());
function hoisted() { return 'hoisted function'; }
try {
  tdz;
} catch (e) {
  console.log(e.name);
}
let tdz = 1;
console.log(tdz);
