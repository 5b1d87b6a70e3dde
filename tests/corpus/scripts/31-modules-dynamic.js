// Write helper modules to disk, then import them dynamically (with a static import between them).
'use strict'; // Node runs this as an ES module (strict); capsa's script body is sloppy unless asked
const fs = await import('fs');
fs.mkdirSync('lib31', { recursive: true });
fs.writeFileSync('lib31/format.mjs', `
export const money = (n) => '$' + n.toFixed(2);
export const pct = (n) => (n * 100).toFixed(1) + '%';
export default function table(rows) {
  return rows.map((r) => r.join(' | ')).join('\\n');
}
export let calls = 0;
export function bump() { return ++calls; }
`);
fs.writeFileSync('lib31/stats.mjs', `
import table, { money } from './format.mjs';
export const sum = (xs) => xs.reduce((a, b) => a + b, 0);
export const mean = (xs) => (xs.length ? sum(xs) / xs.length : NaN);
export function report(label, xs) {
  return table([[label, money(sum(xs)), money(mean(xs))]]);
}
export const name = 'stats';
`);
const stats = await import('./lib31/stats.mjs');
const fmt = await import('./lib31/format.mjs');
console.log(Object.keys(stats).sort(), Object.keys(fmt).sort());
console.log(stats.report('Q1', [100, 250.5, 75]));
console.log(fmt.default([['a', 1], ['b', 2]]), fmt.pct(0.4567));
console.log(fmt.calls, fmt.bump(), fmt.bump(), fmt.calls);
const again = await import('./lib31/format.mjs');
console.log(again === fmt, again.calls);
try { fmt.calls = 10; } catch (e) { console.log(e instanceof TypeError); }
console.log(Object.prototype.toString.call(fmt), typeof fmt.default);
try {
  await import('./lib31/missing.mjs');
} catch (e) {
  console.log('missing module:', e.code);
}
fs.writeFileSync('lib31/broken.mjs', 'export const x = ;');
try {
  await import('./lib31/broken.mjs');
} catch (e) {
  console.log('broken module:', e.name);
}
fs.writeFileSync('lib31/data.mjs', `export const rows = ${JSON.stringify([{ k: 'x', v: 1 }, { k: 'y', v: 2 }])};`);
const { rows } = await import('./lib31/data.mjs');
console.log(rows, stats.mean(rows.map((r) => r.v)));
