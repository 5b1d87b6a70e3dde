// Replacing the JS side of the tools grants nothing: the bindings are frozen (or,
// if replaced, only call the replacement), and the host checks every real call.
try { tools.math = { add: async () => 42 }; } catch (e) {}
try { globalThis.math_add = async () => 42; } catch (e) {}
const outcome = async (f) => { try { return JSON.stringify(await f()); } catch (e) { return e.code; } };
const viaNamespace = await outcome(() => tools.math.add({ a: 1, b: 2 }));
const viaFlat = await outcome(() => math_add({ a: 1, b: 2 }));
const viaCall = await outcome(() => tools.call('math.add', '{"a":1,"b":2}'));
const hidden = ['__capsa', '__capsaTools', '__capsaFs', '__capsaWeb'].filter((n) => n in globalThis);
console.log(viaNamespace, viaFlat, viaCall, JSON.stringify(hidden));
