const data = { b: 2, a: { deep: { deeper: { deepest: 1 } } }, get g() { return 'got'; } };
console.dir(data);
console.dir(data, { depth: 0 });
console.dir(data, { depth: null });
console.dir(data, { sorted: true, getters: true });
console.dir(data, { compact: false });
console.dir({ [Symbol.for('nodejs.util.inspect.custom')]() { return 'ignored by dir'; } });
console.dir('a string is inspected');
console.dir([1, 2, 3, 4], { maxArrayLength: 2 });
