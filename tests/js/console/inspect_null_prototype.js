console.log(Object.create(null));
const dict = Object.create(null);
dict.key = 'value';
dict.nested = Object.create(null);
console.log(dict);
console.log(Object.setPrototypeOf([1, 2], null));
console.log(Object.setPrototypeOf(new Map([['k', 'v']]), null));
