console.log(Promise.resolve(1));
console.log(Promise.resolve({ a: [1, 2] }));
console.log(new Promise(() => {}));
const rejected = Promise.reject('reason');
rejected.catch(() => {});
console.log(rejected);
console.log([Promise.resolve('nested')], { p: new Promise(() => {}) });
async function run() { return 'done'; }
console.log(run());
