// atob and btoa: forgiving base64, Latin-1 strings, and the InvalidCharacterError cases.
console.log(btoa(''), btoa('f'), btoa('fo'), btoa('foo'), btoa('foob'), btoa('fooba'), btoa('foobar'));
console.log(btoa('\x00\xff\xfe\x80'), btoa(null), btoa(undefined), btoa(12345), btoa(['a', 'b']));
console.log(atob(''), atob('Zg=='), atob('Zg'), atob('Zm8='), atob('Zm9v'), atob('Zm9vYmFy'));
console.log(JSON.stringify(atob(' Zm9v\tYm\nFy\f\r ')), JSON.stringify(atob('AP/+gA==')));
console.log(atob('YR=='), atob('YWJj'), atob(null), JSON.stringify(atob('////')), atob('YQ = = '));

let all = '';
for (let i = 0; i < 256; i++) all += String.fromCharCode(i);
console.log(btoa(all));
console.log(atob(btoa(all)) === all);
const long = 'The quick brown fox jumps over the lazy dog. '.repeat(2000);
console.log(btoa(long).length, atob(btoa(long)) === long);

const t = (label, f) => {
  try {
    console.log(label, 'ok', JSON.stringify(f()));
  } catch (e) {
    console.log(label, `${e.constructor.name} ${e.name} ${e.code}: ${e.message}`,
      e instanceof DOMException, e instanceof Error);
  }
};
t('atob()', () => atob());
t('btoa()', () => btoa());
t('btoa non-Latin-1', () => btoa('€'));
t('btoa emoji', () => btoa('😀'));
t('atob one char', () => atob('a'));
t('atob five chars', () => atob('abcde'));
t('atob bad char', () => atob('ab$c'));
t('atob dash (base64url)', () => atob('ab-_'));
t('atob non-ASCII', () => atob('Zm9vé'));
t('atob = inside', () => atob('Y=Q='));
t('atob three =', () => atob('YQ==='));
t('atob = with remainder', () => atob('YQ='));
t('atob = only', () => atob('===='));
t('atob undefined', () => atob(undefined));
t('atob = after whitespace', () => atob('YWJj ='));
