console.log('a', 'b', 1, [2], { c: 3 });
console.log();
console.log('');
console.log(1, '%s is not a format string when not first');
console.log('multi\nline', 'args');
