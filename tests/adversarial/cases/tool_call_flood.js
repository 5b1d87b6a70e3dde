// Thousands of calls at once: the host holds at most 1024 in flight and refuses
// the rest at once (resource_exhausted); every promise settles and the run ends.
const calls = [];
for (let i = 0; i < 3000; i++) calls.push(tools.call('deploys/list', '{}').catch((e) => e.code));
const codes = await Promise.all(calls);
const counts = {};
for (const c of codes) counts[c] = (counts[c] || 0) + 1;
console.log(JSON.stringify(counts));
