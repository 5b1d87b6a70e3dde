/* libFuzzer harness: the tool calls a guest makes (the capsa.tool_call import's
 * name and JSON text) as arbitrary bytes, against a sandbox with tools and a
 * policy with constraints. The input is split at its first NUL: the tool name
 * before it, the arguments after it. Every call must get an outcome that is JSON
 * text; an allowed call of the echo tool must give back byte for byte the text
 * the policy checked (the tool gets what the policy saw); nothing may crash or
 * leak, and the audit log must stay one JSON object per line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "capsa.h"
#include "sandbox.h"
#include "tools.h"

static capsa_engine *engine;
static capsa_sandbox *sb;
static uint64_t runs;
#ifndef CHECK_EVERY
#define CHECK_EVERY 256
#endif

/* Answers with the arguments themselves. */
static void echo(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    (void)ud;
    capsa_tool_reply_json(reply, call->args, call->args_len);
}

static void setup(void)
{
    capsa_options o;
    capsa_options_init(&o);
    o.fs_max_bytes = 1 << 20; /* the audit log fills up: fail-closed refusals too */
    if (capsa_engine_new(NULL, &engine) != CAPSA_OK || capsa_sandbox_new(engine, &o, &sb) != CAPSA_OK)
        abort();
    capsa_tool_def d;
    capsa_tool_def_init(&d);
    d.name = "echo.back";
    d.fn = echo;
    d.flags = CAPSA_TOOL_INLINE;
    d.parameters = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\"}}}";
    if (capsa_tool_add(sb, &d) != CAPSA_OK)
        abort();
    capsa_tool_def_init(&d);
    d.name = "host/step"; /* no callback: left to the caller, cancelled at run end */
    if (capsa_tool_add(sb, &d) != CAPSA_OK)
        abort();
    static const char policy[] =
        "{\"capabilities\":["
        "{\"pattern\":\"echo.back\",\"constraints\":[{\"or\":[{\"param\":\"n\",\"op\":\"<=\",\"value\":10},"
        "{\"param\":\"s\",\"op\":\"starts_with\",\"value\":\"ok\"}]}],\"max_calls\":1000000},"
        "{\"pattern\":\"host/**\"}]}";
    if (capsa_policy_set(sb, policy, sizeof(policy) - 1) != CAPSA_OK)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!sb)
        setup();
    const char *name = (const char *)data;
    size_t name_len = strnlen(name, size);
    const char *args = name + name_len + (name_len < size);
    size_t args_len = size - (size_t)(args - name);
    capsa__tools *t = sb->tools;
    capsa__tools_run_begin(t, ++runs);
    int32_t id = capsa__tools_call(t, name, name_len, args, args_len);
    uint32_t got_id, ok, len;
    while (capsa__tools_next(t, &got_id, &ok, &len)) {
        uint8_t *out = malloc(len ? len : 1);
        if (!out || capsa__tools_take(t, got_id, out, len) != 0)
            abort();
        if (!capsa__json_valid((const char *)out, len))
            abort(); /* every outcome is JSON text */
        if (ok && (int32_t)got_id == id && name_len == 9 &&
            (memcmp(name, "echo.back", 9) == 0 || memcmp(name, "echo/back", 9) == 0) &&
            (len != args_len || memcmp(out, args, len) != 0))
            abort(); /* the tool got exactly the text the policy checked, by either spelling */
        free(out);
    }
    capsa__tools_run_end(t);
    if (runs % CHECK_EVERY == 0) {
        /* The audit log: one JSON object per line, whatever the names and texts. */
        char *log = NULL;
        size_t log_len = 0;
        if (capsa_fs_read(sb, "/log/actions.jsonl", &log, &log_len) == CAPSA_OK) {
            for (char *line = log; line < log + log_len;) {
                char *nl = memchr(line, '\n', (size_t)(log + log_len - line));
                if (!nl || !capsa__json_valid(line, (size_t)(nl - line))) {
                    fprintf(stderr, "bad audit line: %.*s\n",
                            (int)(nl ? nl - line : log + log_len - line), line);
                    abort();
                }
                line = nl + 1;
            }
            capsa_free(log);
        }
        capsa_fs_remove(sb, "/log/actions.jsonl", 0);
    }
    return 0;
}
