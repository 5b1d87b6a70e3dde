// Typed arrays: element conversion, views over one buffer, DataView byte order.
const u8 = new Uint8Array([0, 255, 256, 257, -1, 1.9, -1.9, NaN, Infinity]);
const clamped = new Uint8ClampedArray([0, 255, 256, -1, 1.5, 2.5, 0.5, 254.5, NaN]);
const i8 = new Int8Array([127, 128, -129, 255]);
const i16 = new Int16Array([32767, 32768, -32769]);
const u32 = new Uint32Array([-1, 2 ** 32, 2 ** 32 + 1]);
const f32 = new Float32Array([0.1, 16777217, 1e40, -0]);
console.log(u8, clamped);
console.log(i8, i16, u32);
console.log(f32, Object.is(f32[3], -0));

const buffer = new ArrayBuffer(8);
const bytes = new Uint8Array(buffer);
const words = new Uint16Array(buffer);
const view = new DataView(buffer);
view.setUint16(0, 0x1234);
view.setUint16(2, 0x1234, true);
view.setFloat32(4, 1.5);
console.log(Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' '));
console.log(view.getUint16(0), view.getUint16(0, true), view.getInt8(4), view.getFloat32(4), words.length, buffer.byteLength);
view.setBigInt64(0, -2n);
console.log(view.getBigUint64(0), view.getBigInt64(0), view.getBigInt64(0, true));
try {
  view.getUint32(6);
} catch (e) {
  console.log(e.constructor.name);
}

// subarray shares memory; slice copies.
const base = new Int32Array([1, 2, 3, 4, 5]);
const sub = base.subarray(1, 3);
const copy = base.slice(1, 3);
sub[0] = 20;
copy[1] = 30;
console.log(base, sub, copy, sub.byteOffset, copy.byteOffset, sub.buffer === base.buffer);

// set, from, of, fill, copyWithin, sort (numeric, unlike Array's default).
const target = new Uint8Array(6);
target.set([1, 2], 1);
target.set(new Uint8Array([9]), 5);
console.log(target, Uint8Array.from('123', Number), Int16Array.of(1, -1), new Uint8Array(3).fill(7, 1));
console.log(new Int8Array([1, 2, 3, 4, 5]).copyWithin(0, 3), new Float64Array([10, 9, 1, -2, 0.5]).sort(), [10, 9, 1, -2, 0.5].sort());
console.log(new Uint8Array([3, 1, 2]).map((x) => x * 100), Array.from(new Uint8Array([3, 1, 2]), (x) => x * 100));
console.log(new Float64Array([1, 2, 3]).reduce((a, b) => a + b), new Uint8Array([1, 2, 3]).includes(2), new Uint8Array([5, 6]).indexOf(6));
console.log(new Uint16Array([1, 2, 3]).join('-'), [...new Uint8Array([4, 5]).entries()], Object.keys(new Uint8Array(2)));
try {
  new Uint8Array(-1);
} catch (e) {
  console.log(e.constructor.name);
}
try {
  new Uint32Array(new ArrayBuffer(5));
} catch (e) {
  console.log(e.constructor.name);
}

// BigInt arrays and byte-level views of floats.
const big = new BigInt64Array([1n, -1n, 2n ** 63n - 1n]);
const ubig = new BigUint64Array([-1n, 2n ** 64n + 5n]);
console.log(big, ubig);
const floatBytes = new Uint8Array(new Float64Array([1]).buffer);
console.log(Array.from(floatBytes).join(','), new Float64Array(new Uint8Array([0, 0, 0, 0, 0, 0, 0xf0, 0x7f]).buffer)[0]);
console.log(ArrayBuffer.isView(view), ArrayBuffer.isView(buffer), buffer.slice(4).byteLength, Uint8Array.BYTES_PER_ELEMENT, Float64Array.name);
