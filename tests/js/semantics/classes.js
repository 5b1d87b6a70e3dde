// Classes: fields, accessors, static members, private members, inheritance.
// (`#x in obj` and static initialisation blocks, both ES2022, are tested in
// tests/js/builtins/private_in.js and class_static_blocks.js.)
class Temperature {
  static #instances = 0;
  static unit = 'C';
  #celsius;
  label = 'temp';

  constructor(celsius) {
    this.#celsius = celsius;
    Temperature.#instances++;
  }
  get fahrenheit() {
    return this.#celsius * 9 / 5 + 32;
  }
  set fahrenheit(f) {
    this.#celsius = (f - 32) * 5 / 9;
  }
  get celsius() {
    return this.#celsius;
  }
  #describe() {
    return `${this.#celsius}°${Temperature.unit}`;
  }
  toString() {
    return this.#describe();
  }
  static get count() {
    return Temperature.#instances;
  }
  static isTemperature(o) {
    try {
      o.#celsius;
      return true;
    } catch {
      return false;
    }
  }
}
const t = new Temperature(100);
console.log(t.fahrenheit, String(t), t.label, Object.keys(t));
t.fahrenheit = 32;
console.log(t.celsius, `${t}`);
new Temperature(0);
console.log(Temperature.count, Temperature.unit, Temperature.isTemperature(t), Temperature.isTemperature({}));
console.log(typeof Object.getOwnPropertyDescriptor(Temperature.prototype, 'fahrenheit').get);

class Animal {
  constructor(name) {
    this.name = name;
  }
  speak() {
    return `${this.name} makes a sound`;
  }
  static create(name) {
    return new this(name);
  }
  get kind() {
    return this.constructor.name;
  }
}
class Dog extends Animal {
  #tricks = [];
  speak() {
    return `${super.speak()}: woof`;
  }
  learn(trick) {
    this.#tricks.push(trick);
    return this;
  }
  get tricks() {
    return [...this.#tricks];
  }
}
const d = Dog.create('Rex').learn('sit').learn('roll');
console.log(d.speak(), d.kind, d.tricks, d instanceof Animal, d instanceof Dog);
console.log(Object.getPrototypeOf(Dog) === Animal, Object.getPrototypeOf(Dog.prototype) === Animal.prototype);
console.log(typeof Dog, Dog.name, Dog.length, Animal.length);

// Calling a class without new, and new.target.
try {
  Animal('x');
} catch (e) {
  console.log(e.constructor.name);
}
class Base {
  constructor() {
    this.made = new.target.name;
  }
}
class Derived extends Base {}
console.log(new Base().made, new Derived().made);

// Derived constructors must call super before using this.
class Broken extends Base {
  constructor() {
    try {
      this.x = 1;
    } catch (e) {
      console.log('before super:', e.constructor.name);
    }
    super();
  }
}
new Broken();

// Extending built-ins.
class Stack extends Array {
  peek() {
    return this[this.length - 1];
  }
}
const s = Stack.from([1, 2, 3]);
console.log(s.peek(), s.length, s instanceof Stack, Array.isArray(s), s.map((x) => x * 2) instanceof Stack);
class AppError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'AppError';
    this.code = code;
  }
}
const err = new AppError('failed', 'E1');
console.log(String(err), err.code, err instanceof Error, Object.prototype.toString.call(err));

// Symbols and computed names; class expressions; accessors on static side.
const method = 'dynamic';
class Computed {
  [method + 'Name']() {
    return 'computed';
  }
  static [Symbol.hasInstance](x) {
    return x === 42;
  }
  *[Symbol.iterator]() {
    yield 1;
    yield 2;
  }
}
console.log(new Computed().dynamicName(), 42 instanceof Computed, [...new Computed()]);
const Anonymous = class {};
const Named = class Inner {};
console.log(Anonymous.name, Named.name);

// Field initialisers run in order, with this bound, after super().
class Fields {
  a = 1;
  b = this.a + 1;
  ['c' + 'd'] = 'computed field';
  arrow = () => this.b;
}
const f = new Fields();
const { arrow } = f;
console.log(f.a, f.b, f.cd, arrow());
