// Token-bucket and sliding-window rate limiters driven by a fake clock.
class FakeClock {
  #now = Date.parse('2024-01-01T00:00:00Z');
  now() { return this.#now; }
  advance(ms) { this.#now += ms; return this; }
  get iso() { return new Date(this.#now).toISOString().slice(11, 23); }
}
class TokenBucket {
  constructor({ capacity, refillPerSec, clock }) {
    Object.assign(this, { capacity, refillPerSec, clock });
    this.tokens = capacity;
    this.last = clock.now();
  }
  #refill() {
    const now = this.clock.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.refillPerSec);
    this.last = now;
  }
  tryTake(n = 1) {
    this.#refill();
    if (this.tokens >= n) { this.tokens -= n; return true; }
    return false;
  }
  get waitMs() { this.#refill(); return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.refillPerSec) * 1000); }
}
class SlidingWindow {
  #hits = [];
  constructor(limit, windowMs, clock) { Object.assign(this, { limit, windowMs, clock }); }
  allow() {
    const now = this.clock.now();
    while (this.#hits.length && this.#hits[0] <= now - this.windowMs) this.#hits.shift();
    if (this.#hits.length >= this.limit) return false;
    this.#hits.push(now);
    return true;
  }
  get size() { return this.#hits.length; }
}
const clock = new FakeClock();
const bucket = new TokenBucket({ capacity: 3, refillPerSec: 2, clock });
const schedule = [0, 0, 0, 0, 100, 400, 0, 0, 1000, 0, 0, 0, 0];
const log = schedule.map((dt) => {
  clock.advance(dt);
  const ok = bucket.tryTake();
  return `${clock.iso} ${ok ? 'ok  ' : 'deny'} tokens=${bucket.tokens.toFixed(2)} wait=${bucket.waitMs}`;
});
console.log(log.join('\n'));
const win = new SlidingWindow(2, 1000, clock);
const res = [0, 10, 20, 990, 1, 500, 600].map((dt) => (clock.advance(dt), `${win.allow() ? 'Y' : 'n'}${win.size}`));
console.log(res.join(' '));
console.log(bucket, Object.keys(win));
const calls = [];
const debounce = (fn, wait) => { let t; return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), wait); }; };
const throttle = (fn, wait) => { let last = -Infinity; return (...a) => { const now = clock.now(); if (now - last >= wait) { last = now; fn(...a); } }; };
const th = throttle((x) => calls.push(`throttled ${x}`), 100);
for (const [dt, x] of [[0, 'a'], [50, 'b'], [60, 'c'], [10, 'd'], [200, 'e']]) { clock.advance(dt); th(x); }
const db = debounce((x) => calls.push(`debounced ${x}`), 5);
db(1); db(2); db(3);
await new Promise((r) => setTimeout(r, 20));
console.log(calls);
