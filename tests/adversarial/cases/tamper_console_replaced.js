globalThis.console = { log() { throw new Error('fake console'); } };
try { console.log('x'); } catch (e) { globalThis.caught = e.message; }
delete globalThis.console;
Promise.reject(new Error('unhandled after console is gone'));
return [typeof console, caught];
