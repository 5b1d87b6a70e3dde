// console.log of the values scripts print most often.
console.log(1, -0, 0.1 + 0.2, 1e21, 1e-7, NaN, -Infinity, 123n);
console.log('a string', 'with "quotes"', '', 'multi\nline');
console.log(['a string in an array', "it's", 'multi\nline', '']);
console.log(true, null, undefined);
console.log([1, 'two', [3, [4, [5, [6]]]], { a: null }]);
console.log({ name: 'x', nested: { deep: { deeper: { deepest: 1 } } }, list: [1, 2] });
console.log({ 'key with space': 1, valid_id: 2, 3: 'numeric', [Symbol('sym')]: 4 });
console.log([], {}, [[]], [{}], { a: {} }, [undefined, null]);
console.log(new Array(3), [1, , 3], Object.create(null));
console.log(new Map([['k', 1], [{ o: 1 }, [2]]]), new Set([1, 'a', [2]]));
console.log(new Date(Date.UTC(2024, 0, 15, 10, 30, 45, 123)));
console.log(function named() {}, () => {}, class Foo {}, class extends Array {}, Math.max);
console.log(Symbol('desc'), Symbol(), Symbol.iterator);
console.log(/ab+c/gi, new RegExp('a/b'));
console.log(new Uint8Array([1, 2, 3]), new Float64Array(2), new ArrayBuffer(4));
class Point {
  constructor(x, y) { this.x = x; this.y = y; }
}
console.log(new Point(1, 2), [new Point(3, 4)]);
console.log('%s is %d years and %i days; %f; %j; %o; %%', 'Bob', 42.5, 7.9, 1.5, 'json?', [1]);
console.log('%c styled', 'color: red');
console.log('extra', 'args', { after: 'format' }, 'x');
const long = Array.from({ length: 30 }, (_, i) => i * 1000);
console.log(long);
console.log({ a: 'x'.repeat(30), b: 'y'.repeat(30), c: 'z'.repeat(30) });
console.log([Promise.resolve(5), new Promise(() => {})]);
console.log(new Number(3), new String('boxed'), new Boolean(false), Object(1n));
console.log([0.1, -0, 2 ** 53, 1e300 * 10]);
console.log(new Error('message').message, String(new TypeError('typed')));
