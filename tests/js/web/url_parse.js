// URL parsing: special schemes, hosts (case, IDNA, IPv4, IPv6), default ports, dot
// segments, percent-encoding, relative references, opaque paths, and invalid input.
const show = (input, base) => {
  try {
    const u = base === undefined ? new URL(input) : new URL(input, base);
    console.log(JSON.stringify([input, base].filter((x) => x !== undefined)), '->', u.href);
    console.log('   ', JSON.stringify([u.protocol, u.username, u.password, u.hostname, u.port,
      u.pathname, u.search, u.hash, u.origin]));
  } catch (e) {
    console.log(JSON.stringify([input, base].filter((x) => x !== undefined)), '->',
      `${e.name} [${e.code}] ${e.message} input=${JSON.stringify(e.input)} base=${JSON.stringify(e.base)}`);
  }
};

// Special schemes, case, default ports, credentials.
show('https://example.com');
show('HTTP://EXAMPLE.COM:80/A/B?Q=1#F');
show('https://example.com:443/');
show('https://example.com:8443/');
show('http://example.com:0080/');
show('ws://h:80/'), show('wss://h:443/'), show('ftp://h:21/f'), show('ftp://h:22/f');
show('https://user:pa%20ss@host.com/');
show('https://user:p@ss:w@rd@host.com/x');
show('https://us er:pa:ss@host/');
show('https://:@host/');
show('http://@host/');
show('  \t https://example.com/a b \n ');
show('https://exa\tmple.com/p\na\rth');
show('https:example.com');
show('https:/example.com');
show('https:\\\\example.com\\a\\b');
show('https://example.com:/x');

// Paths: dot segments, encoded dots, percent-encoding sets.
show('https://h/a/b/../c/./d');
show('https://h/a/b/..');
show('https://h/a/%2e%2E/b/%2e/c');
show('https://h/../../..');
show('https://h/a/.%2e/b');
show('https://h/ä/ü b/"<>`{}|^/%41%zz');
show('https://h/p?q=a b&c="<>\'&d=ä#f g"<>`');
show('foo://h/p?q=\'#x');
show('https://h/?');
show('https://h/#');
show('https://h//double//slashes/');

// Hosts.
show('https://EXAMPLE.com./');
show('https://münchen.de/');
show('https://xn--mnchen-3ya.de/');
show('https://ＥＸＡＭＰＬＥ．com/');
show('https://ex%41mple.com/');
show('https://a\u00ADb.com/');
show('https://127.0.0.1/');
show('https://0x7f.1/');
show('https://2130706433/');
show('https://0177.0.0.1/');
show('https://127.1/');
show('https://1.2.3.4.5/');
show('https://256.256.256.256/');
show('https://1.2.3.256/');
show('https://1.2.65536/');
show('https://foo.09/');
show('https://0x/');
show('https://[::1]:8080/');
show('https://[2001:DB8:0:0:0:0:0:1]/');
show('https://[2001:db8::1:0:0:1]/');
show('https://[0:0:0:0:0:ffff:192.168.0.1]/');
show('https://[::ffff:1.2.3.4]/');
show('https://[1:2:3:4:5:6:7:8]/');
show('https://[1::2::3]/');
show('https://[1:2:3:4:5:6:7:8:9]/');
show('https://[::1/');
show('https://[zz::1]/');
show('https://exa mple.com/');
show('https://exa<mple.com/');
show('https://exa%20mple.com/');
show('https://xn--/');
show('https:///');
show('https://');
show('https://host:65536/');
show('https://host:12a/');
show('https://host:65535/');

// Non-special schemes: opaque hosts and opaque paths.
show('foo://Host.Example/Path');
show('foo://h%41st/');
show('foo://h st/');
show('foo:/path/../x');
show('foo:opaque path ');
show('mailto:Someone@Example.com?subject=Hi there');
show('data:text/plain,hello world#frag');
show('javascript:alert(1)');
show('urn:isbn:0451450523');
show('git+ssh://git@github.com/o/r.git');
show('sc://ñ/x');
show('blob:https://example.com/uuid');
show('blob:foo://x/y');

// File URLs.
show('file:///etc/passwd');
show('file://localhost/etc/hosts');
show('file://server/share/x');
show('file:///C:/dir/../file.txt');
show('file:///C|/x');
show('file:c:\\windows\\x');
show('FILE:/tmp/a b');
show('file:///C:/..');

// Relative references.
const base = 'https://user:pw@example.com:8080/a/b/c?q=1#h';
for (const rel of ['d', './d', '../d', '../../../../d', '/d', '//other.org/p', '?x=2', '#k', '',
  'https:d', 'http:d', 'https://x/y', '\\\\other\\p', '.', '..', 'd?x#y', ' d ', 'mailto:x']) {
  show(rel, base);
}
show('x', 'file:///C:/dir/file');
show('/x', 'file:///C:/dir/file');
show('..', 'file:///C:/');
show('x', 'foo:/a/b');
show('x', 'mailto:someone');
show('#frag', 'mailto:someone');
show('x', 'not a url');
show('', 'https://h/p?q#f');

// Invalid input.
show('');
show('example.com');
show('//example.com');
show('http://');
show('http://a:b@/');
show('http://ex ample/');
show(':');
show('1http://x');
