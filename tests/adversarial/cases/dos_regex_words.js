return /^(\w+\s?)*$/.test('an input that looks like a sentence but ends with a bang!'.repeat(3));
