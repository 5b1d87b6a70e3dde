const v1 = { a: [1, 2], s: 'str' }, v2 = [3, 'x'], v3 = new Map([[1, { b: 2 }]]), v4 = new Error('shown').message;
Array.prototype[Symbol.iterator] = function* () { yield 'HACKED'; };
Object.defineProperty(Array.prototype, Symbol.iterator, { get() { throw new Error('iterator'); } });
console.log('after', 1, v1, v2, v3, v4);
return [1, 2, 3];
