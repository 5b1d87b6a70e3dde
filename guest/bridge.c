/* The shell inside the guest and its bridges: `await shell(cmd)` in JS, the
 * shell's `js`/`node` commands (JS evaluated in the same context, its console
 * output going down the shell's pipes: capsa_bridge_console says where) and
 * `tool` (host tools called through tools.js, so with the same capability checks
 * as from JS), and the entry of the host's capsa_shell. Waiting for JS goes
 * through loop.c, the calls a command started through tools.c. */
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "fs.h"
#include "loop.h"
#include "shell/shell.h"
#include "tools.h"

static JSContext *ctx;
static sh_shell *shell;
static JSValue format_error, tool_command;
/* The streams the console writes to now (NULL: the run's stdout and stderr). */
static sh_stream *cur_out, *cur_err;

/* Sends the console to out and err; what it went to before is kept in
 * *save_out and *save_err when they are not NULL. */
static void redirect(sh_stream *out, sh_stream *err, sh_stream **save_out, sh_stream **save_err)
{
    if (save_out)
        *save_out = cur_out;
    if (save_err)
        *save_err = cur_err;
    cur_out = out;
    cur_err = err;
}

sh_stream *capsa_bridge_console(int fd)
{
    return fd == 1 ? cur_out : fd == 2 ? cur_err : NULL;
}

/* Writes the JS string v to s. */
static void write_js(sh_stream *s, JSValueConst v)
{
    size_t len;
    const char *t = JS_ToCStringLen(ctx, &len, v);
    if (!t) {
        JS_FreeValue(ctx, JS_GetException(ctx));
        return;
    }
    sh_write(s, t, len);
    JS_FreeCString(ctx, t);
}

/* Prints a thrown value as the runtime prints an uncaught error, without the
 * frames of the shell that ran the code (they say nothing about the script). */
static void print_error(sh_proc *p, JSValueConst err)
{
    JSValue text = JS_Call(ctx, format_error, JS_UNDEFINED, 1, &err);
    size_t len;
    const char *t = JS_IsException(text) ? NULL : JS_ToCStringLen(ctx, &len, text);
    JS_FreeValue(ctx, text);
    if (!t) {
        JS_FreeValue(ctx, JS_GetException(ctx));
        sh_err(p, "the script threw a value that cannot be printed");
        return;
    }
    static const char *const cuts[] = { "\n    at shell (native)" };
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        const char *c = strstr(t, cuts[i]);
        if (c && (size_t)(c - t) < len)
            len = (size_t)(c - t);
    }
    sh_write(p->err, t, len);
    sh_write(p->err, "\n", 1);
    JS_FreeCString(ctx, t);
}

static JSValue noop(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)c;
    (void)this_val;
    (void)argc;
    (void)argv;
    return JS_UNDEFINED;
}

/* Attaches a handler to a rejected promise whose error the command printed, so
 * that the run does not report it again as unhandled. */
static void mark_handled(JSValueConst promise)
{
    JSValue then = JS_GetPropertyStr(ctx, promise, "then");
    JSValue fn = JS_NewCFunction(ctx, noop, "", 1);
    JSValue args[2] = { JS_UNDEFINED, fn };
    JSValue r = JS_Call(ctx, then, promise, 2, args);
    if (JS_IsException(r))
        JS_FreeValue(ctx, JS_GetException(ctx));
    JS_FreeValue(ctx, r);
    JS_FreeValue(ctx, fn);
    JS_FreeValue(ctx, then);
}

/* Awaits promise (taken) for a command that started tool calls after mark: 0
 * fulfilled (its value in *value, caller frees), else a status after printing
 * why. */
static int await_for(sh_proc *p, uint32_t mark, JSValue promise, JSValue *value)
{
    int r = capsa_loop_await(promise);
    if (r == -2)
        capsa_tools_forget_after(mark);
    JSValue v = JS_PromiseResult(ctx, promise);
    if (r == 1)
        mark_handled(promise);
    JS_FreeValue(ctx, promise);
    if (r == 0) {
        *value = v;
        return 0;
    }
    if (r == -3) {
        /* process.exit(): the command's status is its code */
        JS_FreeValue(ctx, v);
        return 1;
    }
    if (r == 1)
        print_error(p, v);
    else if (r == -2)
        sh_err(p, "the script waits for tool calls that the host resolves itself (step mode); "
                  "the shell can only wait for tools the library runs");
    else
        sh_err(p, "the script waits for a promise that nothing settles");
    JS_FreeValue(ctx, v);
    return 1;
}

/* js [-e CODE | -p CODE | FILE | -]: JavaScript from the shell, in the guest's
 * context (its globals are the scripts' globals). The code is the body of an
 * async function (await works); -p prints the value of an expression. */
static int cmd_js(sh_proc *p, int argc, char **argv)
{
    char *code = NULL;
    size_t len = 0;
    const char *filename = "[eval]";
    int print = 0;
    if (argc >= 3 && (strcmp(argv[1], "-e") == 0 || strcmp(argv[1], "-p") == 0 ||
                      strcmp(argv[1], "--eval") == 0 || strcmp(argv[1], "--print") == 0)) {
        print = argv[1][1] == 'p' || strcmp(argv[1], "--print") == 0;
        code = strdup(argv[2]);
        len = code ? strlen(code) : 0;
        if (!code)
            return sh_oom(p);
    } else if (argc >= 2 && (strcmp(argv[1], "-e") == 0 || strcmp(argv[1], "-p") == 0)) {
        sh_err(p, "%s requires an argument", argv[1]);
        return 9;
    } else if (argc >= 2 && argv[1][0] == '-' && argv[1][1] && strcmp(argv[1], "-") != 0) {
        sh_err(p, "bad option: %s (usage: %s [-e CODE | -p CODE | FILE | -])", argv[1], argv[0]);
        return 9;
    } else {
        filename = argc >= 2 ? argv[1] : "-";
        if (sh_load(p, filename, &code, &len) < 0)
            return 1;
        if (strcmp(filename, "-") == 0)
            filename = "[stdin]";
    }
    sh_stream *so, *se;
    redirect(p->out, p->err, &so, &se);
    /* process.stdin and fs.readFileSync(0) read the command's own input (none
       left when the code came from there). */
    int code_from_in = strcmp(filename, "[stdin]") == 0;
    capsa_fs_stdin_from(p->in && !code_from_in ? p->in : "",
                        p->in && !code_from_in ? p->in_len : 0);
    uint32_t mark = capsa_tools_mark();
    JSValue r = JS_Eval(ctx, code, len, filename,
                        JS_EVAL_TYPE_GLOBAL | (print ? 0 : JS_EVAL_FLAG_ASYNC));
    free(code);
    int status = 0;
    if (JS_IsException(r)) {
        JSValue err = JS_GetException(ctx);
        if (!capsa_loop_exited())
            print_error(p, err);
        JS_FreeValue(ctx, err);
        status = 1;
    } else if (print) {
        /* console.log prints the value as Node's -p does. */
        JSValue global = JS_GetGlobalObject(ctx);
        JSValue console = JS_GetPropertyStr(ctx, global, "console");
        JSValue log = JS_GetPropertyStr(ctx, console, "log");
        JSValue x = JS_Call(ctx, log, console, 1, (JSValueConst *)&r);
        if (JS_IsException(x)) {
            JSValue err = JS_GetException(ctx);
            print_error(p, err);
            JS_FreeValue(ctx, err);
            status = 1;
        }
        JS_FreeValue(ctx, x);
        JS_FreeValue(ctx, log);
        JS_FreeValue(ctx, console);
        JS_FreeValue(ctx, global);
        JS_FreeValue(ctx, r);
    } else {
        JSValue v;
        status = await_for(p, mark, r, &v);
        if (status == 0)
            JS_FreeValue(ctx, v);
    }
    if (capsa_loop_exited()) {
        /* process.exit(code) ends the command, not the shell: what its
           JavaScript left is dropped, and its status is the code. */
        int code = capsa_loop_exit_code();
        capsa_loop_cancel();
        capsa_loop_end_exit();
        status = code < 0 ? 0 : code;
    } else if (capsa_loop_exit_code() >= 0) {
        /* process.exitCode: the status of a command that did not fail; it
           lasts for this command only */
        if (status == 0)
            status = capsa_loop_exit_code();
        capsa_loop_end_exit();
    }
    capsa_fs_stdin_from(NULL, 0);
    redirect(so, se, NULL, NULL);
    return status;
}

/* tool --list | --help NAME | NAME [--PARAM VALUE]... | NAME --json JSON:
 * tools.js's command(argv) does the work; this awaits it. */
static int cmd_tool(sh_proc *p, int argc, char **argv)
{
    JSValue args = JS_NewArray(ctx);
    if (JS_IsException(args)) {
        JS_FreeValue(ctx, JS_GetException(ctx));
        return sh_oom(p);
    }
    for (int i = 1; i < argc; i++)
        JS_SetPropertyUint32(ctx, args, (uint32_t)(i - 1), JS_NewString(ctx, argv[i]));
    uint32_t mark = capsa_tools_mark();
    JSValue promise = JS_Call(ctx, tool_command, JS_UNDEFINED, 1, (JSValueConst *)&args);
    JS_FreeValue(ctx, args);
    if (JS_IsException(promise)) {
        JSValue err = JS_GetException(ctx);
        print_error(p, err);
        JS_FreeValue(ctx, err);
        return 1;
    }
    JSValue v;
    if (await_for(p, mark, promise, &v) != 0)
        return 1;
    JSValue out = JS_GetPropertyStr(ctx, v, "out"), err = JS_GetPropertyStr(ctx, v, "err");
    JSValue st = JS_GetPropertyStr(ctx, v, "status");
    int32_t status = 1;
    JS_ToInt32(ctx, &status, st);
    write_js(p->out, out);
    write_js(p->err, err);
    JS_FreeValue(ctx, out);
    JS_FreeValue(ctx, err);
    JS_FreeValue(ctx, st);
    JS_FreeValue(ctx, v);
    return p->out->broken ? SH_STATUS_PIPE : status;
}

static const sh_applet commands[] = {
    { "js", cmd_js, "run JavaScript: js -e CODE, js -p EXPR, js FILE (in this sandbox's context)" },
    { "node", cmd_js, "the same as js" },
    { "tool", cmd_tool, "call a host tool: tool --list, tool --help NAME, tool NAME --PARAM VALUE..." },
    { NULL, NULL, NULL },
};

/* Runs cmd with the given streams and input; its exit status. */
static int run_shell(const char *cmd, sh_stream *out, sh_stream *err, const char *in, size_t in_len)
{
    sh_stream *so, *se;
    redirect(out, err, &so, &se);
    int status = sh_eval(shell, cmd, out, err, in, in_len);
    redirect(so, se, NULL, NULL);
    return status;
}

/* shell(cmd, {input, stdio}): runs a command line; resolves to
 * {stdout, stderr, exitCode}. stdio "inherit" writes to the run's own output
 * instead (stdout and stderr are then ""). */
static JSValue js_shell(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    if (argc < 1 || !JS_IsString(argv[0]))
        return JS_ThrowTypeError(c, "shell(command): the command must be a string");
    JSValueConst opts = argc > 1 ? argv[1] : JS_UNDEFINED;
    int inherit = 0;
    const char *input = NULL;
    size_t input_len = 0;
    if (!JS_IsUndefined(opts) && !JS_IsNull(opts)) {
        if (!JS_IsObject(opts))
            return JS_ThrowTypeError(c, "shell(command, options): options must be an object");
        JSValue stdio = JS_GetPropertyStr(c, opts, "stdio");
        const char *s = JS_IsUndefined(stdio) ? NULL : JS_ToCString(c, stdio);
        JS_FreeValue(c, stdio);
        if (s) {
            inherit = strcmp(s, "inherit") == 0;
            int ok = inherit || strcmp(s, "pipe") == 0;
            JS_FreeCString(c, s);
            if (!ok)
                return JS_ThrowTypeError(c, "shell: options.stdio must be 'pipe' or 'inherit'");
        }
        JSValue in = JS_GetPropertyStr(c, opts, "input");
        if (!JS_IsUndefined(in)) {
            input = JS_ToCStringLen(c, &input_len, in);
            if (!input) {
                JS_FreeValue(c, in);
                return JS_EXCEPTION;
            }
        }
        JS_FreeValue(c, in);
    }
    size_t cmd_len;
    const char *cmd = JS_ToCStringLen(c, &cmd_len, argv[0]);
    if (!cmd) {
        JS_FreeCString(c, input);
        return JS_EXCEPTION;
    }
    if (strlen(cmd) != cmd_len) {
        JS_FreeCString(c, cmd);
        JS_FreeCString(c, input);
        return JS_ThrowTypeError(c, "shell: the command contains a NUL character");
    }
    sh_stream out = { .fd = inherit ? 1 : -1, .limit = SH_PIPE_LIMIT };
    sh_stream err = { .fd = inherit ? 2 : -1, .limit = SH_PIPE_LIMIT };
    int status = run_shell(cmd, &out, &err, input ? input : "", input_len);
    JS_FreeCString(c, cmd);
    JS_FreeCString(c, input);
    JSValue r = JS_NewObject(c);
    JS_SetPropertyStr(c, r, "stdout", JS_NewStringLen(c, out.buf.data ? out.buf.data : "", out.buf.len));
    JS_SetPropertyStr(c, r, "stderr", JS_NewStringLen(c, err.buf.data ? err.buf.data : "", err.buf.len));
    JS_SetPropertyStr(c, r, "exitCode", JS_NewInt32(c, status));
    sh_buf_free(&out.buf);
    sh_buf_free(&err.buf);
    JSValue promise = JS_NewPendingPromise(c);
    if (!JS_IsException(promise))
        JS_SettlePromise(c, promise, 0, r);
    JS_FreeValue(c, r);
    return promise;
}

int capsa_bridge_shell(const char *cmd, const char *input, size_t input_len)
{
    sh_stream out = { .fd = 1 }, err = { .fd = 2 };
    int status = run_shell(cmd, &out, &err, input, input_len);
    return status | (sh_exited(shell) ? 256 : 0);
}

int capsa_bridge_init(JSContext *c, JSValueConst runtime_api, JSValueConst tools_api)
{
    ctx = c;
    format_error = JS_GetPropertyStr(c, runtime_api, "formatError");
    tool_command = JS_GetPropertyStr(c, tools_api, "command");
    if (!JS_IsFunction(c, format_error) || !JS_IsFunction(c, tool_command)) {
        JS_ThrowInternalError(c, "the shell's bridge needs runtime.js and tools.js");
        return -1;
    }
    shell = sh_new("/workspace");
    static const char *const vars[][2] = {
        { "HOME", "/workspace" }, { "PATH", "/bin:/usr/bin" }, { "USER", "user" },
        { "LOGNAME", "user" }, { "SHELL", "/bin/sh" }, { "TMPDIR", "/tmp" },
    };
    for (size_t i = 0; shell && i < sizeof(vars) / sizeof(vars[0]); i++)
        if (sh_setvar(shell, vars[i][0], vars[i][1], 1) < 0) {
            sh_free(shell);
            shell = NULL;
        }
    if (!shell) {
        JS_ThrowOutOfMemory(c);
        return -1;
    }
    sh_set_commands(shell, commands);
    JSValue global = JS_GetGlobalObject(c);
    JSValue fn = JS_NewCFunction(c, js_shell, "shell", 2);
    int r = JS_DefinePropertyValueStr(c, global, "shell", fn, JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE);
    JS_FreeValue(c, global);
    return r < 0 ? -1 : 0;
}
