// Generators: lazy sequences, return/throw, delegation, and iterator protocol.
function* naturals() {
  let n = 0;
  while (true) yield n++;
}
function* take(it, n) {
  for (const x of it) {
    if (n-- <= 0) return;
    yield x;
  }
}
function* map(it, f) {
  for (const x of it) yield f(x);
}
console.log([...take(map(naturals(), (x) => x * x), 5)]);

function* conversation() {
  const name = yield 'name?';
  const age = yield `hello ${name}, age?`;
  return `${name} is ${age}`;
}
const conv = conversation();
console.log(conv.next(), conv.next('Ann'), conv.next(30), conv.next());

function* withCleanup() {
  try {
    yield 1;
    yield 2;
  } finally {
    console.log('cleanup ran');
  }
}
const early = withCleanup();
console.log(early.next().value, early.return('stopped'), early.next());
for (const x of withCleanup()) {
  if (x === 1) break;
}

function* catcher() {
  while (true) {
    try {
      yield 'waiting';
    } catch (e) {
      console.log('generator caught', e);
    }
  }
}
const g = catcher();
g.next();
console.log(g.throw('an error'));

function* inner() {
  yield 'a';
  const r = yield 'b';
  return `inner got ${r}`;
}
function* outer() {
  const result = yield* inner();
  yield result;
  yield* [1, 2];
  yield* 'xy';
}
const o = outer();
console.log(o.next().value, o.next().value, o.next('R').value, [...o]);

// Generators as iterables of objects, and destructuring from them.
const [first, , third, ...rest] = take(naturals(), 6);
console.log(first, third, rest);
const entries = Object.entries({ a: 1, b: 2 });
function* pairs() { yield* entries; }
console.log(new Map(pairs()).get('b'), Object.fromEntries(pairs()));

// A hand-written iterator and the protocol's return().
const countdown = {
  from: 3,
  [Symbol.iterator]() {
    let n = this.from;
    return {
      next: () => (n > 0 ? { value: n--, done: false } : { value: undefined, done: true }),
      return: () => {
        console.log('iterator closed');
        return { done: true };
      },
    };
  },
};
console.log([...countdown]);
for (const n of countdown) {
  if (n === 2) break;
}
const [one] = countdown;
console.log(one);
const genProto = Object.getPrototypeOf(naturals());
console.log(typeof genProto.next, naturals()[Symbol.iterator]() instanceof naturals, Object.prototype.toString.call(naturals()));
