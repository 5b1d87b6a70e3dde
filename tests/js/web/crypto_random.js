// crypto.randomUUID and crypto.getRandomValues: shapes, not values, and the errors.
const uuidRe = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const uuids = new Set();
for (let i = 0; i < 1000; i++) uuids.add(crypto.randomUUID());
console.log(uuids.size, [...uuids].every((u) => uuidRe.test(u)), typeof crypto.randomUUID());

for (const Ctor of [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array,
  Int32Array, Uint32Array, BigInt64Array, BigUint64Array]) {
  const a = new Ctor(64);
  const r = crypto.getRandomValues(a);
  // 64 elements all zero has odds of 2^-512.
  console.log(Ctor.name, r === a, a.length, a.some((x) => x !== 0 && x !== 0n));
}
const big = crypto.getRandomValues(new Uint8Array(65536));
console.log(big.length, new Set(big).size > 200);
const view = new Uint8Array(new ArrayBuffer(16), 4, 8);
crypto.getRandomValues(view);
const whole = new Uint8Array(view.buffer);
console.log(whole.slice(0, 4).join(), whole.slice(12).join());
console.log(crypto.getRandomValues(new Uint8Array(0)).length);
console.log(typeof crypto, Object.prototype.toString.call(crypto), typeof crypto.getRandomValues);

const t = (label, f) => {
  try {
    console.log(label, 'ok', f());
  } catch (e) {
    console.log(label, `${e.constructor.name} ${e.name} ${e.code}: ${e.message}`);
  }
};
t('Float32Array', () => crypto.getRandomValues(new Float32Array(1)));
t('Float64Array', () => crypto.getRandomValues(new Float64Array(1)));
t('DataView', () => crypto.getRandomValues(new DataView(new ArrayBuffer(4))));
t('ArrayBuffer', () => crypto.getRandomValues(new ArrayBuffer(4)));
t('Array', () => crypto.getRandomValues([1, 2]));
t('null', () => crypto.getRandomValues(null));
t('nothing', () => crypto.getRandomValues());
t('65537 bytes', () => crypto.getRandomValues(new Uint8Array(65537)));
t('16385 Uint32', () => crypto.getRandomValues(new Uint32Array(16385)));
t('16384 Uint32', () => crypto.getRandomValues(new Uint32Array(16384)).length);
