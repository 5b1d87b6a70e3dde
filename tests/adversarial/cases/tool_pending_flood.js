// 200 calls whose 4 MB results the script does not collect while it spins: the
// host holds results only up to the sandbox's budget (its memory limit, 32 MiB
// here), and refuses the results beyond it with resource_exhausted, freeing them
// at once. Every call still settles once the script waits.
const calls = [];
for (let i = 0; i < 200; i++) calls.push(tools.big({}).then(() => 'ok', (e) => e.code));
const end = Date.now() + 4000;
while (Date.now() < end) {}
const n = {};
for (const c of await Promise.all(calls)) n[c] = (n[c] || 0) + 1;
console.log('settled', (n.ok | 0) + (n.resource_exhausted | 0), Object.keys(n).sort().join(','));
