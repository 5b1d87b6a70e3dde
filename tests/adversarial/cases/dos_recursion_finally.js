// Every level recurses again from its finally block: exponential, and each
// stack overflow is swallowed by the next finally. Only the time limit ends it.
function f() {
  try {
    f();
  } finally {
    f();
  }
}
f();
