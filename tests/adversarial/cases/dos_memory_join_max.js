return new Array(2 ** 32 - 1).join().length;
