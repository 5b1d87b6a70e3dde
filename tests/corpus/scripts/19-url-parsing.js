// Build and inspect URLs: query strings, relative resolution, normalisation.
const base = 'https://api.example.com:443/v2/search/';
const u = new URL('items?q=red+shoes&page=2&tag=a&tag=b#results', base);
console.log(u.href);
console.log({ protocol: u.protocol, host: u.host, port: u.port, pathname: u.pathname, search: u.search, hash: u.hash });
console.log(u.searchParams.get('q'), u.searchParams.getAll('tag'), u.searchParams.has('missing'));
u.searchParams.set('page', '3');
u.searchParams.append('sort', 'price desc');
u.searchParams.delete('tag');
console.log(u.toString());
const p = new URLSearchParams({ name: 'Zoë & co', empty: '', n: 5 });
p.sort();
console.log(p.toString(), [...p.keys()], Object.fromEntries(p));
console.log(new URLSearchParams('a=1&b=2&a=3').getAll('a'), new URLSearchParams([['x', '1'], ['y', '%']]).toString());
for (const rel of ['../v1/users', '/root', '//cdn.example.org/x.js', '?only=query', '#frag', 'https://other.net/']) {
  console.log(rel.padEnd(24), new URL(rel, base).href);
}
const messy = new URL('HTTP://User:Pa%20ss@EXAMPLE.com:80/a/./b/../c/%7Efile name?x=1 2#top');
console.log(messy.href, messy.username, messy.password, messy.origin);
console.log(new URL('file:///tmp/report.csv').pathname, new URL('mailto:someone@example.com').pathname);
console.log(URL.canParse('not a url'), URL.canParse('/path', 'https://x.y'));
try { new URL('http//broken'); } catch (e) { console.log(e.name, e.code, e.message); }
const link = new URL('https://shop.example.com/product/42');
link.pathname = '/product/43 special';
link.hash = 'reviews';
link.search = '?ref=email';
link.port = '8443';
console.log(link.href, JSON.stringify({ link }));
const qs = Object.entries({ from: '2024-01-01', to: '2024-01-31', fields: ['id', 'name'].join(',') })
  .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
console.log(qs, decodeURIComponent('caf%C3%A9%20%26%20bar'), encodeURI('https://x.y/a b?c=d&e=ü'));
console.log(u.searchParams, u.searchParams.size);
