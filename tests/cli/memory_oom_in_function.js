// The error is thrown in a function; the heap is then so full that the
// error's message could be lost.
const kept = [];
function fill() {
  for (;;) {
    kept.push('x'.repeat(1000) + kept.length);
  }
}
fill();
