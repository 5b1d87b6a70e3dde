// console.dir with no depth limit on a very deep structure.
let a = {};
for (let i = 0; i < 1e5; i++) a = { a };
console.dir(a, { depth: Infinity });
