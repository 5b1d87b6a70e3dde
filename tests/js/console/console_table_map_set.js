console.table(new Map([['key', { a: 1 }], [2, 'two']]));
console.table(new Set(['x', { y: 1 }]));
