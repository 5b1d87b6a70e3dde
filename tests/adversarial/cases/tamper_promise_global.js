const v1 = { a: [1, 2], s: 'str' }, v2 = [3, 'x'], v3 = new Map([[1, { b: 2 }]]), v4 = new Error('shown').message;
globalThis.Promise = function () { throw new Error('no promises'); };
Promise.resolve = null;
async function f() { return 2; }
const v = await f();
console.log('after', 1, v1, v2, v3, v4);
return v * 21;
