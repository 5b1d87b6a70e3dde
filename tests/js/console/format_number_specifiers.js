console.log('%d %d %d %d %d', 42, '42', 4.5, '0x10', {});
console.log('%d %d', 10n, -0);
console.log('%i %i %i %i', 42.9, '42.9px', -7.2, 5n);
console.log('%f %f %f', '1.5e3', 'abc', 3);
console.log('%d', Symbol('s'));
