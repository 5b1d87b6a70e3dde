const obj = {
  get onlyGet() { return 1; },
  set onlySet(v) {},
  get both() { return 2; },
  set both(v) {},
  plain: 3,
};
console.log(obj);
class Temp { constructor() { this.c = 20; } get f() { return 68; } }
console.log(new Temp());
console.log(Object.defineProperty({}, 'hidden', { get() { return 1; }, enumerable: false }));
