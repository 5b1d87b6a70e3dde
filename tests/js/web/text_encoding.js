// TextEncoder and TextDecoder: UTF-8 both ways, lone surrogates, invalid bytes, the BOM,
// streaming, the other encodings, and bad arguments.
const enc = new TextEncoder();
console.log(enc.encoding, enc, new TextDecoder(), new TextDecoder('utf-16', { fatal: true }));
console.log(enc.encode('héllo €𝄞'), enc.encode(), enc.encode(undefined), enc.encode(null),
  enc.encode(123));
console.log(enc.encode('a\uD800b\uDC00c\uD83D'), enc.encode('\uD83D\uDE00'));
const big = 'añ€😀'.repeat(10000);
console.log(enc.encode(big).length, new TextDecoder().decode(enc.encode(big)) === big);

// encodeInto writes whole code points only.
for (const size of [0, 1, 2, 3, 4, 5, 8]) {
  const dest = new Uint8Array(size);
  console.log(size, enc.encodeInto('a€😀', dest), dest);
}
const offsetView = new Uint8Array(new ArrayBuffer(8), 2, 4);
console.log(enc.encodeInto('xyz', offsetView), new Uint8Array(offsetView.buffer));

const dec = new TextDecoder();
console.log(dec.encoding, dec.fatal, dec.ignoreBOM);
console.log(JSON.stringify(dec.decode(new Uint8Array([0x68, 0xc3, 0xa9, 0xe2, 0x82, 0xac]))));
console.log(JSON.stringify(dec.decode()), JSON.stringify(dec.decode(new Uint8Array(0))));
console.log(dec.decode(new Uint8Array([0x61, 0x62]).buffer),
  dec.decode(new DataView(new Uint8Array([0x63, 0x64]).buffer)),
  dec.decode(new Uint16Array([0x6261])), dec.decode(new Uint8Array([0, 0x41, 0x42, 0]).subarray(1, 3)));

// Invalid UTF-8: one U+FFFD per maximal invalid subsequence.
const cases = [
  [0xff], [0xc0, 0x80], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82], [0xe2, 0x82, 0x41], [0xf0, 0x9f, 0x98], [0x80, 0x80], [0xc2],
  [0x61, 0xf5, 0x62], [0xf0, 0x9f, 0x98, 0x80, 0xf0, 0x9f],
];
for (const bytes of cases) {
  const text = dec.decode(new Uint8Array(bytes));
  console.log(bytes.map((b) => b.toString(16)).join(' '), '->', JSON.stringify(text),
    [...text].map((ch) => ch.codePointAt(0).toString(16)).join(' '));
}

// fatal throws instead.
const fatal = new TextDecoder('utf-8', { fatal: true });
for (const bytes of [[0xff], [0xe2, 0x82], [0x61, 0x62]]) {
  try {
    console.log(fatal.decode(new Uint8Array(bytes)));
  } catch (e) {
    console.log(`${e.name} [${e.code}]: ${e.message}`);
  }
}

// The BOM is removed unless ignoreBOM; only at the start of a stream.
const withBom = new Uint8Array([0xef, 0xbb, 0xbf, 0x41, 0xef, 0xbb, 0xbf, 0x42]);
console.log(JSON.stringify(dec.decode(withBom)));
console.log(JSON.stringify(new TextDecoder('utf-8', { ignoreBOM: true }).decode(withBom)));

// Streaming: a sequence split across chunks is kept until complete.
const streaming = new TextDecoder();
const euro = [0xe2, 0x82, 0xac];
const parts = [];
parts.push(streaming.decode(new Uint8Array([0xef, 0xbb]), { stream: true }));
parts.push(streaming.decode(new Uint8Array([0xbf, 0x41, euro[0]]), { stream: true }));
parts.push(streaming.decode(new Uint8Array([euro[1]]), { stream: true }));
parts.push(streaming.decode(new Uint8Array([euro[2], 0xf0, 0x9f]), { stream: true }));
parts.push(streaming.decode(new Uint8Array([0x98, 0x80]), { stream: true }));
parts.push(streaming.decode(new Uint8Array([0xe2])));
console.log(JSON.stringify(parts));
// After a flush the next stream starts afresh (its BOM is removed again).
console.log(JSON.stringify(streaming.decode(withBom)));

// Other encodings: UTF-16LE and windows-1252 (latin1, ascii).
const u16 = new TextDecoder('utf-16le');
console.log(u16.encoding, JSON.stringify(u16.decode(new Uint8Array([0xff, 0xfe, 0x41, 0, 0x3d, 0xd8, 0, 0xde]))));
console.log(JSON.stringify(u16.decode(new Uint8Array([0x41, 0, 0x3d, 0xd8, 0x42]))));
const u16stream = new TextDecoder('utf-16');
console.log(JSON.stringify([u16stream.decode(new Uint8Array([0x41, 0, 0x3d]), { stream: true }),
  u16stream.decode(new Uint8Array([0xd8, 0, 0xde]), { stream: true }), u16stream.decode()]));
for (const label of ['latin1', 'ascii', 'ISO-8859-1', ' windows-1252 ', 'UTF8', 'unicode-1-1-utf-8']) {
  const d = new TextDecoder(label);
  console.log(JSON.stringify(label), d.encoding, JSON.stringify(d.decode(new Uint8Array([0x41, 0xa9, 0xe9, 0xff]))));
}

const t = (label, f) => {
  try {
    console.log(label, 'ok', f());
  } catch (e) {
    console.log(label, `${e.name} [${e.code}]: ${e.message}`);
  }
};
t('unknown label', () => new TextDecoder('foo'));
t('utf-32', () => new TextDecoder('utf-32'));
t('decode a string', () => new TextDecoder().decode('abc'));
t('decode an array', () => new TextDecoder().decode([1, 2]));
t('decode null', () => new TextDecoder().decode(null));
t('encodeInto an array', () => enc.encodeInto('abc', [1]));
t('encodeInto nothing', () => enc.encodeInto('abc'));
t('encodeInto Int8Array', () => enc.encodeInto('abc', new Int8Array(3)));
t('encodeInto a plain object', () => enc.encodeInto('abc', {}));
