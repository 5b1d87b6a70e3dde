/* libFuzzer harness: arbitrary bytes as a shell command line (up to the first NUL),
 * run by capsa_shell in a sandbox with small limits. The host must survive, the
 * answer must be one of the documented codes, and the shell must never trap: it
 * is capsa's own C, so a trap (a stack overflow, a wild access) is a bug in it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capsa.h"

static capsa_engine *engine;

/* A new sandbox for each input (cheap: a copy-on-write map of the image), so that
 * neither the shell's state nor the files of one input decide the next. */
static capsa_sandbox *new_sandbox(void)
{
    capsa_options o;
    capsa_options_init(&o);
    o.memory_limit = 64u << 20;
    o.timeout_ms = 1000;
    o.fuel = 2000000;
    o.max_output = 4096;
    capsa_sandbox *sb = NULL;
    if ((!engine && capsa_engine_new(NULL, &engine) != CAPSA_OK) ||
        capsa_sandbox_new(engine, &o, &sb) != CAPSA_OK) {
        fprintf(stderr, "fuzz_shell: cannot create a sandbox\n");
        abort();
    }
    return sb;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    capsa_sandbox *sb = new_sandbox();
    char *cmd = malloc(size + 1);
    if (!cmd)
        return 0;
    memcpy(cmd, data, size);
    cmd[size] = '\0';
    const capsa_result *r = NULL;
    int rc = capsa_shell(sb, cmd, "input\n", 6, &r);
    free(cmd);
    switch (rc) {
    case CAPSA_OK:
        if (!r || capsa_result_exit_code(r) < 0 || capsa_result_exit_code(r) > 255)
            abort(); /* a finished command line has its status */
        free(capsa_result_json(r));
        break;
    case CAPSA_ETIMEOUT:
    case CAPSA_EFUEL:
        if (!r)
            abort();
        break;
    case CAPSA_ENOMEM:
        break;
    default:
        fprintf(stderr, "fuzz_shell: unexpected status %s: %s\n", capsa_errname(rc),
                capsa_errmsg(sb));
        abort();
    }
    capsa_sandbox_free(sb);
    return 0;
}
