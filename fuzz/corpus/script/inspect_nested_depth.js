console.log({ l1: { l2: { l3: { l4: 'hidden' } } } });
console.log([[[[1]]]], [[[[]]]], [[[{}]]]);
console.log({ a: { b: { arr: [1], obj: { x: 1 }, map: new Map([[1, 2]]) } } });
class Deep { constructor() { this.inner = 1; } }
console.log({ a: { b: { c: new Deep() } } });
