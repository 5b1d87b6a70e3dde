// String.prototype.replaceAll (ES2021): every occurrence of a string, or of a global
// RegExp; a non-global RegExp is a TypeError.
const show = (label, f) => {
  try {
    console.log(label, f());
  } catch (e) {
    console.log(label, 'threw', e.name);
  }
};

show('string', () => 'a-b-c'.replaceAll('-', '+'));
show('no match', () => 'abc'.replaceAll('x', 'y'));
show('empty search', () => 'abc'.replaceAll('', '_'));
show('empty subject', () => ''.replaceAll('', '_'));
show('overlapping', () => 'aaaa'.replaceAll('aa', 'b'));
show('patterns', () => 'a.b'.replaceAll('.', "[$&|$`|$'|$$]"));
show('function', () => 'x1y2'.replaceAll('y', (m, offset, s) => `<${m}@${offset} of ${s}>`));
show('global regexp', () => 'a1b22c333'.replaceAll(/\d+/g, (m) => m.length));
show('regexp groups', () => '2024-01-02'.replaceAll(/(\d+)-(\d+)/g, '$2/$1'));
show('named groups', () => 'k=v'.replaceAll(/(?<key>\w)=(?<val>\w)/g, '$<val>=$<key>'));
show('non-global regexp', () => 'aaa'.replaceAll(/a/, 'b'));
show('sticky only', () => 'aaa'.replaceAll(/a/y, 'b'));
show('number search', () => '1212'.replaceAll(1, 'one'));
show('object search', () => 'a,b'.replaceAll({ toString: () => ',' }, ';'));
show('null receiver', () => String.prototype.replaceAll.call(null, 'a', 'b'));
show('number receiver', () => String.prototype.replaceAll.call(1001, '0', 'o'));
show('custom replacer', () => 'abc'.replaceAll({ [Symbol.replace]: (s, r) => `custom ${s} ${r}` }, 'R'));
show('descriptor', () => {
  const d = Object.getOwnPropertyDescriptor(String.prototype, 'replaceAll');
  return [d.writable, d.enumerable, d.configurable, d.value.length, d.value.name];
});
