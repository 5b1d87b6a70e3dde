// node:url: WHATWG URL and URLSearchParams, file URLs, and the legacy parse, format and
// resolve.
const url = require('node:url');
console.log(url.URL === URL, url.URLSearchParams === URLSearchParams, require('url') === url);
console.log(url.fileURLToPath('file:///a/b%20c/d.txt'), url.fileURLToPath(new URL('file:///x/%C3%A9')));
console.log(url.pathToFileURL('/a b/c#d?.txt').href, url.pathToFileURL('/dir/').href);
for (const bad of ['http://x/y', 'file://host/a', 'file:///a%2fb']) {
  try {
    url.fileURLToPath(bad);
  } catch (e) {
    console.log(e.code, e.message);
  }
}
const p = url.parse('https://user:pw@Example.com:8080/p/a/t/h?query=string&a=1#hash');
console.log(p);
console.log(url.parse('/path?x=1&x=2', true).query, url.parse('//host/p', false, true).host);
console.log(url.parse('mailto:someone@example.com'), url.parse('a b'));
console.log(url.format({ protocol: 'https', hostname: 'example.com', pathname: '/a b', query: { q: 'x y' } }));
console.log(url.format(new URL('https://u:p@example.com/a?b#c'), { auth: false, search: false, fragment: false }));
console.log(url.format(p));
console.log(url.resolve('http://a/b/c/d;p?q', '../g'), url.resolve('/one/two', 'three'),
  url.resolve('http://example.com/', '/x'), url.resolve('http://a/b', 'https://c/d'));
console.log(url.domainToASCII('español.com'), url.domainToUnicode('xn--espaol-zwa.com'));
const u = new URL('https://example.org/p?a=1&b=2');
u.searchParams.append('c', 'd e');
console.log(u.href, url.urlToHttpOptions(u).path);
