// Every object becomes a thenable whose `then` getter throws: returning an
// object rejects the run with that error, as in any JavaScript engine.
const v1 = { a: [1, 2], s: 'str' }, v2 = [3, 'x'], v3 = new Map([[1, { b: 2 }]]), v4 = new Error('shown').message;
Object.defineProperty(Object.prototype, 'then', { get() { throw new Error('then getter'); }, configurable: true });
console.log('after', 1, v1, v2, v3, v4);
return { a: 1 };
