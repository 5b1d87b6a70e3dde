console.assert(true, 'not printed');
console.assert(false);
console.assert(0, 'failed: %s = %d', 'x', 42);
console.assert(null, { reason: 'object' });
console.assert('', 'plain message', 'and more');
