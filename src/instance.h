/* One instance of the guest module (QuickJS and capsa's JS runtime, compiled from
 * wasm by wasm2c): creation, the calls into its exports, and its "capsa" imports.
 * This is the only file that sees the generated module's names. */
#ifndef CAPSA_INSTANCE_H
#define CAPSA_INSTANCE_H

#include <stddef.h>
#include <stdint.h>

#include "capsa.h"
#include "wasi.h"

typedef struct capsa__instance capsa__instance;

/* What the instance reports to its owner while it runs. */
typedef struct capsa__instance_hooks {
    capsa__wasi_output_fn output;              /* writes to fd 1 and 2 */
    /* One part of the run's outcome (CAPSA_RESULT_* of guest/abi.h); returns 0,
     * or -1 when it could not be kept (out of memory). */
    int (*result)(void *ud, uint32_t kind, const char *data, size_t len);
    void *ud;
} capsa__instance_hooks;

/* Registers the module's function types once per process; returns 0 or -1. */
int capsa__instance_module_init(void);

/* Instantiates the guest and initialises QuickJS and the JS runtime in it, with
 * at most memory_limit bytes of linear memory. On CAPSA_OK *out owns the instance
 * (free with capsa__instance_free). Otherwise *out is NULL, and *trap holds the trap
 * code for CAPSA_ETRAP; msg (size msgsize) gets a description. */
int capsa__instance_new(const capsa_allocator *a, const capsa__instance_hooks *hooks,
                     uint64_t memory_limit, capsa__instance **out, char *msg, size_t msgsize);

/* Frees the instance, its memory reservation included. NULL is a no-op. */
void capsa__instance_free(capsa__instance *g);

/* Runs code[0..len) named filename. Returns CAPSA_OK (the script completed),
 * CAPSA_ESCRIPT (it threw), CAPSA_ETRAP (the guest trapped: the instance must not
 * be used again), CAPSA_ENOMEM, CAPSA_EGUEST; msg gets a description of errors. */
int capsa__instance_run(capsa__instance *g, const char *code, size_t len, const char *filename,
                     char *msg, size_t msgsize);

/* Bytes of linear memory the instance has now. */
uint64_t capsa__instance_memory_bytes(const capsa__instance *g);

#endif
