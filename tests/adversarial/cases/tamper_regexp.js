const v1 = { a: [1, 2], s: 'str' }, v2 = [3, 'x'], v3 = new Map([[1, { b: 2 }]]), v4 = new Error('shown').message;
RegExp.prototype.exec = () => { throw new Error('exec'); };
RegExp.prototype.test = () => { throw new Error('test'); };
RegExp.prototype[Symbol.replace] = RegExp.prototype[Symbol.split] = RegExp.prototype.exec;
RegExp.prototype[Symbol.match] = RegExp.prototype[Symbol.search] = RegExp.prototype.exec;
console.log('after', 1, v1, v2, v3, v4);
return 'fine';
