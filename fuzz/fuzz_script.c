/* libFuzzer harness: arbitrary bytes as a script, run in a sandbox with small
 * limits. Whatever the input, the host must survive, and the sandbox must answer
 * with one of capsa_run's documented codes and stay usable. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capsa.h"

static capsa_engine *engine;
static capsa_sandbox *sb;

static void setup(void)
{
    capsa_options o;
    capsa_options_init(&o);
    o.memory_limit = 32u << 20;
    o.timeout_ms = 1000;
    o.fuel = 2000000;
    o.max_output = 4096;
    if (capsa_engine_new(NULL, &engine) != CAPSA_OK || capsa_sandbox_new(engine, &o, &sb) != CAPSA_OK) {
        fprintf(stderr, "fuzz_script: cannot create a sandbox\n");
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!sb)
        setup();
    const capsa_result *r = NULL;
    int rc = capsa_run(sb, (const char *)data, size, "fuzz.js", &r);
    switch (rc) {
    case CAPSA_OK:
    case CAPSA_ESCRIPT:
    case CAPSA_ETRAP:
    case CAPSA_ETIMEOUT:
    case CAPSA_EFUEL:
        if (!r)
            abort(); /* these codes come with a result */
        free(capsa_result_json(r));
        break;
    case CAPSA_ENOMEM:
        break;
    default:
        fprintf(stderr, "fuzz_script: unexpected status %s\n", capsa_errname(rc));
        abort();
    }
    /* Each input starts from the image: state left by one must not decide the next. */
    if (capsa_reset(sb) != CAPSA_OK)
        abort();
    return 0;
}
