// Deduplicate user records by normalised email, merging fields and keeping the newest.
const users = [
  { email: 'Ann@Example.com ', name: 'Ann', updated: '2024-03-01T10:00:00Z', tags: ['a'] },
  { email: 'bob@example.com', name: 'Bob', updated: '2024-01-15T08:30:00Z', tags: [] },
  { email: 'ann@example.com', name: 'Ann Lee', updated: '2024-04-02T09:00:00Z', tags: ['b', 'a'] },
  { email: 'carl@example.org', name: 'Carl', updated: '2023-12-31T23:59:59Z', tags: ['x'] },
  { email: 'BOB@example.com', name: null, updated: '2024-02-01T00:00:00Z', tags: ['vip'] },
];

const norm = (e) => e.trim().toLowerCase();
const merged = new Map();
for (const u of users) {
  const key = norm(u.email);
  const prev = merged.get(key);
  if (!prev) {
    merged.set(key, { ...u, email: key, tags: [...u.tags], sources: 1 });
    continue;
  }
  const newer = Date.parse(u.updated) > Date.parse(prev.updated);
  merged.set(key, {
    email: key,
    name: (newer ? u.name ?? prev.name : prev.name ?? u.name),
    updated: newer ? u.updated : prev.updated,
    tags: [...new Set([...prev.tags, ...u.tags])].sort(),
    sources: prev.sources + 1,
  });
}
console.log(merged);
console.log([...merged.values()].map((u) => `${u.email.padEnd(18)} ${String(u.sources).padStart(2)} ${u.tags.join(',') || '-'}`).join('\n'));

const nums = [3, 1, 3, 2, 1, 5, 2, 3];
console.log([...new Set(nums)], nums.filter((n, i) => nums.indexOf(n) === i));
const counts = nums.reduce((m, n) => m.set(n, (m.get(n) || 0) + 1), new Map());
console.log(counts, [...counts].filter(([, c]) => c > 1).map(([n]) => n));
const byKey = (arr, key) => Object.values(Object.fromEntries(arr.map((x) => [key(x), x])));
console.log(byKey([{ id: 1, v: 'a' }, { id: 2, v: 'b' }, { id: 1, v: 'c' }], (x) => x.id));
