// Ordering of sync code, microtasks, timers and awaits.
const out = [];
const log = (s) => out.push(s);
log('sync 1');
setTimeout(() => log('timeout 0'), 0);
setTimeout(() => {
  log('timeout 10');
  queueMicrotask(() => log('micro in timeout 10'));
  Promise.resolve().then(() => log('then in timeout 10'));
}, 10);
setTimeout(() => log('timeout 5'), 5);
setTimeout(() => log('timeout 10b'), 10);
queueMicrotask(() => log('microtask 1'));
Promise.resolve().then(() => log('then 1')).then(() => log('then 2'));
queueMicrotask(() => log('microtask 2'));
(async () => {
  log('async start');
  await null;
  log('after await 1');
  await new Promise((r) => setTimeout(r, 7));
  log('after 7ms');
})();
log('sync 2');
await new Promise((r) => setTimeout(r, 30));
log('main resumed');

const iv = [];
let n = 0;
await new Promise((resolve) => {
  const h = setInterval(() => {
    iv.push(++n);
    if (n === 3) { clearInterval(h); resolve(); }
  }, 3);
});
const t = setTimeout(() => log('never'), 1);
clearTimeout(t);
console.log(out.join('\n'));
console.log('interval ticks', iv);

const order = [];
await new Promise((done) => {
  setTimeout(() => {
    setTimeout(() => order.push('timeout'), 0);
    setImmediate(() => order.push('immediate'));
    queueMicrotask(() => order.push('micro'));
    setTimeout(done, 20);
  }, 0);
});
console.log(order);
