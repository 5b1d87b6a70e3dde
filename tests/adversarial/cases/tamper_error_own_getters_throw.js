// A thrown error whose own name, message and stack getters throw: the run
// still ends as a clean error.
const e = new Error('hidden');
for (const k of ['name', 'message', 'stack'])
  Object.defineProperty(e, k, { get() { throw new Error('getter ' + k); } });
throw e;
