const v1 = { a: [1, 2], s: 'str' }, v2 = [3, 'x'], v3 = new Map([[1, { b: 2 }]]), v4 = new Error('shown').message;
for (const k of Reflect.ownKeys(Array.prototype)) {
  if (k === 'length' || k === 'constructor') continue;
  Array.prototype[k] = function () { throw new Error('Array.prototype.' + String(k)); };
}
Array.isArray = () => { throw new Error('isArray'); };
Array.from = Array.of = Array.isArray;
console.log('after', 1, v1, v2, v3, v4);
return [1, [2], { a: 3 }];
