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
#include "bridge.h"
#include "runtime_js.h" /* generated from the guest's .js files: capsa_js_files[] */

#define EXPORT(name) __attribute__((export_name(name)))
#define IMPORT(name) __attribute__((import_module("capsa"), import_name(name)))

IMPORT("result") void capsa_host_result(uint32_t kind, const char *data, uint32_t len);
/* Tool calls: see guest/abi.h. */
IMPORT("tool_call") int32_t capsa_host_tool_call(const char *name, uint32_t name_len,
                                                 const char *args, uint32_t args_len);
IMPORT("tool_next") int32_t capsa_host_tool_next(capsa_tool_info *info);
IMPORT("tool_take") int32_t capsa_host_tool_take(uint32_t id, char *data, uint32_t len);
IMPORT("tools_generation") int32_t capsa_host_tools_generation(void);
IMPORT("tools_list") int32_t capsa_host_tools_list(char *data, uint32_t cap);
IMPORT("pending") void capsa_host_pending(uint64_t wake_ns);
IMPORT("tool_wait") int32_t capsa_host_tool_wait(uint64_t wake_ns);

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
/* web.js's completion value: also its Node-style error helpers, for buffer.js and
 * fs.js. */
static JSValue web_api;
/* buffer.js's completion value: Buffer and the string encodings, for fs.js. */
static JSValue buffer_api;
/* tools.js's exports: makeError(code, message, tool) makes a ToolError,
 * argError(tool, args) the TypeError of arguments that are not an object,
 * refresh(list) rebuilds `tools` and the flat functions from the host's registry. */
static JSValue tools_make_error, tools_arg_error, tools_refresh;
/* The calls in flight: each one's promise (settled with JS_SettlePromise) and
 * its tool's name. */
typedef struct tool_pending {
    uint32_t id;
    JSValue promise, name;
} tool_pending;
static tool_pending *tool_calls;
static int n_tool_calls, cap_tool_calls;
/* Calls the host took and whose outcome has not been delivered yet: while there
 * are any, the run is not over. */
static int tools_pending;
/* The id of the last call started (the host's ids increase). */
static uint32_t last_call_id;
/* The registry generation `tools` was built from (the host's start at 1). */
static int32_t tools_seen;

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

/* Where the console writes while the shell runs JS (capsa_guest_redirect). */
static sh_stream *redirect_out, *redirect_err;

void capsa_guest_redirect(sh_stream *out, sh_stream *err)
{
    redirect_out = out;
    redirect_err = err;
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
    sh_stream *to = fd == 1 ? redirect_out : redirect_err;
    if (to) {
        sh_write(to, s, len);
        JS_FreeCString(c, s);
        return JS_UNDEFINED;
    }
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

/* A promise rejected with err (taken). */
static JSValue rejected(JSContext *c, JSValue err)
{
    JSValue p = JS_NewPendingPromise(c);
    if (!JS_IsException(p))
        JS_SettlePromise(c, p, 1, err);
    JS_FreeValue(c, err);
    return p;
}

/* A ToolError made by tools.js's makeError. */
static JSValue tool_error(JSContext *c, const char *code, const char *message, JSValueConst name)
{
    JSValue args[3] = { JS_NewString(c, code), JS_NewString(c, message), JS_DupValue(c, name) };
    JSValue err = JS_Call(c, tools_make_error, JS_UNDEFINED, 3, args);
    for (int i = 0; i < 3; i++)
        JS_FreeValue(c, args[i]);
    if (JS_IsException(err))
        err = JS_GetException(c);
    return err;
}

/* Hands the call of tool name with the JSON text args to the host and returns the
 * promise of its outcome. */
static JSValue start_call(JSContext *c, JSValueConst name, JSValueConst args)
{
    size_t name_len, args_len;
    const char *n = JS_ToCStringLen(c, &name_len, name);
    if (!n)
        return JS_EXCEPTION;
    const char *a = JS_ToCStringLen(c, &args_len, args);
    if (!a) {
        JS_FreeCString(c, n);
        return JS_EXCEPTION;
    }
    if (n_tool_calls == cap_tool_calls) {
        int cap = cap_tool_calls ? cap_tool_calls * 2 : 16;
        tool_pending *grown = realloc(tool_calls, (size_t)cap * sizeof(*grown));
        if (!grown) {
            JS_FreeCString(c, n);
            JS_FreeCString(c, a);
            return JS_ThrowOutOfMemory(c);
        }
        tool_calls = grown;
        cap_tool_calls = cap;
    }
    JSValue promise = JS_NewPendingPromise(c);
    if (JS_IsException(promise)) {
        JS_FreeCString(c, n);
        JS_FreeCString(c, a);
        return promise;
    }
    int32_t id = capsa_host_tool_call(n, (uint32_t)name_len, a, (uint32_t)args_len);
    JS_FreeCString(c, n);
    JS_FreeCString(c, a);
    if (id <= 0) {
        JSValue err = tool_error(c, "resource_exhausted",
                                 id == CAPSA_TOOL_EBADARG ? "the call could not be read"
                                 : "too many tool calls in flight (or the host is out of memory)",
                                 name);
        JS_SettlePromise(c, promise, 1, err);
        JS_FreeValue(c, err);
        return promise;
    }
    tool_calls[n_tool_calls++] = (tool_pending){ (uint32_t)id, JS_DupValue(c, promise),
                                                 JS_DupValue(c, name) };
    tools_pending++;
    last_call_id = (uint32_t)id;
    return promise;
}

/* __capsaTools.call(name, argsJson): the promise of a call of tool name with the
 * JSON text argsJson (checked by the host). */
static JSValue js_tool_call(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    if (argc < 2)
        return JS_ThrowTypeError(c, "call: name and arguments expected");
    return start_call(c, argv[0], argv[1]);
}

/* The function of one tool (data[0]: its registered name): its argument (an
 * object, or nothing for {}) as JSON, and the promise of the call. */
static JSValue js_tool_fn(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv,
                          int magic, JSValue *data)
{
    (void)this_val;
    (void)magic;
    JSValueConst args = argc > 0 ? argv[0] : JS_UNDEFINED;
    if (JS_IsUndefined(args)) {
        JSValue text = JS_NewStringLen(c, "{}", 2);
        JSValue p = start_call(c, data[0], text);
        JS_FreeValue(c, text);
        return p;
    }
    if (!JS_IsObject(args) || JS_IsArray(c, args) || JS_IsFunction(c, args)) {
        JSValue av[2] = { data[0], args };
        JSValue err = JS_Call(c, tools_arg_error, JS_UNDEFINED, 2, av);
        return rejected(c, JS_IsException(err) ? JS_GetException(c) : err);
    }
    JSValue text = JS_JSONStringify(c, args, JS_UNDEFINED, JS_UNDEFINED);
    if (JS_IsException(text))
        return rejected(c, JS_GetException(c));
    JSValue p = start_call(c, data[0], text);
    JS_FreeValue(c, text);
    return p;
}

/* __capsaTools.bind(name): the function scripts call for tool name. */
static JSValue js_tool_bind(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    if (argc < 1 || !JS_IsString(argv[0]))
        return JS_ThrowTypeError(c, "bind: a tool name expected");
    return JS_NewCFunctionData(c, js_tool_fn, 1, 0, 1, argv);
}

static const JSCFunctionListEntry tool_funcs[] = {
    JS_CFUNC_DEF("call", 2, js_tool_call),
    JS_CFUNC_DEF("bind", 1, js_tool_bind),
};

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

/* Writes prefix, what the runtime's inspect() prints for v, and a newline to
 * stderr. */
static void write_inspected(const char *prefix, JSValueConst v)
{
    JSValue inspect = JS_GetPropertyStr(ctx, runtime_api, "inspect");
    JSValue text = JS_Call(ctx, inspect, JS_UNDEFINED, 1, &v);
    size_t len;
    const char *s = JS_IsException(text) ? NULL : JS_ToCStringLen(ctx, &len, text);
    write_stderr(prefix, strlen(prefix));
    if (s) {
        write_stderr(s, len);
        JS_FreeCString(ctx, s);
    } else {
        JS_FreeValue(ctx, JS_GetException(ctx));
        write_stderr(unprintable, sizeof(unprintable) - 1);
    }
    write_stderr("\n", 1);
    JS_FreeValue(ctx, text);
    JS_FreeValue(ctx, inspect);
}

/* Writes every rejection still unhandled at the end of a run to stderr, except
 * the run's own promise (its rejection is the run's error). */
static void report_unhandled(JSValueConst run_promise)
{
    for (int i = 0; i < n_unhandled; i++) {
        if (JS_VALUE_GET_PTR(unhandled[i].promise) != JS_VALUE_GET_PTR(run_promise))
            write_inspected("Uncaught (in promise) ", unhandled[i].reason);
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
}

/* Creates the runtime and context and evaluates the JS runtime. The host runs
 * this once and keeps the memory that results as the image every sandbox starts
 * from. Returns 0, or CAPSA_GUEST_NOMEM / CAPSA_GUEST_THREW (reported). */
EXPORT("capsa_init") int32_t capsa_init(void)
{
    runtime_api = web_api = buffer_api = web_tick = web_cancel = uncaught = JS_UNDEFINED;
    tools_make_error = tools_arg_error = tools_refresh = run_promise = JS_UNDEFINED;
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

    for (size_t i = 0; i < N_JS_FILES; i++) {
        const struct capsa_js_file *f = &capsa_js_files[i];
        int is_web = strcmp(f->name, "web.js") == 0;
        int is_fs = strcmp(f->name, "fs.js") == 0;
        int is_buffer = strcmp(f->name, "buffer.js") == 0;
        int is_tools = strcmp(f->name, "tools.js") == 0;
        if (is_tools) {
            /* tools.js's native (it deletes __capsaTools), and runtime.js's exports. */
            global = JS_GetGlobalObject(ctx);
            JSValue tools = JS_NewObject(ctx);
            JS_SetPropertyFunctionList(ctx, tools, tool_funcs,
                                       sizeof(tool_funcs) / sizeof(tool_funcs[0]));
            JS_SetPropertyStr(ctx, tools, "runtime", JS_DupValue(ctx, runtime_api));
            JS_SetPropertyStr(ctx, global, "__capsaTools", tools);
            JS_FreeValue(ctx, global);
        }
        if (is_fs) {
            /* fs.js's natives (it deletes __capsaFs), and runtime.js's exports. */
            global = JS_GetGlobalObject(ctx);
            JSValue fs = JS_NewObject(ctx);
            capsa_fs_add_natives(ctx, fs);
            JS_SetPropertyStr(ctx, fs, "runtime", JS_DupValue(ctx, runtime_api));
            JS_SetPropertyStr(ctx, fs, "web", JS_DupValue(ctx, web_api));
            JS_SetPropertyStr(ctx, fs, "buffer", JS_DupValue(ctx, buffer_api));
            JS_SetPropertyStr(ctx, global, "__capsaFs", fs);
            JS_FreeValue(ctx, global);
        }
        if (is_buffer) {
            /* buffer.js's host object (it deletes __capsaBuffer): write() for its
               deprecation warning, and runtime.js's and web.js's exports. */
            global = JS_GetGlobalObject(ctx);
            JSValue buffer = JS_NewObject(ctx);
            JS_SetPropertyFunctionList(ctx, buffer, host_funcs,
                                       sizeof(host_funcs) / sizeof(host_funcs[0]));
            JS_SetPropertyStr(ctx, buffer, "runtime", JS_DupValue(ctx, runtime_api));
            JS_SetPropertyStr(ctx, buffer, "web", JS_DupValue(ctx, web_api));
            JS_SetPropertyStr(ctx, global, "__capsaBuffer", buffer);
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
        if (is_buffer)
            buffer_api = r;
        if (is_web) {
            web_api = r;
            web_tick = JS_GetPropertyStr(ctx, r, "tick");
            web_cancel = JS_GetPropertyStr(ctx, r, "cancel");
        }
        if (is_tools) {
            tools_make_error = JS_GetPropertyStr(ctx, r, "makeError");
            tools_arg_error = JS_GetPropertyStr(ctx, r, "argError");
            tools_refresh = JS_GetPropertyStr(ctx, r, "refresh");
        }
    }
    if (JS_IsException(web_tick) || JS_IsException(web_cancel))
        return CAPSA_GUEST_NOMEM;
    JSValue tools_api = JS_UNDEFINED;
    for (size_t i = 0; i < N_JS_FILES; i++)
        if (strcmp(capsa_js_files[i].name, "tools.js") == 0)
            tools_api = js_exports[i];
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

/* Reads the string member key of the JSON object text[0..len) into a new C string
 * (JS_FreeCString), or NULL. For the {"code","message"} of a failed call. */
static const char *json_member(JSValueConst obj, const char *key)
{
    JSValue v = JS_GetPropertyStr(ctx, obj, key);
    const char *s = JS_IsString(v) ? JS_ToCString(ctx, v) : NULL;
    JS_FreeValue(ctx, v);
    return s;
}

/* Settles the promise of tool call id: ok with its result (the JSON text
 * buf[0..len)), or rejected with a ToolError from its {"code","message"}. A call
 * the guest does not know (not its own) is ignored. */
static void settle_tool(uint32_t id, int ok, const char *buf, size_t len)
{
    int i = n_tool_calls - 1;
    while (i >= 0 && tool_calls[i].id != id)
        i--;
    if (i < 0)
        return;
    tool_pending call = tool_calls[i];
    tool_calls[i] = tool_calls[--n_tool_calls];
    JSValue v = buf ? JS_ParseJSON(ctx, buf, len, "<tool result>") : JS_EXCEPTION;
    int reject = 0;
    if (JS_IsException(v)) {
        if (buf)
            JS_FreeValue(ctx, JS_GetException(ctx));
        v = tool_error(ctx, buf ? "invalid_result" : "out_of_memory",
                       buf ? "the tool's result is not JSON" : "guest memory is full: no room for the tool's result",
                       call.name);
        reject = 1;
    } else if (!ok) {
        const char *code = json_member(v, "code"), *message = json_member(v, "message");
        JSValue err = tool_error(ctx, code ? code : "tool_error", message ? message : "the tool failed",
                                 call.name);
        JS_FreeCString(ctx, code);
        JS_FreeCString(ctx, message);
        JS_FreeValue(ctx, v);
        v = err;
        reject = 1;
    }
    JS_SettlePromise(ctx, call.promise, reject, v);
    JS_FreeValue(ctx, v);
    JS_FreeValue(ctx, call.promise);
    JS_FreeValue(ctx, call.name);
}

uint32_t capsa_guest_calls_mark(void)
{
    return last_call_id;
}

void capsa_guest_forget_calls_after(uint32_t mark)
{
    for (int i = n_tool_calls - 1; i >= 0; i--) {
        if (tool_calls[i].id <= mark)
            continue;
        JS_FreeValue(ctx, tool_calls[i].promise);
        JS_FreeValue(ctx, tool_calls[i].name);
        tool_calls[i] = tool_calls[--n_tool_calls];
        tools_pending--;
    }
}

/* The run is over: the calls still in flight will never be awaited. */
static void cancel_tools(void)
{
    for (int i = 0; i < n_tool_calls; i++) {
        JS_FreeValue(ctx, tool_calls[i].promise);
        JS_FreeValue(ctx, tool_calls[i].name);
    }
    n_tool_calls = 0;
    tools_pending = 0;
}

/* Delivers the outcomes the host has ready: each settles its call's promise (the
 * reactions run with the next drain of the job queue). Returns how many. */
static int deliver_tools(void)
{
    int n = 0;
    capsa_tool_info info;
    char small[256];
    while (tools_pending > 0 && capsa_host_tool_next(&info) == 1) {
        char *buf = info.len < sizeof(small) ? small : malloc((size_t)info.len + 1);
        if (!buf) {
            capsa_host_tool_take(info.id, NULL, 0);
            settle_tool(info.id, 0, NULL, 0);
        } else {
            if (capsa_host_tool_take(info.id, buf, info.len) != 0) {
                if (buf != small)
                    free(buf);
                break;
            }
            buf[info.len] = '\0';
            settle_tool(info.id, info.ok != 0, buf, info.len);
            if (buf != small)
                free(buf);
        }
        tools_pending--;
        n++;
    }
    return n;
}

/* Brings `tools` and the flat tool functions up to date with the host's registry
 * when it changed since they were built. A failure leaves them as they were and is
 * tried again at the next run. */
static void sync_tools(void)
{
    int32_t gen = capsa_host_tools_generation();
    if (gen == tools_seen || !JS_IsFunction(ctx, tools_refresh))
        return;
    int32_t len = capsa_host_tools_list(NULL, 0);
    char *buf = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (!buf || capsa_host_tools_list(buf, (uint32_t)len) != len) {
        free(buf);
        return;
    }
    JSValue text = JS_NewStringLen(ctx, buf, (size_t)len);
    free(buf);
    JSValue r = JS_IsException(text) ? JS_EXCEPTION
                                     : JS_Call(ctx, tools_refresh, JS_UNDEFINED, 1, &text);
    if (JS_IsException(r))
        JS_FreeValue(ctx, JS_GetException(ctx));
    else
        tools_seen = gen;
    JS_FreeValue(ctx, r);
    JS_FreeValue(ctx, text);
}

/* One turn of an event loop after its jobs ran: delivers the tool outcomes the
 * host has ready, else runs the next timer or immediate callback (web.js's tick
 * decides which, in Node's order). 1 when something ran; 0 when nothing could,
 * with *next set to when the next timer is due (ms of performance.now(), -1 when
 * none is). */
static int run_ready(double *next)
{
    *next = -1;
    if (tools_pending > 0 && deliver_tools() > 0)
        return 1;
    JSValue r = call_web(web_tick);
    if (JS_IsException(r)) {
        note_uncaught();
        return 1;
    }
    if (JS_IsNumber(r))
        JS_ToFloat64(ctx, next, r);
    JS_FreeValue(ctx, r);
    return *next == 0;
}

/* The time of the timer due at `next` ms of performance.now(), as the host's
 * CLOCK_MONOTONIC nanoseconds; 0 when next < 0 (no timer). */
static uint64_t wake_time(double next)
{
    if (next <= 0)
        return 0;
    double ns = next * 1e6;
    return capsa_web_origin_ns() + (ns >= 1.8e19 ? (uint64_t)1.8e19 : (uint64_t)ns + 1);
}

/* The event loop of a run: microtasks until none is left, the outcomes of tool
 * calls the host has ready, then the next timer or immediate callback (web.js's
 * tick() decides which, in Node's order), again and again, sleeping while the
 * next timer is not due. When tool calls are pending and nothing can run, it
 * returns CAPSA_GUEST_PENDING (after telling the host when the next timer is due)
 * with the run's state kept: the host waits for results (or the timer) and calls
 * capsa_continue. It ends (returns CAPSA_GUEST_OK) when nothing more can happen:
 * no tool call pending and no timer or immediate that keeps the loop alive, when
 * a callback throws (the run's error) or when the run's own promise is rejected
 * (as an uncaught error ends a Node process). Callbacks may still run after the
 * run's promise is fulfilled: the run waits for them, up to its time limit. What
 * is left then (timers that do not keep the loop alive, calls whose outcome will
 * not be awaited) is cancelled, so no run inherits another's timers. */
static int32_t run_event_loop(void)
{
    for (;;) {
        drain_jobs();
        if (has_uncaught || JS_PromiseState(ctx, run_promise) == JS_PROMISE_REJECTED)
            break;
        double next;
        if (run_ready(&next))
            continue;
        if (tools_pending > 0) {
            capsa_host_pending(wake_time(next));
            return CAPSA_GUEST_PENDING;
        }
        if (next < 0)
            break;
        sleep_until(next);
    }
    /* The job queue is empty here: every way out of the loop follows drain_jobs. */
    JSValue r = call_web(web_cancel);
    if (JS_IsException(r))
        note_uncaught();
    JS_FreeValue(ctx, r);
    cancel_tools();
    return CAPSA_GUEST_OK;
}

int capsa_guest_await(JSValueConst promise)
{
    for (;;) {
        drain_jobs();
        int state = JS_PromiseState(ctx, promise);
        if (state == JS_PROMISE_FULFILLED)
            return 0;
        if (state != JS_PROMISE_PENDING)
            return 1;
        double next;
        if (run_ready(&next))
            continue;
        if (tools_pending > 0) {
            /* 1: an outcome is ready, 2: the timer is due, 3: the calls left are
               the host's to resolve, 0: nothing is in flight. */
            int32_t w = capsa_host_tool_wait(wake_time(next));
            if (w == 3)
                return -2;
            if (w == 0 && next < 0)
                return -1;
            continue;
        }
        if (next < 0)
            return -1;
        sleep_until(next);
    }
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
    if (run_value_state == VALUE_THREW && !has_uncaught) {
        uncaught = JS_DupValue(c, run_value);
        has_uncaught = 1;
    }
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
    return status;
}

/* Runs the run's event loop until it is over or waits for tool results; when over,
 * reports the outcome and forgets the run. */
static int32_t run_step(void)
{
    if (run_event_loop() == CAPSA_GUEST_PENDING)
        return CAPSA_GUEST_PENDING;
    report_unhandled(run_promise);
    int32_t status = report_outcome(run_promise);
    JS_FreeValue(ctx, run_promise);
    run_promise = JS_UNDEFINED;
    run_active = 0;
    return status;
}

/* Evaluates code[0..len) (code[len] must be NUL) as the body of an async
 * function in the global scope, runs its event loop and reports the outcome, or
 * returns CAPSA_GUEST_PENDING while tool calls are pending (capsa_continue goes
 * on). */
EXPORT("capsa_run") int32_t capsa_run(const char *code, uint32_t len,
                                      const char *filename)
{
    if (!ctx || !code || code[len] != '\0' || !filename || run_active)
        return CAPSA_GUEST_BADARG;
    sync_tools();
    last_call_id = 0; /* the host numbers each run's calls from 1 */
    JSValue promise = JS_Eval(ctx, code, len, filename,
                              JS_EVAL_TYPE_GLOBAL | JS_EVAL_FLAG_ASYNC);
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
 * standard input input[0..input_len) (input[input_len] NUL), for the host's
 * capsa_shell, and reports its exit status (plus 256 when it ran `exit`) as the
 * value. What the command line's JavaScript left behind (timers, calls that
 * will not be awaited) is dropped, as at the end of a run. */
EXPORT("capsa_shell") int32_t capsa_shell(const char *cmd, uint32_t len, const char *input,
                                          uint32_t input_len)
{
    if (!ctx || !cmd || cmd[len] != '\0' || !input || input[input_len] != '\0' || run_active)
        return CAPSA_GUEST_BADARG;
    sync_tools();
    last_call_id = 0;
    int status = capsa_bridge_shell(cmd, input, input_len);
    drain_jobs();
    JSValue r = call_web(web_cancel);
    if (JS_IsException(r))
        JS_FreeValue(ctx, JS_GetException(ctx));
    JS_FreeValue(ctx, r);
    cancel_tools();
    report_unhandled(JS_UNDEFINED);
    if (has_uncaught) {
        /* A timer's callback threw while the shell waited: said on stderr, as
           the shell's commands say their errors. */
        write_inspected("Uncaught ", uncaught);
        JS_FreeValue(ctx, uncaught);
        uncaught = JS_UNDEFINED;
        has_uncaught = 0;
    }
    char num[16];
    int n = snprintf(num, sizeof(num), "%d", status);
    report(CAPSA_RESULT_VALUE, num, (size_t)n);
    return CAPSA_GUEST_OK;
}

/* Resumes a run that returned CAPSA_GUEST_PENDING. */
EXPORT("capsa_continue") int32_t capsa_continue(void)
{
    if (!ctx || !run_active)
        return CAPSA_GUEST_BADARG;
    return run_step();
}
