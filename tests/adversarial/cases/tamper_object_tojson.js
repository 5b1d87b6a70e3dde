// toJSON is honoured, as JSON.stringify must: the value is what toJSON gives.
// The console does not call it.
const v1 = { a: [1, 2], s: 'str' }, v2 = [3, 'x'], v3 = new Map([[1, { b: 2 }]]), v4 = new Error('shown').message;
Object.prototype.toJSON = function () { return 'HACKED'; };
console.log('after', 1, v1, v2, v3, v4);
return { a: 1 };
