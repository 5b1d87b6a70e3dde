// As memory_oom_caught, with allocations small enough to exhaust the heap
// completely: the catch block must still receive the error.
let chunks = [];
try {
  for (;;) {
    chunks.push('x'.repeat(100) + chunks.length);
  }
} catch (e) {
  chunks = null;
  console.log('caught:', e === null ? 'null' : `${e.name}: ${e.message}`);
}
return 'recovered';
