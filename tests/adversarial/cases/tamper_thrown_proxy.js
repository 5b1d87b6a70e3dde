// A thrown proxy whose every trap throws.
const h = {};
for (const t of ['get', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf', 'apply'])
  h[t] = () => { throw new Error('trap ' + t); };
throw new Proxy({}, h);
