// An agent-style script with tools: "which services had failed deploys last week? File
// an incident for the worst one." It calls host tools (external commands, see
// examples/tools/tools.json), concurrently, under a capability policy
// (examples/tools/policy.json) that the host checks on every call: deploys/* is
// allowed, incidents/create only for 20 minutes lost or more and once, math.add not
// at all. Run it with `make demo`, or:
//   PATH=build:$PATH build/capsa run --tools examples/tools/tools.json \
//       --policy examples/tools/policy.json examples/tools_agent.js

// The tools this sandbox has (their TypeScript declarations are in /tools).
console.log("tools:", tools.list().map(t => t.name).join(", "));

// One call per service, all at once: the host runs them concurrently.
const services = ["api", "billing", "search", "frontend"];
const lists = await Promise.all(services.map(service => tools.deploys.list({ service })));

const summary = services.map((service, i) => {
  const failed = lists[i].filter(d => d.status === "failed");
  return { service, failures: failed.length, minutesLost: failed.reduce((n, d) => n + d.minutes, 0) };
}).filter(s => s.failures > 0).sort((a, b) => b.minutesLost - a.minutesLost);
console.table(summary);

// The policy decides what the script may do, whatever it tries.
const worst = summary[0];
const ticket = await incidents_create({ service: worst.service, minutes: worst.minutesLost });
console.log(`filed ${ticket.ticket} for ${worst.service}`);
for (const attempt of [
  () => incidents_create({ service: summary[1].service, minutes: summary[1].minutesLost }),
  () => tools.math.add({ a: 1, b: 2 }),
]) {
  try {
    await attempt();
  } catch (e) {
    console.log(`refused (${e.code}): ${e.message}`);
  }
}

// Every call is in the sandbox's audit trail, which the script may read, not change.
const trail = require("fs").readFileSync("/log/actions.jsonl", "utf8").trim().split("\n")
  .map(line => JSON.parse(line)).filter(e => e.event === "tool_call");
console.log(`audit: ${trail.length} calls, ${trail.filter(e => e.decision === "denied").length} denied`);

return { worst: worst.service, ticket: ticket.ticket };
