/* libFuzzer harness: checkpoints to restore. The first byte picks what the rest
 * is: even, a whole blob as a caller would pass it (header, zstd frame); odd, the
 * sections of the contents, which the harness seals (capsa__checkpoint_seal: the
 * header of this build and a valid frame) so that the fuzzer reaches the parser
 * of every section, not only the checksum. Whatever the input, restoring answers
 * a documented code with a message, or gives a sandbox that runs code with a
 * documented code and checkpoints again; nothing may crash or leak. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "capsa.h"
#include "checkpoint.h"

static capsa_engine *engine;

/* A tool whose callback the restore can bind: named as the seeds' tool. */
static void tool_echo(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    (void)ud;
    capsa_tool_reply_json(reply, call->args, call->args_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!engine && capsa_engine_new(NULL, &engine) != CAPSA_OK) {
        fprintf(stderr, "fuzz_restore: no engine\n");
        abort();
    }
    if (size == 0)
        return 0;
    capsa__buf sealed = { 0 };
    const void *blob = data + 1;
    size_t len = size - 1;
    if (data[0] & 1) {
        if (capsa__checkpoint_seal(engine, data + 1, size - 1, &sealed) != CAPSA_OK)
            return 0; /* out of memory */
        blob = sealed.data;
        len = sealed.len;
    }
    capsa_tool_def echo;
    capsa_tool_def_init(&echo);
    echo.name = "echo";
    echo.fn = tool_echo;
    const capsa_tool_def *defs[] = { &echo };
    capsa_restore_options ro;
    capsa_restore_options_init(&ro);
    ro.tools = defs;
    ro.n_tools = 1;
    ro.max_bytes = 64u << 20; /* within libFuzzer's memory limit */
    capsa_sandbox *sb = NULL;
    char msg[512] = "";
    int rc = capsa_sandbox_restore(engine, blob, len, &ro, &sb, msg, sizeof(msg));
    switch (rc) {
    case CAPSA_OK:
        if (!sb)
            abort();
        break;
    case CAPSA_EINVAL:
    case CAPSA_ENOENT:
    case CAPSA_ETOOBIG:
    case CAPSA_ENOMEM:
    case CAPSA_ENOSPC:
        if (sb || !msg[0]) {
            fprintf(stderr, "fuzz_restore: %s with %s\n", capsa_errname(rc),
                    sb ? "a sandbox" : "no message");
            abort();
        }
        break;
    default:
        fprintf(stderr, "fuzz_restore: unexpected status %s: %s\n", capsa_errname(rc), msg);
        abort();
    }
    if (sb) {
        /* The restored guest runs, when its limits bound the run (a blob may lift
           them, as a caller may: its code then runs as any script would). */
        capsa_options o;
        capsa_options_init(&o);
        capsa_sandbox_options(sb, &o);
        if (o.timeout_ms && o.timeout_ms <= 2000 && o.memory_limit <= (256u << 20)) {
            const capsa_result *r = NULL;
            int run = capsa_run(sb, "return 1", 8, NULL, &r);
            if (strcmp(capsa_errname(run), "CAPSA_UNKNOWN") == 0 || run == CAPSA_PENDING)
                abort();
        }
        char *again = NULL;
        size_t n = 0;
        int ck = capsa_checkpoint(sb, &again, &n);
        if (ck != CAPSA_OK && ck != CAPSA_EINVAL && ck != CAPSA_ENOMEM)
            abort();
        capsa_free(again);
        capsa_sandbox_free(sb);
    }
    capsa__buf_free(&sealed, &capsa__default_allocator);
    return 0;
}
