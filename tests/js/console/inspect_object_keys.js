console.log({ plain: 1, _under: 2, $dollar: 3, 'kebab-case': 4, 'with space': 5, '': 6 });
console.log({ 2: 'b', 1: 'a', z: 'z' });
console.log({ ['__proto__']: 'own proto key', [Symbol('s')]: 3, [Symbol()]: 4 });
console.log({ 'über': 1, 'q"uote': 2, "s'ingle": 3 });
console.log({});
