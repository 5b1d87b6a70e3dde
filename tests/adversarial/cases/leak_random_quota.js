// crypto.getRandomValues reaches the host's random source: its checks (kind of
// array, 65,536 bytes at most) hold however it is called.
if (typeof crypto !== 'object') return ['no crypto'];
const out = [];
const g = crypto.getRandomValues;
for (const [what, f] of [
  ['65537 bytes', () => g.call(crypto, new Uint8Array(65537))],
  ['floats', () => g.call(crypto, new Float64Array(4))],
  ['a DataView', () => g.call(crypto, new DataView(new ArrayBuffer(8)))],
  ['a plain object', () => g.call(crypto, { length: 8 })],
  ['unbound', () => g(new Uint8Array(8))],
  ['65536 bytes', () => g.call(crypto, new Uint8Array(65536)).length],
]) {
  try {
    out.push(what + ': ' + f());
  } catch (e) {
    out.push(what + ': ' + e.name);
  }
}
return out;
