// Parse a CSV with quoted fields, convert types, and re-emit a filtered CSV.
const csv = `name,age,city,notes
"Smith, John",42,Boston,"Likes ""quotes"""
Jane Doe,35,"New York",
Bob,,Chicago,"multi
line note"
"Alice",29,Seattle,plain`;

function parseCSV(text) {
  const rows = [];
  let row = [], field = '', inQuotes = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') { field += '"'; i++; } else inQuotes = false;
      } else field += c;
    } else if (c === '"') inQuotes = true;
    else if (c === ',') { row.push(field); field = ''; }
    else if (c === '\n') { row.push(field); rows.push(row); row = []; field = ''; }
    else field += c;
  }
  row.push(field);
  rows.push(row);
  return rows;
}

const [header, ...body] = parseCSV(csv);
const records = body.map((cells) => Object.fromEntries(header.map((h, i) => [h, cells[i] ?? ''])))
  .map((r) => ({ ...r, age: r.age === '' ? null : Number(r.age) }));
console.log(records);

const quote = (v) => {
  const s = v == null ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};
const out = [header.join(','), ...records.filter((r) => r.age !== null)
  .sort((a, b) => a.age - b.age)
  .map((r) => header.map((h) => quote(r[h])).join(','))].join('\n');
console.log(out);
console.log(JSON.stringify(out.split('\n').length));
const ages = records.map((r) => r.age).filter(Number.isFinite);
console.log('mean age: %d', ages.reduce((a, b) => a + b, 0) / ages.length);
