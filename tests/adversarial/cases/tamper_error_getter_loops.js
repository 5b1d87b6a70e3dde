// A getter that never returns, read when the error is reported: the time
// limit still stops the run.
const e = new Error('x');
Object.defineProperty(e, 'message', { get() { for (;;) {} } });
throw e;
