// process: argv, env, exitCode, stdout/stderr.write, cwd, hrtime, nextTick's order
// against promises, timers and immediates, platform, versions, memoryUsage.
const path = require('node:path');
console.log(process.argv.length >= 2, path.basename(process.argv[1]), typeof process.argv[0]);
console.log(typeof process.env, process.env.CAPSA_TEST_UNSET, 'CAPSA_TEST_UNSET' in process.env);
process.env.CAPSA_TEST_SET = 42;
console.log(process.env.CAPSA_TEST_SET, typeof process.env.CAPSA_TEST_SET);
delete process.env.CAPSA_TEST_SET;
console.log(process.env.CAPSA_TEST_SET);
console.log(process.cwd() === path.resolve('.'), path.isAbsolute(process.cwd()));
console.log(process.platform, typeof process.arch, typeof process.pid);
console.log(typeof process.versions.node, /^\d+\.\d+\.\d+$/.test(process.versions.node),
  process.version === `v${process.versions.node}`);
const mem = process.memoryUsage();
console.log(Object.keys(mem).join(), Object.values(mem).every((n) => Number.isInteger(n) && n >= 0));
console.log(typeof process.memoryUsage.rss());

const t = process.hrtime();
console.log(Array.isArray(t), t.length, t.every(Number.isInteger), t[1] < 1e9);
const d = process.hrtime(t);
console.log(d[0] >= 0, d[1] >= 0);
const b1 = process.hrtime.bigint();
const b2 = process.hrtime.bigint();
console.log(typeof b1, b2 >= b1);
try {
  process.hrtime(1);
} catch (e) {
  console.log(e.code, e.message);
}

console.log(process.stdout.write('to stdout\n'), process.stderr.write('to stderr\n'));
process.stdout.write(Buffer.from('a buffer\n'));
process.stdout.write(new Uint8Array([0x75, 0x38, 0x0a]));
try {
  process.stdout.write(5);
} catch (e) {
  console.log(e.code, e.message);
}
process.stdout.write('with callback\n', () => console.log('write callback'));

const order = [];
setTimeout(() => order.push('timeout'), 0);
Promise.resolve().then(() => order.push('promise 1'));
process.nextTick(() => {
  order.push('tick 1');
  process.nextTick(() => order.push('tick from tick'));
  Promise.resolve().then(() => order.push('promise from tick'));
});
process.nextTick((a, b) => order.push(`tick 2 ${a} ${b}`), 'x', 'y');
queueMicrotask(() => order.push('microtask'));
order.push('sync');
setTimeout(() => console.log(order.join(' | ')), 5);
try {
  process.nextTick(5);
} catch (e) {
  console.log(e.code, e.message);
}

console.log(process.exitCode);
for (const bad of [1.5, 'x', {}]) {
  try {
    process.exitCode = bad;
  } catch (e) {
    console.log(e.code, e.message);
  }
}
process.exitCode = '3';
console.log(process.exitCode);
