// node:util: format, inspect, promisify, callbackify, types, TextEncoder/TextDecoder,
// inherits, deprecate, isDeepStrictEqual.
const util = require('node:util');
console.log(util === require('util'), util.types === require('util/types'));
console.log(util.format('%s|%d|%i|%f|%j|%o|%O|%%|%c.', 'str', '42', 3.9, '1.5', { a: [1] },
  [1, { b: 2 }], { c: new Map([[1, 2]]) }, 'css'));
console.log(util.format('%s', Symbol('s'), 1n, null, undefined, -0), util.format(1, 'a', { x: 1 }));
console.log(util.format('%d %i', 12n, '0x10'), util.format('%s:%s', 'only one'));
console.log(util.inspect({ a: { b: { c: { d: 1 } } } }), util.inspect({ a: { b: { c: { d: 1 } } } }, { depth: 0 }));
console.log(util.inspect('str'), util.inspect([1, 2, 3], { compact: false }));
console.log(util.inspect(new Array(120).fill(7), { maxArrayLength: 3 }));
console.log(util.inspect({ s: 'x'.repeat(30) }, { maxStringLength: 5 }), util.inspect(new Set([1]), { showHidden: true }));
console.log(util.inspect({ b: 2, a: 1 }, { sorted: true }), util.inspect(-0));
class Custom {
  [util.inspect.custom](depth, options, inspect) {
    return `Custom<${depth},${typeof options.stylize},${inspect === util.inspect}>`;
  }
}
console.log(util.inspect(new Custom()), [new Custom()], util.inspect.custom === Symbol.for('nodejs.util.inspect.custom'));
console.log(util.formatWithOptions({ compact: false }, '%o!', { a: 1 }));

const cbStyle = (a, b, cb) => setTimeout(() => (a < 0 ? cb(new Error('negative')) : cb(null, a + b)), 0);
const p = util.promisify(cbStyle);
const custom = () => {};
custom[util.promisify.custom] = () => Promise.resolve('custom!');
(async () => {
  console.log(await p(1, 2));
  try {
    await p(-1, 2);
  } catch (e) {
    console.log('rejected', e.message);
  }
  console.log(await util.promisify(custom)(), util.promisify(custom) === custom[util.promisify.custom]);
  console.log(await util.promisify(setTimeout)(1, 'slept'));
  const cb = util.callbackify(async (x) => x * 2);
  cb(21, (err, v) => console.log('callbackify', err, v));
  const cbFail = util.callbackify(async () => { throw new Error('cb fail'); });
  cbFail((err) => console.log('callbackify error', err.message));
  const cbNull = util.callbackify(() => Promise.reject(null));
  cbNull((err) => console.log('callbackify null', err.code, err.reason));
})();
try {
  util.promisify(5);
} catch (e) {
  console.log(e.code, e.message);
}

const t = util.types;
console.log(t.isPromise(Promise.resolve()), t.isPromise({ then() {} }), t.isRegExp(/x/),
  t.isDate(new Date()), t.isMap(new Map()), t.isSet(new Set()), t.isWeakMap(new WeakMap()));
console.log(t.isTypedArray(new Uint8Array()), t.isUint8Array(Buffer.alloc(1)), t.isArrayBuffer(new ArrayBuffer(1)),
  t.isAnyArrayBuffer(new SharedArrayBuffer(1)), t.isDataView(new DataView(new ArrayBuffer(1))));
console.log(t.isAsyncFunction(async () => {}), t.isGeneratorFunction(function* () {}),
  t.isGeneratorObject((function* () {})()), t.isNativeError(new TypeError()), t.isNativeError({ name: 'Error' }));
console.log(t.isBoxedPrimitive(Object(1)), t.isNumberObject(Object(1)), t.isStringObject('s'),
  t.isSymbolObject(Object(Symbol())), t.isBigInt64Array(new BigInt64Array(1)), t.isMapIterator(new Map().keys()));
console.log(Object.keys(t).length > 40);

const enc = new util.TextEncoder();
console.log(util.TextEncoder === TextEncoder, util.TextDecoder === TextDecoder, enc.encode('é€'),
  new util.TextDecoder().decode(enc.encode('round trip')));

function Base() {}
Base.prototype.hello = function () { return 'hello'; };
function Derived() { Base.call(this); }
util.inherits(Derived, Base);
console.log(new Derived().hello(), Derived.super_ === Base);
const dep = util.deprecate(() => 'old', 'old() is deprecated', 'DEP_CAPSA_TEST');
console.log(dep(), dep());
console.log(util.isDeepStrictEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }),
  util.isDeepStrictEqual([1], ['1']), util.isArray([]), util.inspect.defaultOptions.depth);
console.log(util.stripVTControlCharacters('\u001b[31mred\u001b[39m'), util.toUSVString('a\ud800b'));
