// The runtime's host objects are deleted before any script runs and cannot be
// reached again: not as globals, not through descriptors, not through eval.
const names = Reflect.ownKeys(globalThis).map(String).filter((n) => /capsa/i.test(n));
return [names, typeof __capsa, typeof __capsaWeb, 'write' in globalThis,
  Object.getOwnPropertyDescriptor(globalThis, '__capsa') === undefined,
  (0, eval)('typeof __capsa'), Reflect.has(globalThis, '__capsa')];
