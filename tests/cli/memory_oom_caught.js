// Allocation past the limit throws an error the script can catch; the
// sandbox goes on once the memory is released.
let chunks = [];
try {
  for (;;) {
    chunks.push('x'.repeat(1000) + chunks.length);
  }
} catch (e) {
  const count = chunks.length;
  chunks = null;
  console.log(e instanceof InternalError, e.name, e.message, count > 1000);
}
return 'recovered';
