// Promise.withResolvers (ES2024). Node 20 does not have it: the expected output was
// written by hand from the specification (NewPromiseCapability), in the layout Node
// 20's console gives those values.
const show = (label, f) => {
  try {
    console.log(label, f());
  } catch (e) {
    console.log(label, 'threw', e.name);
  }
};

(async () => {
  const r = Promise.withResolvers();
  console.log('keys', Object.keys(r), Object.getPrototypeOf(r) === Object.prototype);
  console.log('types', r.promise instanceof Promise, typeof r.resolve, typeof r.reject);
  console.log('resolver lengths', r.resolve.length, r.reject.length);
  r.resolve('done');
  r.resolve('ignored');
  r.reject(new Error('ignored'));
  console.log('resolved', await r.promise);

  const f = Promise.withResolvers();
  f.reject(new RangeError('failed'));
  try {
    await f.promise;
  } catch (e) {
    console.log('rejected', e.name, e.message);
  }

  const t = Promise.withResolvers();
  t.resolve(Promise.resolve('inner'));
  console.log('thenable adopted', await t.promise);

  const order = [];
  const d = Promise.withResolvers();
  d.promise.then((v) => order.push(`then ${v}`));
  order.push('before');
  d.resolve(1);
  order.push('after');
  await d.promise;
  await null;
  console.log('order', order.join(', '));

  show('shape', () => {
    const desc = Object.getOwnPropertyDescriptor(Promise, 'withResolvers');
    return [Promise.withResolvers.length, Promise.withResolvers.name, desc.writable,
      desc.enumerable, desc.configurable, Object.hasOwn(Promise.withResolvers, 'prototype')];
  });
  show('new', () => new Promise.withResolvers());

  class MyPromise extends Promise {}
  show('subclass', () => {
    const s = MyPromise.withResolvers();
    return [s.promise instanceof MyPromise, s.promise.constructor.name];
  });
  show('custom constructor', () => {
    const log = [];
    function NotPromise(executor) {
      log.push(`executor length ${executor.length}`);
      executor(() => log.push('resolve called'), () => {});
    }
    const c = Promise.withResolvers.call(NotPromise);
    c.resolve();
    return [c.promise instanceof NotPromise, log];
  });
  show('executor called twice', () => Promise.withResolvers.call(function (executor) {
    executor(() => {}, () => {});
    executor(() => {}, () => {});
  }));
  show('executor given undefined first', () => Promise.withResolvers.call(function (executor) {
    executor(undefined, undefined);
    executor(() => {}, () => {});
  }).resolve !== undefined);
  show('resolve not callable', () => Promise.withResolvers.call(function (executor) {
    executor(1, () => {});
  }));
  show('reject not callable', () => Promise.withResolvers.call(function (executor) {
    executor(() => {}, {});
  }));
  show('this undefined', () => Promise.withResolvers.call(undefined));
  show('this not a constructor', () => Promise.withResolvers.call(() => {}));
  show('this an object', () => Promise.withResolvers.call({}));
  show('detached', () => {
    const { withResolvers } = Promise;
    return withResolvers();
  });
})();
