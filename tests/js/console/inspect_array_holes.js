console.log([1, , 3]);
console.log([, , 1, , , ]);
const sparse = [];
sparse[3] = 'x';
sparse[10] = 'y';
console.log(sparse);
console.log(new Array(5));
