// process.stdin's async iteration (Buffers, over 64 KiB) and fs.readFileSync(0) once it
// has been read to its end (empty).
const fs = require('node:fs');
(async () => {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const all = Buffer.concat(chunks);
  console.log(chunks.every(Buffer.isBuffer), all.length, all[0], all[all.length - 1]);
  console.log(JSON.stringify(all.toString('latin1').slice(0, 12)));
  console.log(fs.readFileSync(0).length);
})();
