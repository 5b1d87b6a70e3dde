// The RegExp `d` flag (hasIndices, ES2022) and the shape of match results: own
// properties index, input, groups, then indices, in that order, as V8 makes them.
const re = /(?<year>\d{4})-(?<month>\d{2})(-(?<day>\d{2}))?/d;
const m = re.exec('due 2024-03, paid 2024-04-15');
console.log(m);
console.log(Object.keys(m), m.indices.length);
console.log(m.indices[0], m.indices.groups.year, m.indices.groups.day);
console.log(Object.getPrototypeOf(m.indices.groups), Object.keys(m.indices));

// Without named groups, groups is undefined in the result and in indices.
const plain = /b(c)?/d.exec('abc');
console.log(plain, plain.indices.groups);

// Without `d` there are no indices.
const noD = /(?<word>\w+)/.exec('hello world');
console.log(noD, 'indices' in noD);

// flags lists d first; hasIndices is a getter on RegExp.prototype.
console.log(/x/dgimsuy.flags, new RegExp('x', 'yd').flags, /x/d.hasIndices, /x/g.hasIndices);
const desc = Object.getOwnPropertyDescriptor(RegExp.prototype, 'hasIndices');
console.log(typeof desc.get, desc.set, desc.enumerable, desc.configurable, RegExp.prototype.hasIndices);
try {
  desc.get.call({});
} catch (e) {
  console.log(e.name);
}
try {
  new RegExp('x', 'dd');
} catch (e) {
  console.log(e.name);
}
console.log(String(/a(b)/dg), new RegExp(/a/d).hasIndices, new RegExp(/a/d, 'g').hasIndices);

// match, matchAll and replace with indices.
console.log('a1b22'.match(/\d+/d).indices);
for (const r of 'x=1, yy=22'.matchAll(/(?<key>\w+)=(?<value>\d+)/dg)) {
  console.log(r.index, r.indices.groups.key, r.indices.groups.value);
}
console.log('2024-03-07'.replace(/(?<y>\d+)-(?<m>\d+)-(?<d>\d+)/d, '$<d>/$<m>/$<y>'));
console.log('a,b;c'.split(/[,;]/d), /ab/dy.test('xab'), /(?:)/d.exec('')?.indices);

// Unicode: indices count UTF-16 code units.
const u = /(?<e>é+)(😀)/du.exec('caféé😀!');
console.log(u.index, u.indices, u.indices.groups.e);

// Match results printed by console.log show index, input and groups in this order.
console.log('2024'.match(/\d\d/g), 'abc'.match(/(?<first>a)(z)?/));
