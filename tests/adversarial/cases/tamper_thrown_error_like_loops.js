// Inherits from Error.prototype without being an Error: the console prints it
// as an error and reads its stack, here a getter that never returns.
const e = Object.create(Error.prototype, { stack: { get() { for (;;) {} } } });
throw e;
