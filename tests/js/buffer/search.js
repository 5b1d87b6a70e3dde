// equals, compare, indexOf, lastIndexOf and includes.
const a = Buffer.from('abcabc');
console.log(a.equals(Buffer.from('abcabc')), a.equals(Buffer.from('abc')), a.equals(a),
  a.equals(new Uint8Array([97, 98, 99, 97, 98, 99])), Buffer.alloc(0).equals(new Uint8Array(0)));
const x = Buffer.from('bcd');
console.log(a.compare(x), x.compare(a), a.compare(a), a.compare(Buffer.from('abcabc')),
  a.compare(x, 0, 2, 1, 3), a.compare(x, 0, 2, 1, 2), a.compare(x, 1, 1, 0, 0),
  a.compare(x, 2, 2, 0, 1), a.compare(x, 0, 1, 3, 3), a.compare(x, undefined, undefined, 4),
  a.compare(new Uint8Array([0x61])), a.compare(x, 5, 3));

// Strings, in several encodings.
const s = Buffer.from('hello world, hello €uro');
for (const args of [['hello'], ['hello', 1], ['hello', -10], ['world', 7], ['€'], ['o', 5],
  [''], ['', 3], ['', 100], ['xyz'], ['hello world, hello €uro!'], ['6c6c', 'hex'],
  ['6c6c', 0, 'hex'], ['bGw=', 'base64'], ['bGw', 'base64url'], ['l', 'latin1'],
  ['lo', 'ascii'], ['€', 'latin1'], ['o', 1.9], ['o', null], ['o', {}],
  ['o', -1], ['o', 1e10], ['o', -1e10]]) {
  console.log(JSON.stringify(args), s.indexOf(...args), s.lastIndexOf(...args),
    s.includes(...args));
}
// Numbers: the low byte of the value.
for (const args of [[0x6f], [0x6f, 5], [0x16f], [-145], [111.8], [0x6f, -3], [0x6f, -100],
  [0x6f, 100], [0xff]]) {
  console.log('number', JSON.stringify(args), s.indexOf(...args), s.lastIndexOf(...args),
    s.includes(...args));
}
// Buffers and Uint8Arrays.
for (const [needle, ...rest] of [[Buffer.from('lo')], [Buffer.from('lo'), 4],
  [new Uint8Array([0x2c, 0x20])], [Buffer.alloc(0)], [Buffer.alloc(0), 4],
  [Buffer.from('nope')]]) {
  console.log('buffer', needle, rest, s.indexOf(needle, ...rest),
    s.lastIndexOf(needle, ...rest), s.includes(needle, ...rest));
}
// UTF-16: matches only at code unit boundaries.
const u = Buffer.from('abcabc', 'utf16le');
console.log(u.indexOf('c', 'utf16le'), u.lastIndexOf('c', 'ucs2'), u.indexOf('bc', 3, 'utf16le'),
  u.indexOf(Buffer.from([0x00, 0x62]), 'utf16le'), u.indexOf(Buffer.from([0x00, 0x62])),
  u.indexOf('c', -4, 'utf16le'), u.lastIndexOf('a', 5, 'utf16le'), u.includes('ca', 'ucs2'));
// Empty buffers.
const e = Buffer.alloc(0);
console.log(e.indexOf('a'), e.indexOf(''), e.lastIndexOf(''), e.indexOf(0), e.includes(e));
// Searching for every needle in a longer buffer.
const hay = Buffer.from('ab'.repeat(1000) + 'needle' + 'ab'.repeat(1000) + 'needle');
console.log(hay.indexOf('needle'), hay.lastIndexOf('needle'), hay.indexOf('needle', 2007),
  hay.lastIndexOf('needle', 4005), hay.indexOf(Buffer.from('eedl')), hay.lastIndexOf('ab'));
