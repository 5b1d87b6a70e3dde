// Regular expressions: named groups, lookbehind, Unicode, sticky and dotAll flags.
const date = /(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})/;
const m = date.exec('on 2024-02-29 at noon');
console.log(m.index, m[0], m.groups.year, m.groups.month, m.groups.day, Object.keys(m.groups));
console.log('2024-02-29'.replace(date, '$<day>/$<month>/$<year>'), '2024-02-29'.replace(date, (...args) => JSON.stringify(args[args.length - 1])));
console.log(/(?<word>\w+) \k<word>/.test('hello hello'), /(?<word>\w+) \k<word>/.test('hello world'));
const noMatchGroup = /(?<a>x)|(?<b>y)/.exec('y');
console.log(noMatchGroup.groups.a, noMatchGroup.groups.b);

console.log('price: $42, €17, $5'.match(/(?<=\$)\d+/g), 'price: $42, €17, $5'.match(/(?<!\$)\b\d+/g));
console.log('foobar foobaz'.match(/foo(?=baz)/g), 'foobar foobaz'.replace(/foo(?!bar)/g, 'X'));
console.log(/(?<=(\d+)(\d+))$/.exec('1053').slice(1), /(?<=\1(a))b/.exec('aab') !== null);

console.log('héllo wörld 日本'.match(/\p{L}+/gu), 'a1b2٣'.match(/\p{Nd}/gu), /\p{Script=Greek}/u.test('α'), /^\p{Lu}/u.test('Été'));
console.log('😀'.length, /^.$/.test('😀'), /^.$/u.test('😀'), '😀x'.match(/./gu), /\u{1F600}/u.test('😀'));
console.log('a\nb'.match(/a.b/), 'a\nb'.match(/a.b/s)[0] === 'a\nb', /a.b/s.dotAll, /x/gimsuy.flags);
console.log(/^b/m.test('a\nb'), /^b/.test('a\nb'), 'A'.match(/a/i)[0]);

const sticky = /\d+/y;
sticky.lastIndex = 3;
console.log(sticky.exec('ab 123 45')?.[0], sticky.lastIndex, sticky.exec('ab 123 45'), sticky.lastIndex);
const global = /o/g;
const positions = [];
let found;
while ((found = global.exec('foo boo')) !== null) positions.push(found.index);
console.log(positions, global.lastIndex);
console.log([...'a1b22c333'.matchAll(/(?<letter>[a-z])(?<digits>\d+)/g)].map((x) => `${x.groups.letter}:${x.groups.digits}@${x.index}`));
try {
  'abc'.matchAll(/b/);
} catch (e) {
  console.log(e.constructor.name);
}

console.log('a, b;c  d'.split(/[,; ]+/), 'a1b2c'.split(/(\d)/), 'abc'.split(''), 'a,b,c'.split(',', 2), ''.split(','), ''.split(''));
console.log('aaa'.replace(/a/g, '$&$&'), 'abc'.replace(/b/, "[$`|$']"), 'x'.replace(/x/, '$$'), 'abc'.replace(/(b)/, '$2$1'));
console.log('John Smith'.replace(/(\w+)\s(\w+)/, '$2, $1'), 'aBc'.replace(/[a-z]/g, (c) => c.toUpperCase()));
console.log('a.b*c'.replaceAll('.', '!'), 'a.b.c'.replaceAll(/\./g, '/'), 'x-x-x'.replaceAll('x', (s, i) => i));
console.log(/[\s\S]/.source, new RegExp('a/b', 'g').source, String(new RegExp('\n')), RegExp('x') instanceof RegExp);
try {
  new RegExp('[');
} catch (e) {
  console.log(e.constructor.name);
}
