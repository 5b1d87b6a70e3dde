// URL setters, the live searchParams binding, serialization, canParse and bad input.
const u = new URL('https://user:pw@example.com:8080/a/b?x=1&y=2#frag');
const step = (what, f) => {
  try {
    f();
    console.log(what.padEnd(34), u.href);
  } catch (e) {
    console.log(what.padEnd(34), `${e.name} [${e.code}] ${e.message}`, u.href);
  }
};
step('protocol = "http"', () => { u.protocol = 'http'; });
step('protocol = "HTTPS:"', () => { u.protocol = 'HTTPS:'; });
step('protocol = "foo" (special->not)', () => { u.protocol = 'foo'; });
step('protocol = "1x" (invalid)', () => { u.protocol = '1x'; });
step('protocol = "wss:junk"', () => { u.protocol = 'wss:junk'; });
step('protocol = "https"', () => { u.protocol = 'https'; });
step('username = "a b@c"', () => { u.username = 'a b@c'; });
step('password = ""', () => { u.password = ''; });
step('username = ""', () => { u.username = ''; });
step('host = "Other.ORG:99"', () => { u.host = 'Other.ORG:99'; });
step('host = "x.org:443" (default)', () => { u.host = 'x.org:443'; });
step('host = "bad host"', () => { u.host = 'bad host'; });
step('host = ""', () => { u.host = ''; });
step('hostname = "h.example:1234"', () => { u.hostname = 'h.example:1234'; });
step('hostname = "[::1]"', () => { u.hostname = '[::1]'; });
step('hostname = "h.example"', () => { u.hostname = 'h.example'; });
step('port = "8443"', () => { u.port = '8443'; });
step('port = "443"', () => { u.port = '443'; });
step('port = "81abc"', () => { u.port = '81abc'; });
step('port = "99999"', () => { u.port = '99999'; });
step('port = "x"', () => { u.port = 'x'; });
step('port = ""', () => { u.port = ''; });
step('port = 8080 (number)', () => { u.port = 8080; });
step('pathname = "/a b/../c/%zz"', () => { u.pathname = '/a b/../c/%zz'; });
step('pathname = "no/slash"', () => { u.pathname = 'no/slash'; });
step('pathname = "?#"', () => { u.pathname = '?#'; });
step('search = "?q=a b&r=é"', () => { u.search = '?q=a b&r=é'; });
step('search = "no-question"', () => { u.search = 'no-question'; });
step('search = ""', () => { u.search = ''; });
step('hash = "#new hash"', () => { u.hash = '#new hash'; });
step('hash = "x"', () => { u.hash = 'x'; });
step('hash = ""', () => { u.hash = ''; });
step('href = "http://a.b/c?d=1"', () => { u.href = 'http://a.b/c?d=1'; });
step('href = "not a url"', () => { u.href = 'not a url'; });

// searchParams is live in both directions and always the same object.
const sp = u.searchParams;
console.log(sp === u.searchParams, sp.get('d'));
sp.append('e', 'x y');
console.log(u.href, u.search);
sp.delete('d');
console.log(u.href);
sp.delete('e');
console.log(u.href, JSON.stringify(u.search));
u.search = '?m=1&n=2';
console.log([...sp], sp.size);
u.href = 'https://z.example/?k=v';
console.log([...sp]);
sp.sort();
u.hash = 'h';
sp.set('a', '1');
console.log(u.href);

// Opaque paths: setters that do not apply, and trailing spaces.
const m = new URL('mailto:someone@example.com');
m.host = 'other';
m.pathname = 'x';
m.port = '80';
m.username = 'u';
console.log(m.href, JSON.stringify(m.host), m.pathname);
const op = new URL('foo:path with space  ?q#h');
console.log(JSON.stringify(op.pathname));
op.hash = '';
console.log(JSON.stringify(op.href));
op.search = '';
console.log(JSON.stringify(op.href), JSON.stringify(op.pathname));

// file: URLs refuse ports and credentials.
const f = new URL('file:///tmp/x');
f.port = '21';
f.username = 'u';
f.host = 'server';
console.log(f.href);
f.host = 'localhost';
console.log(f.href);
f.protocol = 'http';
console.log(f.href);

// Serialization.
const s = new URL('https://example.com/p?q=1#h');
console.log(String(s), s.toString(), s.toJSON(), JSON.stringify({ s }), `${s}`);
console.log(Object.prototype.toString.call(s), Object.prototype.toString.call(s.searchParams));
console.log(URL.canParse('https://x'), URL.canParse('x'), URL.canParse('x', 'https://b/'),
  URL.canParse('x', 'bad base'), URL.canParse(undefined));
console.log(new URL(new URL('https://obj.example/')).href, new URL({ toString: () => 'https://ts.example' }).href);

// Bad input.
const t = (label, fn) => {
  try {
    console.log(label, 'ok', fn());
  } catch (e) {
    console.log(label, `${e.name} [${e.code}]: ${e.message}`);
  }
};
t('new URL()', () => new URL());
t('URL.canParse()', () => URL.canParse());
t('new URL(undefined)', () => new URL(undefined));
t('new URL(null)', () => new URL(null));
t('href getter on a plain object', () => Object.getOwnPropertyDescriptor(URL.prototype, 'href').get.call({}));
t('toString on a plain object', () => URL.prototype.toString.call({}));
