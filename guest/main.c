/* The guest's entry points: one QuickJS runtime and context per instance, the
 * capsa JS runtime on top, and a run entry that evaluates code as the body of an
 * async function. Built as a wasm32-wasi reactor; the host calls the exports. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "quickjs.h"
#include "abi.h"
#include "web.h"
#include "fs.h"
#include "runtime_js.h" /* generated from the guest's .js files: capsa_js_files[] */

#define EXPORT(name) __attribute__((export_name(name)))
#define IMPORT(name) __attribute__((import_module("capsa"), import_name(name)))

IMPORT("result") void capsa_host_result(uint32_t kind, const char *data, uint32_t len);

/* The shadow stack is placed first in linear memory (wasm-ld --stack-first) and
 * sized at link time; QuickJS's own limit sits below it so that deep recursion
 * becomes a catchable error instead of running off the stack. */
#define GUEST_STACK_LIMIT (896 * 1024)

static JSRuntime *rt;
static JSContext *ctx;
/* The completion value of each file of the JS runtime, in capsa_js_files order;
 * runtime.js gives { formatError, inspect, format }. */
#define N_JS_FILES (sizeof(capsa_js_files) / sizeof(capsa_js_files[0]))
static JSValue js_exports[N_JS_FILES];
static JSValue runtime_api;
/* web.js's exports: tick() runs the next timer or immediate callback and says
 * what comes next; cancel() drops every pending timer and immediate. */
static JSValue web_tick, web_cancel;
/* web.js's completion value: also its Node-style error helpers, for fs.js. */
static JSValue web_api;


/* The first exception of the run that nothing could catch (thrown by a timer,
 * immediate or queueMicrotask callback): it ends the run as its error, as it
 * ends a Node process. */
static JSValue uncaught;
static int has_uncaught;

/* Promises rejected while nothing handles them, reported at the end of a run the
 * way a browser console does: "Uncaught (in promise) ...". */
#define MAX_UNHANDLED 100
static struct { JSValue promise, reason; } unhandled[MAX_UNHANDLED];
static int n_unhandled, n_unhandled_dropped;

static void report(uint32_t kind, const char *s, size_t len)
{
    capsa_host_result(kind, s, (uint32_t)len);
}

/* Said of a value whose every way of turning into text throws. */
static const char unprintable[] = "[a value that cannot be printed]";

static void report_js_string(uint32_t kind, JSValueConst v)
{
    size_t len;
    const char *s = JS_ToCStringLen(ctx, &len, v);
    if (!s) {
        JS_FreeValue(ctx, JS_GetException(ctx));
        report(kind, unprintable, sizeof(unprintable) - 1);
        return;
    }
    report(kind, s, len);
    JS_FreeCString(ctx, s);
}

/* At most this many stack frames are reported; deep recursion makes thousands. */
#define MAX_STACK_FRAMES 50

/* Reports a stack, cut after MAX_STACK_FRAMES frames with a line that says so. */
static void report_stack(JSValueConst stack)
{
    size_t len;
    const char *s = JS_ToCStringLen(ctx, &len, stack);
    if (!s) {
        JS_FreeValue(ctx, JS_GetException(ctx));
        return;
    }
    size_t keep = len, frames = 0, more = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '\n')
            continue;
        frames++;
        if (frames == MAX_STACK_FRAMES)
            keep = i + 1;
        else if (frames > MAX_STACK_FRAMES)
            more++;
    }
    if (keep < len && len > 0 && s[len - 1] != '\n')
        more++;
    if (keep < len) {
        char tail[64];
        int n = snprintf(tail, sizeof(tail), "    ... %zu more frames\n", more);
        char *cut = malloc(keep + (size_t)n);
        if (cut) {
            memcpy(cut, s, keep);
            memcpy(cut + keep, tail, (size_t)n);
            report(CAPSA_RESULT_ERROR_STACK, cut, keep + (size_t)n);
            free(cut);
        } else {
            report(CAPSA_RESULT_ERROR_STACK, s, keep);
        }
    } else {
        report(CAPSA_RESULT_ERROR_STACK, s, len);
    }
    JS_FreeCString(ctx, s);
}

/* Reports what the runtime's inspect() prints for v, as the error message. */
static void report_inspected(JSValueConst v)
{
    JSValue inspect = JS_GetPropertyStr(ctx, runtime_api, "inspect");
    JSValue text = JS_Call(ctx, inspect, JS_UNDEFINED, 1, &v);
    if (JS_IsException(text)) {
        JS_FreeValue(ctx, JS_GetException(ctx));
        report_js_string(CAPSA_RESULT_ERROR_MESSAGE, v);
    } else {
        report_js_string(CAPSA_RESULT_ERROR_MESSAGE, text);
    }
    JS_FreeValue(ctx, text);
    JS_FreeValue(ctx, inspect);
}

/* Reports the parts of a thrown value. Anything but an Error (throw "x", throw
 * {code: 1}) has no name or stack: it is reported as "Uncaught" with the value
 * as message, inspected when it is an object. */
static void report_error(JSValueConst err)
{
    if (!JS_IsError(ctx, err)) {
        report(CAPSA_RESULT_ERROR_NAME, "Uncaught", 8);
        if (JS_IsObject(err) || JS_IsSymbol(err))
            report_inspected(err);
        else
            report_js_string(CAPSA_RESULT_ERROR_MESSAGE, err);
        return;
    }
    static const struct { uint32_t kind; const char *prop; } parts[] = {
        { CAPSA_RESULT_ERROR_NAME, "name" },
        { CAPSA_RESULT_ERROR_MESSAGE, "message" },
        { CAPSA_RESULT_ERROR_STACK, "stack" },
    };
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        JSValue v = JS_GetPropertyStr(ctx, err, parts[i].prop);
        if (JS_IsException(v))
            JS_FreeValue(ctx, JS_GetException(ctx));
        else if (parts[i].kind == CAPSA_RESULT_ERROR_STACK && JS_IsString(v))
            report_stack(v);
        else if (parts[i].kind != CAPSA_RESULT_ERROR_STACK && !JS_IsUndefined(v))
            report_js_string(parts[i].kind, v); /* an error made out of memory has no stack */
        JS_FreeValue(ctx, v);
    }
}

/* __capsa.write(fd, string): the runtime's only way out, to stdout or stderr. */
static JSValue js_write(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    int32_t fd;
    size_t len;
    (void)this_val;
    if (argc < 2 || JS_ToInt32(c, &fd, argv[0]) || (fd != 1 && fd != 2))
        return JS_ThrowTypeError(c, "write: bad file descriptor");
    const char *s = JS_ToCStringLen(c, &len, argv[1]);
    if (!s)
        return JS_EXCEPTION;
    const char *p = s;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n <= 0)
            break;
        p += n;
        len -= (size_t)n;
    }
    JS_FreeCString(c, s);
    return JS_UNDEFINED;
}

/* __capsa.promiseState(p): 0 pending, 1 fulfilled, 2 rejected, -1 not a promise. */
static JSValue js_promise_state(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    return JS_NewInt32(c, argc < 1 ? -1 : JS_PromiseState(c, argv[0]));
}

/* __capsa.promiseResult(p): the value or reason of a settled promise. */
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

static void track_rejection(JSContext *c, JSValueConst promise, JSValueConst reason,
                            JS_BOOL is_handled, void *opaque)
{
    (void)opaque;
    if (!is_handled) {
        if (n_unhandled == MAX_UNHANDLED) {
            n_unhandled_dropped++;
            return;
        }
        unhandled[n_unhandled].promise = JS_DupValue(c, promise);
        unhandled[n_unhandled].reason = JS_DupValue(c, reason);
        n_unhandled++;
        return;
    }
    for (int i = 0; i < n_unhandled; i++) {
        if (JS_VALUE_GET_PTR(unhandled[i].promise) == JS_VALUE_GET_PTR(promise)) {
            JS_FreeValue(c, unhandled[i].promise);
            JS_FreeValue(c, unhandled[i].reason);
            unhandled[i] = unhandled[--n_unhandled];
            return;
        }
    }
}

static void write_stderr(const char *s, size_t len)
{
    while (len > 0) {
        ssize_t n = write(2, s, len);
        if (n <= 0)
            return;
        s += n;
        len -= (size_t)n;
    }
}

/* Writes every rejection still unhandled at the end of a run to stderr, except
 * the run's own promise (its rejection is the run's error). */
static void report_unhandled(JSValueConst run_promise)
{
    JSValue inspect = JS_GetPropertyStr(ctx, runtime_api, "inspect");
    for (int i = 0; i < n_unhandled; i++) {
        if (JS_VALUE_GET_PTR(unhandled[i].promise) != JS_VALUE_GET_PTR(run_promise)) {
            JSValue text = JS_Call(ctx, inspect, JS_UNDEFINED, 1, &unhandled[i].reason);
            size_t len;
            const char *s = JS_IsException(text) ? NULL : JS_ToCStringLen(ctx, &len, text);
            write_stderr("Uncaught (in promise) ", 22);
            if (s) {
                write_stderr(s, len);
                JS_FreeCString(ctx, s);
            } else {
                JS_FreeValue(ctx, JS_GetException(ctx));
                write_stderr(unprintable, sizeof(unprintable) - 1);
            }
            write_stderr("\n", 1);
            JS_FreeValue(ctx, text);
        }
        JS_FreeValue(ctx, unhandled[i].promise);
        JS_FreeValue(ctx, unhandled[i].reason);
    }
    if (n_unhandled_dropped) {
        char msg[96];
        int len = snprintf(msg, sizeof(msg), "... and %d more unhandled rejections\n",
                           n_unhandled_dropped);
        write_stderr(msg, (size_t)len);
    }
    n_unhandled = n_unhandled_dropped = 0;
    JS_FreeValue(ctx, inspect);
}

/* Creates the runtime and context and evaluates the JS runtime. The host runs
 * this once and keeps the memory that results as the image every sandbox starts
 * from. Returns 0, or CAPSA_GUEST_NOMEM / CAPSA_GUEST_THREW (reported). */
EXPORT("capsa_init") int32_t capsa_init(void)
{
    runtime_api = web_api = web_tick = web_cancel = uncaught = JS_UNDEFINED;
    rt = JS_NewRuntime();
    if (!rt)
        return CAPSA_GUEST_NOMEM;
    JS_SetMaxStackSize(rt, GUEST_STACK_LIMIT);
    JS_SetHostPromiseRejectionTracker(rt, track_rejection, NULL);
    ctx = JS_NewContext(rt);
    if (!ctx)
        return CAPSA_GUEST_NOMEM;

    JSValue global = JS_GetGlobalObject(ctx);
    JSValue host = JS_NewObject(ctx);
    JS_SetPropertyFunctionList(ctx, host, host_funcs,
                               sizeof(host_funcs) / sizeof(host_funcs[0]));
    JS_SetPropertyStr(ctx, global, "__capsa", host);
    JS_FreeValue(ctx, global);

    for (size_t i = 0; i < N_JS_FILES; i++) {
        const struct capsa_js_file *f = &capsa_js_files[i];
        int is_web = strcmp(f->name, "web.js") == 0;
        int is_fs = strcmp(f->name, "fs.js") == 0;
        if (is_fs) {
            /* fs.js's natives (it deletes __capsaFs), and runtime.js's exports. */
            global = JS_GetGlobalObject(ctx);
            JSValue fs = JS_NewObject(ctx);
            capsa_fs_add_natives(ctx, fs);
            JS_SetPropertyStr(ctx, fs, "runtime", JS_DupValue(ctx, runtime_api));
            JS_SetPropertyStr(ctx, fs, "web", JS_DupValue(ctx, web_api));
            JS_SetPropertyStr(ctx, global, "__capsaFs", fs);
            JS_FreeValue(ctx, global);
        }
        if (is_web) {
            /* web.js's own natives, and runtime.js's exports (inspect, format)
               so that its messages print values as the console does. */
            global = JS_GetGlobalObject(ctx);
            JSValue web = JS_NewObject(ctx);
            JS_SetPropertyFunctionList(ctx, web, host_funcs,
                                       sizeof(host_funcs) / sizeof(host_funcs[0]));
            capsa_web_add_natives(ctx, web);
            JS_SetPropertyStr(ctx, web, "runtime", JS_DupValue(ctx, runtime_api));
            JS_SetPropertyStr(ctx, global, "__capsaWeb", web);
            JS_FreeValue(ctx, global);
        }
        JSValue r = JS_Eval(ctx, (const char *)f->data, f->len, f->name, JS_EVAL_TYPE_GLOBAL);
        if (is_web) {
            global = JS_GetGlobalObject(ctx);
            JSAtom name = JS_NewAtom(ctx, "__capsaWeb");
            JS_DeleteProperty(ctx, global, name, 0);
            JS_FreeAtom(ctx, name);
            JS_FreeValue(ctx, global);
        }
        if (!JS_IsException(r) && is_fs && capsa_fs_init(ctx, r) < 0) {
            JS_FreeValue(ctx, r);
            r = JS_EXCEPTION;
        }
        if (JS_IsException(r)) {
            JSValue err = JS_GetException(ctx);
            report_error(err);
            JS_FreeValue(ctx, err);
            return CAPSA_GUEST_THREW;
        }
        js_exports[i] = r;
        if (strcmp(f->name, "runtime.js") == 0)
            runtime_api = r;
        if (is_web) {
            web_api = r;
            web_tick = JS_GetPropertyStr(ctx, r, "tick");
            web_cancel = JS_GetPropertyStr(ctx, r, "cancel");
        }
    }
    if (JS_IsException(web_tick) || JS_IsException(web_cancel))
        return CAPSA_GUEST_NOMEM;
    /* The memory as it is now becomes every sandbox's image: collect the garbage
       of the setup first, and set the next collection well above what is live.
       Otherwise the first allocation of each run could start a collection that
       walks (and so copies, page by page) the whole heap of the image. */
    JS_RunGC(rt);
    JSMemoryUsage usage;
    JS_ComputeMemoryUsage(rt, &usage);
    JS_SetGCThreshold(rt, (size_t)usage.malloc_size + (size_t)usage.malloc_size / 2);
    return CAPSA_GUEST_OK;
}

/* Gives one sandbox made from the image its own settings: QuickJS's memory limit
 * (0: none), the seed of Math.random, the JS stack limit in bytes (0: the most the
 * shadow stack allows), and the time origin of performance.now(). */
EXPORT("capsa_configure") int32_t capsa_configure(uint32_t memory_limit, uint32_t seed_lo,
                                                  uint32_t seed_hi, uint32_t stack_limit)
{
    if (!ctx)
        return CAPSA_GUEST_BADARG;
    JS_SetMemoryLimit(rt, memory_limit ? memory_limit : (size_t)-1);
    /* The limit counts from the stack's top as the host enters the guest; it can
       only be lowered below what the shadow stack holds. */
    JS_SetMaxStackSize(rt, stack_limit && stack_limit < GUEST_STACK_LIMIT ? stack_limit
                                                                          : GUEST_STACK_LIMIT);
    JS_SetRandomSeed(ctx, (uint64_t)seed_hi << 32 | seed_lo);
    capsa_web_set_origin();
    return CAPSA_GUEST_OK;
}

EXPORT("capsa_alloc") void *capsa_alloc(uint32_t size)
{
    return malloc(size);
}

EXPORT("capsa_dealloc") void capsa_dealloc(void *p)
{
    free(p);
}

/* Keeps the first uncaught exception of the run (the pending one) and drops the
 * others. */
static void note_uncaught(void)
{
    JSValue err = JS_GetException(ctx);
    if (has_uncaught) {
        JS_FreeValue(ctx, err);
        return;
    }
    uncaught = err;
    has_uncaught = 1;
}

/* Runs every pending job (promise reactions, queueMicrotask callbacks) until none
 * is left. A job that throws is a queueMicrotask callback (promise jobs turn their
 * exceptions into rejections) or an allocation failure: the run's uncaught error. */
static void drain_jobs(void)
{
    JSContext *c;
    for (;;) {
        int r = JS_ExecutePendingJob(rt, &c);
        if (r == 0)
            break;
        if (r < 0)
            note_uncaught();
    }
}

/* Calls one of web.js's exported functions; its result, or JS_EXCEPTION with the
 * exception pending. */
static JSValue call_web(JSValueConst fn)
{
    return JS_IsFunction(ctx, fn) ? JS_Call(ctx, fn, JS_UNDEFINED, 0, NULL) : JS_UNDEFINED;
}

/* Sleeps until performance.now() reaches `ms`. wasi-libc turns this into a WASI
 * poll_oneoff on the monotonic clock, which the host never lets wait past the
 * run's deadline. */
static void sleep_until(double ms)
{
    double ns = ms * 1e6;
    uint64_t t = capsa_web_origin_ns() + (ns >= 1.8e19 ? (uint64_t)1.8e19 : (uint64_t)ns + 1);
    struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* The event loop of a run: microtasks until none is left, then the next timer
 * or immediate callback (web.js's tick() decides which, in Node's order), again
 * and again, sleeping while the next timer is not due. It ends when nothing more
 * can happen (no timer or immediate that keeps the loop alive), when a callback
 * throws (the run's error) or when the run's own promise is rejected (as an
 * uncaught error ends a Node process). Callbacks may still run after the run's
 * promise is fulfilled: the run waits for them, up to its time limit. What is
 * left then (timers that do not keep the loop alive) is cancelled, so no run
 * inherits another's timers. */
static void run_event_loop(JSValueConst run_promise)
{
    for (;;) {
        drain_jobs();
        if (has_uncaught || JS_PromiseState(ctx, run_promise) == JS_PROMISE_REJECTED)
            break;
        JSValue r = call_web(web_tick);
        if (JS_IsException(r)) {
            note_uncaught();
            continue;
        }
        double next = -1;
        if (JS_IsNumber(r))
            JS_ToFloat64(ctx, &next, r);
        JS_FreeValue(ctx, r);
        if (next < 0)
            break;
        if (next > 0)
            sleep_until(next);
    }
    /* The job queue is empty here: every way out of the loop follows drain_jobs. */
    JSValue r = call_web(web_cancel);
    if (JS_IsException(r))
        note_uncaught();
    JS_FreeValue(ctx, r);
}

/* Reports the outcome of the run: its uncaught error if a callback threw, else
 * the settled value of its promise: JSON of a fulfilled value (nothing for
 * undefined), or the error of a rejection. */
static int32_t report_outcome(JSValueConst promise)
{
    if (has_uncaught) {
        report_error(uncaught);
        JS_FreeValue(ctx, uncaught);
        uncaught = JS_UNDEFINED;
        has_uncaught = 0;
        return CAPSA_GUEST_THREW;
    }
    int state = JS_PromiseState(ctx, promise);
    if (state == JS_PROMISE_PENDING) {
        static const char msg[] = "the script's last await can never resume: "
                                  "it waits for a promise that nothing settles";
        report(CAPSA_RESULT_ERROR_NAME, "Error", 5);
        report(CAPSA_RESULT_ERROR_MESSAGE, msg, sizeof(msg) - 1);
        return CAPSA_GUEST_THREW;
    }
    JSValue v = JS_PromiseResult(ctx, promise);
    int32_t status = CAPSA_GUEST_OK;
    if (state == JS_PROMISE_REJECTED) {
        report_error(v);
        status = CAPSA_GUEST_THREW;
    } else if (!JS_IsUndefined(v)) {
        JSValue json = JS_JSONStringify(ctx, v, JS_UNDEFINED, JS_UNDEFINED);
        if (JS_IsException(json)) {
            JSValue err = JS_GetException(ctx);
            report_error(err);
            JS_FreeValue(ctx, err);
            status = CAPSA_GUEST_THREW;
        } else if (!JS_IsUndefined(json)) {
            report_js_string(CAPSA_RESULT_VALUE, json);
        }
        JS_FreeValue(ctx, json);
    }
    JS_FreeValue(ctx, v);
    return status;
}

/* Evaluates code[0..len) (code[len] must be NUL) as the body of an async
 * function in the global scope, runs its event loop and reports the outcome. */
EXPORT("capsa_run") int32_t capsa_run(const char *code, uint32_t len,
                                      const char *filename)
{
    if (!ctx || !code || code[len] != '\0' || !filename)
        return CAPSA_GUEST_BADARG;
    JSValue promise = JS_Eval(ctx, code, len, filename,
                              JS_EVAL_TYPE_GLOBAL | JS_EVAL_FLAG_ASYNC);
    if (JS_IsException(promise)) {
        JSValue err = JS_GetException(ctx);
        report_error(err);
        JS_FreeValue(ctx, err);
        return CAPSA_GUEST_THREW;
    }
    run_event_loop(promise);
    report_unhandled(promise);
    int32_t status = report_outcome(promise);
    JS_FreeValue(ctx, promise);
    return status;
}
