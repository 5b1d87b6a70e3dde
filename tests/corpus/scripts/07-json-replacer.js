// JSON round-trips: replacers, revivers, indentation, toJSON, and safe stringify of cycles.
const config = {
  name: 'svc',
  port: 8080,
  secret: 'hunter2',
  started: new Date('2024-05-01T00:00:00Z'),
  tags: new Set(['a', 'b']),
  limits: { cpu: 0.5, mem: 512, nested: { deep: [1, { x: undefined, y: null }] } },
  fn() {},
  big: undefined,
};
console.log(JSON.stringify(config));
console.log(JSON.stringify(config, (k, v) => (k === 'secret' ? '***' : v instanceof Set ? [...v] : v), 2));
console.log(JSON.stringify(config, ['name', 'port', 'limits', 'cpu'], '\t'));
console.log(JSON.stringify([undefined, () => 1, Symbol('s'), NaN, -0, Infinity]));

const text = '{"when":"2024-05-01T12:30:00.000Z","count":"42","items":[{"id":1},{"id":2}]}';
const revived = JSON.parse(text, (k, v) => {
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v)) return new Date(v);
  if (k === 'count') return Number(v);
  return v;
});
console.log(revived, revived.when instanceof Date);

class Money {
  constructor(cents, cur) { this.cents = cents; this.cur = cur; }
  toJSON() { return `${(this.cents / 100).toFixed(2)} ${this.cur}`; }
}
console.log(JSON.stringify({ total: new Money(12345, 'USD'), items: [new Money(5, 'EUR')] }, null, 1));

function safeStringify(obj) {
  const seen = new WeakSet();
  return JSON.stringify(obj, (k, v) => {
    if (typeof v === 'object' && v !== null) {
      if (seen.has(v)) return '[Circular]';
      seen.add(v);
    }
    return v;
  });
}
const a = { id: 'a' };
a.self = a;
a.list = [a, { b: a }];
console.log(safeStringify(a));
try { JSON.stringify(a); } catch (e) { console.log(e.name, e instanceof TypeError); }
try { JSON.parse('{"a":1,}'); } catch (e) { console.log(e.name); }
console.log(JSON.stringify('he said "hi"\n\u2028'), JSON.stringify({ '': 1, 'a b': [] }));
