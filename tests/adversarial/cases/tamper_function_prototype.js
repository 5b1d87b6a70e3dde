const v1 = { a: [1, 2], s: 'str' }, v2 = [3, 'x'], v3 = new Map([[1, { b: 2 }]]), v4 = new Error('shown').message;
Function.prototype.call = Function.prototype.apply = Function.prototype.bind = function () {
  throw new Error('Function.prototype');
};
Function.prototype.toString = () => { throw new Error('toString'); };
console.log('after', 1, v1, v2, v3, v4);
return 'fine';
