const v1 = { a: [1, 2], s: 'str' }, v2 = [3, 'x'], v3 = new Map([[1, { b: 2 }]]), v4 = new Error('shown').message;
for (const k of Reflect.ownKeys(globalThis)) {
  const v = globalThis[k];
  try { Object.freeze(v); if (v && v.prototype) Object.freeze(v.prototype); } catch {}
}
Object.freeze(Object.prototype);
Object.freeze(Function.prototype);
Object.freeze(globalThis);
console.log('after', 1, v1, v2, v3, v4);
return 'frozen';
