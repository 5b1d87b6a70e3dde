// async/await chains, microtask order and the Promise combinators.
const log = [];
const delay = (v) => Promise.resolve().then(() => v);

async function chain() {
  const a = await delay(1);
  const b = await delay(a + 1);
  const c = await (async () => b * 10)();
  return [a, b, c];
}

// Microtask order: synchronous code first, then reactions in the order queued.
Promise.resolve().then(() => log.push('then 1')).then(() => log.push('then 3'));
Promise.resolve().then(() => log.push('then 2'));
queueMicrotaskLike(() => log.push('queued'));
log.push('sync');
function queueMicrotaskLike(fn) {
  Promise.resolve().then(fn);
}

async function main() {
  console.log(await chain());
  console.log(log.join(', '));

  // Errors flow through await into try/catch, and through .catch.
  async function failing() {
    await null;
    throw new TypeError('async failure');
  }
  try {
    await failing();
  } catch (e) {
    console.log('caught', e.name, e.message);
  }
  console.log(await failing().catch((e) => `via catch: ${e.message}`));
  console.log(await Promise.reject(new Error('x')).then(() => 'no', (e) => `onRejected: ${e.message}`));
  console.log(await Promise.resolve('v').finally(() => 'ignored'));

  const settled = (v, ok = true) => (ok ? delay(v) : delay().then(() => { throw new Error(v); }));
  console.log(await Promise.all([settled(1), 2, settled(3)]));
  console.log(await Promise.all([]));
  try {
    await Promise.all([settled(1), settled('first failure', false), settled('second', false)]);
  } catch (e) {
    console.log('all rejected with', e.message);
  }

  const slow = new Promise((resolve) => {
    let n = 0;
    const spin = () => (++n < 5 ? Promise.resolve().then(spin) : resolve('slow'));
    spin();
  });
  console.log(await Promise.race([slow, delay('fast')]));
  console.log(await Promise.race([settled('race loser', false), new Promise(() => {})]).catch((e) => e.message));

  const results = await Promise.allSettled([settled('ok'), settled('bad', false), 3]);
  console.log(JSON.stringify(results.map((r) => r.status === 'fulfilled' ? [r.status, r.value] : [r.status, r.reason.message])));

  console.log(await Promise.any([settled('no', false), settled('yes'), settled('also')]));
  try {
    await Promise.any([settled('a', false), Promise.reject(new Error('b'))]);
  } catch (e) {
    console.log(e.constructor.name, e.errors.map((x) => x.message));
  }
  try {
    await Promise.any([]);
  } catch (e) {
    console.log(e.constructor.name, e.errors.length);
  }

  // Thenables are adopted; await on a non-promise still yields to the queue.
  const thenable = { then(resolve) { resolve('from thenable'); } };
  console.log(await thenable);
  const order = [];
  const p = (async () => { order.push('a1'); await undefined; order.push('a2'); })();
  order.push('after call');
  await p;
  console.log(order.join(' '));

  // Async iteration.
  async function* countdown(n) {
    while (n > 0) {
      await null;
      yield n--;
    }
  }
  const got = [];
  for await (const x of countdown(3)) {
    got.push(x);
  }
  for await (const x of [delay('p'), 'plain']) {
    got.push(x);
  }
  console.log(got);

  // Promise.resolve returns the same promise; a resolved value is unwrapped once.
  const base = Promise.resolve(1);
  console.log(Promise.resolve(base) === base, await Promise.resolve(Promise.resolve(Promise.resolve('deep'))));
}
main();
