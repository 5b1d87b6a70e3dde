const v1 = { a: [1, 2], s: 'str' }, v2 = [3, 'x'], v3 = new Map([[1, { b: 2 }]]), v4 = new Error('shown').message;
for (const k of Reflect.ownKeys(String.prototype)) {
  if (k === 'length' || k === 'constructor') continue;
  String.prototype[k] = function () { throw new Error('String.prototype.' + String(k)); };
}
String.fromCharCode = String.raw = () => { throw new Error('String statics'); };
console.log('after', 1, v1, v2, v3, v4);
return 'text\nwith "quotes"';
