// Group sales records by region and product, compute totals and averages.
const sales = [
  { id: 1, region: 'north', product: 'widget', qty: 12, price: 9.99, date: '2024-01-03' },
  { id: 2, region: 'south', product: 'gadget', qty: 3, price: 24.5, date: '2024-01-04' },
  { id: 3, region: 'north', product: 'gadget', qty: 7, price: 24.5, date: '2024-01-09' },
  { id: 4, region: 'east', product: 'widget', qty: 20, price: 9.49, date: '2024-02-01' },
  { id: 5, region: 'south', product: 'widget', qty: 1, price: 9.99, date: '2024-02-11' },
  { id: 6, region: 'north', product: 'gizmo', qty: 4, price: 99, date: '2024-02-14' },
  { id: 7, region: 'east', product: 'gizmo', qty: 2, price: 95, date: '2024-03-02' },
  { id: 8, region: 'south', product: 'gadget', qty: 9, price: 23.75, date: '2024-03-05' },
];

const groupBy = (rows, key) => rows.reduce((acc, r) => ((acc[key(r)] ??= []).push(r), acc), {});
const byRegion = groupBy(sales, (s) => s.region);
const summary = Object.entries(byRegion).map(([region, rows]) => {
  const revenue = rows.reduce((acc, r) => acc + r.qty * r.price, 0);
  const units = rows.reduce((acc, r) => acc + r.qty, 0);
  return { region, orders: rows.length, units, revenue: Math.round(revenue * 100) / 100, avgPrice: +(revenue / units).toFixed(2) };
});
summary.sort((a, b) => b.revenue - a.revenue);
console.log(summary);

const byMonth = new Map();
for (const s of sales) {
  const k = s.date.slice(0, 7);
  if (!byMonth.has(k)) byMonth.set(k, []);
  byMonth.get(k).push(s);
}
for (const [month, rows] of byMonth) {
  const products = [...new Set(rows.map((r) => r.product))].sort();
  console.log(`${month}: ${rows.length} orders, products=${products.join('|')}`);
}

const productTotals = sales.reduce((acc, { product, qty }) => {
  acc[product] = (acc[product] ?? 0) + qty;
  return acc;
}, {});
console.log(productTotals);
const top = Object.entries(productTotals).toSorted(([, a], [, b]) => b - a)[0];
console.log('top product:', top);
console.log('largest order:', sales.reduce((m, s) => (s.qty * s.price > m.qty * m.price ? s : m)));
