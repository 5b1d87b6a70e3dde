// Every kind of callback that reschedules itself, when the sandbox has them.
if (typeof setTimeout === 'function') {
  (function t() { setTimeout(t, 0); })();
  (function i() { setImmediate(i); })();
  (function q() { queueMicrotask(q); })();
} else {
  for (;;) {}
}
