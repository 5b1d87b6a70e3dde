console.log(new Number(3), new Number(-0), new String('abc'), new Boolean(false));
console.log(Object(5n), Object(Symbol('boxed')));
console.log([new String('in array')], { n: new Number(1) });
console.log(Object.assign(new String('hi'), { extra: true }));
