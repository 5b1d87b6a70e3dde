return /^(a+)+\1$/.test('a'.repeat(36) + 'b');
