console.log('%s and %s', 'one');
console.log('%s', 'one', 'two', 3, { four: 4 });
console.log('%s:%s', 'a', 'b', 'c');
console.log('%d', 1, '%d', 2);
