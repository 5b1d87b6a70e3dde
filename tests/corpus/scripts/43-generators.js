// Lazy pipelines with generators: infinite sequences, take/filter/map, and generator protocol.
function* naturals(start = 1) { for (let n = start; ; n++) yield n; }
function* take(it, n) { if (n <= 0) return; for (const x of it) { yield x; if (--n <= 0) return; } }
function* filter(it, pred) { for (const x of it) if (pred(x)) yield x; }
function* map(it, fn) { for (const x of it) yield fn(x); }
const pipe = (src, ...fns) => fns.reduce((acc, f) => f(acc), src);
const isPrime = (n) => { if (n < 2) return false; for (let d = 2; d * d <= n; d++) if (n % d === 0) return false; return true; };
console.log([...take(filter(naturals(), isPrime), 15)]);
console.log([...pipe(naturals(), (it) => map(it, (n) => n * n), (it) => filter(it, (n) => n % 3 === 1), (it) => take(it, 8))]);
function* fibGen() { let [a, b] = [0, 1]; for (;;) { yield a; [a, b] = [b, a + b]; } }
console.log([...take(fibGen(), 20)].join(','));
function* chunked(it, size) { let buf = []; for (const x of it) { buf.push(x); if (buf.length === size) { yield buf; buf = []; } } if (buf.length) yield buf; }
console.log([...chunked('abcdefgh', 3)]);
function* tree(node, depth = 0) { yield `${'  '.repeat(depth)}${node.name}`; for (const c of node.children ?? []) yield* tree(c, depth + 1); }
const fsTree = { name: 'root', children: [{ name: 'a', children: [{ name: 'a1' }, { name: 'a2' }] }, { name: 'b' }] };
console.log([...tree(fsTree)].join('\n'));
function* conversation() {
  const name = yield 'What is your name?';
  const age = yield `Hello ${name}! Age?`;
  return `${name} is ${age}`;
}
const g = conversation();
console.log(g.next(), g.next('Ann'), g.next(41), g.next());
function* guarded() { try { yield 1; yield 2; } finally { console.log('generator cleanup'); } }
for (const x of guarded()) { console.log('got', x); break; }
const gg = guarded();
gg.next();
try { gg.throw(new Error('injected')); } catch (e) { console.log('thrown out:', e.message); }
console.log(gg.next(), typeof gg[Symbol.iterator], gg[Symbol.iterator]() === gg);
const entries = Object.entries({ a: 1, b: 2 })[Symbol.iterator]();
console.log(entries.next(), [...entries], Object.prototype.toString.call(naturals()));
class Range {
  constructor(from, to, step = 1) { Object.assign(this, { from, to, step }); }
  *[Symbol.iterator]() { for (let v = this.from; v <= this.to; v += this.step) yield v; }
}
const r = new Range(0, 20, 5);
console.log([...r], Math.max(...r), Array.from(r, (x) => x / 5), new Set(r).has(15));
const [first, , third] = naturals(10);
const [x0, ...others] = take(naturals(100), 4);
console.log(first, third, x0, others);
