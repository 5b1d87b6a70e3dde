/* Natives of tools.js: a tool call is handed to the host (capsa.tool_call) and
 * answered by a promise; the host's outcomes settle those promises when the
 * event loop delivers them (guest/loop.c). Also keeps `tools` in step with the
 * host's registry. */
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "tools.h"

static JSContext *ctx;
/* tools.js's exports: makeError(code, message, tool) makes a ToolError,
 * argError(tool, args) the TypeError of arguments that are not an object,
 * refresh(list) rebuilds `tools` and the flat functions from the host's registry. */
static JSValue tools_make_error = JS_UNDEFINED, tools_arg_error = JS_UNDEFINED,
               tools_refresh = JS_UNDEFINED;
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

void capsa_tools_add_natives(JSContext *c, JSValueConst obj)
{
    JS_SetPropertyFunctionList(c, obj, tool_funcs, sizeof(tool_funcs) / sizeof(tool_funcs[0]));
}

void capsa_tools_init(JSContext *c, JSValueConst tools_api)
{
    ctx = c;
    tools_make_error = JS_GetPropertyStr(c, tools_api, "makeError");
    tools_arg_error = JS_GetPropertyStr(c, tools_api, "argError");
    tools_refresh = JS_GetPropertyStr(c, tools_api, "refresh");
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

uint32_t capsa_tools_mark(void)
{
    return last_call_id;
}

/* Forgets call i without settling its promise; the last call takes its place. */
static void drop_call(int i)
{
    JS_FreeValue(ctx, tool_calls[i].promise);
    JS_FreeValue(ctx, tool_calls[i].name);
    tool_calls[i] = tool_calls[--n_tool_calls];
    tools_pending--;
}

void capsa_tools_forget_after(uint32_t mark)
{
    for (int i = n_tool_calls - 1; i >= 0; i--)
        if (tool_calls[i].id > mark)
            drop_call(i);
}

void capsa_tools_cancel(void)
{
    while (n_tool_calls > 0)
        drop_call(n_tool_calls - 1);
    tools_pending = 0;
}

int capsa_tools_pending(void)
{
    return tools_pending;
}

int capsa_tools_deliver(void)
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

void capsa_tools_start_run(void)
{
    last_call_id = 0; /* the host numbers each run's calls from 1 */
    /* `tools` and the flat tool functions are rebuilt when the registry changed
       since they were built. */
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
