/* The conformance runner's view of one wasm2c-compiled test module: the shim
 * (tests/wasi/shim.c, compiled once per module) fills this in with that module's
 * functions, so that the runner (tests/wasi/runner.c) is compiled only once. */
#ifndef CAPSA_WASI_RUNNER_H
#define CAPSA_WASI_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "wasi.h"

typedef struct wasi_test_module {
    const char *name;          /* the wasm2c module name */
    size_t instance_size;      /* sizeof its instance struct */
    void (*init_module)(void);
    void (*instantiate)(void *inst, capsa__wasi *w);
    void (*start)(void *inst);
    void (*free)(void *inst);
    wasm_rt_memory_t *(*memory)(void *inst);
    int64_t *(*fuel)(void *inst);
} wasi_test_module;

/* Defined by the shim of the module linked in. */
extern const wasi_test_module wasi_test_module_desc;

#endif
