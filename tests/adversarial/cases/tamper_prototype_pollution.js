const v1 = { a: [1, 2], s: 'str' }, v2 = [3, 'x'], v3 = new Map([[1, { b: 2 }]]), v4 = new Error('shown').message;
Object.prototype.polluted = 'yes';
Object.prototype.name = 'polluted name';
Object.prototype.message = 'polluted message';
Object.prototype.stack = 'polluted stack';
Array.prototype.extra = 'extra';
console.log('after', 1, v1, v2, v3, v4);
return { a: [1, 2] };
