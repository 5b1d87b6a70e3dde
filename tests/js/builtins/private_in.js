// Ergonomic brand checks (ES2022): `#name in obj` tells whether obj has the private
// field, method or accessor, without throwing as obj.#name would.
class Point {
  #x = 0;
  #y = 0;
  #secret() {
    return 'secret';
  }
  get #norm() {
    return Math.hypot(this.#x, this.#y);
  }
  set #only(v) {}
  static #count = 0;
  static #reset() {}
  static isPoint(o) {
    return #x in o;
  }
  static brands(o) {
    return [#x in o, #secret in o, #norm in o, #only in o, #count in o, #reset in o];
  }
  equals(other) {
    return #x in other && this.#x === other.#x && this.#y === other.#y;
  }
}
const p = new Point();
console.log(Point.isPoint(p), Point.isPoint({}), Point.isPoint(Point), Point.isPoint([]));
console.log(Point.brands(p));
console.log(Point.brands(Point));
console.log(Point.brands(Object.create(p)));
console.log(p.equals(new Point()), p.equals({ x: 0, y: 0 }));

// A subclass instance has the fields of its base class; another class with the
// same private name does not share it.
class Point3 extends Point {
  #x = 'other #x';
  static has(o) {
    return #x in o;
  }
}
const p3 = new Point3();
console.log(Point.isPoint(p3), Point3.has(p3), Point3.has(p));

// Precedence: `#x in a in b` is `(#x in a) in b`; it combines with && and ||.
class Flag {
  #on;
  static test(o) {
    return #on in o in { true: 1 } || !(#on in o);
  }
  static arrow(o) {
    const check = () => #on in o;
    return check();
  }
}
console.log(Flag.test(new Flag()), Flag.test({}), Flag.arrow(new Flag()));

// A right side that is not an object is a TypeError.
for (const value of [1, 'abc', undefined, null, true, Symbol('s'), 10n]) {
  try {
    Point.isPoint(value);
  } catch (e) {
    console.log(e.name + ': ' + e.message);
  }
}

// Misuse is a SyntaxError when the code is compiled.
for (const source of [
  '#x in {}',
  'class A { m(o) { return #x in o; } }',
  'class A { #x; m(o) { return #x; } }',
  'class A { #x; m(o) { return (#x) in o; } }',
  'class A { #x; m(o) { return 1 + #x in o; } }',
  'class A { #x; m(o) { return #x < o; } }',
  'class A { #x; m(o) { return #x in #x in o; } }',
  'class A { #x; m(o) { return #x in; } }',
]) {
  try {
    new Function(source);
    console.log('compiled:', source);
  } catch (e) {
    console.log(e.constructor === SyntaxError ? 'SyntaxError:' : e.name, source);
  }
}
