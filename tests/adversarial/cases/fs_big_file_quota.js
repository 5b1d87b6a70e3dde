// One file larger than the disk quota is refused whole, leaving nothing behind.
const big = new Uint8Array(80 << 20);
try { fs.writeFileSync('/workspace/big.bin', big); console.log('WROTE'); } catch (e) { console.log(e.code); }
console.log(fs.existsSync('/workspace/big.bin') ? fs.statSync('/workspace/big.bin').size : 'absent');
