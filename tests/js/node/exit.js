// process.exit(): the run ends at once; no catch or finally block, timer or promise
// callback runs after it; its code is the exit status.
setTimeout(() => console.log('timer ran'), 0);
Promise.resolve().then(() => console.log('promise ran'));
process.nextTick(() => console.log('tick ran'));
process.exitCode = 9;
try {
  console.log('before exit');
  process.exit(7);
  console.log('after exit');
} catch (e) {
  console.log('caught', e);
} finally {
  console.log('finally ran');
}
console.log('end of script');
