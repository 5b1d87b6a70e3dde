console.log('%s|%s|%s|%s', 'str', 42, -0, 7n);
console.log('%s|%s|%s', null, undefined, Symbol('s'));
console.log('%s', { a: { b: 1 } });
console.log('%s', [1, [2, [3]]]);
console.log('%s', { toString() { return 'custom toString'; } });
console.log('%s', new Date(0));
class Money { toString() { return '$5'; } }
console.log('price: %s', new Money());
