return 'a'.repeat(2e7).match(/a/g).length;
