// The console's custom inspect hook, made hostile on Object.prototype.
const v1 = { a: [1, 2], s: 'str' }, v2 = [3, 'x'], v3 = new Map([[1, { b: 2 }]]), v4 = new Error('shown').message;
Object.prototype[Symbol.for('nodejs.util.inspect.custom')] = function () { throw new Error('custom inspect'); };
console.log('after', 1, v1, v2, v3, v4);
return 'fine';
