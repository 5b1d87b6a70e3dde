// SQLite's files in the sandbox's filesystem: journal modes DELETE and WAL (which
// needs exclusive locking: no shared memory), locks between two connections of one
// sandbox, temporary files, and the database as a file that fs reads.
const assert = require('node:assert');
const fs = require('node:fs');
const { DatabaseSync } = require('node:sqlite');
const check = (label, f) => {
  try {
    f();
    console.log('ok', label);
  } catch (e) {
    console.log('FAIL', label, e && e.name, e && e.code, e && e.message);
  }
};

check('DELETE: the journal exists during a write transaction, not after', () => {
  const db = new DatabaseSync('/workspace/j.db');
  db.exec('create table t(x); insert into t values (1)');
  assert.strictEqual(db.prepare('pragma journal_mode').get().journal_mode, 'delete');
  db.exec('begin; insert into t values (2)');
  assert.strictEqual(fs.existsSync('/workspace/j.db-journal'), true);
  db.exec('commit');
  assert.strictEqual(fs.existsSync('/workspace/j.db-journal'), false);
  db.close();
});
check('WAL without exclusive locking stays in DELETE mode', () => {
  const db = new DatabaseSync('/workspace/j.db');
  assert.strictEqual(db.prepare('pragma journal_mode=wal').get().journal_mode, 'delete');
  db.close();
});
check('WAL with locking_mode=EXCLUSIVE', () => {
  const db = new DatabaseSync('/workspace/w.db');
  db.exec('pragma locking_mode=exclusive');
  assert.strictEqual(db.prepare('pragma journal_mode=wal').get().journal_mode, 'wal');
  db.exec('create table t(x)');
  const ins = db.prepare('insert into t values (?)');
  for (let i = 0; i < 100; i++) ins.run(i);
  assert.strictEqual(fs.existsSync('/workspace/w.db-wal'), true);
  assert.strictEqual(db.prepare('select sum(x) as s from t').get().s, 4950);
  db.close();
  assert.strictEqual(fs.existsSync('/workspace/w.db-wal'), false, 'checkpointed and removed at close');
  const again = new DatabaseSync('/workspace/w.db');
  again.exec('pragma locking_mode=exclusive');
  assert.strictEqual(again.prepare('select count(*) as n from t').get().n, 100);
  assert.strictEqual(again.prepare('pragma journal_mode').get().journal_mode, 'wal');
  again.close();
});
check('two connections: a writer locks out the other writer', () => {
  const a = new DatabaseSync('/workspace/l.db');
  const b = new DatabaseSync('/workspace/l.db');
  a.exec('create table t(x)');
  a.exec('begin immediate; insert into t values (1)');
  let err;
  try { b.exec('insert into t values (2)'); } catch (e) { err = e; }
  assert.strictEqual(err && err.errcode & 0xff, 5, 'SQLITE_BUSY');
  assert.strictEqual(err.message, 'database is locked');
  assert.strictEqual(b.prepare('select count(*) as n from t').get().n, 0, 'b reads the committed state');
  a.exec('commit');
  b.exec('insert into t values (2)');
  assert.strictEqual(a.prepare('select count(*) as n from t').get().n, 2);
  a.close();
  b.close();
});
check('temporary files (a big sort, a temp table) work', () => {
  const db = new DatabaseSync('');
  db.exec("pragma temp_store=file; create temp table tt(x); with recursive c(i) as (select 1 union all select i + 1 from c where i < 5000) insert into tt select i from c");
  assert.strictEqual(db.prepare('select count(distinct x) as n from tt').get().n, 5000);
  db.close();
});
check('fs reads the database file', () => {
  const bytes = fs.readFileSync('/workspace/l.db');
  assert.strictEqual(bytes.subarray(0, 15).toString(), 'SQLite format 3');
  assert.strictEqual(bytes.length % 4096, 0);
});
check('relative paths are in /workspace', () => {
  const db = new DatabaseSync('rel.db');
  db.exec('create table r(x)');
  db.close();
  assert.strictEqual(fs.existsSync('/workspace/rel.db'), true);
});
check('a file: URL and a Buffer path', () => {
  const db = new DatabaseSync(new URL('file:///tmp/u.db'));
  db.exec('create table r(x)');
  db.close();
  const again = new DatabaseSync(Buffer.from('/tmp/u.db'));
  assert.strictEqual(again.prepare("select count(*) as n from sqlite_master where name = 'r'").get().n, 1);
  again.close();
});
check('read-only places cannot hold a database', () => {
  for (const p of ['/x.db', '/tools/x.db', '/etc/passwd']) {
    let err;
    try { new DatabaseSync(p).exec('create table t(x)'); } catch (e) { err = e; }
    assert.ok(err, p);
    assert.strictEqual(err.code, 'ERR_SQLITE_ERROR', p);
  }
});
