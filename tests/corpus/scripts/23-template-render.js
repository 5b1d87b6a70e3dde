// A mini template engine with loops, conditionals, filters and escaping.
const escapeHtml = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const filters = {
  upper: (v) => String(v).toUpperCase(),
  money: (v) => `$${Number(v).toFixed(2)}`,
  default: (v, d) => (v == null || v === '' ? d : v),
  join: (v, sep = ', ') => v.join(sep),
};
const lookup = (ctx, path) => path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), ctx);
function evalExpr(expr, ctx) {
  const [head, ...pipes] = expr.split('|').map((s) => s.trim());
  let v = /^'.*'$/.test(head) ? head.slice(1, -1) : lookup(ctx, head);
  for (const p of pipes) {
    const [name, arg] = p.split(':').map((s) => s.trim());
    v = filters[name](v, arg?.replace(/^'|'$/g, ''));
  }
  return v;
}
function render(tpl, ctx) {
  tpl = tpl.replace(/\{\{#each (\w[\w.]*)\}\}([\s\S]*?)\{\{\/each\}\}/g, (_, path, body) =>
    (lookup(ctx, path) ?? []).map((item, i) => render(body, { ...ctx, this: item, index: i + 1 })).join(''));
  tpl = tpl.replace(/\{\{#if (\w[\w.]*)\}\}([\s\S]*?)(?:\{\{else\}\}([\s\S]*?))?\{\{\/if\}\}/g, (_, path, yes, no = '') =>
    render(lookup(ctx, path) ? yes : no, ctx));
  tpl = tpl.replace(/\{\{\{(.+?)\}\}\}/g, (_, e) => String(evalExpr(e, ctx) ?? ''));
  return tpl.replace(/\{\{(.+?)\}\}/g, (_, e) => escapeHtml(evalExpr(e, ctx) ?? ''));
}
const tpl = `<h1>{{title | upper}}</h1>
<p>Customer: {{customer.name}} <{{customer.email | default:'no email'}}></p>
{{#if items}}<ul>
{{#each items}}  <li>{{index}}. {{this.name}} x{{this.qty}} = {{this.total | money}}</li>
{{/each}}</ul>{{else}}<p>No items</p>{{/if}}
Tags: {{tags | join:' / '}} | raw: {{{note}}} | escaped: {{note}}`;
const order = {
  title: 'Invoice #42',
  customer: { name: 'Ann & Bob "Co"', email: '' },
  items: [{ name: 'Pen <blue>', qty: 3, total: 3.6 }, { name: "O'Reilly book", qty: 1, total: 39.999 }],
  tags: ['paid', 'rush'],
  note: '<b>thanks</b>',
};
console.log(render(tpl, order));
console.log(render(tpl, { ...order, items: [], title: 'empty', tags: [] }));
const tag = (strings, ...vals) => strings.reduce((out, s, i) => out + s + (i < vals.length ? `[${typeof vals[i]}:${vals[i]}]` : ''), '');
console.log(tag`a=${1} b=${'x'} c=${null}`, String.raw`C:\path\n${1 + 1}`);
