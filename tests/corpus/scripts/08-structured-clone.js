// Deep-copy state with structuredClone and compare with JSON cloning.
const state = {
  user: { id: 7, name: 'Ann', joined: new Date('2022-02-02T02:02:02Z') },
  prefs: new Map([['theme', 'dark'], ['langs', ['en', 'fr']]]),
  seen: new Set([1, 2, 3]),
  pattern: /ab+c/gi,
  bytes: new Uint8Array([1, 2, 255]),
  missing: undefined,
};
state.self = state;

const copy = structuredClone(state);
console.log(copy.self === copy, copy.user !== state.user, copy.user.joined instanceof Date);
copy.user.name = 'Changed';
copy.prefs.get('langs').push('de');
copy.seen.add(4);
console.log(state.user.name, state.prefs.get('langs'), state.seen.size);
console.log(copy.prefs, copy.seen, copy.pattern, copy.bytes, 'missing' in copy);

const viaJson = JSON.parse(JSON.stringify({ ...state, self: null }));
console.log(viaJson);

const shared = { n: 1 };
const pair = structuredClone({ a: shared, b: shared });
console.log(pair.a === pair.b, pair);

for (const bad of [() => 1, { f() {} }, Symbol('x')]) {
  try {
    structuredClone(bad);
    console.log('cloned?');
  } catch (e) {
    console.log(e.name, e.constructor === DOMException);
  }
}
const err = structuredClone(new RangeError('too big', { cause: 'limit' }));
console.log(err instanceof RangeError, err.message);

const history = [];
let doc = { title: 'draft', sections: [{ h: 'Intro', words: 120 }] };
for (let i = 0; i < 3; i++) {
  history.push(structuredClone(doc));
  doc.sections.push({ h: `Part ${i + 1}`, words: 100 * (i + 2) });
  doc.title = `rev ${i + 1}`;
}
console.log(history.map((h) => `${h.title}:${h.sections.length}`), doc.sections.reduce((s, x) => s + x.words, 0));
