// capsa guest runtime: SQLite for scripts, as two modules over the natives of
// __capsaSqlite (guest/sqlite.c, over SQLite's C API): `node:sqlite` (DatabaseSync and
// StatementSync as in Node.js 22/24) and `better-sqlite3` (that package's Database and
// Statement). Evaluated once per context as a global script, after node.js and before
// fs.js, which adds its completion value's modules to the built-in ones. Nothing of
// SQLite runs until a script opens a database; its files are the sandbox's (WASI).
//
// Where it differs from Node.js and better-sqlite3 (docs/sqlite.md has the whole list):
// - No extensions (allowExtension, loadExtension), no backup(), serialize(), aggregate()
//   or table() (better-sqlite3), no sessions (node:sqlite); they throw.
// - WAL needs PRAGMA locking_mode=EXCLUSIVE first: the sandbox has no shared memory.

(function () {
  'use strict';
  'use strip';

  const host = globalThis.__capsaSqlite;
  delete globalThis.__capsaSqlite;
  const native = {
    open: host.open, close: host.close, isOpen: host.isOpen, inTransaction: host.inTransaction,
    exec: host.exec, prepare: host.prepare, fetch: host.fetch,
    reset: host.reset, columns: host.columns, info: host.info, func: host.func,
    flags: host.flags, nodeBind: host.nodeBind, bsIterate: host.bsIterate,
  };
  const { Buffer } = host.buffer;

  const { defineProperty, freeze, keys: objectKeys, getPrototypeOf } = Object;
  const isArray = Array.isArray;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const SymbolIterator = Symbol.iterator;
  const ArrayBufferIsView = ArrayBuffer.isView;
  const ReflectApply = Reflect.apply;

  // Flags of native.open, fetch shapes and kinds (guest/sqlite.c).
  const OPEN_READONLY = 1, OPEN_NOCREATE = 2, OPEN_FK_ON = 4, OPEN_FK_OFF = 8,
    OPEN_NO_DQS = 16, OPEN_BETTER = 32;
  const ROW_OBJECT = 0, ROW_ARRAY = 1, ROW_PLUCK = 2, ROW_EXPAND = 3;
  const FETCH_ALL = 0, FETCH_GET = 1, FETCH_NEXT = 2;
  // A statement's options and state (native.flags).
  const NODE_BIGINTS = 1, NODE_ARRAYS = 2, NODE_BARE_NAMED = 4, NODE_UNKNOWN_NAMED = 8,
    BS_READER = 16, BS_PLUCK = 32, BS_RAW = 64, BS_EXPAND = 128, BS_SAFE_INTS = 256,
    BS_BUSY = 1024;
  const INFO_SQL = 0, INFO_EXPANDED = 1, INFO_READONLY = 2, INFO_COLUMNS = 3;

  const withCode = (err, code) => {
    defineProperty(err, 'code', { value: code, writable: true, configurable: true, enumerable: true });
    return err;
  };
  const describe = (v) => v === null ? 'null' : typeof v === 'object'
    ? `an instance of ${(getPrototypeOf(v) && getPrototypeOf(v).constructor &&
      getPrototypeOf(v).constructor.name) || 'Object'}` : `type ${typeof v} (${String(v)})`;
  const argType = (name, what, v) => withCode(new TypeErrorCtor(
    `The "${name}" argument must be ${what}. Received ${describe(v)}`), 'ERR_INVALID_ARG_TYPE');
  const isPlainObject = (v) => v !== null && typeof v === 'object' && !isArray(v) &&
    !ArrayBufferIsView(v) && !(v instanceof ArrayBuffer);

  // -------------------------------------------------------------------------
  // node:sqlite
  // -------------------------------------------------------------------------

  const kDb = Symbol('kDb');
  const kStmt = Symbol('kStmt');
  const notOpen = () => withCode(new ErrorCtor('database is not open'), 'ERR_INVALID_STATE');

  // A database path as Node takes it: a string, a Buffer / Uint8Array, or a file: URL.
  function nodePath(path) {
    if (typeof path === 'string') {
      if (path.indexOf('\0') >= 0) {
        throw argType('path', 'a string, Uint8Array, or URL without null bytes', path);
      }
      return path;
    }
    if (path instanceof Uint8Array) return nodePath(Buffer.from(path).toString());
    if (path !== null && typeof path === 'object' && typeof path.href === 'string' &&
        path.protocol === 'file:') {
      return nodePath(decodeURIComponent(path.pathname));
    }
    throw argType('path', 'a string, Uint8Array, or URL without null bytes', path);
  }

  function boolOption(options, name, fallback) {
    const v = options[name];
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') throw argType(`options.${name}`, 'a boolean', v);
    return v;
  }

  class DatabaseSync {
    constructor(path, options) {
      if (!new.target) {
        throw withCode(new TypeErrorCtor("Class constructor DatabaseSync cannot be invoked without 'new'"),
          'ERR_CONSTRUCT_CALL_REQUIRED');
      }
      this[kDb] = { path: nodePath(path), handle: null };
      if (options === undefined) options = {};
      if (options === null || typeof options !== 'object') throw argType('options', 'an object', options);
      const o = this[kDb];
      o.readOnly = boolOption(options, 'readOnly', false);
      o.fk = boolOption(options, 'enableForeignKeyConstraints', true);
      o.dqs = boolOption(options, 'enableDoubleQuotedStringLiterals', false);
      o.readBigInts = boolOption(options, 'readBigInts', false);
      o.returnArrays = boolOption(options, 'returnArrays', false);
      o.bareNamed = boolOption(options, 'allowBareNamedParameters', true);
      o.unknownNamed = boolOption(options, 'allowUnknownNamedParameters', false);
      if (boolOption(options, 'allowExtension', false)) {
        throw withCode(new ErrorCtor('extension loading is not available in the sandbox'),
          'ERR_INVALID_STATE');
      }
      const timeout = options.timeout === undefined ? 0 : options.timeout;
      if (typeof timeout !== 'number' || !Number.isInteger(timeout)) {
        throw argType('options.timeout', 'an integer', timeout);
      }
      o.timeout = timeout;
      if (boolOption(options, 'open', true)) this.open();
    }

    open() {
      const o = this[kDb];
      if (o.handle !== null && native.isOpen(o.handle)) {
        throw withCode(new ErrorCtor('database is already open'), 'ERR_INVALID_STATE');
      }
      o.handle = native.open(o.path, (o.readOnly ? OPEN_READONLY : 0) |
        (o.fk ? OPEN_FK_ON : OPEN_FK_OFF) | (o.dqs ? 0 : OPEN_NO_DQS), o.timeout, o.handle);
    }

    get isOpen() {
      const o = this[kDb];
      return o.handle !== null && native.isOpen(o.handle);
    }

    get isTransaction() {
      return native.inTransaction(handleOf(this));
    }

    close() {
      native.close(handleOf(this));
    }

    exec(sql) {
      const h = handleOf(this);
      if (typeof sql !== 'string') throw argType('sql', 'a string', sql);
      native.exec(h, sql);
    }

    prepare(sql) {
      const h = handleOf(this);
      if (typeof sql !== 'string') throw argType('sql', 'a string', sql);
      // The statement is the native object itself, with StatementSync's prototype:
      // run(), get() and all() are natives called on it (guest/sqlite.c).
      const o = this[kDb];
      const stmt = native.prepare(h, sql, StatementSync.prototype,
        (o.readBigInts ? NODE_BIGINTS : 0) | (o.returnArrays ? NODE_ARRAYS : 0) |
        (o.bareNamed ? NODE_BARE_NAMED : 0) | (o.unknownNamed ? NODE_UNKNOWN_NAMED : 0));
      defineProperty(stmt, kStmt, { value: { db: o, handle: stmt } });
      return stmt;
    }

    function(name, options, fn) {
      const h = handleOf(this);
      if (typeof name !== 'string') throw argType('name', 'a string', name);
      if (typeof options === 'function') {
        fn = options;
        options = {};
      }
      if (options === null || typeof options !== 'object') throw argType('options', 'an object', options);
      if (typeof fn !== 'function') throw argType('function', 'a function', fn);
      const varargs = boolOption(options, 'varargs', false);
      native.func(h, name, fn, varargs ? -1 : fn.length, boolOption(options, 'deterministic', false),
        boolOption(options, 'useBigIntArguments', false));
    }

    loadExtension() {
      throw withCode(new ErrorCtor('extension loading is not available in the sandbox'),
        'ERR_INVALID_STATE');
    }
  }

  function handleOf(db) {
    const o = db !== null && typeof db === 'object' ? db[kDb] : undefined;
    if (o === undefined) throw withCode(new TypeErrorCtor('Illegal invocation'), 'ERR_INVALID_THIS');
    if (o.handle === null || !native.isOpen(o.handle)) throw notOpen();
    return o.handle;
  }

  function statementOf(stmt) {
    const s = stmt !== null && typeof stmt === 'object' ? stmt[kStmt] : undefined;
    if (s === undefined) throw withCode(new TypeErrorCtor('Illegal invocation'), 'ERR_INVALID_THIS');
    if (s.db.handle === null || !native.isOpen(s.db.handle)) throw notOpen();
    return s;
  }

  // Made by DatabaseSync.prototype.prepare only (see there).
  class StatementSync {
    constructor() {
      throw withCode(new TypeErrorCtor('Illegal constructor'), 'ERR_ILLEGAL_CONSTRUCTOR');
    }

    iterate(...args) {
      const s = statementOf(this);
      ReflectApply(native.nodeBind, this, args);
      const flags = () => native.flags(s.handle);
      return rowIterator(s, () => flags() & NODE_ARRAYS ? ROW_ARRAY : ROW_OBJECT,
        () => (flags() & NODE_BIGINTS) !== 0);
    }

    columns() {
      return native.columns(statementOf(this).handle);
    }

    get sourceSQL() {
      return native.info(statementOf(this).handle, INFO_SQL);
    }

    get expandedSQL() {
      return native.info(statementOf(this).handle, INFO_EXPANDED);
    }

    setReadBigInts(v) {
      const s = statementOf(this);
      if (typeof v !== 'boolean') throw argType('readBigInts', 'a boolean', v);
      native.flags(s.handle, NODE_BIGINTS, v);
    }

    setReturnArrays(v) {
      const s = statementOf(this);
      if (typeof v !== 'boolean') throw argType('returnArrays', 'a boolean', v);
      native.flags(s.handle, NODE_ARRAYS, v);
    }

    setAllowBareNamedParameters(v) {
      const s = statementOf(this);
      if (typeof v !== 'boolean') throw argType('allowBareNamedParameters', 'a boolean', v);
      native.flags(s.handle, NODE_BARE_NAMED, v);
    }

    setAllowUnknownNamedParameters(v) {
      const s = statementOf(this);
      if (typeof v !== 'boolean') throw argType('enabled', 'a boolean', v);
      native.flags(s.handle, NODE_UNKNOWN_NAMED, v);
    }
  }

  // StatementSync's natives, methods as a class's are (not enumerable).
  for (const [name, fn] of [['run', host.nodeRun], ['get', host.nodeGet], ['all', host.nodeAll]]) {
    defineProperty(StatementSync.prototype, name, { value: fn, writable: true, configurable: true });
  }

  // An iterator over the rows of s, bound already (iterate()); return() ends it early.
  function rowIterator(s, mode, bigint, onEnd) {
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        native.reset(s.handle);
        if (onEnd) onEnd();
      }
      return { value: undefined, done: true };
    };
    const it = {
      next() {
        if (done) return { value: undefined, done: true };
        let row;
        try {
          row = native.fetch(s.handle, mode(), bigint(), FETCH_NEXT);
        } catch (e) {
          finish();
          throw e;
        }
        if (row === undefined) return finish();
        return { value: row, done: false };
      },
      return: finish,
      [SymbolIterator]() { return this; },
    };
    return it;
  }

  const nodeSqlite = {
    DatabaseSync, StatementSync,
    constants: freeze({ SQLITE_CHANGESET_OMIT: 0, SQLITE_CHANGESET_REPLACE: 1, SQLITE_CHANGESET_ABORT: 2 }),
  };

  // -------------------------------------------------------------------------
  // better-sqlite3
  // -------------------------------------------------------------------------

  class SqliteError extends ErrorCtor {
    constructor(message, code) {
      super(message);
      if (typeof code !== 'string') throw new TypeErrorCtor('Expected second argument to be a string');
      this.code = code;
    }
  }
  defineProperty(SqliteError.prototype, 'name', { value: 'SqliteError', writable: true, configurable: true });
  host.setPrototypes(Buffer.prototype, SqliteError.prototype, isPlainObject,
    (v) => isPlainObject(v) && !(v instanceof Date));

  const kBs = Symbol('kBs');
  const notOpenBs = () => new TypeErrorCtor('The database connection is not open');

  function bsHandle(db) {
    const o = db !== null && typeof db === 'object' ? db[kBs] : undefined;
    if (o === undefined) throw new TypeErrorCtor('Illegal invocation');
    if (!native.isOpen(o.handle)) throw notOpenBs();
    return o;
  }

  function Database(filename, options) {
    if (new.target === undefined) return new Database(filename, options);
    if (filename === undefined || filename === null) filename = '';
    if (options === undefined || options === null) options = {};
    if (typeof filename !== 'string') {
      throw new TypeErrorCtor('Expected first argument to be a string');
    }
    if (typeof options !== 'object') throw new TypeErrorCtor('Expected second argument to be an options object');
    const trimmed = filename.trim();
    const anonymous = trimmed === '' || trimmed === ':memory:';
    const memory = anonymous || !!options.memory;
    const readonly = !!options.readonly;
    const fileMustExist = !!options.fileMustExist;
    const timeout = options.timeout === undefined ? 5000 : options.timeout;
    if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 0) {
      throw new TypeErrorCtor('Expected the "timeout" option to be a positive integer');
    }
    if (timeout > 0x7fffffff) throw new RangeErrorCtor('Option "timeout" cannot be greater than 2147483647');
    if (memory && readonly) throw new TypeErrorCtor('In-memory/temporary databases cannot be readonly');
    if (options.verbose !== undefined && options.verbose !== null && typeof options.verbose !== 'function') {
      throw new TypeErrorCtor('Expected the "verbose" option to be a function');
    }
    if (filename.indexOf('\0') >= 0) throw new TypeErrorCtor('Database path cannot contain null bytes');
    const path = options.memory && !anonymous ? ':memory:' : anonymous ? trimmed : filename;
    const verbose = options.verbose || null;
    const handle = native.open(path, OPEN_BETTER | OPEN_NO_DQS | (readonly ? OPEN_READONLY : 0) |
      (fileMustExist && !memory ? OPEN_NOCREATE : 0), timeout, undefined, verbose);
    defineProperty(this, kBs, {
      value: { handle, name: filename, memory, readonly, safeIntegers: false, verbose },
    });
  }

  const bsProto = Database.prototype;
  for (const [name, get] of [
    ['open', function () { return native.isOpen(this[kBs].handle); }],
    ['inTransaction', function () { const h = this[kBs].handle; return native.isOpen(h) && native.inTransaction(h); }],
    ['name', function () { return this[kBs].name; }],
    ['memory', function () { return this[kBs].memory; }],
    ['readonly', function () { return this[kBs].readonly; }],
  ]) {
    defineProperty(bsProto, name, { get, configurable: true, enumerable: true });
  }

  bsProto.prepare = function prepare(sql) {
    const o = bsHandle(this);
    if (typeof sql !== 'string') throw new TypeErrorCtor('Expected first argument to be a string');
    return newStatement(this, o, sql, 0);
  };

  bsProto.exec = function exec(sql) {
    const o = bsHandle(this);
    if (typeof sql !== 'string') throw new TypeErrorCtor('Expected first argument to be a string');
    if (o.verbose) ReflectApply(o.verbose, undefined, [sql]);
    native.exec(o.handle, sql);
    return this;
  };

  bsProto.close = function close() {
    const o = this[kBs];
    if (o === undefined) throw new TypeErrorCtor('Illegal invocation');
    if (native.isOpen(o.handle)) native.close(o.handle);
    return this;
  };

  bsProto.pragma = function pragma(source, options) {
    bsHandle(this);
    if (options === undefined || options === null) options = {};
    if (typeof source !== 'string') throw new TypeErrorCtor('Expected first argument to be a string');
    if (typeof options !== 'object') throw new TypeErrorCtor('Expected second argument to be an options object');
    // As better-sqlite3 does, a pragma statement is a reader even when it returns
    // nothing (a pragma that sets a value).
    const o = this[kBs];
    const stmt = newStatement(this, o, `PRAGMA ${source}`, BS_READER);
    return options.simple ? stmt.pluck().get() : stmt.all();
  };

  bsProto.defaultSafeIntegers = function defaultSafeIntegers(v) {
    bsHandle(this).safeIntegers = v === undefined ? true : !!v;
    return this;
  };

  bsProto.function = function (name, options, fn) {
    const o = bsHandle(this);
    if (typeof options === 'function') {
      fn = options;
      options = {};
    }
    if (options === undefined || options === null) options = {};
    if (typeof name !== 'string') throw new TypeErrorCtor('Expected first argument to be a string');
    if (typeof fn !== 'function') throw new TypeErrorCtor('Expected last argument to be a function');
    if (typeof options !== 'object') throw new TypeErrorCtor('Expected second argument to be an options object');
    if (!name) throw new TypeErrorCtor('User-defined function name cannot be an empty string');
    const safe = options.safeIntegers === undefined ? o.safeIntegers : !!options.safeIntegers;
    native.func(o.handle, name, fn, options.varargs ? -1 : fn.length, !!options.deterministic, safe);
    return this;
  };

  for (const name of ['aggregate', 'table', 'backup', 'serialize', 'loadExtension']) {
    bsProto[name] = function () {
      throw new TypeErrorCtor(`Database.prototype.${name}() is not available in the sandbox`);
    };
  }

  // transaction(fn): a function that runs fn inside BEGIN ... COMMIT (ROLLBACK when it
  // throws), or inside a savepoint when a transaction is open already; .deferred,
  // .immediate and .exclusive begin with that mode.
  bsProto.transaction = function transaction(fn) {
    if (typeof fn !== 'function') throw new TypeErrorCtor('Expected first argument to be a function');
    const db = this;
    const wrap = (begin) => {
      const run = function (...args) {
        const o = bsHandle(db);
        const nested = native.inTransaction(o.handle);
        native.exec(o.handle, nested ? 'SAVEPOINT "\t_bs3.\t"' : begin);
        let result;
        try {
          result = fn.apply(this, args);
          if (result !== null && typeof result === 'object' && typeof result.then === 'function') {
            throw new TypeErrorCtor('Transaction function cannot return a promise');
          }
          native.exec(o.handle, nested ? 'RELEASE "\t_bs3.\t"' : 'COMMIT');
        } catch (e) {
          if (native.isOpen(o.handle) && native.inTransaction(o.handle)) {
            native.exec(o.handle, nested ? 'ROLLBACK TO "\t_bs3.\t"; RELEASE "\t_bs3.\t"' : 'ROLLBACK');
          }
          throw e;
        }
        return result;
      };
      return run;
    };
    const variants = {
      default: wrap('BEGIN'), deferred: wrap('BEGIN DEFERRED'),
      immediate: wrap('BEGIN IMMEDIATE'), exclusive: wrap('BEGIN EXCLUSIVE'),
    };
    const main = variants.default;
    for (const k of objectKeys(variants)) {
      defineProperty(variants[k], 'database', { value: db });
      for (const k2 of objectKeys(variants)) defineProperty(variants[k], k2, { value: variants[k2] });
    }
    return main;
  };

  // A statement is SQLite's statement object itself, with Statement's prototype: run(),
  // get(), all() and bind() are natives called on it, which check it as better-sqlite3
  // does and bind each argument, an anonymous value, an array of them or an object of
  // named values (guest/sqlite.c). Its options and state are native.flags.
  function newStatement(database, o, sql, flags) {
    const stmt = native.prepare(o.handle, sql, stProto, flags | (o.safeIntegers ? BS_SAFE_INTS : 0));
    defineProperty(stmt, kBs, { value: { db: o, handle: stmt } });
    defineProperty(stmt, 'database', { value: database, enumerable: true });
    defineProperty(stmt, 'source', { value: native.info(stmt, INFO_SQL), enumerable: true });
    defineProperty(stmt, 'reader', { value: (native.flags(stmt) & BS_READER) !== 0, enumerable: true });
    defineProperty(stmt, 'readonly', { value: native.info(stmt, INFO_READONLY), enumerable: true });
    return stmt;
  }

  function bsStatement(stmt) {
    const st = stmt !== null && typeof stmt === 'object' ? stmt[kBs] : undefined;
    if (st === undefined) throw new TypeErrorCtor('Illegal invocation');
    if (!native.isOpen(st.db.handle)) throw notOpenBs();
    if (native.flags(st.handle) & BS_BUSY) throw new TypeErrorCtor('This statement is busy executing a query');
    return st;
  }

  // Made by Database.prototype.prepare and pragma only (see newStatement).
  function Statement() {
    throw new TypeErrorCtor('Statements can only be constructed by the db.prepare() method');
  }
  const stProto = Statement.prototype;
  defineProperty(stProto, 'busy', {
    get() {
      const st = this !== null && typeof this === 'object' ? this[kBs] : undefined;
      if (st === undefined) throw new TypeErrorCtor('Illegal invocation');
      return (native.flags(st.handle) & BS_BUSY) !== 0;
    },
    configurable: true,
  });
  for (const [name, fn] of [['run', host.bsRun], ['get', host.bsGet], ['all', host.bsAll],
    ['bind', host.bsBind]]) {
    stProto[name] = fn;
  }

  const needReader = (st) => {
    if (!(native.flags(st.handle) & BS_READER)) throw new TypeErrorCtor('This statement does not return data. Use run() instead');
  };

  const bsMode = (flags) => flags & BS_PLUCK ? ROW_PLUCK : flags & BS_RAW ? ROW_ARRAY
    : flags & BS_EXPAND ? ROW_EXPAND : ROW_OBJECT;

  stProto.iterate = function iterate(...args) {
    ReflectApply(native.bsIterate, this, args); // checks this, as run() does
    const st = this[kBs];
    native.flags(st.handle, BS_BUSY, true);
    return rowIterator(st, () => bsMode(native.flags(st.handle)),
      () => (native.flags(st.handle) & BS_SAFE_INTS) !== 0, () => native.flags(st.handle, BS_BUSY, false));
  };

  // pluck(), raw(), expand(): the row shape; turning one on turns the others off.
  for (const [name, flag] of [['pluck', BS_PLUCK], ['raw', BS_RAW], ['expand', BS_EXPAND]]) {
    stProto[name] = function (on) {
      const st = bsStatement(this);
      needReader(st);
      const v = on === undefined ? true : !!on;
      if (v) native.flags(st.handle, BS_PLUCK | BS_RAW | BS_EXPAND, false);
      native.flags(st.handle, flag, v);
      return this;
    };
  }

  stProto.safeIntegers = function safeIntegers(on) {
    native.flags(bsStatement(this).handle, BS_SAFE_INTS, on === undefined ? true : !!on);
    return this;
  };

  stProto.columns = function columns() {
    const st = bsStatement(this);
    needReader(st);
    return native.columns(st.handle).map((c) => ({
      name: c.name, column: c.column, table: c.table, database: c.database, type: c.type,
    }));
  };

  Database.SqliteError = SqliteError;
  Database.default = Database;

  return freeze({
    modules: freeze({ sqlite: freeze(nodeSqlite), 'better-sqlite3': Database }),
    version: host.version,
  });
})();
