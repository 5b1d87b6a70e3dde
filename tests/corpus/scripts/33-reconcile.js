// Reconcile two exports of the same records: added, removed, changed fields.
const before = [
  { id: 'u1', name: 'Ann', email: 'ann@x.io', plan: 'pro', seats: 5 },
  { id: 'u2', name: 'Bob', email: 'bob@x.io', plan: 'free', seats: 1 },
  { id: 'u3', name: 'Cy', email: 'cy@x.io', plan: 'team', seats: 12 },
  { id: 'u4', name: 'Di', email: 'di@x.io', plan: 'pro', seats: 2 },
];
const after = [
  { id: 'u1', name: 'Ann', email: 'ann@x.io', plan: 'team', seats: 8 },
  { id: 'u3', name: 'Cy', email: 'cy@new.io', plan: 'team', seats: 12 },
  { id: 'u4', name: 'Di', email: 'di@x.io', plan: 'pro', seats: 2 },
  { id: 'u5', name: 'Ed', email: 'ed@x.io', plan: 'free', seats: 1, trial: true },
];
const index = (rows) => new Map(rows.map((r) => [r.id, r]));
const a = index(before), b = index(after);
const added = [...b.keys()].filter((k) => !a.has(k));
const removed = [...a.keys()].filter((k) => !b.has(k));
const changed = [];
for (const [id, old] of a) {
  const cur = b.get(id);
  if (!cur) continue;
  const keys = new Set([...Object.keys(old), ...Object.keys(cur)]);
  const diffs = {};
  for (const k of keys) if (old[k] !== cur[k]) diffs[k] = { from: old[k], to: cur[k] };
  if (Object.keys(diffs).length) changed.push({ id, diffs });
}
console.log({ added, removed, unchanged: before.length - removed.length - changed.length });
console.dir(changed, { depth: null });
for (const { id, diffs } of changed) {
  for (const [k, { from, to }] of Object.entries(diffs)) console.log(`~ ${id}.${k}: ${JSON.stringify(from)} → ${JSON.stringify(to)}`);
}
for (const id of added) console.log(`+ ${id}`, b.get(id));
for (const id of removed) console.log(`- ${id}`, a.get(id));
const seatDelta = after.reduce((s, r) => s + r.seats, 0) - before.reduce((s, r) => s + r.seats, 0);
console.log('seat delta:', seatDelta > 0 ? `+${seatDelta}` : seatDelta);
const planMoves = changed.filter((c) => c.diffs.plan).map((c) => `${c.diffs.plan.from}->${c.diffs.plan.to}`);
console.log(planMoves);
function deepEqual(x, y) {
  if (Object.is(x, y)) return true;
  if (typeof x !== 'object' || typeof y !== 'object' || !x || !y) return false;
  if (Array.isArray(x) !== Array.isArray(y)) return false;
  const kx = Object.keys(x), ky = Object.keys(y);
  return kx.length === ky.length && kx.every((k) => deepEqual(x[k], y[k]));
}
console.log(deepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), deepEqual({ a: [1] }, { a: [1, 2] }), deepEqual(NaN, NaN), deepEqual([], {}));
