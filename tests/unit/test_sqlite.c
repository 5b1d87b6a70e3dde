/* SQLite in the guest under the sandbox's limits, through the public API: a full
 * disk quota and a timeout in the middle of a transaction leave the database as it
 * was, journal modes DELETE and WAL (exclusive) survive a stopped guest, the guest's
 * memory limit is SQLITE_NOMEM, a corrupt file is an error, the :memory: databases of
 * two sandboxes stay apart, and the host reads a guest's database file (a valid SQLite
 * file) with capsa_fs_read. */
#define _GNU_SOURCE /* memmem */
#include <stdint.h>
#include <string.h>

#include "capsa.h"
#include "test.h"

static capsa_engine *engine;

/* Runs code in a block of its own: the declarations of one run do not meet the next's
 * (a sandbox keeps its global scope between runs). */
static const capsa_result *run(capsa_sandbox *sb, const char *code, int *rc)
{
    const capsa_result *r = NULL;
    size_t n = strlen(code);
    char *block = malloc(n + 3);
    if (!block) {
        *rc = CAPSA_ENOMEM;
        return NULL;
    }
    block[0] = '{';
    memcpy(block + 1, code, n);
    block[n + 1] = '}';
    block[n + 2] = '\0';
    *rc = capsa_run(sb, block, n + 2, NULL, &r);
    free(block);
    return r;
}

/* A sandbox with a timeout, a file-content quota, a memory limit and a fuel budget
 * (each 0: the default). */
static capsa_sandbox *sandbox(uint64_t timeout_ms, uint64_t fs_max_bytes, uint64_t memory_limit,
                              uint64_t fuel)
{
    capsa_options o;
    capsa_options_init(&o);
    if (timeout_ms)
        o.timeout_ms = timeout_ms;
    if (fs_max_bytes)
        o.fs_max_bytes = o.fs_max_file = fs_max_bytes;
    if (memory_limit)
        o.memory_limit = memory_limit;
    o.fuel = fuel;
    capsa_sandbox *sb = NULL;
    CHECK_INT(capsa_sandbox_new(engine, &o, &sb), CAPSA_OK, "a sandbox is created");
    return sb;
}

/* Runs code and checks that it returned the JSON text want. */
static void expect(capsa_sandbox *sb, const char *code, const char *want, const char *what)
{
    int rc;
    const capsa_result *r = run(sb, code, &rc);
    CHECK_INT(rc, CAPSA_OK, what);
    if (rc != CAPSA_OK && r)
        fprintf(stderr, "  error: %s: %s\n", capsa_result_error_name(r) ? capsa_result_error_name(r) : "",
                capsa_result_error_message(r) ? capsa_result_error_message(r) : "");
    CHECK_STR(r ? capsa_result_value(r) : NULL, want, what);
}

#define COUNT_ROWS                                                                     \
    "const { DatabaseSync } = require('node:sqlite');"                                \
    "const db = new DatabaseSync('/workspace/q.db');"                                  \
    "const n = db.prepare('select count(*) as n, sum(length(b)) as s from t').get();" \
    "const ok = db.prepare('pragma integrity_check').get().integrity_check;"           \
    "db.close(); return [n.n, n.s, ok];"

TEST(quota_in_transaction)
{
    capsa_sandbox *sb = sandbox(0, 256 << 10, 0, 0);
    expect(sb,
           "const { DatabaseSync } = require('node:sqlite');"
           "const db = new DatabaseSync('/workspace/q.db');"
           "db.exec('create table t(a integer primary key, b text)');"
           "db.prepare('insert into t(b) values (?)').run('x'.repeat(1000));"
           "db.close(); return 1;",
           "1", "a small database fits the quota");
    expect(sb,
           "const { DatabaseSync } = require('node:sqlite');"
           "const db = new DatabaseSync('/workspace/q.db');"
           "db.exec('begin');"
           "const ins = db.prepare('insert into t(b) values (?)');"
           "let err;"
           "try { for (let i = 0; i < 10000; i++) ins.run('y'.repeat(1000)); }"
           "catch (e) { err = e; }"
           "const inTx = db.isTransaction;"
           "try { db.exec('rollback'); } catch (e) {}"
           "db.close();"
           "return [err && err.code, err && err.errcode & 0xff, /disk quota/.test(err && err.message), inTx];",
           "[\"ERR_SQLITE_ERROR\",13,true,false]",
           "a write over the quota fails with SQLITE_FULL (13) and a clear message, "
           "and SQLite rolls the transaction back");
    expect(sb, COUNT_ROWS, "[1,1000,\"ok\"]", "the database holds what it held before");
    expect(sb,
           "const Database = require('better-sqlite3');"
           "const db = new Database('/workspace/q.db');"
           "let code;"
           "try { db.transaction(() => { for (let i = 0; i < 10000; i++)"
           "  db.prepare('insert into t(b) values (?)').run('z'.repeat(1000)); })(); }"
           "catch (e) { code = e.code; }"
           "db.close(); return code;",
           "\"SQLITE_FULL\"", "better-sqlite3 reports SQLITE_FULL too");
    expect(sb, COUNT_ROWS, "[1,1000,\"ok\"]", "and the database is intact after it");
    capsa_sandbox_free(sb);
}

TEST(timeout_in_transaction)
{
    static const char *const modes[] = { "delete", "wal" };
    for (int m = 0; m < 2; m++) {
        capsa_sandbox *sb = sandbox(1500, 0, 0, 0);
        char code[1024];
        snprintf(code, sizeof(code),
                 "const { DatabaseSync } = require('node:sqlite');"
                 "const db = new DatabaseSync('/workspace/q.db');"
                 "%s"
                 "const mode = db.prepare('pragma journal_mode=%s').get().journal_mode;"
                 "db.exec('create table t(a integer primary key, b text)');"
                 "db.prepare('insert into t(b) values (?)').run('x'.repeat(1000));"
                 "db.close(); return mode;",
                 m ? "db.exec('pragma locking_mode=exclusive');" : "", modes[m]);
        char want[32];
        snprintf(want, sizeof(want), "\"%s\"", modes[m]);
        expect(sb, code, want, "the journal mode is set");
        int rc;
        snprintf(code, sizeof(code),
                 "const { DatabaseSync } = require('node:sqlite');"
                 "const db = new DatabaseSync('/workspace/q.db');"
                 "%s"
                 "db.exec('begin');"
                 "const ins = db.prepare('insert into t(b) values (?)');"
                 "for (let i = 0; i < 300; i++) ins.run('y'.repeat(1000));"
                 "db.exec('update t set b = upper(b)');"
                 "for (;;) ins.run('z');",
                 m ? "db.exec('pragma locking_mode=exclusive');" : "");
        run(sb, code, &rc);
        CHECK_INT(rc, CAPSA_ETIMEOUT, "the run stops at its timeout inside the transaction");
        capsa_file_info info = { .struct_size = sizeof(info) };
        CHECK_INT(capsa_fs_stat(sb, m ? "/workspace/q.db-wal" : "/workspace/q.db-journal", &info),
                  CAPSA_OK, "the stopped transaction left its journal behind");
        snprintf(code, sizeof(code),
                 "const { DatabaseSync } = require('node:sqlite');"
                 "const db = new DatabaseSync('/workspace/q.db');"
                 "%s"
                 "const n = db.prepare('select count(*) as n, max(b) as b from t').get();"
                 "const ok = db.prepare('pragma integrity_check').get().integrity_check;"
                 "db.exec(\"insert into t(b) values ('after')\");"
                 "db.close(); return [n.n, n.b === 'x'.repeat(1000), ok];",
                 m ? "db.exec('pragma locking_mode=exclusive');" : "");
        expect(sb, code, "[1,true,\"ok\"]",
               "the next open rolls the transaction back: consistent, writable, not locked");
        capsa_sandbox_free(sb);
    }
}

TEST(long_query_fuel)
{
    capsa_sandbox *sb = sandbox(0, 0, 0, 50000000);
    int rc;
    run(sb,
        "const { DatabaseSync } = require('node:sqlite');"
        "const db = new DatabaseSync(':memory:');"
        "return db.prepare('with recursive c(x) as (select 1 union all select x + 1 from c) "
        "select count(*) from c').get();",
        &rc);
    CHECK_INT(rc, CAPSA_EFUEL, "an endless query stops at the fuel limit");
    expect(sb,
           "const { DatabaseSync } = require('node:sqlite');"
           "return new DatabaseSync(':memory:').prepare('select 6 * 7 as v').get().v;",
           "42", "the sandbox runs SQL again after the limit");
    capsa_sandbox_free(sb);
}

TEST(memory_limit)
{
    capsa_sandbox *sb = sandbox(0, 0, 32u << 20, 0);
    expect(sb,
           "const { DatabaseSync } = require('node:sqlite');"
           "const db = new DatabaseSync(':memory:');"
           "db.exec('create table t(b)');"
           "const ins = db.prepare('insert into t values (?)');"
           "try { for (let i = 0; i < 1e5; i++) ins.run('x'.repeat(10000)); }"
           "catch (e) { return [e.code, e.errcode, e.message]; }"
           "return 'no error';",
           "[\"ERR_SQLITE_ERROR\",7,\"out of memory\"]",
           "an in-memory database past the guest's memory is SQLITE_NOMEM (7)");
    expect(sb,
           "const { DatabaseSync } = require('node:sqlite');"
           "return new DatabaseSync(':memory:').prepare('select 1 as v').get().v;",
           "1", "the sandbox goes on working");
    capsa_sandbox_free(sb);
}

TEST(corrupt_file)
{
    capsa_sandbox *sb = sandbox(0, 0, 0, 0);
    expect(sb,
           "const { DatabaseSync } = require('node:sqlite');"
           "const db = new DatabaseSync('/workspace/bad.db');"
           "db.exec('create table t(a integer primary key, b text)');"
           "const ins = db.prepare('insert into t(b) values (?)');"
           "for (let i = 0; i < 200; i++) ins.run('row ' + i + 'x'.repeat(100));"
           "db.close(); return 1;",
           "1", "the guest writes a database of a few pages");
    char *data = NULL;
    size_t len = 0;
    CHECK_INT(capsa_fs_read(sb, "/workspace/bad.db", &data, &len), CAPSA_OK, "the host reads it");
    if (data && len >= 3 * 4096) {
        /* Page 2 onwards: the table's b-tree pages, overwritten with garbage. */
        for (size_t i = 4096; i < len; i++)
            data[i] = (char)(i * 7 + 3);
        CHECK_INT(capsa_fs_write(sb, "/workspace/bad.db", data, len), CAPSA_OK,
                  "and writes it back corrupt");
    } else {
        CHECK(0, "the database has at least 3 pages");
    }
    capsa_free(data);
    CHECK_INT(capsa_fs_write(sb, "/workspace/text.db", "not a database at all, just text....",
                             36), CAPSA_OK, "the host writes a text file");
    expect(sb,
           "const { DatabaseSync } = require('node:sqlite');"
           "const out = [];"
           "for (const f of ['/workspace/bad.db', '/workspace/text.db']) {"
           "  try { new DatabaseSync(f).prepare('select count(*), max(b) from t').all(); out.push('read'); }"
           "  catch (e) { out.push(e.code + ' ' + (e.errcode & 0xff)); }"
           "}"
           "return out;",
           "[\"ERR_SQLITE_ERROR 11\",\"ERR_SQLITE_ERROR 26\"]",
           "a corrupt file is SQLITE_CORRUPT (11), a text file SQLITE_NOTADB (26)");
    expect(sb, "return new (require('better-sqlite3'))(':memory:').prepare('select 1').pluck().get();",
           "1", "the sandbox goes on working");
    capsa_sandbox_free(sb);
}

TEST(memory_databases_apart)
{
    capsa_sandbox *a = sandbox(0, 0, 0, 0), *b = sandbox(0, 0, 0, 0);
    expect(a,
           "const { DatabaseSync } = require('node:sqlite');"
           "globalThis.db = new DatabaseSync(':memory:');"
           "db.exec(\"create table t(v); insert into t values ('a')\"); return 1;",
           "1", "sandbox a makes a table in its :memory: database");
    expect(b,
           "const { DatabaseSync } = require('node:sqlite');"
           "globalThis.db = new DatabaseSync(':memory:');"
           "return db.prepare(\"select count(*) as n from sqlite_master\").get().n;",
           "0", "sandbox b's :memory: database is empty");
    expect(a, "return db.prepare('select v from t').get().v;", "\"a\"",
           "sandbox a's connection and data persist between its runs");
    capsa_sandbox_free(a);
    capsa_sandbox_free(b);
}

TEST(host_reads_database)
{
    capsa_sandbox *sb = sandbox(0, 0, 0, 0);
    expect(sb,
           "const Database = require('better-sqlite3');"
           "const db = new Database('/workspace/h.db');"
           "db.exec(\"create table t(v); insert into t values ('from the guest')\");"
           "db.close(); return 1;",
           "1", "the guest writes a database");
    char *data = NULL;
    size_t len = 0;
    CHECK_INT(capsa_fs_read(sb, "/workspace/h.db", &data, &len), CAPSA_OK,
              "the host reads the file through the file API");
    CHECK(len >= 1024 && len % 512 == 0, "the file is whole pages");
    CHECK(data && memcmp(data, "SQLite format 3", 16) == 0, "it starts with SQLite's header");
    CHECK(data && memmem(data, len, "from the guest", 14) != NULL, "and holds the row");
    capsa_sandbox *other = sandbox(0, 0, 0, 0);
    CHECK_INT(capsa_fs_write(other, "/tmp/copy.db", data, len), CAPSA_OK,
              "the bytes go into another sandbox");
    expect(other,
           "const { DatabaseSync } = require('node:sqlite');"
           "return new DatabaseSync('/tmp/copy.db', { readOnly: true }).prepare('select v from t').get().v;",
           "\"from the guest\"", "which opens them as a database");
    capsa_free(data);
    capsa_sandbox_free(other);
    capsa_sandbox_free(sb);
}

int main(void)
{
    if (capsa_engine_new(NULL, &engine) != CAPSA_OK) {
        fprintf(stderr, "cannot create an engine\n");
        return 1;
    }
    RUN(quota_in_transaction);
    RUN(timeout_in_transaction);
    RUN(long_query_fuel);
    RUN(memory_limit);
    RUN(corrupt_file);
    RUN(memory_databases_apart);
    RUN(host_reads_database);
    capsa_engine_free(engine);
    return test_summary("test_sqlite");
}
