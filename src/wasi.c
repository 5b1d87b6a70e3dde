/* The WASI preview1 host functions the guest imports (module
 * "wasi_snapshot_preview1"), over the sandbox's in-memory filesystem: an fd table
 * with rights, files and directories of the VFS, standard streams, clocks,
 * randomness and waiting. fd_check is the one place that decides what a
 * descriptor may do; the VFS (capsa__vfs_allow) decides what the guest may do to
 * a node; capsa__guest_ptr checks every guest pointer. There is no network. */
#include "wasi.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "rt.h"

/* ---- the spec's constants ------------------------------------------------------ */

/* Rights (preview1 `rights` bits). */
#define RIGHT_FD_DATASYNC (1ull << 0)
#define RIGHT_FD_READ (1ull << 1)
#define RIGHT_FD_SEEK (1ull << 2)
#define RIGHT_FD_FDSTAT_SET_FLAGS (1ull << 3)
#define RIGHT_FD_SYNC (1ull << 4)
#define RIGHT_FD_TELL (1ull << 5)
#define RIGHT_FD_WRITE (1ull << 6)
#define RIGHT_FD_ADVISE (1ull << 7)
#define RIGHT_FD_ALLOCATE (1ull << 8)
#define RIGHT_PATH_CREATE_DIRECTORY (1ull << 9)
#define RIGHT_PATH_CREATE_FILE (1ull << 10)
#define RIGHT_PATH_LINK_SOURCE (1ull << 11)
#define RIGHT_PATH_LINK_TARGET (1ull << 12)
#define RIGHT_PATH_OPEN (1ull << 13)
#define RIGHT_FD_READDIR (1ull << 14)
#define RIGHT_PATH_READLINK (1ull << 15)
#define RIGHT_PATH_RENAME_SOURCE (1ull << 16)
#define RIGHT_PATH_RENAME_TARGET (1ull << 17)
#define RIGHT_PATH_FILESTAT_GET (1ull << 18)
#define RIGHT_PATH_FILESTAT_SET_SIZE (1ull << 19)
#define RIGHT_PATH_FILESTAT_SET_TIMES (1ull << 20)
#define RIGHT_FD_FILESTAT_GET (1ull << 21)
#define RIGHT_FD_FILESTAT_SET_SIZE (1ull << 22)
#define RIGHT_FD_FILESTAT_SET_TIMES (1ull << 23)
#define RIGHT_PATH_SYMLINK (1ull << 24)
#define RIGHT_PATH_REMOVE_DIRECTORY (1ull << 25)
#define RIGHT_PATH_UNLINK_FILE (1ull << 26)
#define RIGHT_POLL_FD_READWRITE (1ull << 27)
#define RIGHT_SOCK_SHUTDOWN (1ull << 28)

/* The most a descriptor of each kind can hold (as uvwasi and wasi-common give). */
#define RIGHTS_FILE                                                                      \
    (RIGHT_FD_DATASYNC | RIGHT_FD_READ | RIGHT_FD_SEEK | RIGHT_FD_FDSTAT_SET_FLAGS |     \
     RIGHT_FD_SYNC | RIGHT_FD_TELL | RIGHT_FD_WRITE | RIGHT_FD_ADVISE | RIGHT_FD_ALLOCATE | \
     RIGHT_FD_FILESTAT_GET | RIGHT_FD_FILESTAT_SET_SIZE | RIGHT_FD_FILESTAT_SET_TIMES |  \
     RIGHT_POLL_FD_READWRITE)
#define RIGHTS_DIR                                                                       \
    (RIGHT_FD_FDSTAT_SET_FLAGS | RIGHT_FD_SYNC | RIGHT_PATH_CREATE_DIRECTORY |           \
     RIGHT_PATH_CREATE_FILE | RIGHT_PATH_LINK_SOURCE | RIGHT_PATH_LINK_TARGET |          \
     RIGHT_PATH_OPEN | RIGHT_FD_READDIR | RIGHT_PATH_READLINK | RIGHT_PATH_RENAME_SOURCE | \
     RIGHT_PATH_RENAME_TARGET | RIGHT_PATH_FILESTAT_GET | RIGHT_PATH_FILESTAT_SET_SIZE | \
     RIGHT_PATH_FILESTAT_SET_TIMES | RIGHT_FD_FILESTAT_GET | RIGHT_FD_FILESTAT_SET_TIMES | \
     RIGHT_PATH_SYMLINK | RIGHT_PATH_REMOVE_DIRECTORY | RIGHT_PATH_UNLINK_FILE |         \
     RIGHT_POLL_FD_READWRITE)
#define RIGHTS_STDIN \
    (RIGHT_FD_READ | RIGHT_FD_FDSTAT_SET_FLAGS | RIGHT_FD_FILESTAT_GET | RIGHT_POLL_FD_READWRITE)
#define RIGHTS_STDOUT \
    (RIGHT_FD_WRITE | RIGHT_FD_FDSTAT_SET_FLAGS | RIGHT_FD_FILESTAT_GET | RIGHT_POLL_FD_READWRITE)
/* Rights that make an open a write (wasi-libc asks for them with O_WRONLY). */
#define RIGHTS_WRITING (RIGHT_FD_WRITE | RIGHT_FD_ALLOCATE | RIGHT_FD_FILESTAT_SET_SIZE)

/* Not a WASI right: asks fd_check for a directory (ENOTDIR otherwise). */
#define NEED_DIR (1ull << 63)

enum { KIND_FREE = 0, KIND_STDIN = 1, KIND_STDOUT = 2, KIND_NODE = 3 };

#define FILETYPE_UNKNOWN 0
#define FILETYPE_CHARACTER_DEVICE 2

#define FDFLAG_APPEND 1
#define FDFLAG_DSYNC 2
#define FDFLAG_NONBLOCK 4
#define FDFLAG_RSYNC 8
#define FDFLAG_SYNC 16
#define FDFLAGS_ALL (FDFLAG_APPEND | FDFLAG_DSYNC | FDFLAG_NONBLOCK | FDFLAG_RSYNC | FDFLAG_SYNC)

#define OFLAGS_ALL (CAPSA__VFS_O_CREAT | CAPSA__VFS_O_DIRECTORY | CAPSA__VFS_O_EXCL | CAPSA__VFS_O_TRUNC)
#define LOOKUP_SYMLINK_FOLLOW 1

#define FSTFLAG_ATIM 1
#define FSTFLAG_ATIM_NOW 2
#define FSTFLAG_MTIM 4
#define FSTFLAG_MTIM_NOW 8

#define WHENCE_SET 0
#define WHENCE_CUR 1
#define WHENCE_END 2

#define FDSTAT_SIZE 24
#define FILESTAT_SIZE 64
#define DIRENT_SIZE 24
#define IOVEC_SIZE 8

/* ---- small helpers --------------------------------------------------------------- */

/* The host address of guest bytes [ptr, ptr + len), or NULL when they are not all
 * inside the guest's memory (or no memory is attached yet). */
static uint8_t *guest(const capsa__wasi *w, uint32_t ptr, uint64_t len)
{
    return w->memory ? capsa__guest_ptr(w->memory, ptr, len) : NULL;
}

/* Copies the guest's path [ptr, ptr + len) into buf (CAPSA__VFS_PATH_MAX + 1
 * bytes): the VFS then resolves bytes the guest can no longer change. EFAULT
 * when they are outside memory, ENAMETOOLONG when longer than the VFS accepts. */
static uint32_t guest_path(const capsa__wasi *w, uint32_t ptr, uint32_t len, char *buf)
{
    const uint8_t *p = guest(w, ptr, len);
    if (!p)
        return CAPSA__WASI_EFAULT;
    if (len > CAPSA__VFS_PATH_MAX)
        return CAPSA__WASI_ENAMETOOLONG;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return CAPSA__WASI_ESUCCESS;
}

/* The one check of a descriptor: fd must be open (EBADF), a directory when
 * `rights` has NEED_DIR (ENOTDIR), and hold every right in `rights`
 * (ENOTCAPABLE). On success *out (if not NULL) points at its slot, valid until
 * the fd table changes. */
static uint32_t fd_check(capsa__wasi *w, uint32_t fd, uint64_t rights, capsa__wasi_fd **out)
{
    if (fd >= w->nfds || w->fds[fd].kind == KIND_FREE)
        return CAPSA__WASI_EBADF;
    capsa__wasi_fd *e = &w->fds[fd];
    if ((rights & NEED_DIR) &&
        (e->kind != KIND_NODE || capsa__vfs_node_type(e->node) != CAPSA__VFS_DIR))
        return CAPSA__WASI_ENOTDIR;
    rights &= ~NEED_DIR;
    if ((e->rights_base & rights) != rights)
        return CAPSA__WASI_ENOTCAPABLE;
    if (out)
        *out = e;
    return CAPSA__WASI_ESUCCESS;
}

/* The check of a descriptor that must be a file or a directory, not a stream:
 * open (EBADF), a node (ESPIPE), then fd_check's rights. */
static uint32_t node_check(capsa__wasi *w, uint32_t fd, uint64_t rights, capsa__wasi_fd **out)
{
    capsa__wasi_fd *e;
    uint32_t err = fd_check(w, fd, 0, &e);
    if (err)
        return err;
    if (e->kind != KIND_NODE)
        return CAPSA__WASI_ESPIPE;
    return fd_check(w, fd, rights, out);
}

/* Releases what slot e holds and marks it free. */
static void fd_release(capsa__wasi *w, capsa__wasi_fd *e)
{
    if (e->node)
        capsa__vfs_unref(w->vfs, e->node);
    capsa__free(w->alloc, e->preopen);
    memset(e, 0, sizeof(*e));
}

/* The lowest free slot, growing the table as needed; EMFILE past
 * CAPSA__WASI_MAX_FDS, ENOMEM when the table cannot grow. */
static uint32_t fd_alloc(capsa__wasi *w, uint32_t *fd)
{
    for (uint32_t i = 0; i < w->nfds; i++) {
        if (w->fds[i].kind == KIND_FREE) {
            *fd = i;
            return CAPSA__WASI_ESUCCESS;
        }
    }
    if (w->nfds >= CAPSA__WASI_MAX_FDS)
        return CAPSA__WASI_EMFILE;
    uint32_t n = w->nfds ? w->nfds * 2 : 16;
    if (n > CAPSA__WASI_MAX_FDS)
        n = CAPSA__WASI_MAX_FDS;
    capsa__wasi_fd *t = w->alloc->realloc_fn(w->alloc->ud, w->fds, n * sizeof(*t));
    if (!t)
        return CAPSA__WASI_ENOMEM;
    memset(t + w->nfds, 0, (n - w->nfds) * sizeof(*t));
    *fd = w->nfds;
    w->fds = t;
    w->nfds = n;
    return CAPSA__WASI_ESUCCESS;
}

/* WASI's filetype of a descriptor. Node types are numbered as WASI's, so the
 * VFS's null device (/dev/null) is a character device like the streams. */
static uint8_t fd_filetype(const capsa__wasi *w, const capsa__wasi_fd *e)
{
    if (e->kind == KIND_NODE)
        return (uint8_t)capsa__vfs_node_type(e->node);
    /* Standard input is a terminal only when the host's is (wasi-libc's isatty
       asks for a character device); otherwise a pipe, which WASI cannot name. */
    if (e->kind == KIND_STDIN)
        return w->stdin_src && w->stdin_src->tty ? FILETYPE_CHARACTER_DEVICE : FILETYPE_UNKNOWN;
    return e->kind == KIND_FREE ? FILETYPE_UNKNOWN : FILETYPE_CHARACTER_DEVICE;
}

/* Writes the 64-byte filestat of st at p. All nodes share one device. */
static void put_filestat(uint8_t *p, const capsa__vfs_stat *st)
{
    memset(p, 0, FILESTAT_SIZE);
    capsa__store_le64(p + 0, 1);
    capsa__store_le64(p + 8, st->ino);
    p[16] = (uint8_t)st->type;
    capsa__store_le64(p + 24, st->nlink);
    capsa__store_le64(p + 32, st->size);
    capsa__store_le64(p + 40, st->atim);
    capsa__store_le64(p + 48, st->mtim);
    capsa__store_le64(p + 56, st->ctim);
}

/* Checks an iovec array and every buffer it names before any is used: EFAULT if
 * any lies outside memory, EINVAL if together they exceed what a u32 count can
 * report. *vec gets the array. */
static uint32_t iovecs_check(const capsa__wasi *w, uint32_t iovs, uint32_t iovs_len,
                             const uint8_t **vec, uint64_t *total)
{
    const uint8_t *v = guest(w, iovs, (uint64_t)iovs_len * IOVEC_SIZE);
    if (!v)
        return CAPSA__WASI_EFAULT;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < iovs_len; i++) {
        uint32_t len = capsa__load_le32(v + IOVEC_SIZE * i + 4);
        if (!guest(w, capsa__load_le32(v + IOVEC_SIZE * i), len))
            return CAPSA__WASI_EFAULT;
        sum += len;
    }
    if (sum > UINT32_MAX)
        return CAPSA__WASI_EINVAL;
    *vec = v;
    *total = sum;
    return CAPSA__WASI_ESUCCESS;
}

/* The host address of buffer i of a checked iovec array (checked again: the
 * array lives in guest memory), and its length. */
static uint8_t *iovec_at(const capsa__wasi *w, const uint8_t *vec, uint32_t i, uint32_t *len)
{
    *len = capsa__load_le32(vec + IOVEC_SIZE * i + 4);
    return guest(w, capsa__load_le32(vec + IOVEC_SIZE * i), *len);
}

/* ---- setup ------------------------------------------------------------------------ */

/* Copies n strings into a new array *out; returns 0, or -1 when out of memory
 * (*out then holds the copies made so far, the rest NULL, for free_strings). */
static int copy_strings(const capsa_allocator *a, const char *const *src, size_t n, char ***out)
{
    *out = NULL;
    if (!n)
        return 0;
    if (n > SIZE_MAX / sizeof(char *))
        return -1;
    char **v = capsa__malloc(a, n * sizeof(char *));
    if (!v)
        return -1;
    memset(v, 0, n * sizeof(char *));
    *out = v;
    for (size_t i = 0; i < n; i++) {
        v[i] = capsa__strndup(a, src[i], strlen(src[i]));
        if (!v[i])
            return -1;
    }
    return 0;
}

static void free_strings(const capsa_allocator *a, char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        capsa__free(a, v[i]);
    capsa__free(a, v);
}

int capsa__wasi_init(capsa__wasi *w, const capsa_allocator *a, capsa__vfs *vfs,
                     const capsa__wasi_config *cfg)
{
    /* The memory and the output hook belong to the caller: kept as they are. */
    const wasm_rt_memory_t *memory = w->memory;
    capsa__wasi_output_fn output = w->output;
    void *output_ud = w->output_ud;
    memset(w, 0, sizeof(*w));
    w->memory = memory;
    w->output = output;
    w->output_ud = output_ud;
    w->alloc = a ? a : &capsa__default_allocator;
    w->vfs = vfs;
    static const capsa__wasi_config none;
    if (!cfg)
        cfg = &none;

    int err = CAPSA__WASI_ENOMEM;
    if (cfg->npreopens > CAPSA__WASI_MAX_FDS - 3) {
        err = CAPSA__WASI_EMFILE;
        goto fail;
    }
    uint32_t n = (uint32_t)(3 + cfg->npreopens);
    w->fds = capsa__malloc(w->alloc, n * sizeof(*w->fds));
    if (!w->fds)
        goto fail;
    memset(w->fds, 0, n * sizeof(*w->fds));
    w->nfds = n;
    w->fds[0] = (capsa__wasi_fd){ .kind = KIND_STDIN, .rights_base = RIGHTS_STDIN };
    w->fds[1] = (capsa__wasi_fd){ .kind = KIND_STDOUT, .rights_base = RIGHTS_STDOUT };
    w->fds[2] = w->fds[1];
    for (size_t i = 0; i < cfg->npreopens; i++) {
        const capsa__wasi_preopen *p = &cfg->preopens[i];
        capsa__wasi_fd *e = &w->fds[3 + i];
        capsa__vnode *node;
        err = capsa__vfs_open(vfs, capsa__vfs_root(vfs), p->vfs_path, strlen(p->vfs_path),
                              CAPSA__VFS_FOLLOW, CAPSA__VFS_O_DIRECTORY, 0, CAPSA__VFS_HOST, &node);
        if (err)
            goto fail;
        e->node = node;
        e->kind = KIND_NODE;
        e->rights_base = RIGHTS_DIR;
        e->rights_inheriting = RIGHTS_DIR | RIGHTS_FILE;
        e->preopen = capsa__strndup(w->alloc, p->name, strlen(p->name));
        err = CAPSA__WASI_ENOMEM;
        if (!e->preopen)
            goto fail;
    }
    if (copy_strings(w->alloc, cfg->argv, cfg->argc, &w->argv) != 0)
        goto fail;
    w->argc = cfg->argc;
    if (copy_strings(w->alloc, cfg->envp, cfg->envc, &w->envp) != 0)
        goto fail;
    w->envc = cfg->envc;
    return 0;
fail:
    /* Partial copies: argc/envc still say 0 where the copy failed, so count the
       entries made instead. */
    if (w->argv && !w->argc)
        w->argc = cfg->argc;
    if (w->envp && !w->envc)
        w->envc = cfg->envc;
    capsa__wasi_finish(w);
    return err;
}

int capsa__wasi_set_args(capsa__wasi *w, const char *const *argv, size_t argc,
                         const char *const *envp, size_t envc)
{
    char **a, **e;
    if (copy_strings(w->alloc, argv, argc, &a) != 0) {
        free_strings(w->alloc, a, argc);
        return CAPSA__WASI_ENOMEM;
    }
    if (copy_strings(w->alloc, envp, envc, &e) != 0) {
        free_strings(w->alloc, a, argc);
        free_strings(w->alloc, e, envc);
        return CAPSA__WASI_ENOMEM;
    }
    free_strings(w->alloc, w->argv, w->argc);
    free_strings(w->alloc, w->envp, w->envc);
    w->argv = a;
    w->argc = argc;
    w->envp = e;
    w->envc = envc;
    return 0;
}

void capsa__wasi_finish(capsa__wasi *w)
{
    if (!w->alloc) {
        /* Never initialised (zeroed): nothing to free. */
        return;
    }
    for (uint32_t i = 0; i < w->nfds; i++)
        fd_release(w, &w->fds[i]);
    capsa__free(w->alloc, w->fds);
    free_strings(w->alloc, w->argv, w->argc);
    free_strings(w->alloc, w->envp, w->envc);
    const wasm_rt_memory_t *memory = w->memory;
    capsa__wasi_output_fn output = w->output;
    void *output_ud = w->output_ud;
    memset(w, 0, sizeof(*w));
    w->memory = memory;
    w->output = output;
    w->output_ud = output_ud;
}

uint32_t capsa__wasi_changed_fd(const capsa__wasi *w, size_t npreopens, uint32_t *in_use)
{
    uint32_t first = UINT32_MAX;
    *in_use = 0;
    for (uint32_t fd = 0; fd < w->nfds; fd++) {
        const capsa__wasi_fd *e = &w->fds[fd];
        int same;
        if (fd == 0)
            same = e->kind == KIND_STDIN && e->rights_base == RIGHTS_STDIN && !e->rights_inheriting;
        else if (fd < 3)
            same = e->kind == KIND_STDOUT && e->rights_base == RIGHTS_STDOUT &&
                   !e->rights_inheriting;
        else if (fd < 3 + npreopens)
            same = e->kind == KIND_NODE && e->preopen && e->rights_base == RIGHTS_DIR &&
                   e->rights_inheriting == (RIGHTS_DIR | RIGHTS_FILE);
        else
            same = e->kind == KIND_FREE;
        if (fd < 3 + npreopens)
            same = same && e->fdflags == 0;
        if (!same && first == UINT32_MAX)
            first = fd;
        if (fd >= 3 + npreopens && e->kind != KIND_FREE)
            (*in_use)++;
    }
    if (w->nfds < 3 + npreopens && first == UINT32_MAX)
        first = w->nfds;
    return first;
}

/* ---- args and environment ----------------------------------------------------------- */

/* Shared by args_* and environ_*: the count and the bytes of n strings with their
 * NULs; EOVERFLOW if they do not fit the guest's 32-bit sizes. */
static uint32_t strings_size(char *const *v, size_t n, uint64_t *bytes)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += strlen(v[i]) + 1;
    if (n > UINT32_MAX || sum > UINT32_MAX)
        return CAPSA__WASI_EOVERFLOW;
    *bytes = sum;
    return CAPSA__WASI_ESUCCESS;
}

static uint32_t strings_sizes_get(capsa__wasi *w, char *const *v, size_t n, uint32_t count_ptr,
                                  uint32_t size_ptr)
{
    uint8_t *c = guest(w, count_ptr, 4), *s = guest(w, size_ptr, 4);
    if (!c || !s)
        return CAPSA__WASI_EFAULT;
    uint64_t bytes;
    uint32_t err = strings_size(v, n, &bytes);
    if (err)
        return err;
    capsa__store_le32(c, (uint32_t)n);
    capsa__store_le32(s, (uint32_t)bytes);
    return CAPSA__WASI_ESUCCESS;
}

/* Writes n pointers at ptrs and the strings they point to at buf; both areas are
 * checked whole before anything is written. */
static uint32_t strings_get(capsa__wasi *w, char *const *v, size_t n, uint32_t ptrs, uint32_t buf)
{
    uint64_t bytes;
    uint32_t err = strings_size(v, n, &bytes);
    if (err)
        return err;
    uint8_t *p = guest(w, ptrs, (uint64_t)n * 4), *b = guest(w, buf, bytes);
    if (!p || !b)
        return CAPSA__WASI_EFAULT;
    uint32_t off = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(v[i]) + 1;
        capsa__store_le32(p + 4 * i, buf + off);
        memcpy(b + off, v[i], len);
        off += (uint32_t)len;
    }
    return CAPSA__WASI_ESUCCESS;
}

uint32_t Z_wasi_snapshot_preview1Z_args_sizes_get(capsa__wasi *w, uint32_t argc, uint32_t size)
{
    return strings_sizes_get(w, w->argv, w->argc, argc, size);
}

uint32_t Z_wasi_snapshot_preview1Z_args_get(capsa__wasi *w, uint32_t argv, uint32_t buf)
{
    return strings_get(w, w->argv, w->argc, argv, buf);
}

uint32_t Z_wasi_snapshot_preview1Z_environ_sizes_get(capsa__wasi *w, uint32_t envc, uint32_t size)
{
    return strings_sizes_get(w, w->envp, w->envc, envc, size);
}

uint32_t Z_wasi_snapshot_preview1Z_environ_get(capsa__wasi *w, uint32_t envp, uint32_t buf)
{
    return strings_get(w, w->envp, w->envc, envp, buf);
}

/* ---- clocks and randomness ------------------------------------------------------------- */

static const clockid_t clock_ids[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID,
                                       CLOCK_THREAD_CPUTIME_ID };
#define NCLOCKS (sizeof(clock_ids) / sizeof(clock_ids[0]))

/* clock_res_get(id, resolution): the resolution of a clock in nanoseconds. */
uint32_t Z_wasi_snapshot_preview1Z_clock_res_get(capsa__wasi *w, uint32_t id, uint32_t out)
{
    if (id >= NCLOCKS)
        return CAPSA__WASI_EINVAL;
    uint8_t *p = guest(w, out, 8);
    if (!p)
        return CAPSA__WASI_EFAULT;
    struct timespec ts;
    if (clock_getres(clock_ids[id], &ts) != 0)
        return CAPSA__WASI_EINVAL;
    uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    capsa__store_le64(p, ns ? ns : 1);
    return CAPSA__WASI_ESUCCESS;
}

/* clock_time_get(id, precision, time): realtime, monotonic, and the process and
 * thread CPU clocks, in nanoseconds (all one fixed time while the image is made). */
uint32_t Z_wasi_snapshot_preview1Z_clock_time_get(capsa__wasi *w, uint32_t id,
                                                  uint64_t precision, uint32_t out)
{
    (void)precision;
    if (id >= NCLOCKS)
        return CAPSA__WASI_EINVAL;
    uint8_t *p = guest(w, out, 8);
    if (!p)
        return CAPSA__WASI_EFAULT;
    struct timespec ts;
    if (w->fixed_clock) {
        capsa__store_le64(p, CAPSA__WASI_FIXED_TIME);
        return CAPSA__WASI_ESUCCESS;
    }
    if (clock_gettime(clock_ids[id], &ts) != 0)
        return CAPSA__WASI_EINVAL;
    capsa__store_le64(p, (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
    return CAPSA__WASI_ESUCCESS;
}

/* random_get(buf, len): bytes from the host's CSPRNG. */
uint32_t Z_wasi_snapshot_preview1Z_random_get(capsa__wasi *w, uint32_t buf, uint32_t len)
{
    uint8_t *p = guest(w, buf, len);
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

/* ---- descriptors ------------------------------------------------------------------------ */

/* Gathers the guest's buffers to fd e: the output hook for stdout and stderr, the
 * node at *offset (or its end when appending) for a file; the VFS takes and drops
 * whatever is written to /dev/null. A failure after some bytes were written
 * reports those bytes, as POSIX write does. */
static uint32_t write_iovecs(capsa__wasi *w, uint32_t fd, capsa__wasi_fd *e, const uint8_t *vec,
                             uint32_t iovs_len, uint64_t *offset, int append, uint32_t *written)
{
    uint32_t total = 0;
    for (uint32_t i = 0; i < iovs_len; i++) {
        uint32_t len;
        const uint8_t *p = iovec_at(w, vec, i, &len);
        if (!p)
            return CAPSA__WASI_EFAULT;
        if (!len)
            continue;
        if (e->kind == KIND_STDOUT) {
            if (w->output)
                w->output(w->output_ud, (int)fd, (const char *)p, len);
        } else {
            uint64_t end;
            int err = capsa__vfs_write(w->vfs, e->node, *offset, p, len, append, &end,
                                       CAPSA__VFS_GUEST);
            if (err) {
                if (total)
                    break;
                return (uint32_t)err;
            }
            *offset = end;
        }
        total += len;
    }
    *written = total;
    return CAPSA__WASI_ESUCCESS;
}

uint32_t capsa__wasi_stdin_read(capsa__wasi_stdin *s, uint8_t *p, size_t len, size_t *got)
{
    *got = 0;
    if (!s->use_fd) {
        size_t left = s->len - s->pos;
        *got = len < left ? len : left;
        if (*got)
            memcpy(p, s->data + s->pos, *got);
        s->pos += *got;
        return CAPSA__WASI_ESUCCESS;
    }
    if (s->over)
        return CAPSA__WASI_EFBIG;
    if (s->tty || s->eof || len == 0)
        return CAPSA__WASI_ESUCCESS;
    /* One byte past the limit tells a stream at its limit from one over it. */
    uint64_t room = s->max - s->taken;
    if ((uint64_t)len > room + 1)
        len = (size_t)(room + 1);
    for (;;) {
        if (capsa__rt_interrupted())
            capsa__rt_timeout();
        uint64_t deadline = capsa__rt_deadline_ns(), now = capsa__rt_now_ns();
        int slice = 10; /* ms: capsa_interrupt is seen within it */
        if (deadline) {
            if (now >= deadline)
                capsa__rt_timeout();
            uint64_t left_ms = (deadline - now + 999999u) / 1000000u;
            if (left_ms < (uint64_t)slice)
                slice = (int)left_ms;
        }
        struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
        int r = poll(&pfd, 1, slice);
        if (r < 0 && errno != EINTR && errno != EAGAIN)
            return CAPSA__WASI_EIO;
        if (r <= 0)
            continue;
        ssize_t n = read(s->fd, p, len);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            return CAPSA__WASI_EIO;
        }
        if (n == 0) {
            s->eof = 1;
            return CAPSA__WASI_ESUCCESS;
        }
        if ((uint64_t)n > room) {
            s->over = 1; /* what was read past the limit is dropped with the rest */
            return CAPSA__WASI_EFBIG;
        }
        s->taken += (uint64_t)n;
        *got = (size_t)n;
        return CAPSA__WASI_ESUCCESS;
    }
}

/* Scatters bytes from fd e into the guest's buffers: stdin's data, or the node at
 * *offset. Stops at the end of the data. */
static uint32_t read_iovecs(capsa__wasi *w, capsa__wasi_fd *e, const uint8_t *vec,
                            uint32_t iovs_len, uint64_t *offset, uint32_t *nread)
{
    uint32_t total = 0;
    for (uint32_t i = 0; i < iovs_len; i++) {
        uint32_t len;
        uint8_t *p = iovec_at(w, vec, i, &len);
        if (!p)
            return CAPSA__WASI_EFAULT;
        size_t got;
        if (e->kind == KIND_STDIN) {
            /* One read of a host fd at most: a second could wait for bytes that
               are not coming while the guest has some to work on. */
            if (total && w->stdin_src && w->stdin_src->use_fd)
                break;
            uint32_t err = w->stdin_src ? capsa__wasi_stdin_read(w->stdin_src, p, len, &got) : 0;
            if (!w->stdin_src)
                got = 0;
            if (err) {
                if (total)
                    break;
                return err;
            }
        } else {
            int err = capsa__vfs_read(w->vfs, e->node, *offset, p, len, &got, CAPSA__VFS_GUEST);
            if (err) {
                if (total)
                    break;
                return (uint32_t)err;
            }
            *offset += got;
        }
        total += (uint32_t)got;
        if (got < len)
            break;
    }
    *nread = total;
    return CAPSA__WASI_ESUCCESS;
}

/* The one body of fd_read, fd_pread, fd_write and fd_pwrite: checks the fd (with
 * the right to read or write, and to seek when an offset is given: a stream takes
 * none), the count pointer and every iovec before a byte moves, then reads or
 * writes at the fd's position (at NULL) or at *at without moving it. */
static uint32_t transfer(capsa__wasi *w, uint32_t fd, uint32_t iovs, uint32_t iovs_len,
                         const uint64_t *at, uint32_t count_ptr, int writing)
{
    uint64_t right = writing ? RIGHT_FD_WRITE : RIGHT_FD_READ;
    capsa__wasi_fd *e;
    uint32_t err = fd_check(w, fd, at ? 0 : right, &e);
    if (err)
        return err;
    if (at) {
        if (e->kind != KIND_NODE && (e->rights_base & right))
            return CAPSA__WASI_ESPIPE;
        if ((err = fd_check(w, fd, right | RIGHT_FD_SEEK, &e)))
            return err;
    }
    const uint8_t *vec;
    uint64_t total;
    uint8_t *count = guest(w, count_ptr, 4);
    if (!count)
        return CAPSA__WASI_EFAULT;
    if ((err = iovecs_check(w, iovs, iovs_len, &vec, &total)))
        return err;
    uint64_t offset = at ? *at : 0;
    if (at && offset > INT64_MAX)
        return CAPSA__WASI_EINVAL;
    uint64_t *pos = at ? &offset : &e->offset;
    uint32_t n;
    err = writing ? write_iovecs(w, fd, e, vec, iovs_len, pos, e->fdflags & FDFLAG_APPEND, &n)
                  : read_iovecs(w, e, vec, iovs_len, pos, &n);
    if (err)
        return err;
    capsa__store_le32(count, n);
    return CAPSA__WASI_ESUCCESS;
}

/* fd_write(fd, iovs, iovs_len, nwritten). */
uint32_t Z_wasi_snapshot_preview1Z_fd_write(capsa__wasi *w, uint32_t fd, uint32_t iovs,
                                            uint32_t iovs_len, uint32_t nwritten_ptr)
{
    return transfer(w, fd, iovs, iovs_len, NULL, nwritten_ptr, 1);
}

/* fd_pwrite(fd, iovs, iovs_len, offset, nwritten): writes at offset without
 * moving the fd's position. With the append flag it writes at the end, as Linux
 * does. */
uint32_t Z_wasi_snapshot_preview1Z_fd_pwrite(capsa__wasi *w, uint32_t fd, uint32_t iovs,
                                             uint32_t iovs_len, uint64_t offset,
                                             uint32_t nwritten_ptr)
{
    return transfer(w, fd, iovs, iovs_len, &offset, nwritten_ptr, 1);
}

/* fd_read(fd, iovs, iovs_len, nread). */
uint32_t Z_wasi_snapshot_preview1Z_fd_read(capsa__wasi *w, uint32_t fd, uint32_t iovs,
                                           uint32_t iovs_len, uint32_t nread_ptr)
{
    return transfer(w, fd, iovs, iovs_len, NULL, nread_ptr, 0);
}

/* fd_pread(fd, iovs, iovs_len, offset, nread): reads at offset without moving the
 * fd's position. */
uint32_t Z_wasi_snapshot_preview1Z_fd_pread(capsa__wasi *w, uint32_t fd, uint32_t iovs,
                                            uint32_t iovs_len, uint64_t offset, uint32_t nread_ptr)
{
    return transfer(w, fd, iovs, iovs_len, &offset, nread_ptr, 0);
}

/* fd_seek(fd, offset, whence, newoffset): moves a file's position; streams
 * cannot seek (ESPIPE). A position before the start is EINVAL. */
uint32_t Z_wasi_snapshot_preview1Z_fd_seek(capsa__wasi *w, uint32_t fd, uint64_t offset,
                                           uint32_t whence, uint32_t newoffset)
{
    /* Asking for the position only needs the right to tell it. */
    uint64_t need = whence == WHENCE_CUR && offset == 0 ? RIGHT_FD_TELL : RIGHT_FD_SEEK;
    capsa__wasi_fd *e;
    uint32_t err = node_check(w, fd, need, &e);
    if (err)
        return err;
    uint8_t *out = guest(w, newoffset, 8);
    if (!out)
        return CAPSA__WASI_EFAULT;
    int64_t delta = (int64_t)offset, base;
    capsa__vfs_stat st;
    switch (whence) {
    case WHENCE_SET: base = 0; break;
    case WHENCE_CUR: base = (int64_t)e->offset; break;
    case WHENCE_END:
        capsa__vfs_stat_node(e->node, &st);
        base = (int64_t)st.size;
        break;
    default: return CAPSA__WASI_EINVAL;
    }
    int64_t pos;
    if (__builtin_add_overflow(base, delta, &pos))
        return CAPSA__WASI_EOVERFLOW;
    if (pos < 0)
        return CAPSA__WASI_EINVAL;
    e->offset = (uint64_t)pos;
    capsa__store_le64(out, e->offset);
    return CAPSA__WASI_ESUCCESS;
}

/* fd_tell(fd, offset): a file's position. */
uint32_t Z_wasi_snapshot_preview1Z_fd_tell(capsa__wasi *w, uint32_t fd, uint32_t offset)
{
    capsa__wasi_fd *e;
    uint32_t err = node_check(w, fd, RIGHT_FD_TELL, &e);
    if (err)
        return err;
    uint8_t *out = guest(w, offset, 8);
    if (!out)
        return CAPSA__WASI_EFAULT;
    capsa__store_le64(out, e->offset);
    return CAPSA__WASI_ESUCCESS;
}

/* fd_close(fd): any descriptor may be closed, the standard streams and the
 * preopened directories included (as in wasmtime). */
uint32_t Z_wasi_snapshot_preview1Z_fd_close(capsa__wasi *w, uint32_t fd)
{
    capsa__wasi_fd *e;
    uint32_t err = fd_check(w, fd, 0, &e);
    if (err)
        return err;
    fd_release(w, e);
    return CAPSA__WASI_ESUCCESS;
}

/* fd_renumber(from, to): moves descriptor `from` to number `to`, closing what
 * `to` held; both must be open (as wasmtime requires). */
uint32_t Z_wasi_snapshot_preview1Z_fd_renumber(capsa__wasi *w, uint32_t from, uint32_t to)
{
    capsa__wasi_fd *src, *dst;
    uint32_t err = fd_check(w, from, 0, &src);
    if (err)
        return err;
    if ((err = fd_check(w, to, 0, &dst)))
        return err;
    if (from == to)
        return CAPSA__WASI_ESUCCESS;
    fd_release(w, dst);
    *dst = *src;
    memset(src, 0, sizeof(*src));
    return CAPSA__WASI_ESUCCESS;
}

/* fd_datasync(fd) and fd_sync(fd): the filesystem is memory, always in sync. */
uint32_t Z_wasi_snapshot_preview1Z_fd_datasync(capsa__wasi *w, uint32_t fd)
{
    return fd_check(w, fd, RIGHT_FD_DATASYNC, NULL);
}

uint32_t Z_wasi_snapshot_preview1Z_fd_sync(capsa__wasi *w, uint32_t fd)
{
    return fd_check(w, fd, RIGHT_FD_SYNC, NULL);
}

/* fd_advise(fd, offset, len, advice): advice is accepted and ignored. */
uint32_t Z_wasi_snapshot_preview1Z_fd_advise(capsa__wasi *w, uint32_t fd, uint64_t offset,
                                             uint64_t len, uint32_t advice)
{
    (void)offset;
    (void)len;
    capsa__wasi_fd *e;
    uint32_t err = node_check(w, fd, RIGHT_FD_ADVISE, &e);
    if (err)
        return err;
    if (advice > 5)
        return CAPSA__WASI_EINVAL;
    if (capsa__vfs_node_type(e->node) == CAPSA__VFS_DIR)
        return CAPSA__WASI_EBADF;
    return CAPSA__WASI_ESUCCESS;
}

/* fd_allocate(fd, offset, len): makes the file at least offset + len bytes. */
uint32_t Z_wasi_snapshot_preview1Z_fd_allocate(capsa__wasi *w, uint32_t fd, uint64_t offset,
                                               uint64_t len)
{
    capsa__wasi_fd *e;
    uint32_t err = node_check(w, fd, RIGHT_FD_ALLOCATE, &e);
    if (err)
        return err;
    if (capsa__vfs_node_type(e->node) != CAPSA__VFS_FILE)
        return CAPSA__WASI_EBADF;
    uint64_t end;
    if (offset > INT64_MAX || len > INT64_MAX || __builtin_add_overflow(offset, len, &end) ||
        end > INT64_MAX)
        return CAPSA__WASI_EFBIG;
    capsa__vfs_stat st;
    capsa__vfs_stat_node(e->node, &st);
    if (end <= st.size)
        return CAPSA__WASI_ESUCCESS;
    return (uint32_t)capsa__vfs_truncate(w->vfs, e->node, end, CAPSA__VFS_GUEST);
}

/* fd_fdstat_get(fd, buf): the 24-byte fdstat (filetype, flags, rights). */
uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_get(capsa__wasi *w, uint32_t fd, uint32_t buf)
{
    capsa__wasi_fd *e;
    uint32_t err = fd_check(w, fd, 0, &e);
    if (err)
        return err;
    uint8_t *p = guest(w, buf, FDSTAT_SIZE);
    if (!p)
        return CAPSA__WASI_EFAULT;
    memset(p, 0, FDSTAT_SIZE);
    p[0] = fd_filetype(w, e);
    capsa__store_le16(p + 2, e->fdflags);
    capsa__store_le64(p + 8, e->rights_base);
    capsa__store_le64(p + 16, e->rights_inheriting);
    return CAPSA__WASI_ESUCCESS;
}

/* fd_fdstat_set_flags(fd, flags): append and nonblock are kept; the sync flags
 * are accepted (memory is always in sync). */
uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_set_flags(capsa__wasi *w, uint32_t fd, uint32_t flags)
{
    capsa__wasi_fd *e;
    uint32_t err = fd_check(w, fd, RIGHT_FD_FDSTAT_SET_FLAGS, &e);
    if (err)
        return err;
    if (flags & ~(uint32_t)FDFLAGS_ALL)
        return CAPSA__WASI_EINVAL;
    /* Appending to a file opened for writing needs the mount to allow appends. */
    if ((flags & FDFLAG_APPEND) && e->kind == KIND_NODE && (e->rights_base & RIGHT_FD_WRITE)) {
        int verr = capsa__vfs_allow(w->vfs, e->node, CAPSA__VFS_APPEND_OP, CAPSA__VFS_GUEST);
        if (verr)
            return (uint32_t)verr;
    }
    e->fdflags = (uint16_t)flags;
    return CAPSA__WASI_ESUCCESS;
}

/* fd_fdstat_set_rights(fd, base, inheriting): rights can only be dropped. */
uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_set_rights(capsa__wasi *w, uint32_t fd,
                                                        uint64_t base, uint64_t inheriting)
{
    capsa__wasi_fd *e;
    uint32_t err = fd_check(w, fd, 0, &e);
    if (err)
        return err;
    if ((base & ~e->rights_base) || (inheriting & ~e->rights_inheriting))
        return CAPSA__WASI_ENOTCAPABLE;
    e->rights_base = base;
    e->rights_inheriting = inheriting;
    return CAPSA__WASI_ESUCCESS;
}

/* fd_filestat_get(fd, buf): the 64-byte filestat of a node; a stream is a
 * character device with nothing else to tell. */
uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_get(capsa__wasi *w, uint32_t fd, uint32_t buf)
{
    capsa__wasi_fd *e;
    uint32_t err = fd_check(w, fd, RIGHT_FD_FILESTAT_GET, &e);
    if (err)
        return err;
    uint8_t *p = guest(w, buf, FILESTAT_SIZE);
    if (!p)
        return CAPSA__WASI_EFAULT;
    if (e->kind == KIND_NODE) {
        capsa__vfs_stat st;
        capsa__vfs_stat_node(e->node, &st);
        put_filestat(p, &st);
    } else {
        memset(p, 0, FILESTAT_SIZE);
        p[16] = FILETYPE_CHARACTER_DEVICE;
    }
    return CAPSA__WASI_ESUCCESS;
}

/* fd_filestat_set_size(fd, size): truncates or extends a file. */
uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_set_size(capsa__wasi *w, uint32_t fd, uint64_t size)
{
    capsa__wasi_fd *e;
    uint32_t err = fd_check(w, fd, RIGHT_FD_FILESTAT_SET_SIZE, &e);
    if (err)
        return err;
    if (e->kind != KIND_NODE)
        return CAPSA__WASI_EINVAL;
    if (capsa__vfs_node_type(e->node) == CAPSA__VFS_DIR)
        return CAPSA__WASI_EISDIR;
    if (size > INT64_MAX)
        return CAPSA__WASI_EFBIG;
    return (uint32_t)capsa__vfs_truncate(w->vfs, e->node, size, CAPSA__VFS_GUEST);
}

/* Turns the guest's (atim, mtim, fstflags) into set_times arguments: NULL leaves
 * a time, UINT64_MAX means now. EINVAL for unknown flags or a time both given
 * and "now". */
static uint32_t times_args(uint64_t *atim, uint64_t *mtim, uint32_t fst, const uint64_t **pa,
                           const uint64_t **pm)
{
    if (fst & ~(uint32_t)(FSTFLAG_ATIM | FSTFLAG_ATIM_NOW | FSTFLAG_MTIM | FSTFLAG_MTIM_NOW))
        return CAPSA__WASI_EINVAL;
    if ((fst & FSTFLAG_ATIM) && (fst & FSTFLAG_ATIM_NOW))
        return CAPSA__WASI_EINVAL;
    if ((fst & FSTFLAG_MTIM) && (fst & FSTFLAG_MTIM_NOW))
        return CAPSA__WASI_EINVAL;
    /* A given time of UINT64_MAX would read as "now": one nanosecond less. */
    if (*atim == UINT64_MAX)
        (*atim)--;
    if (*mtim == UINT64_MAX)
        (*mtim)--;
    if (fst & FSTFLAG_ATIM_NOW)
        *atim = UINT64_MAX;
    if (fst & FSTFLAG_MTIM_NOW)
        *mtim = UINT64_MAX;
    *pa = fst & (FSTFLAG_ATIM | FSTFLAG_ATIM_NOW) ? atim : NULL;
    *pm = fst & (FSTFLAG_MTIM | FSTFLAG_MTIM_NOW) ? mtim : NULL;
    return CAPSA__WASI_ESUCCESS;
}

/* fd_filestat_set_times(fd, atim, mtim, fstflags). */
uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_set_times(capsa__wasi *w, uint32_t fd,
                                                         uint64_t atim, uint64_t mtim,
                                                         uint32_t fst)
{
    capsa__wasi_fd *e;
    uint32_t err = fd_check(w, fd, RIGHT_FD_FILESTAT_SET_TIMES, &e);
    if (err)
        return err;
    const uint64_t *pa, *pm;
    if ((err = times_args(&atim, &mtim, fst, &pa, &pm)))
        return err;
    if (e->kind != KIND_NODE)
        return CAPSA__WASI_ESUCCESS;
    return (uint32_t)capsa__vfs_set_times(w->vfs, e->node, pa, pm, CAPSA__VFS_GUEST);
}

/* fd_prestat_get(fd, buf): tag 0 (a directory) and the length of its name, for
 * preopened directories only (EBADF for the rest, which ends libc's scan). */
uint32_t Z_wasi_snapshot_preview1Z_fd_prestat_get(capsa__wasi *w, uint32_t fd, uint32_t buf)
{
    capsa__wasi_fd *e;
    uint32_t err = fd_check(w, fd, 0, &e);
    if (err)
        return err;
    if (!e->preopen)
        return CAPSA__WASI_EBADF;
    uint8_t *p = guest(w, buf, 8);
    if (!p)
        return CAPSA__WASI_EFAULT;
    memset(p, 0, 8);
    capsa__store_le32(p + 4, (uint32_t)strlen(e->preopen));
    return CAPSA__WASI_ESUCCESS;
}

/* fd_prestat_dir_name(fd, path, len): the preopen's name, without a NUL. */
uint32_t Z_wasi_snapshot_preview1Z_fd_prestat_dir_name(capsa__wasi *w, uint32_t fd, uint32_t path,
                                                       uint32_t len)
{
    capsa__wasi_fd *e;
    uint32_t err = fd_check(w, fd, 0, &e);
    if (err)
        return err;
    if (!e->preopen)
        return CAPSA__WASI_EBADF;
    size_t n = strlen(e->preopen);
    if (len < n)
        return CAPSA__WASI_ENAMETOOLONG;
    uint8_t *p = guest(w, path, n);
    if (!p)
        return CAPSA__WASI_EFAULT;
    memcpy(p, e->preopen, n);
    return CAPSA__WASI_ESUCCESS;
}

/* fd_readdir(fd, buf, buf_len, cookie, bufused): packs entries from cookie on as
 * 24-byte dirent headers each followed by its name; the last one is cut at the
 * buffer's end, and a full buffer tells the guest to ask again. */
uint32_t Z_wasi_snapshot_preview1Z_fd_readdir(capsa__wasi *w, uint32_t fd, uint32_t buf,
                                              uint32_t buf_len, uint64_t cookie, uint32_t bufused)
{
    capsa__wasi_fd *e;
    uint32_t err = fd_check(w, fd, NEED_DIR | RIGHT_FD_READDIR, &e);
    if (err)
        return err;
    uint8_t *out = guest(w, buf, buf_len);
    uint8_t *used = guest(w, bufused, 4);
    if (!out || !used)
        return CAPSA__WASI_EFAULT;
    uint32_t n = 0;
    while (n < buf_len) {
        capsa__vfs_dirent d;
        int verr = capsa__vfs_readdir(w->vfs, e->node, cookie, &d, CAPSA__VFS_GUEST);
        if (verr == CAPSA__WASI_ENOENT)
            break;
        if (verr)
            return (uint32_t)verr;
        uint8_t head[DIRENT_SIZE];
        memset(head, 0, sizeof(head));
        capsa__store_le64(head, d.next);
        capsa__store_le64(head + 8, d.ino);
        capsa__store_le32(head + 16, (uint32_t)d.name_len);
        head[20] = (uint8_t)d.type;
        uint32_t k = buf_len - n < DIRENT_SIZE ? buf_len - n : DIRENT_SIZE;
        memcpy(out + n, head, k);
        n += k;
        k = buf_len - n < d.name_len ? buf_len - n : (uint32_t)d.name_len;
        memcpy(out + n, d.name, k);
        n += k;
        cookie = d.next;
    }
    capsa__store_le32(used, n);
    return CAPSA__WASI_ESUCCESS;
}

/* ---- paths ------------------------------------------------------------------------------ */

/* The shape of the VFS operations that take one path and nothing else. */
typedef int (*path_fn)(capsa__vfs *, capsa__vnode *, const char *, size_t, int);

/* Checks fd (a directory with `right`) and the guest's path, then calls fn on them. */
static uint32_t path_call(capsa__wasi *w, uint32_t fd, uint64_t right, uint32_t path,
                          uint32_t len, path_fn fn)
{
    capsa__wasi_fd *e;
    char p[CAPSA__VFS_PATH_MAX + 1];
    uint32_t err = fd_check(w, fd, NEED_DIR | right, &e);
    if (err || (err = guest_path(w, path, len, p)))
        return err;
    return (uint32_t)fn(w->vfs, e->node, p, len, CAPSA__VFS_GUEST);
}

/* path_create_directory(fd, path, len). */
uint32_t Z_wasi_snapshot_preview1Z_path_create_directory(capsa__wasi *w, uint32_t fd,
                                                         uint32_t path, uint32_t len)
{
    return path_call(w, fd, RIGHT_PATH_CREATE_DIRECTORY, path, len, capsa__vfs_mkdir);
}

/* path_filestat_get(fd, flags, path, len, buf). */
uint32_t Z_wasi_snapshot_preview1Z_path_filestat_get(capsa__wasi *w, uint32_t fd, uint32_t flags,
                                                     uint32_t path, uint32_t len, uint32_t buf)
{
    capsa__wasi_fd *e;
    char p[CAPSA__VFS_PATH_MAX + 1];
    uint32_t err = fd_check(w, fd, NEED_DIR | RIGHT_PATH_FILESTAT_GET, &e);
    if (err || (err = guest_path(w, path, len, p)))
        return err;
    uint8_t *out = guest(w, buf, FILESTAT_SIZE);
    if (!out)
        return CAPSA__WASI_EFAULT;
    capsa__vfs_stat st;
    int verr = capsa__vfs_stat(w->vfs, e->node, p, len,
                               flags & LOOKUP_SYMLINK_FOLLOW ? CAPSA__VFS_FOLLOW : 0,
                               CAPSA__VFS_GUEST, &st);
    if (verr)
        return (uint32_t)verr;
    put_filestat(out, &st);
    return CAPSA__WASI_ESUCCESS;
}

/* path_filestat_set_times(fd, flags, path, len, atim, mtim, fstflags). */
uint32_t Z_wasi_snapshot_preview1Z_path_filestat_set_times(capsa__wasi *w, uint32_t fd,
                                                           uint32_t flags, uint32_t path,
                                                           uint32_t len, uint64_t atim,
                                                           uint64_t mtim, uint32_t fst)
{
    capsa__wasi_fd *e;
    char p[CAPSA__VFS_PATH_MAX + 1];
    uint32_t err = fd_check(w, fd, NEED_DIR | RIGHT_PATH_FILESTAT_SET_TIMES, &e);
    if (err || (err = guest_path(w, path, len, p)))
        return err;
    const uint64_t *pa, *pm;
    if ((err = times_args(&atim, &mtim, fst, &pa, &pm)))
        return err;
    capsa__vfs_where where;
    int verr = capsa__vfs_walk(w->vfs, e->node, p, len,
                               flags & LOOKUP_SYMLINK_FOLLOW ? CAPSA__VFS_FOLLOW : 0,
                               CAPSA__VFS_GUEST, &where);
    if (verr)
        return (uint32_t)verr;
    if (!where.node)
        return CAPSA__WASI_ENOENT;
    if (where.trailing_slash && capsa__vfs_node_type(where.node) != CAPSA__VFS_DIR)
        return CAPSA__WASI_ENOTDIR;
    return (uint32_t)capsa__vfs_set_times(w->vfs, where.node, pa, pm, CAPSA__VFS_GUEST);
}

/* path_link(old_fd, old_flags, old_path, old_len, new_fd, new_path, new_len). */
uint32_t Z_wasi_snapshot_preview1Z_path_link(capsa__wasi *w, uint32_t old_fd, uint32_t old_flags,
                                             uint32_t old_path, uint32_t old_len, uint32_t new_fd,
                                             uint32_t new_path, uint32_t new_len)
{
    capsa__wasi_fd *src, *dst;
    char p1[CAPSA__VFS_PATH_MAX + 1], p2[CAPSA__VFS_PATH_MAX + 1];
    uint32_t err = fd_check(w, old_fd, NEED_DIR | RIGHT_PATH_LINK_SOURCE, &src);
    if (err || (err = fd_check(w, new_fd, NEED_DIR | RIGHT_PATH_LINK_TARGET, &dst)))
        return err;
    if ((err = guest_path(w, old_path, old_len, p1)) || (err = guest_path(w, new_path, new_len, p2)))
        return err;
    return (uint32_t)capsa__vfs_link(w->vfs, src->node, p1, old_len,
                                     old_flags & LOOKUP_SYMLINK_FOLLOW ? CAPSA__VFS_FOLLOW : 0,
                                     dst->node, p2, new_len, CAPSA__VFS_GUEST);
}

/* path_open(fd, dirflags, path, len, oflags, rights_base, rights_inheriting,
 * fdflags, opened_fd). The new descriptor's rights are those asked for, within
 * the directory's inheriting rights and what its type allows; the VFS decides
 * now whether the mount allows the reads and writes they imply. */
uint32_t Z_wasi_snapshot_preview1Z_path_open(capsa__wasi *w, uint32_t fd, uint32_t dirflags,
                                             uint32_t path, uint32_t len, uint32_t oflags,
                                             uint64_t base, uint64_t inheriting, uint32_t fdflags,
                                             uint32_t opened_fd)
{
    capsa__wasi_fd *dir;
    char p[CAPSA__VFS_PATH_MAX + 1];
    uint64_t need = NEED_DIR | RIGHT_PATH_OPEN;
    if (oflags & CAPSA__VFS_O_CREAT)
        need |= RIGHT_PATH_CREATE_FILE;
    uint32_t err = fd_check(w, fd, need, &dir);
    if (err)
        return err;
    /* Truncating through a path needs path_filestat_set_size; without it the
       conformance suite (truncation_rights) expects EPERM, not ENOTCAPABLE. */
    if ((oflags & CAPSA__VFS_O_TRUNC) && !(dir->rights_base & RIGHT_PATH_FILESTAT_SET_SIZE))
        return CAPSA__WASI_EPERM;
    uint8_t *out = guest(w, opened_fd, 4);
    if (!out)
        return CAPSA__WASI_EFAULT;
    if ((err = guest_path(w, path, len, p)))
        return err;
    if ((oflags & ~(uint32_t)OFLAGS_ALL) || (fdflags & ~(uint32_t)FDFLAGS_ALL))
        return CAPSA__WASI_EINVAL;

    /* fd_alloc may move the table: keep what is needed of the directory's slot. */
    capsa__vnode *dnode = dir->node;
    base &= dir->rights_inheriting;
    inheriting &= dir->rights_inheriting;
    unsigned access = 0;
    if (base & (RIGHT_FD_READ | RIGHT_FD_READDIR))
        access |= 1u << CAPSA__VFS_READ;
    if ((base & RIGHTS_WRITING) || (oflags & CAPSA__VFS_O_TRUNC))
        access |= 1u << ((fdflags & FDFLAG_APPEND) && !(oflags & CAPSA__VFS_O_TRUNC)
                             ? CAPSA__VFS_APPEND_OP : CAPSA__VFS_WRITE);

    uint32_t newfd;
    if ((err = fd_alloc(w, &newfd)))
        return err;
    capsa__vnode *node;
    int verr = capsa__vfs_open(w->vfs, dnode, p, len,
                               dirflags & LOOKUP_SYMLINK_FOLLOW ? CAPSA__VFS_FOLLOW : 0,
                               oflags, access, CAPSA__VFS_GUEST, &node);
    if (verr)
        return (uint32_t)verr;
    capsa__wasi_fd *e = &w->fds[newfd];
    memset(e, 0, sizeof(*e));
    e->node = node;
    e->kind = KIND_NODE;
    e->fdflags = (uint16_t)fdflags;
    e->rights_base = base & (capsa__vfs_node_type(node) == CAPSA__VFS_DIR ? RIGHTS_DIR : RIGHTS_FILE);
    e->rights_inheriting = inheriting;
    capsa__store_le32(out, newfd);
    return CAPSA__WASI_ESUCCESS;
}

/* path_readlink(fd, path, len, buf, buf_len, bufused): the target, cut at
 * buf_len bytes, without a NUL. */
uint32_t Z_wasi_snapshot_preview1Z_path_readlink(capsa__wasi *w, uint32_t fd, uint32_t path,
                                                 uint32_t len, uint32_t buf, uint32_t buf_len,
                                                 uint32_t bufused)
{
    capsa__wasi_fd *e;
    char p[CAPSA__VFS_PATH_MAX + 1];
    uint32_t err = fd_check(w, fd, NEED_DIR | RIGHT_PATH_READLINK, &e);
    if (err || (err = guest_path(w, path, len, p)))
        return err;
    uint8_t *out = guest(w, buf, buf_len), *used = guest(w, bufused, 4);
    if (!out || !used)
        return CAPSA__WASI_EFAULT;
    const char *target;
    size_t tlen;
    int verr = capsa__vfs_readlink(w->vfs, e->node, p, len, CAPSA__VFS_GUEST, &target, &tlen);
    if (verr)
        return (uint32_t)verr;
    uint32_t n = tlen < buf_len ? (uint32_t)tlen : buf_len;
    memcpy(out, target, n);
    capsa__store_le32(used, n);
    return CAPSA__WASI_ESUCCESS;
}

/* path_remove_directory(fd, path, len). */
uint32_t Z_wasi_snapshot_preview1Z_path_remove_directory(capsa__wasi *w, uint32_t fd,
                                                         uint32_t path, uint32_t len)
{
    return path_call(w, fd, RIGHT_PATH_REMOVE_DIRECTORY, path, len, capsa__vfs_rmdir);
}

/* path_rename(fd, old_path, old_len, new_fd, new_path, new_len). */
uint32_t Z_wasi_snapshot_preview1Z_path_rename(capsa__wasi *w, uint32_t fd, uint32_t old_path,
                                               uint32_t old_len, uint32_t new_fd,
                                               uint32_t new_path, uint32_t new_len)
{
    capsa__wasi_fd *src, *dst;
    char p1[CAPSA__VFS_PATH_MAX + 1], p2[CAPSA__VFS_PATH_MAX + 1];
    uint32_t err = fd_check(w, fd, NEED_DIR | RIGHT_PATH_RENAME_SOURCE, &src);
    if (err || (err = fd_check(w, new_fd, NEED_DIR | RIGHT_PATH_RENAME_TARGET, &dst)))
        return err;
    if ((err = guest_path(w, old_path, old_len, p1)) || (err = guest_path(w, new_path, new_len, p2)))
        return err;
    return (uint32_t)capsa__vfs_rename(w->vfs, src->node, p1, old_len, dst->node, p2, new_len,
                                       CAPSA__VFS_GUEST);
}

/* path_symlink(old_path, old_len, fd, new_path, new_len): a symlink at new_path
 * whose target is old_path, stored as given. */
uint32_t Z_wasi_snapshot_preview1Z_path_symlink(capsa__wasi *w, uint32_t old_path,
                                                uint32_t old_len, uint32_t fd, uint32_t new_path,
                                                uint32_t new_len)
{
    capsa__wasi_fd *e;
    char target[CAPSA__VFS_PATH_MAX + 1], p[CAPSA__VFS_PATH_MAX + 1];
    uint32_t err = fd_check(w, fd, NEED_DIR | RIGHT_PATH_SYMLINK, &e);
    if (err)
        return err;
    if ((err = guest_path(w, old_path, old_len, target)) || (err = guest_path(w, new_path, new_len, p)))
        return err;
    /* An absolute target resolves from the root, which the guest may reach only
       through a directory that is the root: from any other base it could never be
       followed (the VFS refuses), so it is refused now, as wasmtime does. */
    if (old_len && target[0] == '/' && e->node != capsa__vfs_root(w->vfs))
        return CAPSA__WASI_ENOTCAPABLE;
    return (uint32_t)capsa__vfs_symlink(w->vfs, target, old_len, e->node, p, new_len,
                                        CAPSA__VFS_GUEST);
}

/* path_unlink_file(fd, path, len). */
uint32_t Z_wasi_snapshot_preview1Z_path_unlink_file(capsa__wasi *w, uint32_t fd, uint32_t path,
                                                    uint32_t len)
{
    return path_call(w, fd, RIGHT_PATH_UNLINK_FILE, path, len, capsa__vfs_unlink);
}

/* ---- waiting ------------------------------------------------------------------------------ */

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

/* The state of an fd subscription: its error (EBADF, ENOTCAPABLE, ...) and, for
 * a read, how many bytes are ready. Streams and files never block. */
static uint16_t fd_event(capsa__wasi *w, uint32_t fd, uint8_t tag, uint64_t *nbytes)
{
    capsa__wasi_fd *e;
    uint64_t need = RIGHT_POLL_FD_READWRITE | (tag == EVENTTYPE_FD_READ ? RIGHT_FD_READ : RIGHT_FD_WRITE);
    uint32_t err = fd_check(w, fd, need, &e);
    *nbytes = 0;
    if (err)
        return (uint16_t)err;
    if (tag == EVENTTYPE_FD_READ) {
        if (e->kind == KIND_STDIN) {
            const capsa__wasi_stdin *in = w->stdin_src;
            *nbytes = in && !in->use_fd ? in->len - in->pos : 0;
        } else {
            capsa__vfs_stat st;
            capsa__vfs_stat_node(e->node, &st);
            *nbytes = st.size > e->offset ? st.size - e->offset : 0;
        }
    }
    return CAPSA__WASI_ESUCCESS;
}

/* poll_oneoff(in, out, nsubscriptions, nevents): reports every fd subscription
 * at once (nothing here ever blocks), or else waits for the first clock
 * subscription to fire. Waiting never goes past the run's deadline: the run is
 * stopped there instead. */
uint32_t Z_wasi_snapshot_preview1Z_poll_oneoff(capsa__wasi *w, uint32_t in, uint32_t out,
                                               uint32_t nsubscriptions, uint32_t nevents_ptr)
{
    if (nsubscriptions == 0 || nsubscriptions > MAX_SUBSCRIPTIONS)
        return CAPSA__WASI_EINVAL;
    const uint8_t *subs = guest(w, in, (uint64_t)nsubscriptions * SUBSCRIPTION_SIZE);
    uint8_t *events = guest(w, out, (uint64_t)nsubscriptions * EVENT_SIZE);
    uint8_t *nevents = guest(w, nevents_ptr, 4);
    if (!subs || !events || !nevents)
        return CAPSA__WASI_EFAULT;

    uint64_t now = capsa__rt_now_ns(), wake = UINT64_MAX;
    int ready_fds = 0;
    for (uint32_t i = 0; i < nsubscriptions; i++) {
        const uint8_t *s = subs + (size_t)i * SUBSCRIPTION_SIZE;
        uint8_t tag = s[8];
        if (tag == EVENTTYPE_CLOCK) {
            uint64_t t = clock_wake_ns(capsa__load_le32(s + 16), capsa__load_le64(s + 24),
                                       (s[40] | s[41] << 8) & SUBCLOCKFLAG_ABSTIME, now);
            if (t < wake)
                wake = t;
        } else {
            ready_fds++; /* ready at once; a bad fd is reported as an event error */
        }
    }
    if (!ready_fds) {
        if (wake == UINT64_MAX)
            return CAPSA__WASI_EINVAL; /* nothing can ever fire */
        uint64_t deadline = capsa__rt_deadline_ns();
        uint64_t until = deadline && deadline < wake ? deadline : wake;
        /* In slices of at most 10 ms, so that capsa_interrupt is seen. */
        while ((now = capsa__rt_now_ns()) < until && !capsa__rt_interrupted()) {
            uint64_t d = until - now < 10000000u ? until - now : 10000000u;
            struct timespec ts = { 0, (long)d };
            nanosleep(&ts, NULL);
        }
        if ((deadline && deadline < wake) || capsa__rt_interrupted())
            capsa__rt_timeout();
    }

    /* The subscriptions are read again (the guest's memory cannot change during
       this call: the guest is stopped in it). */
    uint32_t n = 0;
    for (uint32_t i = 0; i < nsubscriptions; i++) {
        const uint8_t *s = subs + (size_t)i * SUBSCRIPTION_SIZE;
        uint8_t tag = s[8];
        uint16_t error = CAPSA__WASI_ESUCCESS;
        uint64_t nbytes = 0;
        if (tag == EVENTTYPE_CLOCK) {
            uint64_t t = clock_wake_ns(capsa__load_le32(s + 16), capsa__load_le64(s + 24),
                                       (s[40] | s[41] << 8) & SUBCLOCKFLAG_ABSTIME, now);
            if (t > now)
                continue;
        } else if (tag == EVENTTYPE_FD_READ || tag == EVENTTYPE_FD_WRITE) {
            error = fd_event(w, capsa__load_le32(s + 16), tag, &nbytes);
        } else {
            error = CAPSA__WASI_EINVAL;
        }
        uint8_t *e = events + (size_t)n * EVENT_SIZE;
        memset(e, 0, EVENT_SIZE);
        memcpy(e, s, 8); /* userdata */
        capsa__store_le16(e + 8, error);
        e[10] = tag;
        capsa__store_le64(e + 16, nbytes);
        n++;
    }
    capsa__store_le32(nevents, n);
    return CAPSA__WASI_ESUCCESS;
}

/* ---- the process -------------------------------------------------------------------------- */

/* proc_exit(code): stops the guest call; the code is kept in w->exit_code. */
void Z_wasi_snapshot_preview1Z_proc_exit(capsa__wasi *w, uint32_t code)
{
    w->exit_code = code;
    capsa__rt_exit(code);
}

/* proc_raise(sig): the guest has no signals. */
uint32_t Z_wasi_snapshot_preview1Z_proc_raise(capsa__wasi *w, uint32_t sig)
{
    (void)w;
    (void)sig;
    return CAPSA__WASI_ENOTSUP;
}

uint32_t Z_wasi_snapshot_preview1Z_sched_yield(capsa__wasi *w)
{
    (void)w;
    sched_yield();
    return CAPSA__WASI_ESUCCESS;
}

/* ---- sockets: there are none ------------------------------------------------------------ */

/* Every socket call names a descriptor: EBADF when it is not open, ENOTSOCK when
 * it is (no descriptor is ever a socket). */
static uint32_t not_a_socket(capsa__wasi *w, uint32_t fd)
{
    uint32_t err = fd_check(w, fd, 0, NULL);
    return err ? err : CAPSA__WASI_ENOTSOCK;
}

uint32_t Z_wasi_snapshot_preview1Z_sock_accept(capsa__wasi *w, uint32_t fd, uint32_t flags,
                                               uint32_t result_fd)
{
    (void)flags;
    (void)result_fd;
    return not_a_socket(w, fd);
}

uint32_t Z_wasi_snapshot_preview1Z_sock_recv(capsa__wasi *w, uint32_t fd, uint32_t ri_data,
                                             uint32_t ri_data_len, uint32_t ri_flags,
                                             uint32_t ro_datalen, uint32_t ro_flags)
{
    (void)ri_data;
    (void)ri_data_len;
    (void)ri_flags;
    (void)ro_datalen;
    (void)ro_flags;
    return not_a_socket(w, fd);
}

uint32_t Z_wasi_snapshot_preview1Z_sock_send(capsa__wasi *w, uint32_t fd, uint32_t si_data,
                                             uint32_t si_data_len, uint32_t si_flags,
                                             uint32_t so_datalen)
{
    (void)si_data;
    (void)si_data_len;
    (void)si_flags;
    (void)so_datalen;
    return not_a_socket(w, fd);
}

uint32_t Z_wasi_snapshot_preview1Z_sock_shutdown(capsa__wasi *w, uint32_t fd, uint32_t how)
{
    (void)how;
    return not_a_socket(w, fd);
}
