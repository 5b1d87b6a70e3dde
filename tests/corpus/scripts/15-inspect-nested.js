// console.log of the kinds of nested values an agent prints while exploring data.
const data = {
  id: 'run-1',
  count: 3,
  ok: true,
  nothing: null,
  undef: undefined,
  list: [1, 'two', { three: 3 }, [4, [5, [6, [7]]]]],
  nested: { a: { b: { c: { d: { e: 'deep' } } } } },
  map: new Map([['k1', { v: 1 }], [{ obj: true }, [1, 2]]]),
  set: new Set(['x', 42, null]),
  date: new Date('2024-01-02T03:04:05.006Z'),
  re: /^a.*z$/m,
  sym: Symbol('tag'),
  big: 12345678901234567890n,
  fn: function helper() {},
  arrow: () => {},
  negzero: -0,
  str: "it's \"quoted\"\n",
};
console.log(data);
console.log([data.nested], { depth1: { depth2: { depth3: { depth4: 1 } } } });
console.log('%o', { a: [1, 2], b: 'x' });
console.log('%O', { a: { b: { c: { d: {} } } } });
console.log(new Array(5), [1, , 3, , , 6], Object.assign([1, 2], { extra: 'prop' }));
console.log(Array.from({ length: 30 }, (_, i) => i * i));
console.log(Array.from({ length: 120 }, (_, i) => i).length, Array.from({ length: 101 }, (_, i) => i % 7));
console.log('a'.repeat(100).split(''), ['short', 'words', 'in', 'a', 'list', 'of', 'more', 'than', 'six', 'items']);
console.log({ [Symbol('s')]: 1, 'key with space': 2, valid_id: 3, 42: 4, 'émoji🙂': 5 });
console.log(Object.create(null), Object.assign(Object.create(null), { x: 1 }), new (class Point { constructor() { this.x = 1; } })());
console.log([new Map(), new Set(), {}, [], '', new WeakMap()]);
console.log(new Map([[1, new Map([[2, new Map([[3, new Map([[4, 'x']])]])]])]]));
console.log([1.5, -0, 0, NaN, Infinity, 1e21, 1e-7, 0.1 + 0.2]);
console.log(String(Symbol('d')), `${[1, [2, 3]]}`, String({}), [null, undefined].join('-'));
console.log(new Uint8Array([1, 2, 3]), new Float64Array(2), new ArrayBuffer(4));
console.log([Promise.resolve(4), Promise.reject(new Error('x')).catch(() => {}) && 'rejected handled', new Promise(() => {})]);
