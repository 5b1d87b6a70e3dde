/* Natives of sqlite.js: database connections and prepared statements over SQLite's
 * C API (build/sqlite/sqlite3.c, linked into the guest), and the locking that SQLite's
 * unix VFS uses on the sandbox's filesystem. sqlite.js builds node:sqlite and
 * better-sqlite3 over them. Every file SQLite touches goes through wasi-libc, so
 * through the host's WASI checks; nothing here reaches the host otherwise.
 *
 * Locks: under __wasi__ SQLite defaults to dot-file locking (a directory DB.lock),
 * which outlives a guest stopped by a limit (its memory is restored from the image,
 * its files are kept) and would leave the database locked for good. One sandbox is
 * one process with one thread, so the POSIX-lock VFS ("unix") is used instead, with
 * fcntl's locks granted at once: between the connections of the sandbox, SQLite's own
 * per-file lock table (in guest memory) decides, as it does between the connections of
 * one process on Linux; a stopped guest loses its locks with its memory, as a killed
 * process does, and the next open rolls back a hot journal. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "quickjs.h"
#include "sqlite3.h"
#include "sqlite.h"

/* The natives have QuickJS's one signature and use only some of its parameters (the
 * host's C is compiled with -Wno-unused-parameter for the same reason). */
#pragma clang diagnostic ignored "-Wunused-parameter"

extern _Thread_local int errno __attribute__((tls_model("local-exec")));

/* SQLite's own values of these under __wasi__ (sqlite3.c: wasi-libc lacks them). */
#ifndef F_RDLCK
#define F_UNLCK 2
#define F_GETLK 12
#define F_SETLK 13
#define F_SETLKW 14
#endif

/* ---- the VFS ------------------------------------------------------------------ */

/* fcntl for SQLite's unix VFS: byte-range locks always granted (see the top of this
 * file), the rest passed to wasi-libc. */
static int lock_fcntl(int fd, int op, ...)
{
    va_list ap;
    va_start(ap, op);
    if (op == F_GETLK || op == F_SETLK || op == F_SETLKW) {
        struct flock *l = va_arg(ap, struct flock *);
        va_end(ap);
        if (op == F_GETLK && l)
            l->l_type = F_UNLCK;
        return 0;
    }
    int arg = va_arg(ap, int);
    va_end(ap);
    return fcntl(fd, op, arg);
}

/* write for SQLite's unix VFS: the VFS's quota of one file (EDQUOT) is reported as a
 * full disk (ENOSPC), which SQLite turns into SQLITE_FULL as for the whole quota. */
static ssize_t quota_write(int fd, const void *buf, size_t n)
{
    ssize_t r = write(fd, buf, n);
    if (r < 0 && errno == EDQUOT)
        errno = ENOSPC;
    return r;
}

int capsa_sqlite_init(const char *unused)
{
    (void)unused;
    sqlite3_vfs *v = sqlite3_vfs_find("unix");
    if (!v || !v->xSetSystemCall)
        return SQLITE_ERROR;
    int rc = v->xSetSystemCall(v, "fcntl", (sqlite3_syscall_ptr)lock_fcntl);
    if (rc == SQLITE_OK)
        rc = v->xSetSystemCall(v, "write", (sqlite3_syscall_ptr)quota_write);
    return rc == SQLITE_OK ? sqlite3_vfs_register(v, 1) : rc;
}

/* ---- handles -------------------------------------------------------------------- */

/* Which module a connection belongs to: its errors, rows and blobs follow that
 * module's API. */
enum { FLAVOR_NODE = 0, FLAVOR_BETTER = 1 };

/* Flags of open(). */
enum {
    OPEN_READONLY = 1, OPEN_NOCREATE = 2, OPEN_FK_ON = 4, OPEN_FK_OFF = 8, OPEN_NO_DQS = 16,
    OPEN_BETTER = 32,
};

/* How bind_values matches values to parameters. */
enum { BIND_NODE = 0, BIND_BETTER = 1, BIND_NODE_ANY = 2 };

/* A statement's options and state (sq_stmt.flags). node:sqlite's: its database's
 * options when prepared, then its own set*() methods'. better-sqlite3's: whether it
 * returns data (reader), its row shape (pluck(), raw(), expand(): one at most), its
 * safeIntegers(), whether bind() bound it, and whether an iterate() is going on. */
enum {
    NODE_BIGINTS = 1, NODE_ARRAYS = 2, NODE_BARE_NAMED = 4, NODE_UNKNOWN_NAMED = 8,
    BS_READER = 16, BS_PLUCK = 32, BS_RAW = 64, BS_EXPAND = 128, BS_SAFE_INTS = 256,
    BS_BOUND = 512, BS_BUSY = 1024,
};

/* What the statements' methods in C do (their magic): bind the arguments and run,
 * get the first row, get all rows, or only bind (node:sqlite's iterate(); better-
 * sqlite3's iterate() also checks the statement as its run() does, and its bind()
 * binds once for all later calls). */
enum { CALL_RUN = 0, CALL_GET = 1, CALL_ALL = 2, CALL_ITERATE = 3, CALL_BIND = 4 };

/* Row shapes of fetch(). */
enum { ROW_OBJECT = 0, ROW_ARRAY = 1, ROW_PLUCK = 2, ROW_EXPAND = 3 };

/* What fetch() does: all rows, the first (then reset), or the next (reset at the end). */
enum { FETCH_ALL = 0, FETCH_GET = 1, FETCH_NEXT = 2 };

typedef struct sq_stmt sq_stmt;

typedef struct sq_db {
    sqlite3 *db;       /* NULL once closed */
    int flavor;
    int running;       /* sqlite3_step calls in progress (nested through user functions) */
    sq_stmt *stmts;    /* its open statements, finalized when it closes */
    JSContext *ctx;    /* for user functions */
    JSValue pending;   /* a user function's exception, rethrown by the failed call */
    JSValue successor; /* closed, and its DatabaseSync opened again: the new connection */
    JSValue verbose;   /* better-sqlite3's verbose option: called with each statement's
                          SQL, values bound, before it runs; or undefined */
} sq_db;

struct sq_stmt {
    sqlite3_stmt *st;  /* NULL once finalized */
    sq_db *db;
    JSValue db_obj;    /* keeps db alive while the statement is */
    int running;       /* inside sqlite3_step: a user function must not reset or rebind it */
    int flags;         /* NODE_* or BS_* options and state */
    sq_stmt *next, *prev;
};

static JSClassID db_class, stmt_class;
/* What the modules give (set_prototypes): Buffer.prototype for better-sqlite3's
 * blobs, SqliteError.prototype for its errors, and each module's test of an
 * argument that holds named parameters. */
static JSValue buffer_proto, sqlite_error_proto, node_named_test, bs_named_test, uint8_ctor;
/* Names the natives use for every row or call, made once. */
static JSAtom atom_length, atom_changes, atom_rowid;

static void stmt_unlink(sq_stmt *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else if (s->db)
        s->db->stmts = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->next = s->prev = NULL;
}

/* Finalizes s and takes it off its connection's list (a statement is on it exactly
 * while it is not finalized). */
static void stmt_finalize(sq_stmt *s)
{
    if (!s->st)
        return;
    sqlite3_finalize(s->st);
    s->st = NULL;
    stmt_unlink(s);
}

static void db_close(sq_db *d)
{
    while (d->stmts)
        stmt_finalize(d->stmts);
    if (d->db) {
        sqlite3_close_v2(d->db);
        d->db = NULL;
    }
}

static void db_finalizer(JSRuntime *rt, JSValue val)
{
    sq_db *d = JS_GetOpaque(val, db_class);
    if (!d)
        return;
    db_close(d);
    JS_FreeValueRT(rt, d->pending);
    JS_FreeValueRT(rt, d->successor);
    JS_FreeValueRT(rt, d->verbose);
    js_free_rt(rt, d);
}

/* What a connection holds of the script's values, for the cycle collector (a verbose
 * function may hold its Database). */
static void db_mark(JSRuntime *rt, JSValueConst val, JS_MarkFunc *mark)
{
    sq_db *d = JS_GetOpaque(val, db_class);
    if (!d)
        return;
    JS_MarkValue(rt, d->pending, mark);
    JS_MarkValue(rt, d->successor, mark);
    JS_MarkValue(rt, d->verbose, mark);
}

static void stmt_finalizer(JSRuntime *rt, JSValue val)
{
    sq_stmt *s = JS_GetOpaque(val, stmt_class);
    if (!s)
        return;
    stmt_finalize(s);
    JS_FreeValueRT(rt, s->db_obj);
    js_free_rt(rt, s);
}

/* ---- errors --------------------------------------------------------------------- */

/* SQLite's result codes by name, for better-sqlite3's err.code. */
#define SQ_CODE(name) { SQLITE_##name, "SQLITE_" #name }
static const struct { int code; const char *name; } sq_codes[] = {
    SQ_CODE(ERROR), SQ_CODE(INTERNAL), SQ_CODE(PERM), SQ_CODE(ABORT), SQ_CODE(BUSY),
    SQ_CODE(LOCKED), SQ_CODE(NOMEM), SQ_CODE(READONLY), SQ_CODE(INTERRUPT), SQ_CODE(IOERR),
    SQ_CODE(CORRUPT), SQ_CODE(NOTFOUND), SQ_CODE(FULL), SQ_CODE(CANTOPEN), SQ_CODE(PROTOCOL),
    SQ_CODE(EMPTY), SQ_CODE(SCHEMA), SQ_CODE(TOOBIG), SQ_CODE(CONSTRAINT), SQ_CODE(MISMATCH),
    SQ_CODE(MISUSE), SQ_CODE(NOLFS), SQ_CODE(AUTH), SQ_CODE(FORMAT), SQ_CODE(RANGE),
    SQ_CODE(NOTADB), SQ_CODE(NOTICE), SQ_CODE(WARNING),
    SQ_CODE(ERROR_MISSING_COLLSEQ), SQ_CODE(ERROR_RETRY), SQ_CODE(ERROR_SNAPSHOT),
    SQ_CODE(IOERR_READ), SQ_CODE(IOERR_SHORT_READ), SQ_CODE(IOERR_WRITE), SQ_CODE(IOERR_FSYNC),
    SQ_CODE(IOERR_DIR_FSYNC), SQ_CODE(IOERR_TRUNCATE), SQ_CODE(IOERR_FSTAT),
    SQ_CODE(IOERR_UNLOCK), SQ_CODE(IOERR_RDLOCK), SQ_CODE(IOERR_DELETE), SQ_CODE(IOERR_NOMEM),
    SQ_CODE(IOERR_ACCESS), SQ_CODE(IOERR_CHECKRESERVEDLOCK), SQ_CODE(IOERR_LOCK),
    SQ_CODE(IOERR_CLOSE), SQ_CODE(IOERR_DIR_CLOSE), SQ_CODE(IOERR_SHMOPEN),
    SQ_CODE(IOERR_SHMSIZE), SQ_CODE(IOERR_SHMLOCK), SQ_CODE(IOERR_SHMMAP), SQ_CODE(IOERR_SEEK),
    SQ_CODE(IOERR_DELETE_NOENT), SQ_CODE(IOERR_MMAP), SQ_CODE(IOERR_GETTEMPPATH),
    SQ_CODE(IOERR_CONVPATH), SQ_CODE(IOERR_DATA), SQ_CODE(IOERR_CORRUPTFS),
    SQ_CODE(LOCKED_SHAREDCACHE), SQ_CODE(LOCKED_VTAB), SQ_CODE(BUSY_RECOVERY),
    SQ_CODE(BUSY_SNAPSHOT), SQ_CODE(BUSY_TIMEOUT), SQ_CODE(CANTOPEN_NOTEMPDIR),
    SQ_CODE(CANTOPEN_ISDIR), SQ_CODE(CANTOPEN_FULLPATH), SQ_CODE(CANTOPEN_CONVPATH),
    SQ_CODE(CANTOPEN_DIRTYWAL), SQ_CODE(CANTOPEN_SYMLINK), SQ_CODE(CORRUPT_VTAB),
    SQ_CODE(CORRUPT_SEQUENCE), SQ_CODE(CORRUPT_INDEX), SQ_CODE(READONLY_RECOVERY),
    SQ_CODE(READONLY_CANTLOCK), SQ_CODE(READONLY_ROLLBACK), SQ_CODE(READONLY_DBMOVED),
    SQ_CODE(READONLY_CANTINIT), SQ_CODE(READONLY_DIRECTORY), SQ_CODE(ABORT_ROLLBACK),
    SQ_CODE(CONSTRAINT_CHECK), SQ_CODE(CONSTRAINT_COMMITHOOK), SQ_CODE(CONSTRAINT_FOREIGNKEY),
    SQ_CODE(CONSTRAINT_FUNCTION), SQ_CODE(CONSTRAINT_NOTNULL), SQ_CODE(CONSTRAINT_PRIMARYKEY),
    SQ_CODE(CONSTRAINT_TRIGGER), SQ_CODE(CONSTRAINT_UNIQUE), SQ_CODE(CONSTRAINT_VTAB),
    SQ_CODE(CONSTRAINT_ROWID), SQ_CODE(CONSTRAINT_PINNED), SQ_CODE(CONSTRAINT_DATATYPE),
    SQ_CODE(NOTICE_RECOVER_WAL), SQ_CODE(NOTICE_RECOVER_ROLLBACK), SQ_CODE(WARNING_AUTOINDEX),
};

static const char *code_name(int rc)
{
    for (size_t i = 0; i < sizeof(sq_codes) / sizeof(sq_codes[0]); i++)
        if (sq_codes[i].code == rc)
            return sq_codes[i].name;
    for (size_t i = 0; i < sizeof(sq_codes) / sizeof(sq_codes[0]); i++)
        if (sq_codes[i].code == (rc & 0xff))
            return sq_codes[i].name;
    return "SQLITE_ERROR";
}

/* A new Error whose message is text (sqlite3_mprintf's, freed here; NULL: out of
 * memory), or JS_EXCEPTION. */
static JSValue new_error(JSContext *c, char *text)
{
    JSValue e = JS_NewError(c);
    if (!JS_IsException(e))
        JS_DefinePropertyValueStr(c, e, "message", JS_NewString(c, text ? text : "out of memory"),
                                  JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE);
    sqlite3_free(text);
    return e;
}

/* Throws the error of result code rc with message msg, as d's module makes it:
 * node:sqlite's Error (code 'ERR_SQLITE_ERROR', errcode, errstr) or better-sqlite3's
 * SqliteError (code 'SQLITE_...'). A user function's exception, when one caused the
 * failure, is thrown instead. Returns JS_EXCEPTION. */
static JSValue throw_sqlite(JSContext *c, sq_db *d, int rc, const char *msg)
{
    if (d && !JS_IsUndefined(d->pending)) {
        JSValue e = d->pending;
        d->pending = JS_UNDEFINED;
        return JS_Throw(c, e);
    }
    int better = d && d->flavor == FLAVOR_BETTER;
    const char *note = (rc & 0xff) == SQLITE_FULL
                           ? " (the sandbox's disk quota is used up; the database is unchanged)"
                           : "";
    char *text = sqlite3_mprintf("%s%s", msg ? msg : sqlite3_errstr(rc), note);
    JSValue e = new_error(c, text);
    if (JS_IsException(e))
        return e;
    if (better && JS_IsObject(sqlite_error_proto))
        JS_SetPrototype(c, e, sqlite_error_proto);
    if (better) {
        JS_SetPropertyStr(c, e, "code", JS_NewString(c, code_name(rc)));
    } else {
        JS_SetPropertyStr(c, e, "code", JS_NewString(c, "ERR_SQLITE_ERROR"));
        JS_SetPropertyStr(c, e, "errcode", JS_NewInt32(c, rc));
        JS_SetPropertyStr(c, e, "errstr", JS_NewString(c, sqlite3_errstr(rc)));
    }
    return JS_Throw(c, e);
}

/* The error of d's last failed call. */
static JSValue throw_db(JSContext *c, sq_db *d, int rc)
{
    return throw_sqlite(c, d, sqlite3_extended_errcode(d->db) ? sqlite3_extended_errcode(d->db) : rc,
                        sqlite3_errmsg(d->db));
}

/* Throws a misuse of the API (a closed database, a finalized statement) as d's
 * module does: node:sqlite's Error with code ERR_INVALID_STATE, better-sqlite3's
 * TypeError. */
static JSValue throw_state(JSContext *c, sq_db *d, const char *node_msg, const char *better_msg)
{
    if (d && d->flavor == FLAVOR_BETTER)
        return JS_ThrowTypeError(c, "%s", better_msg);
    JSValue e = JS_NewError(c);
    JS_DefinePropertyValueStr(c, e, "message", JS_NewString(c, node_msg),
                              JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE);
    JS_SetPropertyStr(c, e, "code", JS_NewString(c, "ERR_INVALID_STATE"));
    return JS_Throw(c, e);
}

/* d of a native's argument, open; NULL with an exception pending. */
static sq_db *open_db(JSContext *c, JSValueConst v)
{
    sq_db *d = JS_GetOpaque2(c, v, db_class);
    if (d && !d->db) {
        throw_state(c, d, "database is not open", "The database connection is not open");
        return NULL;
    }
    return d;
}

/* s of a native's argument, not finalized and not running (a user function that
 * uses the statement calling it); NULL with an exception pending. */
static sq_stmt *live_stmt(JSContext *c, JSValueConst v)
{
    sq_stmt *s = JS_GetOpaque2(c, v, stmt_class);
    if (s && !s->st) {
        throw_state(c, s->db, "statement has been finalized", "The database connection is not open");
        return NULL;
    }
    if (s && s->running) {
        throw_state(c, s->db, "statement is busy executing a query",
                    "This statement is busy executing a query");
        return NULL;
    }
    return s;
}

/* sqlite3_step of s, marked as running meanwhile (see live_stmt and js_close). */
static int stmt_step(sq_stmt *s)
{
    s->running = 1;
    s->db->running++;
    int rc = sqlite3_step(s->st);
    s->db->running--;
    s->running = 0;
    return rc;
}

/* ---- values ---------------------------------------------------------------------- */

/* A blob as its module gives it: a Uint8Array (node:sqlite) or a Buffer. */
static JSValue new_blob(JSContext *c, int flavor, const void *p, int n)
{
    JSValue ab = JS_NewArrayBufferCopy(c, p ? p : (const void *)"", (size_t)(n > 0 ? n : 0));
    if (JS_IsException(ab))
        return ab;
    JSValue u8 = JS_CallConstructor(c, uint8_ctor, 1, (JSValueConst *)&ab);
    JS_FreeValue(c, ab);
    if (!JS_IsException(u8) && flavor == FLAVOR_BETTER && JS_IsObject(buffer_proto))
        JS_SetPrototype(c, u8, buffer_proto);
    return u8;
}

/* An integer from SQLite: a BigInt with bigint, a number otherwise (node:sqlite
 * refuses one past 2^53, better-sqlite3 rounds it). */
static JSValue new_int(JSContext *c, int flavor, int bigint, sqlite3_int64 v)
{
    if (bigint)
        return JS_NewBigInt64(c, v);
    if (flavor == FLAVOR_NODE && (v > 9007199254740991LL || v < -9007199254740991LL))
        return JS_ThrowRangeError(c, "Value is too large to be represented as a JavaScript "
                                     "number: %lld", (long long)v);
    return JS_NewInt64(c, v);
}

/* A value of SQLite's as a JS value of flavor's module. */
static JSValue sqlite_to_js(JSContext *c, sqlite3_value *v, int flavor, int bigint)
{
    switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER:
        return new_int(c, flavor, bigint, sqlite3_value_int64(v));
    case SQLITE_FLOAT:
        return JS_NewFloat64(c, sqlite3_value_double(v));
    case SQLITE_TEXT:
        return JS_NewStringLen(c, (const char *)sqlite3_value_text(v),
                               (size_t)sqlite3_value_bytes(v));
    case SQLITE_BLOB:
        return new_blob(c, flavor, sqlite3_value_blob(v), sqlite3_value_bytes(v));
    default:
        return JS_NULL;
    }
}

static JSValue column_value(JSContext *c, sqlite3_stmt *st, int i, int flavor, int bigint)
{
    return sqlite_to_js(c, sqlite3_column_value(st, i), flavor, bigint);
}

/* The bytes of a Uint8Array (any typed array, DataView) or ArrayBuffer v: 1 with
 * *p and *n set, 0 when v is none of them. */
static int bytes_of(JSContext *c, JSValueConst v, const uint8_t **p, size_t *n)
{
    size_t off, len, bpe;
    JSValue ab = JS_GetTypedArrayBuffer(c, v, &off, &len, &bpe);
    if (!JS_IsException(ab)) {
        size_t size;
        uint8_t *base = JS_GetArrayBuffer(c, &size, ab);
        JS_FreeValue(c, ab);
        if (base && off + len <= size) {
            *p = base + off;
            *n = len;
            return 1;
        }
        return 0;
    }
    JS_FreeValue(c, JS_GetException(c));
    uint8_t *base = JS_GetArrayBuffer(c, n, v);
    if (base) {
        *p = base;
        return 1;
    }
    JS_FreeValue(c, JS_GetException(c));
    return 0;
}

/* Binds v to parameter i of s. 0, or -1 with an exception pending. */
static int bind_value(JSContext *c, sq_stmt *s, int i, JSValueConst v)
{
    sqlite3_stmt *st = s->st;
    int rc;
    const uint8_t *p;
    size_t n;
    if (JS_IsNull(v) || JS_IsUndefined(v)) {
        rc = sqlite3_bind_null(st, i);
    } else if (JS_IsNumber(v)) {
        double d;
        JS_ToFloat64(c, &d, v);
        rc = sqlite3_bind_double(st, i, d);
    } else if (JS_IsBigInt(c, v)) {
        /* JS_ToBigInt64 wraps modulo 2^64: a value that does not print as its
           wrapped self lies outside SQLite's 64-bit integers. */
        int64_t x = 0;
        const char *digits = JS_ToBigInt64(c, &x, v) < 0 ? NULL : JS_ToCString(c, v);
        if (!digits)
            return -1;
        char wrapped[24];
        snprintf(wrapped, sizeof(wrapped), "%lld", (long long)x);
        int inside = strcmp(digits, wrapped) == 0;
        JS_FreeCString(c, digits);
        if (!inside) {
            JS_ThrowRangeError(c, s->db->flavor == FLAVOR_NODE
                                      ? "BigInt value is too large to bind."
                                      : "BigInt value is too large to be represented as a "
                                        "SQLite integer");
            return -1;
        }
        rc = sqlite3_bind_int64(st, i, x);
    } else if (JS_IsString(v)) {
        size_t len;
        const char *str = JS_ToCStringLen(c, &len, v);
        if (!str)
            return -1;
        rc = sqlite3_bind_text64(st, i, str, len, SQLITE_TRANSIENT, SQLITE_UTF8);
        JS_FreeCString(c, str);
    } else if (JS_IsObject(v) && bytes_of(c, v, &p, &n)) {
        rc = sqlite3_bind_blob64(st, i, n ? (const void *)p : (const void *)"", n,
                                 SQLITE_TRANSIENT);
    } else {
        if (s->db->flavor == FLAVOR_NODE) {
            JS_ThrowTypeError(c, "Provided value cannot be bound to SQLite parameter %d.", i);
            JSValue e = JS_GetException(c);
            JS_SetPropertyStr(c, e, "code", JS_NewString(c, "ERR_INVALID_ARG_TYPE"));
            JS_Throw(c, e);
        } else {
            JS_ThrowTypeError(c, "SQLite3 can only bind numbers, strings, bigints, buffers, "
                                 "and null");
        }
        return -1;
    }
    if (rc != SQLITE_OK) {
        throw_db(c, s->db, rc);
        return -1;
    }
    return 0;
}

/* ---- natives ---------------------------------------------------------------------- */

/* An int argument (0 when absent). */
static int arg_int(JSContext *c, int argc, JSValueConst *argv, int i)
{
    int32_t v = 0;
    if (i < argc)
        JS_ToInt32(c, &v, argv[i]);
    return v;
}

/* open(path, flags, timeout_ms[, previous, verbose]): a connection (flags: OPEN_*).
 * The path is SQLite's (":memory:", "" for a temporary database, or a file, resolved
 * by WASI). previous, a closed connection this one replaces (DatabaseSync.open()
 * again), keeps it: whether its statements' database is open is this one's state.
 * verbose: see sq_db. */
static JSValue js_open(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    const char *path = JS_ToCString(c, argv[0]);
    if (!path)
        return JS_EXCEPTION;
    int flags = arg_int(c, argc, argv, 1), timeout = arg_int(c, argc, argv, 2);
    sq_db *d = js_mallocz(c, sizeof(*d));
    JSValue obj = d ? JS_NewObjectClass(c, (int)db_class) : JS_EXCEPTION;
    if (JS_IsException(obj)) {
        js_free(c, d);
        JS_FreeCString(c, path);
        return JS_EXCEPTION;
    }
    d->flavor = flags & OPEN_BETTER ? FLAVOR_BETTER : FLAVOR_NODE;
    d->ctx = c;
    d->pending = d->successor = JS_UNDEFINED;
    d->verbose = argc > 4 && JS_IsFunction(c, argv[4]) ? JS_DupValue(c, argv[4]) : JS_UNDEFINED;
    JS_SetOpaque(obj, d);
    int oflags = flags & OPEN_READONLY ? SQLITE_OPEN_READONLY
                 : flags & OPEN_NOCREATE ? SQLITE_OPEN_READWRITE
                                         : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    int rc = sqlite3_open_v2(path, &d->db, oflags, NULL);
    JS_FreeCString(c, path);
    if (rc != SQLITE_OK) {
        if (!d->db) {
            JS_FreeValue(c, obj);
            return throw_sqlite(c, NULL, rc, NULL);
        }
        int ext = sqlite3_extended_errcode(d->db);
        JSValue e = throw_sqlite(c, d, ext ? ext : rc, sqlite3_errmsg(d->db));
        db_close(d);
        JS_FreeValue(c, obj);
        return e;
    }
    sqlite3_extended_result_codes(d->db, 1);
    if (flags & (OPEN_FK_ON | OPEN_FK_OFF))
        sqlite3_db_config(d->db, SQLITE_DBCONFIG_ENABLE_FKEY, flags & OPEN_FK_ON ? 1 : 0, NULL);
    if (flags & OPEN_NO_DQS) {
        sqlite3_db_config(d->db, SQLITE_DBCONFIG_DQS_DML, 0, NULL);
        sqlite3_db_config(d->db, SQLITE_DBCONFIG_DQS_DDL, 0, NULL);
    }
    if (timeout > 0)
        sqlite3_busy_timeout(d->db, timeout);
    sq_db *previous = argc > 3 ? JS_GetOpaque(argv[3], db_class) : NULL;
    if (previous && !previous->db && JS_IsUndefined(previous->successor))
        previous->successor = JS_DupValue(c, obj);
    return obj;
}

static JSValue js_close(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    sq_db *d = open_db(c, argv[0]);
    if (!d)
        return JS_EXCEPTION;
    /* A user function closing its own connection would finalize statements in the
       middle of their step. */
    if (d->running)
        return throw_state(c, d, "database is busy executing a query",
                           "This database connection is busy executing a query");
    db_close(d);
    return JS_UNDEFINED;
}

/* isOpen(db), inTransaction(db). */
static JSValue js_is_open(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    sq_db *d = JS_GetOpaque2(c, argv[0], db_class);
    return d ? JS_NewBool(c, d->db != NULL) : JS_EXCEPTION;
}

static JSValue js_in_transaction(JSContext *c, JSValueConst this_val, int argc,
                                 JSValueConst *argv)
{
    sq_db *d = JS_GetOpaque2(c, argv[0], db_class);
    if (!d)
        return JS_EXCEPTION;
    return JS_NewBool(c, d->db && !sqlite3_get_autocommit(d->db));
}

/* exec(db, sql): runs every statement of sql. */
static JSValue js_exec(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    sq_db *d = open_db(c, argv[0]);
    if (!d)
        return JS_EXCEPTION;
    const char *sql = JS_ToCString(c, argv[1]);
    if (!sql)
        return JS_EXCEPTION;
    char *err = NULL;
    d->running++;
    int rc = sqlite3_exec(d->db, sql, NULL, NULL, &err);
    d->running--;
    JS_FreeCString(c, sql);
    sqlite3_free(err);
    return rc == SQLITE_OK ? JS_UNDEFINED : throw_db(c, d, rc);
}

/* Whether text holds nothing but white space and comments. */
static int only_comments(const char *p)
{
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == ';')
            p++;
        if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n')
                p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            if (!e)
                return 1;
            p = e + 2;
        } else {
            return *p == '\0';
        }
    }
}

/* prepare(db, sql[, proto, flags]): the statement of sql's first statement, whose
 * prototype is proto when given (the modules' statements are these objects) and
 * whose options are flags (BS_READER is added to a better-sqlite3 statement that
 * has result columns). better-sqlite3's connections refuse SQL holding more than one
 * (RangeError), and both refuse SQL holding none. */
static JSValue js_prepare(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    sq_db *d = open_db(c, argv[0]);
    if (!d)
        return JS_EXCEPTION;
    size_t len;
    const char *sql = JS_ToCStringLen(c, &len, argv[1]);
    if (!sql)
        return JS_EXCEPTION;
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    int rc = sqlite3_prepare_v3(d->db, sql, (int)len + 1, SQLITE_PREPARE_PERSISTENT, &st, &tail);
    if (rc != SQLITE_OK) {
        JS_FreeCString(c, sql);
        return throw_db(c, d, rc);
    }
    int more = st && tail && !only_comments(tail);
    JS_FreeCString(c, sql);
    if (!st)
        return JS_ThrowRangeError(c, "The supplied SQL string contains no statements");
    if (more && d->flavor == FLAVOR_BETTER) {
        sqlite3_finalize(st);
        return JS_ThrowRangeError(c, "The supplied SQL string contains more than one statement");
    }
    sq_stmt *s = js_mallocz(c, sizeof(*s));
    JSValue obj = s ? JS_NewObjectClass(c, (int)stmt_class) : JS_EXCEPTION;
    if (JS_IsException(obj)) {
        js_free(c, s);
        sqlite3_finalize(st);
        return JS_EXCEPTION;
    }
    if (argc > 2 && JS_IsObject(argv[2]) && JS_SetPrototype(c, obj, argv[2]) < 0) {
        JS_FreeValue(c, obj);
        js_free(c, s);
        sqlite3_finalize(st);
        return JS_EXCEPTION;
    }
    s->st = st;
    s->db = d;
    s->flags = arg_int(c, argc, argv, 3);
    if (d->flavor == FLAVOR_BETTER && sqlite3_column_count(st) > 0)
        s->flags |= BS_READER;
    s->db_obj = JS_DupValue(c, argv[0]);
    s->next = d->stmts;
    if (d->stmts)
        d->stmts->prev = s;
    d->stmts = s;
    JS_SetOpaque(obj, s);
    return obj;
}

/* Throws better-sqlite3's or node:sqlite's error for a parameter problem. */
static JSValue throw_param(JSContext *c, sq_db *d, const char *msg, const char *name)
{
    if (d->flavor == FLAVOR_BETTER)
        return JS_ThrowRangeError(c, msg, name);
    /* Node's ERR_INVALID_STATE is an Error, not a TypeError. */
    JSValue e = new_error(c, sqlite3_mprintf(msg, name));
    if (JS_IsException(e))
        return e;
    JS_SetPropertyStr(c, e, "code", JS_NewString(c, "ERR_INVALID_STATE"));
    return JS_Throw(c, e);
}

/* node:sqlite's check of the keys of named: each names a parameter of s (with one
 * of the prefixes $ : @, or as written), or, with prefixed, each starts with its
 * prefix ($ : @ ?; the rule without allowBareNamedParameters). JS_UNDEFINED, or
 * JS_EXCEPTION. */
static JSValue check_keys(JSContext *c, sq_stmt *s, JSValueConst named, int prefixed)
{
    JSPropertyEnum *tab = NULL;
    uint32_t n = 0;
    if (JS_GetOwnPropertyNames(c, &tab, &n, named, JS_GPN_STRING_MASK | JS_GPN_ENUM_ONLY) < 0)
        return JS_EXCEPTION;
    JSValue r = JS_UNDEFINED;
    for (uint32_t i = 0; i < n; i++) {
        const char *key = JS_IsException(r) ? NULL : JS_AtomToCString(c, tab[i].atom);
        if (!key && !JS_IsException(r))
            r = JS_EXCEPTION;
        if (key) {
            int found = prefixed ? key[0] && strchr("$:@?", key[0])
                                 : sqlite3_bind_parameter_index(s->st, key) > 0;
            for (const char *pre = "$:@"; !prefixed && !found && *pre; pre++) {
                char *full = sqlite3_mprintf("%c%s", *pre, key);
                found = full && sqlite3_bind_parameter_index(s->st, full) > 0;
                sqlite3_free(full);
            }
            if (!found)
                r = throw_param(c, s->db, "Unknown named parameter '%s'", key);
            JS_FreeCString(c, key);
        }
        JS_FreeAtom(c, tab[i].atom);
    }
    js_free(c, tab);
    return r;
}

/* Binds npos values, pos[0..npos), to s's anonymous (and numbered) parameters in
 * order, and those of the object named (or undefined) to the named ones, by name
 * without its prefix ($a :a @a), or with it. how is BIND_BETTER (too few values, or a
 * missing named one, is an error), BIND_NODE (missing ones are NULL; a key of named
 * that names no parameter is an error) or BIND_NODE_ANY (such keys are ignored). Too
 * many values is an error. */
static JSValue bind_values(JSContext *c, sq_stmt *s, int64_t npos, JSValueConst *pos,
                           JSValueConst named, int how)
{
    sqlite3_stmt *st = s->st;
    int strict = how == BIND_BETTER;
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    int count = sqlite3_bind_parameter_count(st);
    int64_t used = 0;
    for (int i = 1; i <= count; i++) {
        const char *name = sqlite3_bind_parameter_name(st, i);
        JSValue v;
        if (!name || name[0] == '?') {
            if (used >= npos) {
                if (strict)
                    return throw_param(c, s->db, "Too few parameter values were provided%s", "");
                continue;
            }
            v = JS_DupValue(c, pos[used]);
            used++;
        } else {
            /* node:sqlite leaves a named parameter it has no value for NULL. */
            if (!JS_IsObject(named)) {
                if (strict)
                    return throw_param(c, s->db, "Missing named parameter \"%s\"", name + 1);
                continue;
            }
            v = JS_GetPropertyStr(c, named, name + 1);
            if (JS_IsUndefined(v))
                v = JS_GetPropertyStr(c, named, name);
            if (JS_IsUndefined(v)) {
                JSAtom a = JS_NewAtom(c, name + 1), b = JS_NewAtom(c, name);
                int has = JS_HasProperty(c, named, a) > 0 || JS_HasProperty(c, named, b) > 0;
                JS_FreeAtom(c, a);
                JS_FreeAtom(c, b);
                if (!has && strict)
                    return throw_param(c, s->db, "Missing named parameter \"%s\"", name + 1);
            }
        }
        if (JS_IsException(v))
            return JS_EXCEPTION;
        int r = bind_value(c, s, i, v);
        JS_FreeValue(c, v);
        if (r < 0)
            return JS_EXCEPTION;
    }
    if (used < npos)
        return s->db->flavor == FLAVOR_BETTER
                   ? throw_param(c, s->db, "Too many parameter values were provided%s", "")
                   : throw_sqlite(c, s->db, SQLITE_RANGE, "column index out of range");
    return how != BIND_NODE || !JS_IsObject(named) ? JS_UNDEFINED : check_keys(c, s, named, 0);
}

/* The row st is on, in shape mode (ROW_*). */
static JSValue make_row(JSContext *c, sq_stmt *s, int mode, int bigint, JSAtom *names)
{
    sqlite3_stmt *st = s->st;
    int flavor = s->db->flavor, n = sqlite3_column_count(st);
    if (mode == ROW_PLUCK)
        return n > 0 ? column_value(c, st, 0, flavor, bigint) : JS_UNDEFINED;
    JSValue row = mode == ROW_ARRAY ? JS_NewArray(c)
                  : flavor == FLAVOR_NODE && mode == ROW_OBJECT ? JS_NewObjectProto(c, JS_NULL)
                                                               : JS_NewObject(c);
    if (JS_IsException(row))
        return row;
    for (int i = 0; i < n; i++) {
        JSValue v = column_value(c, st, i, flavor, bigint);
        if (JS_IsException(v)) {
            JS_FreeValue(c, row);
            return v;
        }
        int r;
        if (mode == ROW_ARRAY) {
            r = JS_SetPropertyUint32(c, row, (uint32_t)i, v);
        } else if (mode == ROW_EXPAND) {
            const char *table = sqlite3_column_table_name(st, i);
            JSAtom ta = JS_NewAtom(c, table ? table : "$");
            JSValue sub = JS_GetProperty(c, row, ta);
            if (JS_IsUndefined(sub)) {
                sub = JS_NewObject(c);
                JS_SetProperty(c, row, ta, JS_DupValue(c, sub));
            }
            JS_FreeAtom(c, ta);
            r = JS_SetProperty(c, sub, names[i], v);
            JS_FreeValue(c, sub);
        } else {
            r = JS_DefinePropertyValue(c, row, names[i], v, JS_PROP_C_W_E);
        }
        if (r < 0) {
            JS_FreeValue(c, row);
            return JS_EXCEPTION;
        }
    }
    return row;
}

/* Steps s, bound, and gives its rows in shape mode: all of them as an array
 * (FETCH_ALL), the first or undefined (FETCH_GET), or the next or undefined at the
 * end (FETCH_NEXT, which leaves the statement where it is otherwise). */
static JSValue fetch_rows(JSContext *c, sq_stmt *s, int mode, int bigint, int kind)
{
    sqlite3_stmt *st = s->st;
    int n = sqlite3_column_count(st);
    JSAtom names_small[16], *names = n <= 16 ? names_small : js_malloc(c, sizeof(JSAtom) * n);
    if (!names)
        return JS_EXCEPTION;
    for (int i = 0; i < n; i++) {
        const char *name = sqlite3_column_name(st, i);
        names[i] = JS_NewAtom(c, name ? name : "");
    }
    JSValue out = kind == FETCH_ALL ? JS_NewArray(c) : JS_UNDEFINED;
    uint32_t count = 0;
    int rc;
    while (!JS_IsException(out) && (rc = stmt_step(s)) == SQLITE_ROW) {
        JSValue row = make_row(c, s, mode, bigint, names);
        if (JS_IsException(row)) {
            JS_FreeValue(c, out);
            out = JS_EXCEPTION;
            break;
        }
        if (kind != FETCH_ALL) {
            out = row;
            break;
        }
        if (JS_SetPropertyUint32(c, out, count++, row) < 0) {
            JS_FreeValue(c, out);
            out = JS_EXCEPTION;
        }
    }
    for (int i = 0; i < n; i++)
        JS_FreeAtom(c, names[i]);
    if (names != names_small)
        js_free(c, names);
    if (JS_IsException(out)) {
        sqlite3_reset(st);
        return out;
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        JS_FreeValue(c, out);
        JSValue e = throw_db(c, s->db, rc);
        sqlite3_reset(st);
        return e;
    }
    if (kind != FETCH_NEXT || rc == SQLITE_DONE)
        sqlite3_reset(st);
    return out;
}

/* s of a native's argument as live_stmt, of an open connection. */
static sq_stmt *steppable_stmt(JSContext *c, JSValueConst v)
{
    sq_stmt *s = live_stmt(c, v);
    if (s && !s->db->db) {
        throw_state(c, s->db, "database is not open", "The database connection is not open");
        return NULL;
    }
    return s;
}

/* fetch(stmt, mode, bigint, kind): fetch_rows of the statement as bound. */
static JSValue js_fetch(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    sq_stmt *s = steppable_stmt(c, argv[0]);
    if (!s)
        return JS_EXCEPTION;
    int mode = arg_int(c, argc, argv, 1), bigint = argc > 2 && JS_ToBool(c, argv[2]);
    int kind = arg_int(c, argc, argv, 3);
    return fetch_rows(c, s, mode, bigint, kind);
}

/* Steps s, bound, to its end and gives { changes, lastInsertRowid }. */
static JSValue run_to_end(JSContext *c, sq_stmt *s, int bigint)
{
    sqlite3 *db = s->db->db;
    int rc;
    while ((rc = stmt_step(s)) == SQLITE_ROW)
        ;
    if (rc != SQLITE_DONE) {
        JSValue e = throw_db(c, s->db, rc);
        sqlite3_reset(s->st);
        return e;
    }
    sqlite3_reset(s->st);
    JSValue r = JS_NewObject(c);
    sqlite3_int64 changes = sqlite3_changes64(db), rowid = sqlite3_last_insert_rowid(db);
    JS_DefinePropertyValue(c, r, atom_changes,
                           bigint ? JS_NewBigInt64(c, changes) : JS_NewInt64(c, changes), JS_PROP_C_W_E);
    JS_DefinePropertyValue(c, r, atom_rowid,
                           bigint ? JS_NewBigInt64(c, rowid) : JS_NewInt64(c, rowid), JS_PROP_C_W_E);
    return r;
}

/* this of a statement's method in C: a statement of the module flavor, else the
 * module's TypeError (NULL). */
static sq_stmt *method_stmt(JSContext *c, JSValueConst this_val, int flavor)
{
    sq_stmt *s = JS_GetOpaque(this_val, stmt_class);
    if (s && s->db->flavor == flavor)
        return s;
    JS_ThrowTypeError(c, "Illegal invocation");
    if (flavor == FLAVOR_NODE) {
        JSValue e = JS_GetException(c);
        JS_SetPropertyStr(c, e, "code", JS_NewString(c, "ERR_INVALID_THIS"));
        JS_Throw(c, e);
    }
    return NULL;
}

/* Whether v holds named parameters by test (the module's: a plain object); -1 with
 * an exception pending. */
static int holds_named(JSContext *c, JSValueConst test, JSValueConst v)
{
    if (!JS_IsObject(v))
        return 0;
    JSValue r = JS_Call(c, test, JS_UNDEFINED, 1, &v);
    if (JS_IsException(r))
        return -1;
    int yes = JS_ToBool(c, r);
    JS_FreeValue(c, r);
    return yes;
}

/* StatementSync.prototype.run, .get and .all of node:sqlite, and the binding of
 * .iterate (magic: CALL_*), called on the statement itself with the script's
 * arguments: a first plain object holds the named parameters, the others are the
 * anonymous ones in order. One native call per call of the script's, with no array
 * of the arguments made. */
static JSValue js_node_call(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv,
                            int magic)
{
    sq_stmt *s = method_stmt(c, this_val, FLAVOR_NODE);
    if (!s)
        return JS_EXCEPTION;
    sq_db *now = s->db;
    while (JS_IsObject(now->successor))
        now = JS_GetOpaque(now->successor, db_class);
    if (!now->db)
        return throw_state(c, s->db, "database is not open", "");
    if (!live_stmt(c, this_val))
        return JS_EXCEPTION;
    JSValueConst named = JS_UNDEFINED;
    int start = argc > 0 ? holds_named(c, node_named_test, argv[0]) : 0;
    if (start < 0)
        return JS_EXCEPTION;
    if (start) {
        named = argv[0];
        if (!(s->flags & NODE_BARE_NAMED) && JS_IsException(check_keys(c, s, named, 1)))
            return JS_EXCEPTION;
    }
    int how = s->flags & NODE_UNKNOWN_NAMED ? BIND_NODE_ANY : BIND_NODE;
    JSValue r = bind_values(c, s, argc - start, argv + start, named, how);
    if (JS_IsException(r) || magic == CALL_ITERATE)
        return r;
    int bigint = (s->flags & NODE_BIGINTS) != 0;
    if (magic == CALL_RUN)
        return run_to_end(c, s, bigint);
    return fetch_rows(c, s, s->flags & NODE_ARRAYS ? ROW_ARRAY : ROW_OBJECT, bigint,
                      magic == CALL_GET ? FETCH_GET : FETCH_ALL);
}

/* better-sqlite3's binding of a call's arguments: each an anonymous value, an array
 * of them, or an object of named values (one at most). Without arrays or objects the
 * arguments are bound as they are; otherwise the values are gathered, at most one
 * more than s has parameters (which is enough to say there are too many). */
static JSValue bind_better(JSContext *c, sq_stmt *s, int argc, JSValueConst *argv)
{
    int i = 0;
    while (i < argc && !JS_IsObject(argv[i]))
        i++;
    if (i == argc)
        return bind_values(c, s, argc, argv, JS_UNDEFINED, BIND_BETTER);
    int64_t cap = (int64_t)sqlite3_bind_parameter_count(s->st) + 1, n = 0;
    JSValue *vals = js_malloc(c, sizeof(JSValue) * (size_t)cap);
    if (!vals)
        return JS_EXCEPTION;
    JSValueConst named = JS_UNDEFINED;
    JSValue r = JS_UNDEFINED;
    for (i = 0; i < argc && !JS_IsException(r); i++) {
        int array = JS_IsArray(c, argv[i]), plain = 0;
        if (array == 0)
            plain = holds_named(c, bs_named_test, argv[i]);
        if (array < 0 || plain < 0) {
            r = JS_EXCEPTION;
        } else if (array) {
            int64_t len = 0;
            JSValue lenv = JS_GetProperty(c, argv[i], atom_length);
            if (JS_IsException(lenv) || JS_ToInt64(c, &len, lenv) < 0)
                r = JS_EXCEPTION;
            for (int64_t k = 0; k < len && n < cap && !JS_IsException(r); k++) {
                vals[n] = JS_GetPropertyUint32(c, argv[i], (uint32_t)k); /* k < cap */
                if (JS_IsException(vals[n]))
                    r = JS_EXCEPTION;
                else
                    n++;
            }
        } else if (plain && !JS_IsUndefined(named)) {
            r = JS_ThrowTypeError(c, "You cannot specify named parameters in two different objects");
        } else if (plain) {
            named = argv[i];
        } else if (n < cap) {
            vals[n++] = JS_DupValue(c, argv[i]);
        }
    }
    if (!JS_IsException(r))
        r = bind_values(c, s, n, vals, named, BIND_BETTER);
    for (int64_t k = 0; k < n; k++)
        JS_FreeValue(c, vals[k]);
    js_free(c, vals);
    return r;
}

/* better-sqlite3's Statement.prototype.run, .get, .all and .bind, and the checks and
 * binding of .iterate (magic: CALL_*), called on the statement itself with the
 * script's arguments, each checked as better-sqlite3 does: the connection open, the
 * statement not busy, run() of a statement that returns no data and the others of
 * one that does, no arguments to a statement bind() bound. The verbose function, if
 * any, sees the SQL before it runs. */
static JSValue js_better_call(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv,
                              int magic)
{
    sq_stmt *s = method_stmt(c, this_val, FLAVOR_BETTER);
    if (!s || !steppable_stmt(c, this_val))
        return JS_EXCEPTION;
    if (s->flags & BS_BUSY)
        return JS_ThrowTypeError(c, "This statement is busy executing a query");
    if (magic == CALL_BIND) {
        if (s->flags & BS_BOUND)
            return JS_ThrowTypeError(c, "The bind() method can only be invoked once per statement object");
        if (JS_IsException(bind_better(c, s, argc, argv)))
            return JS_EXCEPTION;
        s->flags |= BS_BOUND;
        return JS_DupValue(c, this_val);
    }
    if (magic == CALL_RUN && (s->flags & BS_READER))
        return JS_ThrowTypeError(c, "This statement returns data. Use get(), all(), or iterate() instead");
    if (magic != CALL_RUN && !(s->flags & BS_READER))
        return JS_ThrowTypeError(c, "This statement does not return data. Use run() instead");
    if (s->flags & BS_BOUND) {
        if (argc > 0)
            return JS_ThrowTypeError(c, "This statement already has bound parameters");
    } else if (JS_IsException(bind_better(c, s, argc, argv))) {
        return JS_EXCEPTION;
    }
    if (JS_IsFunction(c, s->db->verbose)) {
        char *x = sqlite3_expanded_sql(s->st);
        JSValue sql = x ? JS_NewString(c, x) : JS_ThrowOutOfMemory(c);
        sqlite3_free(x);
        if (JS_IsException(sql))
            return sql;
        JSValue fn = JS_DupValue(c, s->db->verbose); /* the call may close the database */
        JSValue r = JS_Call(c, fn, JS_UNDEFINED, 1, (JSValueConst *)&sql);
        JS_FreeValue(c, fn);
        JS_FreeValue(c, sql);
        if (JS_IsException(r))
            return r;
        JS_FreeValue(c, r);
        if (!steppable_stmt(c, this_val))
            return JS_EXCEPTION;
    }
    if (magic == CALL_ITERATE)
        return JS_UNDEFINED;
    int bigint = (s->flags & BS_SAFE_INTS) != 0;
    if (magic == CALL_RUN)
        return run_to_end(c, s, bigint);
    int mode = s->flags & BS_PLUCK ? ROW_PLUCK : s->flags & BS_RAW ? ROW_ARRAY
               : s->flags & BS_EXPAND ? ROW_EXPAND : ROW_OBJECT;
    return fetch_rows(c, s, mode, bigint, magic == CALL_GET ? FETCH_GET : FETCH_ALL);
}

/* flags(stmt[, mask, on]): a statement's options and state (NODE_*, BS_*), after
 * turning those of mask on or off when given. */
static JSValue js_stmt_flags(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    sq_stmt *s = JS_GetOpaque2(c, argv[0], stmt_class);
    if (!s)
        return JS_EXCEPTION;
    if (argc > 2) {
        int mask = arg_int(c, argc, argv, 1);
        s->flags = JS_ToBool(c, argv[2]) ? s->flags | mask : s->flags & ~mask;
    }
    return JS_NewInt32(c, s->flags);
}

/* reset(stmt), finalize(stmt). */
static JSValue js_reset(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    sq_stmt *s = JS_GetOpaque2(c, argv[0], stmt_class);
    if (!s)
        return JS_EXCEPTION;
    if (s->running)
        return throw_state(c, s->db, "statement is busy executing a query",
                           "This statement is busy executing a query");
    if (s->st)
        sqlite3_reset(s->st);
    return JS_UNDEFINED;
}

/* columns(stmt): [{ column, database, name, table, type }] of its result columns
 * (column, database and table null for an expression; type its declared type). */
static JSValue js_columns(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    sq_stmt *s = live_stmt(c, argv[0]);
    if (!s)
        return JS_EXCEPTION;
    sqlite3_stmt *st = s->st;
    int n = sqlite3_column_count(st);
    JSValue a = JS_NewArray(c);
    for (int i = 0; !JS_IsException(a) && i < n; i++) {
        const char *v[5] = {
            sqlite3_column_origin_name(st, i), sqlite3_column_database_name(st, i),
            sqlite3_column_name(st, i), sqlite3_column_table_name(st, i),
            sqlite3_column_decltype(st, i),
        };
        static const char *const keys[5] = { "column", "database", "name", "table", "type" };
        JSValue o = JS_NewObject(c);
        for (int k = 0; k < 5; k++)
            JS_SetPropertyStr(c, o, keys[k], v[k] ? JS_NewString(c, v[k]) : JS_NULL);
        JS_SetPropertyUint32(c, a, (uint32_t)i, o);
    }
    return a;
}

/* info(stmt, what): 0 its SQL, 1 its SQL with the bound values, 2 whether it is read-
 * only, 3 its number of result columns, 4 its number of parameters. */
static JSValue js_info(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    sq_stmt *s = live_stmt(c, argv[0]);
    if (!s)
        return JS_EXCEPTION;
    switch (arg_int(c, argc, argv, 1)) {
    case 0:
        return JS_NewString(c, sqlite3_sql(s->st));
    case 1: {
        char *x = sqlite3_expanded_sql(s->st);
        if (!x)
            return JS_ThrowOutOfMemory(c);
        JSValue r = JS_NewString(c, x);
        sqlite3_free(x);
        return r;
    }
    case 2:
        return JS_NewBool(c, sqlite3_stmt_readonly(s->st));
    case 3:
        return JS_NewInt32(c, sqlite3_column_count(s->st));
    default:
        return JS_NewInt32(c, sqlite3_bind_parameter_count(s->st));
    }
}

/* ---- user functions --------------------------------------------------------------- */

typedef struct sq_func {
    JSContext *ctx;
    sq_db *db;
    JSValue fn;
    int bigint;
} sq_func;

static void func_destroy(void *p)
{
    sq_func *f = p;
    JS_FreeValue(f->ctx, f->fn);
    js_free(f->ctx, f);
}

static void func_call(sqlite3_context *sc, int argc, sqlite3_value **argv)
{
    sq_func *f = sqlite3_user_data(sc);
    JSContext *c = f->ctx;
    JSValue small[8], *args = argc <= 8 ? small : js_malloc(c, sizeof(JSValue) * (size_t)argc);
    if (!args) {
        sqlite3_result_error_nomem(sc);
        return;
    }
    int built = 0;
    JSValue r = JS_UNDEFINED;
    for (; built < argc; built++) {
        args[built] = sqlite_to_js(c, argv[built], f->db->flavor, f->bigint);
        if (JS_IsException(args[built]))
            break;
    }
    if (built == argc)
        r = JS_Call(c, f->fn, JS_UNDEFINED, argc, (JSValueConst *)args);
    else
        r = JS_EXCEPTION;
    for (int i = 0; i < built; i++)
        JS_FreeValue(c, args[i]);
    if (args != small)
        js_free(c, args);
    const uint8_t *p;
    size_t n;
    if (JS_IsException(r)) {
        JS_FreeValue(c, f->db->pending);
        f->db->pending = JS_GetException(c);
        sqlite3_result_error(sc, "a user function threw", -1);
    } else if (JS_IsNull(r) || JS_IsUndefined(r)) {
        sqlite3_result_null(sc);
    } else if (JS_IsBool(r)) {
        sqlite3_result_int(sc, JS_ToBool(c, r));
    } else if (JS_IsNumber(r)) {
        double d;
        JS_ToFloat64(c, &d, r);
        if (d == floor(d) && fabs(d) < 9007199254740992.0)
            sqlite3_result_int64(sc, (sqlite3_int64)d);
        else
            sqlite3_result_double(sc, d);
    } else if (JS_IsBigInt(c, r)) {
        int64_t x;
        JS_ToBigInt64(c, &x, r);
        sqlite3_result_int64(sc, x);
    } else if (JS_IsString(r)) {
        size_t len;
        const char *str = JS_ToCStringLen(c, &len, r);
        if (str)
            sqlite3_result_text64(sc, str, len, SQLITE_TRANSIENT, SQLITE_UTF8);
        else
            sqlite3_result_error_nomem(sc);
        JS_FreeCString(c, str);
    } else if (JS_IsObject(r) && bytes_of(c, r, &p, &n)) {
        sqlite3_result_blob64(sc, n ? (const void *)p : (const void *)"", n, SQLITE_TRANSIENT);
    } else {
        JS_ThrowTypeError(c, "User-defined function returned an invalid value");
        JS_FreeValue(c, f->db->pending);
        f->db->pending = JS_GetException(c);
        sqlite3_result_error(sc, "a user function returned an invalid value", -1);
    }
    JS_FreeValue(c, r);
}

/* func(db, name, fn, nargs, deterministic, bigint): defines the SQL function name
 * (nargs -1: any number) that calls fn with its arguments as JS values. */
static JSValue js_func(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    sq_db *d = open_db(c, argv[0]);
    if (!d)
        return JS_EXCEPTION;
    if (!JS_IsFunction(c, argv[2]))
        return JS_ThrowTypeError(c, "Expected a function");
    const char *name = JS_ToCString(c, argv[1]);
    if (!name)
        return JS_EXCEPTION;
    sq_func *f = js_mallocz(c, sizeof(*f));
    if (!f) {
        JS_FreeCString(c, name);
        return JS_EXCEPTION;
    }
    f->ctx = c;
    f->db = d;
    f->fn = JS_DupValue(c, argv[2]);
    f->bigint = JS_ToBool(c, argv[5]);
    int flags = SQLITE_UTF8 | (JS_ToBool(c, argv[4]) ? SQLITE_DETERMINISTIC : 0);
    int rc = sqlite3_create_function_v2(d->db, name, arg_int(c, argc, argv, 3), flags, f,
                                        func_call, NULL, NULL, func_destroy);
    JS_FreeCString(c, name);
    return rc == SQLITE_OK ? JS_UNDEFINED : throw_db(c, d, rc);
}

/* setPrototypes(Buffer.prototype, SqliteError.prototype, node_test, better_test):
 * what better-sqlite3's blobs and errors are made of, and each module's test of an
 * argument that holds named parameters. Called once, when the image is made. */
static JSValue js_set_prototypes(JSContext *c, JSValueConst this_val, int argc,
                                 JSValueConst *argv)
{
    JS_FreeValue(c, buffer_proto);
    JS_FreeValue(c, sqlite_error_proto);
    JS_FreeValue(c, node_named_test);
    JS_FreeValue(c, bs_named_test);
    buffer_proto = JS_DupValue(c, argv[0]);
    sqlite_error_proto = JS_DupValue(c, argv[1]);
    node_named_test = JS_DupValue(c, argv[2]);
    bs_named_test = JS_DupValue(c, argv[3]);
    return JS_UNDEFINED;
}

/* version(): SQLite's version ("3.52.0"). */
static JSValue js_version(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    return JS_NewString(c, sqlite3_libversion());
}

static const JSCFunctionListEntry sqlite_funcs[] = {
    JS_CFUNC_DEF("open", 3, js_open),
    JS_CFUNC_DEF("close", 1, js_close),
    JS_CFUNC_DEF("isOpen", 1, js_is_open),
    JS_CFUNC_DEF("inTransaction", 1, js_in_transaction),
    JS_CFUNC_DEF("exec", 2, js_exec),
    JS_CFUNC_DEF("prepare", 2, js_prepare),
    JS_CFUNC_DEF("fetch", 4, js_fetch),
    JS_CFUNC_DEF("reset", 1, js_reset),
    JS_CFUNC_DEF("columns", 1, js_columns),
    JS_CFUNC_DEF("info", 2, js_info),
    JS_CFUNC_DEF("func", 6, js_func),
    JS_CFUNC_DEF("flags", 3, js_stmt_flags),
    JS_CFUNC_DEF("setPrototypes", 4, js_set_prototypes),
    JS_CFUNC_DEF("version", 0, js_version),
};

void capsa_sqlite_add_natives(JSContext *c, JSValueConst obj)
{
    static JSClassDef db_def = { "Database", .finalizer = db_finalizer, .gc_mark = db_mark };
    static JSClassDef stmt_def = { "Statement", .finalizer = stmt_finalizer };
    JSRuntime *rt = JS_GetRuntime(c);
    JS_NewClassID(&db_class);
    JS_NewClassID(&stmt_class);
    JS_NewClass(rt, db_class, &db_def);
    JS_NewClass(rt, stmt_class, &stmt_def);
    buffer_proto = sqlite_error_proto = node_named_test = bs_named_test = JS_UNDEFINED;
    JSValue global = JS_GetGlobalObject(c);
    uint8_ctor = JS_GetPropertyStr(c, global, "Uint8Array");
    atom_length = JS_NewAtom(c, "length");
    atom_changes = JS_NewAtom(c, "changes");
    atom_rowid = JS_NewAtom(c, "lastInsertRowid");
    JS_FreeValue(c, global);
    JS_SetPropertyFunctionList(c, obj, sqlite_funcs, sizeof(sqlite_funcs) / sizeof(sqlite_funcs[0]));
    /* The statements' methods, named as the script sees them. */
    static const struct { const char *prop, *name; int better, magic; } methods[] = {
        { "nodeRun", "run", 0, CALL_RUN }, { "nodeGet", "get", 0, CALL_GET },
        { "nodeAll", "all", 0, CALL_ALL }, { "nodeBind", "iterate", 0, CALL_ITERATE },
        { "bsRun", "run", 1, CALL_RUN }, { "bsGet", "get", 1, CALL_GET },
        { "bsAll", "all", 1, CALL_ALL }, { "bsIterate", "iterate", 1, CALL_ITERATE },
        { "bsBind", "bind", 1, CALL_BIND },
    };
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
        JS_SetPropertyStr(c, obj, methods[i].prop,
                          JS_NewCFunctionMagic(c, methods[i].better ? js_better_call : js_node_call,
                                               methods[i].name, 0, JS_CFUNC_generic_magic,
                                               methods[i].magic));
}
