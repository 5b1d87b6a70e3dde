/* The benchmark's reference: QuickJS built natively from the same patched sources
 * and -D flags as the guest, doing in-process what the guest does for a run.
 *
 *   native_qjs compute REPS WARMUP SCRIPT...  time evaluations of each script
 *                                            (BENCH_INTL_JS: a file evaluated first, untimed:
 *                                            the guest's Intl, which QuickJS lacks)
 *   native_qjs latency N [RUNTIME_JS]        time new runtime + 1+1 + free
 *   native_qjs memory N                      memory of N live runtimes with a context,
 *                                            idle and after evaluating 1+1 in each
 *
 * Prints one line per figure: "name unit median min max p99 check" (see bench.sh). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quickjs.h"
#include "bench.h"

/* The guest's settings (guest/main.c and src/instance.c for the default 256 MiB
 * sandbox), so that both engines run under the same limits. */
#define GUEST_STACK_LIMIT (896 * 1024)
#define GUEST_MEMORY_LIMIT ((256u << 20) - (3u << 20))

static JSRuntime *new_runtime(void)
{
    JSRuntime *rt = JS_NewRuntime();
    if (!rt) {
        fprintf(stderr, "native_qjs: JS_NewRuntime failed\n");
        exit(1);
    }
    JS_SetMemoryLimit(rt, GUEST_MEMORY_LIMIT);
    JS_SetMaxStackSize(rt, GUEST_STACK_LIMIT);
    return rt;
}

static void print_exception(JSContext *ctx, const char *what)
{
    JSValue err = JS_GetException(ctx);
    const char *s = JS_ToCString(ctx, err);
    fprintf(stderr, "native_qjs: %s threw: %s\n", what, s ? s : "(unprintable)");
    JS_FreeCString(ctx, s);
    JS_FreeValue(ctx, err);
}

static void drain_jobs(JSRuntime *rt)
{
    JSContext *c;
    while (JS_ExecutePendingJob(rt, &c) != 0) {
    }
}

/* Runs code as the guest's capsa_run does: the body of an async function in the
 * global scope, then its jobs. Returns the settled value (the caller frees it), or
 * JS_EXCEPTION after printing why. */
static JSValue run_async(JSContext *ctx, const char *code, size_t len, const char *name)
{
    JSValue promise = JS_Eval(ctx, code, len, name, JS_EVAL_TYPE_GLOBAL | JS_EVAL_FLAG_ASYNC);
    if (JS_IsException(promise)) {
        print_exception(ctx, name);
        return JS_EXCEPTION;
    }
    drain_jobs(JS_GetRuntime(ctx));
    int state = JS_PromiseState(ctx, promise);
    JSValue v = JS_PromiseResult(ctx, promise);
    JS_FreeValue(ctx, promise);
    if (state != JS_PROMISE_FULFILLED) {
        const char *s = JS_ToCString(ctx, v);
        fprintf(stderr, "native_qjs: %s did not complete: %s\n", name, s ? s : "(pending)");
        JS_FreeCString(ctx, s);
        JS_FreeValue(ctx, v);
        return JS_EXCEPTION;
    }
    return v;
}

/* The global benchResult as JSON text, into out. */
static void read_check(JSContext *ctx, char *out, size_t size)
{
    JSValue global = JS_GetGlobalObject(ctx);
    JSValue v = JS_GetPropertyStr(ctx, global, "benchResult");
    JSValue json = JS_JSONStringify(ctx, v, JS_UNDEFINED, JS_UNDEFINED);
    const char *s = JS_IsException(json) ? NULL : JS_ToCString(ctx, json);
    snprintf(out, size, "%s", s && *s ? s : "-");
    JS_FreeCString(ctx, s);
    JS_FreeValue(ctx, json);
    JS_FreeValue(ctx, v);
    JS_FreeValue(ctx, global);
}

static int compute(int reps, int warmup, int nscripts, char **scripts)
{
    JSRuntime *rt = new_runtime();
    JSContext *ctx = JS_NewContext(rt);
    double *t = malloc(sizeof(*t) * (size_t)reps);
    if (!ctx || !t) {
        fprintf(stderr, "native_qjs: out of memory\n");
        return 1;
    }
    /* The guest's image holds its Intl (guest/intl.js, plain JS): the same file here,
       so that the scripts that format dates and numbers do the same work. */
    const char *intl = getenv("BENCH_INTL_JS");
    if (intl && *intl) {
        size_t len;
        char *code = bench_read_file(intl, &len);
        if (!code)
            return 1;
        JSValue v = JS_Eval(ctx, code, len, intl, JS_EVAL_TYPE_GLOBAL);
        free(code);
        if (JS_IsException(v)) {
            print_exception(ctx, intl);
            return 1;
        }
        JS_FreeValue(ctx, v);
    }
    for (int s = 0; s < nscripts; s++) {
        size_t len;
        char *code = bench_read_file(scripts[s], &len);
        if (!code)
            return 1;
        char name[64], check[256];
        bench_script_name(scripts[s], name, sizeof(name));
        for (int i = -warmup; i < reps; i++) {
            double t0 = bench_now_us();
            JSValue v = run_async(ctx, code, len, scripts[s]);
            double dt = bench_now_us() - t0;
            if (JS_IsException(v))
                return 1;
            JS_FreeValue(ctx, v);
            if (i >= 0)
                t[i] = dt / 1e3;
        }
        read_check(ctx, check, sizeof(check));
        bench_sort(t, (size_t)reps);
        printf("compute.%s ms %.3f %.3f %.3f %.3f %s\n", name, bench_median(t, (size_t)reps),
               t[0], t[reps - 1], bench_percentile(t, (size_t)reps, 99), check);
        fflush(stdout);
        free(code);
    }
    free(t);
    JS_FreeContext(ctx);
    JS_FreeRuntime(rt);
    return 0;
}

/* The host functions the guest gives its JS runtime (guest/main.c): output is
 * dropped here, the promise hooks are the same calls. */
static JSValue js_write(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)c, (void)this_val, (void)argc, (void)argv;
    return JS_UNDEFINED;
}

static JSValue js_promise_state(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    return JS_NewInt32(c, argc < 1 ? -1 : JS_PromiseState(c, argv[0]));
}

static JSValue js_promise_result(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    return argc < 1 ? JS_UNDEFINED : JS_PromiseResult(c, argv[0]);
}

static const JSCFunctionListEntry host_funcs[] = {
    JS_CFUNC_DEF("write", 2, js_write),
    JS_CFUNC_DEF("promiseState", 1, js_promise_state),
    JS_CFUNC_DEF("promiseResult", 1, js_promise_result),
};

/* One bare cycle: runtime, context, the global script 1+1, free. */
static int cycle_bare(void)
{
    static const char code[] = "1+1";
    JSRuntime *rt = JS_NewRuntime();
    JSContext *ctx = rt ? JS_NewContext(rt) : NULL;
    if (!ctx)
        return -1;
    JSValue v = JS_Eval(ctx, code, sizeof(code) - 1, "<input>", JS_EVAL_TYPE_GLOBAL);
    int32_t r = 0;
    int ok = !JS_IsException(v) && JS_ToInt32(ctx, &r, v) == 0 && r == 2;
    JS_FreeValue(ctx, v);
    JS_FreeContext(ctx);
    JS_FreeRuntime(rt);
    return ok ? 0 : -1;
}

/* One cycle doing what a sandbox does: the guest's runtime setup with the capsa JS
 * runtime, `return 1+1` as an async body, its value as JSON, free. */
static int cycle_same_work(const char *runtime_js, size_t runtime_len)
{
    static const char code[] = "return 1+1";
    JSRuntime *rt = new_runtime();
    JSContext *ctx = JS_NewContext(rt);
    if (!ctx)
        return -1;
    JSValue global = JS_GetGlobalObject(ctx);
    JSValue host = JS_NewObject(ctx);
    JS_SetPropertyFunctionList(ctx, host, host_funcs, sizeof(host_funcs) / sizeof(host_funcs[0]));
    JS_SetPropertyStr(ctx, global, "__capsa", host);
    JS_FreeValue(ctx, global);
    JSValue r = JS_Eval(ctx, runtime_js, runtime_len, "<capsa>", JS_EVAL_TYPE_GLOBAL);
    int ok = !JS_IsException(r);
    if (!ok)
        print_exception(ctx, "the capsa runtime");
    JS_FreeValue(ctx, r);
    if (ok) {
        JSValue v = run_async(ctx, code, sizeof(code) - 1, "<input>");
        JSValue json = JS_JSONStringify(ctx, v, JS_UNDEFINED, JS_UNDEFINED);
        const char *s = JS_IsException(json) ? NULL : JS_ToCString(ctx, json);
        ok = s && strcmp(s, "2") == 0;
        JS_FreeCString(ctx, s);
        JS_FreeValue(ctx, json);
        JS_FreeValue(ctx, v);
    }
    JS_FreeContext(ctx);
    JS_FreeRuntime(rt);
    return ok ? 0 : -1;
}

static int latency_series(const char *name, int n, const char *runtime_js, size_t runtime_len)
{
    int warmup = n / 10 + 1;
    double *t = malloc(sizeof(*t) * (size_t)n);
    if (!t)
        return 1;
    for (int i = -warmup; i < n; i++) {
        double t0 = bench_now_us();
        int rc = runtime_js ? cycle_same_work(runtime_js, runtime_len) : cycle_bare();
        double dt = bench_now_us() - t0;
        if (rc != 0) {
            fprintf(stderr, "native_qjs: %s cycle failed\n", name);
            return 1;
        }
        if (i >= 0)
            t[i] = dt;
    }
    bench_sort(t, (size_t)n);
    printf("%s us %.3f %.3f %.3f %.3f -\n", name, bench_median(t, (size_t)n), t[0], t[n - 1],
           bench_percentile(t, (size_t)n, 99));
    fflush(stdout);
    free(t);
    return 0;
}

/* The reference for a sandbox's memory: n runtimes, each with one context, alive at
 * once, measured as capsa_bench measures its sandboxes (per instance, idle and
 * after the script 1+1 in each). */
static int memory(int n)
{
    static const char code[] = "1+1";
    JSRuntime **rts = calloc((size_t)n, sizeof(*rts));
    JSContext **ctxs = calloc((size_t)n, sizeof(*ctxs));
    if (!rts || !ctxs)
        return 1;
    double rss0, priv0, rss1, priv1, rss2, priv2;
    if (bench_memory_kib(&rss0, &priv0) != 0)
        return 1;
    int count = 0;
    for (; count < n; count++) {
        rts[count] = JS_NewRuntime();
        ctxs[count] = rts[count] ? JS_NewContext(rts[count]) : NULL;
        if (!ctxs[count]) {
            fprintf(stderr, "native_qjs: runtime %d: out of memory\n", count + 1);
            if (rts[count])
                JS_FreeRuntime(rts[count]);
            break;
        }
        JS_SetMemoryLimit(rts[count], GUEST_MEMORY_LIMIT);
        JS_SetMaxStackSize(rts[count], GUEST_STACK_LIMIT);
    }
    if (bench_memory_kib(&rss1, &priv1) != 0)
        return 1;
    for (int i = 0; i < count; i++) {
        JSValue v = JS_Eval(ctxs[i], code, sizeof(code) - 1, "<input>", JS_EVAL_TYPE_GLOBAL);
        int32_t r = 0;
        int ok = !JS_IsException(v) && JS_ToInt32(ctxs[i], &r, v) == 0 && r == 2;
        JS_FreeValue(ctxs[i], v);
        if (!ok) {
            fprintf(stderr, "native_qjs: 1+1 failed in runtime %d\n", i + 1);
            return 1;
        }
    }
    if (bench_memory_kib(&rss2, &priv2) != 0)
        return 1;
    bench_print_per_instance("memory.idle_private", priv0, priv1, count);
    bench_print_per_instance("memory.idle_rss", rss0, rss1, count);
    bench_print_per_instance("memory.run_private", priv0, priv2, count);
    bench_print_per_instance("memory.run_rss", rss0, rss2, count);
    printf("memory.count n %d %d %d %d %d\n", count, count, count, count, n);
    fflush(stdout);
    for (int i = 0; i < count; i++) {
        JS_FreeContext(ctxs[i]);
        JS_FreeRuntime(rts[i]);
    }
    free(ctxs);
    free(rts);
    return 0;
}

int main(int argc, char **argv)
{
    if (bench_clock_from_env() != 0)
        return 2;
    if (argc >= 5 && strcmp(argv[1], "compute") == 0)
        return compute(bench_count(argv[2], 7), atoi(argv[3]), argc - 4, argv + 4);
    if (argc >= 3 && strcmp(argv[1], "latency") == 0) {
        int n = bench_count(argv[2], 1000);
        if (latency_series("latency.bare", n, NULL, 0) != 0)
            return 1;
        if (argc >= 4) {
            size_t len;
            char *js = bench_read_file(argv[3], &len);
            if (!js || latency_series("latency.same_work", n, js, len) != 0)
                return 1;
            free(js);
        }
        return 0;
    }
    if (argc >= 3 && strcmp(argv[1], "memory") == 0)
        return memory(bench_count(argv[2], 1000));
    fprintf(stderr, "usage: native_qjs compute REPS WARMUP SCRIPT...\n"
                    "       native_qjs latency N [RUNTIME_JS]\n"
                    "       native_qjs memory N\n");
    return 2;
}
