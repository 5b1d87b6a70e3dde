// A queueMicrotask callback that throws ends the run with its error; no timer runs after.
// Stack frames name the test's absolute path: the errors keep only their first line.
const bare = (err) => Object.defineProperty(err, 'stack', { value: '' });
queueMicrotask(() => {
  throw bare(new TypeError('from a microtask'));
});
setTimeout(() => console.log('never printed'), 1);
setImmediate(() => console.log('never printed either'));
console.log('main done');
