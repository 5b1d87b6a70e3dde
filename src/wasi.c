/* The WASI preview1 host functions the guest imports: standard streams and clocks.
 * The guest has no files and no network; every other descriptor is refused by
 * fd_check, the one place that decides what a descriptor may do. */
#include "wasi.h"

#include <time.h>

#include "rt.h"

/* Rights bits of the preview1 spec that the standard streams carry. */
#define RIGHT_FD_READ (1ull << 1)
#define RIGHT_FD_WRITE (1ull << 6)

#define FILETYPE_CHARACTER_DEVICE 2

/* Checks that fd exists and has all of `rights`; returns a WASI errno. */
static uint32_t fd_check(const capsa__wasi *w, uint32_t fd, uint64_t rights)
{
    (void)w;
    uint64_t have;
    switch (fd) {
    case 0: have = RIGHT_FD_READ; break;
    case 1:
    case 2: have = RIGHT_FD_WRITE; break;
    default: return CAPSA__WASI_EBADF;
    }
    return (have & rights) == rights ? CAPSA__WASI_ESUCCESS : CAPSA__WASI_ENOTCAPABLE;
}

static void store_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void store_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t load_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The import declarations match what wasm2c generates for these names. */
uint32_t Z_wasi_snapshot_preview1Z_fd_write(capsa__wasi *, uint32_t, uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_close(capsa__wasi *, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_get(capsa__wasi *, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_seek(capsa__wasi *, uint32_t, uint64_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_clock_time_get(capsa__wasi *, uint32_t, uint64_t, uint32_t);

/* fd_write(fd, iovs, iovs_len, nwritten): gathers the guest's buffers to the
 * output hook. The iovec array and every buffer are checked before any is used. */
uint32_t Z_wasi_snapshot_preview1Z_fd_write(capsa__wasi *w, uint32_t fd, uint32_t iovs,
                                            uint32_t iovs_len, uint32_t nwritten_ptr)
{
    uint32_t err = fd_check(w, fd, RIGHT_FD_WRITE);
    if (err)
        return err;
    const uint8_t *vec = capsa__guest_ptr(w->memory, iovs, (uint64_t)iovs_len * 8);
    uint8_t *nwritten = capsa__guest_ptr(w->memory, nwritten_ptr, 4);
    if (!vec || !nwritten)
        return CAPSA__WASI_EFAULT;
    uint64_t total = 0;
    for (uint32_t i = 0; i < iovs_len; i++) {
        uint32_t len = load_u32(vec + 8 * i + 4);
        if (!capsa__guest_ptr(w->memory, load_u32(vec + 8 * i), len))
            return CAPSA__WASI_EFAULT;
        total += len;
    }
    if (total > UINT32_MAX)
        return CAPSA__WASI_EINVAL;
    for (uint32_t i = 0; i < iovs_len; i++) {
        uint32_t len = load_u32(vec + 8 * i + 4);
        const uint8_t *p = capsa__guest_ptr(w->memory, load_u32(vec + 8 * i), len);
        if (len && w->output)
            w->output(w->output_ud, (int)fd, (const char *)p, len);
    }
    store_u32(nwritten, (uint32_t)total);
    return CAPSA__WASI_ESUCCESS;
}

/* The standard streams stay open for the guest's whole life. */
uint32_t Z_wasi_snapshot_preview1Z_fd_close(capsa__wasi *w, uint32_t fd)
{
    uint32_t err = fd_check(w, fd, 0);
    return err ? err : CAPSA__WASI_ENOTSUP;
}

/* fd_fdstat_get(fd, buf): the 24-byte fdstat of a standard stream (a character
 * device with only its read or write right). */
uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_get(capsa__wasi *w, uint32_t fd, uint32_t buf)
{
    uint32_t err = fd_check(w, fd, 0);
    if (err)
        return err;
    uint8_t *p = capsa__guest_ptr(w->memory, buf, 24);
    if (!p)
        return CAPSA__WASI_EFAULT;
    for (int i = 0; i < 24; i++)
        p[i] = 0;
    p[0] = FILETYPE_CHARACTER_DEVICE;
    store_u64(p + 8, fd == 0 ? RIGHT_FD_READ : RIGHT_FD_WRITE);
    return CAPSA__WASI_ESUCCESS;
}

/* Streams cannot seek. */
uint32_t Z_wasi_snapshot_preview1Z_fd_seek(capsa__wasi *w, uint32_t fd, uint64_t offset,
                                           uint32_t whence, uint32_t newoffset)
{
    (void)offset;
    (void)whence;
    (void)newoffset;
    uint32_t err = fd_check(w, fd, 0);
    return err ? err : CAPSA__WASI_ESPIPE;
}

/* clock_time_get(id, precision, time): realtime, monotonic, and the process and
 * thread CPU clocks, in nanoseconds. */
uint32_t Z_wasi_snapshot_preview1Z_clock_time_get(capsa__wasi *w, uint32_t id,
                                                  uint64_t precision, uint32_t out)
{
    (void)precision;
    static const clockid_t ids[] = { CLOCK_REALTIME, CLOCK_MONOTONIC,
                                     CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID };
    if (id >= sizeof(ids) / sizeof(ids[0]))
        return CAPSA__WASI_EINVAL;
    uint8_t *p = capsa__guest_ptr(w->memory, out, 8);
    if (!p)
        return CAPSA__WASI_EFAULT;
    struct timespec ts;
    if (clock_gettime(ids[id], &ts) != 0)
        return CAPSA__WASI_EINVAL;
    store_u64(p, (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
    return CAPSA__WASI_ESUCCESS;
}
