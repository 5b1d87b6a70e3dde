// Arguments built to make the host's schema check slow or deep: strings that make
// backtracking regular expressions take exponential time, many property names, a
// value nested past the validator's depth bound, a large array for uniqueItems, and
// a flood of such calls. Each is refused (invalid_arguments) within the run's time
// limit, and the tool never runs (it would print CALLED).
const big = 'a'.repeat(400000);
const codes = new Set();
const probe = async (args) => {
  try { await tools.guarded.echo(args); codes.add('CALLED'); } catch (e) { codes.add(e.code); }
};
for (let i = 0; i < 100; i++) await probe({ s: big + '!' });
for (let i = 0; i < 100; i++) await probe({ t: big });
const keys = {};
for (let i = 0; i < 20000; i++) keys['x'.repeat(30) + i] = i;
await probe({ k: keys });
let deep = [];
for (let i = 0; i < 5000; i++) deep = [deep];
await probe({ tree: deep });
const many = [];
for (let i = 0; i < 100000; i++) many.push({ i, s: 'v' + i });
many.push({ i: 5, s: 'v5' });
await probe({ set: many });
await Promise.all(Array.from({ length: 200 }, () => probe({ s: big.slice(0, 50000) + 'b' })));
console.log('codes', [...codes].join(','));
