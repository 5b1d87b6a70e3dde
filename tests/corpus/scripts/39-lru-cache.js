// An LRU cache with TTL built on Map insertion order, plus a memoising wrapper with stats.
class LRU {
  #map = new Map();
  #hits = 0;
  #misses = 0;
  constructor(max = 3, now = () => 0) { this.max = max; this.now = now; }
  get(key) {
    const e = this.#map.get(key);
    if (!e || (e.expires && e.expires <= this.now())) {
      if (e) this.#map.delete(key);
      this.#misses++;
      return undefined;
    }
    this.#map.delete(key);
    this.#map.set(key, e);
    this.#hits++;
    return e.value;
  }
  set(key, value, ttl) {
    this.#map.delete(key);
    this.#map.set(key, { value, expires: ttl ? this.now() + ttl : 0 });
    while (this.#map.size > this.max) this.#map.delete(this.#map.keys().next().value);
    return this;
  }
  get keys() { return [...this.#map.keys()]; }
  get stats() { const total = this.#hits + this.#misses; return { hits: this.#hits, misses: this.#misses, ratio: total ? +(this.#hits / total).toFixed(3) : 0 }; }
  *[Symbol.iterator]() { for (const [k, e] of this.#map) yield [k, e.value]; }
  get [Symbol.toStringTag]() { return 'LRU'; }
}
let t = 0;
const c = new LRU(3, () => t);
c.set('a', 1).set('b', 2).set('c', 3);
console.log(c.keys, c.get('a'), c.keys);
c.set('d', 4);
console.log(c.keys, c.get('b'), c.get('c'));
c.set('e', 5, 100);
t = 50;
console.log(c.get('e'));
t = 150;
console.log(c.get('e'), c.keys, [...c], String(c), Object.prototype.toString.call(c));
console.log(c.stats);

function memoize(fn, cache = new LRU(100)) {
  return function (...args) {
    const key = JSON.stringify(args);
    let v = cache.get(key);
    if (v === undefined) { v = fn.apply(this, args); cache.set(key, v); }
    return v;
  };
}
let slowCalls = 0;
const cache2 = new LRU(2);
const slowSquare = memoize((n) => { slowCalls++; return n * n; }, cache2);
console.log([1, 2, 1, 3, 1, 2, 2].map((n) => slowSquare(n)), slowCalls, cache2.stats, cache2.keys);
const wm = new WeakMap();
const objKey = { id: 1 };
wm.set(objKey, 'meta');
console.log(wm.get(objKey), wm.has({ id: 1 }), wm);
const registry = new Map([[NaN, 'nan'], [0, 'zero']]);
console.log(registry.get(NaN), registry.get(-0), registry.size, [...registry.entries()]);
