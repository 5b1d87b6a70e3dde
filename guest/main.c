/* The guest's entry points: one QuickJS runtime and context per instance, the
 * capsa JS runtime on top, and a run entry that evaluates code as the body of an
 * async function. Built as a wasm32-wasi reactor; the host calls the exports. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "quickjs.h"
#include "abi.h"
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

/* Promises rejected while nothing handles them, reported at the end of a run the
 * way a browser console does: "Uncaught (in promise) ...". */
#define MAX_UNHANDLED 100
static struct { JSValue promise, reason; } unhandled[MAX_UNHANDLED];
static int n_unhandled, n_unhandled_dropped;

static void report(uint32_t kind, const char *s, size_t len)
{
    capsa_host_result(kind, s, (uint32_t)len);
}

static void report_js_string(uint32_t kind, JSValueConst v)
{
    size_t len;
    const char *s = JS_ToCStringLen(ctx, &len, v);
    if (!s) {
        JS_FreeValue(ctx, JS_GetException(ctx));
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
        if (JS_IsObject(err))
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
            if (s) {
                write_stderr("Uncaught (in promise) ", 22);
                write_stderr(s, len);
                write_stderr("\n", 1);
                JS_FreeCString(ctx, s);
            } else {
                JS_FreeValue(ctx, JS_GetException(ctx));
            }
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
    runtime_api = JS_UNDEFINED;
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
        JSValue r = JS_Eval(ctx, (const char *)f->data, f->len, f->name, JS_EVAL_TYPE_GLOBAL);
        if (JS_IsException(r)) {
            JSValue err = JS_GetException(ctx);
            report_error(err);
            JS_FreeValue(ctx, err);
            return CAPSA_GUEST_THREW;
        }
        js_exports[i] = r;
        if (strcmp(f->name, "runtime.js") == 0)
            runtime_api = r;
    }
    return CAPSA_GUEST_OK;
}

/* Gives one sandbox made from the image its own settings: QuickJS's memory limit
 * (0: none) and the seed of Math.random. */
EXPORT("capsa_configure") int32_t capsa_configure(uint32_t memory_limit, uint32_t seed_lo,
                                                  uint32_t seed_hi)
{
    if (!ctx)
        return CAPSA_GUEST_BADARG;
    JS_SetMemoryLimit(rt, memory_limit ? memory_limit : (size_t)-1);
    JS_SetRandomSeed(ctx, (uint64_t)seed_hi << 32 | seed_lo);
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

/* Runs every pending job (promise reactions) until none is left. */
static void drain_jobs(void)
{
    JSContext *c;
    for (;;) {
        int r = JS_ExecutePendingJob(rt, &c);
        if (r == 0)
            break;
        if (r < 0) {
            /* An exception in a job that no promise catches: the job queue
               has already turned promise jobs' exceptions into rejections. */
            JS_FreeValue(ctx, JS_GetException(ctx));
        }
    }
}

/* Reports the settled value of the run: JSON of a fulfilled value (nothing for
 * undefined), or the error of a rejection. */
static int32_t report_outcome(JSValueConst promise)
{
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
 * function in the global scope, runs its jobs and reports the outcome. */
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
    drain_jobs();
    report_unhandled(promise);
    int32_t status = report_outcome(promise);
    JS_FreeValue(ctx, promise);
    return status;
}
