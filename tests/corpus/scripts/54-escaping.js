// Escaping for different sinks: HTML, attributes, shell, CSV, regex, JSON, URLs, SQL literals.
const inputs = [`O'Reilly & Sons`, `<script>alert("x")</script>`, `a "quoted" value, with comma`, `line1\nline2\ttab`, `100% $HOME \`cmd\``, `emoji 🙂 and ümlaut`];
const html = (s) => s.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[c]};`);
const shell = (s) => `'${s.replaceAll("'", `'\\''`)}'`;
const csv = (s) => (/[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);
const re = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const sql = (s) => `'${s.replaceAll("'", "''")}'`;
for (const s of inputs) {
  console.log('input:', JSON.stringify(s));
  console.log('  html :', html(s));
  console.log('  shell:', shell(s));
  console.log('  csv  :', JSON.stringify(csv(s)));
  console.log('  regex:', re(s), new RegExp(re(s)).test(s));
  console.log('  sql  :', sql(s));
  console.log('  url  :', encodeURIComponent(s));
}
const unescapeHtml = (s) => s.replace(/&(#\d+|#x[\da-f]+|\w+);/gi, (m, e) => (e[0] === '#' ? String.fromCodePoint(e[1].toLowerCase() === 'x' ? parseInt(e.slice(2), 16) : +e.slice(1)) : { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' }[e] ?? m));
console.log(unescapeHtml('&lt;p&gt;Tom &amp; Jerry&#39;s &#x1F600; &copy; &nbsp;|&unknown;'));
console.log(JSON.stringify({ path: 'C:\\Users\\ann', quote: '"', ctrl: '\u0001\u001f', slash: '/', uni: '\u2028é' }));
console.log(JSON.parse('"\\u0041\\n\\/\\"\\\\"'), JSON.stringify('\u{10FFFF}').length);
console.log(String.raw`\d+\.\d{2}`, `multi
line template with ${'interp'}`, '\x41\u0042\u{43}', '\0'.length, 'a\
b');
const tpl = (strings, ...vals) => strings.reduce((acc, s, i) => acc + s + (i < vals.length ? html(String(vals[i])) : ''), '');
const name = '<b>Ann</b>';
console.log(tpl`<p title="${name}">Hello, ${name}! You have ${3} new messages.</p>`);
console.log(escape('a b+c/ü'), encodeURI('/path with space/ü?q=a b&x=1#frag'), decodeURI('%E2%9C%93%20ok'));
try { decodeURIComponent('%E0%A4%A'); } catch (e) { console.log(e.name); }
