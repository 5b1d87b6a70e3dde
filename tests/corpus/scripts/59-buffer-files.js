// Save settings as JSON, read them back the usual way (JSON.parse of readFileSync with no
// encoding), then move bytes between hex, base64 and text, and show a Buffer.
const fs = await import('fs');
const { Buffer: ModuleBuffer } = await import('buffer');
const dir = 'buffers-59';
fs.mkdirSync(dir, { recursive: true });

const settings = { user: 'zoë', retries: 3, tags: ['a', 'b'], nested: { on: true } };
fs.writeFileSync(`${dir}/settings.json`, JSON.stringify(settings, null, 2));
const raw = fs.readFileSync(`${dir}/settings.json`);
const loaded = JSON.parse(raw);
console.log(loaded, raw.length, Buffer.byteLength(JSON.stringify(settings, null, 2)));
console.log(Buffer.isBuffer(raw), raw instanceof Uint8Array, ModuleBuffer === Buffer);

// A token as base64 and back, and its hex digest-like form.
const token = Buffer.from(`${loaded.user}:${loaded.retries}`);
const b64 = token.toString('base64');
const hex = token.toString('hex');
console.log(b64, hex, Buffer.from(b64, 'base64').toString(), Buffer.from(hex, 'hex').toString());
console.log(Buffer.from(b64, 'base64').equals(token), token.toString('base64url'));

// A small binary record: a header and the length-prefixed name.
const name = Buffer.from(loaded.user);
const record = Buffer.alloc(6 + name.length);
record.write('CF', 0, 'latin1');
record.writeUInt16BE(1, 2);
record.writeUInt16LE(name.length, 4);
name.copy(record, 6);
fs.writeFileSync(`${dir}/record.bin`, record);
const rec = fs.readFileSync(`${dir}/record.bin`);
console.log(rec, rec.toString('latin1', 0, 2), rec.readUInt16BE(2), rec.readUInt16LE(4),
  rec.subarray(6).toString());
console.log({ file: 'record.bin', bytes: rec, size: fs.statSync(`${dir}/record.bin`).size });

// Joining chunks, searching them, and data URLs.
const chunks = ['line one\n', 'line two\n', 'end\n'].map((s) => Buffer.from(s));
const all = Buffer.concat(chunks);
console.log(all.length, all.indexOf('two'), all.includes('end'), all.toString().split('\n').length);
const dataUrl = `data:application/json;base64,${Buffer.from(JSON.stringify(loaded.tags)).toString('base64')}`;
console.log(dataUrl, JSON.parse(Buffer.from(dataUrl.split(',')[1], 'base64')));
console.log(JSON.stringify({ blob: Buffer.from('hi') }));
fs.rmSync(dir, { recursive: true });
