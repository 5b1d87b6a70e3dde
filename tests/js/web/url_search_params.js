// URLSearchParams: construction from strings, pairs and records; the methods;
// form encoding both ways; iteration; printing; bad input.
const p = new URLSearchParams('?a=1&b=2&a=3&c=%20x+y%zz&d&=e&&f=g=h&%E2%82%AC=%F0%9F%98%80&bad=%FF');
console.log([...p]);
console.log(p.get('a'), p.get('zz'), p.getAll('a'), p.has('a'), p.has('a', '3'), p.has('a', '4'),
  p.size, p.toString());
p.append('a', 'four');
p.set('b', 'B');
p.delete('a', '1');
console.log(p.toString());
p.delete('a');
p.set('new', 'v');
console.log(p.toString());
p.sort();
console.log(p.toString());

// Form encoding of every kind of character.
const all = new URLSearchParams();
all.append(' !"#$%&\'()*+,-./09:;<=>?@AZ[\\]^_`az{|}~', 'é€😀\u0000\uD800');
console.log(all.toString());
console.log([...new URLSearchParams(all.toString())]);

// Construction.
console.log(new URLSearchParams().toString(), new URLSearchParams(undefined).toString(),
  new URLSearchParams(null).toString(), new URLSearchParams('').size);
console.log(new URLSearchParams([['x', 1], ['y', null], new Set(['s', 't'])]).toString());
console.log(new URLSearchParams(new Map([['m', 'n'], ['o', 'p']])).toString());
console.log(new URLSearchParams({ a: 1, b: [1, 2], c: undefined, d: { e: 1 } }).toString());
console.log(new URLSearchParams(p).toString() === p.toString(), new URLSearchParams(p) !== p);
console.log(new URLSearchParams(12345).toString(), new URLSearchParams('??a=1').toString());
const withProto = Object.create({ inherited: 1 });
withProto.own = 2;
Object.defineProperty(withProto, 'hidden', { value: 3, enumerable: false });
console.log(new URLSearchParams(withProto).toString());

// Sorting is stable and by UTF-16 code units.
const s = new URLSearchParams('z=1&a=2&\uFFFD=3&\uD83D\uDE00=4&a=1&B=5');
s.sort();
console.log([...s.keys()].map((k) => [...k].map((c) => c.codePointAt(0).toString(16)).join('+')),
  [...s.values()]);

// Iteration and forEach.
const it = new URLSearchParams('k=v&l=w');
for (const [k, v] of it) console.log('for-of', k, v);
it.forEach(function (value, key, self) {
  console.log('forEach', key, value, self === it, this.tag);
}, { tag: 'thisArg' });
const entries = it.entries();
console.log(entries.next(), entries[Symbol.iterator]() === entries, Object.prototype.toString.call(entries));
it.append('m', 'x');
console.log([...entries]);
console.log(typeof it[Symbol.iterator], it[Symbol.iterator] === it.entries);

// Printing.
console.log(new URLSearchParams('a=1&b=2'), new URLSearchParams(), [new URLSearchParams('x=y')]);
console.log(new URLSearchParams(`a=${'x'.repeat(90)}&b=2`));
console.log(new URLSearchParams('a=1&b=2').keys(), new URLSearchParams('a=1&b=2').values(),
  new URLSearchParams('a=1&b=2').entries());
console.log({ deep: { deeper: { params: new URLSearchParams('q=1') } } });

// Bad input.
const t = (label, f) => {
  try {
    console.log(label, 'ok', f());
  } catch (e) {
    console.log(label, `${e.name} [${e.code}]: ${e.message}`);
  }
};
t('pair of one', () => new URLSearchParams([[1]]));
t('pair of three', () => new URLSearchParams([[1, 2, 3]]));
t('non-iterable pair', () => new URLSearchParams([1]));
t('null pair', () => new URLSearchParams([null]));
t('iterator not a function', () => new URLSearchParams({ [Symbol.iterator]: 5 }));
t('append one argument', () => p.append('b'));
t('set one argument', () => p.set('b'));
t('delete nothing', () => p.delete());
t('get nothing', () => p.get());
t('getAll nothing', () => p.getAll());
t('has nothing', () => p.has());
t('forEach nothing', () => p.forEach());
t('get on a plain object', () => URLSearchParams.prototype.get.call({}, 'a'));
t('toString on a plain object', () => URLSearchParams.prototype.toString.call({}));
