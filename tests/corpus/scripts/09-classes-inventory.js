// A small inventory model with inheritance, getters, statics and private fields.
class Item {
  #price;
  static count = 0;
  static registry = new Map();
  constructor(sku, name, price) {
    this.sku = sku;
    this.name = name;
    this.#price = price;
    Item.count++;
    Item.registry.set(sku, this);
  }
  get price() { return this.#price; }
  set price(v) {
    if (!(v >= 0)) throw new RangeError(`invalid price for ${this.sku}: ${v}`);
    this.#price = v;
  }
  #label() { return `${this.name} ($${this.#price.toFixed(2)})`; }
  describe() { return `[${this.constructor.name}] ${this.#label()}`; }
  static find(sku) { return Item.registry.get(sku) ?? null; }
  static compare(a, b) { return a.#price - b.#price; }
}
class Perishable extends Item {
  constructor(sku, name, price, expires) {
    super(sku, name, price);
    this.expires = expires;
  }
  describe() { return `${super.describe()} exp ${this.expires}`; }
  get isExpired() { return this.expires < '2024-06-01'; }
}
class Bundle extends Item {
  #items;
  constructor(sku, name, items, discount = 0.1) {
    super(sku, name, items.reduce((s, i) => s + i.price, 0) * (1 - discount));
    this.#items = items;
  }
  get size() { return this.#items.length; }
}

const milk = new Perishable('P1', 'Milk', 2.49, '2024-05-20');
const pen = new Item('I1', 'Pen', 1.2);
const pad = new Item('I2', 'Notepad', 3.75);
const kit = new Bundle('B1', 'Office kit', [pen, pad]);
const all = [milk, pen, pad, kit];
all.sort(Item.compare).forEach((i) => console.log(i.describe()));
console.log(Item.count, Item.find('I2')?.name, Item.find('nope'));
console.log(milk.isExpired, kit.size, kit instanceof Item, Object.getPrototypeOf(Bundle) === Item);
console.log(milk, kit);
console.log(Object.keys(pen), JSON.stringify(pen), 'price' in pen, Object.hasOwn(pen, 'price'));
try { pen.price = -1; } catch (e) { console.log(e.name + ': ' + e.message); }
pen.price = 1.5;
console.log(pen.price, Item.registry.size, [...Item.registry.keys()]);
try { Item.compare(pen, { price: 1 }); } catch (e) { console.log(e.constructor.name); }
