// A capability's budget is spent once per allowed call; beyond it, calls are refused.
const a = await tools.incidents.create({ service: 'api', minutes: 30 });
let second;
try { await tools.incidents.create({ service: 'api', minutes: 45 }); second = 'CREATED'; }
catch (e) { second = e.message; }
console.log(a !== null && typeof a === 'object', second);
