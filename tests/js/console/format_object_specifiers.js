const deep = { a: { b: { c: { d: { e: { f: 1 } } } } } };
console.log('%O', deep);
console.log('%o', deep);
console.log('%o', [1, 2, 3]);
console.log('%o', 'string');
console.log('%O and %O', [1], { x: 'y' });
