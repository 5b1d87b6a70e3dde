// toString in each encoding and over ranges, write, and round trips through strings.
const b = Buffer.from('héllo wörld €😀');
for (const enc of ['utf8', 'hex', 'base64', 'base64url', 'latin1', 'binary', 'ascii',
  'utf16le', 'ucs2', 'UTF-8', 'HEX']) {
  console.log(enc, JSON.stringify(b.toString(enc)));
}
console.log(b.toString(), `${b}`, String(b), b + '!', b.toLocaleString('hex'));

// Ranges: start and end clamp, truncate and coerce as Node's.
const abc = Buffer.from('abcdef');
for (const [s, e] of [[1, 3], [-1, 2], [2], [undefined, 4], [4, 2], [0, 100], [10, 12],
  [1.7, 3.9], ['1', '3'], [NaN, NaN], [null, null], [2, undefined], [-5, -1]]) {
  console.log('range', s, e, JSON.stringify(abc.toString('utf8', s, e)),
    JSON.stringify(abc.toString(undefined, s, e)), abc.toString('hex', s, e));
}

// Decoding what is not valid UTF-8, a byte order mark, odd UTF-16 lengths, high ASCII.
console.log(JSON.stringify(Buffer.from([0x61, 0xff, 0xc3, 0x28, 0xe2, 0x82, 0x62, 0xf0,
  0x9f, 0x98]).toString()));
console.log(JSON.stringify(Buffer.from([0xef, 0xbb, 0xbf, 0x41]).toString()));
console.log(JSON.stringify(Buffer.from([0x61, 0x00, 0x62]).toString('utf16le')));
console.log(JSON.stringify(Buffer.from([0x00, 0xd8, 0x61, 0x00]).toString('utf16le')));
console.log(JSON.stringify(Buffer.from([0x00, 0x61, 0x00, 0x62, 0x00]).subarray(1)
  .toString('utf16le')));
console.log(JSON.stringify(Buffer.from([0xe9, 0xff, 0x41, 0x80]).toString('ascii')));
console.log(JSON.stringify(Buffer.from([0xe9, 0xff, 0x41, 0x80]).toString('latin1')));

// Round trips.
const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
for (const enc of ['hex', 'base64', 'base64url', 'latin1']) {
  const text = bytes.toString(enc);
  console.log('round trip', enc, text.length, Buffer.from(text, enc).equals(bytes));
}
for (const n of [0, 1, 2, 3, 4, 5]) {
  const s = bytes.subarray(250, 250 + n);
  console.log('base64', n, s.toString('base64'), s.toString('base64url'),
    Buffer.from(s.toString('base64'), 'base64').equals(s),
    Buffer.from(s.toString('base64url'), 'base64url').equals(s));
}
const text = 'Grüße, 世界! 😀';
console.log(Buffer.from(text).toString() === text,
  Buffer.from(text, 'utf16le').toString('utf16le') === text,
  Buffer.from(Buffer.from(text).toString('hex'), 'hex').toString());
const big = Buffer.alloc(100000, 'xyz€');
console.log(big.toString().length, big.toString('hex').length, big.toString('base64').length,
  big.toString('latin1').length, big.toString('ucs2').length,
  Buffer.from(big.toString('base64'), 'base64').equals(big));
console.log(Buffer.from('aGVsbG8=', 'base64').toString(), atob(Buffer.from('hi').toString('base64')),
  Buffer.from(btoa('hi'), 'base64').toString());

// write: offset, length and encoding in their different places.
const w = (label, f) => {
  const buf = Buffer.alloc(8, '.');
  const n = f(buf);
  console.log(label, n, JSON.stringify(buf.toString('latin1')), buf);
};
w('plain', (buf) => buf.write('hello'));
w('too long', (buf) => buf.write('hello world'));
w('offset', (buf) => buf.write('hi', 3));
w('offset length', (buf) => buf.write('hello', 2, 3));
w('length past end', (buf) => buf.write('hello', 6, 5));
w('offset at end', (buf) => buf.write('hello', 8));
w('encoding second', (buf) => buf.write('6869', 'hex'));
w('encoding third', (buf) => buf.write('6869', 1, 'hex'));
w('encoding fourth', (buf) => buf.write('6869', 1, 1, 'hex'));
w('hex stops', (buf) => buf.write('61zz62', 'hex'));
w('hex invalid', (buf) => buf.write('zz', 'hex'));
w('base64', (buf) => buf.write('aGVsbG8gd29ybGQ=', 'base64'));
w('base64url', (buf) => buf.write('_-8', 2, 'base64url'));
w('latin1', (buf) => buf.write('é€x', 'latin1'));
w('ascii', (buf) => buf.write('é€x', 'ascii'));
w('utf16le', (buf) => buf.write('abcde', 'utf16le'));
w('utf16le odd', (buf) => buf.write('abc', 0, 3, 'ucs2'));
w('utf8 partial char', (buf) => buf.write('abcdef€', 0));
w('utf8 partial char length', (buf) => buf.write('a€b', 1, 3));
w('utf8 emoji cut', (buf) => buf.write('abcde😀'));
w('undefined encoding', (buf) => buf.write('hi', 0, 2, undefined));
w('empty', (buf) => buf.write(''));
w('length 0', (buf) => buf.write('abc', 1, 0));
w('utf8Write', (buf) => buf.utf8Write('xyz', 1));
w('latin1Write', (buf) => buf.latin1Write('é', 7));
w('hexWrite', (buf) => buf.hexWrite('ab', 0, 1));
console.log(Buffer.from('hello').hexSlice(1, 3), Buffer.from('hello').utf8Slice(),
  Buffer.from('hello').base64Slice(0, 2), Buffer.from('hi').ucs2Slice(),
  Buffer.from('hi').latin1Slice(1), Buffer.from('hi').asciiSlice(0, 1),
  Buffer.from('hi').base64urlSlice());
