// Invoice computation in integer cents: discounts, tax rounding, allocation, formatted receipt.
const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const fmt = (cents) => usd.format(cents / 100);
const lines = [
  { desc: 'Consulting (hours)', unit: 15000, qty: 7.5 },
  { desc: 'License – annual', unit: 129900, qty: 1, taxable: true },
  { desc: 'USB cable', unit: 799, qty: 3, taxable: true },
  { desc: 'Discounted item', unit: 2499, qty: 2, taxable: true, discountPct: 15 },
];
const TAX = 0.0825;
const rows = lines.map((l) => {
  const gross = Math.round(l.unit * l.qty);
  const discount = Math.round((gross * (l.discountPct ?? 0)) / 100);
  const net = gross - discount;
  const tax = l.taxable ? Math.round(net * TAX) : 0;
  return { ...l, gross, discount, net, tax };
});
const W = 52;
const row = (left, right) => left.padEnd(W - right.length) + right;
console.log('INVOICE #2024-0042'.padStart((W + 18) / 2));
console.log('='.repeat(W));
for (const r of rows) {
  console.log(row(`${r.desc}`, fmt(r.net)));
  console.log(row(`  ${r.qty} × ${fmt(r.unit)}${r.discount ? ` (−${r.discountPct}%: ${fmt(r.discount)})` : ''}`, r.taxable ? 'T' : ''));
}
const subtotal = rows.reduce((s, r) => s + r.net, 0);
const tax = rows.reduce((s, r) => s + r.tax, 0);
const total = subtotal + tax;
console.log('-'.repeat(W));
console.log(row('Subtotal', fmt(subtotal)));
console.log(row(`Tax (${(TAX * 100).toFixed(2)}% on T items)`, fmt(tax)));
console.log(row('TOTAL', fmt(total)));
console.log('='.repeat(W));
function allocate(amount, ratios) {
  const sum = ratios.reduce((a, b) => a + b, 0);
  const parts = ratios.map((r) => Math.floor((amount * r) / sum));
  let rest = amount - parts.reduce((a, b) => a + b, 0);
  for (let i = 0; rest > 0; i = (i + 1) % parts.length, rest--) parts[i]++;
  return parts;
}
const split = allocate(total, [1, 1, 1]);
console.log('split 3 ways:', split.map(fmt), split.reduce((a, b) => a + b) === total);
console.log('by share 50/30/20:', allocate(10000, [50, 30, 20]).map(fmt), allocate(1, [1, 1]));
const installments = allocate(total, Array(4).fill(1));
const due = installments.map((c, i) => ({ due: new Date(Date.UTC(2024, 4 + i, 1)).toLocaleDateString('en-US', { timeZone: 'UTC', month: 'short', day: 'numeric', year: 'numeric' }), amount: fmt(c) }));
console.table(due);
console.log(0.1 + 0.2 === 0.3, (10 + 20) / 100 === 0.3, [19.99 * 3, Math.round(19.99 * 3 * 100) / 100, (1999 * 3) / 100]);
console.log(usd.format(-1234.565), usd.format(0.005), usd.format(1e9), new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 }).format(1234.5));
