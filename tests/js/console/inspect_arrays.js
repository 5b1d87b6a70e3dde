console.log([1, 2, 3]);
console.log([]);
console.log([[]], [{}], [[1, 2], [3, 4]]);
console.log(['a', 1, true, null, undefined, 2n]);
console.log(new Array(3));
