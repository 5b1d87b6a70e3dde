/* Natives of node.js, the `process` object's view of the sandbox: the arguments
 * and environment the host gave (WASI args_get and environ_get, nothing else of
 * the host's), process.exit() and process.exitCode (the run's end, kept in
 * loop.c), memory usage, and hrtime counted from the sandbox's time origin.
 * node.js gets them on a host object it captures and deletes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wasi/api.h>

#include "quickjs.h"
#include "loop.h"
#include "node.h"
#include "web.h"

/* The strings of WASI's args (environ when env) as a JS array, or JS_EXCEPTION.
 * A failing WASI call gives an empty array: the host gave nothing usable. */
static JSValue wasi_strings(JSContext *c, int env)
{
    __wasi_size_t n = 0, size = 0;
    __wasi_errno_t err = env ? __wasi_environ_sizes_get(&n, &size)
                             : __wasi_args_sizes_get(&n, &size);
    JSValue a = JS_NewArray(c);
    if (JS_IsException(a) || err || n == 0)
        return a;
    uint8_t **v = malloc((size_t)n * sizeof(*v));
    uint8_t *buf = malloc((size_t)size + 1);
    if (!v || !buf) {
        free(v);
        free(buf);
        JS_FreeValue(c, a);
        return JS_ThrowOutOfMemory(c);
    }
    err = env ? __wasi_environ_get(v, buf) : __wasi_args_get(v, buf);
    buf[size] = '\0';
    for (__wasi_size_t i = 0; !err && i < n; i++) {
        /* each string lies in buf, NUL-terminated, as the host wrote it */
        if (v[i] < buf || v[i] >= buf + size)
            break;
        if (JS_SetPropertyUint32(c, a, i, JS_NewString(c, (const char *)v[i])) < 0) {
            JS_FreeValue(c, a);
            a = JS_EXCEPTION;
            break;
        }
    }
    free(v);
    free(buf);
    return a;
}

/* __capsaNode.args(): WASI's args (the program's name, then the script's
 * arguments); __capsaNode.env(): its environment, "NAME=value" strings. */
static JSValue js_node_args(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    (void)argc;
    (void)argv;
    return wasi_strings(c, 0);
}

static JSValue js_node_env(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    (void)argc;
    (void)argv;
    return wasi_strings(c, 1);
}

/* The path of the run's script, as process.argv[1] shows it. */
static char *script_path;

int capsa_node_set_script(const char *path)
{
    size_t len = strlen(path);
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, path, len + 1);
    free(script_path);
    script_path = copy;
    return 0;
}

/* __capsaNode.script(): the run's script, "/workspace/NAME". */
static JSValue js_node_script(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    (void)argc;
    (void)argv;
    return JS_NewString(c, script_path ? script_path : "/workspace/[eval]");
}

/* __capsaNode.runId(): a number that changes with each run. */
static JSValue js_node_run_id(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    (void)argc;
    (void)argv;
    return JS_NewUint32(c, capsa_loop_run_id());
}

/* __capsaNode.exit(code): ends the run (code an integer, checked by node.js). */
static JSValue js_node_exit(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    int32_t code = 0;
    if (argc > 0 && JS_ToInt32(c, &code, argv[0]) < 0)
        return JS_EXCEPTION;
    return capsa_loop_exit(code);
}

/* __capsaNode.setExitCode(code): process.exitCode (-1: undefined);
 * __capsaNode.exitCode(): what it is, -1 for undefined. */
static JSValue js_node_set_exit_code(JSContext *c, JSValueConst this_val, int argc,
                                     JSValueConst *argv)
{
    (void)this_val;
    int32_t code = -1;
    if (argc > 0 && JS_ToInt32(c, &code, argv[0]) < 0)
        return JS_EXCEPTION;
    capsa_loop_set_exit_code(code);
    return JS_UNDEFINED;
}

static JSValue js_node_exit_code(JSContext *c, JSValueConst this_val, int argc,
                                 JSValueConst *argv)
{
    (void)this_val;
    (void)argc;
    (void)argv;
    return JS_NewInt32(c, capsa_loop_exit_code());
}

/* __capsaNode.memoryUsage(): [rss, heapTotal, heapUsed, external, arrayBuffers]
 * in bytes: the guest's linear memory, what the engine's allocator holds and
 * uses, and what array buffers hold. */
static JSValue js_node_memory_usage(JSContext *c, JSValueConst this_val, int argc,
                                    JSValueConst *argv)
{
    (void)this_val;
    (void)argc;
    (void)argv;
    JSMemoryUsage u;
    JS_ComputeMemoryUsage(JS_GetRuntime(c), &u);
    double v[5] = {
        (double)__builtin_wasm_memory_size(0) * 65536.0,
        (double)u.malloc_size,
        (double)u.memory_used_size,
        (double)u.binary_object_size,
        (double)u.binary_object_size,
    };
    JSValue a = JS_NewArray(c);
    for (uint32_t i = 0; i < 5 && !JS_IsException(a); i++) {
        if (JS_SetPropertyUint32(c, a, i, JS_NewFloat64(c, v[i])) < 0) {
            JS_FreeValue(c, a);
            a = JS_EXCEPTION;
        }
    }
    return a;
}

/* __capsaNode.hrtime(): nanoseconds since the sandbox's time origin, a BigInt
 * (monotonic; the host's own clock origin stays the host's). */
static JSValue js_node_hrtime(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    (void)argc;
    (void)argv;
    return JS_NewBigUint64(c, capsa_web_monotonic_ns() - capsa_web_origin_ns());
}

static const JSCFunctionListEntry node_funcs[] = {
    JS_CFUNC_DEF("args", 0, js_node_args),
    JS_CFUNC_DEF("env", 0, js_node_env),
    JS_CFUNC_DEF("runId", 0, js_node_run_id),
    JS_CFUNC_DEF("script", 0, js_node_script),
    JS_CFUNC_DEF("exit", 1, js_node_exit),
    JS_CFUNC_DEF("setExitCode", 1, js_node_set_exit_code),
    JS_CFUNC_DEF("exitCode", 0, js_node_exit_code),
    JS_CFUNC_DEF("memoryUsage", 0, js_node_memory_usage),
    JS_CFUNC_DEF("hrtime", 0, js_node_hrtime),
};

void capsa_node_add_natives(JSContext *c, JSValueConst obj)
{
    JS_SetPropertyFunctionList(c, obj, node_funcs, sizeof(node_funcs) / sizeof(node_funcs[0]));
}
