class Point { constructor(x, y) { this.x = x; this.y = y; } norm() { return 0; } }
class Point3 extends Point { constructor() { super(1, 2); this.z = 3; } }
class Empty {}
console.log(new Point(1, 2), new Point3(), new Empty());
console.log([new Point(0, 0)], { p: new Empty() });
class Tagged { get [Symbol.toStringTag]() { return 'Custom'; } }
console.log(new Tagged());
console.log(Object.create(Point.prototype));
