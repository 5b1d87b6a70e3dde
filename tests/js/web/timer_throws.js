// A timer callback that throws ends the run with its error, as it ends a Node process:
// the timers still pending never fire.
// Stack frames name the test's absolute path: the errors keep only their first line.
const bare = (err) => Object.defineProperty(err, 'stack', { value: '' });
setTimeout(() => console.log('first timer'), 1);
setTimeout(function failing() {
  console.log('second timer throws');
  throw bare(new RangeError('from a timer'));
}, 5);
setTimeout(() => console.log('never printed'), 20);
setInterval(() => console.log('never printed either'), 30);
console.log('main done');
