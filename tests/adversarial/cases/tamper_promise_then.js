// await and the run's own promise do not go through Promise.prototype.then.
const v1 = { a: [1, 2], s: 'str' }, v2 = [3, 'x'], v3 = new Map([[1, { b: 2 }]]), v4 = new Error('shown').message;
Promise.prototype.then = function () { throw new Error('then replaced'); };
const v = await Promise.resolve(41);
console.log('after', 1, v1, v2, v3, v4);
return v + 1;
