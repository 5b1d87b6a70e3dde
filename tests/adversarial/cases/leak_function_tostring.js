// Built-ins show [native code]; the runtime's console is plain JavaScript whose
// source holds nothing of the host.
const natives = [JSON.stringify, Object.defineProperty, Promise.prototype.then, eval].map(
  (f) => Function.prototype.toString.call(f).includes('[native code]'));
const src = Object.values(console).filter((f) => typeof f === 'function')
  .map((f) => Function.prototype.toString.call(f)).join('\n');
return [natives, /\/work|\/home|\/root|\/tmp\//.test(src)];
