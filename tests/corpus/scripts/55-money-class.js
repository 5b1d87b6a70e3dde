// A value class with Symbol.toPrimitive, valueOf, toString, toJSON, iterators and static factories.
'use strict';
class Money {
  static #rates = { USD: 1, EUR: 1.1, GBP: 1.25 };
  #cents;
  constructor(cents, currency = 'USD') {
    if (!Number.isInteger(cents)) throw new TypeError(`cents must be an integer, got ${cents}`);
    this.#cents = cents;
    this.currency = currency;
    Object.freeze(this);
  }
  static of(amount, currency) { return new Money(Math.round(amount * 100), currency); }
  static parse(str) {
    const m = /^([A-Z]{3})\s*(-?\d+(?:\.\d{1,2})?)$/.exec(str.trim());
    if (!m) throw new SyntaxError(`cannot parse money: ${JSON.stringify(str)}`);
    return Money.of(Number(m[2]), m[1]);
  }
  get amount() { return this.#cents / 100; }
  plus(other) { return new Money(this.#cents + other.to(this.currency).#cents, this.currency); }
  times(k) { return new Money(Math.round(this.#cents * k), this.currency); }
  to(cur) { return cur === this.currency ? this : Money.of((this.amount * Money.#rates[this.currency]) / Money.#rates[cur], cur); }
  [Symbol.toPrimitive](hint) { return hint === 'number' ? this.amount : this.toString(); }
  toString() { return `${this.currency} ${this.amount.toFixed(2)}`; }
  toJSON() { return { amount: this.amount, currency: this.currency }; }
  get [Symbol.toStringTag]() { return 'Money'; }
  static compare(a, b) { return a.to('USD').#cents - b.to('USD').#cents; }
}
const a = Money.of(19.99), b = Money.parse('EUR 5.50'), c = Money.parse('GBP -2');
console.log(`${a} + ${b} = ${a.plus(b)}`, String(c), +a, a * 2, a > b, `${b.to('USD')}`);
console.log(JSON.stringify({ items: [a, b, c] }), Object.prototype.toString.call(a));
console.log([a, b, c, Money.of(0.01)].sort(Money.compare).map(String));
console.log(a, Object.keys(a), Object.isFrozen(a), a.amount, a.times(1.5).toString(), a.times(1 / 3).amount);
for (const bad of ['USD 1.999', '5 USD', '', 'EUR 12']) {
  try { console.log('parsed', Money.parse(bad).toString()); } catch (e) { console.log(e.name, e.message); }
}
try { new Money(1.5); } catch (e) { console.log(e.message); }
try { a.currency = 'EUR'; } catch (e) { console.log('frozen:', e.constructor.name); }
console.log(a.currency);
class Wallet {
  #items = [];
  add(...ms) { this.#items.push(...ms); return this; }
  *[Symbol.iterator]() { yield* this.#items.toSorted(Money.compare); }
  get total() { return this.#items.reduce((sum, m) => sum.plus(m), new Money(0)); }
  get size() { return this.#items.length; }
}
const w = new Wallet().add(a, b, c).add(Money.of(100, 'GBP'));
console.log([...w].map((m) => `${m}`), w.total.toString(), w.size, Math.max(...w), `${[...w][0]}`.length);
console.log(w, `${Money.of(1)}` === Money.of(1).toString(), Money.of(1) == 'USD 1.00', [Money.of(2)] + '');
