console.log(Array.from({ length: 101 }, (_, i) => i));
console.log(Array.from({ length: 150 }, () => 'ab'));
console.log(new Set(Array.from({ length: 102 }, (_, i) => i)));
