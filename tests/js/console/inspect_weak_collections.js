const key = {};
console.log(new WeakMap([[key, 1]]));
console.log(new WeakSet([key]));
console.log({ wm: new WeakMap(), ws: new WeakSet() });
