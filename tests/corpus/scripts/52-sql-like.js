// In-memory "SQL": join orders to customers and products, group, aggregate, filter, order, limit.
const customers = [
  { id: 1, name: 'Acme Corp', country: 'US' }, { id: 2, name: 'Globex', country: 'DE' },
  { id: 3, name: 'Initech', country: 'US' }, { id: 4, name: 'Umbrella', country: 'UK' },
];
const products = [
  { sku: 'A', title: 'Anvil', price: 120 }, { sku: 'B', title: 'Bolt pack', price: 4.5 },
  { sku: 'C', title: 'Crate', price: 35 }, { sku: 'D', title: 'Drill', price: 89.99 },
];
const orders = [
  { id: 100, customer: 1, sku: 'A', qty: 2, date: '2024-01-10' }, { id: 101, customer: 2, sku: 'B', qty: 100, date: '2024-01-11' },
  { id: 102, customer: 1, sku: 'C', qty: 5, date: '2024-02-01' }, { id: 103, customer: 3, sku: 'D', qty: 1, date: '2024-02-03' },
  { id: 104, customer: 2, sku: 'A', qty: 1, date: '2024-02-20' }, { id: 105, customer: 1, sku: 'B', qty: 40, date: '2024-03-02' },
  { id: 106, customer: 5, sku: 'C', qty: 3, date: '2024-03-05' }, { id: 107, customer: 3, sku: 'Z', qty: 9, date: '2024-03-07' },
];
const byId = new Map(customers.map((c) => [c.id, c]));
const bySku = new Map(products.map((p) => [p.sku, p]));
// SELECT ... FROM orders LEFT JOIN customers LEFT JOIN products
const joined = orders.map((o) => ({ ...o, customerName: byId.get(o.customer)?.name ?? null, country: byId.get(o.customer)?.country ?? null, title: bySku.get(o.sku)?.title ?? null, amount: bySku.has(o.sku) ? +(bySku.get(o.sku).price * o.qty).toFixed(2) : null }));
console.table(joined.map(({ id, customerName, title, qty, amount }) => ({ id, customerName, title, qty, amount })));
// orphan rows (INNER JOIN would drop these)
console.log('orphans:', joined.filter((r) => r.customerName === null || r.title === null).map((r) => r.id));
// GROUP BY customer HAVING sum(amount) > 100 ORDER BY total DESC
const groups = new Map();
for (const r of joined.filter((r) => r.customerName && r.amount != null)) {
  const g = groups.get(r.customerName) ?? { customer: r.customerName, orders: 0, total: 0, skus: new Set() };
  g.orders++; g.total += r.amount; g.skus.add(r.sku);
  groups.set(r.customerName, g);
}
const report = [...groups.values()].filter((g) => g.total > 100).sort((a, b) => b.total - a.total).map((g) => ({ ...g, total: g.total.toFixed(2), skus: [...g.skus].join(',') }));
console.log(report);
// monthly revenue by country (pivot)
const months = [...new Set(joined.map((r) => r.date.slice(0, 7)))].sort();
const countries = [...new Set(joined.map((r) => r.country).filter(Boolean))].sort();
const pivot = Object.fromEntries(countries.map((c) => [c, Object.fromEntries(months.map((m) => [m, joined.filter((r) => r.country === c && r.date.startsWith(m)).reduce((s, r) => s + (r.amount ?? 0), 0)]))]));
console.table(pivot);
// customers without orders (anti-join), top product by units, LIMIT 2 OFFSET 1
console.log(customers.filter((c) => !orders.some((o) => o.customer === c.id)).map((c) => c.name));
const units = orders.reduce((m, o) => ({ ...m, [o.sku]: (m[o.sku] ?? 0) + o.qty }), {});
console.log(Object.entries(units).sort(([, a], [, b]) => b - a)[0], joined.toSorted((a, b) => (b.amount ?? -1) - (a.amount ?? -1)).slice(1, 3).map((r) => r.id));
const distinctCount = new Set(orders.map((o) => `${o.customer}:${o.sku}`)).size;
console.log({ rows: orders.length, distinctPairs: distinctCount, avgQty: +(orders.reduce((s, o) => s + o.qty, 0) / orders.length).toFixed(3) });
