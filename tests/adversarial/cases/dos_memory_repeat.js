return 'x'.repeat(2 ** 30).length;
