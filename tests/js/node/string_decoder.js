// node:string_decoder: characters cut between chunks, in each encoding.
const { StringDecoder } = require('node:string_decoder');
console.log(require('string_decoder').StringDecoder === StringDecoder);
const euro = Buffer.from('€ and 😀');
for (const enc of ['utf8', 'utf16le', 'base64', 'hex', 'latin1', 'ascii']) {
  const d = new StringDecoder(enc);
  const bytes = enc === 'utf16le' ? Buffer.from('€ and 😀', 'utf16le') : euro;
  const parts = [];
  for (let i = 0; i < bytes.length; i += 1) parts.push(d.write(bytes.subarray(i, i + 1)));
  parts.push(d.end());
  console.log(enc, d.encoding, JSON.stringify(parts.join('')), parts.filter((p) => p).length);
}
const d = new StringDecoder('utf8');
console.log(JSON.stringify(d.write(Buffer.from([0xe2, 0x82]))), JSON.stringify(d.end()));
console.log(JSON.stringify(d.end(Buffer.from([0xf0, 0x9f]))));
console.log(JSON.stringify(new StringDecoder().write(Buffer.from([0xff, 0x41]))));
try {
  new StringDecoder('nope');
} catch (e) {
  console.log(e.name, e.code, e.message);
}
console.log(new StringDecoder('UCS-2').encoding, new StringDecoder('binary').encoding);
