/* libFuzzer harness: tool definitions (name, description, JSON Schema) as the
 * host's caller or a tools file gives them, as arbitrary bytes. The input is split
 * at NUL bytes into name, description and schema (of the parameters, and of the
 * result too for every second tool). capsa_tool_add must accept or
 * refuse with a documented code and a message, never crash or leak; an accepted
 * tool's TypeScript declarations must land in /tools and be readable, and the
 * guest must see the registry (tools.list()) without breaking. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capsa.h"

static capsa_engine *engine;

static void reply_null(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    (void)ud;
    (void)call;
    capsa_tool_reply_json(reply, "null", 4);
}

/* The next NUL-terminated piece of the input, copied (NULL when none is left). */
static char *piece(const uint8_t **p, const uint8_t *end)
{
    if (*p >= end)
        return NULL;
    size_t n = strnlen((const char *)*p, (size_t)(end - *p));
    char *s = malloc(n + 1);
    if (!s)
        abort();
    memcpy(s, *p, n);
    s[n] = '\0';
    *p += n + 1;
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!engine && capsa_engine_new(NULL, &engine) != CAPSA_OK)
        abort();
    capsa_options o;
    capsa_options_init(&o);
    o.fs_max_bytes = 1 << 20;
    o.timeout_ms = 2000;
    capsa_sandbox *sb = NULL;
    if (capsa_sandbox_new(engine, &o, &sb) != CAPSA_OK)
        abort();
    const uint8_t *p = data, *end = data + size;
    int added = 0;
    for (int i = 0; i < 4 && p < end; i++) {
        char *name = piece(&p, end), *desc = piece(&p, end), *schema = piece(&p, end);
        capsa_tool_def d;
        capsa_tool_def_init(&d);
        d.name = name;
        d.description = desc;
        d.parameters = schema;
        d.returns = i % 2 ? schema : NULL;
        d.fn = reply_null;
        d.flags = CAPSA_TOOL_INLINE;
        int rc = capsa_tool_add(sb, &d);
        if (rc != CAPSA_OK && rc != CAPSA_EINVAL && rc != CAPSA_EEXIST && rc != CAPSA_ENOSPC &&
            rc != CAPSA_ENOMEM)
            abort();
        if (rc != CAPSA_OK && !capsa_errmsg(sb)[0])
            abort();
        added += rc == CAPSA_OK;
        free(name);
        free(desc);
        free(schema);
    }
    if (added) {
        char *index = NULL;
        size_t len = 0;
        if (capsa_fs_read(sb, "/tools/index.d.ts", &index, &len) != CAPSA_OK)
            abort(); /* an accepted tool is declared */
        capsa_free(index);
        static const char code[] = "return tools.list().length";
        const capsa_result *r = NULL;
        int rc = capsa_run(sb, code, sizeof(code) - 1, NULL, &r);
        if (rc != CAPSA_OK)
            abort(); /* the guest sees the registry without breaking */
    }
    capsa_sandbox_free(sb);
    return 0;
}
