// A tiny event emitter and a state machine built on classes.
class Emitter {
  #handlers = new Map();
  on(evt, fn) {
    if (!this.#handlers.has(evt)) this.#handlers.set(evt, []);
    this.#handlers.get(evt).push(fn);
    return () => this.off(evt, fn);
  }
  once(evt, fn) {
    const off = this.on(evt, (...args) => { off(); fn(...args); });
    return off;
  }
  off(evt, fn) {
    const list = this.#handlers.get(evt) ?? [];
    const i = list.indexOf(fn);
    if (i >= 0) list.splice(i, 1);
  }
  emit(evt, ...args) {
    const list = [...(this.#handlers.get(evt) ?? [])];
    for (const fn of list) fn.apply(this, args);
    return list.length;
  }
  listenerCount(evt) { return this.#handlers.get(evt)?.length ?? 0; }
}

class Order extends Emitter {
  static transitions = { new: ['paid', 'cancelled'], paid: ['shipped', 'refunded'], shipped: ['delivered'] };
  state = 'new';
  log = [];
  constructor(id) { super(); this.id = id; }
  to(next) {
    const allowed = Order.transitions[this.state] ?? [];
    if (!allowed.includes(next)) {
      this.emit('error', new Error(`cannot go from ${this.state} to ${next}`));
      return false;
    }
    const prev = this.state;
    this.state = next;
    this.emit('change', prev, next);
    return true;
  }
}

const o = new Order('A-17');
o.on('change', function (from, to) { this.log.push(`${from}->${to}`); });
o.once('change', (from, to) => console.log('first change:', from, to));
o.on('error', (e) => console.log('error:', e.message));
console.log(o.listenerCount('change'));
['paid', 'delivered', 'shipped', 'delivered', 'refunded'].forEach((s) => o.to(s));
console.log(o.state, o.log, o.listenerCount('change'));
console.log(o);
console.log(Object.getOwnPropertyNames(Order.prototype), typeof Order, Order.name, Emitter.prototype.isPrototypeOf(o));
