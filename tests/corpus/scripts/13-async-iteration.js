// Paginated API consumed with async generators and for await.
const pages = {
  1: { items: ['a', 'b', 'c'], next: 2 },
  2: { items: ['d', 'e'], next: 3 },
  3: { items: ['f'], next: null },
};
const fetchPage = (n) => new Promise((r) => setTimeout(() => r(structuredClone(pages[n])), 2));

async function* paginate(start = 1) {
  let page = start;
  while (page != null) {
    const { items, next } = await fetchPage(page);
    console.log(`fetched page ${page} (${items.length})`);
    yield* items;
    page = next;
  }
}

const seen = [];
for await (const item of paginate()) {
  seen.push(item.toUpperCase());
  if (seen.length === 4) console.log('halfway', seen);
}
console.log(seen);

async function* take(iter, n) {
  let i = 0;
  for await (const x of iter) {
    if (i++ >= n) return;
    yield x;
  }
}
async function* mapAsync(iter, fn) { for await (const x of iter) yield await fn(x); }
const firstTwo = [];
for await (const x of take(mapAsync(paginate(), async (s) => s + s), 2)) firstTwo.push(x);
console.log(firstTwo);

const collect = async (iter) => { const out = []; for await (const x of iter) out.push(x); return out; };
console.log(await collect(paginate(2)));
console.log(await Promise.all([1, Promise.resolve(2), 3].map(async (x) => (await x) * 10)));

for await (const v of [Promise.resolve('p1'), 'plain', new Promise((r) => setTimeout(() => r('late'), 1))]) console.log('value', v);

const ticker = {
  [Symbol.asyncIterator]() {
    let n = 0;
    return {
      next: () => new Promise((r) => setTimeout(() => r(n < 3 ? { value: n++, done: false } : { value: undefined, done: true }), 1)),
      return: () => { console.log('ticker closed'); return Promise.resolve({ done: true }); },
    };
  },
};
for await (const t of ticker) { console.log('tick', t); if (t === 1) break; }
const gen = paginate(3);
console.log(Object.prototype.toString.call(gen), typeof gen.next, await gen.next(), await gen.next());
