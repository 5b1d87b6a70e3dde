// Function.prototype.toString of functions without source text, on one line as V8
// prints them; functions written in JavaScript keep their source.
const show = (f) => console.log(Function.prototype.toString.call(f));
show(Array.prototype.push);
show(Math.max);
show(Object);
show(Symbol);
show(Array.prototype[Symbol.iterator]);
show(RegExp.prototype[Symbol.split]);
show(Object.getOwnPropertyDescriptor(RegExp.prototype, 'flags').get);
show(Object.getOwnPropertyDescriptor(Map.prototype, 'size').get);
show(Object.getOwnPropertyDescriptor(Object.prototype, '__proto__').set);
show(function named(a, b) { return a + b; }.bind(null));
show(Math.min.bind(Math));
show(new Proxy(function target() {}, {}));
show(function written(a) { return a; });
show((x) => x * 2);
show(class Shape { area() { return 0; } });
console.log(String(parseInt), `${JSON.stringify}`, parseFloat + '');
console.log(JSON.stringify(Array.prototype.map.toString()));
