// bench/sqlite/insert_group.js through better-sqlite3 instead of node:sqlite: the
// same 100,000 rows, the same aggregate and checksum (bench/sqlite_native.c).
{
  const Database = require('better-sqlite3');
  const db = new Database(':memory:');
  db.exec('create table t(id integer primary key, grp integer, val real, name text)');
  const ins = db.prepare('insert into t(grp, val, name) values (?, ?, ?)');
  db.exec('begin');
  for (let i = 0; i < 100000; i++) ins.run(i % 100, i * 0.5, 'n' + i);
  db.exec('commit');
  const rows = db.prepare('select grp, count(*) as n, sum(val) as s, avg(val) as a, max(name) as m ' +
    'from t group by grp order by grp').all();
  let check = 0;
  for (const r of rows) check += r.n + r.s * 2 + r.m.length;
  db.close();
  globalThis.benchResult = check;
}
