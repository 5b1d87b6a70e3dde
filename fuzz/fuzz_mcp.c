/* libFuzzer harness: the JSON-RPC/MCP dispatcher (net/jsonrpc.c, net/mcp_server.c)
 * fed what a client may send, as arbitrary bytes: the input is split at newlines
 * into messages for one session (after a valid initialize when the first byte is
 * odd, so that the methods behind it are reached), with an exposed host tool and
 * small limits. Every message the server sends must be one JSON object of
 * JSON-RPC 2.0 on one line, every request must get exactly one answer (or none
 * when cancelled), and the session must end cleanly. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capsa.h"
#include "../net/mcp_server.h"

static capsa_engine *engine;
static mcp_server *server;

static void echo_tool(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    (void)ud;
    capsa_tool_reply_json(reply, call->args, call->args_len);
}

static int setup(void *ud, capsa_sandbox *sb, uint64_t *generation)
{
    (void)ud;
    capsa_tool_def d;
    capsa_tool_def_init(&d);
    d.name = "fz.echo";
    d.description = "Echoes its arguments.";
    d.fn = echo_tool;
    d.flags = CAPSA_TOOL_INLINE;
    return capsa_tool_add(sb, &d) == CAPSA_OK && capsa_policy_add(sb, "fz.echo", NULL, 2) == CAPSA_OK
               ? 0 : -1;
}

/* Checks each message as it comes; counts the answers. */
typedef struct check_sink {
    mcp_sink base;
    int answers;
} check_sink;

static void check_emit(mcp_sink *sink, const char *json, size_t len, int is_response)
{
    check_sink *s = (check_sink *)sink;
    __atomic_add_fetch(&s->answers, is_response, __ATOMIC_RELAXED);
    if (!json)
        return;
    if (memchr(json, '\n', len))
        abort(); /* one message, one line */
    json_error_t jerr;
    json_t *m = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!json_is_object(m) || !json_is_string(json_object_get(m, "jsonrpc")) ||
        strcmp(json_string_value(json_object_get(m, "jsonrpc")), "2.0") != 0)
        abort();
    int response = json_object_get(m, "result") || json_object_get(m, "error");
    if (response != is_response || (!response && !json_is_string(json_object_get(m, "method"))))
        abort();
    json_decref(m);
}

static void check_destroy(mcp_sink *sink)
{
    (void)sink; /* on the stack of the test */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256] = "";
    if (!engine && capsa_engine_new(NULL, &engine) != CAPSA_OK)
        abort();
    if (!server) {
        mcp_server_config cfg;
        memset(&cfg, 0, sizeof(cfg));
        cfg.engine = engine;
        capsa_options_init(&cfg.sandbox);
        cfg.sandbox.timeout_ms = 200;
        cfg.sandbox.memory_limit = 32u << 20;
        cfg.sandbox.fs_max_bytes = 1u << 20;
        cfg.setup = setup;
        cfg.expose_tools = 1;
        cfg.log_output = 1;
        cfg.max_text = 4096;
        cfg.max_queue = 16;
        cfg.max_message = 1u << 16;
        if (mcp_server_new(&cfg, &server, err, sizeof(err)) != 0) {
            fprintf(stderr, "fuzz_mcp: %s\n", err);
            abort();
        }
    }
    mcp_session *ss = NULL;
    if (mcp_session_new(server, "fuzz", &ss, err, sizeof(err)) != 0) {
        fprintf(stderr, "fuzz_mcp: %s\n", err);
        abort();
    }
    check_sink sink = { { check_emit, check_destroy, 1 }, 0 };
    static const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                               "{\"protocolVersion\":\"2025-11-25\"}}";
    int expected = 0;
    mcp_handled info;
    if (size && (data[0] & 1)) {
        mcp_session_handle(ss, init, sizeof(init) - 1, &sink.base, &info);
        expected += info.requests;
    }
    const uint8_t *p = data + (size ? 1 : 0), *end = data + size;
    while (p < end) {
        const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        mcp_session_handle(ss, (const char *)p, n, &sink.base, &info);
        expected += info.requests;
        p += n + 1;
    }
    mcp_session_drain(ss);
    mcp_session_free(ss);
    /* Cancelled requests are answered as withheld: every request counts once. */
    if (__atomic_load_n(&sink.answers, __ATOMIC_RELAXED) != expected) {
        fprintf(stderr, "%d answers for %d requests\n", sink.answers, expected);
        abort();
    }
    return 0;
}
