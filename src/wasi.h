/* The WASI preview1 host functions the guest imports (module
 * "wasi_snapshot_preview1"): files and directories of the sandbox's VFS, standard
 * streams, clocks, randomness and waiting. Every fd the guest names is checked by
 * one function, every guest pointer by capsa__guest_ptr. */
#ifndef CAPSA_WASI_H
#define CAPSA_WASI_H

#include <stddef.h>
#include <stdint.h>

#include <wasm-rt.h>

#include "capsa.h"
#include "vfs.h"

/* Where the guest's writes to fd 1 and 2 go. */
typedef void (*capsa__wasi_output_fn)(void *ud, int fd, const char *data, size_t len);

/* One open descriptor of the guest. */
typedef struct capsa__wasi_fd {
    capsa__vnode *node;       /* a reference; NULL for a free slot or a stream */
    uint8_t kind;             /* 0 free, 1 stdin, 2 stdout/stderr, 3 node */
    uint16_t fdflags;         /* WASI fdflags: APPEND, NONBLOCK, ... */
    uint64_t rights_base, rights_inheriting;
    uint64_t offset;          /* files: the seek position; directories: unused */
    char *preopen;            /* the name a preopened directory is shown under, or NULL */
} capsa__wasi_fd;

/* A directory given to the guest at start, as fds 3, 4, ... in order. */
typedef struct capsa__wasi_preopen {
    const char *vfs_path;  /* the directory in the VFS (absolute) */
    const char *name;      /* the name the guest sees (fd_prestat_dir_name) */
} capsa__wasi_preopen;

/* What a guest starts with; all copied by capsa__wasi_init. */
typedef struct capsa__wasi_config {
    const capsa__wasi_preopen *preopens;
    size_t npreopens;
    const char *const *argv;  /* args_get */
    size_t argc;
    const char *const *envp;  /* environ_get, "NAME=value" */
    size_t envc;
} capsa__wasi_config;

/* The guest's standard input (fd 0), owned by its sandbox so that it outlives
 * instances: what one run read is gone for the next. All zero: empty. */
typedef struct capsa__wasi_stdin {
    uint8_t *data;        /* bytes given (capsa_set_stdin), allocated on alloc */
    size_t len, pos;
    int use_fd;           /* read the host's fd instead, as the guest asks */
    int fd;               /* borrowed from the caller */
    int tty;              /* fd is a terminal: the guest sees one, and reads end at once */
    int eof, over;        /* fd reached its end; fd had more than max bytes */
    uint64_t max, taken;  /* bytes of fd the guest may read; read so far */
} capsa__wasi_stdin;

/* Reads at most len bytes of standard input into p: from its bytes, or one read
 * of its fd that waits (in slices, polling) for bytes, the fd's end, the deadline
 * of the guest call on this thread or capsa_interrupt; those two stop the call
 * (capsa__rt_timeout), so it must run inside a guest call. *got 0: the end.
 * Returns 0, CAPSA__WASI_EFBIG past max (and from then on), or another WASI
 * errno for a failed read. */
uint32_t capsa__wasi_stdin_read(capsa__wasi_stdin *s, uint8_t *p, size_t len, size_t *got);

/* Open descriptors a guest may hold at once (EMFILE beyond). */
#define CAPSA__WASI_MAX_FDS 1024

/* The host side of the WASI imports of one guest instance. The name is the one
 * wasm2c gives the import module's instance type. */
struct Z_wasi_snapshot_preview1_instance_t {
    const wasm_rt_memory_t *memory; /* the guest's memory, set once instantiated */
    capsa__wasi_output_fn output;
    void *output_ud;
    const capsa_allocator *alloc;
    capsa__vfs *vfs;                /* borrowed: the sandbox's filesystem */
    capsa__wasi_fd *fds;            /* the fd table, nfds slots */
    uint32_t nfds;
    char **argv, **envp;            /* copies, argc/envc entries */
    size_t argc, envc;
    capsa__wasi_stdin *stdin_src;   /* borrowed from the sandbox; NULL: empty */
    uint32_t exit_code;             /* set by proc_exit, which then ends the guest
                                       call with CAPSA__TRAP_EXIT (src/rt.h) */
    int fixed_clock;                /* every clock reads CAPSA__WASI_FIXED_TIME: for
                                       the guest image, whose memory must be the
                                       same in every process (a checkpoint names
                                       it); set by the caller */
};

/* What the clocks read while fixed_clock is set: 2024-01-01T00:00:00Z, in ns. */
#define CAPSA__WASI_FIXED_TIME 1704067200000000000ull
typedef struct Z_wasi_snapshot_preview1_instance_t capsa__wasi;

/* Prepares w (zeroed, or finished) for a guest over vfs (borrowed; must outlive
 * w's use): stdio as fds 0-2, cfg's preopens from fd 3 (with every directory
 * right; the VFS's mounts decide what may be changed), its args and environment.
 * memory, output and output_ud belong to the caller and are left as they are. a
 * NULL: the C library's allocator. Returns 0, or a WASI errno (ENOMEM; EMFILE for
 * too many preopens; ENOENT/ENOTDIR for a preopen that is not a directory of vfs)
 * with w left empty. */
int capsa__wasi_init(capsa__wasi *w, const capsa_allocator *a, capsa__vfs *vfs,
                     const capsa__wasi_config *cfg);

/* Replaces the strings args_get and environ_get give the guest with copies of
 * argv[0..argc) and envp[0..envc) ("NAME=value"). Returns 0, or ENOMEM with the
 * old ones kept. */
int capsa__wasi_set_args(capsa__wasi *w, const char *const *argv, size_t argc,
                         const char *const *envp, size_t envc);

/* Closes every fd (dropping its node references) and frees what init made; w can
 * then be initialised again. Safe on a zeroed or already finished w. */
void capsa__wasi_finish(capsa__wasi *w);

/* Whether w's descriptors are still those capsa__wasi_init gave it with npreopens
 * preopened directories, unchanged (nothing opened, closed, renumbered, or its
 * rights or flags changed): returns UINT32_MAX when they are, else the first fd
 * that differs; *in_use gets the number of fds open beyond those. For a
 * checkpoint, which keeps no descriptors. */
uint32_t capsa__wasi_changed_fd(const capsa__wasi *w, size_t npreopens, uint32_t *in_use);

/* The imports the host implements, every function of wasi_snapshot_preview1, as
 * wasm2c declares them for a module that imports them (its header names them the
 * same, with the same types: u32 for i32, u64 for i64). Each returns a WASI errno. */
uint32_t Z_wasi_snapshot_preview1Z_args_get(capsa__wasi *, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_args_sizes_get(capsa__wasi *, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_environ_get(capsa__wasi *, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_environ_sizes_get(capsa__wasi *, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_clock_res_get(capsa__wasi *, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_clock_time_get(capsa__wasi *, uint32_t, uint64_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_advise(capsa__wasi *, uint32_t, uint64_t, uint64_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_allocate(capsa__wasi *, uint32_t, uint64_t, uint64_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_close(capsa__wasi *, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_datasync(capsa__wasi *, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_get(capsa__wasi *, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_set_flags(capsa__wasi *, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_fdstat_set_rights(capsa__wasi *, uint32_t, uint64_t, uint64_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_get(capsa__wasi *, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_set_size(capsa__wasi *, uint32_t, uint64_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_filestat_set_times(capsa__wasi *, uint32_t, uint64_t, uint64_t,
                                                         uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_pread(capsa__wasi *, uint32_t, uint32_t, uint32_t, uint64_t,
                                            uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_prestat_get(capsa__wasi *, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_prestat_dir_name(capsa__wasi *, uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_pwrite(capsa__wasi *, uint32_t, uint32_t, uint32_t, uint64_t,
                                             uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_read(capsa__wasi *, uint32_t, uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_readdir(capsa__wasi *, uint32_t, uint32_t, uint32_t, uint64_t,
                                              uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_renumber(capsa__wasi *, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_seek(capsa__wasi *, uint32_t, uint64_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_sync(capsa__wasi *, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_tell(capsa__wasi *, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_fd_write(capsa__wasi *, uint32_t, uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_create_directory(capsa__wasi *, uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_filestat_get(capsa__wasi *, uint32_t, uint32_t, uint32_t,
                                                     uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_filestat_set_times(capsa__wasi *, uint32_t, uint32_t,
                                                           uint32_t, uint32_t, uint64_t, uint64_t,
                                                           uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_link(capsa__wasi *, uint32_t, uint32_t, uint32_t, uint32_t,
                                             uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_open(capsa__wasi *, uint32_t, uint32_t, uint32_t, uint32_t,
                                             uint32_t, uint64_t, uint64_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_readlink(capsa__wasi *, uint32_t, uint32_t, uint32_t,
                                                 uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_remove_directory(capsa__wasi *, uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_rename(capsa__wasi *, uint32_t, uint32_t, uint32_t, uint32_t,
                                               uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_symlink(capsa__wasi *, uint32_t, uint32_t, uint32_t, uint32_t,
                                                uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_path_unlink_file(capsa__wasi *, uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_poll_oneoff(capsa__wasi *, uint32_t, uint32_t, uint32_t, uint32_t);
/* Does not return: stops the guest call (CAPSA__TRAP_EXIT) with w->exit_code set. */
void Z_wasi_snapshot_preview1Z_proc_exit(capsa__wasi *, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_proc_raise(capsa__wasi *, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_sched_yield(capsa__wasi *);
uint32_t Z_wasi_snapshot_preview1Z_random_get(capsa__wasi *, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_sock_accept(capsa__wasi *, uint32_t, uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_sock_recv(capsa__wasi *, uint32_t, uint32_t, uint32_t, uint32_t,
                                             uint32_t, uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_sock_send(capsa__wasi *, uint32_t, uint32_t, uint32_t, uint32_t,
                                             uint32_t);
uint32_t Z_wasi_snapshot_preview1Z_sock_shutdown(capsa__wasi *, uint32_t, uint32_t);

#endif
