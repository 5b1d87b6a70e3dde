/* The WASI preview1 host functions the guest imports: standard streams, clocks,
 * randomness and waiting (poll_oneoff on clocks, bounded by the run's deadline).
 * The guest has no files and no network; every other descriptor is refused by
 * fd_check, the one place that decides what a descriptor may do. */
#include "wasi.h"

#include <errno.h>
#include <sys/random.h>
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

static uint64_t load_u64(const uint8_t *p)
{
    return (uint64_t)load_u32(p) | (uint64_t)load_u32(p + 4) << 32;
}

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

/* random_get(buf, len): bytes from the host's CSPRNG. */
uint32_t Z_wasi_snapshot_preview1Z_random_get(capsa__wasi *w, uint32_t buf, uint32_t len)
{
    uint8_t *p = capsa__guest_ptr(w->memory, buf, len);
    if (!p)
        return CAPSA__WASI_EFAULT;
    for (uint32_t done = 0; done < len;) {
        ssize_t n = getrandom(p + done, len - done, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return CAPSA__WASI_EIO;
        done += (uint32_t)n;
    }
    return CAPSA__WASI_ESUCCESS;
}

/* Layout of the preview1 structures poll_oneoff reads and writes. */
#define SUBSCRIPTION_SIZE 48
#define EVENT_SIZE 32
#define EVENTTYPE_CLOCK 0
#define EVENTTYPE_FD_READ 1
#define EVENTTYPE_FD_WRITE 2
#define SUBCLOCKFLAG_ABSTIME 1
/* More subscriptions than any libc asks for at once. */
#define MAX_SUBSCRIPTIONS 1024

/* The absolute CLOCK_MONOTONIC time (ns) at which a clock subscription fires, or
 * UINT64_MAX for an unknown clock. */
static uint64_t clock_wake_ns(uint32_t id, uint64_t timeout, int abstime, uint64_t now)
{
    if (!abstime)
        return timeout > UINT64_MAX - now ? UINT64_MAX : now + timeout;
    if (id == 1) /* monotonic: the same clock */
        return timeout;
    if (id == 0) { /* realtime: convert the distance */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t real = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        return timeout <= real ? now : now + (timeout - real);
    }
    return UINT64_MAX;
}

/* poll_oneoff(in, out, nsubscriptions, nevents): waits for the first clock
 * subscription to fire, or reports the standard streams ready at once. Waiting
 * never goes past the run's deadline: the run is stopped there instead. */
uint32_t Z_wasi_snapshot_preview1Z_poll_oneoff(capsa__wasi *w, uint32_t in, uint32_t out,
                                               uint32_t nsubscriptions, uint32_t nevents_ptr)
{
    if (nsubscriptions == 0 || nsubscriptions > MAX_SUBSCRIPTIONS)
        return CAPSA__WASI_EINVAL;
    const uint8_t *subs = capsa__guest_ptr(w->memory, in, (uint64_t)nsubscriptions * SUBSCRIPTION_SIZE);
    uint8_t *events = capsa__guest_ptr(w->memory, out, (uint64_t)nsubscriptions * EVENT_SIZE);
    uint8_t *nevents = capsa__guest_ptr(w->memory, nevents_ptr, 4);
    if (!subs || !events || !nevents)
        return CAPSA__WASI_EFAULT;

    uint64_t now = capsa__rt_now_ns(), wake = UINT64_MAX;
    int ready_fds = 0;
    for (uint32_t i = 0; i < nsubscriptions; i++) {
        const uint8_t *s = subs + (size_t)i * SUBSCRIPTION_SIZE;
        uint8_t tag = s[8];
        if (tag == EVENTTYPE_CLOCK) {
            uint64_t t = clock_wake_ns(load_u32(s + 16), load_u64(s + 24),
                                       (s[40] | s[41] << 8) & SUBCLOCKFLAG_ABSTIME, now);
            if (t < wake)
                wake = t;
        } else {
            ready_fds++; /* streams never block; a bad fd is reported as an event error */
        }
    }
    if (!ready_fds) {
        if (wake == UINT64_MAX)
            return CAPSA__WASI_EINVAL; /* nothing can ever fire */
        uint64_t deadline = capsa__rt_deadline_ns();
        uint64_t until = deadline && deadline < wake ? deadline : wake;
        while ((now = capsa__rt_now_ns()) < until) {
            uint64_t d = until - now;
            struct timespec ts = { (time_t)(d / 1000000000u), (long)(d % 1000000000u) };
            nanosleep(&ts, NULL);
        }
        if (deadline && deadline < wake)
            capsa__rt_timeout();
    }

    uint32_t n = 0;
    for (uint32_t i = 0; i < nsubscriptions; i++) {
        const uint8_t *s = subs + (size_t)i * SUBSCRIPTION_SIZE;
        uint8_t tag = s[8];
        uint16_t error = CAPSA__WASI_ESUCCESS;
        if (tag == EVENTTYPE_CLOCK) {
            uint64_t t = clock_wake_ns(load_u32(s + 16), load_u64(s + 24),
                                       (s[40] | s[41] << 8) & SUBCLOCKFLAG_ABSTIME, now);
            if (t > now)
                continue;
        } else if (tag == EVENTTYPE_FD_READ || tag == EVENTTYPE_FD_WRITE) {
            uint32_t fd = load_u32(s + 16);
            error = (uint16_t)fd_check(w, fd, tag == EVENTTYPE_FD_READ ? RIGHT_FD_READ : RIGHT_FD_WRITE);
        } else {
            error = CAPSA__WASI_EINVAL;
        }
        uint8_t *e = events + (size_t)n * EVENT_SIZE;
        for (int k = 0; k < EVENT_SIZE; k++)
            e[k] = 0;
        for (int k = 0; k < 8; k++)
            e[k] = s[k]; /* userdata */
        e[8] = (uint8_t)error;
        e[9] = (uint8_t)(error >> 8);
        e[10] = tag;
        n++;
    }
    store_u32(nevents, n);
    return CAPSA__WASI_ESUCCESS;
}
