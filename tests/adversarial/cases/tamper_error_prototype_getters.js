const v1 = { a: [1, 2], s: 'str' }, v2 = [3, 'x'], v3 = new Map([[1, { b: 2 }]]), v4 = new Error('shown').message;
for (const k of ['name', 'message', 'stack', 'toString']) {
  Object.defineProperty(Error.prototype, k, { get() { throw new Error('getter ' + k); }, configurable: true });
}
console.log('after', 1, v1, v2, v3, v4);
throw new Error('boom');
