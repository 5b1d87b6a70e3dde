// Small allocations fill the heap to within a few bytes of the limit, so
// that the error object itself must still be allocated.
const kept = [];
for (;;) {
  kept.push('x'.repeat(100) + kept.length);
}
