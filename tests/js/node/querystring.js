// node:querystring, against Node's own results.
const qs = require('node:querystring');
console.log(qs === require('querystring'), Object.keys(qs).sort().join());
for (const s of ['a=1&b=2&a=3', 'x=%20y+z&empty=&flag', 'a[b]=1&%E2%82%AC=euro', '&&a=1&&',
  'bad=%zz&u=%C3', '']) {
  console.log(JSON.stringify(s), qs.parse(s));
}
console.log(qs.parse('a:1;b:2', ';', ':'));
console.log(qs.parse('a=1&b=2&c=3', null, null, { maxKeys: 2 }));
console.log(qs.stringify({ a: [1, 2], b: 'x y', c: '€', d: true, e: null, f: undefined, g: {} }));
console.log(qs.stringify({ a: 1, b: 2 }, ';', ':'));
console.log(qs.stringify('not an object'), qs.stringify({ 'k y': "!'()*~" }));
console.log(qs.escape('a b&c/d?é'), qs.unescape('a%20b%zz+c'));
console.log(qs.encode === qs.stringify, qs.decode === qs.parse);
