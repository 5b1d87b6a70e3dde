// AggregateError and Promise.any (ES2021).
Error.stackTraceLimit = 0;
const show = (label, f) => {
  try {
    console.log(label, f());
  } catch (e) {
    console.log(label, 'threw', e.name);
  }
};

show('shape', () => [AggregateError.length, AggregateError.name,
  Object.getPrototypeOf(AggregateError) === Error,
  Object.getPrototypeOf(AggregateError.prototype) === Error.prototype,
  AggregateError.prototype.name, AggregateError.prototype.message]);
show('errors', () => {
  const e = new AggregateError(new Set(['a', 'b']), 'two');
  const d = Object.getOwnPropertyDescriptor(e, 'errors');
  return [e.errors, Array.isArray(e.errors), d.enumerable, d.writable, d.configurable, e.message];
});
show('errors copied', () => {
  const list = [1];
  const e = new AggregateError(list);
  list.push(2);
  return [e.errors, e.errors !== list];
});
show('no message', () => Object.hasOwn(new AggregateError([]), 'message'));
show('message converted', () => new AggregateError([], 12).message);
show('called', () => AggregateError([1], 'm') instanceof AggregateError);
show('toString', () => String(new AggregateError([], 'boom')));
show('not iterable', () => new AggregateError(5));
show('no arguments', () => new AggregateError());
show('string errors', () => new AggregateError('ab').errors);
show('subclass', () => {
  class Many extends AggregateError {}
  const e = new Many([1], 'm');
  return [e instanceof Many, e instanceof AggregateError, e instanceof Error, e.errors];
});

// Settles after n turns of the microtask queue.
const later = (v, n, ok = true) => {
  let p = Promise.resolve();
  for (let i = 0; i < n; i++) {
    p = p.then(() => {});
  }
  return p.then(() => (ok ? v : Promise.reject(v)));
};
(async () => {
  console.log('first fulfilled', await Promise.any([Promise.reject(1), later('slow', 20), later('fast', 5)]));
  console.log('values too', await Promise.any([1, Promise.reject(2)]));
  try {
    await Promise.any([Promise.reject(new Error('x')), Promise.reject('y')]);
  } catch (e) {
    console.log('all rejected', e instanceof AggregateError, e.name, e.message, e.errors.length, e.errors[1]);
    console.log(e);
  }
  try {
    await Promise.any([]);
  } catch (e) {
    console.log('empty', e.name, e.message, e.errors);
  }
  try {
    await Promise.any(5);
  } catch (e) {
    console.log('not iterable', e.name);
  }
  console.log('length and name', Promise.any.length, Promise.any.name);
  try {
    await Promise.any.call(undefined, []);
  } catch (e) {
    console.log('bad this', e.name);
  }
  console.log('order of errors', await Promise.any([later('a', 10, false), later('b', 1, false)]).catch((e) => e.errors));
})();
