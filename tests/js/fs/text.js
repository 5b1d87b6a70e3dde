// Reading and writing whole files: text in each encoding, binary data of every kind,
// appending, flags. Paths are relative: the working directory is /workspace.
const fs = globalThis.fs || require('fs');
const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

fs.writeFileSync('hello.txt', 'héllo wörld ✓ 😀\n');
console.log(JSON.stringify(fs.readFileSync('hello.txt', 'utf8')));
console.log(JSON.stringify(fs.readFileSync('hello.txt', 'utf-8')));
console.log(JSON.stringify(fs.readFileSync('hello.txt', 'UTF8')));
console.log(JSON.stringify(fs.readFileSync('hello.txt', { encoding: 'utf8' })));
const raw = fs.readFileSync('hello.txt');
console.log(raw instanceof Uint8Array, raw.length, hex(raw));
console.log(fs.readFileSync('hello.txt', { encoding: null }).length);
console.log(fs.readFileSync('hello.txt', {}).length);

// Other encodings, both ways.
fs.writeFileSync('enc.txt', 'Hi ÿ\u0100');
for (const enc of ['latin1', 'binary', 'ascii', 'hex', 'base64', 'base64url', 'utf16le', 'ucs2']) {
  console.log(enc, JSON.stringify(fs.readFileSync('enc.txt', enc)));
}
fs.writeFileSync('enc.bin', '48656c6c6f zz', 'hex');
console.log(hex(fs.readFileSync('enc.bin')));
fs.writeFileSync('enc.bin', 'SGVsbG8g\nd29y bGQ=ignored', { encoding: 'base64' });
console.log(fs.readFileSync('enc.bin', 'utf8'));
fs.writeFileSync('enc.bin', '_-8', 'base64url');
console.log(hex(fs.readFileSync('enc.bin')));
fs.writeFileSync('enc.bin', 'aé\u20ac', 'latin1');
console.log(hex(fs.readFileSync('enc.bin')));
fs.writeFileSync('enc.bin', 'a\u20ac', 'utf16le');
console.log(hex(fs.readFileSync('enc.bin')));

// A byte-order mark is kept, invalid UTF-8 becomes U+FFFD, a lone surrogate is
// written as U+FFFD.
fs.writeFileSync('bom.txt', new Uint8Array([0xef, 0xbb, 0xbf, 0x41, 0xff, 0x42, 0xc3]));
console.log(JSON.stringify(fs.readFileSync('bom.txt', 'utf8')));
fs.writeFileSync('sur.txt', 'a\ud800b\udc00');
console.log(hex(fs.readFileSync('sur.txt')));

// Binary: every byte value round-trips, from each kind of view.
const all = new Uint8Array(256);
for (let i = 0; i < 256; i++) all[i] = i;
fs.writeFileSync('all.bin', all);
const back = fs.readFileSync('all.bin');
console.log(back.length, back.every((v, i) => v === i));
fs.writeFileSync('u16.bin', new Uint16Array([0x0102, 0x0304]));
console.log(hex(fs.readFileSync('u16.bin')));
fs.writeFileSync('view.bin', new DataView(all.buffer, 250, 4));
console.log(hex(fs.readFileSync('view.bin')));
fs.writeFileSync('sub.bin', all.subarray(10, 13));
console.log(hex(fs.readFileSync('sub.bin')));
fs.writeFileSync('f64.bin', new Float64Array([1.5]));
console.log(hex(fs.readFileSync('f64.bin')));

// Empty files, overwriting, appending, flags.
fs.writeFileSync('empty.txt', '');
console.log(JSON.stringify(fs.readFileSync('empty.txt', 'utf8')), fs.readFileSync('empty.txt').length);
fs.writeFileSync('log.txt', 'one\n');
fs.appendFileSync('log.txt', 'two\n');
fs.appendFileSync('log.txt', new Uint8Array([0x33, 0x0a]));
fs.appendFileSync('new.txt', 'created by append');
console.log(JSON.stringify(fs.readFileSync('log.txt', 'utf8')), fs.readFileSync('new.txt', 'utf8'));
fs.writeFileSync('log.txt', 'over');
console.log(fs.readFileSync('log.txt', 'utf8'));
fs.writeFileSync('log.txt', '+a', { flag: 'a' });
console.log(fs.readFileSync('log.txt', 'utf8'));
try {
  fs.writeFileSync('log.txt', 'x', { flag: 'wx' });
} catch (e) {
  console.log(e.message);
}
fs.writeFileSync('fresh.txt', 'x', { flag: 'wx' });
console.log(fs.readFileSync('fresh.txt', 'utf8'));

// A larger file, read back whole.
const big = 'abcdefghij'.repeat(200000);
fs.writeFileSync('big.txt', big);
const bigBack = fs.readFileSync('big.txt', 'utf8');
console.log(bigBack.length, bigBack === big);

// The same file through relative and absolute paths, "." and "..".
fs.mkdirSync('sub');
console.log(fs.readFileSync('./hello.txt', 'utf8') === fs.readFileSync('sub/../hello.txt', 'utf8'));
console.log(fs.readFileSync(process_cwd() + '/hello.txt', 'utf8').length);
console.log(fs.readFileSync(new URL(`file://${process_cwd()}/hello.txt`), 'utf8').length);
console.log(fs.readFileSync(new TextEncoder().encode('hello.txt'), 'utf8').length);

function process_cwd() {
  return typeof process === 'object' ? process.cwd() : '/workspace';
}
