// Encode and decode text: UTF-8 byte counts, base64, hex dumps.
const enc = new TextEncoder();
const dec = new TextDecoder();
const samples = ['hello', 'café', '日本語', '🙂 ok', ''];
for (const s of samples) {
  const bytes = enc.encode(s);
  console.log(JSON.stringify(s).padEnd(10), 'chars', [...s].length, 'units', s.length, 'bytes', bytes.length, [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(' '));
}
console.log(enc.encode('€'), dec.decode(new Uint8Array([0xe2, 0x82, 0xac])));
const toB64 = (str) => btoa(String.fromCharCode(...enc.encode(str)));
const fromB64 = (b64) => dec.decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
for (const s of ['user:pass', 'naïve ☃', 'a', 'ab', 'abc']) {
  const b = toB64(s);
  console.log(s, '->', b, '->', fromB64(b));
}
const b64url = (s) => toB64(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
console.log(b64url('??>>subjects'), btoa('\xff\xfe'));
try { btoa('日本'); } catch (e) { console.log(e.name); }
try { atob('***'); } catch (e) { console.log(e.name); }
const header = { alg: 'HS256', typ: 'JWT' };
const payload = { sub: '1234567890', name: 'John Doe', iat: 1516239022 };
const token = [header, payload].map((o) => b64url(JSON.stringify(o))).join('.');
console.log(token);
const [h, pl] = token.split('.').map((part) => JSON.parse(fromB64(part.replace(/-/g, '+').replace(/_/g, '/'))));
console.log(h, pl);
console.log(dec.decode(new Uint8Array([0x66, 0x6f, 0xff, 0x6f])), new TextDecoder('utf-8', { fatal: false }).encoding);
try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xc3])); } catch (e) { console.log(e.name, e.code); }
const { read, written } = enc.encodeInto('héllo', new Uint8Array(4));
console.log(read, written);
console.log(new TextDecoder('utf-16le').decode(new Uint8Array([0x68, 0, 0x69, 0])), dec.decode(enc.encode('\uFEFFbom')).length);
function hexdump(bytes) {
  for (let i = 0; i < bytes.length; i += 8) {
    const chunk = bytes.slice(i, i + 8);
    console.log(i.toString(16).padStart(4, '0'), [...chunk].map((b) => b.toString(16).padStart(2, '0')).join(' ').padEnd(23), [...chunk].map((b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : '.')).join(''));
  }
}
hexdump(enc.encode('Hello, wörld!\n\tend'));
