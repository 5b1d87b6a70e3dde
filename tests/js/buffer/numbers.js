// Reading and writing integers, floats and BigInts, little- and big-endian.
const b = Buffer.from([0x01, 0x02, 0x03, 0x04, 0x85, 0x86, 0x87, 0x88, 0xff, 0x7f]);
console.log(b.readUInt8(0), b.readUInt8(8), b.readInt8(8), b.readInt8(9), b.readUint8(4));
console.log(b.readUInt16LE(0), b.readUInt16BE(0), b.readInt16LE(4), b.readInt16BE(4),
  b.readUint16LE(8), b.readInt16LE(8));
console.log(b.readUInt32LE(0), b.readUInt32BE(0), b.readInt32LE(4), b.readInt32BE(4),
  b.readUint32BE(4), b.readUInt32LE(6));
for (let n = 1; n <= 6; n++) {
  console.log('var', n, b.readUIntLE(0, n), b.readUIntBE(0, n), b.readIntLE(4, n),
    b.readIntBE(4, n), b.readUintLE(4, n), b.readUintBE(4, n));
}
console.log(b.readBigUInt64LE(0), b.readBigUInt64BE(0), b.readBigInt64LE(2), b.readBigInt64BE(2),
  b.readBigUint64LE(1), b.readBigUint64BE(2));
console.log(b.readUInt8(), b.readUInt16LE(), b.readFloatLE(), b.readDoubleBE());

// Floats and doubles.
const f = Buffer.alloc(8);
for (const v of [1.5, -0, 3.4028234663852886e38, 1e39, Math.PI, NaN, -Infinity, 5e-324]) {
  f.writeFloatLE(v, 0);
  const le = f.readFloatLE(0);
  f.writeFloatBE(v, 4);
  const be = f.readFloatBE(4);
  f.writeDoubleLE(v);
  const dle = f.readDoubleLE();
  console.log('float', v, le, be, Object.is(le, be), dle, f.writeDoubleBE(v), f.readDoubleBE(),
    f.toString('hex'));
}

// Writing: return values, bytes, and how values are coerced.
const w = (label, f) => {
  const buf = Buffer.alloc(10);
  const r = f(buf);
  console.log(label, r, buf);
};
w('writeUInt8', (buf) => buf.writeUInt8(255, 1));
w('writeUint8 fraction', (buf) => buf.writeUint8(7.9));
w('writeUInt8 string', (buf) => buf.writeUInt8('12', 2));
w('writeUInt8 NaN', (buf) => buf.writeUInt8(NaN));
w('writeInt8', (buf) => buf.writeInt8(-2, 1));
w('writeUInt16LE', (buf) => buf.writeUInt16LE(0xabcd, 1));
w('writeUInt16BE', (buf) => buf.writeUInt16BE(0xabcd, 1));
w('writeInt16LE', (buf) => buf.writeInt16LE(-2));
w('writeInt16BE', (buf) => buf.writeInt16BE(-32768, 2));
w('writeUInt32LE', (buf) => buf.writeUInt32LE(0xdeadbeef, 2));
w('writeUInt32BE', (buf) => buf.writeUInt32BE(0xdeadbeef, 2));
w('writeInt32LE', (buf) => buf.writeInt32LE(-2));
w('writeInt32BE', (buf) => buf.writeInt32BE(-2147483648, 6));
w('writeUint32LE fraction', (buf) => buf.writeUint32LE(1.9));
for (let n = 1; n <= 6; n++) {
  w(`writeUIntLE ${n}`, (buf) => buf.writeUIntLE(2 ** (8 * n) - 2, 1, n));
  w(`writeUIntBE ${n}`, (buf) => buf.writeUIntBE(2 ** (8 * n - 1) + 1, 1, n));
  w(`writeIntLE ${n}`, (buf) => buf.writeIntLE(-(2 ** (8 * n - 1)), 0, n));
  w(`writeIntBE ${n}`, (buf) => buf.writeIntBE(-3, 0, n));
}
w('writeBigUInt64LE', (buf) => buf.writeBigUInt64LE(0x0102030405060708n, 1));
w('writeBigUInt64BE', (buf) => buf.writeBigUInt64BE(2n ** 64n - 1n));
w('writeBigInt64LE', (buf) => buf.writeBigInt64LE(-2n));
w('writeBigInt64BE', (buf) => buf.writeBigInt64BE(-(2n ** 63n), 2));
w('writeBigUint64LE', (buf) => buf.writeBigUint64LE(5n));
w('writeBigUint64BE', (buf) => buf.writeBigUint64BE(5n, 2));
const rt = Buffer.alloc(8);
rt.writeBigInt64LE(-1234567890123456789n);
console.log(rt.readBigInt64LE(), rt.readBigUInt64LE(), rt.readBigInt64BE());

// Chained writes: each returns the offset after it.
const packet = Buffer.alloc(16);
let off = packet.writeUInt8(1);
off = packet.writeUInt16BE(0x1234, off);
off = packet.writeInt32LE(-5, off);
off = packet.writeFloatBE(0.5, off);
off = packet.writeDoubleLE(2.25, off - 4);
console.log(off, packet, packet.readUInt8(0), packet.readUInt16BE(1), packet.readInt32LE(3),
  packet.readDoubleLE(7));
