/* The WASI preview1 host functions the guest imports (module
 * "wasi_snapshot_preview1"): standard streams, clocks, randomness and waiting. Every fd the guest names
 * is checked by one function, every guest pointer by capsa__guest_ptr. */
#ifndef CAPSA_WASI_H
#define CAPSA_WASI_H

#include <stddef.h>
#include <stdint.h>

#include <wasm-rt.h>

/* Where the guest's writes to fd 1 and 2 go. */
typedef void (*capsa__wasi_output_fn)(void *ud, int fd, const char *data, size_t len);

/* The host side of the WASI imports of one guest instance. The name is the one
 * wasm2c gives the import module's instance type. */
struct Z_wasi_snapshot_preview1_instance_t {
    const wasm_rt_memory_t *memory; /* the guest's memory, set once instantiated */
    capsa__wasi_output_fn output;
    void *output_ud;
};
typedef struct Z_wasi_snapshot_preview1_instance_t capsa__wasi;

/* The imports the host implements, as wasm2c declares them for a module that
 * imports them (its header names them the same, with the same types). */
uint32_t Z_wasi_snapshot_preview1Z_fd_write(capsa__wasi *, uint32_t, uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_close(capsa__wasi *, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_get(capsa__wasi *, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_seek(capsa__wasi *, uint32_t, uint64_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_clock_time_get(capsa__wasi *, uint32_t, uint64_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_random_get(capsa__wasi *, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_poll_oneoff(capsa__wasi *, uint32_t, uint32_t, uint32_t, uint32_t);

/* WASI errno values used by the host. */
enum {
    CAPSA__WASI_ESUCCESS = 0,
    CAPSA__WASI_EBADF = 8,
    CAPSA__WASI_EFAULT = 21,
    CAPSA__WASI_EINVAL = 28,
    CAPSA__WASI_EIO = 29,
    CAPSA__WASI_ENOTSUP = 58,
    CAPSA__WASI_ESPIPE = 69,
    CAPSA__WASI_ENOTCAPABLE = 76,
};

#endif
