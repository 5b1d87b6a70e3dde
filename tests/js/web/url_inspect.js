// How console.log shows URL objects: as Node does.
const u = new URL('https://user:pw@example.com:8080/a/b?c=1&d=%20#frag');
console.log(u);
console.log([u]);
console.log({ a: { b: { c: u } } });
console.log(new URL('mailto:x@y.z'));
console.log(`${u}`, String(u.searchParams));
console.log(JSON.stringify([u, new URL('file:///tmp')]));
console.log(Object.keys(u), Object.keys(URL.prototype));
console.log(Object.keys(URLSearchParams.prototype));
