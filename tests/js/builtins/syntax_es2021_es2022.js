// ES2021-ES2022 syntax the engine has: logical assignment, numeric separators, class
// fields and private methods, accessors and static members. (Class static blocks and
// `#x in obj` come from deps/quickjs/0007-es2022-syntax.patch and have tests of their
// own: class_static_blocks.js, private_in.js.)
let a = null;
let b = 0;
let c = 1;
a ??= 'set';
b ||= 'set';
c &&= 'set';
console.log('logical assignment', a, b, c);

let calls = 0;
const effect = () => { calls++; return 'new'; };
let kept = 'kept';
kept ??= effect();
kept &&= kept;
let empty = '';
empty &&= effect();
console.log('short-circuit', kept, JSON.stringify(empty), calls);

const o = { n: 0, s: '' };
o.n ||= 5;
o['s'] ??= 'not null';
o.missing ??= 'created';
console.log('on properties', o);
const frozen = Object.freeze({ x: 1 });
frozen.x ||= 2;
console.log('no write when short-circuited', frozen.x);
try {
  (() => {
    'use strict';
    frozen.x &&= 2;
  })();
} catch (e) {
  console.log('write to frozen in strict code', e.name);
}

console.log('numeric separators', 1_000_000, 0xff_ff, 1_0.5_0, 0b1_0);

class Counter {
  #count = 0;
  static #instances = 0;
  static created = 0;
  constructor() {
    Counter.#instances++;
    Counter.created++;
  }
  #step() {
    return 1;
  }
  get #doubled() {
    return this.#count * 2;
  }
  set #value(v) {
    this.#count = v;
  }
  static #reset(c) {
    c.#value = 0;
  }
  increment() {
    this.#count += this.#step();
    return this;
  }
  get doubled() {
    return this.#doubled;
  }
  static instances() {
    return Counter.#instances;
  }
  static reset(c) {
    Counter.#reset(c);
  }
  static read(obj) {
    return obj.#count;
  }
}
const counter = new Counter().increment().increment();
new Counter();
console.log('private members', counter.doubled, Counter.instances(), Counter.created);
Counter.reset(counter);
console.log('private setter', counter.doubled);
try {
  Counter.read({});
} catch (e) {
  console.log('private field on a foreign object', e.name);
}
console.log('private names hidden', Object.getOwnPropertyNames(counter), JSON.stringify(counter));
