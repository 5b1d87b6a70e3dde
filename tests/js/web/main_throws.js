// When the script itself throws, the timers it set never fire.
// Stack frames name the test's absolute path: the errors keep only their first line.
const bare = (err) => Object.defineProperty(err, 'stack', { value: '' });
setTimeout(() => console.log('never printed'), 1);
setImmediate(() => console.log('never printed either'));
console.log('main runs');
throw bare(new Error('the script threw'));
