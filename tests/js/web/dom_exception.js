// DOMException: name, message and legacy code, its place among errors, and printing.
const d = new DOMException('cannot clone', 'DataCloneError');
console.log(d.name, d.message, d.code, String(d), d instanceof DOMException, d instanceof Error);
console.log(Object.getOwnPropertyNames(d), Object.keys(d), typeof d.stack);
console.log(Object.getPrototypeOf(DOMException.prototype) === Error.prototype,
  Object.prototype.toString.call(d));
console.log(DOMException.DATA_CLONE_ERR, d.DATA_CLONE_ERR, DOMException.INDEX_SIZE_ERR,
  DOMException.QUOTA_EXCEEDED_ERR);
const plain = new DOMException();
console.log(JSON.stringify(plain.message), plain.name, plain.code);
const custom = new DOMException('m', 'NotARealName');
console.log(custom.name, custom.code);
const withCause = new DOMException('x', { name: 'AbortError', cause: 'why' });
console.log(withCause.name, withCause.code, withCause.cause);
const objName = new DOMException('y', {});
console.log(objName.name);
console.log(new DOMException(42, 7).message, new DOMException(42, 7).name);
try {
  throw new DOMException('thrown', 'SyntaxError');
} catch (e) {
  console.log(e.name, e.code, e.message);
}
console.log(Object.keys(DOMException.prototype).slice(0, 5));
const t = (label, f) => {
  try {
    console.log(label, 'ok', f());
  } catch (e) {
    console.log(label, `${e.name} ${e.code}: ${e.message}`);
  }
};
t('name getter on a plain object',
  () => Object.getOwnPropertyDescriptor(DOMException.prototype, 'name').get.call({}));
