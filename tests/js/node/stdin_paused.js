// process.stdin in paused mode: 'readable' events and read() until it gives null,
// then 'end'; the chunks are Buffers without an encoding.
const stdin = process.stdin;
let total = 0;
let buffers = true;
stdin.on('readable', () => {
  let chunk;
  while ((chunk = stdin.read()) !== null) {
    total += chunk.length;
    buffers = buffers && Buffer.isBuffer(chunk);
  }
  console.log('readable', total);
});
stdin.on('end', () => {
  console.log('end', total, buffers, stdin.readableEnded);
});
