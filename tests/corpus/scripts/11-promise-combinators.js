// Fan out fake API calls with Promise.all / allSettled / any / race.
const sleep = (ms, v, fail) => new Promise((res, rej) => setTimeout(() => (fail ? rej(new Error(v)) : res(v)), ms));
const fetchUser = (id) => (id % 3 === 0 ? sleep(5 * id, `user ${id} not found`, true) : sleep(5 * id, { id, name: `user${id}` }));

const ids = [1, 2, 3, 4, 5, 6];
const settled = await Promise.allSettled(ids.map(fetchUser));
console.log(settled.map((r) => r.status));
const ok = settled.filter((r) => r.status === 'fulfilled').map((r) => r.value);
const bad = settled.filter((r) => r.status === 'rejected').map((r) => r.reason.message);
console.log(ok, bad);

try {
  await Promise.all(ids.map(fetchUser));
} catch (e) {
  console.log('all rejected with:', e.message);
}

const fastest = await Promise.race([sleep(30, 'slow'), sleep(10, 'fast'), sleep(20, 'medium')]);
console.log('race:', fastest);
const firstOk = await Promise.any([sleep(5, 'e1', true), sleep(15, 'ok-15'), sleep(10, 'ok-10')]);
console.log('any:', firstOk);
try {
  await Promise.any([sleep(1, 'a', true), Promise.reject(new TypeError('b'))]);
} catch (e) {
  console.log(e instanceof AggregateError, e.name, e.message, e.errors.map((x) => x.message));
}

const withTimeout = (p, ms) => Promise.race([p, sleep(ms, `timed out after ${ms}ms`, true)]);
for (const [delay, limit] of [[10, 50], [60, 20]]) {
  try {
    console.log('got', await withTimeout(sleep(delay, `done in ${delay}`), limit));
  } catch (e) {
    console.log('err', e.message);
  }
}

async function mapLimit(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0, active = 0, maxActive = 0;
  async function worker() {
    while (next < items.length) {
      const i = next++;
      active++; maxActive = Math.max(maxActive, active);
      results[i] = await fn(items[i]);
      active--;
    }
  }
  await Promise.all(Array.from({ length: limit }, worker));
  return { results, maxActive };
}
console.log(await mapLimit([30, 10, 20, 5, 15], 2, (ms) => sleep(ms, ms * 2)));
console.log(await Promise.all([1, Promise.resolve(2), { then: (r) => r(3) }]));
