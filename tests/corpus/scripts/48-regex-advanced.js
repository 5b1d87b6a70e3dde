// Regex-heavy extraction: emails, URLs, money, phone numbers; lookbehind, sticky tokenizer, unicode.
const doc = `Contact: Jane <jane.doe+news@example.co.uk>, bob@test.io; invalid: @nope, x@y
Visit https://example.com/a?b=1 or http://sub.test.io:8080/path#h. Prices: $1,299.99, $5, USD 12.50, €7,50.
Call +1 (555) 010-9999 or 555.010.1234. Ünïcode names: Zoë, Łukasz, 李雷.`;
const emails = doc.match(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g);
console.log(emails);
const urls = [...doc.matchAll(/\bhttps?:\/\/[^\s,]+?(?=[.,]?(\s|$))/g)].map((m) => new URL(m[0]).host);
console.log(urls);
const dollars = [...doc.matchAll(/(?<=\$)\d{1,3}(?:,\d{3})*(?:\.\d{2})?/g)].map((m) => Number(m[0].replaceAll(',', '')));
console.log(dollars, dollars.reduce((a, b) => a + b, 0).toFixed(2));
const phones = [...doc.matchAll(/(?:\+1\s*)?\(?(\d{3})\)?[\s.-]*(\d{3})[\s.-]*(\d{4})/g)].map(([, a, b, c]) => `${a}-${b}-${c}`);
console.log(phones);
console.log(doc.match(/\p{Lu}\p{Ll}+/gu).filter((w) => /[^\x00-\x7f]/.test(w)), doc.match(/\p{Script=Han}+/u)[0]);
function tokenize(src) {
  const rules = [['ws', /\s+/y], ['num', /\d+(?:\.\d+)?/y], ['id', /[A-Za-z_]\w*/y], ['str', /"(?:[^"\\]|\\.)*"/y], ['op', /[-+*/()=<>!]=?|&&|\|\|/y]];
  const out = [];
  let pos = 0;
  outer: while (pos < src.length) {
    for (const [type, re] of rules) {
      re.lastIndex = pos;
      const m = re.exec(src);
      if (m) { if (type !== 'ws') out.push(`${type}:${m[0]}`); pos = re.lastIndex; continue outer; }
    }
    throw new SyntaxError(`unexpected ${JSON.stringify(src[pos])} at ${pos}`);
  }
  return out;
}
console.log(tokenize('total = price * 1.08 + fee("usd \\"x\\"") >= 10 && ok').join(' '));
try { tokenize('a = #b'); } catch (e) { console.log(e.message); }
const masked = doc.replace(/([\w.+-])[\w.+-]*@([\w-]+)/g, (_, first, domain) => `${first}***@${domain}`).split('\n')[0];
console.log(masked);
const md = 'Use **bold**, _italic_ and `code`; see [docs](https://x.io/docs "title").';
console.log(md.replace(/\*\*(.+?)\*\*/g, '<b>$1</b>').replace(/_(.+?)_/g, '<i>$1</i>').replace(/`([^`]+)`/g, '<code>$1</code>').replace(/\[([^\]]+)\]\(([^\s)]+)(?:\s+"[^"]*")?\)/g, '<a href="$2">$1</a>'));
const dates = 'from 2024-01-05 to 05/02/2024, then 2024.03.10'.replace(/(?<d>\d{2})\/(?<m>\d{2})\/(?<y>\d{4})/, '$<y>-$<m>-$<d>').replace(/(\d{4})\.(\d{2})\.(\d{2})/, '$1-$2-$3');
console.log(dates, dates.match(/\d{4}-\d{2}-\d{2}/g).length);
const m = /(?<key>\w+)=(?<val>[^&]*)/.exec('a=1&b=2');
console.log(m.index, m.input, m[0], { ...m.groups }, m.length);
console.log('camelCaseHTTPRequest'.split(/(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/), /(\d+)\s\1/.test('42 42'), 'aaa'.match(/a*?/)[0].length);
