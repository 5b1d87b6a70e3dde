// Bad arguments to the timer functions: Node's errors and codes; odd delays become 1 ms.
const t = (label, f) => {
  try {
    const r = f();
    console.log(label, 'ok', typeof r);
  } catch (e) {
    console.log(label, `${e.name} [${e.code}]: ${e.message}`);
  }
};
t('setTimeout()', () => setTimeout());
t('setTimeout(string)', () => setTimeout('console.log(1)', 10));
t('setTimeout(null)', () => setTimeout(null));
t('setTimeout(object)', () => setTimeout({}, 1));
t('setTimeout(array)', () => setTimeout([], 1));
t('setTimeout(number)', () => setTimeout(42));
t('setTimeout(long string)', () => setTimeout('x'.repeat(40)));
t('setTimeout(28 chars)', () => setTimeout('y'.repeat(28)));
t('setTimeout(long symbol)', () => setTimeout(Symbol('z'.repeat(40))));
t('setInterval(true)', () => setInterval(true, 1));
t('setImmediate(symbol)', () => setImmediate(Symbol('s')));
t('setImmediate(1n)', () => setImmediate(1n));
t('queueMicrotask()', () => queueMicrotask());
t('queueMicrotask(class instance)', () => queueMicrotask(new Map()));
t('queueMicrotask(null-proto)', () => queueMicrotask(Object.create(null)));

// Delays that are not a number from 1 to 2^31-1 become 1 ms; numeric strings count.
const order = [];
setTimeout(() => order.push('"30"'), '30');
setTimeout(() => order.push('NaN'), NaN);
setTimeout(() => order.push('-5'), -5);
setTimeout(() => order.push('undefined'), undefined);
setTimeout(() => order.push('{valueOf: 20}'), { valueOf: () => 20 });
setTimeout(() => order.push('"abc"'), 'abc');
setTimeout(() => order.push('10.5'), 10.5);
setTimeout(() => order.push('null'), null);
setTimeout(() => console.log(order.join(', ')), 60);

// Methods keep Node's names and lengths.
for (const f of [setTimeout, setInterval, setImmediate, clearTimeout, clearInterval,
  clearImmediate, queueMicrotask]) {
  console.log(f.name, f.length);
}
const timer = setTimeout(() => {}, 1);
console.log(Object.keys(Object.getPrototypeOf(timer)).length >= 0,
  ['ref', 'unref', 'hasRef', 'refresh', 'close'].map((m) => typeof timer[m]).join(' '),
  typeof timer[Symbol.toPrimitive]);
const immediate = setImmediate(() => {});
console.log(immediate.constructor.name, immediate.hasRef(), immediate.unref() === immediate,
  immediate.hasRef(), immediate.ref().hasRef());
