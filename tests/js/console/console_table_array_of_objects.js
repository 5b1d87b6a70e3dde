console.table([{ name: 'ann', age: 31 }, { name: 'bob', city: 'Oslo' }]);
console.table([{ a: 1, b: 2 }, { a: 3, b: 4 }], ['a']);
console.table([{ nested: { x: 1 }, list: [1, 2, 3, 4] }]);
