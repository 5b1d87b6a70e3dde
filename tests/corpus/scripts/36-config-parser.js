// Parse INI and .env style config text into typed objects, with interpolation and validation.
const ini = `; global settings
name = my-service
debug = true
workers = 4

[database]
host = db.internal
port = 5432
url = postgres://\${database.host}:\${database.port}/app
timeout = 2.5s

[features]
flags = alpha, beta ,gamma
enabled = off
ratio = 0.75
empty =
`;
const coerce = (v) => {
  if (/^(true|on|yes)$/i.test(v)) return true;
  if (/^(false|off|no)$/i.test(v)) return false;
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (v.includes(',')) return v.split(',').map((s) => s.trim());
  return v;
};
function parseIni(text) {
  const out = {};
  let section = out;
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line || line.startsWith(';') || line.startsWith('#')) continue;
    const sec = line.match(/^\[(.+)\]$/);
    if (sec) { section = out[sec[1]] = {}; continue; }
    const kv = line.match(/^([\w.-]+)\s*=\s*(.*)$/);
    if (!kv) throw new SyntaxError(`line ${i + 1}: cannot parse ${JSON.stringify(raw)}`);
    section[kv[1]] = coerce(kv[2]);
  }
  return out;
}
const cfg = parseIni(ini);
const get = (obj, path) => path.split('.').reduce((o, k) => o?.[k], obj);
const interpolate = (obj, root = obj) => {
  for (const [k, v] of Object.entries(obj)) {
    if (typeof v === 'string') obj[k] = v.replace(/\$\{([\w.]+)\}/g, (_, p) => String(get(root, p) ?? ''));
    else if (v && typeof v === 'object' && !Array.isArray(v)) interpolate(v, root);
  }
  return obj;
};
console.log(interpolate(cfg));
const duration = (s) => { const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(s); return m ? m[1] * { ms: 1, s: 1e3, m: 6e4, h: 3.6e6 }[m[2]] : NaN; };
console.log(duration(cfg.database.timeout), ['150ms', '2m', '1.5h', 'soon'].map(duration));
try { parseIni('[ok]\nthis is not valid'); } catch (e) { console.log(e.name, e.message); }

const env = 'API_KEY="abc 123"\n# comment\nexport PORT=8080\nEMPTY=\nQUOTED=\'single # not comment\'\nINLINE=value # trailing\nMULTI="line1\\nline2"';
const parsed = Object.fromEntries(env.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => {
  const [, k, v] = l.match(/^(?:export\s+)?(\w+)=(.*)$/);
  let val = v.trim();
  if (/^"(.*)"$/.test(val)) val = val.slice(1, -1).replace(/\\n/g, '\n');
  else if (/^'(.*)'$/.test(val)) val = val.slice(1, -1);
  else val = val.replace(/\s+#.*$/, '');
  return [k, val];
}));
console.log(parsed);
const required = ['API_KEY', 'PORT', 'SECRET'];
const missing = required.filter((k) => !(k in parsed));
console.log(missing.length ? `missing: ${missing.join(', ')}` : 'ok', Number.parseInt(parsed.PORT, 10) + 1);
