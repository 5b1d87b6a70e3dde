// structuredClone: the kinds of value it copies, shared references and cycles, and the
// errors for what it cannot copy.
const o = {
  a: 1, s: 'x', n: null, u: undefined, b: 10n, neg: -0, nan: NaN, d: new Date(0),
  r: /ab+c/gi, m: new Map([[1, { x: 1 }]]), set: new Set([1, 'a']), arr: [1, , 3],
  ab: new Uint8Array([1, 2, 3]).buffer, ta: new Int16Array([1, -2]),
  f64: new Float64Array([0.5]), big: new BigUint64Array([2n ** 64n - 1n]),
  dv: new DataView(new ArrayBuffer(2)), bn: Object(1), bs: Object('s'), bb: Object(false),
  bbi: Object(5n),
};
o.self = o;
const c = structuredClone(o);
console.log(c);
console.log(c !== o, c.self === c, c.d instanceof Date, c.d !== o.d, c.m.get(1) !== o.m.get(1));
console.log(c.r.lastIndex, c.r.flags, c.ab !== o.ab, c.ta.buffer !== o.ta.buffer);

// Arrays keep holes, length and extra properties; objects lose their prototype,
// non-enumerable and symbol-keyed properties; getters are read.
const arr = [1];
arr.extra = 'e';
console.log(structuredClone(arr), structuredClone(Object.assign([1, 2], { length: 5 })));
class Point {
  constructor() {
    this.x = 1;
  }

  get y() {
    return 2;
  }
}
const cp = structuredClone(new Point());
console.log(cp, cp.constructor.name, cp instanceof Point);
console.log(structuredClone({ get g() { return 5; } }));
console.log(structuredClone({ [Symbol('s')]: 1, v: 2 }));
const hidden = {};
Object.defineProperty(hidden, 'h', { value: 1, enumerable: false });
console.log(structuredClone(hidden));
const noProto = Object.create(null);
noProto.k = 1;
console.log(structuredClone(noProto));

// Shared references stay shared; a view's whole buffer comes along.
const shared = { z: 1 };
const pair = structuredClone([shared, shared]);
console.log(pair[0] === pair[1], pair[0] !== shared);
const u8 = new Uint8Array([1, 2, 3, 4]);
const sub = u8.subarray(1, 3);
const cs = structuredClone(sub);
console.log(cs, cs.byteOffset, cs.buffer.byteLength);
const both = structuredClone({ u8, sub });
console.log(both.sub.buffer === both.u8.buffer, both.sub.byteOffset);
const selfMap = new Map();
selfMap.set(selfMap, selfMap);
const cm = structuredClone(selfMap);
console.log(cm.get(cm) === cm);

// Errors keep their kind (standard names only), message, stack and cause.
const e = new TypeError('bad');
e.extra = 1;
const ce = structuredClone(e);
console.log(ce instanceof TypeError, ce.name, ce.message, Object.keys(ce),
  ce.stack === e.stack, ce !== e);
const e3 = new Error('m');
e3.name = 'CustomErr';
console.log(structuredClone(e3).name);
class MyErr extends Error {}
const c5 = structuredClone(new MyErr('q'));
console.log(c5.constructor.name, c5.name, c5.message);
console.log(structuredClone(new Error('x', { cause: 'why' })).cause);
console.log(structuredClone(new RangeError()).message === '',
  Object.prototype.hasOwnProperty.call(structuredClone(new RangeError()), 'message'));

// Primitives come back as they are.
for (const v of [1, 'two', true, null, undefined, 3n, -0, NaN, Infinity]) {
  console.log(Object.is(structuredClone(v), v));
}
console.log(structuredClone(new Date(NaN)));
const r = /x/y;
r.lastIndex = 3;
r.foo = 1;
console.log(structuredClone(r), structuredClone(r).lastIndex, structuredClone(r).foo);

// Transfer: the buffer moves, the original is detached.
const buf = new Uint8Array([7, 8, 9]).buffer;
const moved = structuredClone({ buf }, { transfer: [buf] });
console.log(buf.byteLength, moved.buf.byteLength, new Uint8Array(moved.buf));

// What cannot be cloned.
const t = (label, f) => {
  try {
    console.log(label, 'ok', f());
  } catch (err) {
    console.log(label, `${err.constructor.name} ${err.name} ${err.code}: ${err.message}`);
  }
};
t('arrow', () => structuredClone(() => {}));
t('function', () => structuredClone(function foo() { return 1; }));
t('method in object', () => structuredClone({ f() {} }));
t('symbol', () => structuredClone(Symbol('x')));
t('symbol in object', () => structuredClone({ a: Symbol('x') }));
t('function in map', () => structuredClone(new Map([[1, () => 1]])));
t('no argument', () => structuredClone());
t('WeakMap', () => structuredClone(new WeakMap()));
t('WeakSet', () => structuredClone([new WeakSet()]));
t('Promise', () => structuredClone(Promise.resolve()));
t('boxed symbol', () => structuredClone(Object(Symbol('q'))));
t('transfer not iterable', () => structuredClone(1, { transfer: 5 }));
t('transfer a string', () => structuredClone(1, { transfer: 'ab' }));
t('transfer an object', () => structuredClone(1, { transfer: [{}] }));
const twice = new ArrayBuffer(2);
t('transfer twice', () => structuredClone(1, { transfer: [twice, twice] }));
console.log('not detached after a failed transfer:', twice.byteLength);
t('options a number', () => structuredClone(1, 5));
t('options null', () => structuredClone(1, null));
t('options without transfer', () => structuredClone('v', {}));
