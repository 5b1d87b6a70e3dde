// Species constructors are looked up by map, filter, then: hostile ones here.
const v1 = { a: [1, 2], s: 'str' }, v2 = [3, 'x'], v3 = new Map([[1, { b: 2 }]]), v4 = new Error('shown').message;
Object.defineProperty(Array, Symbol.species, { get() { throw new Error('Array species'); } });
Object.defineProperty(Promise, Symbol.species, { get() { throw new Error('Promise species'); } });
console.log('after', 1, v1, v2, v3, v4);
return await Promise.resolve([1, 2]);
