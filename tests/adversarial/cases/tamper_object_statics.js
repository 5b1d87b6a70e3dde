const v1 = { a: [1, 2], s: 'str' }, v2 = [3, 'x'], v3 = new Map([[1, { b: 2 }]]), v4 = new Error('shown').message;
for (const k of Reflect.ownKeys(Object)) {
  if (k === 'length' || k === 'name' || k === 'prototype') continue;
  Object[k] = function () { throw new Error('Object.' + String(k)); };
}
Reflect.ownKeys = Reflect.getOwnPropertyDescriptor = Reflect.apply = Object.keys;
console.log('after', 1, v1, v2, v3, v4);
return { a: 1, b: [2] };
