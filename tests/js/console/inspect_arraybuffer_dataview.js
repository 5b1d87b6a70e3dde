console.log(new Uint8Array([1, 2]).buffer);
console.log(new ArrayBuffer(0));
console.log(new Uint8Array(Array.from({ length: 60 }, (_, i) => i)).buffer);
console.log(new Uint8Array(110).buffer);
console.log(new DataView(new ArrayBuffer(4), 1, 2));
