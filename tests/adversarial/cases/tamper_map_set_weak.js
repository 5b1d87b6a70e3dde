const v1 = { a: [1, 2], s: 'str' }, v2 = [3, 'x'], v3 = new Map([[1, { b: 2 }]]), v4 = new Error('shown').message;
for (const C of [Map, Set, WeakMap, WeakSet]) {
  for (const k of Reflect.ownKeys(C.prototype)) {
    if (k === 'constructor' || k === 'size') continue;
    C.prototype[k] = function () { throw new Error(C.name + '.' + String(k)); };
  }
}
console.log('after', 1, v1, v2, v3, v4);
return { m: 1 };
