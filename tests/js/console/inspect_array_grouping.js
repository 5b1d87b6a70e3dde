console.log(Array.from({ length: 7 }, (_, i) => i));
console.log(Array.from({ length: 30 }, (_, i) => i * 37));
console.log(Array.from({ length: 26 }, (_, i) => String.fromCharCode(97 + i).repeat((i % 4) + 1)));
console.log(Array.from({ length: 12 }, (_, i) => (i % 2 ? -i : i * 1000)));
console.log({ nested: Array.from({ length: 40 }, (_, i) => i) });
console.log(Array.from({ length: 8 }, (_, i) => ({ id: i })));
console.log(['short', 'x'.repeat(60), 'a', 'b', 'c', 'd', 'e']);
