// Shapes of random values (never the values), timing APIs, and other web globals an agent touches.
const uuids = Array.from({ length: 20 }, () => crypto.randomUUID());
const v4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
console.log(uuids.every((u) => v4.test(u)), new Set(uuids).size, uuids[0].length, typeof uuids[0]);
const bytes = crypto.getRandomValues(new Uint8Array(32));
console.log(bytes.length, bytes instanceof Uint8Array, bytes.every((b) => b >= 0 && b < 256));
const words = crypto.getRandomValues(new Uint32Array(4));
console.log(words.length, words.every(Number.isInteger));
try { crypto.getRandomValues(new Uint8Array(70000)); } catch (e) { console.log(e.name); }
try { crypto.getRandomValues(new Float64Array(2)); } catch (e) { console.log(e.name); }
const token = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
console.log(token.length, /^[0-9a-f]+$/.test(token));
const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const code = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => alphabet[b % alphabet.length]).join('');
console.log(code.length, [...code].every((c) => alphabet.includes(c)));
const r = Math.random();
console.log(typeof r, r >= 0 && r < 1);
const t0 = performance.now();
let acc = 0;
for (let i = 0; i < 1e5; i++) acc += i % 7;
const elapsed = performance.now() - t0;
console.log(acc, typeof elapsed, elapsed >= 0, typeof performance.timeOrigin, Date.now() > Date.parse('2020-01-01'));
const start = Date.now();
await new Promise((res) => setTimeout(res, 25));
console.log('slept at least 20ms:', Date.now() - start >= 20);
const ex = new DOMException('aborted by user', 'AbortError');
console.log(ex.name, ex.message, ex.code, ex instanceof Error, DOMException.ABORT_ERR);
console.log(typeof structuredClone, typeof queueMicrotask, typeof setImmediate, typeof clearInterval, typeof TextEncoder, typeof URL, typeof atob);
console.log(typeof globalThis, globalThis === global, typeof crypto.randomUUID, typeof crypto.getRandomValues);
const h = setTimeout(() => {}, 1000);
console.log(typeof h.ref, typeof h.unref, h.hasRef());
clearTimeout(h);
const iv = setInterval(() => {}, 1000);
iv.unref();
console.log(iv.hasRef());
