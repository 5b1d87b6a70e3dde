console.log('%j', { a: [1, 'two'], b: null });
console.log('%j %j', 'str', 5);
console.log('%j', undefined);
const circular = { name: 'loop' };
circular.self = circular;
console.log('%j', circular);
console.log('%j', { toJSON() { return 'from toJSON'; } });
