// Binary data: parse a packed record format with DataView, checksums, bit flags.
const RECORD = 16;
const buf = new ArrayBuffer(RECORD * 3);
const view = new DataView(buf);
const recs = [
  { id: 1, temp: -12.5, flags: 0b101, ts: 1704067200 },
  { id: 513, temp: 36.6, flags: 0b010, ts: 1706745600 },
  { id: 65535, temp: 1e-3, flags: 0b111, ts: 4294967295 },
];
recs.forEach((r, i) => {
  const o = i * RECORD;
  view.setUint16(o, r.id, true);
  view.setUint8(o + 2, r.flags);
  view.setFloat64(o + 4, r.temp);
  view.setUint32(o + 12, r.ts, true);
});
const bytes = new Uint8Array(buf);
console.log(bytes.slice(0, 16));
const hex = [...bytes.subarray(16, 32)].map((b) => b.toString(16).padStart(2, '0')).join('');
console.log(hex);
const FLAGS = ['active', 'dirty', 'pinned'];
for (let o = 0; o < buf.byteLength; o += RECORD) {
  const flags = view.getUint8(o + 2);
  console.log({
    id: view.getUint16(o, true),
    idBigEndian: view.getUint16(o, false),
    temp: view.getFloat64(o + 4),
    flags: FLAGS.filter((_, bit) => flags & (1 << bit)),
    date: new Date(view.getUint32(o + 12, true) * 1000).toISOString(),
  });
}
const crc32 = (data) => {
  let c, crc = 0xffffffff;
  for (const b of data) {
    c = (crc ^ b) & 0xff;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
    crc = (crc >>> 8) ^ c;
  }
  return (crc ^ 0xffffffff) >>> 0;
};
console.log(crc32(new TextEncoder().encode('The quick brown fox jumps over the lazy dog')).toString(16), crc32(bytes).toString(16).padStart(8, '0'));
const adler = (d) => { let a = 1, b = 0; for (const x of d) { a = (a + x) % 65521; b = (b + a) % 65521; } return ((b << 16) | a) >>> 0; };
console.log(adler(new TextEncoder().encode('Wikipedia')).toString(16));
const f32 = new Float32Array([0.1, 1 / 3, 16777217, -0]);
console.log(f32, Array.from(f32, (x) => x.toPrecision(9)));
const i16 = Int16Array.from([40000, -40000, 32767, 1.9]);
console.log(i16, new Uint8ClampedArray([300, -5, 127.5, 128.5]), new Int8Array(new Uint8Array([200, 100]).buffer));
const big = new BigInt64Array([2n ** 63n - 1n, -1n]);
console.log(big, new BigUint64Array(big.buffer)[1]);
const u32 = new Uint32Array([0xdeadbeef]);
console.log([...new Uint8Array(u32.buffer)].map((b) => b.toString(16)), (0xdeadbeef >> 4).toString(16), (0xdeadbeef >>> 28), ~5, 5 ^ 3, 1 << 31);
const a = new Uint8Array([5, 1, 4]);
console.log(a.toSorted(), a.toReversed(), a.with(0, 9), a.at(-1), a.findLast((x) => x > 1), a.join('-'), Array.isArray(a), a.byteLength);
