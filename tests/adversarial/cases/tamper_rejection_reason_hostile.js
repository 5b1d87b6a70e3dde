// An unhandled rejection whose reason fights the console.
const reason = new Proxy({}, { ownKeys() { throw new Error('ownKeys'); }, get() { throw new Error('get'); } });
Promise.reject(reason);
return 'end';
