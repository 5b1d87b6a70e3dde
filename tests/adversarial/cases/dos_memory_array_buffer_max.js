return new ArrayBuffer(2 ** 32 - 1).byteLength;
