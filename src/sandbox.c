/* Engines and sandboxes: lifecycle, the engine's pool of fresh instances, runs
 * (their steps while tool calls are waited for), the output and result parts the
 * guest reports, and the sandbox's error message (capsa__sandbox_errorf, its one
 * writer). A sandbox owns one guest instance and its filesystem; a trap hands the
 * instance back to the engine (its pool recycles it) and the next call takes a
 * fresh one, so a sandbox stays usable after anything the guest does, with its
 * files. */
#include "sandbox.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "abi.h"
#include "audit.h"
#include "checkpoint.h"
#include "ckpt_body.h"

#define DEFAULT_MEMORY_LIMIT (256ull << 20)
#define MAX_MEMORY_LIMIT (4ull << 30)
#define MIN_MEMORY_LIMIT (8ull << 20)
#define DEFAULT_MAX_OUTPUT (16ull << 20)
#define MAX_CODE_BYTES (64u << 20)
#define DEFAULT_TIMEOUT_MS 30000
#define MIN_STACK (32u << 10)
#define MAX_POOL_SIZE 1024

/* Live sandboxes of the whole process: the address space they reserve is the
 * process's, whichever engine made them. */
static int process_live;

/* ---- the pool of fresh instances ------------------------------------------------- */

/* A fresh instance from the pool, or NULL when it is empty. */
static capsa__instance *pool_take(capsa_engine *e)
{
    capsa__instance *g = NULL;
    if (!e->pool_size)
        return NULL;
    pthread_mutex_lock(&e->pool_lock);
    if (e->pooled)
        g = e->pool[--e->pooled];
    pthread_mutex_unlock(&e->pool_lock);
    return g;
}

/* Puts g in the pool when it still has room: returns NULL, or g when it has none
 * (another thread filled it first; the caller frees g). */
static capsa__instance *pool_add(capsa_engine *e, capsa__instance *g)
{
    pthread_mutex_lock(&e->pool_lock);
    if (e->pooled < e->pool_size) {
        e->pool[e->pooled++] = g;
        g = NULL;
    }
    pthread_mutex_unlock(&e->pool_lock);
    return g;
}

/* Makes fresh instances until the pool is full; stops at the first failure
 * (a pool is an optimisation: the next sandbox then makes its own). */
static void pool_refill(capsa_engine *e)
{
    char msg[256];
    for (;;) {
        pthread_mutex_lock(&e->pool_lock);
        int full = e->pooled >= e->pool_size;
        pthread_mutex_unlock(&e->pool_lock);
        capsa__instance *g = NULL;
        if (full || capsa__instance_fresh(e->image, &g, msg, sizeof(msg)) != CAPSA_OK)
            return;
        capsa__instance_free(pool_add(e, g)); /* another thread filled the last slot first */
    }
}

/* Gives an instance back to the engine: recycled (put back to the image in place)
 * into the pool when it has room, else freed. Whatever it ran, and however it
 * stopped, the pool then holds an instance as good as a fresh one. */
static void pool_put(capsa_engine *e, capsa__instance *g)
{
    if (!g)
        return;
    if (e->pool_size) {
        pthread_mutex_lock(&e->pool_lock);
        int room = e->pooled < e->pool_size;
        pthread_mutex_unlock(&e->pool_lock);
        if (room && capsa__instance_recycle(e->image, g) == CAPSA_OK)
            g = pool_add(e, g);
    }
    capsa__instance_learn(e->image, g);
    capsa__instance_free(g);
}

/* ---- engine ---------------------------------------------------------------------- */

CAPSA_API void capsa_engine_options_init(capsa_engine_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->struct_size = sizeof(*opts);
}

CAPSA_API int capsa_engine_new(const capsa_engine_options *opts, capsa_engine **out)
{
    if (!out)
        return CAPSA_EINVAL;
    *out = NULL;
    capsa_engine_options o;
    capsa_engine_options_init(&o);
    if (opts && capsa__struct_in(&o, sizeof(o), opts) != 0)
        return CAPSA_EINVAL;
    const capsa_allocator *a = o.allocator ? o.allocator : &capsa__default_allocator;
    if (!a->realloc_fn || !a->free_fn || o.max_sandboxes > CAPSA_MAX_SANDBOXES ||
        o.pool_size > MAX_POOL_SIZE)
        return CAPSA_EINVAL;
    if (o.max_sandboxes == 0)
        o.max_sandboxes = CAPSA_MAX_SANDBOXES;
    capsa_engine *e = capsa__malloc(a, sizeof(*e));
    if (!e)
        return CAPSA_ENOMEM;
    memset(e, 0, sizeof(*e));
    e->alloc = *a;
    e->max_sandboxes = (int)o.max_sandboxes;
    e->pool_size = o.pool_size;
    if (e->pool_size) {
        e->pool = capsa__malloc(a, e->pool_size * sizeof(*e->pool));
        if (!e->pool) {
            capsa__free(a, e);
            return CAPSA_ENOMEM;
        }
    }
    pthread_mutex_init(&e->pool_lock, NULL);
    pthread_mutex_init(&e->ckpt_lock, NULL);
    char msg[256];
    size_t ready_len;
    const uint8_t *ready = capsa__ready_image_linked(&ready_len);
    int rc = capsa__image_new(&e->alloc, ready, ready_len, &e->image, msg, sizeof(msg));
    if (rc != CAPSA_OK) {
        capsa_engine_free(e);
        return rc;
    }
    pool_refill(e);
    *out = e;
    return CAPSA_OK;
}

CAPSA_API void capsa_engine_free(capsa_engine *engine)
{
    if (!engine)
        return;
    for (uint32_t i = 0; i < engine->pooled; i++)
        capsa__instance_free(engine->pool[i]);
    capsa__free(&engine->alloc, engine->pool);
    pthread_mutex_destroy(&engine->pool_lock);
    capsa__checkpoint_scratch_free(engine, engine->ckpt_spare);
    pthread_mutex_destroy(&engine->ckpt_lock);
    capsa__image_free(engine->image);
    capsa_allocator a = engine->alloc;
    capsa__free(&a, engine);
}

/* ---- sandbox --------------------------------------------------------------------- */

void capsa__sandbox_errorf(capsa_sandbox *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sb->errmsg, sizeof(sb->errmsg), fmt, ap);
    va_end(ap);
}

/* Output hook: each stream passes its first max_output bytes of a run, to the
 * caller's hook and to the result; then a marker line says the rest is dropped,
 * and the rest is only counted. */
static void on_output(void *ud, int fd, const char *data, size_t len)
{
    capsa_sandbox *sb = ud;
    capsa_result *r = &sb->result;
    capsa__buf *b = fd == CAPSA_STDOUT ? &r->out : &r->err;
    uint64_t *count = fd == CAPSA_STDOUT ? &r->stats.stdout_bytes : &r->stats.stderr_bytes;
    uint64_t before = *count, cap = sb->opts.max_output;
    *count += len;
    size_t pass = before >= cap ? 0 : len < cap - before ? len : (size_t)(cap - before);
    if (pass) {
        if (sb->opts.on_output)
            sb->opts.on_output(sb->opts.on_output_ud, fd, data, pass);
        if (capsa__buf_append(b, sb->alloc, data, pass) != 0) {
            r->stats.output_dropped += pass; /* streamed, but not kept */
            capsa__buf_truncate(b, b->len);  /* what comes next may still be */
        }
    }
    r->stats.output_dropped += len - pass;
    if (pass < len && before <= cap) {
        char marker[96];
        int n = snprintf(marker, sizeof(marker), "\n[capsa: output over %llu bytes; the rest is dropped]\n",
                         (unsigned long long)cap);
        if (sb->opts.on_output)
            sb->opts.on_output(sb->opts.on_output_ud, fd, marker, (size_t)n);
        capsa__buf_append(b, sb->alloc, marker, (size_t)n);
    }
}

/* Result hook: one part of the outcome, as the guest reports it. */
static int on_result(void *ud, uint32_t kind, const char *data, size_t len)
{
    capsa_sandbox *sb = ud;
    if (kind == CAPSA_RESULT_EXIT_CODE) {
        /* 0-255 in decimal, as the guest reports it; anything else is a failure */
        int code = len > 0 && len <= 3 ? 0 : -1;
        for (size_t i = 0; code >= 0 && i < len; i++)
            code = data[i] >= '0' && data[i] <= '9' ? code * 10 + (data[i] - '0') : -1;
        sb->result.exit_code = code >= 0 && code <= 255 ? code : 1;
        return 0;
    }
    if (kind < CAPSA_RESULT_VALUE || kind > CAPSA_RESULT_ERROR_CODE)
        return 0; /* unknown parts are ignored: a newer guest may say more */
    int i = (int)kind - 1;
    capsa__buf_clear(&sb->result.part[i]);
    if (capsa__buf_append(&sb->result.part[i], sb->alloc, data, len) != 0)
        return -1;
    sb->result.has[i] = true;
    return 0;
}

/* Gives the sandbox's instance the arguments and environment set with
 * capsa_set_args and capsa_set_env (nothing to do when neither was). */
static int give_args(capsa_sandbox *sb)
{
    static const char *const name[] = { "capsa" };
    if (!sb->argv && !sb->envp)
        return CAPSA_OK;
    int rc = capsa__instance_set_args(sb->inst, sb->argv ? (const char *const *)sb->argv : name,
                                      sb->argv ? sb->argc : 1, (const char *const *)sb->envp,
                                      sb->envc);
    if (rc != CAPSA_OK)
        capsa__sandbox_errorf(sb, "out of memory giving the guest its arguments");
    return rc;
}

/* Gives the sandbox an instance: g (an unbound one, recycled; NULL: none) or a
 * pooled one when there is one, else a new one. Takes g in every case. */
static int make_instance(capsa_sandbox *sb, capsa__instance *g)
{
    capsa__instance_hooks hooks = { on_output, on_result, sb, sb->tools, &sb->stdin_src };
    if (!g)
        g = pool_take(sb->engine);
    if (g) {
        if (capsa__instance_bind(g, &hooks, sb->vfs, sb->opts.memory_limit, sb->opts.max_stack,
                                 sb->errmsg, sizeof(sb->errmsg)) == CAPSA_OK) {
            sb->inst = g;
            return give_args(sb);
        }
        capsa__instance_free(g);
    }
    int rc = capsa__instance_new(sb->engine->image, &hooks, sb->vfs, sb->opts.memory_limit,
                                 sb->opts.max_stack, &sb->inst, sb->errmsg, sizeof(sb->errmsg));
    return rc == CAPSA_OK ? give_args(sb) : rc;
}

/* ---- the script's arguments and environment ------------------------------------- */

/* The most bytes capsa_set_args, or capsa_set_env, takes (each string counted
 * with its NUL). */
#define MAX_ARGS_BYTES (1u << 20)

static void free_list(const capsa_allocator *a, char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        capsa__free(a, v[i]);
    capsa__free(a, v);
}

/* Checks strs[0..n) (what names them in messages) and copies them, after
 * `first` when it is not NULL, into a new list *out of *out_n strings: each valid
 * UTF-8, and "NAME=value" with a NAME when env. CAPSA_OK, CAPSA_EINVAL,
 * CAPSA_ETOOBIG or CAPSA_ENOMEM, with the message set. */
static int copy_list(capsa_sandbox *sb, const char *what, const char *first,
                     const char *const *strs, size_t n, int env, char ***out, size_t *out_n)
{
    size_t bytes = 0, skip = first ? 1 : 0;
    if (n && !strs) {
        capsa__sandbox_errorf(sb, "%s: the list is NULL with %zu entries", what, n);
        return CAPSA_EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        const char *s = strs[i];
        if (!s) {
            capsa__sandbox_errorf(sb, "%s: entry %zu is NULL", what, i);
            return CAPSA_EINVAL;
        }
        size_t len = strlen(s);
        bytes += len + 1;
        if (bytes > MAX_ARGS_BYTES) {
            capsa__sandbox_errorf(sb, "%s: over %u bytes", what, MAX_ARGS_BYTES);
            return CAPSA_ETOOBIG;
        }
        for (size_t k = 0; k < len;) {
            size_t c = capsa__utf8_len((const unsigned char *)s + k, len - k);
            if (!c) {
                capsa__sandbox_errorf(sb, "%s: entry %zu is not valid UTF-8", what, i);
                return CAPSA_EINVAL;
            }
            k += c;
        }
        const char *eq = strchr(s, '=');
        if (env && (!eq || eq == s)) {
            capsa__sandbox_errorf(sb, "%s: entry %zu ('%.64s') is not NAME=value", what, i, s);
            return CAPSA_EINVAL;
        }
    }
    char **v = capsa__malloc(sb->alloc, (n + skip) * sizeof(char *) + 1);
    if (!v) {
        capsa__sandbox_errorf(sb, "%s: out of memory", what);
        return CAPSA_ENOMEM;
    }
    for (size_t i = 0; i < n + skip; i++) {
        const char *s = i < skip ? first : strs[i - skip];
        v[i] = capsa__strndup(sb->alloc, s, strlen(s));
        if (!v[i]) {
            free_list(sb->alloc, v, i);
            capsa__sandbox_errorf(sb, "%s: out of memory", what);
            return CAPSA_ENOMEM;
        }
    }
    *out = v;
    *out_n = n + skip;
    return CAPSA_OK;
}

/* Sets the arguments (env 0) or the environment (env 1) and gives them to the
 * instance; the old list is kept when anything fails. */
static int set_list(capsa_sandbox *sb, int env, size_t n, const char *const *strs)
{
    if (!sb || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    char **v;
    size_t count;
    int rc = copy_list(sb, env ? "capsa_set_env" : "capsa_set_args", env ? NULL : "capsa", strs,
                       n, env, &v, &count);
    if (rc != CAPSA_OK)
        return rc;
    char ***list = env ? &sb->envp : &sb->argv;
    size_t *len = env ? &sb->envc : &sb->argc;
    char **old = *list;
    size_t old_n = *len;
    *list = v;
    *len = count;
    if (sb->inst && (rc = give_args(sb)) != CAPSA_OK) {
        *list = old;
        *len = old_n;
        free_list(sb->alloc, v, count);
        return rc;
    }
    free_list(sb->alloc, old, old_n);
    capsa__sandbox_errorf(sb, "not an error");
    return CAPSA_OK;
}

CAPSA_API int capsa_set_args(capsa_sandbox *sb, size_t argc, const char *const *argv)
{
    return set_list(sb, 0, argc, argv);
}

CAPSA_API int capsa_set_env(capsa_sandbox *sb, size_t envc, const char *const *envp)
{
    return set_list(sb, 1, envc, envp);
}

/* ---- standard input -------------------------------------------------------------- */

/* Drops what the sandbox's standard input held (nothing to read after). */
static void stdin_clear(capsa_sandbox *sb)
{
    capsa__free(sb->alloc, sb->stdin_src.data);
    memset(&sb->stdin_src, 0, sizeof(sb->stdin_src));
}

CAPSA_API int capsa_set_stdin(capsa_sandbox *sb, const void *data, size_t len)
{
    if (!sb || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    if (!data && len) {
        capsa__sandbox_errorf(sb, "capsa_set_stdin: data is NULL with a length of %zu", len);
        return CAPSA_EINVAL;
    }
    if (len > MAX_CODE_BYTES) {
        capsa__sandbox_errorf(sb, "capsa_set_stdin: %zu bytes is over the limit of %u bytes",
                              len, MAX_CODE_BYTES);
        return CAPSA_ETOOBIG;
    }
    uint8_t *copy = NULL;
    if (len && !(copy = capsa__malloc(sb->alloc, len))) {
        capsa__sandbox_errorf(sb, "capsa_set_stdin: out of memory");
        return CAPSA_ENOMEM;
    }
    if (len)
        memcpy(copy, data, len);
    stdin_clear(sb);
    sb->stdin_src.data = copy;
    sb->stdin_src.len = len;
    capsa__sandbox_errorf(sb, "not an error");
    return CAPSA_OK;
}

CAPSA_API int capsa_set_stdin_fd(capsa_sandbox *sb, int fd, uint64_t max_bytes)
{
    if (!sb || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    if (fd < 0) {
        capsa__sandbox_errorf(sb, "capsa_set_stdin_fd: %d is not a file descriptor", fd);
        return CAPSA_EINVAL;
    }
    stdin_clear(sb);
    sb->stdin_src.use_fd = 1;
    sb->stdin_src.fd = fd;
    sb->stdin_src.tty = isatty(fd);
    sb->stdin_src.max = max_bytes ? max_bytes : CAPSA_STDIN_MAX_DEFAULT;
    capsa__sandbox_errorf(sb, "not an error");
    return CAPSA_OK;
}

/* Gives back a sandbox's place under the engine's and the process's caps. */
static void uncount(capsa_engine *engine)
{
    __atomic_sub_fetch(&engine->live, 1, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&process_live, 1, __ATOMIC_RELAXED);
}

CAPSA_API void capsa_options_init(capsa_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->struct_size = sizeof(*opts);
    opts->memory_limit = DEFAULT_MEMORY_LIMIT;
    opts->max_output = DEFAULT_MAX_OUTPUT;
    opts->timeout_ms = DEFAULT_TIMEOUT_MS;
    opts->max_stack = CAPSA_MAX_STACK;
}

CAPSA_API int capsa_sandbox_new(capsa_engine *engine, const capsa_options *opts,
                                capsa_sandbox **out)
{
    if (!out)
        return CAPSA_EINVAL;
    *out = NULL;
    if (!engine)
        return CAPSA_EINVAL;
    capsa_options o;
    capsa_options_init(&o);
    if (opts) {
        if (capsa__struct_in(&o, sizeof(o), opts) != 0)
            return CAPSA_EINVAL;
        o.struct_size = sizeof(o);
    }
    if (o.memory_limit == 0)
        o.memory_limit = DEFAULT_MEMORY_LIMIT;
    if (o.memory_limit < MIN_MEMORY_LIMIT || o.memory_limit > MAX_MEMORY_LIMIT)
        return CAPSA_EINVAL;
    if (o.max_stack == 0)
        o.max_stack = CAPSA_MAX_STACK;
    if (o.max_stack < MIN_STACK || o.max_stack > CAPSA_MAX_STACK)
        return CAPSA_EINVAL;
    if (o.max_output == 0)
        o.max_output = DEFAULT_MAX_OUTPUT;
    if (o.fs_max_file > o.fs_max_bytes && o.fs_max_bytes)
        return CAPSA_EINVAL;
    if (o.tool_concurrency > CAPSA__TOOLS_MAX_THREADS ||
        (o.audit_flags & ~(uint32_t)(CAPSA_AUDIT_HASH_ARGS | CAPSA_AUDIT_NO_FILE |
                                     CAPSA_AUDIT_KEEP)))
        return CAPSA_EINVAL;

    /* Count first, so that racing threads never exceed a cap together. */
    if (__atomic_add_fetch(&engine->live, 1, __ATOMIC_RELAXED) > engine->max_sandboxes) {
        __atomic_sub_fetch(&engine->live, 1, __ATOMIC_RELAXED);
        return CAPSA_ETOOMANY;
    }
    if (__atomic_add_fetch(&process_live, 1, __ATOMIC_RELAXED) > CAPSA_MAX_SANDBOXES) {
        __atomic_sub_fetch(&process_live, 1, __ATOMIC_RELAXED);
        __atomic_sub_fetch(&engine->live, 1, __ATOMIC_RELAXED);
        return CAPSA_ETOOMANY;
    }
    capsa_sandbox *sb = capsa__malloc(&engine->alloc, sizeof(*sb));
    if (!sb) {
        uncount(engine);
        return CAPSA_ENOMEM;
    }
    memset(sb, 0, sizeof(*sb));
    sb->engine = engine;
    sb->alloc = &engine->alloc;
    sb->opts = o;
    pthread_mutex_init(&sb->audit_lock, NULL);
    capsa__vfs_quota quota = { o.fs_max_bytes, o.fs_max_entries, o.fs_max_file };
    int rc = capsa__vfs_new(sb->alloc, &quota, &sb->vfs) == 0 ? capsa__tools_new(sb, &sb->tools)
                                                               : CAPSA_ENOMEM;
    if (rc == CAPSA_OK)
        rc = make_instance(sb, NULL);
    if (rc != CAPSA_OK) {
        capsa__tools_free(sb->tools);
        capsa__vfs_free(sb->vfs);
        pthread_mutex_destroy(&sb->audit_lock);
        capsa__free(sb->alloc, sb);
        uncount(engine);
        return rc;
    }
    capsa__sandbox_errorf(sb, "not an error");
    *out = sb;
    return CAPSA_OK;
}

static void result_free(capsa_result *r, const capsa_allocator *a)
{
    capsa__buf_free(&r->out, a);
    capsa__buf_free(&r->err, a);
    for (int i = 0; i < PART_COUNT; i++)
        capsa__buf_free(&r->part[i], a);
}

CAPSA_API void capsa_sandbox_free(capsa_sandbox *sb)
{
    if (!sb || capsa__sandbox_busy(sb))
        return; /* freeing a sandbox from inside its own run is refused */
    pool_put(sb->engine, sb->inst); /* before the files: its fds hold nodes */
    capsa__tools_free(sb->tools);   /* waits for callbacks still running */
    capsa__audit_close(sb);
    capsa__buf_free(&sb->audit_kept, sb->alloc);
    capsa__buf_free(&sb->audit_taken, sb->alloc);
    pthread_mutex_destroy(&sb->audit_lock);
    capsa__vfs_free(sb->vfs);
    capsa__fs_free_mounts(sb);
    result_free(&sb->result, sb->alloc);
    free_list(sb->alloc, sb->argv, sb->argc);
    free_list(sb->alloc, sb->envp, sb->envc);
    stdin_clear(sb);
    capsa__ckpt_cache_free(sb->alloc, sb->ckpt_cache);
    capsa_engine *engine = sb->engine;
    capsa__free(sb->alloc, sb);
    uncount(engine);
    pool_refill(engine);
}

CAPSA_API int capsa_sandbox_options(const capsa_sandbox *sb, capsa_options *opts)
{
    if (!sb || !opts || opts->struct_size < sizeof(size_t))
        return CAPSA_EINVAL;
    capsa__struct_out(opts, &sb->opts, sizeof(sb->opts));
    return CAPSA_OK;
}

CAPSA_API const char *capsa_errmsg(const capsa_sandbox *sb)
{
    return sb ? sb->errmsg : "no sandbox (NULL)";
}

CAPSA_API int capsa_reset(capsa_sandbox *sb)
{
    if (!sb || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    if (sb->pending) {
        sb->pending = 0;
        capsa__tools_run_end(sb->tools);
    }
    /* The instance goes back to the image in place: no new mapping, and the pages
       it wrote stay mapped. Another is taken only if that fails. */
    capsa__instance *g = sb->inst;
    sb->inst = NULL;
    if (g && capsa__instance_recycle(sb->engine->image, g) != CAPSA_OK) {
        capsa__instance_free(g);
        g = NULL;
    }
    int rc = make_instance(sb, g);
    if (rc == CAPSA_OK)
        capsa__sandbox_errorf(sb, "not an error");
    return rc;
}

/* ---- runs ------------------------------------------------------------------------ */

static void result_clear(capsa_result *r)
{
    r->status = CAPSA_OK;
    capsa__buf_clear(&r->out);
    capsa__buf_clear(&r->err);
    for (int i = 0; i < PART_COUNT; i++) {
        capsa__buf_clear(&r->part[i]);
        r->has[i] = false;
    }
    memset(&r->stats, 0, sizeof(r->stats));
    r->stats.struct_size = sizeof(r->stats);
    r->exit_code = -1;
    r->shell_exited = false;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Describes a stopped run (trap or limit) in the result as an error named name,
 * so that every reader of results (the CLI, bindings) shows it the same way as a
 * thrown error. The message is the sandbox's errmsg. */
static void result_set_stopped(capsa_sandbox *sb, const char *name)
{
    capsa_result *r = &sb->result;
    for (int i = 0; i < PART_COUNT; i++) {
        capsa__buf_clear(&r->part[i]);
        r->has[i] = false;
    }
    r->has[PART_ERROR_NAME] =
        capsa__buf_append(&r->part[PART_ERROR_NAME], sb->alloc, name, strlen(name)) == 0;
    r->has[PART_ERROR_MESSAGE] = capsa__buf_append(&r->part[PART_ERROR_MESSAGE], sb->alloc,
                                                   sb->errmsg, strlen(sb->errmsg)) == 0;
}

/* Writes the read-write host mounts back after a run, whatever its outcome (the
 * files are kept even when the guest was stopped). A failure is told on the
 * run's stderr: the run itself happened. */
static void write_back(capsa_sandbox *sb)
{
    if (!sb->n_rw_mounts)
        return;
    char saved[sizeof(sb->errmsg)];
    memcpy(saved, sb->errmsg, sizeof(saved));
    if (capsa__fs_sync(sb) != CAPSA_OK) {
        char line[sizeof(sb->errmsg) + 16];
        int n = snprintf(line, sizeof(line), "[capsa: %s]\n", sb->errmsg);
        on_output(sb, CAPSA_STDERR, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
    }
    memcpy(sb->errmsg, saved, sizeof(saved));
}

/* Ends a run (whatever stopped it): statistics, write-back, the error message,
 * the instance dropped after a trap or a limit, the audit's lifecycle lines. */
static int run_finish(capsa_sandbox *sb, int rc, const capsa_result **out)
{
    capsa_result *r = &sb->result;
    /* capsa_interrupt stops a run through its deadline's path. */
    if (rc == CAPSA_ETIMEOUT && capsa__sandbox_interrupted(sb))
        rc = CAPSA_EINTERRUPTED;
    sb->pending = 0;
    r->stats.wall_ms = now_ms() - sb->run_t0;
    r->stats.memory_bytes = sb->inst ? capsa__instance_memory_bytes(sb->inst) : 0;
    r->stats.fuel_used = sb->run_fuel_used;
    r->stats.tool_calls = capsa__tools_calls_made(sb->tools);
    r->status = rc;
    capsa__tools_run_end(sb->tools);
    write_back(sb);
    const char *limit = NULL;
    switch (rc) {
    case CAPSA_OK:
        capsa__sandbox_errorf(sb, "not an error");
        break;
    case CAPSA_ESCRIPT:
        capsa__sandbox_errorf(sb, "the script threw %s: %s",
                              r->has[PART_ERROR_NAME] ? r->part[PART_ERROR_NAME].data : "a value",
                              r->has[PART_ERROR_MESSAGE] ? r->part[PART_ERROR_MESSAGE].data : "");
        break;
    case CAPSA_ETRAP:
    case CAPSA_ETIMEOUT:
    case CAPSA_EFUEL:
    case CAPSA_EINTERRUPTED:
        /* The guest's state is unknown after it was stopped: drop it, keep the
           sandbox; the next call starts from the image again. */
        pool_put(sb->engine, sb->inst);
        sb->inst = NULL;
        if (rc == CAPSA_EINTERRUPTED)
            capsa__sandbox_errorf(sb, "the run was interrupted; the sandbox was reset (its JS state is lost)");
        else if (rc == CAPSA_ETIMEOUT)
            capsa__sandbox_errorf(sb, "the run reached its time limit of %llu ms; the sandbox was reset "
                          "(its JS state is lost)", (unsigned long long)sb->opts.timeout_ms);
        else if (rc == CAPSA_EFUEL)
            capsa__sandbox_errorf(sb, "the run spent its fuel budget of %llu units; the sandbox was reset "
                          "(its JS state is lost)", (unsigned long long)sb->opts.fuel);
        limit = rc == CAPSA_ETRAP ? "trap" : rc == CAPSA_ETIMEOUT ? "time"
              : rc == CAPSA_EFUEL ? "fuel" : "interrupt";
        result_set_stopped(sb, rc == CAPSA_ETRAP ? "Trap" : rc == CAPSA_ETIMEOUT ? "TimeoutError"
                               : rc == CAPSA_EFUEL ? "FuelError" : "InterruptError");
        break;
    default:
        /* Anything else leaves the instance in an unknown state too. */
        pool_put(sb->engine, sb->inst);
        sb->inst = NULL;
        break;
    }
    if (capsa__sandbox_audited(sb)) {
        char extra[320];
        if (limit) {
            capsa__buf msg = { 0 };
            capsa__json_quote(&msg, sb->alloc, sb->errmsg, strlen(sb->errmsg));
            snprintf(extra, sizeof(extra), "\"limit\":\"%s\",\"message\":%.250s", limit,
                     msg.data ? msg.data : "null");
            capsa__buf_free(&msg, sb->alloc);
            capsa__audit_event(sb, "limit", sb->runs, extra);
        }
        int n = snprintf(extra, sizeof(extra), "\"status\":\"%s\",\"wall_ms\":%.3f,\"tool_calls\":%llu",
                         capsa_errname(rc), r->stats.wall_ms, (unsigned long long)r->stats.tool_calls);
        uint64_t unaudited = capsa__tools_calls_unaudited(sb->tools);
        if (unaudited && n > 0 && (size_t)n < sizeof(extra))
            snprintf(extra + n, sizeof(extra) - (size_t)n, ",\"tool_calls_unaudited\":%llu",
                     (unsigned long long)unaudited);
        capsa__audit_event(sb, "run_end", sb->runs, extra);
    }
    switch (rc) {
    case CAPSA_OK: case CAPSA_ESCRIPT: case CAPSA_ETRAP: case CAPSA_ETIMEOUT: case CAPSA_EFUEL:
    case CAPSA_EINTERRUPTED:
        if (out)
            *out = r;
        break;
    default:
        break;
    }
    return rc;
}

/* The limits of the run's next step: the run's deadline, and what is left of its
 * fuel (0 left: *spent). */
static capsa__rt_limits step_limits(const capsa_sandbox *sb, int *spent)
{
    capsa__rt_limits limits = { 0, sb->run_deadline_ns, &sb->busy };
    *spent = 0;
    if (sb->opts.fuel) {
        if (sb->run_fuel_used >= sb->opts.fuel)
            *spent = 1;
        else
            limits.fuel = sb->opts.fuel - sb->run_fuel_used;
    }
    return limits;
}

/* Drives a run whose last step returned rc: while the guest waits for tool calls,
 * waits for their outcomes (or its next timer) and resumes it; returns
 * CAPSA_PENDING to the caller when only calls it must resolve are left. */
static int run_steps(capsa_sandbox *sb, int rc, const capsa_result **out)
{
    while (rc == CAPSA_PENDING) {
        int w = capsa__tools_wait(sb->tools, sb->run_deadline_ns);
        if (w == CAPSA__WAIT_EXTERNAL) {
            capsa__tools_snapshot_pending(sb->tools);
            sb->pending = 1;
            capsa_result *r = &sb->result;
            r->status = CAPSA_PENDING;
            r->stats.wall_ms = now_ms() - sb->run_t0;
            r->stats.fuel_used = sb->run_fuel_used;
            r->stats.tool_calls = capsa__tools_calls_made(sb->tools);
            capsa__sandbox_errorf(sb, "the run waits for %zu tool calls the host resolves",
                                  capsa_pending_count(sb));
            if (out)
                *out = r;
            return CAPSA_PENDING;
        }
        if (w == CAPSA__WAIT_DEADLINE) {
            rc = CAPSA_ETIMEOUT;
            break;
        }
        if (w == CAPSA__WAIT_IDLE) {
            capsa__sandbox_errorf(sb, "the guest waits for tool calls that do not exist");
            rc = CAPSA_EGUEST;
            break;
        }
        int spent;
        capsa__rt_limits limits = step_limits(sb, &spent);
        if (spent) {
            rc = CAPSA_EFUEL;
            break;
        }
        uint64_t used = 0;
        rc = capsa__instance_continue(sb->inst, &limits, &used, sb->errmsg, sizeof(sb->errmsg));
        sb->run_fuel_used += used;
    }
    return run_finish(sb, rc, out);
}

static int run_inner(capsa_sandbox *sb, const char *code, size_t len, const char *filename,
                     int shell, const char *input, size_t input_len, const capsa_result **out);
static int resume_inner(capsa_sandbox *sb, const capsa_result **out);

/* Enters a call that runs sb's guest: 0, or -1 when one is already in progress
 * (a tool callback calling into its own sandbox, or two threads at once). */
static int enter(capsa_sandbox *sb)
{
    int expected = 0;
    return __atomic_compare_exchange_n(&sb->busy, &expected, CAPSA__BUSY_RUN, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE) ? 0 : -1;
}

/* Leaves it, and with it any interrupt that was meant for this run. */
static void leave(capsa_sandbox *sb)
{
    __atomic_store_n(&sb->busy, 0, __ATOMIC_RELEASE);
}

CAPSA_API int capsa_interrupt(capsa_sandbox *sb)
{
    if (!sb)
        return CAPSA_EINVAL;
    int cur = __atomic_load_n(&sb->busy, __ATOMIC_ACQUIRE);
    while (cur & CAPSA__BUSY_RUN) {
        if (__atomic_compare_exchange_n(&sb->busy, &cur, cur | CAPSA__BUSY_INTERRUPT, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            capsa__tools_wake(sb->tools); /* a run waiting for tool calls sees it now */
            return CAPSA_OK;
        }
    }
    return CAPSA_ENOENT;
}

CAPSA_API int capsa_run(capsa_sandbox *sb, const char *code, size_t len,
                        const char *filename, const capsa_result **out)
{
    if (out)
        *out = NULL;
    if (!sb || enter(sb) != 0)
        return CAPSA_EINVAL;
    int rc = run_inner(sb, code, len, filename, 0, NULL, 0, out);
    leave(sb);
    return rc;
}

CAPSA_API int capsa_resume(capsa_sandbox *sb, const capsa_result **out)
{
    if (out)
        *out = NULL;
    if (!sb || enter(sb) != 0)
        return CAPSA_EINVAL;
    int rc = resume_inner(sb, out);
    leave(sb);
    return rc;
}

/* Runs JavaScript code, or, when input is not NULL, the shell command line code
 * with input as its standard input. */
static int run_inner(capsa_sandbox *sb, const char *code, size_t len, const char *filename,
                     int shell, const char *input, size_t input_len, const capsa_result **out)
{
    if (sb->pending) {
        capsa__sandbox_errorf(sb, "a run is pending: settle its tool calls and capsa_resume it, or "
                                  "capsa_reset the sandbox");
        return CAPSA_EINVAL;
    }
    if (!code && len) {
        capsa__sandbox_errorf(sb, "code is NULL with a length of %zu", len);
        return CAPSA_EINVAL;
    }
    if (len > MAX_CODE_BYTES) {
        capsa__sandbox_errorf(sb, "code of %zu bytes is over the limit of %u bytes", len,
                              MAX_CODE_BYTES);
        return CAPSA_ETOOBIG;
    }
    result_clear(&sb->result);
    if (!sb->inst) {
        int rc = make_instance(sb, NULL);
        if (rc != CAPSA_OK)
            return rc;
    }
    sb->run_t0 = now_ms();
    sb->run_deadline_ns = 0;
    sb->run_fuel_used = 0;
    if (sb->opts.timeout_ms) {
        uint64_t ns = sb->opts.timeout_ms > UINT64_MAX / 2000000u ? UINT64_MAX / 2
                                                                  : sb->opts.timeout_ms * 1000000u;
        sb->run_deadline_ns = capsa__rt_now_ns() + ns;
    }
    sb->runs++;
    capsa__tools_run_begin(sb->tools, sb->runs);
    if (capsa__sandbox_audited(sb))
        capsa__audit_event(sb, "run_start", sb->runs, "");
    int spent;
    capsa__rt_limits limits = step_limits(sb, &spent);
    uint64_t used = 0;
    int rc = shell ? capsa__instance_shell(sb->inst, code, len, input, input_len, &limits, &used,
                                           sb->errmsg, sizeof(sb->errmsg))
                   : capsa__instance_run(sb->inst, code ? code : "", len,
                                         filename ? filename : "<input>", &limits, &used,
                                         sb->errmsg, sizeof(sb->errmsg));
    sb->run_fuel_used += used;
    return run_steps(sb, rc, out);
}

CAPSA_API int capsa_shell(capsa_sandbox *sb, const char *cmdline, const char *input,
                          size_t input_len, const capsa_result **out)
{
    if (out)
        *out = NULL;
    if (!sb || enter(sb) != 0)
        return CAPSA_EINVAL;
    if (!cmdline || (!input && input_len)) {
        capsa__sandbox_errorf(sb, !cmdline ? "the command line is NULL"
                                           : "the input is NULL with a length of %zu", input_len);
        leave(sb);
        return CAPSA_EINVAL;
    }
    size_t len = strlen(cmdline);
    if (len > MAX_CODE_BYTES || input_len > MAX_CODE_BYTES) {
        capsa__sandbox_errorf(sb, "a command line or input of %zu bytes is over the limit of %u "
                                  "bytes", len > input_len ? len : input_len, MAX_CODE_BYTES);
        leave(sb);
        return CAPSA_ETOOBIG;
    }
    int rc = run_inner(sb, cmdline, len, NULL, 1, input, input_len, out);
    capsa_result *r = &sb->result;
    if (rc == CAPSA_OK && r->has[PART_VALUE]) {
        char *end;
        long v = strtol(r->part[PART_VALUE].data, &end, 10);
        if (*end == '\0' && v >= 0 && v <= 511) {
            r->exit_code = (int)(v & 255);
            r->shell_exited = v > 255;
            /* The value is the exit status alone. */
            char num[8];
            int n = snprintf(num, sizeof(num), "%d", r->exit_code);
            capsa__buf_clear(&r->part[PART_VALUE]);
            if (capsa__buf_append(&r->part[PART_VALUE], sb->alloc, num, (size_t)n) != 0)
                r->has[PART_VALUE] = false;
        }
    }
    leave(sb);
    return rc;
}

static int resume_inner(capsa_sandbox *sb, const capsa_result **out)
{
    if (!sb->pending || !sb->inst) {
        capsa__sandbox_errorf(sb, "no run is pending");
        return CAPSA_EINVAL;
    }
    sb->pending = 0;
    return run_steps(sb, CAPSA_PENDING, out);
}
