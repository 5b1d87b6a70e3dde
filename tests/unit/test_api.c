/* The public API end to end: engines and sandboxes, runs and results, state that
 * persists between runs, reset, errors with positions, output capture and caps,
 * bad input, many live sandboxes, interrupts from another thread, and allocation
 * failure at every step, standard input. */
#define _GNU_SOURCE /* posix_openpt and ptsname */
#include <jansson.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "capsa.h"
#include "test.h"

static capsa_engine *engine;

/* Runs code in sb and returns the result (NULL when the call failed outright). */
static const capsa_result *run(capsa_sandbox *sb, const char *code, int *rc)
{
    const capsa_result *r = NULL;
    *rc = capsa_run(sb, code, strlen(code), NULL, &r);
    return r;
}

static capsa_sandbox *new_sandbox(void)
{
    capsa_sandbox *sb = NULL;
    int rc = capsa_sandbox_new(engine, NULL, &sb);
    CHECK_INT(rc, CAPSA_OK, "a sandbox with default options is created");
    return sb;
}

TEST(version_and_errors)
{
    CHECK_INT(capsa_version_number(), CAPSA_VERSION_NUMBER, "library and header versions agree");
    CHECK_STR(capsa_version(), CAPSA_VERSION_STRING, "version string");
    CHECK_STR(capsa_errname(CAPSA_ENOMEM), "CAPSA_ENOMEM", "name of a code");
    CHECK_STR(capsa_errstr(CAPSA_OK), "success", "message of CAPSA_OK");
    CHECK_STR(capsa_errname(9999), "CAPSA_UNKNOWN", "name of an unknown code");
    CHECK_STR(capsa_errstr(-5), "unknown error", "message of an unknown code");
}

TEST(misuse)
{
    capsa_sandbox *sb = (capsa_sandbox *)1;
    CHECK_INT(capsa_sandbox_new(NULL, NULL, &sb), CAPSA_EINVAL, "no engine is misuse");
    CHECK(sb == NULL, "the out pointer is cleared on failure");
    CHECK_INT(capsa_engine_new(NULL, NULL), CAPSA_EINVAL, "no out pointer is misuse");
    capsa_options o;
    capsa_options_init(&o);
    o.memory_limit = 1 << 20;
    CHECK_INT(capsa_sandbox_new(engine, &o, &sb), CAPSA_EINVAL, "1 MiB of memory is too small");
    o.memory_limit = 8ull << 30;
    CHECK_INT(capsa_sandbox_new(engine, &o, &sb), CAPSA_EINVAL, "8 GiB is over the 4 GiB maximum");
    capsa_options_init(&o);
    o.struct_size = sizeof(o) + 64;
    CHECK_INT(capsa_sandbox_new(engine, &o, &sb), CAPSA_EINVAL, "an options struct from the future");
    CHECK_INT(capsa_run(NULL, "1", 1, NULL, NULL), CAPSA_EINVAL, "running on no sandbox");
    CHECK_INT(capsa_reset(NULL), CAPSA_EINVAL, "resetting no sandbox");
    capsa_sandbox_free(NULL);
    capsa_engine_free(NULL);
    CHECK_STR(capsa_result_value(NULL), NULL, "accessors take NULL");
    CHECK(capsa_result_json(NULL) == NULL, "no JSON for no result");
}

TEST(values)
{
    capsa_sandbox *sb = new_sandbox();
    int rc;
    const capsa_result *r = run(sb, "return {a: [1, 'two', null], b: true, c: 1.5}", &rc);
    CHECK_INT(rc, CAPSA_OK, "an object is returned");
    CHECK_STR(capsa_result_value(r), "{\"a\":[1,\"two\",null],\"b\":true,\"c\":1.5}", "value as JSON");
    r = run(sb, "let x = 1", &rc);
    CHECK_INT(rc, CAPSA_OK, "no return");
    CHECK_STR(capsa_result_value(r), NULL, "no value without return");
    r = run(sb, "return () => 1", &rc);
    CHECK_STR(capsa_result_value(r), NULL, "a function has no JSON value");
    r = run(sb, "return await new Promise(r => r('later'))", &rc);
    CHECK_STR(capsa_result_value(r), "\"later\"", "top-level await gives the settled value");
    r = run(sb, "return 'é\\u2028\"'", &rc);
    CHECK_STR(capsa_result_value(r), "\"é\u2028\\\"\"", "strings keep unicode and escape quotes");
    r = run(sb, "return 10n", &rc);
    CHECK_INT(rc, CAPSA_ESCRIPT, "a BigInt has no JSON form: the run fails");
    CHECK_STR(capsa_result_error_name(r), "TypeError", "and says so with a TypeError");
    r = run(sb, "const o = {}; o.o = o; return o", &rc);
    CHECK_INT(rc, CAPSA_ESCRIPT, "a cyclic value cannot be returned");
    r = run(sb, "return 2 ** 70", &rc);
    CHECK_STR(capsa_result_value(r), "1.1805916207174113e+21", "large numbers keep their digits");
    capsa_sandbox_free(sb);
}

/* The run's value is taken when the script returns: what timers and callbacks do
 * to the object afterwards does not show, and a promise of an earlier run that
 * settles late cannot set a later run's value. */
TEST(value_at_return)
{
    capsa_sandbox *sb = new_sandbox();
    int rc;
    const capsa_result *r = run(sb, "const o = {n: 1, tags: ['a']};"
                                    "setTimeout(() => { o.n = 2; o.tags.push('timer') }, 2);"
                                    "setImmediate(() => { o.tags.push('immediate') });"
                                    "return o", &rc);
    CHECK_INT(rc, CAPSA_OK, "a run that returns an object its timers change later");
    CHECK_STR(capsa_result_value(r), "{\"n\":1,\"tags\":[\"a\"]}", "the value as it was at the return");
    r = run(sb, "return o", &rc);
    CHECK_STR(capsa_result_value(r), "{\"n\":2,\"tags\":[\"a\",\"immediate\",\"timer\"]}",
              "the timers did run (before the run ended)");
    r = run(sb, "let seen = 0; const v = {toJSON() { return ++seen }};"
                "setTimeout(() => {}, 1); return v", &rc);
    CHECK_STR(capsa_result_value(r), "1", "toJSON ran once, at the return");
    r = run(sb, "const late = {}; setTimeout(() => { late.x = 1 }, 1);"
                "await new Promise(res => setTimeout(res, 3)); return late", &rc);
    CHECK_STR(capsa_result_value(r), "{\"x\":1}", "a change before the return shows");
    r = run(sb, "const b = {big: 1n}; setTimeout(() => { delete b.big; console.log('fixed') }, 1);"
                "return b", &rc);
    CHECK_INT(rc, CAPSA_ESCRIPT, "a value JSON cannot hold when the script returns is an error");
    CHECK_STR(capsa_result_error_name(r), "TypeError", "JSON.stringify's");
    CHECK_STR(capsa_result_stdout(r, NULL), "", "and it ends the run at once: the timer never fired");
    r = run(sb, "globalThis.settle = null; return new Promise(res => { globalThis.settle = res })", &rc);
    CHECK_INT(rc, CAPSA_ESCRIPT, "a run whose promise is never settled");
    r = run(sb, "settle({stale: true}); await null; await null; return 'fresh'", &rc);
    CHECK_INT(rc, CAPSA_OK, "the next run settles the old promise");
    CHECK_STR(capsa_result_value(r), "\"fresh\"", "which does not become this run's value");
    r = run(sb, "Promise.prototype.then = function () { throw new Error('replaced') }; return [1]", &rc);
    CHECK_STR(capsa_result_value(r), "[1]", "a replaced Promise.prototype.then changes nothing");
    r = run(sb, "return {again: true}", &rc);
    CHECK_STR(capsa_result_value(r), "{\"again\":true}", "in the next run either");
    capsa_sandbox_free(sb);
}

TEST(output)
{
    capsa_sandbox *sb = new_sandbox();
    int rc;
    const capsa_result *r = run(sb, "console.log('out', 1); console.error('err'); console.log({a: 1})", &rc);
    size_t len;
    CHECK_INT(rc, CAPSA_OK, "console calls run");
    CHECK_STR(capsa_result_stdout(r, &len), "out 1\n{ a: 1 }\n", "stdout collected");
    CHECK_INT(len, 15, "stdout length");
    CHECK_STR(capsa_result_stderr(r, &len), "err\n", "stderr collected");
    capsa_stats st = { .struct_size = sizeof(st) };
    capsa_result_stats(r, &st);
    CHECK_INT(st.stdout_bytes, 15, "stdout bytes counted");
    CHECK_INT(st.stderr_bytes, 4, "stderr bytes counted");
    CHECK(st.memory_bytes >= (1u << 20), "guest memory is reported");
    CHECK(st.wall_ms >= 0, "wall time is reported");
    r = run(sb, "1", &rc);
    CHECK_STR(capsa_result_stdout(r, NULL), "", "each run starts with empty output");
    capsa_sandbox_free(sb);
}

typedef struct stream_log {
    char text[256];
    size_t len;
    int calls;
} stream_log;

static void on_output(void *ud, int stream, const char *data, size_t len)
{
    stream_log *log = ud;
    log->calls++;
    char tag = stream == CAPSA_STDOUT ? 'o' : 'e';
    if (log->len + len + 1 < sizeof(log->text)) {
        log->text[log->len++] = tag;
        memcpy(log->text + log->len, data, len);
        log->len += len;
        log->text[log->len] = '\0';
    }
}

TEST(output_stream_and_cap)
{
    stream_log log = { { 0 }, 0, 0 };
    capsa_options o;
    capsa_options_init(&o);
    o.on_output = on_output;
    o.on_output_ud = &log;
    o.max_output = 10;
    capsa_sandbox *sb = NULL;
    CHECK_INT(capsa_sandbox_new(engine, &o, &sb), CAPSA_OK, "sandbox with an output hook");
    int rc;
    const capsa_result *r = run(sb, "console.log('a'); console.error('b'); console.log('x'.repeat(30))", &rc);
    CHECK_INT(rc, CAPSA_OK, "the run completes");
    static const char marker[] = "\n[capsa: output over 10 bytes; the rest is dropped]\n";
    char want[256];
    snprintf(want, sizeof(want), "oa\neb\noxxxxxxxxo%s", marker);
    CHECK_STR(log.text, want, "the hook sees the first max_output bytes in order, then a marker");
    size_t len;
    const char *out = capsa_result_stdout(r, &len);
    snprintf(want, sizeof(want), "a\nxxxxxxxx%s", marker);
    CHECK_STR(out, want, "the result keeps the same bytes and the marker");
    CHECK_INT(len, strlen(want), "stdout length");
    capsa_stats st = { .struct_size = sizeof(st) };
    capsa_result_stats(r, &st);
    CHECK_INT(st.stdout_bytes, 33, "all written bytes are counted");
    CHECK_INT(st.output_dropped, 23, "the dropped bytes are counted");
    r = run(sb, "for (let i = 0; i < 1e5; i++) console.log('flood', i)", &rc);
    CHECK_INT(rc, CAPSA_OK, "an output flood runs to its end");
    capsa_result_stats(r, &st);
    CHECK(st.stdout_bytes > 1000000, "a flood's bytes are all counted");
    CHECK(capsa_result_stdout(r, &len) && len < 100, "but only max_output bytes and the marker are kept");
    capsa_sandbox_free(sb);
}

TEST(persistence_and_reset)
{
    capsa_sandbox *sb = new_sandbox();
    int rc;
    run(sb, "var v = 1; let l = 2; const c = 3; function f() { return 4 } "
            "class K { m() { return 5 } } globalThis.g = 6; x = 7", &rc);
    CHECK_INT(rc, CAPSA_OK, "declarations run");
    const capsa_result *r = run(sb, "return [v, l, c, f(), new K().m(), g, x]", &rc);
    CHECK_STR(capsa_result_value(r), "[1,2,3,4,5,6,7]", "every kind of declaration persists");
    r = run(sb, "l += 10; return l", &rc);
    CHECK_STR(capsa_result_value(r), "12", "a let binding is updated in place");
    r = run(sb, "let l = 1", &rc);
    CHECK_INT(rc, CAPSA_ESCRIPT, "redeclaring a persisted let is an error, as in a REPL");
    CHECK_INT(capsa_reset(sb), CAPSA_OK, "reset");
    r = run(sb, "return typeof v + typeof l + typeof f + typeof g", &rc);
    CHECK_STR(capsa_result_value(r), "\"undefinedundefinedundefinedundefined\"", "reset forgets everything");
    r = run(sb, "let l = 'again'; return l", &rc);
    CHECK_STR(capsa_result_value(r), "\"again\"", "names are free again after reset");
    capsa_sandbox_free(sb);
}

TEST(errors)
{
    capsa_sandbox *sb = new_sandbox();
    int rc;
    const capsa_result *r = run(sb, "function inner() {\n  throw new RangeError('bad ' + 1)\n}\n"
                                    "function outer() { inner() }\nouter()", &rc);
    CHECK_INT(rc, CAPSA_ESCRIPT, "a throw is reported");
    CHECK_STR(capsa_result_error_name(r), "RangeError", "error name");
    CHECK_STR(capsa_result_error_message(r), "bad 1", "error message");
    CHECK_CONTAINS(capsa_result_error_stack(r), "at inner (<input>:2)", "stack has the throw's line");
    CHECK_CONTAINS(capsa_result_error_stack(r), "at outer (<input>:4)", "stack has the caller's line");
    CHECK_CONTAINS(capsa_errmsg(sb), "RangeError", "errmsg names the error");
    CHECK_STR(capsa_result_error_code(r), NULL, "an error without a code has none");

    r = run(sb, "fs.readFileSync('/workspace/missing.txt')", &rc);
    CHECK_INT(rc, CAPSA_ESCRIPT, "an fs error is thrown");
    CHECK_STR(capsa_result_error_code(r), "ENOENT", "its code is in the result");
    char *json = capsa_result_json(r);
    CHECK_CONTAINS(json, "\"code\":\"ENOENT\"", "and in the result's JSON");
    capsa_free(json);
    r = run(sb, "throw Object.assign(new Error('x'), { code: 42 })", &rc);
    CHECK_STR(capsa_result_error_code(r), NULL, "a code that is not a string is left out");

    r = run(sb, "let a = 1;\nlet b = (1 + ;", &rc);
    CHECK_INT(rc, CAPSA_ESCRIPT, "a syntax error is reported");
    CHECK_STR(capsa_result_error_name(r), "SyntaxError", "syntax error name");
    CHECK_CONTAINS(capsa_result_error_stack(r), "<input>:2:14", "syntax error has line and column");

    const char *code = "throw 'plain'";
    r = NULL;
    rc = capsa_run(sb, code, strlen(code), "task.js", &r);
    CHECK_STR(capsa_result_error_name(r), "Uncaught", "a thrown string is 'Uncaught'");
    CHECK_STR(capsa_result_error_message(r), "plain", "with the string as message");

    code = "null.x";
    rc = capsa_run(sb, code, strlen(code), "task.js", &r);
    CHECK_CONTAINS(capsa_result_error_stack(r), "task.js:1", "the filename names the code in stacks");

    r = run(sb, "await Promise.reject(new TypeError('async'))", &rc);
    CHECK_STR(capsa_result_error_message(r), "async", "a rejection at top level is the run's error");
    r = run(sb, "await new Promise(() => {})", &rc);
    CHECK_INT(rc, CAPSA_ESCRIPT, "a promise nothing settles ends the run with an error");
    CHECK_CONTAINS(capsa_result_error_message(r), "never", "and the message says why");
    r = run(sb, "function deep() { return deep() + 1 } try { deep() } catch (e) { return e.message }", &rc);
    CHECK_STR(capsa_result_value(r), "\"Maximum call stack size exceeded\"",
              "deep recursion is a catchable error");
    r = run(sb, "return 'still here'", &rc);
    CHECK_STR(capsa_result_value(r), "\"still here\"", "the sandbox works after errors");
    capsa_sandbox_free(sb);
}

TEST(bad_input)
{
    capsa_sandbox *sb = new_sandbox();
    const capsa_result *r = NULL;
    CHECK_INT(capsa_run(sb, NULL, 0, NULL, &r), CAPSA_OK, "empty code (NULL, 0) runs");
    CHECK_STR(capsa_result_value(r), NULL, "and returns nothing");
    CHECK_INT(capsa_run(sb, NULL, 5, NULL, &r), CAPSA_EINVAL, "NULL code with a length is misuse");
    CHECK(r == NULL, "no result on misuse");
    static const char big_len_code[] = "1";
    CHECK_INT(capsa_run(sb, big_len_code, (size_t)65 << 20, NULL, &r), CAPSA_ETOOBIG,
              "65 MiB of code is refused before it is read");

    const char unterminated[] = "return 40 + 2;garbage that is not code";
    CHECK_INT(capsa_run(sb, unterminated, 14, NULL, &r), CAPSA_OK, "code need not be NUL-terminated");
    CHECK_STR(capsa_result_value(r), "42", "only len bytes are code");

    const char with_nul[] = "return 'a\0b'.length";
    CHECK_INT(capsa_run(sb, with_nul, sizeof(with_nul) - 1, NULL, &r), CAPSA_OK, "a NUL in a string literal");
    CHECK_STR(capsa_result_value(r), "3", "the NUL is part of the string");
    const char nul_outside[] = "return 1;\0 2";
    int rc = capsa_run(sb, nul_outside, sizeof(nul_outside) - 1, NULL, &r);
    CHECK_INT(rc, CAPSA_ESCRIPT, "a NUL outside literals is a syntax error");
    CHECK_STR(capsa_result_error_name(r), "SyntaxError", "reported as SyntaxError");

    const char bad_utf8[] = "return '\xff\xfe' + 'ok'";
    rc = capsa_run(sb, bad_utf8, sizeof(bad_utf8) - 1, NULL, &r);
    CHECK(rc == CAPSA_OK || rc == CAPSA_ESCRIPT, "invalid UTF-8 is an answer, not a crash");
    char *json = capsa_result_json(r);
    CHECK(json != NULL, "the result of invalid UTF-8 still makes JSON");
    json_error_t jerr;
    json_t *doc = json ? json_loads(json, 0, &jerr) : NULL;
    CHECK(doc != NULL, "and that JSON is valid");
    json_decref(doc);
    capsa_free(json);

    size_t n = 10u << 20;
    char *big = malloc(n + 64);
    CHECK(big != NULL, "10 MB buffer");
    if (big) {
        memcpy(big, "return '", 8);
        memset(big + 8, 'x', n);
        memcpy(big + 8 + n, "'.length", 8);
        rc = capsa_run(sb, big, n + 16, NULL, &r);
        CHECK_INT(rc, CAPSA_OK, "a 10 MB script runs");
        char want[32];
        snprintf(want, sizeof(want), "%zu", n);
        CHECK_STR(capsa_result_value(r), want, "and sees all of its text");
        free(big);
    }
    capsa_sandbox_free(sb);
}

TEST(result_json)
{
    capsa_sandbox *sb = new_sandbox();
    int rc;
    const capsa_result *r = run(sb, "console.log('hi'); console.error('oops'); return [1, {b: 'c'}]", &rc);
    char *s = capsa_result_json(r);
    CHECK(s != NULL, "JSON of a result");
    json_error_t err;
    json_t *doc = s ? json_loads(s, 0, &err) : NULL;
    CHECK(doc != NULL, "the JSON parses");
    if (doc) {
        CHECK_STR(json_string_value(json_object_get(doc, "stdout")), "hi\n", "stdout key");
        CHECK_STR(json_string_value(json_object_get(doc, "stderr")), "oops\n", "stderr key");
        json_t *v = json_object_get(doc, "value");
        CHECK(json_is_array(v) && json_array_size(v) == 2, "value is the returned array");
        CHECK(json_is_null(json_object_get(doc, "error")), "error is null on success");
        json_t *st = json_object_get(doc, "stats");
        CHECK(json_is_object(st) && json_object_get(st, "wall_ms") &&
                  json_object_get(st, "memory_bytes"),
              "stats has wall_ms and memory_bytes");
        json_decref(doc);
    }
    capsa_free(s);
    r = run(sb, "throw new Error('x\\ny')", &rc);
    s = capsa_result_json(r);
    doc = s ? json_loads(s, 0, &err) : NULL;
    json_t *e = doc ? json_object_get(doc, "error") : NULL;
    CHECK_STR(e ? json_string_value(json_object_get(e, "name")) : NULL, "Error", "error.name");
    CHECK_STR(e ? json_string_value(json_object_get(e, "message")) : NULL, "x\ny", "error.message");
    CHECK(e && json_is_string(json_object_get(e, "stack")), "error.stack");
    json_decref(doc);
    capsa_free(s);
    capsa_sandbox_free(sb);
}

TEST(memory_limit)
{
    capsa_options o;
    capsa_options_init(&o);
    o.memory_limit = 16u << 20;
    capsa_sandbox *sb = NULL;
    CHECK_INT(capsa_sandbox_new(engine, &o, &sb), CAPSA_OK, "a 16 MiB sandbox");
    int rc;
    const capsa_result *r = run(sb, "const keep = []; try { for (;;) keep.push('x'.repeat(1 << 20) + keep.length) }"
                                    " catch (e) { keep.length = 0; return String(e) }", &rc);
    CHECK_INT(rc, CAPSA_OK, "running out of memory is catchable");
    CHECK_CONTAINS(capsa_result_value(r), "out of memory", "as an out-of-memory error");
    capsa_stats st = { .struct_size = sizeof(st) };
    capsa_result_stats(r, &st);
    CHECK(st.memory_bytes <= (16u << 20), "guest memory stayed within the limit");
    r = run(sb, "return 'alive'", &rc);
    CHECK_STR(capsa_result_value(r), "\"alive\"", "the sandbox is usable afterwards");
    capsa_sandbox_free(sb);
}

TEST(many_sandboxes)
{
    enum { N = 40 };
    capsa_sandbox *sbs[N] = { 0 };
    int made = 0;
    for (int i = 0; i < N; i++)
        made += capsa_sandbox_new(engine, NULL, &sbs[i]) == CAPSA_OK;
    CHECK_INT(made, N, "40 sandboxes live at once");
    char code[64];
    for (int i = 0; i < N; i++) {
        snprintf(code, sizeof(code), "var id = %d", i);
        capsa_run(sbs[i], code, strlen(code), NULL, NULL);
    }
    int right = 0;
    for (int i = N - 1; i >= 0; i--) {
        const capsa_result *r = NULL;
        int rc;
        r = run(sbs[i], "return id", &rc);
        snprintf(code, sizeof(code), "%d", i);
        right += rc == CAPSA_OK && r && capsa_result_value(r) && strcmp(capsa_result_value(r), code) == 0;
    }
    CHECK_INT(right, N, "each sandbox keeps its own state");
    for (int i = 0; i < N; i++)
        capsa_sandbox_free(sbs[i]);
}

static capsa_sandbox *limited_sandbox(uint64_t timeout_ms, uint64_t fuel)
{
    capsa_options o;
    capsa_options_init(&o);
    o.timeout_ms = timeout_ms;
    o.fuel = fuel;
    capsa_sandbox *sb = NULL;
    CHECK_INT(capsa_sandbox_new(engine, &o, &sb), CAPSA_OK, "a sandbox with limits");
    return sb;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

TEST(timeout)
{
    capsa_options o;
    capsa_options_init(&o);
    CHECK_INT(o.timeout_ms, 30000, "runs have a 30 s time limit by default");
    capsa_sandbox *sb = limited_sandbox(100, 0);
    static const char *const spinners[] = {
        "while (true) {}",
        "try { for (;;) {} } finally { globalThis.ran = 1; for (;;) {} }",
        "return /(a+)+$/.test('a'.repeat(40) + '!')",
        "function f(n) { let s = 0; for (let i = 0; i < 1e12; i++) s += i; return s } f()",
        "let a = []; for (;;) { a.sort(); }",
    };
    for (size_t i = 0; i < sizeof(spinners) / sizeof(spinners[0]); i++) {
        int rc;
        run(sb, "var kept = 'state'", &rc);
        double t0 = now_ms();
        const capsa_result *r = run(sb, spinners[i], &rc);
        double took = now_ms() - t0;
        CHECK_INT(rc, CAPSA_ETIMEOUT, spinners[i]);
        CHECK(took < 100 + 50, "stopped within 50 ms of the deadline");
        CHECK_STR(capsa_result_error_name(r), "TimeoutError", "the result names the limit");
        r = run(sb, "return typeof kept", &rc);
        CHECK_STR(capsa_result_value(r), "\"undefined\"", "the JS state is gone after a limit");
    }
    int rc;
    const capsa_result *r = run(sb, "return 'usable'", &rc);
    CHECK_STR(capsa_result_value(r), "\"usable\"", "the sandbox runs again after limits");
    capsa_sandbox_free(sb);
}

TEST(fuel)
{
    const char *code = "let s = 0; for (let i = 0; i < 20000; i++) s += i % 7; return s";
    capsa_sandbox *sb = limited_sandbox(0, 0);
    uint64_t used[3] = { 0 };
    for (int i = 0; i < 3; i++) {
        int rc;
        capsa_reset(sb);
        const capsa_result *r = run(sb, code, &rc);
        CHECK_INT(rc, CAPSA_OK, "an unlimited run completes");
        capsa_stats st = { .struct_size = sizeof(st) };
        capsa_result_stats(r, &st);
        used[i] = st.fuel_used;
    }
    CHECK(used[0] > 20000, "fuel counts at least one unit per loop iteration");
    CHECK(used[0] == used[1] && used[1] == used[2], "the same run spends the same fuel every time");
    capsa_sandbox_free(sb);

    sb = limited_sandbox(0, used[0]);
    int rc;
    const capsa_result *r = run(sb, code, &rc);
    CHECK_INT(rc, CAPSA_OK, "a budget of exactly the fuel needed is enough");
    capsa_sandbox_free(sb);

    sb = limited_sandbox(0, used[0] - 1);
    r = run(sb, code, &rc);
    CHECK_INT(rc, CAPSA_EFUEL, "one unit less stops the run");
    CHECK_STR(capsa_result_error_name(r), "FuelError", "the result names the fuel limit");
    capsa_stats st = { .struct_size = sizeof(st) };
    capsa_result_stats(r, &st);
    CHECK_INT(st.fuel_used, used[0] - 1, "a stopped run spent all of its budget");
    r = run(sb, "return 1", &rc);
    CHECK_STR(capsa_result_value(r), "1", "the sandbox runs again after running out of fuel");
    capsa_sandbox_free(sb);
}

/* Deepest recursion a sandbox allows before its catchable stack overflow. */
static long recursion_depth(uint32_t max_stack)
{
    capsa_options o;
    capsa_options_init(&o);
    o.max_stack = max_stack;
    capsa_sandbox *sb = NULL;
    if (capsa_sandbox_new(engine, &o, &sb) != CAPSA_OK)
        return -1;
    int rc;
    const capsa_result *r = run(sb, "let d = 0; function f() { d++; f() } "
                                    "try { f() } catch (e) { return e instanceof RangeError ? d : -2 }", &rc);
    long depth = rc == CAPSA_OK && capsa_result_value(r) ? atol(capsa_result_value(r)) : -3;
    capsa_sandbox_free(sb);
    return depth;
}

TEST(stack_limit)
{
    capsa_options o;
    capsa_options_init(&o);
    CHECK_INT(o.max_stack, CAPSA_MAX_STACK, "the default stack is the most there is");
    capsa_sandbox *sb = NULL;
    o.max_stack = 1024;
    CHECK_INT(capsa_sandbox_new(engine, &o, &sb), CAPSA_EINVAL, "1 KiB of stack is too small");
    o.max_stack = CAPSA_MAX_STACK + 1;
    CHECK_INT(capsa_sandbox_new(engine, &o, &sb), CAPSA_EINVAL, "more than the shadow stack is refused");
    long full = recursion_depth(0), small = recursion_depth(64u << 10);
    CHECK(full > 1000, "the default stack allows deep recursion, then a catchable error");
    CHECK(small > 10 && small * 5 < full, "64 KiB of stack ends recursion far earlier, catchably");
}

TEST(sandbox_caps)
{
    capsa_engine_options eo;
    capsa_engine_options_init(&eo);
    eo.max_sandboxes = CAPSA_MAX_SANDBOXES + 1;
    capsa_engine *e = NULL;
    CHECK_INT(capsa_engine_new(&eo, &e), CAPSA_EINVAL, "a cap above the process's is refused");
    eo.max_sandboxes = 3;
    CHECK_INT(capsa_engine_new(&eo, &e), CAPSA_OK, "an engine capped at 3 sandboxes");
    capsa_sandbox *sb[4] = { 0 };
    for (int i = 0; i < 3; i++)
        CHECK_INT(capsa_sandbox_new(e, NULL, &sb[i]), CAPSA_OK, "a sandbox under the cap");
    CHECK_INT(capsa_sandbox_new(e, NULL, &sb[3]), CAPSA_ETOOMANY, "the fourth is refused");
    CHECK(sb[3] == NULL, "and none is made");
    capsa_sandbox_free(sb[1]);
    CHECK_INT(capsa_sandbox_new(e, NULL, &sb[1]), CAPSA_OK, "freeing one makes room again");
    for (int i = 0; i < 4; i++)
        capsa_sandbox_free(sb[i]);
    capsa_engine_free(e);
}

TEST(pool)
{
    capsa_engine_options eo;
    capsa_engine_options_init(&eo);
    eo.pool_size = 2000;
    capsa_engine *e = NULL;
    CHECK_INT(capsa_engine_new(&eo, &e), CAPSA_EINVAL, "a pool over 1024 is refused");
    eo.pool_size = 4;
    CHECK_INT(capsa_engine_new(&eo, &e), CAPSA_OK, "an engine with a pool of 4");
    char seen[8][64];
    int fresh = 0, distinct = 1;
    for (int i = 0; i < 8; i++) {
        capsa_sandbox *sb = NULL;
        CHECK_INT(capsa_sandbox_new(e, NULL, &sb), CAPSA_OK, "a sandbox from the pool");
        const capsa_result *r = NULL;
        const char *code = "const was = typeof mark; var mark = 1; return was + ' ' + Math.random()";
        capsa_run(sb, code, strlen(code), NULL, &r);
        const char *v = capsa_result_value(r);
        fresh += v && strncmp(v, "\"undefined ", 11) == 0;
        snprintf(seen[i], sizeof(seen[i]), "%s", v ? v : "");
        for (int j = 0; j < i; j++)
            distinct &= strcmp(seen[i], seen[j]) != 0;
        capsa_sandbox_free(sb);
    }
    CHECK_INT(fresh, 8, "every pooled sandbox starts from the image, with no earlier state");
    CHECK(distinct, "and with its own Math.random sequence");
    capsa_sandbox *sb = NULL;
    CHECK_INT(capsa_sandbox_new(e, NULL, &sb), CAPSA_OK, "a sandbox to reset");
    int rc;
    run(sb, "var kept = 1", &rc);
    CHECK_INT(capsa_reset(sb), CAPSA_OK, "reset restores the instance");
    const capsa_result *r = run(sb, "return typeof kept", &rc);
    CHECK_STR(capsa_result_value(r), "\"undefined\"", "and it is fresh");
    capsa_sandbox_free(sb);
    capsa_engine_free(e);
}

/* Instances go back to the pool restored in place: nothing a sandbox did to its
 * JS world (built-ins replaced, prototypes polluted, memory grown) reaches the
 * next sandbox that gets the same instance, nor its own state after a limit. */
TEST(pool_recycling)
{
    capsa_engine_options eo;
    capsa_engine_options_init(&eo);
    eo.pool_size = 1;
    capsa_engine *e = NULL;
    CHECK_INT(capsa_engine_new(&eo, &e), CAPSA_OK, "an engine with a pool of 1");
    static const char tamper[] =
        "Object.prototype.evil = 1; Array.prototype.push = () => { throw 'pushed' };"
        "JSON.stringify = () => 'forged'; globalThis.secret = 'a'.repeat(50 << 20);"
        "return secret.length";
    static const char probe[] =
        "const a = []; a.push(1);"
        "return [typeof secret, ({}).evil, JSON.stringify({x: a})].join(' ')";
    const char *want = "\"undefined  {\\\"x\\\":[1]}\"";
    int clean = 0, grown = 0;
    for (int i = 0; i < 5; i++) {
        capsa_sandbox *sb = NULL;
        int rc;
        CHECK_INT(capsa_sandbox_new(e, NULL, &sb), CAPSA_OK, "a sandbox from a pool of 1");
        const capsa_result *r = run(sb, probe, &rc);
        clean += rc == CAPSA_OK && capsa_result_value(r) && strcmp(capsa_result_value(r), want) == 0;
        r = run(sb, tamper, &rc);
        capsa_stats st;
        memset(&st, 0, sizeof(st));
        st.struct_size = sizeof(st);
        if (rc == CAPSA_OK)
            capsa_result_stats(r, &st);
        grown += st.memory_bytes > (40u << 20);
        capsa_sandbox_free(sb);
    }
    CHECK_INT(clean, 5, "each sandbox sees untouched built-ins, though the one before tampered");
    CHECK_INT(grown, 5, "each grew its memory past 40 MiB before going back to the pool");

    capsa_options o;
    capsa_options_init(&o);
    o.fuel = 2000000;
    capsa_sandbox *sb = NULL;
    int rc;
    CHECK_INT(capsa_sandbox_new(e, &o, &sb), CAPSA_OK, "a sandbox with a fuel budget");
    run(sb, tamper, &rc);
    run(sb, "for (;;) {}", &rc);
    CHECK_INT(rc, CAPSA_EFUEL, "an endless loop spends the budget");
    const capsa_result *r = run(sb, probe, &rc);
    CHECK_STR(capsa_result_value(r), want, "after the limit, the sandbox starts from the image");
    capsa_stats st;
    memset(&st, 0, sizeof(st));
    st.struct_size = sizeof(st);
    if (r)
        capsa_result_stats(r, &st);
    CHECK(st.memory_bytes > 0 && st.memory_bytes < (16u << 20),
          "with the image's memory, not the grown one");
    run(sb, tamper, &rc);
    CHECK_INT(capsa_reset(sb), CAPSA_OK, "reset");
    r = run(sb, probe, &rc);
    CHECK_STR(capsa_result_value(r), want, "after reset too");
    capsa_sandbox_free(sb);
    capsa_engine_free(e);

    /* Without a pool, reset restores in place the same way. */
    sb = new_sandbox();
    run(sb, tamper, &rc);
    CHECK_INT(capsa_reset(sb), CAPSA_OK, "reset without a pool");
    r = run(sb, probe, &rc);
    CHECK_STR(capsa_result_value(r), want, "starts from the image");
    for (int i = 0; i < 3; i++) {
        run(sb, tamper, &rc);
        capsa_reset(sb);
    }
    r = run(sb, probe, &rc);
    CHECK_STR(capsa_result_value(r), want, "and so after every reset");
    capsa_sandbox_free(sb);
}

TEST(allocation_failure)
{
    int clean = 0, tries = 0, succeeded = 0;
    for (long n = 0; n < 60 && !succeeded; n++) {
        test_fail_alloc f = { n, 0 };
        capsa_allocator a = { test_fail_realloc, test_fail_free, &f };
        capsa_engine_options eo;
        capsa_engine_options_init(&eo);
        eo.allocator = &a;
        capsa_engine *e = NULL;
        capsa_sandbox *sb = NULL;
        int ok = 1;
        tries++;
        int rc = capsa_engine_new(&eo, &e);
        if (rc == CAPSA_OK)
            rc = capsa_sandbox_new(e, NULL, &sb);
        if (rc == CAPSA_OK) {
            const char *code = "console.log('x'.repeat(1000)); return [1,2,3]";
            const capsa_result *r = NULL;
            rc = capsa_run(sb, code, strlen(code), NULL, &r);
            if (rc == CAPSA_OK)
                succeeded = capsa_result_value(r) && strcmp(capsa_result_value(r), "[1,2,3]") == 0;
        }
        ok = rc == CAPSA_OK || rc == CAPSA_ENOMEM;
        capsa_sandbox_free(sb);
        capsa_engine_free(e);
        clean += ok && f.live == 0;
    }
    CHECK_INT(clean, tries, "every injected failure gives CAPSA_ENOMEM and leaks nothing");
    CHECK(succeeded, "with enough allocations the run succeeds");
}

/* capsa_shell: a command line's output, exit status, input and JSON; the shell's
 * state between command lines; the same context as JS; misuse. */
TEST(shell)
{
    capsa_sandbox *sb = new_sandbox();
    const capsa_result *r = NULL;
    size_t len;
    int rc = capsa_shell(sb, "echo hello; echo oops >&2; exit 3", NULL, 0, &r);
    CHECK_INT(rc, CAPSA_OK, "a command line that ran is CAPSA_OK whatever its status");
    CHECK_INT(capsa_result_exit_code(r), 3, "the exit status");
    CHECK_STR(capsa_result_stdout(r, &len), "hello\n", "its stdout");
    CHECK_STR(capsa_result_stderr(r, &len), "oops\n", "its stderr");
    CHECK_STR(capsa_result_value(r), "3", "the value is the exit status");
    CHECK_INT(capsa_result_shell_exited(r), 1, "`exit` is reported");
    char *json = capsa_result_json(r);
    CHECK_CONTAINS(json, "\"exit_code\":3", "the JSON has the exit code");
    capsa_free(json);

    rc = capsa_shell(sb, "wc -l | tr -d ' '", "a\nb\nc\n", 6, &r);
    CHECK_STR(capsa_result_stdout(r, &len), "3\n", "the input is the standard input");
    CHECK_INT(capsa_result_shell_exited(r), 0, "no exit this time");

    capsa_shell(sb, "greet() { echo \"hi $1\"; }; X=kept; cd /tmp; echo data > f.txt", NULL, 0, &r);
    rc = capsa_shell(sb, "greet $X; pwd; cat f.txt", NULL, 0, &r);
    CHECK_STR(capsa_result_stdout(r, &len), "hi kept\n/tmp\ndata\n",
              "functions, variables and the directory persist between command lines");

    rc = capsa_run(sb, "globalThis.fromJs = 42; const s = await shell('echo $((6*7))'); "
                       "return [s.stdout, s.exitCode]", 93, NULL, &r);
    CHECK_STR(capsa_result_value(r), "[\"42\\n\",0]", "await shell() from JS");
    CHECK_INT(capsa_result_exit_code(r), -1, "a JS run has no exit code");
    rc = capsa_shell(sb, "js -e 'console.log(fromJs + 1)' | tr 4 x", NULL, 0, &r);
    CHECK_STR(capsa_result_stdout(r, &len), "x3\n", "js -e shares the scripts' context, in a pipe");

    rc = capsa_shell(sb, "if then fi", NULL, 0, &r);
    CHECK_INT(capsa_result_exit_code(r), 2, "a syntax error is status 2");
    CHECK_CONTAINS(capsa_result_stderr(r, &len), "syntax error", "and says so");
    rc = capsa_shell(sb, "nosuchcommand", NULL, 0, &r);
    CHECK_INT(capsa_result_exit_code(r), 127, "an unknown command is 127");

    CHECK_INT(capsa_shell(sb, NULL, NULL, 0, &r), CAPSA_EINVAL, "a NULL command line is misuse");
    CHECK(r == NULL, "no result on misuse");
    CHECK_INT(capsa_shell(sb, "cat", NULL, 3, &r), CAPSA_EINVAL, "NULL input with a length is misuse");
    CHECK_INT(capsa_shell(NULL, "true", NULL, 0, &r), CAPSA_EINVAL, "a NULL sandbox is misuse");
    capsa_sandbox_free(sb);

    capsa_options opts;
    capsa_options_init(&opts);
    opts.timeout_ms = 200;
    CHECK_INT(capsa_sandbox_new(engine, &opts, &sb), CAPSA_OK, "a sandbox with a time limit");
    rc = capsa_shell(sb, "while :; do :; done", NULL, 0, &r);
    CHECK_INT(rc, CAPSA_ETIMEOUT, "an endless shell loop hits the time limit");
    CHECK_INT(capsa_result_exit_code(r), -1, "and has no exit code");
    rc = capsa_shell(sb, "echo after", NULL, 0, &r);
    CHECK_STR(capsa_result_stdout(r, &len), "after\n", "the shell works again after the reset");
    capsa_sandbox_free(sb);
}

/* capsa_interrupt from another thread: the guest prints "go" when it is about to
 * wait (spin, sleep, wait for a tool), the output callback wakes the interrupter,
 * and the run must end as interrupted (its time limit, 60 s, would say timeout). */
typedef struct interrupter {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    int go;
    capsa_sandbox *sb;
    int rc;
} interrupter;

static void interrupt_on_go(void *ud, int stream, const char *data, size_t len)
{
    interrupter *it = ud;
    if (stream == CAPSA_STDOUT && len >= 2 && memcmp(data, "go", 2) == 0) {
        pthread_mutex_lock(&it->lock);
        it->go = 1;
        pthread_cond_signal(&it->cv);
        pthread_mutex_unlock(&it->lock);
    }
}

static void *interrupt_thread(void *arg)
{
    interrupter *it = arg;
    pthread_mutex_lock(&it->lock);
    while (!it->go)
        pthread_cond_wait(&it->cv, &it->lock);
    pthread_mutex_unlock(&it->lock);
    /* The run may be between its "go" and its wait: the request holds anyway. */
    it->rc = capsa_interrupt(it->sb);
    return NULL;
}

/* A tool that never answers on its own: it waits until its call is cancelled. */
static void waiting_tool(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    while (!capsa_tool_reply_cancelled(reply)) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    capsa_tool_reply_error(reply, "cancelled", "gave up");
}

TEST(interrupt)
{
    CHECK_INT(capsa_interrupt(NULL), CAPSA_EINVAL, "interrupting NULL is misuse");
    interrupter it = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, NULL, -1 };
    capsa_options o;
    capsa_options_init(&o);
    o.timeout_ms = 60000;
    o.on_output = interrupt_on_go;
    o.on_output_ud = &it;
    capsa_sandbox *sb = NULL;
    CHECK_INT(capsa_sandbox_new(engine, &o, &sb), CAPSA_OK, "a sandbox with an output callback");
    it.sb = sb;
    CHECK_INT(capsa_interrupt(sb), CAPSA_ENOENT, "no run in progress: nothing to interrupt");
    capsa_tool_def d;
    capsa_tool_def_init(&d);
    d.name = "slow.wait";
    d.fn = waiting_tool;
    CHECK_INT(capsa_tool_add(sb, &d), CAPSA_OK, "a tool that waits to be cancelled");
    CHECK_INT(capsa_policy_add(sb, "slow.wait", NULL, 0), CAPSA_OK, "and its capability");
    static const char *const waits[] = {
        "console.log('go'); for (;;) {}",
        "console.log('go'); await new Promise(r => setTimeout(r, 600000))",
        "console.log('go'); await tools.slow.wait({})",
        "console.log('go'); await shell('sleep 600')",
        "console.log('go'); fs.readFileSync(0)",
        "console.log('go'); for await (const c of process.stdin) {}",
    };
    /* Standard input that never ends: a pipe whose writer stays open. */
    int never[2];
    CHECK_INT(pipe(never), 0, "a pipe for standard input");
    CHECK_INT(capsa_set_stdin_fd(sb, never[0], 0), CAPSA_OK, "its reading end is stdin");
    int rc;
    for (size_t i = 0; i < sizeof(waits) / sizeof(waits[0]); i++) {
        run(sb, "var kept = 'state'", &rc);
        it.go = 0;
        it.rc = -1;
        pthread_t th;
        pthread_create(&th, NULL, interrupt_thread, &it);
        const capsa_result *r = run(sb, waits[i], &rc);
        pthread_join(th, NULL);
        CHECK_INT(it.rc, CAPSA_OK, "capsa_interrupt found the run in progress");
        CHECK_INT(rc, CAPSA_EINTERRUPTED, waits[i]);
        CHECK_STR(capsa_result_error_name(r), "InterruptError", "the result names the interrupt");
        CHECK_CONTAINS(capsa_errmsg(sb), "interrupted", "capsa_errmsg says so");
        r = run(sb, "return typeof kept", &rc);
        CHECK_STR(capsa_result_value(r), "\"undefined\"", "the JS state is gone, as after a limit");
    }
    /* A run after an interrupt is not affected by it, and files survive it. */
    CHECK_INT(capsa_fs_write(sb, "/workspace/kept.txt", "k", 1), CAPSA_OK, "a file");
    it.go = 0;
    pthread_t th;
    pthread_create(&th, NULL, interrupt_thread, &it);
    run(sb, "console.log('go'); for (;;) {}", &rc);
    pthread_join(th, NULL);
    CHECK_INT(capsa_interrupt(sb), CAPSA_ENOENT, "after the run, nothing is in progress");
    const capsa_result *r = run(sb, "let n = 0; for (let i = 0; i < 100000; i++) n += i; "
                                    "return fs.readFileSync('kept.txt', 'utf8') + n", &rc);
    CHECK_INT(rc, CAPSA_OK, "the next run completes");
    CHECK_STR(capsa_result_value(r), "\"k4999950000\"", "with the files kept");
    capsa_sandbox_free(sb);
    close(never[0]);
    close(never[1]);
    CHECK_STR(capsa_errname(CAPSA_EINTERRUPTED), "CAPSA_EINTERRUPTED", "the code has its name");
}

/* capsa_set_args and capsa_set_env: what process.argv and process.env show, checked
 * on the way in, kept on failure, never the host's; process.exit and process.exitCode
 * as the result's exit code. */
TEST(args_env_exit)
{
    capsa_sandbox *sb = new_sandbox();
    int rc;
    const capsa_result *r = run(sb, "return [process.argv.length, Object.keys(process.env)]", &rc);
    CHECK_STR(capsa_result_value(r), "[2,[]]", "no arguments and an empty environment at first");
    CHECK_INT(capsa_result_exit_code(r), -1, "no exit code when the script gives none");

    const char *args[] = { "one", "two words", "\xc3\xa9" };
    const char *env[] = { "A=1", "EMPTY=", "EQ=x=y" };
    CHECK_INT(capsa_set_args(sb, 3, args), CAPSA_OK, "arguments are set");
    CHECK_INT(capsa_set_env(sb, 3, env), CAPSA_OK, "the environment is set");
    r = run(sb, "return [process.argv.slice(2), process.env]", &rc);
    CHECK_STR(capsa_result_value(r), "[[\"one\",\"two words\",\"\xc3\xa9\"],"
              "{\"A\":\"1\",\"EMPTY\":\"\",\"EQ\":\"x=y\"}]", "the script sees them");

    const char *bad_utf8[] = { "ok", "\xff" };
    const char *no_eq[] = { "NAME" };
    const char *no_name[] = { "=v" };
    const char *null_entry[] = { "A=1", NULL };
    CHECK_INT(capsa_set_args(sb, 2, bad_utf8), CAPSA_EINVAL, "invalid UTF-8 is refused");
    CHECK_CONTAINS(capsa_errmsg(sb), "entry 1 is not valid UTF-8", "and named");
    CHECK_INT(capsa_set_env(sb, 1, no_eq), CAPSA_EINVAL, "an entry without '=' is refused");
    CHECK_INT(capsa_set_env(sb, 1, no_name), CAPSA_EINVAL, "an entry without a name is refused");
    CHECK_INT(capsa_set_env(sb, 2, null_entry), CAPSA_EINVAL, "a NULL entry is refused");
    CHECK_INT(capsa_set_args(sb, 2, NULL), CAPSA_EINVAL, "a NULL list with entries is refused");
    CHECK_INT(capsa_set_args(NULL, 0, NULL), CAPSA_EINVAL, "a NULL sandbox is refused");
    static char big[(1u << 20) + 2];
    memset(big, 'x', sizeof(big) - 1);
    const char *big_args[] = { big };
    CHECK_INT(capsa_set_args(sb, 1, big_args), CAPSA_ETOOBIG, "over 1 MiB is refused");
    r = run(sb, "return [process.argv.length, process.env.A]", &rc);
    CHECK_STR(capsa_result_value(r), "[5,\"1\"]", "the old ones stay after a failure");

    /* They survive a reset (a new instance), and can be cleared. */
    CHECK_INT(capsa_reset(sb), CAPSA_OK, "reset");
    r = run(sb, "return process.argv[2] + process.env.EQ", &rc);
    CHECK_STR(capsa_result_value(r), "\"onex=y\"", "they hold after a reset");
    CHECK_INT(capsa_set_args(sb, 0, NULL), CAPSA_OK, "no arguments");
    CHECK_INT(capsa_set_env(sb, 0, NULL), CAPSA_OK, "no environment");
    r = run(sb, "return [process.argv.length, Object.keys(process.env).length]", &rc);
    CHECK_STR(capsa_result_value(r), "[2,0]", "cleared");

    r = run(sb, "try { process.exit(300) } finally { console.log('finally') }", &rc);
    CHECK_INT(rc, CAPSA_OK, "process.exit is no error");
    CHECK_INT(capsa_result_exit_code(r), 300 & 255, "its code, & 255");
    CHECK_STR(capsa_result_stdout(r, NULL), "", "no finally block runs after it");
    r = run(sb, "process.exitCode = 4; return 'v'", &rc);
    CHECK_INT(capsa_result_exit_code(r), 4, "process.exitCode");
    CHECK_STR(capsa_result_value(r), "\"v\"", "with the value");
    r = run(sb, "return process.exitCode", &rc);
    CHECK_INT(capsa_result_exit_code(r), -1, "an exit code lasts for its run only");
    CHECK(capsa_result_value(r) == NULL, "and the next run does not see it");
    r = run(sb, "setTimeout(() => console.log('timer'), 0); process.exit()", &rc);
    CHECK_INT(capsa_result_exit_code(r), 0, "process.exit() is exit code 0");
    r = run(sb, "await new Promise((ok) => setTimeout(ok, 1)); return 1", &rc);
    CHECK_STR(capsa_result_stdout(r, NULL), "", "the timer an exit dropped never fires");
    CHECK_STR(capsa_result_value(r), "1", "and the sandbox goes on");
    capsa_sandbox_free(sb);
}

/* A thread that writes len bytes of data to fd, then closes it. */
typedef struct feeder {
    int fd;
    const char *data;
    size_t len;
} feeder;

static void *feed_thread(void *arg)
{
    feeder *f = arg;
    size_t off = 0;
    while (off < f->len) {
        ssize_t n = write(f->fd, f->data + off, f->len - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    close(f->fd);
    return NULL;
}

/* Runs code with a pipe as standard input (at most max bytes of it; 0: the
 * default) that a thread fills with data[0..len) and closes. */
static const capsa_result *run_fed(capsa_sandbox *sb, const char *data, size_t len,
                                   uint64_t max, const char *code, int *rc)
{
    int p[2];
    CHECK_INT(pipe(p), 0, "a pipe");
    feeder f = { p[1], data, len };
    CHECK_INT(capsa_set_stdin_fd(sb, p[0], max), CAPSA_OK, "the pipe is standard input");
    pthread_t th;
    pthread_create(&th, NULL, feed_thread, &f);
    const capsa_result *r = run(sb, code, rc);
    pthread_join(th, NULL);
    close(p[0]);
    return r;
}

/* The sandbox's standard input: bytes given (one stream across runs), a host fd
 * read as the guest asks (to its end, within a limit, within the time limit), the
 * shell's input when capsa_shell gets NULL, and a terminal, which reads as empty. */
TEST(stdin)
{
    capsa_sandbox *sb = new_sandbox();
    int rc;
    const capsa_result *r = run(sb, "return fs.readFileSync(0, 'utf8')", &rc);
    CHECK_STR(capsa_result_value(r), "\"\"", "a new sandbox's standard input is empty");
    CHECK_INT(capsa_set_stdin(NULL, "x", 1), CAPSA_EINVAL, "NULL sandbox");
    CHECK_INT(capsa_set_stdin(sb, NULL, 3), CAPSA_EINVAL, "NULL data with a length");
    CHECK_INT(capsa_set_stdin_fd(sb, -1, 0), CAPSA_EINVAL, "a negative fd");
    CHECK_INT(capsa_set_stdin(sb, "ab\ncd\n", 6), CAPSA_OK, "bytes as standard input");
    r = run(sb, "const b = fs.readFileSync(0); return [b.length, b.toString()]", &rc);
    CHECK_STR(capsa_result_value(r), "[6,\"ab\\ncd\\n\"]", "read whole as a Buffer");
    r = run(sb, "return fs.readFileSync('/dev/stdin', 'utf8')", &rc);
    CHECK_STR(capsa_result_value(r), "\"\"", "what a run read is gone for the next");
    CHECK_INT(capsa_set_stdin(sb, "one\ntwo\n", 8), CAPSA_OK, "new bytes");
    size_t len;
    rc = capsa_shell(sb, "wc -l", NULL, 0, &r);
    CHECK_STR(capsa_result_stdout(r, &len), "2\n", "capsa_shell with NULL input reads them");
    CHECK_INT(capsa_set_stdin(sb, "\xe2\x82", 2), CAPSA_OK, "half a character");
    r = run(sb, "let s = ''; process.stdin.setEncoding('utf8'); "
                "process.stdin.on('data', (c) => { s += c; }); "
                "await new Promise((res) => process.stdin.on('end', res)); return s", &rc);
    CHECK_STR(capsa_result_value(r), "\"\xef\xbf\xbd\"", "the stream's decoder ends a cut character");

    /* A pipe: read as it comes, to its end. */
    static char big[300000];
    memset(big, 'z', sizeof(big));
    r = run_fed(sb, big, sizeof(big), 0, "let n = 0, chunks = 0; for await (const c of "
                "process.stdin) { n += c.length; chunks++; } return [n, chunks > 1]", &rc);
    CHECK_STR(capsa_result_value(r), "[300000,true]", "all of it, in several chunks");

    /* Past the limit: EFBIG, for this read and the next. */
    r = run_fed(sb, big, 11, 10, "try { fs.readFileSync(0); } catch (e) { return [e.code, "
                "e.syscall, process.stdin.readableEnded]; }", &rc);
    CHECK_STR(capsa_result_value(r), "[\"EFBIG\",\"read\",false]", "11 bytes are over 10");
    r = run(sb, "return await new Promise((res) => process.stdin.on('error', (e) => res(e.code))"
                ".resume())", &rc);
    CHECK_STR(capsa_result_value(r), "\"EFBIG\"", "the stream reports it as its error");
    r = run_fed(sb, big, 10, 10, "return fs.readFileSync(0).length", &rc);
    CHECK_STR(capsa_result_value(r), "10", "10 bytes are within it");
    capsa_sandbox_free(sb);

    /* A pipe that never ends: the time limit stops the read; a run that does not
       read it is not held up. */
    capsa_options o;
    capsa_options_init(&o);
    o.timeout_ms = 200;
    CHECK_INT(capsa_sandbox_new(engine, &o, &sb), CAPSA_OK, "a sandbox with a 200 ms limit");
    int p[2];
    CHECK_INT(pipe(p), 0, "a pipe");
    CHECK_INT(capsa_set_stdin_fd(sb, p[0], 0), CAPSA_OK, "that never ends");
    r = run(sb, "return 1 + 1", &rc);
    CHECK_STR(capsa_result_value(r), "2", "a run that does not read it ends");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    r = run(sb, "return fs.readFileSync(0).length", &rc);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    CHECK_INT(rc, CAPSA_ETIMEOUT, "a read of it stops at the time limit");
    CHECK(ms < 2000, "within the limit's reach, not after the pipe's end");
    rc = capsa_shell(sb, "cat", NULL, 0, &r);
    CHECK_INT(rc, CAPSA_ETIMEOUT, "the shell's read of it too");
    close(p[0]);
    close(p[1]);

    /* A terminal: isTTY, and reads end at once. */
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0) {
        int t = open(ptsname(m), O_RDWR | O_NOCTTY);
        CHECK(t >= 0, "the terminal's other side opens");
        CHECK_INT(capsa_set_stdin_fd(sb, t, 0), CAPSA_OK, "a terminal as standard input");
        r = run(sb, "return [process.stdin.isTTY, fs.readFileSync(0).length]", &rc);
        CHECK_STR(capsa_result_value(r), "[true,0]", "a terminal, read as empty");
        close(t);
    } else {
        printf("stdin: no pseudo-terminal here, the terminal case is not checked\n");
    }
    if (m >= 0)
        close(m);
    capsa_sandbox_free(sb);
}

int main(void)
{
    if (capsa_engine_new(NULL, &engine) != CAPSA_OK) {
        fprintf(stderr, "cannot create an engine\n");
        return 1;
    }
    RUN(version_and_errors);
    RUN(misuse);
    RUN(values);
    RUN(value_at_return);
    RUN(output);
    RUN(output_stream_and_cap);
    RUN(persistence_and_reset);
    RUN(errors);
    RUN(bad_input);
    RUN(result_json);
    RUN(memory_limit);
    RUN(many_sandboxes);
    RUN(stack_limit);
    RUN(sandbox_caps);
    RUN(pool);
    RUN(pool_recycling);
    RUN(timeout);
    RUN(fuel);
    RUN(interrupt);
    RUN(allocation_failure);
    RUN(shell);
    RUN(args_env_exit);
    RUN(stdin);
    capsa_engine_free(engine);
    return test_summary("test_api");
}
