// String methods on text beyond ASCII: code units vs code points, case
// mapping, normalisation, and the methods scripts use most.
const s = 'héllo 😀 wörld 👩‍💻';
console.log(s.length, [...s].length, Array.from(s).length, s.codePointAt(6), s.charCodeAt(6), s.charCodeAt(7), s.codePointAt(7));
console.log(String.fromCodePoint(0x1f600, 0x61), String.fromCharCode(0xd83d, 0xde00), '\u{1F600}' === '😀', '\uD83D\uDE00' === '😀');
console.log(s.slice(6, 8), s.slice(6, 7).length, [...s].slice(6, 7), s.split('').length, s.split(' '));
console.log(s.indexOf('😀'), s.includes('wörld'), s.startsWith('hé'), s.endsWith('💻'), s.lastIndexOf('l'), s.search(/ö/));
console.log('ß'.toUpperCase(), 'İ'.toLowerCase().length, 'ΣΑΣ'.toLowerCase(), 'ǅ'.toUpperCase(), 'ﬁ'.toUpperCase(), 'ÉCOLE'.toLowerCase(), 'straße'.toUpperCase());
const composed = 'é';
const decomposed = 'e\u0301';
console.log(composed === decomposed, composed.normalize('NFD') === decomposed, decomposed.normalize('NFC') === composed, decomposed.length, decomposed.normalize().length);
console.log('ﬁ'.normalize('NFKC'), '①'.normalize('NFKD'), 'Å'.normalize('NFD').length, '한'.normalize('NFD').length, '\u1100\u1161'.normalize('NFC'));
try {
  'x'.normalize('bad');
} catch (e) {
  console.log(e.constructor.name);
}

console.log('abc'.padStart(6, '12'), 'abc'.padEnd(6), '😀'.padStart(4, '*'), 'abc'.padStart(2), 'x'.repeat(3), ''.repeat(5).length);
console.log('  \t\n\u00a0\u2003trim me\u3000\ufeff '.trim(), '|' + ' x '.trimStart() + '|' + ' x '.trimEnd() + '|');
console.log('a-b-c'.replaceAll('-', '+'), 'aaa'.replace('a', 'b'), 'abc'.substring(2, 0), 'abc'.substr(-2, 1), 'abc'.slice(-2));
console.log('é'.localeCompare('e') !== 0, ['b', 'a', 'C'].sort(), ['é', 'e', 'f'].sort(), 'a' < 'B', 'a' < 'b', '😀' > '\uffff');
console.log(encodeURIComponent('é 😀/?&='), encodeURI('http://x/é?a=1&b=😀'), decodeURIComponent('%C3%A9%F0%9F%98%80'), escape('é'), unescape('%E9'));
try {
  encodeURIComponent('\ud800');
} catch (e) {
  console.log(e.constructor.name);
}
console.log(String.raw`a\nb${1 + 1}\u00e9`, `line1
line2`.split('\n').length, `${[1, 2]}${{}}${null}`);
console.log('abc'.split('').reverse().join(''), [...'a😀b'].reverse().join(''), 'x,y,,z'.split(','), 'a1b2'.match(/\d/g));
console.log('Straße'.length, 'tschüß'.toUpperCase().length, '\u0130'.toLowerCase() === 'i\u0307', 'I'.toLowerCase(), 'ı'.toUpperCase());
console.log('abc'.concat(1, null), 'abc'[1], 'abc'.charAt(5) === '', 'abc'[5], 'abc'.codePointAt(5), 'Ab'.toLowerCase() === 'ab');
console.log(JSON.stringify('\u0000\u001f\u007f\u0080\u00ff'), 'tab\there'.length, '\x41\u0042\u{43}', '\0'.length);
const words = 'The quick brown fox';
console.log(words.split(' ').map((w) => w[0].toUpperCase() + w.slice(1).toLowerCase()).join(' '), words.replace(/\b\w/g, (c) => c.toLowerCase()));
