// Buffer.from, alloc, concat and the other static methods, and what a Buffer is.
const show = (label, b) => console.log(label, b, b.length);

// Strings in each encoding.
show('utf8', Buffer.from('héllo €'));
show('utf-8', Buffer.from('hi', 'utf-8'));
show('UTF8', Buffer.from('hi', 'UTF8'));
show('hex', Buffer.from('48656C6c6f', 'hex'));
show('hex odd', Buffer.from('abc', 'hex'));
show('hex stops', Buffer.from('ab zz cd', 'hex'));
show('base64', Buffer.from('aGVsbG8gd29ybGQ=', 'base64'));
show('base64 unpadded', Buffer.from('aGVsbG8', 'base64'));
show('base64 spaces', Buffer.from('aGVs\nbG8g\r\nd29y bGQ=', 'base64'));
show('base64 junk', Buffer.from('aGV$sb*G8', 'base64'));
show('base64 stops at =', Buffer.from('aGk=aGk=', 'base64'));
show('base64 url chars', Buffer.from('-_-_', 'base64'));
show('base64url', Buffer.from('PDw_Pz4-', 'base64url'));
show('base64url std chars', Buffer.from('PDw/Pz4+', 'base64url'));
show('latin1', Buffer.from('héllo €', 'latin1'));
show('binary', Buffer.from('\xff\x00', 'binary'));
show('ascii', Buffer.from('héllo', 'ascii'));
show('utf16le', Buffer.from('hé€', 'utf16le'));
show('ucs2', Buffer.from('ab', 'ucs2'));
show('ucs-2', Buffer.from('ab', 'UCS-2'));
show('utf-16le', Buffer.from('😀', 'utf-16le'));
show('empty', Buffer.from(''));
show('empty hex', Buffer.from('', 'hex'));
show('encoding not a string', Buffer.from('hi', 5));
show('encoding empty', Buffer.from('hi', ''));
show('lone surrogate', Buffer.from('a\ud800b'));

// Arrays, array-likes, typed arrays, other Buffers.
show('array', Buffer.from([1, 2, 255, 256, -1, 3.7, '4', 'x']));
show('array-like', Buffer.from({ length: 3, 0: 10, 1: 20 }));
show('length not a number', Buffer.from({ length: 'x' }));
show('toJSON form', Buffer.from({ type: 'Buffer', data: [104, 105] }));
show('Uint16Array', Buffer.from(new Uint16Array([1, 256, 513])));
show('Float64Array', Buffer.from(new Float64Array([1.5, 300])));
const original = Buffer.from('abc');
const copied = Buffer.from(original);
copied[0] = 0x7a;
console.log('copy is separate', original.toString(), copied.toString());
show('String object', Buffer.from(new String('str')));
show('toPrimitive', Buffer.from({ [Symbol.toPrimitive]: () => 'prim' }));
show('valueOf', Buffer.from({ valueOf: () => 'val' }));

// ArrayBuffers: the same memory, with offset and length.
const ab = new ArrayBuffer(8);
const whole = Buffer.from(ab);
const part = Buffer.from(ab, 2, 3);
const tail = Buffer.from(ab, 5);
new Uint8Array(ab).set([1, 2, 3, 4, 5, 6, 7, 8]);
show('ArrayBuffer', whole);
show('ArrayBuffer 2,3', part);
show('ArrayBuffer 5', tail);
console.log('shares', part.buffer === ab, part.byteOffset, Buffer.from(ab, 'x', undefined).length);
show('ArrayBuffer NaN offset', Buffer.from(ab, NaN, 2));
show('ArrayBuffer negative length', Buffer.from(ab, 1, -5));

// alloc and friends.
show('alloc', Buffer.alloc(4));
show('alloc fill number', Buffer.alloc(4, 257));
show('alloc fill string', Buffer.alloc(5, 'ab'));
show('alloc fill hex', Buffer.alloc(5, 'a1b2', 'hex'));
show('alloc fill base64', Buffer.alloc(4, 'aGk=', 'base64'));
show('alloc fill utf8 multibyte', Buffer.alloc(5, '€'));
show('alloc fill buffer', Buffer.alloc(5, Buffer.from([1, 2])));
show('alloc fill empty string', Buffer.alloc(3, ''));
show('alloc 0 with fill', Buffer.alloc(0, 'x'));
show('alloc fraction', Buffer.alloc(2.9));
console.log('allocUnsafe', Buffer.allocUnsafe(10).length, Buffer.allocUnsafeSlow(3).length,
  Buffer.isBuffer(Buffer.allocUnsafe(1)));
show('of', Buffer.of(1, 2, 300));
show('copyBytesFrom', Buffer.copyBytesFrom(new Uint16Array([1, 2, 3]), 1));
show('copyBytesFrom range', Buffer.copyBytesFrom(new Uint8Array([1, 2, 3, 4]), 1, 2));
show('copyBytesFrom past end', Buffer.copyBytesFrom(new Uint8Array([1, 2]), 5));

// concat.
const parts = [Buffer.from('ab'), new Uint8Array([0x63]), Buffer.alloc(0), Buffer.from('de')];
show('concat', Buffer.concat(parts));
show('concat shorter', Buffer.concat(parts, 3));
show('concat longer', Buffer.concat(parts, 8));
show('concat empty', Buffer.concat([]));

// isBuffer, isEncoding, byteLength, compare.
console.log('isBuffer', Buffer.isBuffer(Buffer.alloc(1)), Buffer.isBuffer(new Uint8Array(1)),
  Buffer.isBuffer('x'), Buffer.isBuffer(null), Buffer.isBuffer(Buffer.from('x').subarray(0)));
console.log('isEncoding', ['utf8', 'UTF-8', 'hex', 'Base64', 'base64url', 'latin1', 'binary',
  'ascii', 'ucs2', 'utf16le', 'UTF-16LE', 'utf16', 'buffer', '', null, undefined, 8]
  .map((e) => `${e}:${Buffer.isEncoding(e)}`).join(' '));
console.log('byteLength', Buffer.byteLength('héllo €'), Buffer.byteLength('héllo', 'latin1'),
  Buffer.byteLength('abcd', 'hex'), Buffer.byteLength('abc', 'hex'),
  Buffer.byteLength('aGVsbG8=', 'base64'), Buffer.byteLength('aGVsbG8', 'base64url'),
  Buffer.byteLength('ab', 'utf16le'), Buffer.byteLength('ab', 'ascii'),
  Buffer.byteLength('€', 'nope'), Buffer.byteLength(''), Buffer.byteLength('😀'),
  Buffer.byteLength(new Uint16Array(3)), Buffer.byteLength(new ArrayBuffer(7)),
  Buffer.byteLength(new DataView(new ArrayBuffer(5))));
const sorted = [Buffer.from('b'), Buffer.from('abc'), Buffer.from('ab'), Buffer.from('')]
  .sort(Buffer.compare).map((b) => b.toString());
console.log('compare', sorted, Buffer.compare(Buffer.from('a'), Buffer.from('a')),
  Buffer.compare(new Uint8Array([2]), Buffer.from([1])));

// What a Buffer is.
const b = Buffer.from('xyz');
console.log(b instanceof Buffer, b instanceof Uint8Array, b.constructor === Buffer,
  Object.getPrototypeOf(Buffer) === Uint8Array, Buffer.prototype.constructor === Buffer,
  Object.prototype.toString.call(b), ArrayBuffer.isView(b), Buffer.name, Buffer.length,
  Buffer.poolSize, typeof Buffer.from, Buffer[Symbol.species].name,
  Object.getOwnPropertyDescriptor(globalThis, 'Buffer').enumerable);
console.log(b.map((x) => x + 1), b.filter((x) => x > 120), b.map((x) => x) instanceof Buffer,
  [...b], Array.from(b), b.length, b.byteLength);
const { Buffer: B, kMaxLength, constants, INSPECT_MAX_BYTES, atob: a, btoa: bt } =
  require('buffer');
console.log(B === Buffer, require('node:buffer').Buffer === Buffer, kMaxLength, constants,
  INSPECT_MAX_BYTES, a === atob, bt === btoa, require('buffer').isUtf8(Buffer.from('é')),
  require('buffer').isUtf8(Buffer.from([0xff])), require('buffer').isAscii(Buffer.from('a')),
  require('buffer').isAscii(new Uint8Array([0x80])));
import('node:buffer').then((m) => console.log('import', m.Buffer === Buffer,
  m.default.Buffer === Buffer, typeof m.isUtf8));
import('buffer').then((m) => console.log('import bare', m.Buffer === Buffer));
