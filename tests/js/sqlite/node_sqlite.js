// node:sqlite: DatabaseSync and StatementSync as Node.js 22/24 document them: exec,
// prepare, run/get/all/iterate, named and positional parameters, BigInt and
// Uint8Array values, columns(), sourceSQL/expandedSQL, open/close/isOpen, options,
// and the errors of bad input.
const assert = require('node:assert');
const { DatabaseSync, StatementSync } = require('node:sqlite');
const check = (label, f) => {
  try {
    f();
    console.log('ok', label);
  } catch (e) {
    console.log('FAIL', label, e && e.name, e && e.code, e && e.message);
  }
};
const throwsWith = (f, fields) => {
  let err;
  try { f(); } catch (e) { err = e; }
  assert.ok(err, 'expected an error');
  for (const k of Object.keys(fields)) {
    if (fields[k] instanceof RegExp) assert.match(String(err[k]), fields[k], k);
    else assert.strictEqual(err[k], fields[k], k);
  }
};

const db = new DatabaseSync(':memory:');
check('isOpen after the constructor', () => assert.strictEqual(db.isOpen, true));
check('exec runs several statements', () => {
  db.exec(`create table t(id integer primary key, name text, score real, data blob);
           insert into t(name, score) values ('ann', 1.5), ('bob', 2.5);`);
  assert.strictEqual(db.prepare('select count(*) as n from t').get().n, 2);
});
check('run returns changes and lastInsertRowid', () => {
  const r = db.prepare('insert into t(name, score) values (?, ?)').run('cy', 3);
  assert.deepStrictEqual({ ...r }, { changes: 1, lastInsertRowid: 3 });
});
check('get returns a null-prototype row object', () => {
  const row = db.prepare('select id, name from t where id = ?').get(1);
  assert.strictEqual(Object.getPrototypeOf(row), null);
  assert.deepStrictEqual({ ...row }, { id: 1, name: 'ann' });
});
check('get of no row is undefined', () => {
  assert.strictEqual(db.prepare('select * from t where id = 99').get(), undefined);
});
check('all returns every row in order', () => {
  const rows = db.prepare('select name from t order by id').all();
  assert.deepStrictEqual(rows.map((r) => r.name), ['ann', 'bob', 'cy']);
});
check('iterate yields rows and can stop early', () => {
  const names = [];
  for (const r of db.prepare('select name from t order by id').iterate()) {
    names.push(r.name);
    if (names.length === 2) break;
  }
  assert.deepStrictEqual(names, ['ann', 'bob']);
  assert.strictEqual([...db.prepare('select 1 as x').iterate()].length, 1);
});
check('named parameters with $ : @ prefixes, bare or prefixed keys', () => {
  const s = db.prepare('select $a + :b + @c as v');
  assert.strictEqual(s.get({ a: 1, b: 2, c: 3 }).v, 6);
  assert.strictEqual(s.get({ $a: 1, ':b': 2, '@c': 4 }).v, 7);
});
check('named and anonymous parameters together', () => {
  assert.strictEqual(db.prepare('select $x || ? as v').get({ x: 'a' }, 'b').v, 'ab');
});
check('numbered parameters', () => {
  assert.strictEqual(db.prepare('select ?2 - ?1 as v').get(1, 10).v, 9);
});
check('an unknown named parameter is an error', () => {
  throwsWith(() => db.prepare('select $a as v').get({ a: 1, zz: 2 }),
    { code: 'ERR_INVALID_STATE', name: 'Error', message: "Unknown named parameter 'zz'" });
});
check('setAllowUnknownNamedParameters(true) ignores it', () => {
  const s = db.prepare('select $a as v');
  s.setAllowUnknownNamedParameters(true);
  assert.strictEqual(s.get({ a: 1, zz: 2 }).v, 1);
});
check('too many anonymous values is SQLITE_RANGE', () => {
  throwsWith(() => db.prepare('select ? as v').get(1, 2),
    { code: 'ERR_SQLITE_ERROR', errcode: 25, message: 'column index out of range' });
});
check('BigInt values bind, and setReadBigInts reads them back', () => {
  db.exec('create table big(v integer)');
  db.prepare('insert into big values (?)').run(9007199254740993n);
  const s = db.prepare('select v from big');
  s.setReadBigInts(true);
  assert.strictEqual(s.get().v, 9007199254740993n);
  s.setReadBigInts(false);
  throwsWith(() => s.get(), { name: 'RangeError', message: /too large to be represented/ });
});
check('a BigInt outside 64 bits is refused', () => {
  throwsWith(() => db.prepare('select ? as v').get(2n ** 64n), { name: 'RangeError' });
});
check('readBigInts makes run() return BigInts', () => {
  const s = db.prepare('insert into big values (1)');
  s.setReadBigInts(true);
  const r = s.run();
  assert.strictEqual(typeof r.changes, 'bigint');
  assert.strictEqual(r.lastInsertRowid, 2n);
});
check('Uint8Array blobs in and out', () => {
  db.prepare('update t set data = ? where id = 1').run(new Uint8Array([0, 1, 255]));
  const v = db.prepare('select data from t where id = 1').get().data;
  assert.ok(v instanceof Uint8Array);
  assert.deepStrictEqual([...v], [0, 1, 255]);
});
check('a boolean cannot be bound', () => {
  throwsWith(() => db.prepare('select ? as v').get(true),
    { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: 'Provided value cannot be bound to SQLite parameter 1.' });
});
check('null and numbers round-trip', () => {
  assert.deepStrictEqual({ ...db.prepare('select ? as a, ? as b, ? as c').get(null, 1.25, -7) },
    { a: null, b: 1.25, c: -7 });
});
check('columns() describes the result', () => {
  assert.deepStrictEqual(db.prepare('select id, name as n, 1 + 1 as e from t').columns(), [
    { column: 'id', database: 'main', name: 'id', table: 't', type: 'INTEGER' },
    { column: 'name', database: 'main', name: 'n', table: 't', type: 'TEXT' },
    { column: null, database: null, name: 'e', table: null, type: null },
  ]);
});
check('sourceSQL and expandedSQL', () => {
  const s = db.prepare('select * from t where name = ? and id > ?');
  s.get('bob', 0n);
  assert.strictEqual(s.sourceSQL, 'select * from t where name = ? and id > ?');
  assert.strictEqual(s.expandedSQL, "select * from t where name = 'bob' and id > 0");
  s.get('bob', 1.5);
  assert.strictEqual(s.expandedSQL, "select * from t where name = 'bob' and id > 1.5");
});
check('setReturnArrays gives rows as arrays', () => {
  const s = db.prepare('select id, name from t where id = 2');
  s.setReturnArrays(true);
  assert.deepStrictEqual(s.get(), [2, 'bob']);
});
check('SQLite errors carry code, errcode, errstr and the message', () => {
  throwsWith(() => db.exec('select * from nowhere'),
    { name: 'Error', code: 'ERR_SQLITE_ERROR', errcode: 1, errstr: 'SQL logic error', message: 'no such table: nowhere' });
  db.exec('create table u(k text unique)');
  db.exec("insert into u values ('a')");
  throwsWith(() => db.exec("insert into u values ('a')"),
    { code: 'ERR_SQLITE_ERROR', errcode: 2067, errstr: 'constraint failed', message: 'UNIQUE constraint failed: u.k' });
});
check('a syntax error in prepare', () => {
  throwsWith(() => db.prepare('selec 1'), { code: 'ERR_SQLITE_ERROR', message: 'near "selec": syntax error' });
});
check('foreign keys are on, double-quoted strings off, by default', () => {
  db.exec('create table p(id integer primary key); create table c(p references p(id))');
  throwsWith(() => db.exec('insert into c values (5)'), { errcode: 787 });
  throwsWith(() => db.exec('select "nope"'), { message: 'no such column: "nope" - should this be a string literal in single-quotes?' });
  const loose = new DatabaseSync(':memory:', { enableForeignKeyConstraints: false, enableDoubleQuotedStringLiterals: true });
  assert.strictEqual(loose.prepare('select "yes" as v').get().v, 'yes');
  loose.close();
});
check('wrong argument types', () => {
  throwsWith(() => db.exec(42), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  throwsWith(() => db.prepare({}), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  throwsWith(() => new DatabaseSync(42), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  throwsWith(() => new DatabaseSync(':memory:', { readOnly: 'yes' }), { code: 'ERR_INVALID_ARG_TYPE' });
  throwsWith(() => new StatementSync(), { name: 'TypeError', code: 'ERR_ILLEGAL_CONSTRUCTOR' });
});
check('an empty statement is an error', () => {
  throwsWith(() => db.prepare('  -- nothing'), { name: 'RangeError' });
});
check('user functions', () => {
  db.function('twice', (x) => x * 2);
  db.function('sumAll', { varargs: true, deterministic: true }, (...a) => a.reduce((p, q) => p + q, 0));
  assert.strictEqual(db.prepare('select twice(21) as v').get().v, 42);
  assert.strictEqual(db.prepare('select sumAll(1, 2, 3, 4) as v').get().v, 10);
  db.function('boom', () => { throw new Error('from the function'); });
  throwsWith(() => db.prepare('select boom()').get(), { message: 'from the function' });
});
check('close, then use, is ERR_INVALID_STATE', () => {
  const d = new DatabaseSync(':memory:');
  const s = d.prepare('select 1 as v');
  d.close();
  assert.strictEqual(d.isOpen, false);
  throwsWith(() => d.exec('select 1'), { code: 'ERR_INVALID_STATE', message: 'database is not open' });
  throwsWith(() => s.get(), { code: 'ERR_INVALID_STATE', message: 'database is not open' });
  throwsWith(() => d.close(), { code: 'ERR_INVALID_STATE' });
  d.open();
  assert.strictEqual(d.prepare('select 2 as v').get().v, 2);
  throwsWith(() => d.open(), { code: 'ERR_INVALID_STATE', message: 'database is already open' });
  d.close();
});
check('a statement of a closed connection opened again is finalized', () => {
  const d = new DatabaseSync(':memory:');
  const s = d.prepare('select 1 as v');
  d.close();
  d.open();
  throwsWith(() => s.get(), { code: 'ERR_INVALID_STATE', message: 'statement has been finalized' });
  throwsWith(() => s.run(), { code: 'ERR_INVALID_STATE', message: 'statement has been finalized' });
  d.close();
  throwsWith(() => s.all(), { code: 'ERR_INVALID_STATE', message: 'database is not open' });
});
check('run, get and all are the statement class\'s methods', () => {
  const s = db.prepare('select ? as v');
  assert.ok(s instanceof StatementSync);
  assert.strictEqual(Object.getPrototypeOf(s), StatementSync.prototype);
  for (const name of ['run', 'get', 'all', 'iterate']) {
    const desc = Object.getOwnPropertyDescriptor(StatementSync.prototype, name);
    assert.strictEqual(typeof desc.value, 'function', name);
    assert.strictEqual(desc.enumerable, false, name);
    assert.strictEqual(desc.value.name, name);
  }
  assert.deepStrictEqual(Object.keys(s), []);
});
check('run, get and all on anything but a statement are ERR_INVALID_THIS', () => {
  const s = db.prepare('select 1 as v');
  for (const that of [{}, null, undefined, 1, Object.create(StatementSync.prototype)]) {
    throwsWith(() => s.get.call(that), { name: 'TypeError', code: 'ERR_INVALID_THIS', message: 'Illegal invocation' });
    throwsWith(() => StatementSync.prototype.run.call(that), { name: 'TypeError', code: 'ERR_INVALID_THIS' });
  }
  const Better = require('better-sqlite3');
  const b = new Better(':memory:');
  const bs = b.prepare('select 1 as v');
  throwsWith(() => s.all.call(bs), { name: 'TypeError', code: 'ERR_INVALID_THIS' });
  b.close();
});
check('setAllowBareNamedParameters(false) refuses a key without its prefix', () => {
  const s = db.prepare('select $a as v');
  assert.strictEqual(s.get({ a: 5 }).v, 5);
  s.setAllowBareNamedParameters(false);
  throwsWith(() => s.get({ a: 5 }), { code: 'ERR_INVALID_STATE', message: "Unknown named parameter 'a'" });
  throwsWith(() => s.run({ '': 5 }), { code: 'ERR_INVALID_STATE', message: "Unknown named parameter ''" });
  assert.strictEqual(s.get({ $a: 6 }).v, 6);
  s.setAllowBareNamedParameters(true);
  assert.strictEqual(s.all({ a: 7 })[0].v, 7);
});
check('a statement keeps its options apart from the next one of the database', () => {
  const s = db.prepare('select 1 as v');
  s.setReturnArrays(true);
  s.setReadBigInts(true);
  assert.deepStrictEqual(s.get(), [1n]);
  assert.deepStrictEqual([...s.iterate()], [[1n]]);
  assert.deepStrictEqual({ ...db.prepare('select 1 as v').get() }, { v: 1 });
  s.setReturnArrays(false);
  assert.deepStrictEqual(s.all().map((r) => r.v), [1n]);
});
check('a first argument that is an array or a typed array is a value, not names', () => {
  const s = db.prepare('select ? as v');
  throwsWith(() => s.get([1]), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.deepStrictEqual([...s.get(new Uint8Array([7])).v], [7]);
  throwsWith(() => s.get(new DataView(new ArrayBuffer(1))), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.strictEqual(db.prepare('select $a as v').get(Object.assign(Object.create(null), { a: 3 })).v, 3);
});
check('a named-parameter test that throws reaches the caller', () => {
  const s = db.prepare('select $a as v');
  const tricky = new Proxy({}, { ownKeys() { throw new Error('no keys'); } });
  throwsWith(() => s.get(tricky), { message: 'no keys' });
  assert.strictEqual(s.get({ a: 2 }).v, 2);
});
check('open: false defers opening', () => {
  const d = new DatabaseSync(':memory:', { open: false });
  assert.strictEqual(d.isOpen, false);
  d.open();
  assert.strictEqual(d.isOpen, true);
  d.close();
});
check('isTransaction follows BEGIN and COMMIT', () => {
  db.exec('begin');
  assert.strictEqual(db.isTransaction, true);
  db.exec('commit');
  assert.strictEqual(db.isTransaction, false);
});
check('JSON, window, math functions and FTS5 are built in', () => {
  assert.strictEqual(db.prepare("select json_extract('{\"a\":[1,2]}', '$.a[1]') as v").get().v, 2);
  assert.deepStrictEqual(db.prepare('select sum(x) over (order by x) as s from (select 1 as x union all select 2)').all().map((r) => r.s), [1, 3]);
  assert.strictEqual(db.prepare('select sqrt(16) as v').get().v, 4);
  db.exec("create virtual table docs using fts5(body); insert into docs values ('the quick brown fox'), ('lazy dog')");
  assert.strictEqual(db.prepare("select body from docs where docs match 'quick'").get().body, 'the quick brown fox');
});
db.close();
