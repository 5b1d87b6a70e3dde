console.log(new Map([['a', 1], ['b', { c: 2 }]]));
console.log(new Set([1, 2, 'three']));
console.log(new Map(), new Set());
console.log(new Map([[{ k: 1 }, [1, 2]], [NaN, null]]));
console.log({ m: new Map([[1, new Set([2])]]) });
const tagged = new Map([[1, 2]]);
tagged.extra = true;
console.log(tagged);
