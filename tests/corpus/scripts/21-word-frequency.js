// Word frequencies, n-grams and simple text statistics of a passage.
const text = `It was the best of times, it was the worst of times, it was the age of wisdom,
it was the age of foolishness, it was the epoch of belief, it was the epoch of incredulity,
it was the season of Light, it was the season of Darkness, it was the spring of hope,
it was the winter of despair.`;

const words = text.toLowerCase().match(/[a-z']+/g);
console.log('words:', words.length, 'unique:', new Set(words).size);
const freq = new Map();
for (const w of words) freq.set(w, (freq.get(w) ?? 0) + 1);
const top = [...freq].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 8);
console.log(top);
for (const [w, n] of top) console.log(`${w.padEnd(8)} ${'#'.repeat(n)} ${n}`);

const stop = new Set(['it', 'was', 'the', 'of']);
const content = words.filter((w) => !stop.has(w));
console.log(content.join(' '));
const bigrams = {};
for (let i = 0; i < words.length - 1; i++) {
  const key = `${words[i]} ${words[i + 1]}`;
  bigrams[key] = (bigrams[key] || 0) + 1;
}
console.log(Object.entries(bigrams).filter(([, n]) => n > 2).sort(([, a], [, b]) => b - a));

const sentences = text.split(/(?<=[.!?])\s+/);
const clauses = text.split(/,\s*/);
console.log('sentences', sentences.length, 'clauses', clauses.length);
const lengths = words.map((w) => w.length);
const avg = lengths.reduce((a, b) => a + b) / lengths.length;
console.log('avg word length', avg.toFixed(3), 'longest', words.reduce((a, b) => (b.length > a.length ? b : a)));
const letters = {};
for (const ch of text.toLowerCase().replace(/[^a-z]/g, '')) letters[ch] = (letters[ch] || 0) + 1;
console.log(Object.keys(letters).sort().map((k) => k + letters[k]).join(' '));
const caps = text.match(/\b[A-Z][a-z]+/g);
console.log(caps, text.split('\n').map((l) => l.length));
console.log(text.replace(/\bit was\b/gi, (m) => (m[0] === 'I' ? 'IT WAS' : 'twas')).slice(0, 70));
