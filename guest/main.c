/* The guest's exports (guest/abi.h), the top of the guest: one QuickJS runtime
 * and context per instance with the JS runtime's files evaluated on it, a run
 * that evaluates code as the body of an async function and reports its outcome
 * (value, error parts, unhandled rejections) to the host, and the shell's entry.
 * Also __capsa's natives (console output, promise state). Built as a wasm32-wasi
 * reactor; calls go down to loop.c, tools.c, bridge.c, fs.c and web.c. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "quickjs.h"
#include "abi.h"
#include "bridge.h"
#include "fs.h"
#include "loop.h"
#include "node.h"
#include "sqlite.h"
#include "tools.h"
#include "web.h"
#include "runtime_js.h" /* generated from the guest's .js files: capsa_js_files[] */

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
/* web.js's completion value: also its Node-style error helpers, for buffer.js and
 * fs.js. */
static JSValue web_api;
/* buffer.js's completion value: Buffer and the string encodings, for node.js and
 * fs.js. */
static JSValue buffer_api;
/* node.js's completion value: the Node modules and path, for fs.js. */
static JSValue node_api;
/* sqlite.js's completion value (its modules), for fs.js. */
static JSValue sqlite_api;

/* The run in progress: its promise, kept between capsa_run and the capsa_continue
 * calls that resume it after the host delivered tool results. */
static JSValue run_promise;
static int run_active;

/* The run's value as it was when the script returned, taken by a reaction to the
 * run's promise (see capture_value): its JSON text (undefined for none), or
 * what JSON.stringify threw. run_seq numbers the runs, so that the promise of an
 * earlier run that settles late cannot set a later run's value. */
enum { VALUE_NONE, VALUE_JSON, VALUE_THREW };
static JSValue run_value;
static int run_value_state;
static uint32_t run_seq;
/* Promise.prototype.then as the engine made it, before any script could replace it. */
static JSValue promise_then;

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

/* The "Name: message" line the engine puts first in an error's stack, made
 * from the error's name and message as V8 makes it: caller frees it with
 * free(), NULL when either cannot be turned into text. */
static char *error_header(JSValueConst err)
{
    static const char *const props[2] = { "name", "message" };
    static const char *const defaults[2] = { "Error", "" };
    const char *part[2] = { NULL, NULL };
    char *header = NULL;
    for (int i = 0; i < 2; i++) {
        JSValue v = JS_GetPropertyStr(ctx, err, props[i]);
        int undefined = JS_IsUndefined(v);
        part[i] = undefined ? NULL : JS_ToCString(ctx, v);
        JS_FreeValue(ctx, v);
        if (!undefined && !part[i])
            goto done;
    }
    const char *name = part[0] ? part[0] : defaults[0];
    const char *message = part[1] ? part[1] : defaults[1];
    size_t len = strlen(name) + strlen(message) + 3;
    header = malloc(len);
    if (header) {
        if (*name && *message)
            snprintf(header, len, "%s: %s", name, message);
        else
            snprintf(header, len, "%s", *name ? name : message);
    }
 done:
    JS_FreeValue(ctx, JS_GetException(ctx));
    JS_FreeCString(ctx, part[0]);
    JS_FreeCString(ctx, part[1]);
    return header;
}

/* Reports an error's stack without its "Name: message" line (the result gives
 * them apart): the error's own, or the one it had when the stack was written,
 * before its first frame. A stack with nothing else is not reported. */
static void report_frames(JSValueConst err, JSValueConst stack)
{
    char *header = error_header(err);
    size_t len;
    const char *s = JS_ToCStringLen(ctx, &len, stack);
    if (!s) {
        JS_FreeValue(ctx, JS_GetException(ctx));
        free(header);
        return;
    }
    size_t skip = header ? strlen(header) : 0;
    const char *frame = strstr(s, "\n    at ");
    if (!header || strncmp(s, header, skip) != 0 || (s[skip] != '\n' && s[skip] != '\0')) {
        /* an older "Name: message": the name or message changed since */
        skip = strncmp(s, "    at ", 7) != 0 && frame ? (size_t)(frame - s) : len + 1;
    }
    if (skip <= len) {
        /* the frames, each line ended as the result has always given them */
        size_t n = s[skip] == '\n' ? len - skip - 1 : 0;
        char *frames = n > 0 ? malloc(n + 1) : NULL;
        if (frames) {
            memcpy(frames, s + skip + 1, n);
            frames[n] = '\n';
            JSValue v = JS_NewStringLen(ctx, frames, n + 1);
            if (!JS_IsException(v))
                report_stack(v);
            else
                JS_FreeValue(ctx, JS_GetException(ctx));
            JS_FreeValue(ctx, v);
            free(frames);
        }
    } else {
        report_stack(stack);
    }
    JS_FreeCString(ctx, s);
    free(header);
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
        { CAPSA_RESULT_ERROR_CODE, "code" },
    };
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        JSValue v = JS_GetPropertyStr(ctx, err, parts[i].prop);
        if (JS_IsException(v))
            JS_FreeValue(ctx, JS_GetException(ctx));
        else if (parts[i].kind == CAPSA_RESULT_ERROR_STACK && JS_IsString(v))
            report_frames(err, v);
        else if (parts[i].kind == CAPSA_RESULT_ERROR_CODE && JS_IsString(v))
            report_js_string(parts[i].kind, v); /* Node's and the tools' codes are strings */
        else if (parts[i].kind < CAPSA_RESULT_ERROR_STACK && !JS_IsUndefined(v))
            report_js_string(parts[i].kind, v); /* an error made out of memory has no stack */
        JS_FreeValue(ctx, v);
    }
}

/* Writes s[0..len) to fd, as far as it goes. */
static void write_all(int fd, const char *s, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, s, len);
        if (n <= 0)
            return;
        s += n;
        len -= (size_t)n;
    }
}

/* __capsa.write(fd, string): the runtime's only way out, to stdout or stderr, or
 * to the shell's streams while a shell command runs JS (bridge.c). */
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
    sh_stream *to = capsa_bridge_console(fd);
    if (to)
        sh_write(to, s, len);
    else
        write_all(fd, s, len);
    JS_FreeCString(c, s);
    return JS_UNDEFINED;
}

/* __capsa.promiseState(p): 0 pending, 1 fulfilled, 2 rejected, -1 not a promise. */
static JSValue js_promise_state(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    return JS_NewInt32(c, argc < 1 ? -1 : JS_PromiseState(c, argv[0]));
}

/* __capsa.iteratorItems(it): [items, isEntries] for a Map or Set iterator,
 * the items it has still to give (keys and values in turn when isEntries),
 * without advancing it; undefined for anything else. */
static JSValue js_iterator_items(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    int is_entries = 0;
    JSValue items = argc < 1 ? JS_UNDEFINED : JS_GetMapIteratorItems(c, argv[0], &is_entries);
    if (JS_IsException(items) || JS_IsUndefined(items))
        return items;
    JSValue r = JS_NewArray(c);
    if (JS_IsException(r)) {
        JS_FreeValue(c, items);
        return r;
    }
    /* JS_SetPropertyUint32 takes the value, also when it fails */
    if (JS_SetPropertyUint32(c, r, 0, items) < 0 ||
        JS_SetPropertyUint32(c, r, 1, JS_NewBool(c, is_entries)) < 0) {
        JS_FreeValue(c, r);
        return JS_EXCEPTION;
    }
    return r;
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
    JS_CFUNC_DEF("iteratorItems", 1, js_iterator_items),
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

/* Writes prefix, what the runtime's inspect() prints for v, and a newline to
 * stderr. */
static void write_inspected(const char *prefix, JSValueConst v)
{
    JSValue inspect = JS_GetPropertyStr(ctx, runtime_api, "inspect");
    JSValue text = JS_Call(ctx, inspect, JS_UNDEFINED, 1, &v);
    size_t len;
    const char *s = JS_IsException(text) ? NULL : JS_ToCStringLen(ctx, &len, text);
    write_all(2, prefix, strlen(prefix));
    if (s) {
        write_all(2, s, len);
        JS_FreeCString(ctx, s);
    } else {
        JS_FreeValue(ctx, JS_GetException(ctx));
        write_all(2, unprintable, sizeof(unprintable) - 1);
    }
    write_all(2, "\n", 1);
    JS_FreeValue(ctx, text);
    JS_FreeValue(ctx, inspect);
}

/* Writes every rejection still unhandled at the end of a run to stderr, except
 * the run's own promise (its rejection is the run's error). */
static void report_unhandled(JSValueConst run_promise)
{
    int exited = capsa_loop_exited();
    for (int i = 0; i < n_unhandled; i++) {
        if (!exited && JS_VALUE_GET_PTR(unhandled[i].promise) != JS_VALUE_GET_PTR(run_promise) &&
            !capsa_loop_is_exit(unhandled[i].reason))
            write_inspected("Uncaught (in promise) ", unhandled[i].reason);
        JS_FreeValue(ctx, unhandled[i].promise);
        JS_FreeValue(ctx, unhandled[i].reason);
    }
    if (n_unhandled_dropped && !exited) {
        char msg[96];
        int len = snprintf(msg, sizeof(msg), "... and %d more unhandled rejections\n",
                           n_unhandled_dropped);
        write_all(2, msg, (size_t)len);
    }
    n_unhandled = n_unhandled_dropped = 0;
}

/* The host object a file of the JS runtime captures while it is evaluated (and
 * deletes, unless delete_after says that this file does it): its natives, and
 * the exports of the files before it that it uses. */
typedef struct js_host {
    const char *file, *global;
    void (*add_natives)(JSContext *ctx, JSValueConst obj);
    int host_funcs;   /* __capsa's natives too (write() for messages, promise state) */
    int web, buffer, node; /* web.js's, buffer.js's and node.js's exports */
    int delete_after;
    int sqlite;       /* sqlite.js's exports */
} js_host;

static const js_host js_hosts[] = {
    { "web.js", "__capsaWeb", capsa_web_add_natives, 1, 0, 0, 0, 1, 0 },
    { "buffer.js", "__capsaBuffer", NULL, 1, 1, 0, 0, 0, 0 },
    { "node.js", "__capsaNode", capsa_node_add_natives, 1, 1, 1, 0, 0, 0 },
    { "sqlite.js", "__capsaSqlite", capsa_sqlite_add_natives, 0, 0, 1, 0, 0, 0 },
    { "fs.js", "__capsaFs", capsa_fs_add_natives, 0, 1, 1, 1, 0, 1 },
    { "tools.js", "__capsaTools", capsa_tools_add_natives, 0, 0, 0, 0, 0, 0 },
};

/* Defines h's host object as a global; every one has runtime.js's exports
 * (inspect, format) so that its messages print values as the console does. */
static void add_host_object(const js_host *h)
{
    JSValue global = JS_GetGlobalObject(ctx);
    JSValue obj = JS_NewObject(ctx);
    if (h->host_funcs)
        JS_SetPropertyFunctionList(ctx, obj, host_funcs, sizeof(host_funcs) / sizeof(host_funcs[0]));
    if (h->add_natives)
        h->add_natives(ctx, obj);
    JS_SetPropertyStr(ctx, obj, "runtime", JS_DupValue(ctx, runtime_api));
    if (h->web)
        JS_SetPropertyStr(ctx, obj, "web", JS_DupValue(ctx, web_api));
    if (h->buffer)
        JS_SetPropertyStr(ctx, obj, "buffer", JS_DupValue(ctx, buffer_api));
    if (h->node)
        JS_SetPropertyStr(ctx, obj, "node", JS_DupValue(ctx, node_api));
    if (h->sqlite)
        JS_SetPropertyStr(ctx, obj, "sqlite", JS_DupValue(ctx, sqlite_api));
    JS_SetPropertyStr(ctx, global, h->global, obj);
    JS_FreeValue(ctx, global);
}

/* Creates the runtime and context and evaluates the JS runtime. The host runs
 * this once and keeps the memory that results as the image every sandbox starts
 * from. Returns 0, or CAPSA_GUEST_NOMEM / CAPSA_GUEST_THREW (reported). */
CAPSA_EXPORT("capsa_init") int32_t capsa_init(void)
{
    runtime_api = web_api = buffer_api = node_api = sqlite_api = run_promise = JS_UNDEFINED;
    run_value = promise_then = JS_UNDEFINED;
    rt = JS_NewRuntime();
    if (!rt)
        return CAPSA_GUEST_NOMEM;
    JS_SetMaxStackSize(rt, GUEST_STACK_LIMIT);
    JS_SetHostPromiseRejectionTracker(rt, track_rejection, NULL);
    ctx = JS_NewContext(rt);
    if (!ctx)
        return CAPSA_GUEST_NOMEM;

    JSValue global = JS_GetGlobalObject(ctx);
    JSValue promise_ctor = JS_GetPropertyStr(ctx, global, "Promise");
    JSValue promise_proto = JS_GetPropertyStr(ctx, promise_ctor, "prototype");
    promise_then = JS_GetPropertyStr(ctx, promise_proto, "then");
    JS_FreeValue(ctx, promise_proto);
    JS_FreeValue(ctx, promise_ctor);
    JSValue host = JS_NewObject(ctx);
    JS_SetPropertyFunctionList(ctx, host, host_funcs,
                               sizeof(host_funcs) / sizeof(host_funcs[0]));
    JS_SetPropertyStr(ctx, global, "__capsa", host);
    JS_FreeValue(ctx, global);

    JSValue tools_api = JS_UNDEFINED;
    for (size_t i = 0; i < N_JS_FILES; i++) {
        const struct capsa_js_file *f = &capsa_js_files[i];
        const js_host *h = NULL;
        for (size_t k = 0; k < sizeof(js_hosts) / sizeof(js_hosts[0]); k++)
            if (strcmp(f->name, js_hosts[k].file) == 0)
                h = &js_hosts[k];
        if (h)
            add_host_object(h);
        JSValue r = JS_Eval(ctx, (const char *)f->data, f->len, f->name, JS_EVAL_TYPE_GLOBAL);
        if (h && h->delete_after) {
            global = JS_GetGlobalObject(ctx);
            JSAtom name = JS_NewAtom(ctx, h->global);
            JS_DeleteProperty(ctx, global, name, 0);
            JS_FreeAtom(ctx, name);
            JS_FreeValue(ctx, global);
        }
        if (!JS_IsException(r) && strcmp(f->name, "fs.js") == 0 && capsa_fs_init(ctx, r) < 0) {
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
        else if (strcmp(f->name, "buffer.js") == 0)
            buffer_api = r;
        else if (strcmp(f->name, "node.js") == 0)
            node_api = r;
        else if (strcmp(f->name, "sqlite.js") == 0)
            sqlite_api = r;
        else if (strcmp(f->name, "web.js") == 0) {
            web_api = r;
            if (capsa_loop_init(rt, ctx, r) < 0)
                return CAPSA_GUEST_NOMEM;
        } else if (strcmp(f->name, "tools.js") == 0)
            tools_api = r;
    }
    capsa_tools_init(ctx, tools_api);
    if (capsa_bridge_init(ctx, runtime_api, tools_api) < 0) {
        JSValue err = JS_GetException(ctx);
        report_error(err);
        JS_FreeValue(ctx, err);
        return CAPSA_GUEST_THREW;
    }
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
CAPSA_EXPORT("capsa_configure") int32_t capsa_configure(uint32_t memory_limit, uint32_t seed_lo,
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

CAPSA_EXPORT("capsa_alloc") void *capsa_alloc(uint32_t size)
{
    return malloc(size);
}

CAPSA_EXPORT("capsa_dealloc") void capsa_dealloc(void *p)
{
    free(p);
}


/* Takes the run's value v as JSON now: what it is when the script returned, even
 * if a timer changes the object later. */
static void capture_value(JSValueConst v)
{
    JS_FreeValue(ctx, run_value);
    run_value = JS_UNDEFINED;
    run_value_state = VALUE_JSON;
    if (JS_IsUndefined(v))
        return;
    JSValue json = JS_JSONStringify(ctx, v, JS_UNDEFINED, JS_UNDEFINED);
    if (JS_IsException(json)) {
        run_value = JS_GetException(ctx);
        run_value_state = VALUE_THREW;
    } else {
        run_value = json; /* undefined for a function or a symbol: no value */
    }
}

/* The reaction to the run's promise: data[0] is the run's number; magic 0 when
 * it was fulfilled (argv[0] is the value), 1 when rejected (its reason is the
 * run's error, read at the end; handling it here only keeps it from being
 * reported as unhandled). A value JSON cannot hold ends the run at once with
 * JSON.stringify's error, as the script's own error would: timers still pending
 * never fire. */
static JSValue js_capture_value(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv,
                                int magic, JSValue *data)
{
    (void)this_val;
    uint32_t seq = 0;
    if (JS_ToUint32(c, &seq, data[0]) != 0 || seq != run_seq || magic ||
        run_value_state != VALUE_NONE)
        return JS_UNDEFINED;
    capture_value(argc > 0 ? argv[0] : JS_UNDEFINED);
    if (run_value_state == VALUE_THREW)
        capsa_loop_set_uncaught(run_value);
    return JS_UNDEFINED;
}

/* Starts run number run_seq: its value is taken as soon as promise settles
 * (the reaction runs before any timer that comes later, as Node's
 * `main().then(console.log)` logs it). If the reaction cannot be attached (out
 * of memory), the value is taken at the end of the run instead. */
static void watch_run_value(JSValueConst promise)
{
    JS_FreeValue(ctx, run_value);
    run_value = JS_UNDEFINED;
    run_value_state = VALUE_NONE;
    run_seq++;
    JSValue seq = JS_NewUint32(ctx, run_seq);
    JSValue fns[2] = { JS_NewCFunctionData(ctx, js_capture_value, 1, 0, 1, &seq),
                       JS_NewCFunctionData(ctx, js_capture_value, 1, 1, 1, &seq) };
    JSValue r = JS_IsFunction(ctx, promise_then) && !JS_IsException(fns[0]) && !JS_IsException(fns[1])
                    ? JS_Call(ctx, promise_then, promise, 2, (JSValueConst *)fns)
                    : JS_EXCEPTION;
    if (JS_IsException(r))
        JS_FreeValue(ctx, JS_GetException(ctx));
    JS_FreeValue(ctx, r);
    JS_FreeValue(ctx, fns[0]);
    JS_FreeValue(ctx, fns[1]);
}

/* Reports the run's exit code, when the script gave one. */
static void report_exit_code(void)
{
    int code = capsa_loop_exit_code();
    if (code < 0)
        return;
    char num[8];
    int n = snprintf(num, sizeof(num), "%d", code & 255);
    report(CAPSA_RESULT_EXIT_CODE, num, (size_t)n);
}

/* Reports the outcome of the run: the exit code when it called process.exit(),
 * its uncaught error if a callback threw, else the settled value of its promise:
 * JSON of a fulfilled value (nothing for undefined) and the exit code
 * process.exitCode set, or the error of a rejection. */
static int32_t report_outcome(JSValueConst promise)
{
    JSValue uncaught;
    if (capsa_loop_exited()) {
        if (capsa_loop_take_uncaught(&uncaught))
            JS_FreeValue(ctx, uncaught);
        if (capsa_loop_exit_code() < 0)
            capsa_loop_set_exit_code(0);
        report_exit_code();
        return CAPSA_GUEST_OK;
    }
    if (capsa_loop_take_uncaught(&uncaught)) {
        report_error(uncaught);
        JS_FreeValue(ctx, uncaught);
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
    } else {
        if (run_value_state == VALUE_NONE)
            capture_value(v);
        if (run_value_state == VALUE_THREW) {
            report_error(run_value);
            status = CAPSA_GUEST_THREW;
        } else if (!JS_IsUndefined(run_value)) {
            report_js_string(CAPSA_RESULT_VALUE, run_value);
        }
    }
    JS_FreeValue(ctx, run_value);
    run_value = JS_UNDEFINED;
    run_value_state = VALUE_NONE;
    JS_FreeValue(ctx, v);
    if (status == CAPSA_GUEST_OK)
        report_exit_code();
    return status;
}

/* Runs the run's event loop until it is over or waits for tool results; when over,
 * reports the outcome and forgets the run. */
static int32_t run_step(void)
{
    if (capsa_loop_run(run_promise) == CAPSA_GUEST_PENDING)
        return CAPSA_GUEST_PENDING;
    report_unhandled(run_promise);
    int32_t status = report_outcome(run_promise);
    JS_FreeValue(ctx, run_promise);
    run_promise = JS_UNDEFINED;
    run_active = 0;
    return status;
}

/* The path a run's script is taken to have: /workspace/ and the last part of
 * filename. A js_malloc'd string, or NULL (exception pending). */
static char *script_path(const char *filename)
{
    const char *base = strrchr(filename, '/');
    base = base && base[1] ? base + 1 : filename;
    size_t len = strlen(base);
    char *path = js_malloc(ctx, len + sizeof("/workspace/"));
    if (path) {
        memcpy(path, "/workspace/", sizeof("/workspace/") - 1);
        memcpy(path + sizeof("/workspace/") - 1, base, len + 1);
    }
    return path;
}

/* Whether the code may be an ES module: it names import or export at all. */
static int may_be_module(const char *code)
{
    return strstr(code, "import") || strstr(code, "export");
}

/* Compiles the run's code: an ES module when filename ends in ".mjs", or when it
 * is no async function body but parses as a module; else the body of an async
 * function in the global scope. The function to evaluate, or JS_EXCEPTION. */
static JSValue compile_run(const char *code, uint32_t len, const char *filename,
                           const char *path)
{
    size_t n = strlen(filename);
    int parsed = 0;
    if (n >= 4 && strcmp(filename + n - 4, ".mjs") == 0)
        return capsa_fs_compile_main(ctx, code, len, path, &parsed);
    JSValue fn = JS_Eval(ctx, code, len, filename,
                         JS_EVAL_TYPE_GLOBAL | JS_EVAL_FLAG_ASYNC | JS_EVAL_FLAG_COMPILE_ONLY);
    if (!JS_IsException(fn) || !may_be_module(code))
        return fn;
    JSValue script_error = JS_GetException(ctx);
    if (!JS_IsError(ctx, script_error)) {
        JS_Throw(ctx, script_error);
        return JS_EXCEPTION;
    }
    JSValue module = capsa_fs_compile_main(ctx, code, len, path, &parsed);
    if (JS_IsException(module) && !parsed) {
        /* Not a module either: the script's own syntax error. */
        JS_FreeValue(ctx, JS_GetException(ctx));
        JS_Throw(ctx, script_error);
        return JS_EXCEPTION;
    }
    JS_FreeValue(ctx, script_error);
    return module;
}

/* Evaluates code[0..len) (code[len] must be NUL) as the body of an async
 * function in the global scope (or as an ES module, see compile_run), runs its
 * event loop and reports the outcome, or returns CAPSA_GUEST_PENDING while tool
 * calls are pending (capsa_continue goes on). */
CAPSA_EXPORT("capsa_run") int32_t capsa_run(const char *code, uint32_t len,
                                      const char *filename)
{
    if (!ctx || !code || code[len] != '\0' || !filename || run_active)
        return CAPSA_GUEST_BADARG;
    capsa_tools_start_run();
    capsa_loop_start_run();
    char *path = script_path(filename);
    if (!path || capsa_node_set_script(path) < 0) {
        js_free(ctx, path);
        return CAPSA_GUEST_NOMEM;
    }
    JSValue fn = compile_run(code, len, filename, path);
    js_free(ctx, path);
    JSValue promise = JS_IsException(fn) ? JS_EXCEPTION : JS_EvalFunction(ctx, fn);
    if (JS_IsException(promise) && capsa_loop_exited()) {
        /* process.exit() while the module's imports were evaluated */
        JS_FreeValue(ctx, JS_GetException(ctx));
        promise = JS_NewPendingPromise(ctx);
    }
    if (JS_IsException(promise)) {
        JSValue err = JS_GetException(ctx);
        report_error(err);
        JS_FreeValue(ctx, err);
        return CAPSA_GUEST_THREW;
    }
    run_promise = promise;
    run_active = 1;
    watch_run_value(promise);
    return run_step();
}

/* Runs the shell command line cmd[0..len) (cmd[len] must be NUL) with the
 * standard input input[0..input_len) (input[input_len] NUL), or all of fd 0 when
 * input_len is CAPSA_GUEST_SHELL_STDIN, for the host's capsa_shell, and reports its exit status (plus 256 when it ran `exit`) as the
 * value. What the command line's JavaScript left behind (timers, calls that
 * will not be awaited) is dropped, as at the end of a run. */
CAPSA_EXPORT("capsa_shell") int32_t capsa_shell(const char *cmd, uint32_t len, const char *input,
                                          uint32_t input_len)
{
    int from_stdin = input_len == CAPSA_GUEST_SHELL_STDIN;
    if (!ctx || !cmd || cmd[len] != '\0' || run_active ||
        (!from_stdin && (!input || input[input_len] != '\0')))
        return CAPSA_GUEST_BADARG;
    capsa_tools_start_run();
    capsa_loop_start_run();
    int status;
    uint8_t *in = NULL;
    size_t in_len = 0;
    int err = from_stdin ? capsa_fs_read_stdin(NULL, 1, &in, &in_len) : 0;
    if (err) {
        /* As a shell reports a redirection it cannot make: the line does not run. */
        char msg[160];
        int n = snprintf(msg, sizeof(msg), "sh: standard input: %s\n",
                         err == EFBIG ? "over the limit of what the sandbox may read"
                                      : strerror(err));
        if (write(2, msg, (size_t)n) < 0)
            errno = 0;
        status = 1;
    } else {
        status = capsa_bridge_shell(cmd, from_stdin ? (const char *)in : input,
                                    from_stdin ? in_len : input_len);
    }
    free(in);
    capsa_loop_cancel();
    report_unhandled(JS_UNDEFINED);
    JSValue uncaught;
    if (capsa_loop_take_uncaught(&uncaught)) {
        /* A timer's callback threw while the shell waited: said on stderr, as
           the shell's commands say their errors. */
        write_inspected("Uncaught ", uncaught);
        JS_FreeValue(ctx, uncaught);
    }
    char num[16];
    int n = snprintf(num, sizeof(num), "%d", status);
    report(CAPSA_RESULT_VALUE, num, (size_t)n);
    return CAPSA_GUEST_OK;
}

/* Resumes a run that returned CAPSA_GUEST_PENDING. */
CAPSA_EXPORT("capsa_continue") int32_t capsa_continue(void)
{
    if (!ctx || !run_active)
        return CAPSA_GUEST_BADARG;
    return run_step();
}
