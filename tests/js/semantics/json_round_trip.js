// JSON.stringify and JSON.parse: round trips, replacers, revivers, escapes.
const value = {
  str: 'line\nbreak "quoted" \\ tab\t é 😀 \u0001 \u007f \u2028',
  num: [0, -0, 1.5, 1e21, 1e-7, -1e-7, 2 ** 53, 0.1 + 0.2],
  special: [NaN, Infinity, undefined, () => 1, Symbol('s'), null],
  nested: { empty: {}, list: [], deep: { deeper: [[1, [2, [3]]]] } },
  bool: [true, false],
  skipped: undefined,
};
const text = JSON.stringify(value);
console.log(text);
const back = JSON.parse(text);
console.log(JSON.stringify(back) === text, back.str === value.str, back.num[1], Object.is(back.num[1], 0));
console.log(JSON.stringify(value.nested, null, 2));
console.log(JSON.stringify([1, { a: [] }], null, '--'), JSON.stringify({ a: 1 }, null, 20).split('\n')[1].length);
console.log(JSON.stringify({ b: 2, a: 1, c: { b: 1, a: 2 } }, ['a', 'c']));
console.log(JSON.stringify({ keep: 1, drop: 2, n: 3 }, (k, v) => (k === 'drop' ? undefined : typeof v === 'number' ? v * 10 : v)));
console.log(JSON.parse('{"a":[1,2,{"b":3}],"c":"d"}', function (k, v) {
  return typeof v === 'number' ? v + 100 : v;
}));
const order = [];
JSON.parse('{"x":{"y":1},"z":[2]}', (k, v) => { order.push(k === '' ? '(root)' : k); return v; });
console.log(order.join(' '));

// Escapes: lone surrogates are escaped (well-formed stringify); other characters stay.
console.log(JSON.stringify('\ud800'), JSON.stringify('\udc00x'), JSON.stringify('😀'), JSON.stringify('\u2028\u2029'));
console.log(JSON.stringify('\b\f\n\r\t\v\0\x1f'), JSON.parse('"\\u00e9\\ud83d\\ude00\\/"'));
console.log(JSON.parse(' [1 , 2 ] '), JSON.parse('"plain"'), JSON.parse('-0'), JSON.parse('1E3'), JSON.parse('null'));
console.log(JSON.parse('{"__proto__": 1}').__proto__, Object.keys(JSON.parse('{"a":1,"a":2}')), JSON.parse('{"a":1,"a":2}').a);

// toJSON, dates, boxed primitives, maps, errors, getters.
class Money {
  constructor(cents) { this.cents = cents; }
  toJSON(key) { return `${key || 'root'}:${(this.cents / 100).toFixed(2)}`; }
}
console.log(JSON.stringify({ price: new Money(1999), list: [new Money(5)] }), JSON.stringify(new Money(1)));
console.log(JSON.stringify({ d: new Date(Date.UTC(2020, 1, 29)), n: new Number(5), s: new String('s'), b: new Boolean(true) }));
console.log(JSON.stringify({ m: new Map([[1, 2]]), e: new Error('msg'), g: { get x() { return 'got'; } }, re: /re/ }));
console.log(JSON.stringify(undefined), JSON.stringify(() => {}), JSON.stringify(null), JSON.stringify('s'), JSON.stringify([undefined]));

// Invalid input: the error classes (messages are engine-specific).
for (const bad of ['', '{', '[1,]', "{'a':1}", '{"a":1,}', 'undefined', 'NaN', '01', '"\t"', '1 2', '{"a" 1}', '\u00a0 1']) {
  try {
    JSON.parse(bad);
    console.log('parsed', JSON.stringify(bad));
  } catch (e) {
    console.log(e.constructor.name, JSON.stringify(bad));
  }
}
const cyclic = { name: 'c' };
cyclic.self = cyclic;
try {
  JSON.stringify(cyclic);
} catch (e) {
  console.log(e.constructor.name);
}
try {
  JSON.stringify({ n: 1n });
} catch (e) {
  console.log(e.constructor.name);
}
BigInt.prototype.toJSON = function () { return `${this}n`; };
console.log(JSON.stringify({ n: 10n ** 20n }));
delete BigInt.prototype.toJSON;

// Deep nesting within the stack survives a round trip.
let deep = [];
for (let i = 0; i < 1000; i++) deep = [deep];
console.log(JSON.stringify(JSON.parse(JSON.stringify(deep))).length);
