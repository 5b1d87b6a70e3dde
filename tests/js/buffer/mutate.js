// slice and subarray (shared memory), fill, copy, swap, toJSON and iteration.
const b = Buffer.from('abcdefgh');
const sl = b.slice(2, 5);
const sub = b.subarray(-3);
sl[0] = 0x43;
sub[2] = 0x48;
console.log(b.toString(), sl, sub, sl instanceof Buffer, sub.constructor.name,
  sl.buffer === b.buffer, sl.byteOffset - b.byteOffset, sl.offset - b.offset,
  sl.parent === b.buffer);
for (const args of [[], [3], [-2], [1, -1], [5, 2], [-100, 100], [1.9, 3.9], ['1', '3'],
  [NaN, 2], [undefined, 2], [2, undefined], [null, null], [8], [0, 0]]) {
  console.log('slice', JSON.stringify(args), b.slice(...args).toString(),
    b.subarray(...args).length);
}
console.log(Uint8Array.prototype.slice.call(b, 1, 3), b.slice(1, 3).slice(1));

// fill.
const f = (label, fn) => {
  const buf = Buffer.alloc(8, '.');
  const r = fn(buf);
  console.log(label, r === buf, JSON.stringify(buf.toString('latin1')));
};
f('number', (buf) => buf.fill(0x41));
f('number range', (buf) => buf.fill(0x41, 2, 4));
f('number wraps', (buf) => buf.fill(0x141, 6));
f('string', (buf) => buf.fill('xy'));
f('string offset', (buf) => buf.fill('xy', 3));
f('string encoding second', (buf) => buf.fill('6162', 'hex'));
f('string encoding third', (buf) => buf.fill('6162', 1, 'hex'));
f('string encoding fourth', (buf) => buf.fill('6162', 1, 6, 'hex'));
f('latin1 char', (buf) => buf.fill('é', 'latin1'));
f('utf8 multibyte', (buf) => buf.fill('é'));
f('utf16le', (buf) => buf.fill('a', 'utf16le'));
f('base64', (buf) => buf.fill('YWJj', 'base64'));
f('empty string', (buf) => buf.fill(''));
f('buffer', (buf) => buf.fill(Buffer.from('123')));
f('Uint16Array', (buf) => buf.fill(new Uint16Array([0x4142])));
f('boolean', (buf) => buf.fill(true));
f('undefined', (buf) => buf.fill());
f('empty range', (buf) => buf.fill('z', 5, 5));
f('backwards range', (buf) => buf.fill('z', 6, 2));
f('pattern longer than range', (buf) => buf.fill('abcdef', 5));

// copy: clamped to both buffers, overlapping copies within one buffer.
const c = (label, fn) => {
  const src = Buffer.from('0123456789');
  const dst = Buffer.alloc(6, '.');
  const n = fn(src, dst);
  console.log(label, n, src.toString(), dst.toString());
};
c('whole', (src, dst) => src.copy(dst));
c('targetStart', (src, dst) => src.copy(dst, 4));
c('source range', (src, dst) => src.copy(dst, 1, 3, 5));
c('targetStart past end', (src, dst) => src.copy(dst, 6));
c('sourceEnd past end', (src, dst) => src.copy(dst, 0, 8, 20));
c('empty range', (src, dst) => src.copy(dst, 0, 5, 5));
c('coerced', (src, dst) => src.copy(dst, '1', 2.7, '4'));
c('NaN', (src, dst) => src.copy(dst, NaN, NaN));
c('overlap forward', (src) => src.copy(src, 2, 0, 6));
c('overlap backward', (src) => src.copy(src, 0, 4));
c('into Uint8Array', (src) => {
  const u = new Uint8Array(3);
  const n = src.copy(u, 1);
  console.log(u);
  return n;
});

// swap16, swap32, swap64.
const sw = Buffer.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
console.log(Buffer.from(sw).swap16(), Buffer.from(sw).swap32(), Buffer.from(sw).swap64(),
  sw.swap16() === sw);

// toJSON and JSON.
const j = Buffer.from('hi!');
console.log(j.toJSON(), JSON.stringify(j), JSON.stringify({ data: j, n: 1 }),
  Buffer.from(JSON.parse(JSON.stringify(j))).toString(), JSON.stringify(Buffer.alloc(0)));
console.log(JSON.parse(JSON.stringify({ b: j }), (k, v) =>
  (v && v.type === 'Buffer' ? Buffer.from(v.data) : v)));

// Iteration and the typed array methods.
const it = Buffer.from('xyz');
const seen = [];
for (const byte of it) seen.push(byte);
console.log(seen, [...it.keys()], [...it.entries()], it.at(-1), it.reverse().toString(),
  it.sort().toString(), it.join('-'), Object.keys(Buffer.from('ab')),
  Buffer.from('ba').sort() instanceof Buffer, it.every((v) => v > 0));
