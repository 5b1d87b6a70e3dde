// Object.hasOwn (ES2022): hasOwnProperty as a static function, for objects without
// Object.prototype and objects that shadow hasOwnProperty.
const show = (label, f) => {
  try {
    console.log(label, f());
  } catch (e) {
    console.log(label, 'threw', e.name);
  }
};

const sym = Symbol('s');
const o = { a: 1, [sym]: 2, 3: 'three' };
show('own', () => Object.hasOwn(o, 'a'));
show('inherited', () => Object.hasOwn(o, 'toString'));
show('missing', () => Object.hasOwn(o, 'b'));
show('symbol', () => Object.hasOwn(o, sym));
show('number key', () => Object.hasOwn(o, 3));
show('undefined value', () => Object.hasOwn({ u: undefined }, 'u'));
show('null prototype', () => Object.hasOwn(Object.create(null, { x: { value: 1 } }), 'x'));
show('shadowed hasOwnProperty', () => Object.hasOwn({ hasOwnProperty: () => true }, 'y'));
show('array index', () => [Object.hasOwn([1, , 3], 1), Object.hasOwn([1, , 3], 2), Object.hasOwn([], 'length')]);
show('string', () => [Object.hasOwn('abc', 1), Object.hasOwn('abc', 'length'), Object.hasOwn('abc', 5)]);
show('number', () => Object.hasOwn(5, 'toFixed'));
show('function', () => Object.hasOwn(function f(a, b) {}, 'length'));
show('key object', () => Object.hasOwn(o, { toString: () => 'a' }));
show('null', () => Object.hasOwn(null, 'a'));
show('undefined', () => Object.hasOwn(undefined, 'a'));
show('no arguments', () => Object.hasOwn());
show('ToObject before the key', () => {
  const log = [];
  try {
    Object.hasOwn(null, { toString() { log.push('key'); return 'a'; } });
  } catch (e) {
    log.push(e.name);
  }
  return log.join(', ');
});
show('proxy', () => {
  const log = [];
  const p = new Proxy({ a: 1 }, {
    getOwnPropertyDescriptor(t, k) { log.push(`gOPD ${String(k)}`); return Reflect.getOwnPropertyDescriptor(t, k); },
    has(t, k) { log.push(`has ${String(k)}`); return Reflect.has(t, k); },
  });
  return [Object.hasOwn(p, 'a'), log.join(', ')];
});
