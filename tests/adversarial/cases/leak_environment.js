// Prints every string reachable from the global object, so that the runner
// can check that no environment variable or path of the host is among them.
const seen = new Set();
const queue = [globalThis];
const strings = new Set();
while (queue.length) {
  const v = queue.shift();
  if (typeof v === 'string') { strings.add(v); continue; }
  if (v === null || (typeof v !== 'object' && typeof v !== 'function') || seen.has(v)) continue;
  seen.add(v);
  for (const k of Reflect.ownKeys(v)) {
    strings.add(String(k));
    const d = Reflect.getOwnPropertyDescriptor(v, k);
    if (d && 'value' in d) queue.push(d.value);
    else if (d && d.get) { try { queue.push(d.get.call(v)); } catch {} }
  }
  queue.push(Object.getPrototypeOf(v));
}
const text = [...strings].join('\n');
console.log(text);
return [strings.size > 500, /CAPSA_ADV_SECRET|HOME=|PATH=|Kathmandu/.test(text)];
