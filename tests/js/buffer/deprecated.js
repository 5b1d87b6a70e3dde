// Buffer() without Buffer.from or Buffer.alloc: deprecated (DEP0005), warned about once.
console.log(Buffer(3), new Buffer('hi'), Buffer([1, 2]), new Buffer('6869', 'hex'),
  Buffer(new ArrayBuffer(4), 1, 2), new Buffer(2) instanceof Buffer);
try {
  Buffer(5, 'utf8');
} catch (e) {
  console.log(`${e.name} [${e.code}]`, e.message);
}
