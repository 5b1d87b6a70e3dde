/* The benchmark's capsa side, through the public API only.
 *
 *   capsa_bench compute REPS WARMUP SCRIPT...  time capsa_run of each script in one sandbox
 *   capsa_bench sqlite REPS WARMUP SCRIPT...   the same for the SQLite scripts (bench/sqlite/),
 *                                             their rows named sqlite.NAME
 *   capsa_bench latency N [pooled]            time capsa_sandbox_new + return 1+1 + free
 *                                             (pooled: from an engine with a pool of one
 *                                             instance, which free restores in place)
 *   capsa_bench memory N                      memory of N live sandboxes, idle and after
 *                                             one return 1+1 in each
 *   capsa_bench tools REPS [SCRIPT]           a trivial inline tool's JS -> host -> JS round
 *                                             trip (and an await of an async JS function in
 *                                             the same sandbox), and 10 concurrent 100 ms
 *                                             tools (wall time); SCRIPT: a script of 1,000
 *                                             awaited calls of the inline tool `lookup`
 *                                             (bench/tool_calls.js), timed per call
 *   capsa_bench checkpoint REPS               capsa_checkpoint and capsa_sandbox_restore of
 *                                             a session holding 1 MiB of live JS data and
 *                                             1 MiB of files, the blob's size, and a new
 *                                             sandbox + return 1+1 + free made from a
 *                                             checkpoint beside one made from the image
 *
 * Prints one line per figure: "name unit median min max p99 check" (see bench.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capsa.h"
#include "bench.h"

static capsa_engine *engine;

/* Series whose samples take milliseconds or less keep at least this many of them
 * when REPS (set for the compute scripts, whose runs take up to a second) is lower. */
#define SHORT_SERIES_MIN 9

static int short_series(int reps)
{
    return reps < SHORT_SERIES_MIN ? SHORT_SERIES_MIN : reps;
}

/* Prints why a run failed, from the result when there is one. */
static void report_failure(capsa_sandbox *sb, const char *what, int rc, const capsa_result *r)
{
    fprintf(stderr, "capsa_bench: %s: %s: %s\n", what, capsa_errname(rc), capsa_errmsg(sb));
    if (r && capsa_result_error_stack(r))
        fprintf(stderr, "%s\n", capsa_result_error_stack(r));
}

static int compute(const char *prefix, int reps, int warmup, int nscripts, char **scripts)
{
    capsa_sandbox *sb;
    int rc = capsa_sandbox_new(engine, NULL, &sb);
    double *t = malloc(sizeof(*t) * (size_t)reps);
    if (rc != CAPSA_OK || !t) {
        fprintf(stderr, "capsa_bench: cannot create a sandbox: %s\n", capsa_errstr(rc));
        return 1;
    }
    for (int s = 0; s < nscripts; s++) {
        size_t len;
        char *code = bench_read_file(scripts[s], &len);
        if (!code)
            return 1;
        char name[64], check[256];
        bench_script_name(scripts[s], name, sizeof(name));
        const capsa_result *r;
        for (int i = -warmup; i < reps; i++) {
            double t0 = bench_now_us();
            rc = capsa_run(sb, code, len, scripts[s], &r);
            double dt = bench_now_us() - t0;
            if (rc != CAPSA_OK) {
                report_failure(sb, scripts[s], rc, r);
                return 1;
            }
            if (i >= 0)
                t[i] = dt / 1e3;
        }
        static const char read_check[] = "return globalThis.benchResult";
        rc = capsa_run(sb, read_check, sizeof(read_check) - 1, "<check>", &r);
        if (rc != CAPSA_OK) {
            report_failure(sb, "reading benchResult", rc, r);
            return 1;
        }
        snprintf(check, sizeof(check), "%s", capsa_result_value(r) ? capsa_result_value(r) : "-");
        bench_sort(t, (size_t)reps);
        printf("%s.%s ms %.3f %.3f %.3f %.3f %s\n", prefix, name, bench_median(t, (size_t)reps),
               t[0], t[reps - 1], bench_percentile(t, (size_t)reps, 99), check);
        fflush(stdout);
        free(code);
    }
    free(t);
    capsa_sandbox_free(sb);
    return 0;
}

/* One cycle as an agent would pay it per task: a new sandbox (from the checkpoint
 * blob[0..len), or with blob NULL from the image), a trivial run, free. */
static int cycle(const char *blob, size_t len)
{
    static const char code[] = "return 1+1";
    capsa_sandbox *sb;
    char msg[256] = "";
    int rc = blob ? capsa_sandbox_restore(engine, blob, len, NULL, &sb, msg, sizeof(msg))
                  : capsa_sandbox_new(engine, NULL, &sb);
    if (rc != CAPSA_OK) {
        fprintf(stderr, "capsa_bench: a new sandbox: %s %s\n", capsa_errname(rc), msg);
        return -1;
    }
    const capsa_result *r;
    rc = capsa_run(sb, code, sizeof(code) - 1, NULL, &r);
    int ok = rc == CAPSA_OK && capsa_result_value(r) && strcmp(capsa_result_value(r), "2") == 0;
    if (!ok)
        report_failure(sb, "return 1+1", rc, r);
    capsa_sandbox_free(sb);
    return ok ? 0 : -1;
}

static int latency(int n, const char *name)
{
    int warmup = n / 10 + 1;
    double *t = malloc(sizeof(*t) * (size_t)n);
    if (!t)
        return 1;
    for (int i = -warmup; i < n; i++) {
        double t0 = bench_now_us();
        int rc = cycle(NULL, 0);
        double dt = bench_now_us() - t0;
        if (rc != 0)
            return 1;
        if (i >= 0)
            t[i] = dt;
    }
    bench_sort(t, (size_t)n);
    printf("%s us %.3f %.3f %.3f %.3f -\n", name, bench_median(t, (size_t)n), t[0],
           t[n - 1], bench_percentile(t, (size_t)n, 99));
    fflush(stdout);
    free(t);
    return 0;
}

/* Keeps n sandboxes alive at once and prints what each costs the process: private
 * dirty memory and RSS per sandbox before any run and after one `return 1+1` in
 * each, and how many could be created (creation stops at the first failure). */
static int memory(int n)
{
    static const char code[] = "return 1+1";
    capsa_sandbox **sb = calloc((size_t)n, sizeof(*sb));
    if (!sb)
        return 1;
    /* A first sandbox, run once and freed again, so that what the engine makes once
     * (its image) is in the baseline and not charged to the sandboxes, and the
     * engine is as after any sandbox freed: it knows the pages a run writes, which
     * every later sandbox is given its own copies of (src/rt.c, capsa__rt_hot). */
    capsa_sandbox *first;
    const capsa_result *r;
    int rc = capsa_sandbox_new(engine, NULL, &first);
    if (rc != CAPSA_OK) {
        fprintf(stderr, "capsa_bench: capsa_sandbox_new: %s\n", capsa_errstr(rc));
        return 1;
    }
    rc = capsa_run(first, code, sizeof(code) - 1, "memory", &r);
    capsa_sandbox_free(first);
    if (rc != CAPSA_OK) {
        fprintf(stderr, "capsa_bench: the first run: %s\n", capsa_errstr(rc));
        return 1;
    }
    double rss0, priv0, rss1, priv1, rss2, priv2;
    if (bench_memory_kib(&rss0, &priv0) != 0)
        return 1;
    int count = 0;
    double t0 = bench_now_us();
    for (; count < n; count++) {
        rc = capsa_sandbox_new(engine, NULL, &sb[count]);
        if (rc != CAPSA_OK) {
            fprintf(stderr, "capsa_bench: sandbox %d: capsa_sandbox_new: %s\n", count + 1,
                    capsa_errstr(rc));
            break;
        }
    }
    double t1 = bench_now_us();
    if (bench_memory_kib(&rss1, &priv1) != 0)
        return 1;
    for (int i = 0; i < count; i++) {
        rc = capsa_run(sb[i], code, sizeof(code) - 1, NULL, &r);
        if (rc != CAPSA_OK || !capsa_result_value(r) || strcmp(capsa_result_value(r), "2") != 0) {
            report_failure(sb[i], "return 1+1", rc, r);
            return 1;
        }
    }
    double t2 = bench_now_us();
    if (bench_memory_kib(&rss2, &priv2) != 0)
        return 1;
    bench_print_per_instance("memory.idle_private", priv0, priv1, count);
    bench_print_per_instance("memory.idle_rss", rss0, rss1, count);
    bench_print_per_instance("memory.run_private", priv0, priv2, count);
    bench_print_per_instance("memory.run_rss", rss0, rss2, count);
    printf("memory.count n %d %d %d %d %d\n", count, count, count, count, n);
    fflush(stdout);
    fprintf(stderr, "capsa_bench: %d sandboxes: %.1f us each to create, %.1f us each to run (%s)\n",
            count, count ? (t1 - t0) / count : 0, count ? (t2 - t1) / count : 0,
            bench_clock == CLOCK_MONOTONIC ? "wall" : "CPU");
    for (int i = 0; i < count; i++)
        capsa_sandbox_free(sb[i]);
    free(sb);
    /* Fewer sandboxes than asked for is a figure of the report, not a failure. */
    return 0;
}

/* ---- tools -------------------------------------------------------------------------- */

static void tool_one(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    (void)ud;
    (void)call;
    capsa_tool_reply_json(reply, "1", 1);
}

/* Answers {"ok":true,"echo":ARGS}: a small JSON result that depends on the call. */
static void tool_lookup(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    (void)ud;
    char buf[512];
    int n = snprintf(buf, sizeof(buf), "{\"ok\":true,\"echo\":%s}", call->args);
    if (n < 0 || (size_t)n >= sizeof(buf))
        capsa_tool_reply_error(reply, "too_large", "arguments over 500 bytes");
    else
        capsa_tool_reply_json(reply, buf, (size_t)n);
}

static void tool_sleep(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    (void)ud;
    struct timespec ts = { 0, 100 * 1000000L };
    nanosleep(&ts, NULL);
    capsa_tool_reply_json(reply, call->args, call->args_len);
}

static double wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Times code (a loop of `calls` awaits) reps times; prints per-call microseconds. */
static int time_calls(capsa_sandbox *sb, const char *name, const char *code, int reps, int calls)
{
    double *t = malloc(sizeof(*t) * (size_t)reps);
    if (!t)
        return 1;
    for (int i = -1; i < reps; i++) {
        const capsa_result *r;
        double t0 = bench_now_us();
        int rc = capsa_run(sb, code, strlen(code), name, &r);
        double dt = bench_now_us() - t0;
        if (rc != CAPSA_OK) {
            report_failure(sb, name, rc, r);
            free(t);
            return 1;
        }
        if (i >= 0)
            t[i] = dt / calls;
    }
    bench_sort(t, (size_t)reps);
    printf("%s us %.3f %.3f %.3f %.3f -\n", name, bench_median(t, (size_t)reps), t[0], t[reps - 1],
           bench_percentile(t, (size_t)reps, 99));
    free(t);
    return 0;
}

static int tools_bench(int reps, const char *script)
{
    capsa_sandbox *sb;
    capsa_options o;
    capsa_options_init(&o);
    o.tool_concurrency = 16; /* all 10 calls at once (the default pool has 8 workers) */
    int rc = capsa_sandbox_new(engine, &o, &sb);
    if (rc != CAPSA_OK)
        return 1;
    capsa_tool_def d;
    capsa_tool_def_init(&d);
    d.name = "one";
    d.fn = tool_one;
    d.flags = CAPSA_TOOL_INLINE;
    capsa_tool_add(sb, &d);
    capsa_tool_def_init(&d);
    d.name = "lookup";
    d.fn = tool_lookup;
    d.flags = CAPSA_TOOL_INLINE;
    capsa_tool_add(sb, &d);
    capsa_tool_def_init(&d);
    d.name = "sleepy";
    d.fn = tool_sleep;
    capsa_tool_add(sb, &d);
    capsa_policy_add(sb, "**", NULL, 0);
    /* The audit log would grow by a line per call: a sandbox of its own per series
       keeps it small; the figure includes writing it. */
    static const char tool_code[] =
        "{ let s = 0; for (let i = 0; i < 10000; i++) s += await one({}); "
        "}";
    static const char js_code[] =
        "{ const f = async (a) => 1; let s = 0; for (let i = 0; i < 10000; i++) s += await f({}); }";
    if (time_calls(sb, "tools.roundtrip", tool_code, short_series(reps), 10000) ||
        time_calls(sb, "tools.js_async", js_code, short_series(reps), 10000)) {
        capsa_sandbox_free(sb);
        return 1;
    }
    if (script) {
        size_t len;
        char *code = bench_read_file(script, &len);
        int failed = !code || time_calls(sb, "tools.agent_calls", code, short_series(reps), 1000);
        free(code);
        if (failed) {
            capsa_sandbox_free(sb);
            return 1;
        }
    }
    static const char conc[] = "await Promise.all([...Array(10).keys()].map(i => sleepy({i})))";
    double *t = malloc(sizeof(*t) * (size_t)reps);
    for (int i = 0; t && i < reps; i++) {
        const capsa_result *r;
        double t0 = wall_us();
        rc = capsa_run(sb, conc, sizeof(conc) - 1, "concurrent", &r);
        t[i] = (wall_us() - t0) / 1e3;
        if (rc != CAPSA_OK) {
            report_failure(sb, "concurrent", rc, r);
            free(t);
            capsa_sandbox_free(sb);
            return 1;
        }
    }
    if (t) {
        bench_sort(t, (size_t)reps);
        printf("tools.concurrent10 ms %.3f %.3f %.3f %.3f -\n", bench_median(t, (size_t)reps), t[0],
               t[reps - 1], bench_percentile(t, (size_t)reps, 99));
    }
    free(t);
    capsa_sandbox_free(sb);
    return t ? 0 : 1;
}

/* ---- checkpoints ---------------------------------------------------------------- */

/* The session of the checkpoint figures: 1 MiB of live JS data (11,230 records,
 * whose JSON is 1 MiB: the check) and 1 MiB of files (16 text files of 64 KiB,
 * written by the host). Built without garbage of its own, so that the memory a
 * checkpoint keeps is the data's. */
static const char session_code[] =
    "globalThis.rows = []; for (let i = 0; i < 11230; i++)"
    "  rows.push({id: i, name: 'user' + i, email: 'user' + i + '@example.com',"
    "             score: i * 1.5, tags: ['a', 'b' + (i % 7)]});"
    "return rows.length";
static const char session_check[] = "return JSON.stringify(rows).length";

static int session_files(capsa_sandbox *sb)
{
    enum { FILE_BYTES = 65536 };
    static char text[FILE_BYTES + 64];
    for (int f = 0; f < 16; f++) {
        size_t n = 0;
        for (int line = 0; n < FILE_BYTES; line++)
            n += (size_t)snprintf(text + n, sizeof(text) - n, "file %d line %d: value %d\n", f,
                                  line, line * 7919 % 10007);
        char path[64];
        snprintf(path, sizeof(path), "/workspace/data/part%02d.txt", f);
        if (capsa_fs_write(sb, path, text, FILE_BYTES) != CAPSA_OK) {
            fprintf(stderr, "capsa_bench: %s\n", capsa_errmsg(sb));
            return -1;
        }
    }
    return 0;
}

static void print_series(const char *name, const char *unit, double *t, int n, const char *check)
{
    bench_sort(t, (size_t)n);
    printf("%s %s %.3f %.3f %.3f %.3f %s\n", name, unit, bench_median(t, (size_t)n), t[0],
           t[n - 1], bench_percentile(t, (size_t)n, 99), check);
}

static int checkpoint_bench(int reps)
{
    capsa_sandbox *sb;
    int rc = capsa_sandbox_new(engine, NULL, &sb);
    if (rc != CAPSA_OK)
        return 1;
    const capsa_result *r;
    rc = capsa_run(sb, session_code, sizeof(session_code) - 1, "session", &r);
    if (rc != CAPSA_OK || session_files(sb) != 0) {
        report_failure(sb, "the session", rc, r);
        return 1;
    }
    char check[64];
    /* An engine with a pool of one, whose instance comes back with the pages it
       grew (zeroed when the sandbox is freed, outside the time). */
    capsa_engine_options eo;
    capsa_engine_options_init(&eo);
    eo.pool_size = 1;
    capsa_engine *pooled;
    if (capsa_engine_new(&eo, &pooled) != CAPSA_OK)
        return 1;
    int n = short_series(reps) * 5; /* each sample is short: more of them */
    double *save = malloc(sizeof(double) * (size_t)n), *load = malloc(sizeof(double) * (size_t)n);
    double *cold = malloc(sizeof(double) * (size_t)n), *pload = malloc(sizeof(double) * (size_t)n);
    double *nload = malloc(sizeof(double) * (size_t)n);
    char *blob = NULL, *first = NULL;
    size_t len = 0, first_len = 0;
    /* Each sample: a turn of the session (a small run that changes one record, as an
       agent's next step would; not timed), its checkpoint (a sandbox keeps the
       frames of its last one), a restore into the engine without a pool and into the
       pooled one (each engine keeps the frames of the last blob it restored: the
       session's previous checkpoint), the first checkpoint of the sandbox restored
       (nothing kept: every frame compressed, as for a session's first checkpoint),
       and a restore into a new engine (nothing kept either: every frame
       decompressed, as for the first restore of a process). */
    static const char turn[] = "globalThis.turn = (globalThis.turn || 0) + 1;"
                               "rows[turn * 7919 % rows.length].score++; return turn";
    for (int i = -2; save && load && cold && pload && nload && i < n; i++) {
        capsa_free(blob);
        capsa_free(first);
        rc = capsa_run(sb, turn, sizeof(turn) - 1, "turn", &r);
        if (rc != CAPSA_OK) {
            report_failure(sb, "a turn of the session", rc, r);
            return 1;
        }
        double t0 = bench_now_us();
        rc = capsa_checkpoint(sb, &blob, &len);
        double t1 = bench_now_us();
        capsa_sandbox *back = NULL, *pback = NULL;
        char msg[256] = "";
        int rr = rc == CAPSA_OK ? capsa_sandbox_restore(engine, blob, len, NULL, &back, msg, sizeof(msg))
                                : rc;
        double t2 = bench_now_us();
        int rf = rr == CAPSA_OK ? capsa_checkpoint(back, &first, &first_len) : rr;
        double t3 = bench_now_us();
        int rp = rf == CAPSA_OK ? capsa_sandbox_restore(pooled, blob, len, NULL, &pback, msg, sizeof(msg))
                                : rf;
        double t4 = bench_now_us();
        capsa_engine *fresh = NULL;
        capsa_sandbox *nback = NULL;
        int rn = rp == CAPSA_OK ? capsa_engine_new(NULL, &fresh) : rp;
        double t5 = bench_now_us();
        if (rn == CAPSA_OK)
            rn = capsa_sandbox_restore(fresh, blob, len, NULL, &nback, msg, sizeof(msg));
        double t6 = bench_now_us();
        if (rc != CAPSA_OK || rr != CAPSA_OK || rf != CAPSA_OK || rp != CAPSA_OK ||
            rn != CAPSA_OK) {
            fprintf(stderr, "capsa_bench: checkpoint %s, restore %s, first checkpoint %s, pooled "
                    "restore %s, restore into a new engine %s: %s %s\n", capsa_errname(rc),
                    capsa_errname(rr), capsa_errname(rf), capsa_errname(rp), capsa_errname(rn),
                    capsa_errmsg(sb), msg);
            return 1;
        }
        capsa_sandbox_free(back);
        capsa_sandbox_free(pback);
        capsa_sandbox_free(nback);
        capsa_engine_free(fresh);
        if (i >= 0) {
            save[i] = (t1 - t0) / 1e3;
            load[i] = (t2 - t1) / 1e3;
            cold[i] = (t3 - t2) / 1e3;
            pload[i] = (t4 - t3) / 1e3;
            nload[i] = (t6 - t5) / 1e3;
        }
    }
    if (!save || !load || !cold || !pload || !nload)
        return 1;
    rc = capsa_run(sb, session_check, sizeof(session_check) - 1, "check", &r);
    if (rc != CAPSA_OK) {
        report_failure(sb, "the session's check", rc, r);
        return 1;
    }
    snprintf(check, sizeof(check), "json=%s", capsa_result_value(r));
    print_series("checkpoint.save", "ms", save, n, check);
    print_series("checkpoint.save_first", "ms", cold, n, check);
    print_series("checkpoint.restore", "ms", load, n, check);
    print_series("checkpoint.restore_pooled", "ms", pload, n, check);
    print_series("checkpoint.restore_new_engine", "ms", nload, n, check);
    printf("checkpoint.blob KiB %.1f %.1f %.1f %.1f %s\n", len / 1024.0, len / 1024.0,
           len / 1024.0, len / 1024.0, check);
    capsa_free(blob);
    capsa_sandbox_free(sb);

    /* A new sandbox from a checkpoint (of one that ran return 1+1) beside one from
       the image, alternating, in this process. */
    rc = capsa_sandbox_new(engine, NULL, &sb);
    if (rc != CAPSA_OK || capsa_run(sb, "return 1+1", 10, NULL, &r) != CAPSA_OK ||
        capsa_checkpoint(sb, &blob, &len) != CAPSA_OK)
        return 1;
    capsa_sandbox_free(sb);
    int cycles = short_series(reps) * 50;
    double *from_ckpt = malloc(sizeof(double) * (size_t)cycles);
    double *from_image = malloc(sizeof(double) * (size_t)cycles);
    for (int i = -5; from_ckpt && from_image && i < cycles; i++) {
        double t0 = bench_now_us();
        if (cycle(blob, len) != 0)
            return 1;
        double t1 = bench_now_us();
        if (cycle(NULL, 0) != 0)
            return 1;
        double t2 = bench_now_us();
        if (i >= 0) {
            from_ckpt[i] = t1 - t0;
            from_image[i] = t2 - t1;
        }
    }
    if (!from_ckpt || !from_image)
        return 1;
    /* No check column: cycle checked each result, and the blob's size varies by a
       few bytes from one process to the next (its Math.random seed, its times). */
    print_series("checkpoint.new_from_checkpoint", "us", from_ckpt, cycles, "-");
    print_series("checkpoint.new_from_image", "us", from_image, cycles, "-");
    fflush(stdout);
    capsa_free(blob);
    capsa_free(first);
    capsa_engine_free(pooled);
    free(save);
    free(load);
    free(cold);
    free(pload);
    free(nload);
    free(from_ckpt);
    free(from_image);
    return 0;
}

int main(int argc, char **argv)
{
    if (capsa_version_number() != CAPSA_VERSION_NUMBER) {
        fprintf(stderr, "capsa_bench: built for capsa %s, linked with %s\n",
                CAPSA_VERSION_STRING, capsa_version());
        return 1;
    }
    if (bench_clock_from_env() != 0)
        return 2;
    int pooled = argc == 4 && strcmp(argv[1], "latency") == 0 && strcmp(argv[3], "pooled") == 0;
    capsa_engine_options eo;
    capsa_engine_options_init(&eo);
    eo.pool_size = pooled ? 1 : 0;
    int rc = capsa_engine_new(&eo, &engine);
    if (rc != CAPSA_OK) {
        fprintf(stderr, "capsa_bench: capsa_engine_new: %s\n", capsa_errstr(rc));
        return 1;
    }
    if (argc >= 5 && strcmp(argv[1], "compute") == 0)
        rc = compute("compute", bench_count(argv[2], 7), atoi(argv[3]), argc - 4, argv + 4);
    else if (argc >= 5 && strcmp(argv[1], "sqlite") == 0)
        rc = compute("sqlite", bench_count(argv[2], 7), atoi(argv[3]), argc - 4, argv + 4);
    else if ((argc == 3 || pooled) && strcmp(argv[1], "latency") == 0)
        rc = latency(bench_count(argv[2], 1000), pooled ? "latency.pooled" : "latency.capsa");
    else if (argc >= 3 && strcmp(argv[1], "memory") == 0)
        rc = memory(bench_count(argv[2], 1000));
    else if (argc >= 3 && strcmp(argv[1], "tools") == 0)
        rc = tools_bench(bench_count(argv[2], 7), argc >= 4 ? argv[3] : NULL);
    else if (argc >= 3 && strcmp(argv[1], "checkpoint") == 0)
        rc = checkpoint_bench(bench_count(argv[2], 7));
    else {
        fprintf(stderr, "usage: capsa_bench compute REPS WARMUP SCRIPT...\n"
                        "       capsa_bench sqlite REPS WARMUP SCRIPT...\n"
                        "       capsa_bench latency N [pooled]\n"
                        "       capsa_bench memory N\n"
                        "       capsa_bench tools REPS [SCRIPT]\n"
                        "       capsa_bench checkpoint REPS\n");
        rc = 2;
    }
    capsa_engine_free(engine);
    return rc;
}
