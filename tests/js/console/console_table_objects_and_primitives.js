console.table({ first: { v: 1 }, second: { v: 2, w: 'x' } });
console.table([1, 'two', { three: 3 }, null]);
console.table([[1, 2], [3, 4, 5]]);
console.table([]);
console.table('not tabular');
console.table(42);
