/* Soak test: long use of the public API, watching memory and results.
 *
 * (a) Many runs in one sandbox, a realistic mix: objects and JSON, strings,
 *     Maps, promises, console output, state kept between runs; a thrown error
 *     every tenth run, a capsa_reset every hundredth, a run stopped by its time
 *     limit every thousandth. Every result is checked exactly. The process's
 *     resident size (VmRSS) and the host heap (through counting allocator
 *     hooks) are sampled after a warm-up and at the end: their growth must stay
 *     under the bounds below.
 * (a') The same mix in another sandbox, never reset nor stopped, so that what
 *     the guest might leak from run to run accumulates: its linear memory is
 *     watched (half as many runs).
 * (b) Many live sandboxes used from two threads at once: each thread owns half,
 *     and runs a script in each of its own, round after round, checking that
 *     every sandbox kept its own state. Twice, all made and freed each time: the
 *     second cycle must not leave more memory behind than the first.
 *
 * usage: test_soak [--full] [--runs N] [--sandboxes N] [--rounds N]
 * The default is the short version run by `make test` (10,000 runs, 200
 * sandboxes); --full is `make soak` (100,000 runs, 1,000 sandboxes). Prints
 * what it measured and "soak: N passed, N failed"; exits non-zero on failure. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capsa.h"
#include "test.h"

/* Under AddressSanitizer freed memory waits in a quarantine instead of being
 * reused, so resident size grows whatever the code does: the RSS bounds are not
 * checked there (ASan's own leak checker covers that build). The host heap and
 * guest memory checks still are. */
#if defined(__SANITIZE_ADDRESS__)
#define RSS_CHECKED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RSS_CHECKED 0
#endif
#endif
#ifndef RSS_CHECKED
#define RSS_CHECKED 1
#endif

/* Growth allowed between the end of the warm-up and the end of part (a). The
 * host heap seen by the allocator hooks is exact: a leak of 32 bytes a run
 * passes its bound within the short version's 9,000 runs after warm-up. RSS
 * sees the rest (mappings, memory taken without the hooks) with the noise of
 * the allocators: a guest memory left mapped at each reset or limit trip
 * (about 1 MiB dirty each) would pass its bound within the short version. */
#define RSS_GROWTH_BOUND_KIB (8 * 1024)
#define HEAP_GROWTH_BOUND_BYTES (256 * 1024)
/* Growth of RSS allowed from one cycle of making, using and freeing all the
 * sandboxes of part (b) to the next, per sandbox (plus 1 MiB). */
#define PER_SANDBOX_BOUND_KIB 2
/* Growth of the guest's linear memory allowed in part (a'), after its warm-up,
 * in a sandbox never restarted. A leak of 256 bytes a run would show as 1.1 MiB
 * over the short version's 4,500 runs after warm-up, 11 MiB over the full one's. */
#define GUEST_GROWTH_BOUND_MIB 1

/* The time limit of part (a)'s sandbox: far above what a run of the mix takes
 * (well under a millisecond), so that only the endless loop reaches it. */
#define SOAK_TIMEOUT_MS 250

/* ---- measurements ---------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The process's resident set size in KiB, from /proc/self/status; 0 if unknown. */
static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    char line[256];
    long kib = 0;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kib = strtol(line + 6, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kib;
}

/* Allocator hooks that count the host heap of the engine and its sandboxes: live
 * blocks and bytes. Each block carries its size in a header. */
typedef struct heap_count {
    long blocks;
    long long bytes;
} heap_count;

#define HEADER 16 /* keeps the caller's block aligned as malloc's */

static void *count_realloc(void *ud, void *ptr, size_t size)
{
    heap_count *h = ud;
    size_t old = 0;
    char *base = NULL;
    if (ptr) {
        base = (char *)ptr - HEADER;
        memcpy(&old, base, sizeof(old));
    }
    char *p = realloc(base, size + HEADER);
    if (!p)
        return NULL;
    memcpy(p, &size, sizeof(size));
    if (!ptr)
        __atomic_add_fetch(&h->blocks, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&h->bytes, (long long)size - (long long)old, __ATOMIC_RELAXED);
    return p + HEADER;
}

static void count_free(void *ud, void *ptr)
{
    heap_count *h = ud;
    if (!ptr)
        return;
    char *base = (char *)ptr - HEADER;
    size_t old;
    memcpy(&old, base, sizeof(old));
    __atomic_sub_fetch(&h->blocks, 1, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&h->bytes, (long long)old, __ATOMIC_RELAXED);
    free(base);
}

static heap_count heap;

static heap_count heap_now(void)
{
    heap_count h;
    h.blocks = __atomic_load_n(&heap.blocks, __ATOMIC_RELAXED);
    h.bytes = __atomic_load_n(&heap.bytes, __ATOMIC_RELAXED);
    return h;
}

/* ---- part (a): many runs in one sandbox ------------------------------------------- */

/* Shows the first few mismatches of a part; counts them all. */
static long mismatches;

static void mismatch(long run, const char *fmt, const char *want, const char *got)
{
    if (++mismatches <= 10) {
        fprintf(stderr, "run %ld: ", run);
        fprintf(stderr, fmt, want ? want : "(null)", got ? got : "(null)");
        fputc('\n', stderr);
    }
}

enum { KIND_OBJECT, KIND_STRING, KIND_MAP, KIND_PROMISE, KIND_CONSOLE, KIND_STATE, KINDS };

/* Writes run i's script into code and the value it must return into want (empty
 * for no value), its stdout into want_out. `state` is the number of KIND_STATE
 * runs since the sandbox last started afresh. */
static void make_run(long i, long state, char *code, size_t n, char *want, size_t wn,
                     char *want_out, size_t on)
{
    want_out[0] = '\0';
    switch (i % KINDS) {
    case KIND_OBJECT:
        snprintf(code, n,
                 "{\n"
                 "  const o = { i: %ld, name: 'item' + %ld, tags: ['a', 'b'],\n"
                 "    nested: { x: [1, 2, 3], when: new Date(%ld * 1000).toISOString() } };\n"
                 "  const back = JSON.parse(JSON.stringify(o));\n"
                 "  return [back.name, back.nested.x.reduce((a, b) => a + b), back.tags.length,\n"
                 "    back.nested.when.length];\n"
                 "}\n",
                 i, i, i);
        snprintf(want, wn, "[\"item%ld\",6,2,24]", i);
        break;
    case KIND_STRING: {
        snprintf(code, n,
                 "{\n"
                 "  let s = '';\n"
                 "  for (let k = 0; k < 100; k++) s += String.fromCharCode(97 + (k + %ld) %% 26);\n"
                 "  return s.toUpperCase().split('').reverse().join('').slice(0, 5) + s.length +\n"
                 "    s.replace(/[aeiou]/g, '').length %% 1;\n"
                 "}\n",
                 i);
        char head[6];
        for (int k = 0; k < 5; k++)
            head[k] = (char)('A' + (99 - k + i) % 26);
        head[5] = '\0';
        snprintf(want, wn, "\"%s1000\"", head);
        break;
    }
    case KIND_MAP:
        snprintf(code, n,
                 "{\n"
                 "  const m = new Map();\n"
                 "  for (let k = 0; k < 50; k++) m.set('k' + k, k * %ld);\n"
                 "  return [...m.values()].filter((v) => v %% 2 === 0).length + new Set(m.keys()).size;\n"
                 "}\n",
                 i);
        snprintf(want, wn, "%d", (i % 2 == 0 ? 50 : 25) + 50);
        break;
    case KIND_PROMISE:
        snprintf(code, n,
                 "{\n"
                 "  const p = Promise.resolve(%ld);\n"
                 "  return await p.then((v) => new Promise((r) => r(v * 2)));\n"
                 "}\n",
                 i);
        snprintf(want, wn, "%ld", 2 * i);
        break;
    case KIND_CONSOLE:
        snprintf(code, n, "console.log('run', %ld, { ok: true, list: [1, 2] });\n", i);
        want[0] = '\0';
        snprintf(want_out, on, "run %ld { ok: true, list: [ 1, 2 ] }\n", i);
        break;
    case KIND_STATE:
        snprintf(code, n,
                 "counter = (typeof counter === 'number' ? counter : 0) + 1;\n"
                 "var history = history || [];\n"
                 "history.push(counter);\n"
                 "if (history.length > 20) history.shift();\n"
                 "return counter;\n");
        snprintf(want, wn, "%ld", state + 1);
        break;
    }
}

typedef struct part_a {
    long runs, threw, resets, timeouts;
    long rss_warm, rss_end;
    uint64_t guest_warm, guest_end; /* the guest's linear memory, in bytes */
    heap_count heap_warm, heap_end;
    double seconds, seconds_stopped;
} part_a;

/* The guest's linear memory after the last run. */
static uint64_t guest_memory(const capsa_result *r)
{
    capsa_stats st;
    st.struct_size = sizeof(st);
    capsa_result_stats(r, &st);
    return st.memory_bytes;
}

/* Runs the mix `runs` times in one sandbox. With `restarts`, a capsa_reset
 * every hundredth run and an endless loop stopped by the time limit every
 * thousandth; without, the sandbox is never restarted, so that whatever a run
 * leaves behind in the guest accumulates. */
static void soak_one_sandbox(capsa_engine *engine, long runs, int restarts, part_a *pa)
{
    capsa_options opts;
    capsa_options_init(&opts);
    opts.timeout_ms = SOAK_TIMEOUT_MS;
    opts.memory_limit = 64ull << 20;
    capsa_sandbox *sb;
    int rc = capsa_sandbox_new(engine, &opts, &sb);
    CHECK_INT(rc, CAPSA_OK, "(a) capsa_sandbox_new");
    if (rc != CAPSA_OK)
        return;

    memset(pa, 0, sizeof(*pa));
    long warm_up = runs / 10;
    long state = 0;
    mismatches = 0;
    static char code[2048], want[256], want_out[256], buf[64];
    double t0 = now_s();
    for (long i = 0; i < runs; i++) {
        if (i == warm_up) {
            pa->rss_warm = rss_kib();
            pa->heap_warm = heap_now();
            pa->guest_warm = pa->guest_end;
        }
        if (restarts && i % 100 == 99) {
            rc = capsa_reset(sb);
            if (rc != CAPSA_OK)
                mismatch(i, "capsa_reset: expected %s, got %s", "CAPSA_OK", capsa_errname(rc));
            state = 0;
            pa->resets++;
        }
        const capsa_result *r = NULL;
        if (restarts && i % 1000 == 999) {
            static const char spin[] = "for (;;) {}";
            double t1 = now_s();
            rc = capsa_run(sb, spin, sizeof(spin) - 1, "spin.js", &r);
            pa->seconds_stopped += now_s() - t1;
            if (rc != CAPSA_ETIMEOUT)
                mismatch(i, "endless loop: expected %s, got %s", "CAPSA_ETIMEOUT",
                         capsa_errname(rc));
            state = 0; /* the sandbox went back to its image */
            pa->timeouts++;
            continue;
        }
        if (i % 10 == 9) {
            snprintf(code, sizeof(code),
                     "function fails(x) { return x.missing.property; }\n"
                     "if (%ld %% 20 === 19) {\n"
                     "  Promise.reject(new Error('unhandled ' + %ld));\n"
                     "  throw new RangeError('out of range ' + %ld);\n"
                     "}\n"
                     "fails({ n: %ld });\n",
                     i, i, i, i);
            rc = capsa_run(sb, code, strlen(code), "throws.js", &r);
            int odd = i % 20 == 19;
            if (rc != CAPSA_ESCRIPT || !r) {
                mismatch(i, "throwing run: expected %s, got %s", "CAPSA_ESCRIPT", capsa_errname(rc));
            } else {
                const char *name = capsa_result_error_name(r);
                const char *want_name = odd ? "RangeError" : "TypeError";
                if (!name || strcmp(name, want_name) != 0)
                    mismatch(i, "error name: expected %s, got %s", want_name, name);
                snprintf(buf, sizeof(buf), "out of range %ld", i);
                const char *msg = capsa_result_error_message(r);
                if (odd && (!msg || strcmp(msg, buf) != 0))
                    mismatch(i, "error message: expected %s, got %s", buf, msg);
                size_t len;
                const char *err = capsa_result_stderr(r, &len);
                snprintf(buf, sizeof(buf), "Uncaught (in promise) Error: unhandled %ld\n", i);
                if (odd && (!err || strncmp(err, buf, strlen(buf)) != 0))
                    mismatch(i, "stderr: expected %s, got %s", buf, err);
                const char *stack = capsa_result_error_stack(r);
                if (!stack || !strstr(stack, "throws.js:"))
                    mismatch(i, "error stack: expected %s in it, got %s", "throws.js:", stack);
            }
            if (r)
                pa->guest_end = guest_memory(r);
            pa->threw++;
            continue;
        }
        make_run(i, state, code, sizeof(code), want, sizeof(want), want_out, sizeof(want_out));
        rc = capsa_run(sb, code, strlen(code), "mix.js", &r);
        if (rc != CAPSA_OK || !r) {
            mismatch(i, "expected %s, got %s", "CAPSA_OK", capsa_errname(rc));
            if (r)
                mismatch(i, "  error: %s %s", capsa_result_error_name(r),
                         capsa_result_error_message(r));
            continue;
        }
        pa->guest_end = guest_memory(r);
        if (i % KINDS == KIND_STATE)
            state++;
        const char *value = capsa_result_value(r);
        if (want[0] ? !value || strcmp(value, want) != 0 : value != NULL)
            mismatch(i, "value: expected %s, got %s", want[0] ? want : NULL, value);
        size_t len;
        const char *out = capsa_result_stdout(r, &len);
        if (strcmp(out ? out : "", want_out) != 0)
            mismatch(i, "stdout: expected %s, got %s", want_out, out);
        pa->runs++;
    }
    pa->seconds = now_s() - t0;
    pa->rss_end = rss_kib();
    pa->heap_end = heap_now();
    capsa_sandbox_free(sb);
}

/* ---- part (b): many live sandboxes, two threads ---------------------------------- */

typedef struct worker {
    capsa_sandbox **sbs;
    long first, count; /* this worker's sandboxes: ids first..first+count-1 */
    long rounds;
    long runs, failures;
    char first_failure[256];
} worker;

static void worker_fail(worker *w, const char *fmt, long id, const char *a, const char *b)
{
    if (w->failures++ == 0)
        snprintf(w->first_failure, sizeof(w->first_failure), fmt, id, a ? a : "(null)",
                 b ? b : "(null)");
}

/* Runs a script in each of the worker's sandboxes, round after round: each
 * sandbox counts its own runs and knows its own id, so a mix-up between
 * sandboxes or threads shows in the value. */
static void *worker_main(void *arg)
{
    worker *w = arg;
    char code[512], want[64];
    for (long round = 0; round < w->rounds; round++) {
        for (long k = 0; k < w->count; k++) {
            long id = w->first + k;
            const capsa_result *r = NULL;
            if (round == 0)
                snprintf(code, sizeof(code),
                         "var id = %ld, seen = 0;\n"
                         "const cache = new Map();\n"
                         "return id;\n",
                         id);
            else
                snprintf(code, sizeof(code),
                         "seen++;\n"
                         "cache.set(seen, JSON.stringify({ id, seen, s: 'x'.repeat(seen %% 7) }));\n"
                         "if (cache.size > 5) cache.delete(seen - 5);\n"
                         "return [id, seen, JSON.parse(cache.get(seen)).s.length];\n");
            int rc = capsa_run(w->sbs[id], code, strlen(code), "worker.js", &r);
            if (round == 0)
                snprintf(want, sizeof(want), "%ld", id);
            else
                snprintf(want, sizeof(want), "[%ld,%ld,%ld]", id, round, round % 7);
            if (rc != CAPSA_OK || !r) {
                worker_fail(w, "sandbox %ld: expected %s, got %s", id, "CAPSA_OK",
                            capsa_errname(rc));
            } else {
                const char *value = capsa_result_value(r);
                if (!value || strcmp(value, want) != 0)
                    worker_fail(w, "sandbox %ld: expected %s, got %s", id, want, value);
            }
            w->runs++;
        }
    }
    return NULL;
}

typedef struct part_b {
    long sandboxes, made, runs, failures;
    long rss_before, rss_live, rss_after;
    heap_count heap_before, heap_after;
    double seconds_new, seconds_runs;
} part_b;

static void soak_many_sandboxes(capsa_engine *engine, long n, long rounds, part_b *pb)
{
    memset(pb, 0, sizeof(*pb));
    pb->sandboxes = n;
    pb->rss_before = rss_kib();
    pb->heap_before = heap_now();
    capsa_options opts;
    capsa_options_init(&opts);
    opts.memory_limit = 32ull << 20;
    opts.timeout_ms = 10000;
    capsa_sandbox **sbs = calloc((size_t)n, sizeof(*sbs));
    if (!sbs) {
        CHECK(sbs != NULL, "(b) the array of sandboxes");
        return;
    }
    double t0 = now_s();
    int rc = CAPSA_OK;
    for (long i = 0; i < n && rc == CAPSA_OK; i++) {
        rc = capsa_sandbox_new(engine, &opts, &sbs[i]);
        if (rc == CAPSA_OK)
            pb->made++;
    }
    pb->seconds_new = now_s() - t0;
    CHECK_INT(pb->made, n, "(b) live sandboxes made");
    if (rc != CAPSA_OK)
        fprintf(stderr, "(b) capsa_sandbox_new failed after %ld: %s\n", pb->made,
                capsa_errname(rc));

    if (pb->made == n) {
        worker w[2];
        pthread_t th[2];
        long half = n / 2;
        for (int t = 0; t < 2; t++) {
            memset(&w[t], 0, sizeof(w[t]));
            w[t].sbs = sbs;
            w[t].first = t == 0 ? 0 : half;
            w[t].count = t == 0 ? half : n - half;
            w[t].rounds = rounds;
        }
        t0 = now_s();
        int started = 0;
        for (int t = 0; t < 2; t++)
            if (pthread_create(&th[t], NULL, worker_main, &w[t]) == 0)
                started++;
        CHECK_INT(started, 2, "(b) worker threads started");
        for (int t = 0; t < started; t++)
            pthread_join(th[t], NULL);
        pb->seconds_runs = now_s() - t0;
        pb->rss_live = rss_kib();
        for (int t = 0; t < started; t++) {
            pb->runs += w[t].runs;
            pb->failures += w[t].failures;
            if (w[t].failures)
                fprintf(stderr, "(b) thread %d: %ld wrong results, the first: %s\n", t,
                        w[t].failures, w[t].first_failure);
        }
    }
    for (long i = 0; i < pb->made; i++)
        capsa_sandbox_free(sbs[i]);
    free(sbs);
    pb->rss_after = rss_kib();
    pb->heap_after = heap_now();
}

/* ---- main ------------------------------------------------------------------------- */

static long arg_long(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v <= 0) {
        fprintf(stderr, "test_soak: not a positive number: '%s'\n", s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    long runs = 10000, runs_c = 5000, sandboxes = 200, rounds = 5;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--full") == 0) {
            runs = 100000;
            runs_c = 50000;
            sandboxes = 1000;
            rounds = 10;
        } else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = arg_long(argv[++i]);
            runs_c = runs / 2 ? runs / 2 : 1;
        } else if (strcmp(argv[i], "--sandboxes") == 0 && i + 1 < argc) {
            sandboxes = arg_long(argv[++i]);
        } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
            rounds = arg_long(argv[++i]);
        } else {
            fprintf(stderr, "usage: test_soak [--full] [--runs N] [--sandboxes N] [--rounds N]\n");
            return 2;
        }
    }

    capsa_allocator alloc = { count_realloc, count_free, &heap };
    capsa_engine_options eo;
    capsa_engine_options_init(&eo);
    eo.allocator = &alloc;
    capsa_engine *engine;
    test_current = "engine";
    long rss_start = rss_kib();
    int rc = capsa_engine_new(&eo, &engine);
    CHECK_INT(rc, CAPSA_OK, "capsa_engine_new");
    if (rc != CAPSA_OK)
        return test_summary("soak");
    printf("soak: RSS %.1f MiB at start, %.1f MiB with the engine\n", rss_start / 1024.0,
           rss_kib() / 1024.0);

    test_current = "one_sandbox";
    part_a pa;
    soak_one_sandbox(engine, runs, 1, &pa);
    long expected_throws = 0, expected_timeouts = runs / 1000;
    for (long i = 0; i < runs; i++)
        expected_throws += i % 10 == 9 && i % 1000 != 999;
    CHECK_INT(mismatches, 0, "(a) wrong results (shown above)");
    CHECK_INT(pa.threw, expected_throws, "(a) runs that threw");
    CHECK_INT(pa.timeouts, expected_timeouts, "(a) runs stopped by the time limit");
    CHECK_INT(pa.resets, runs / 100, "(a) resets");
    long rss_growth = pa.rss_end - pa.rss_warm;
    long long heap_growth = pa.heap_end.bytes - pa.heap_warm.bytes;
    double busy = pa.seconds - pa.seconds_stopped;
    printf("soak (a): %ld runs in one sandbox in %.2f s: %ld ok, %ld threw, %ld resets, %ld "
           "stopped at %d ms (%.2f s of them); %.0f runs/s apart from those\n",
           runs, pa.seconds, pa.runs, pa.threw, pa.resets, pa.timeouts, SOAK_TIMEOUT_MS,
           pa.seconds_stopped, busy > 0 ? (runs - pa.timeouts) / busy : 0.0);
    printf("soak (a): RSS %.1f MiB after %ld warm-up runs, %.1f MiB at the end: %+.1f MiB "
           "(bound %d MiB)\n",
           pa.rss_warm / 1024.0, runs / 10, pa.rss_end / 1024.0, rss_growth / 1024.0,
           RSS_GROWTH_BOUND_KIB / 1024);
    printf("soak (a): host heap %ld blocks, %.1f KiB after the warm-up; %ld blocks, %.1f KiB "
           "at the end: %+lld bytes (bound %d KiB)\n",
           pa.heap_warm.blocks, pa.heap_warm.bytes / 1024.0, pa.heap_end.blocks,
           pa.heap_end.bytes / 1024.0, heap_growth, HEAP_GROWTH_BOUND_BYTES / 1024);
    CHECK(!RSS_CHECKED || rss_growth < RSS_GROWTH_BOUND_KIB,
          "(a) RSS growth after the warm-up under the bound");
    CHECK(heap_growth < HEAP_GROWTH_BOUND_BYTES, "(a) host heap growth under the bound");

    /* (a') The same mix with no reset and no limit trip: whatever the guest
       leaks from run to run (engine objects, the runtime's bookkeeping)
       accumulates in its linear memory, which is watched here. */
    test_current = "no_restart";
    part_a pc;
    soak_one_sandbox(engine, runs_c, 0, &pc);
    CHECK_INT(mismatches, 0, "(a') wrong results (shown above)");
    long long guest_growth = (long long)pc.guest_end - (long long)pc.guest_warm;
    printf("soak (a'): %ld runs in one sandbox never restarted, in %.2f s (%.0f runs/s); guest "
           "memory %.1f MiB after %ld warm-up runs, %.1f MiB at the end: %+.1f MiB (bound %d MiB)\n",
           runs_c, pc.seconds, runs_c / pc.seconds, pc.guest_warm / 1048576.0, runs_c / 10,
           pc.guest_end / 1048576.0, guest_growth / 1048576.0, GUEST_GROWTH_BOUND_MIB);
    CHECK(guest_growth < (long long)GUEST_GROWTH_BOUND_MIB << 20,
          "(a') guest memory growth after the warm-up under the bound");
    CHECK(!RSS_CHECKED || pc.rss_end - pc.rss_warm < RSS_GROWTH_BOUND_KIB,
          "(a') RSS growth under the bound");

    /* Twice: the C library keeps some of what the first cycle freed (RSS does
       not go all the way back), but a second cycle must reuse it, not add to it. */
    test_current = "many_sandboxes";
    part_b pb[2];
    for (int cycle = 0; cycle < 2; cycle++) {
        part_b *p = &pb[cycle];
        soak_many_sandboxes(engine, sandboxes, rounds, p);
        CHECK_INT(p->runs, sandboxes * rounds, "(b) runs done by the two threads");
        CHECK_INT(p->failures, 0, "(b) wrong results (shown above)");
        printf("soak (b%d): %ld sandboxes made in %.2f s (%.3f ms each); %ld runs from 2 threads "
               "in %.2f s (%.0f runs/s)\n",
               cycle + 1, p->made, p->seconds_new, p->made ? p->seconds_new * 1e3 / p->made : 0.0,
               p->runs, p->seconds_runs, p->seconds_runs > 0 ? p->runs / p->seconds_runs : 0.0);
        printf("soak (b%d): RSS %.1f MiB before, %.1f MiB with all live (%.0f KiB a sandbox), "
               "%.1f MiB after freeing them; host heap %ld blocks before, %ld after\n",
               cycle + 1, p->rss_before / 1024.0, p->rss_live / 1024.0,
               p->made ? (double)(p->rss_live - p->rss_before) / p->made : 0.0,
               p->rss_after / 1024.0, p->heap_before.blocks, p->heap_after.blocks);
        /* Every sandbox gives back all it took from the allocator hooks. */
        CHECK_INT(p->heap_after.blocks, p->heap_before.blocks, "(b) host heap blocks after freeing");
        /* Freeing unmaps each guest memory: most of what the live sandboxes held
           goes back to the system at once. */
        CHECK(!RSS_CHECKED || p->rss_after - p->rss_before < (p->rss_live - p->rss_before) / 4,
              "(b) RSS mostly given back once the sandboxes are freed");
    }
    long cycle_growth = pb[1].rss_after - pb[0].rss_after;
    long cycle_bound = 1024 + sandboxes * PER_SANDBOX_BOUND_KIB;
    printf("soak (b): RSS after the second cycle %+.1f MiB from after the first (bound %.1f MiB)\n",
           cycle_growth / 1024.0, cycle_bound / 1024.0);
    CHECK(!RSS_CHECKED || cycle_growth < cycle_bound,
          "(b) RSS growth from one cycle of sandboxes to the next");
    if (!RSS_CHECKED)
        printf("soak: RSS bounds not checked under AddressSanitizer (its quarantine keeps "
               "freed memory)\n");

    capsa_engine_free(engine);
    test_current = "engine";
    CHECK_INT(heap_now().blocks, 0, "host heap blocks after capsa_engine_free");
    return test_summary("soak");
}
