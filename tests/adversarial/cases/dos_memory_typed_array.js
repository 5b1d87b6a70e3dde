return new Uint8Array(2 ** 31).length;
