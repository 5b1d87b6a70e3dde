// JSON.parse and JSON.stringify errors in V8's words. Expected: Node's output.
const parse = (text) => {
  try {
    console.log(JSON.stringify(JSON.parse(text)));
  } catch (e) {
    console.log(`${e.name}: ${e.message}`);
  }
};
parse('');
parse('   ');
parse('{');
parse('[');
parse('{"a":1,}');
parse('[1, 2,]');
parse('[1, 2');
parse('{"a":1');
parse('{"a" 1}');
parse("{'a': 1}");
parse('{a: 1}');
parse('{"a": tru}');
parse('{"a": True}');
parse('nul');
parse('01');
parse('-');
parse('1.');
parse('1e+');
parse('.5');
parse('"abc');
parse('"a\\qb"');
parse('"\\u12G4"');
parse('"tab\there"');
parse('{"a":1} x');
parse('[1] [2]');
parse('undefined');
parse('NaN');
parse('Infinity');
parse('[object Object]');
parse(undefined);
parse({});
parse('<html><body>Not Found</body></html>');
parse('{"name": "value", "other": oops, "more": "stuff here"}');
parse('{"name": "value", "other": "fine", "last": x}');
parse('{"name": "ünïcødé", "x": ?}');
parse('{"emoji": "😀😀", "x": ?, "padding": "to make it long"}');
parse('{"valid": true}');

const stringify = (value) => {
  try {
    console.log(JSON.stringify(value));
  } catch (e) {
    console.log(`${e.name}: ${e.message}`);
  }
};
const self = { name: 'self' };
self.me = self;
stringify(self);
const parent = { child: { items: [] } };
parent.child.items.push({ up: parent });
stringify(parent);
class Node {
  constructor(name) {
    this.name = name;
    this.next = null;
  }
}
const a = new Node('a');
const b = new Node('b');
const c = new Node('c');
const d = new Node('d');
const e = new Node('e');
a.next = b;
b.next = c;
c.next = d;
d.next = e;
e.next = a;
stringify(a);
const arr = [1];
arr.push(arr);
stringify(arr);
const keyed = { '': {} };
keyed[''].back = keyed;
stringify({ wrap: keyed });
const bare = Object.create(null);
bare.loop = bare;
stringify(bare);
stringify({ id: 10n });
stringify([1n]);
