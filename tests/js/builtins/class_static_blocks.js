// Class static initialization blocks (ES2022): they run once, when the class is
// defined, in order with the static fields, with the class as `this`.
const order = [];
class Config {
  static defaults = { retries: 3 };
  static {
    order.push('first block');
    this.retries = this.defaults.retries;
    // `var` is local to the block; the class is reachable by its name.
    var local = Config.retries * 2;
    this.doubled = local;
  }
  static timeout = (order.push('field'), 1000);
  static {
    order.push('second block');
    this.summary = `${this.retries} retries, ${this.timeout} ms`;
  }
}
console.log(order.join(' > '));
console.log(Config.retries, Config.doubled, Config.summary, typeof local);

// Private state set up by a static block, reached from methods.
class Registry {
  static #entries = new Map();
  static {
    for (const [k, v] of [['a', 1], ['b', 2]]) this.#entries.set(k, v);
  }
  static get(key) {
    return Registry.#entries.get(key);
  }
  static get size() {
    return Registry.#entries.size;
  }
}
console.log(Registry.get('a'), Registry.get('b'), Registry.size);

// `super` reaches the parent class; `this` in arrows is the class; new.target is undefined.
class Base {
  static kind = 'base';
  static describe() {
    return `a ${this.kind}`;
  }
}
class Derived extends Base {
  static kind = 'derived';
  static {
    this.parentKind = super.kind;
    this.text = super.describe();
    this.arrowThis = (() => this)() === Derived;
    this.newTarget = new.target;
  }
}
console.log(Derived.parentKind, Derived.text, Derived.arrowThis, Derived.newTarget);

// A block in a class expression; blocks can be empty; a function inside may use
// `arguments` and `await` as a name; an async arrow may await.
const Counter = class {
  static {}
  static count = 0;
  static {
    function add() {
      const await = arguments.length;
      return await;
    }
    this.count += add(1, 2, 3);
    this.pending = (async () => {
      await null;
      return 'awaited';
    })();
  }
};
console.log(Counter.count);
Counter.pending.then((v) => console.log('async arrow in a block:', v));

// An exception in a block propagates from the class definition.
try {
  class Broken {
    static {
      throw new RangeError('bad static setup');
    }
  }
  console.log('not reached', Broken);
} catch (e) {
  console.log(e.name, e.message);
}

// What the grammar forbids is a SyntaxError when the code is compiled.
for (const source of [
  'class A { static { return; } }',
  'class A { static { arguments; } }',
  'class A { static { () => arguments; } }',
  'class A { static { await 1; } }',
  'class A { static { var await; } }',
  'class A { static { super(); } }',
  'class A { static { let x; var x; } }',
  'class A { static async { } }',
  'class A { static { yield; } }',
  'class A { static {',
  'class A { static { break; } }',
]) {
  try {
    new Function(source);
    console.log('compiled:', source);
  } catch (e) {
    console.log(e.constructor === SyntaxError ? 'SyntaxError:' : e.name, source);
  }
}
for (const source of [
  'class A { static { () => await; } }',
  'class A { static { function f() { return arguments; } } }',
  'class A { static { label: { break label; } } }',
  'class A { static { var x; } static { var x; } }',
]) {
  new Function(source);
  console.log('compiled:', source);
}
