// Recursive calls: fib(27) .. fib(30), about six million calls of a small function.
// Plain statements, so that the same file runs as a global script in native QuickJS
// and as the body of a capsa run; function and var declarations may be repeated.
function fib(n) {
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

var benchResult = 0;
for (var n = 27; n <= 30; n++)
    benchResult += fib(n);
