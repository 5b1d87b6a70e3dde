console.log(Symbol('desc'), Symbol(''), Symbol(), Symbol.for('registered'));
console.log([Symbol('in array')], { value: Symbol('v') });
console.log({ [Symbol('key')]: 'value', [Symbol.iterator]: 'well-known' });
