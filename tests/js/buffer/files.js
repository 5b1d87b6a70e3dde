// fs and Buffer: reading without an encoding gives a Buffer; Buffers are written as bytes.
const fs = require('fs');
const dir = fs.mkdtempSync('/tmp/buffer-test-');
const file = `${dir}/data.json`;
fs.writeFileSync(file, JSON.stringify({ name: 'capsa', list: [1, 2, 3], text: 'héllo' }));
const raw = fs.readFileSync(file);
console.log(Buffer.isBuffer(raw), raw.constructor.name, raw.length, raw.subarray(0, 9));
console.log(JSON.parse(raw), JSON.parse(fs.readFileSync(file)).list.length);
console.log(raw.toString('utf8', 0, 9), String(raw).length,
  `${raw}` === fs.readFileSync(file, 'utf8'));
console.log(fs.readFileSync(file, { encoding: null }).equals(raw),
  fs.readFileSync(file, 'hex').slice(0, 8), fs.readFileSync(file, 'base64').slice(0, 8),
  fs.readFileSync(file, 'latin1').length);

// Bytes that are not text go through unchanged.
const bin = Buffer.alloc(256);
for (let i = 0; i < 256; i++) bin[i] = 255 - i;
fs.writeFileSync(`${dir}/bin`, bin);
const back = fs.readFileSync(`${dir}/bin`);
console.log(back.equals(bin), back.length, back.readUInt32BE(0).toString(16), back.subarray(-4));
fs.writeFileSync(`${dir}/slice`, bin.subarray(10, 14));
fs.appendFileSync(`${dir}/slice`, Buffer.from('!'));
console.log(fs.readFileSync(`${dir}/slice`));
fs.writeFileSync(`${dir}/hex`, 'cafe', 'hex');
fs.writeFileSync(`${dir}/b64`, 'aGVsbG8=', { encoding: 'base64' });
fs.writeFileSync(`${dir}/u16`, 'hi', 'utf16le');
console.log(fs.readFileSync(`${dir}/hex`), fs.readFileSync(`${dir}/b64`, 'utf8'),
  fs.readFileSync(`${dir}/u16`));

// Names as Buffers, paths given as Buffers.
fs.writeFileSync(Buffer.from(`${dir}/é.txt`), 'x');
console.log(fs.readdirSync(dir, 'buffer').map((n) => n.toString()).sort(),
  fs.readdirSync(dir, { encoding: 'buffer' }).every(Buffer.isBuffer));

// The promise and callback forms give Buffers too.
fs.promises.readFile(file).then((b) => {
  console.log('promise', Buffer.isBuffer(b), JSON.parse(b).name);
  fs.readFile(`${dir}/hex`, (err, b2) => {
    console.log('callback', err, b2);
    fs.rmSync(dir, { recursive: true });
    console.log(fs.existsSync(dir));
  });
});
