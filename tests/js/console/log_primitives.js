console.log(42, -0, 0, NaN, Infinity, -1.5, 1e21, 0.1 + 0.2);
console.log(10n, -3n, true, false, null, undefined);
console.log(Symbol('tag'), Symbol(), Symbol.iterator);
console.log('top-level strings are printed raw: \'quotes\' "kept"');
console.log([-0, 0, NaN, 5e-7, 123n]);
