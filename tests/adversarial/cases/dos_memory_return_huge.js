// A value too large to return: serialising it must fail cleanly.
const s = 'x'.repeat(12 * 1024 * 1024);
return [s, s];
