// What the engine lacked or did differently from V8, closed in guest/builtins.js:
// Number.prototype.toString(radix) of fractions and of numbers past 2^53 (checked
// against Node on 2,000 doubles made from random bits), the zone name of Date
// strings, WeakRef, FinalizationRegistry, Error.captureStackTrace. Expected: Node's output.
const vals = [0.5, 255.5, -0.1, 1/3, Math.PI, 1e21, 2**60 + 2**10, -(2**70), 123.456e30, 5e-324, 1.7976931348623157e308, 0.1 + 0.2, 1e-7, 99.99, 2**53 + 0.5, 7/8];
for (const r of [2, 3, 7, 8, 16, 32, 36]) console.log(r, vals.map((v) => v.toString(r)).join(' '));
let seed = 12345; const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const out = [];
const bits = new Float64Array(1), words = new Uint32Array(bits.buffer);
for (let i = 0; i < 2000; i++) {
  // Doubles from random bit patterns (exponents from about 1e-30 to 1e30), the same in every engine.
  words[0] = Math.floor(rnd() * 4294967296); words[1] = (rnd() < 0.5 ? 0x80000000 : 0) + ((0x3c0 + Math.floor(rnd() * 0x0c8)) << 20) + Math.floor(rnd() * 1048576);
  const v = bits[0]; const r = 2 + Math.floor(rnd() * 35); out.push(v.toString(r));
}
console.log(out.join('\n'));
console.log((255).toString(16), (10).toString(2), (-0).toString(2), NaN.toString(2), (Infinity).toString(3));
try { (1.5).toString(1) } catch (e) { console.log(e.name) }
console.log(String(new Date(0)), new Date(86400000).toTimeString(), String(new Date(NaN)));
const w = new WeakRef({ a: 1 }); console.log(w.deref().a, Object.prototype.toString.call(w), typeof WeakRef, WeakRef.length, WeakRef.name);
try { new WeakRef(1) } catch (e) { console.log(e.message) }
try { WeakRef({}) } catch (e) { console.log(e.constructor.name) }
const fr = new FinalizationRegistry(() => {}); const tok = {};
console.log(fr.register({}, 1, tok), fr.unregister(tok), fr.unregister(tok), Object.prototype.toString.call(fr));
try { new FinalizationRegistry(1) } catch (e) { console.log(e.message) }
try { fr.unregister(1) } catch (e) { console.log(e.message) }
try { const o = {}; fr.register(o, o) } catch (e) { console.log(e.message) }
class MyError extends Error { constructor(m) { super(m); this.name = 'MyError'; Error.captureStackTrace(this, MyError); } }
const me = new MyError('x'); console.log(me.message, typeof me.stack, Error.stackTraceLimit);
const plain = {}; Error.captureStackTrace(plain); console.log(typeof plain.stack, Object.keys(plain));
