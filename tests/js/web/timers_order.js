// Timers, immediates and microtasks run in Node's order: equal delays in creation order,
// shorter delays first, microtasks after each callback, immediates after the timers phase.
const log = [];
const done = () => console.log(log.join('\n'));

setTimeout(() => log.push('t10 a'), 10);
setTimeout(() => log.push('t1'), 1);
setTimeout(() => log.push('t10 b'), 10);
setTimeout(() => log.push('t0 (1 ms)'), 0);
setTimeout((x, y, z) => log.push(`args ${x} ${y} ${z}`), 5, 'one', 2, [3]);
setTimeout(function () {
  log.push(`this is the Timeout: ${this.constructor.name}, hasRef ${this.hasRef()}`);
}, 5);

// Microtasks queued by a timer run before the next timer.
setTimeout(() => {
  log.push('t20 a');
  Promise.resolve().then(() => log.push('  promise after t20 a'));
  queueMicrotask(() => log.push('  microtask after t20 a'));
}, 20);
setTimeout(() => log.push('t20 b'), 20);

// Inside a timer callback, an immediate comes before a new zero-delay timer.
setTimeout(() => {
  log.push('t30');
  setTimeout(() => log.push('  timeout from t30'), 0);
  setImmediate(() => {
    log.push('  immediate from t30');
    Promise.resolve().then(() => log.push('  promise after the immediate'));
  });
}, 30);

// clearTimeout, clearInterval, by object and by number.
const cancelled = setTimeout(() => log.push('never: cleared'), 15);
clearTimeout(cancelled);
const byNumber = setTimeout(() => log.push('never: cleared by number'), 15);
clearTimeout(+byNumber);
const imm = setImmediate(() => log.push('never: cleared immediate'));
clearImmediate(imm);
clearTimeout(undefined);
clearTimeout(null);
clearTimeout('nonsense');
clearTimeout({});
clearImmediate(undefined);
clearInterval(12345);

// An interval stops when cleared from its own callback.
let ticks = 0;
const iv = setInterval((tag) => {
  ticks++;
  log.push(`interval ${tag} ${ticks}`);
  if (ticks === 3) clearInterval(iv);
}, 60, 'x');

// An unref'd timer does not keep the run alive; ref() brings it back.
setTimeout(() => log.push('never: unref'), 10000).unref();
const reffed = setTimeout(() => log.push('ref again fires'), 300);
reffed.unref();
console.log('hasRef after unref:', reffed.hasRef());
reffed.ref();
console.log('hasRef after ref:', reffed.hasRef());

// refresh() restarts the delay; close() clears.
const refreshed = setTimeout(() => log.push('refreshed timer fired once'), 200);
setTimeout(() => refreshed.refresh(), 150);
setTimeout(() => log.push('never: closed'), 50).close();

// Microtasks before any timer; the main script's own microtasks first.
queueMicrotask(() => log.push('microtask 1'));
Promise.resolve().then(() => log.push('promise 1'));
queueMicrotask(() => log.push('microtask 2'));
log.push('sync');

setTimeout(done, 500);
console.log(typeof setTimeout(() => {}, 1), typeof +setTimeout(() => {}, 1));
