// Thousands of calls at once, all denied: after the run's 1000 denials the host
// refuses every further call at once (resource_exhausted), as it does beyond
// 1024 calls in flight; every promise settles and the run ends.
const calls = [];
for (let i = 0; i < 3000; i++) calls.push(tools.call('deploys/list', '{}').catch((e) => e.code));
const codes = await Promise.all(calls);
const counts = {};
for (const c of codes) counts[c] = (counts[c] || 0) + 1;
console.log(JSON.stringify(counts));
