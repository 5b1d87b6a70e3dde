/* libFuzzer harness: what the MCP client (net/mcp_client.c) reads from outside, as
 * arbitrary bytes. The first byte picks the input: 0 an mcpServers configuration
 * (configure answers OK, EINVAL or EEXIST with a message, and starts nothing); 1
 * a tools/call response (mapped to a value that is JSON, or to a ToolError code
 * of the documented ones with a message); 2 a tools/list (whatever the names,
 * every tool registered in a sandbox has a valid, unique capsa name: only a
 * schema may be refused); 3 lines a server sends, handled by the dispatcher of a
 * server that is not running (nothing may crash or be answered wrongly). */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../net/mcp_client.h"

static capsa_engine *engine;

static void must(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz_mcp_client: %s\n", what);
        __builtin_trap();
    }
}

/* A client with one configured server that is never started. */
static capsa_mcp_client *one_server(mcpc_up **up)
{
    capsa_mcp_client *c = NULL;
    static const char cfg[] = "{\"mcpServers\": {\"s\": {\"command\": \"/nonexistent\"}}}";
    must(capsa_mcp_client_new(NULL, &c) == CAPSA_OK, "a client");
    must(capsa_mcp_client_configure(c, cfg, sizeof(cfg) - 1) == CAPSA_OK, "a server");
    *up = mcpc_server(c, 0);
    return c;
}

static void configuration(const uint8_t *data, size_t size)
{
    capsa_mcp_client *c = NULL;
    must(capsa_mcp_client_new(NULL, &c) == CAPSA_OK, "a client");
    int rc = capsa_mcp_client_configure(c, (const char *)data, size);
    must(rc == CAPSA_OK || rc == CAPSA_EINVAL || rc == CAPSA_EEXIST || rc == CAPSA_ENOMEM,
         "configure answers a documented code");
    must(rc == CAPSA_OK || capsa_mcp_client_errmsg(c)[0], "a refusal says why");
    char *st = capsa_mcp_client_status_json(c);
    must(st && !strstr(st, "\"ready\"") && !strstr(st, "\"starting\""), "nothing is started");
    capsa_free(st);
    capsa_mcp_client_free(c);
}

static void response(const uint8_t *data, size_t size)
{
    json_t *resp = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(resp)) {
        json_decref(resp);
        return;
    }
    json_t *value = NULL;
    char code[48], msg[4200];
    if (mcpc_map_result(resp, "s.t", "s", &value, code, sizeof(code), msg, sizeof(msg)) == 0) {
        char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
        must(text != NULL, "the value is JSON");
        json_t *back = json_loads(text, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);
        must(back != NULL, "the value reads back");
        json_decref(back);
        free(text);
        json_decref(value);
    } else {
        must(strcmp(code, "upstream_error") == 0 || strcmp(code, "tool_error") == 0,
             "a documented ToolError code");
        must(msg[0] != '\0', "a message");
    }
    json_decref(resp);
}

static void listing(const uint8_t *data, size_t size)
{
    json_t *tools = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_array(tools) || json_array_size(tools) > 200) {
        json_decref(tools);
        return;
    }
    mcpc_up *up;
    capsa_mcp_client *c = one_server(&up);
    mcpc_record_listing(up, tools);
    mcpc_record_listing(up, tools); /* again: nothing new, nothing twice */
    capsa_sandbox *sb = NULL, *names = NULL;
    must(capsa_sandbox_new(engine, NULL, &sb) == CAPSA_OK, "a sandbox");
    must(capsa_sandbox_new(engine, NULL, &names) == CAPSA_OK, "a sandbox for the names");
    uint64_t gen = 0;
    capsa_mcp_client_attach(c, sb, &gen); /* a schema capsa refuses is left out */
    uint64_t again = gen;
    must(capsa_mcp_client_attach(c, sb, &again) == CAPSA_OK && again == gen, "attaching again adds nothing");
    /* Every name the client made is a valid capsa name, and unique (as itself and
       as its flat form): each registers, schema-less, in a sandbox of its own. */
    char *st = capsa_mcp_client_status_json(c);
    json_t *status = st ? json_loads(st, 0, NULL) : NULL;
    must(json_is_array(status), "the status is JSON");
    size_t i;
    json_t *name;
    json_array_foreach(json_object_get(json_array_get(status, 0), "tools"), i, name) {
        capsa_tool_def d;
        capsa_tool_def_init(&d);
        d.name = json_string_value(name);
        must(d.name && capsa_tool_add(names, &d) == CAPSA_OK, "a valid, unique tool name");
    }
    json_decref(status);
    capsa_free(st);
    capsa_sandbox_free(names);
    capsa_sandbox_free(sb);
    capsa_mcp_client_free(c);
    json_decref(tools);
}

static void lines(const uint8_t *data, size_t size)
{
    mcpc_up *up;
    capsa_mcp_client *c = one_server(&up);
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        mcpc_dispatch_text(up, p, n);
        p += n + 1;
    }
    capsa_mcp_client_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!engine && capsa_engine_new(NULL, &engine) != CAPSA_OK)
        return 0;
    if (size == 0)
        return 0;
    switch (data[0] % 4) {
    case 0: configuration(data + 1, size - 1); break;
    case 1: response(data + 1, size - 1); break;
    case 2: listing(data + 1, size - 1); break;
    default: lines(data + 1, size - 1); break;
    }
    return 0;
}
