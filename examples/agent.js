// An agent-style script: the kind of code a model writes in one turn to answer
// "which services had the most failed deploys last week, and how bad was it?".
// It loops, filters, groups and formats, then returns a summary as the run's value.
// (Data is inline here; with tools, it would come from `await tools.deploys.list(...)`.)

const deploys = [
  { service: "api",      env: "prod",    status: "failed",  minutes: 14, at: "2026-11-23T09:12:00Z" },
  { service: "api",      env: "prod",    status: "success", minutes: 6,  at: "2026-11-23T10:40:00Z" },
  { service: "billing",  env: "prod",    status: "failed",  minutes: 31, at: "2026-11-24T15:02:00Z" },
  { service: "billing",  env: "staging", status: "failed",  minutes: 3,  at: "2026-11-24T15:30:00Z" },
  { service: "search",   env: "prod",    status: "success", minutes: 9,  at: "2026-11-25T08:00:00Z" },
  { service: "billing",  env: "prod",    status: "failed",  minutes: 12, at: "2026-11-26T11:45:00Z" },
  { service: "api",      env: "prod",    status: "failed",  minutes: 8,  at: "2026-11-27T17:20:00Z" },
  { service: "frontend", env: "prod",    status: "success", minutes: 4,  at: "2026-11-28T13:05:00Z" },
];

// Only production failures count.
const failures = deploys.filter(d => d.env === "prod" && d.status === "failed");

// Group by service.
const byService = new Map();
for (const d of failures) {
  const s = byService.get(d.service) ?? { service: d.service, failures: 0, minutesLost: 0, days: new Set() };
  s.failures += 1;
  s.minutesLost += d.minutes;
  s.days.add(new Date(d.at).toISOString().slice(0, 10));
  byService.set(d.service, s);
}

const ranking = [...byService.values()]
  .sort((a, b) => b.failures - a.failures || b.minutesLost - a.minutesLost)
  .map(s => ({ service: s.service, failures: s.failures, minutesLost: s.minutesLost, days: [...s.days] }));

console.log(`${failures.length} failed production deploys across ${ranking.length} services`);
for (const r of ranking) {
  console.log(`- ${r.service.padEnd(8)} ${r.failures} failures, ${r.minutesLost} min lost (${r.days.join(", ")})`);
}
console.log(ranking[0]);

// Simulate waiting on something asynchronous, as a tool call would.
await new Promise(resolve => resolve());

return {
  worst: ranking[0].service,
  totalMinutesLost: ranking.reduce((sum, r) => sum + r.minutesLost, 0),
  ranking,
};
