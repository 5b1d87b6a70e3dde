// A small JSON-schema-like validator used to check tool arguments before calling them.
const schema = {
  type: 'object',
  required: ['query', 'limit'],
  properties: {
    query: { type: 'string', minLength: 2 },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    sort: { enum: ['asc', 'desc'] },
    filters: {
      type: 'array',
      items: { type: 'object', required: ['field'], properties: { field: { type: 'string', pattern: '^[a-z_]+$' }, value: {} } },
    },
    meta: { type: 'object', additionalProperties: false, properties: { trace: { type: 'boolean' } } },
  },
};
const typeOf = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v);
function validate(value, s, path = '$') {
  const errs = [];
  const t = typeOf(value);
  if (s.type && !(s.type === t || (s.type === 'number' && t === 'integer'))) return [`${path}: expected ${s.type}, got ${t}`];
  if (s.enum && !s.enum.includes(value)) errs.push(`${path}: must be one of ${s.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  if (t === 'string') {
    if (s.minLength != null && value.length < s.minLength) errs.push(`${path}: shorter than ${s.minLength}`);
    if (s.pattern && !new RegExp(s.pattern).test(value)) errs.push(`${path}: does not match /${s.pattern}/`);
  }
  if (t === 'integer' || t === 'number') {
    if (s.minimum != null && value < s.minimum) errs.push(`${path}: below ${s.minimum}`);
    if (s.maximum != null && value > s.maximum) errs.push(`${path}: above ${s.maximum}`);
  }
  if (t === 'array' && s.items) value.forEach((v, i) => errs.push(...validate(v, s.items, `${path}[${i}]`)));
  if (t === 'object') {
    for (const k of s.required ?? []) if (!(k in value)) errs.push(`${path}: missing ${k}`);
    for (const [k, v] of Object.entries(value)) {
      if (s.properties?.[k]) errs.push(...validate(v, s.properties[k], `${path}.${k}`));
      else if (s.additionalProperties === false) errs.push(`${path}: unexpected ${k}`);
    }
  }
  return errs;
}
const cases = [
  { query: 'shoes', limit: 10, sort: 'asc' },
  { query: 'x', limit: 0, sort: 'up' },
  { limit: 2.5, filters: [{ field: 'color', value: 'red' }, { value: 1 }, { field: 'Bad-Field' }] },
  { query: 'ok', limit: 5, meta: { trace: 'yes', extra: 1 } },
  ['not', 'an', 'object'],
  { query: null, limit: '5' },
];
for (const c of cases) {
  const errs = validate(c, schema);
  console.log(JSON.stringify(c));
  console.log(errs.length ? errs.map((e) => '  ✗ ' + e).join('\n') : '  ✓ valid');
}
const summary = cases.map((c) => validate(c, schema).length);
console.log(summary, `${summary.filter((n) => n === 0).length}/${cases.length} valid`);
