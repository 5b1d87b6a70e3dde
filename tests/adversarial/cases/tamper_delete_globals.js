const v1 = { a: [1, 2], s: 'str' }, v2 = [3, 'x'], v3 = new Map([[1, { b: 2 }]]), v4 = new Error('shown').message;
const g = globalThis, del = Reflect.deleteProperty;
for (const k of Reflect.ownKeys(g)) {
  if (k !== 'console') del(g, k);
}
console.log('after', 1, v1, v2, v3, v4);
throw new SyntaxError('thrown with no globals left');
