// What console's methods give away: nothing of the host through what they
// return, their own properties, their sources, or a receiver they do not expect.
const returned = [];
const extraProps = [];
for (const k of Reflect.ownKeys(console)) {
  const f = console[k];
  if (typeof f !== 'function') continue;
  let r;
  try { r = f.call({ write: null }, '%o', f); } catch (e) { r = e; }
  if (r !== null && typeof r === 'object' && !(r instanceof Error)) returned.push(String(k));
  const own = Reflect.ownKeys(f).filter((p) => !['length', 'name', 'prototype'].includes(p));
  if (own.length) extraProps.push(String(k) + ': ' + own.map(String).join());
}
const sources = Object.values(console).filter((f) => typeof f === 'function')
  .map((f) => Function.prototype.toString.call(f)).join('\n');
return { returned, extraProps, pathsInSources: /\/(work|home|root|tmp|usr)\//.test(sources) };
