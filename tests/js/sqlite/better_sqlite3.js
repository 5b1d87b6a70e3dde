// better-sqlite3: Database and Statement as that package documents them, imported as
// an ES module: options, prepare, run/get/all/iterate, pluck/raw/expand, bind,
// columns, transactions and their variants (nested through savepoints), pragma,
// exec, close, properties, user functions, SqliteError and the errors of bad input.
import assert from 'node:assert';
import Database from 'better-sqlite3';
import { DatabaseSync } from 'node:sqlite';

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
  return err;
};

check('both modules import', () => {
  assert.strictEqual(typeof Database, 'function');
  assert.strictEqual(typeof DatabaseSync, 'function');
  assert.strictEqual(Database.SqliteError.name, 'SqliteError');
});
const db = new Database('/workspace/b.db');
check('properties of a file database', () => {
  assert.deepStrictEqual([db.open, db.name, db.memory, db.readonly, db.inTransaction],
    [true, '/workspace/b.db', false, false, false]);
});
check('exec returns the database', () => {
  assert.strictEqual(db.exec('create table t(id integer primary key, name text, n integer)'), db);
});
check('run with positional, array and named values', () => {
  const ins = db.prepare('insert into t(name, n) values (?, ?)');
  assert.deepStrictEqual(ins.run('a', 1), { changes: 1, lastInsertRowid: 1 });
  assert.deepStrictEqual(ins.run(['b', 2]), { changes: 1, lastInsertRowid: 2 });
  const named = db.prepare('insert into t(name, n) values (@name, $n)');
  assert.deepStrictEqual(named.run({ name: 'c', n: 3 }), { changes: 1, lastInsertRowid: 3 });
});
check('get, all and iterate', () => {
  assert.deepStrictEqual(db.prepare('select name, n from t where id = ?').get(2), { name: 'b', n: 2 });
  assert.strictEqual(db.prepare('select * from t where id = 9').get(), undefined);
  assert.deepStrictEqual(db.prepare('select n from t order by n').all(), [{ n: 1 }, { n: 2 }, { n: 3 }]);
  const seen = [];
  for (const row of db.prepare('select name from t order by id').iterate()) seen.push(row.name);
  assert.deepStrictEqual(seen, ['a', 'b', 'c']);
});
check('pluck, raw and expand', () => {
  assert.deepStrictEqual(db.prepare('select name from t order by id').pluck().all(), ['a', 'b', 'c']);
  assert.deepStrictEqual(db.prepare('select id, name from t where id = 1').raw().get(), [1, 'a']);
  assert.deepStrictEqual(db.prepare('select t.name, 5 as five from t where id = 1').expand().get(),
    { t: { name: 'a' }, $: { five: 5 } });
  const s = db.prepare('select id, name from t where id = 1').pluck();
  assert.deepStrictEqual(s.raw().get(), [1, 'a'], 'raw() turns pluck off');
  assert.deepStrictEqual(s.raw(false).get(), { id: 1, name: 'a' });
});
check('bind() binds once, for good', () => {
  const s = db.prepare('select name from t where id = ?').pluck().bind(3);
  assert.strictEqual(s.get(), 'c');
  assert.strictEqual(s.get(), 'c');
  throwsWith(() => s.get(1), { name: 'TypeError', message: 'This statement already has bound parameters' });
  throwsWith(() => s.bind(2), { name: 'TypeError' });
});
check('statement properties and columns()', () => {
  const s = db.prepare('select id, name from t');
  assert.deepStrictEqual([s.source, s.reader, s.readonly, s.database === db], ['select id, name from t', true, true, true]);
  assert.deepStrictEqual(s.columns()[1], { name: 'name', column: 'name', table: 't', database: 'main', type: 'TEXT' });
  const w = db.prepare('delete from t where 0');
  assert.deepStrictEqual([w.reader, w.readonly], [false, false]);
});
check('run on a reader and get on a writer are TypeErrors', () => {
  throwsWith(() => db.prepare('select 1').run(), { name: 'TypeError', message: /returns data/ });
  throwsWith(() => db.prepare('delete from t where 0').get(), { name: 'TypeError', message: /does not return data/ });
});
check('parameter count errors are RangeErrors', () => {
  throwsWith(() => db.prepare('select ?, ?').get(1), { name: 'RangeError', message: 'Too few parameter values were provided' });
  throwsWith(() => db.prepare('select ?').get(1, 2), { name: 'RangeError', message: 'Too many parameter values were provided' });
  throwsWith(() => db.prepare('select @x').get({ y: 1 }), { name: 'RangeError', message: 'Missing named parameter "x"' });
});
check('more than one statement in prepare is a RangeError', () => {
  throwsWith(() => db.prepare('select 1; select 2'), { name: 'RangeError', message: 'The supplied SQL string contains more than one statement' });
});
check('SqliteError with SQLite\'s extended code', () => {
  db.exec('create table u(k unique)');
  db.prepare('insert into u values (?)').run('x');
  const e = throwsWith(() => db.prepare('insert into u values (?)').run('x'),
    { name: 'SqliteError', code: 'SQLITE_CONSTRAINT_UNIQUE', message: 'UNIQUE constraint failed: u.k' });
  assert.ok(e instanceof Database.SqliteError && e instanceof Error);
  throwsWith(() => db.exec('selec'), { name: 'SqliteError', code: 'SQLITE_ERROR', message: 'near "selec": syntax error' });
});
check('transaction commits, rolls back on a throw, and returns the value', () => {
  const ins = db.prepare('insert into u values (?)');
  const many = db.transaction((items) => { for (const i of items) ins.run(i); return items.length; });
  assert.strictEqual(many(['p', 'q']), 2);
  assert.throws(() => many(['r', 'x']), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
  assert.deepStrictEqual(db.prepare("select k from u where k in ('p', 'q', 'r') order by k").pluck().all(), ['p', 'q']);
  assert.strictEqual(db.inTransaction, false);
});
check('nested transactions use savepoints', () => {
  const ins = db.prepare('insert into u values (?)');
  const inner = db.transaction((k) => { ins.run(k); if (k === 'bad') throw new Error('inner'); });
  const outer = db.transaction(() => {
    inner('n1');
    try { inner('bad'); } catch (e) { assert.strictEqual(e.message, 'inner'); }
    assert.strictEqual(db.inTransaction, true);
  });
  outer();
  assert.deepStrictEqual(db.prepare("select k from u where k in ('n1', 'bad')").pluck().all(), ['n1']);
});
check('deferred, immediate and exclusive variants', () => {
  const f = db.transaction(() => db.inTransaction);
  assert.deepStrictEqual([f.deferred(), f.immediate(), f.exclusive(), f.default()], [true, true, true, true]);
  assert.strictEqual(f.immediate.database, db);
});
check('pragma, with and without simple', () => {
  assert.deepStrictEqual(db.pragma('journal_mode'), [{ journal_mode: 'delete' }]);
  assert.strictEqual(db.pragma('user_version', { simple: true }), 0);
  db.pragma('user_version = 7');
  assert.strictEqual(db.pragma('user_version', { simple: true }), 7);
});
check('safe integers and Buffers', () => {
  const s = db.prepare('select ? as v, ? as b').safeIntegers();
  const row = s.get(2n ** 62n, Buffer.from('hi'));
  assert.strictEqual(row.v, 2n ** 62n);
  assert.ok(Buffer.isBuffer(row.b));
  assert.strictEqual(row.b.toString(), 'hi');
});
check('user functions', () => {
  db.function('add2', (a, b) => a + b);
  db.function('cat', { varargs: true }, (...parts) => parts.join(''));
  assert.strictEqual(db.prepare('select add2(40, 2)').pluck().get(), 42);
  assert.strictEqual(db.prepare("select cat('a', 'b', 'c')").pluck().get(), 'abc');
  db.function('thrower', () => { throw new RangeError('mine'); });
  throwsWith(() => db.prepare('select thrower()').get(), { name: 'RangeError', message: 'mine' });
});
check('a user function cannot close its connection or rerun its statement', () => {
  const m = new Database(':memory:');
  let stmt;
  m.function('closer', () => { m.close(); return 1; });
  m.function('again', () => stmt.get());
  throwsWith(() => m.prepare('select closer()').get(), { name: 'TypeError', message: 'This database connection is busy executing a query' });
  stmt = m.prepare('select again()');
  throwsWith(() => stmt.get(), { name: 'TypeError', message: 'This statement is busy executing a query' });
  assert.strictEqual(m.prepare('select 5').pluck().get(), 5);
  m.close();
});
check('readonly and fileMustExist', () => {
  const ro = new Database('/workspace/b.db', { readonly: true });
  assert.strictEqual(ro.readonly, true);
  throwsWith(() => ro.exec("insert into u values ('w')"), { code: 'SQLITE_READONLY', message: 'attempt to write a readonly database' });
  ro.close();
  throwsWith(() => new Database('/workspace/missing.db', { fileMustExist: true }),
    { name: 'SqliteError', code: 'SQLITE_CANTOPEN', message: 'unable to open database file' });
  throwsWith(() => new Database(':memory:', { readonly: true }), { name: 'TypeError' });
});
check('memory option and anonymous databases', () => {
  const m = new Database('named', { memory: true });
  assert.deepStrictEqual([m.memory, m.name], [true, 'named']);
  m.exec('create table x(y)');
  m.close();
  const anon = new Database();
  assert.strictEqual(anon.memory, true);
  anon.close();
});
check('paths outside /workspace and /tmp cannot be written', () => {
  throwsWith(() => new Database('/etc/x.db'), { code: 'SQLITE_CANTOPEN' });
  throwsWith(() => new Database('/nope/dir/x.db'), { code: 'SQLITE_CANTOPEN' });
  const t = new Database('/tmp/ok.db');
  t.exec('create table z(a)');
  t.close();
});
check('bad argument types', () => {
  throwsWith(() => new Database(5), { name: 'TypeError' });
  throwsWith(() => db.prepare(5), { name: 'TypeError', message: 'Expected first argument to be a string' });
  throwsWith(() => db.exec(null), { name: 'TypeError' });
  throwsWith(() => db.prepare('select ?').get({}), { name: 'RangeError' });
  throwsWith(() => db.prepare('select ?').get(Symbol('s')), { name: 'TypeError', message: /can only bind/ });
  throwsWith(() => db.transaction('no'), { name: 'TypeError' });
});
check('statements are made by prepare() only; their methods refuse other objects', () => {
  const s = db.prepare('select 1');
  const Statement = Object.getPrototypeOf(s).constructor;
  throwsWith(() => new Statement(), { name: 'TypeError', message: /only be constructed by the db.prepare/ });
  for (const m of ['run', 'get', 'all', 'bind', 'iterate']) {
    assert.strictEqual(typeof s[m], 'function', m);
    assert.strictEqual(s[m].name, m, m);
    throwsWith(() => s[m].call({}), { name: 'TypeError', message: 'Illegal invocation' });
  }
  const n = new DatabaseSync(':memory:');
  throwsWith(() => s.get.call(n.prepare('select 1')), { name: 'TypeError', message: 'Illegal invocation' });
  throwsWith(() => n.prepare('select 1').get.call(s), { code: 'ERR_INVALID_THIS' });
  n.close();
});
check('arguments: values, arrays of them and one object of named values, in any mix', () => {
  assert.deepStrictEqual(db.prepare('select ?, ?, ?, @x, ?').raw().get([1, 2], 3, { x: 4 }, [5]), [1, 2, 3, 4, 5]);
  assert.deepStrictEqual(db.prepare('select ?, ?').raw().get([], 'a', ['b']), ['a', 'b']);
  throwsWith(() => db.prepare('select @a, @b').get({ a: 1 }, { b: 2 }),
    { name: 'TypeError', message: 'You cannot specify named parameters in two different objects' });
  throwsWith(() => db.prepare('select ?').get(new Array(1e6).fill(1)),
    { name: 'RangeError', message: 'Too many parameter values were provided' });
  throwsWith(() => db.prepare('select ?, ?').get([1]), { name: 'RangeError', message: 'Too few parameter values were provided' });
  throwsWith(() => db.prepare('select ?').get(new Date(0)), { name: 'TypeError', message: /can only bind/ });
  const trap = new Proxy([1], { get(t, k) { if (k === '0') throw new EvalError('trap'); return t[k]; } });
  throwsWith(() => db.prepare('select ?').get(trap), { name: 'EvalError', message: 'trap' });
  assert.strictEqual(db.prepare('select 7').pluck().safeIntegers().get(), 7n);
  assert.strictEqual(db.prepare('select 7').pluck().get(), 7);
  assert.strictEqual(db.prepare('select ?').pluck().get(7n), 7);
});
check('an iterate() in progress makes the statement busy until it ends', () => {
  const s = db.prepare('select id from t order by id').pluck();
  const it = s.iterate();
  assert.strictEqual(it.next().value, 1);
  assert.strictEqual(s.busy, true);
  throwsWith(() => s.all(), { name: 'TypeError', message: 'This statement is busy executing a query' });
  throwsWith(() => s.iterate(), { name: 'TypeError', message: 'This statement is busy executing a query' });
  it.return();
  assert.strictEqual(s.busy, false);
  assert.deepStrictEqual(s.all(), [1, 2, 3]);
});
check('verbose sees each statement, values bound, before it runs', () => {
  const seen = [];
  const v = new Database(':memory:', { verbose: (sql) => seen.push(sql) });
  v.exec('create table k(a)');
  v.prepare('insert into k values (?)').run('x');
  assert.strictEqual(v.prepare('select count(*) from k where a = ?').pluck().get('x'), 1);
  assert.deepStrictEqual(seen, ['create table k(a)', "insert into k values ('x')", "select count(*) from k where a = 'x'"]);
  const w = new Database(':memory:', { verbose: () => { throw new URIError('no'); } });
  throwsWith(() => w.prepare('select 1').get(), { name: 'URIError', message: 'no' });
  w.close();
  let closing;
  const c = new Database(':memory:', { verbose: () => closing.close() });
  closing = c;
  throwsWith(() => c.prepare('select 1').get(), { name: 'TypeError', message: 'The database connection is not open' });
  v.close();
});
check('close, then use', () => {
  const s = db.prepare('select 1');
  assert.strictEqual(db.close(), db);
  assert.strictEqual(db.open, false);
  throwsWith(() => db.prepare('select 1'), { name: 'TypeError', message: 'The database connection is not open' });
  throwsWith(() => s.get(), { name: 'TypeError', message: 'The database connection is not open' });
  db.close();
});
check('the file is there for node:sqlite too', () => {
  const n = new DatabaseSync('/workspace/b.db');
  assert.strictEqual(n.prepare('select count(*) as c from t').get().c, 3);
  n.close();
});
