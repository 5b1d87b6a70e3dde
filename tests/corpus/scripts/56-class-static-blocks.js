// A unit-conversion registry built with class static blocks, private state and
// `#x in obj` brand checks (ES2022), as an agent would write one.
class Unit {
  static #byName = new Map();
  #name;
  #factor;
  #dimension;
  constructor(name, dimension, factor) {
    this.#name = name;
    this.#dimension = dimension;
    this.#factor = factor;
  }
  static {
    const table = {
      length: { m: 1, km: 1000, cm: 0.01, mi: 1609.344, ft: 0.3048 },
      mass: { kg: 1, g: 0.001, lb: 0.45359237 },
      time: { s: 1, min: 60, h: 3600, d: 86400 },
    };
    for (const [dimension, units] of Object.entries(table)) {
      for (const [name, factor] of Object.entries(units)) {
        Unit.#byName.set(name, new Unit(name, dimension, factor));
      }
    }
  }
  static get(name) {
    const unit = Unit.#byName.get(name);
    if (!unit) throw new RangeError(`unknown unit: ${name}`);
    return unit;
  }
  static isUnit(value) {
    return value !== null && typeof value === 'object' && #name in value;
  }
  static get names() {
    return [...Unit.#byName.keys()].sort();
  }
  get name() {
    return this.#name;
  }
  convert(value, target) {
    if (!Unit.isUnit(target)) target = Unit.get(target);
    if (target.#dimension !== this.#dimension) {
      throw new TypeError(`cannot convert ${this.#dimension} (${this.#name}) to ${target.#dimension} (${target.#name})`);
    }
    return (value * this.#factor) / target.#factor;
  }
}

class Quantity {
  static #count = 0;
  static precision;
  static {
    // Configuration read once, when the class is defined.
    const config = JSON.parse('{"precision": 3, "verbose": false}');
    this.precision = config.precision;
    this.verbose = config.verbose;
  }
  #value;
  #unit;
  constructor(value, unit) {
    this.#value = value;
    this.#unit = Unit.get(unit);
    Quantity.#count++;
  }
  static parse(text) {
    const m = /^\s*(-?\d+(?:\.\d+)?)\s*([a-z]+)\s*$/.exec(text);
    if (!m) throw new SyntaxError(`not a quantity: ${JSON.stringify(text)}`);
    return new Quantity(Number(m[1]), m[2]);
  }
  static created() {
    return Quantity.#count;
  }
  to(unit) {
    return new Quantity(this.#unit.convert(this.#value, unit), unit);
  }
  plus(other) {
    if (!(#value in other)) throw new TypeError('not a Quantity');
    return new Quantity(this.#value + other.#unit.convert(other.#value, this.#unit), this.#unit.name);
  }
  toString() {
    return `${Number(this.#value.toFixed(Quantity.precision))} ${this.#unit.name}`;
  }
}

console.log('units:', Unit.names.join(', '));
const trip = ['12.5 km', '3 mi', '800 m', '5280 ft'].map(Quantity.parse);
const total = trip.reduce((sum, q) => sum.plus(q));
console.log('trip legs:', trip.map(String));
console.log('total:', String(total), '=', String(total.to('mi')), '=', String(total.to('m')));
console.log('a day in minutes:', String(new Quantity(1, 'd').to('min')));
console.log('brand checks:', Unit.isUnit(Unit.get('kg')), Unit.isUnit({ name: 'kg' }), Unit.isUnit(null));
for (const bad of [() => Quantity.parse('ten km'), () => new Quantity(1, 'kg').to('m'), () => Unit.get('parsec'), () => total.plus({ value: 1 })]) {
  try {
    bad();
  } catch (e) {
    console.log(`${e.name}: ${e.message}`);
  }
}
console.log('quantities created:', Quantity.created(), 'precision:', Quantity.precision, 'verbose:', Quantity.verbose);
