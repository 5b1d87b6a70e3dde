// Stack overflow is an ordinary catchable error, and the sandbox goes on.
function f() { return f(); }
let first;
try {
  f();
} catch (e) {
  first = `${e.name}: ${e.message}`;
}
function g(n) { return n === 0 ? 0 : 1 + g(n - 1); }
return [first, g(1000)];
