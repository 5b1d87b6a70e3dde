/* Engines, sandboxes and results: their structures, which the files that act on
 * a sandbox read (result.c, fs.c, tools.c, policy.c, audit.c), and the one
 * function that sets a sandbox's error message. Lifecycle and runs: sandbox.c. */
#ifndef CAPSA_SANDBOX_H
#define CAPSA_SANDBOX_H

#include <pthread.h>
#include <stdbool.h>

#include "buf.h"
#include "capsa.h"
#include "fs.h"
#include "instance.h"
#include "rt.h"
#include "tools.h"
#include "vfs.h"

struct capsa_engine {
    capsa_allocator alloc;
    capsa__image *image; /* the initialised guest every sandbox starts from */
    pthread_mutex_t pool_lock;
    capsa__instance **pool; /* fresh instances ready to be bound, pool_size slots */
    uint32_t pool_size, pooled;
    int live;          /* sandboxes not yet freed (atomic) */
    int max_sandboxes; /* cap on live */
    pthread_mutex_t ckpt_lock;
    struct capsa__ckpt_scratch *ckpt_spare; /* checkpoint.c's compression contexts
                                               and buffer, kept for the next one */
};

/* The parts of a run's outcome that the guest reports, by CAPSA_RESULT_* - 1. */
enum { PART_VALUE, PART_ERROR_NAME, PART_ERROR_MESSAGE, PART_ERROR_STACK, PART_ERROR_CODE, PART_COUNT };

struct capsa_result {
    int status;
    capsa__buf out, err;
    capsa__buf part[PART_COUNT];
    bool has[PART_COUNT];
    capsa_stats stats;
    int exit_code;   /* a shell command line's exit status, a JS run's process.exit()
                        or process.exitCode; -1 otherwise */
    bool shell_exited; /* the command line ran `exit` */
};

struct capsa_sandbox {
    capsa_engine *engine;
    const capsa_allocator *alloc;
    capsa_options opts;
    capsa__instance *inst; /* NULL after a trap or a failed reset: made anew on use */
    capsa__vfs *vfs;       /* the sandbox's files: kept across runs and resets */
    capsa__host_mount *mounts; /* host directories mounted (read-write ones are
                                  written back after each run) */
    size_t n_mounts, n_rw_mounts;
    int busy;              /* CAPSA__BUSY_* (atomic) */
    capsa_result result;
    char errmsg[1024];
    capsa__tools *tools;   /* registry, policy, calls in flight */
    uint64_t audit_dropped; /* audit lines the log or the callback could not take */
    uint64_t audit_sent;    /* bytes handed to on_audit or kept, for audit_max_bytes */
    /* CAPSA_AUDIT_KEEP: the lines kept (appended by the run's thread) and those
       capsa_audit_take handed out last, under audit_lock. */
    pthread_mutex_t audit_lock;
    capsa__buf audit_kept, audit_taken;
    capsa__vnode *audit_node; /* /log/actions.jsonl, held while the names stay */
    uint64_t audit_names;     /* capsa__vfs_names when audit_node was looked up */
    uint64_t runs;          /* runs started, numbering them in the audit */
    /* The run in progress across its steps (capsa_run, then capsa_resume while it
       returns CAPSA_PENDING). */
    int pending;            /* the run returned CAPSA_PENDING to the caller */
    uint64_t run_deadline_ns; /* 0: none */
    uint64_t run_fuel_used;
    double run_t0;
    /* What the guest's WASI args_get and environ_get give (process.argv's
       arguments and process.env), copied by capsa_set_args and capsa_set_env:
       argv[0] is the program's name ("capsa"); NULL until set. */
    char **argv, **envp;
    size_t argc, envc;
    capsa__wasi_stdin stdin_src; /* the guest's fd 0 (capsa_set_stdin, _fd) */
    struct capsa__ckpt_cache *ckpt_cache; /* the frames of its last checkpoint
                                             (ckpt_body.c), or NULL */
    uint64_t checkpoints;  /* checkpoints taken of it */
};

/* Whether sb is inside capsa_run or capsa_resume (its guest, or its tool calls,
 * may be running). The functions that change a sandbox refuse to while it is
 * (CAPSA_EINVAL, errmsg left to the run): a tool callback may not call into its
 * own sandbox. */
static inline int capsa__sandbox_busy(const capsa_sandbox *sb)
{
    return __atomic_load_n(&sb->busy, __ATOMIC_ACQUIRE);
}

/* Whether the sandbox keeps an audit trail: once it has tools (or an audit
 * callback), so that sandboxes without tools write nothing to /log. */
static inline int capsa__sandbox_audited(const capsa_sandbox *sb)
{
    return sb->opts.on_audit || (sb->opts.audit_flags & CAPSA_AUDIT_KEEP) ||
           capsa__tools_generation(sb->tools) != 0;
}

/* Sets the message capsa_errmsg(sb) returns: the one function that writes it. */
void capsa__sandbox_errorf(capsa_sandbox *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* sb->busy: a run is in progress, and capsa_interrupt asked it to stop (one word,
 * so that an interrupt can only reach the run it was meant for: the end of a run
 * clears both). */
enum { CAPSA__BUSY_RUN = 1, CAPSA__BUSY_INTERRUPT = CAPSA__RT_INTERRUPT };

/* Whether capsa_interrupt asked sb's run in progress to stop. Any thread. */
static inline int capsa__sandbox_interrupted(const capsa_sandbox *sb)
{
    return __atomic_load_n(&sb->busy, __ATOMIC_ACQUIRE) & CAPSA__BUSY_INTERRUPT;
}

#endif
