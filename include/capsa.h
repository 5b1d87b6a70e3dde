/* capsa: a capability-secured WebAssembly sandbox for code written by AI agents.
 *
 * This header is the whole public API. JavaScript runs in QuickJS compiled to
 * WebAssembly and from there to C, inside this library; every sandbox is one guest
 * instance with its own linear memory. Handles are opaque; every function states
 * who owns what it takes and returns. All functions returning int return CAPSA_OK
 * (0) on success or one of the CAPSA_E* codes below. */
#ifndef CAPSA_H
#define CAPSA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CAPSA_API __attribute__((visibility("default")))
#else
#define CAPSA_API
#endif

/* ---- version ------------------------------------------------------------------ */

#define CAPSA_VERSION_MAJOR 0
#define CAPSA_VERSION_MINOR 1
#define CAPSA_VERSION_PATCH 0
#define CAPSA_VERSION_STRING "0.1.0"
#define CAPSA_VERSION_NUMBER \
    (CAPSA_VERSION_MAJOR * 10000 + CAPSA_VERSION_MINOR * 100 + CAPSA_VERSION_PATCH)

/* The CAPSA_VERSION_NUMBER the library was built with: compare it with the
 * header's to check that a program got the library it was compiled for. */
CAPSA_API int capsa_version_number(void);
/* The version as a static string, e.g. "0.1.0". */
CAPSA_API const char *capsa_version(void);

/* ---- errors --------------------------------------------------------------------- */

/* Every status code, with its number and message. Codes are only ever appended. */
#define CAPSA_ERRNO_MAP(X)                                                         \
    X(OK, 0, "success")                                                            \
    X(EINVAL, 1, "invalid argument")                                               \
    X(ENOMEM, 2, "out of memory")                                                  \
    X(ESCRIPT, 3, "the script threw an exception")                                 \
    X(ETRAP, 4, "the guest trapped (it was stopped and its memory restored)")      \
    X(ETOOBIG, 5, "input too large")                                               \
    X(EGUEST, 6, "the guest broke the host protocol")                              \
    X(EIO, 7, "input/output error")                                                \
    X(ETIMEOUT, 8, "the run reached its time limit (the sandbox was reset)")       \
    X(EFUEL, 9, "the run spent its fuel budget (the sandbox was reset)")           \
    X(ETOOMANY, 10, "too many live sandboxes")

typedef enum capsa_status {
#define CAPSA__ENUM(name, num, msg) CAPSA_##name = num,
    CAPSA_ERRNO_MAP(CAPSA__ENUM)
#undef CAPSA__ENUM
} capsa_status;

/* A static message for a status code ("out of memory"); "unknown error" for a code
 * this version does not know. */
CAPSA_API const char *capsa_errstr(int code);
/* The code's name as a static string ("CAPSA_ENOMEM"); "CAPSA_UNKNOWN" if unknown. */
CAPSA_API const char *capsa_errname(int code);

/* ---- engine --------------------------------------------------------------------- */

/* An engine holds what sandboxes share: the compiled guest module, allocator and
 * defaults. One per process is typical; it may be shared by threads. */
typedef struct capsa_engine capsa_engine;

/* Allocation hooks for the host-side memory of an engine and its sandboxes:
 * handles, images, results and output. The guest's own memory is the runtime's
 * and does not go through them: its linear memory (mapped), its function table and
 * the thread's guest stack. realloc_fn(ud, NULL, n) allocates. */
typedef struct capsa_allocator {
    void *(*realloc_fn)(void *ud, void *ptr, size_t size);
    void (*free_fn)(void *ud, void *ptr);
    void *ud;
} capsa_allocator;

typedef struct capsa_engine_options {
    size_t struct_size;          /* sizeof(capsa_engine_options), set by _init */
    const capsa_allocator *allocator; /* NULL: the C library's; copied */
    uint32_t max_sandboxes;      /* live sandboxes of this engine; default and
                                    maximum CAPSA_MAX_SANDBOXES */
    uint32_t pool_size;          /* guest instances kept ready, made from the image
                                    ahead of need: capsa_sandbox_new, capsa_reset
                                    and the recovery after a trap or a limit take
                                    one instead of making one, and capsa_sandbox_free
                                    makes one to refill the pool; default 0 (none),
                                    at most 1024 */
} capsa_engine_options;

/* Live sandboxes one process can hold, all engines together: each reserves 8 GiB
 * of address space for its memory's guard pages, and a process has 128 TiB. */
#define CAPSA_MAX_SANDBOXES 12000

/* Fills *opts with the defaults. */
CAPSA_API void capsa_engine_options_init(capsa_engine_options *opts);

/* Creates an engine; opts may be NULL for defaults. On success *out owns a new
 * engine that the caller frees with capsa_engine_free. On failure *out is NULL. */
CAPSA_API int capsa_engine_new(const capsa_engine_options *opts, capsa_engine **out);

/* Frees an engine. Every sandbox of it must have been freed before. NULL is a
 * no-op. */
CAPSA_API void capsa_engine_free(capsa_engine *engine);

/* ---- sandbox -------------------------------------------------------------------- */

/* One guest instance: its JS state and memory persist from run to run, like a
 * notebook, until capsa_reset. A sandbox is used by one thread at a time; distinct
 * sandboxes may run on distinct threads at once. */
typedef struct capsa_sandbox capsa_sandbox;

/* Streams: what the guest writes to stdout (1) and stderr (2). */
enum { CAPSA_STDOUT = 1, CAPSA_STDERR = 2 };

/* Called as the guest writes output, on the thread running the sandbox. data is
 * valid only during the call. */
typedef void (*capsa_output_fn)(void *ud, int stream, const char *data, size_t len);

typedef struct capsa_options {
    size_t struct_size;       /* sizeof(capsa_options), set by _init */
    uint64_t memory_limit;    /* bytes of guest memory; default 256 MiB, max 4 GiB */
    uint64_t max_output;      /* bytes of stdout and of stderr passed on per run
                                 (to on_output and the result); default 16 MiB;
                                 then a marker line, and the rest is counted */
    capsa_output_fn on_output; /* NULL: output is only collected */
    void *on_output_ud;
    uint64_t timeout_ms;      /* wall-clock limit of one run; default 30000; 0: none */
    uint64_t fuel;            /* instruction budget of one run (metering points:
                                 function entries and loop iterations); 0: none */
    uint32_t max_stack;       /* bytes of stack JS code may use before deep recursion
                                 throws a catchable InternalError; 32 KiB to
                                 CAPSA_MAX_STACK (the default; 0 means it too) */
} capsa_options;

/* The most stack a sandbox's JS code can have: the guest's shadow stack is 1 MiB,
 * and the engine's own C code needs the rest. */
#define CAPSA_MAX_STACK (896u << 10)

/* Fills *opts with the defaults. */
CAPSA_API void capsa_options_init(capsa_options *opts);

/* Creates a sandbox; opts may be NULL for defaults (copied). On success *out owns a
 * new sandbox that the caller frees with capsa_sandbox_free; on failure *out is
 * NULL. */
CAPSA_API int capsa_sandbox_new(capsa_engine *engine, const capsa_options *opts,
                                capsa_sandbox **out);

/* Frees a sandbox and everything it owns, including its last result. NULL is a
 * no-op. */
CAPSA_API void capsa_sandbox_free(capsa_sandbox *sb);

/* The message of the last error on this sandbox; valid until the next call on it.
 * Never NULL. */
CAPSA_API const char *capsa_errmsg(const capsa_sandbox *sb);

/* ---- running code --------------------------------------------------------------- */

/* The outcome of one run: owned by the sandbox, valid until the next call of
 * capsa_run, capsa_reset or capsa_sandbox_free on it. */
typedef struct capsa_result capsa_result;

/* Runs JavaScript code[0..len) (UTF-8; need not be NUL-terminated) as the body of
 * an async function in the sandbox's global scope: top-level await works and
 * `return x` gives the run's value; top-level declarations persist to later runs.
 * filename names the code in stack traces (NULL: "<input>"); it is copied.
 *
 * Returns CAPSA_OK when the script completed, CAPSA_ESCRIPT when it threw (the
 * result holds the error), CAPSA_ETRAP when the guest trapped, CAPSA_ETIMEOUT or
 * CAPSA_EFUEL when a limit stopped it (after these three the sandbox is reset: its
 * JS state is lost, and it stays usable; the result describes what happened as an
 * error), CAPSA_ETOOBIG for code over 64 MiB, CAPSA_EINVAL for misuse,
 * CAPSA_ENOMEM. On CAPSA_OK, CAPSA_ESCRIPT, CAPSA_ETRAP, CAPSA_ETIMEOUT and
 * CAPSA_EFUEL, *out (if not NULL) points to the result; otherwise it is NULL. */
CAPSA_API int capsa_run(capsa_sandbox *sb, const char *code, size_t len,
                        const char *filename, const capsa_result **out);

/* Discards the sandbox's JS state and guest memory and starts it afresh. */
CAPSA_API int capsa_reset(capsa_sandbox *sb);

/* Accessors of a result. Returned pointers are owned by the result. */
CAPSA_API int capsa_result_status(const capsa_result *r);
/* Collected output, *len set to its length (the text is also NUL-terminated). */
CAPSA_API const char *capsa_result_stdout(const capsa_result *r, size_t *len);
CAPSA_API const char *capsa_result_stderr(const capsa_result *r, size_t *len);
/* The returned value as JSON text, or NULL when the script returned undefined,
 * a function or nothing, or threw. */
CAPSA_API const char *capsa_result_value(const capsa_result *r);
/* The thrown error's name ("TypeError"), message, and stack frames; NULL when the
 * script did not throw or the part is missing. A thrown non-object is named
 * "Uncaught" with its string form as message. */
CAPSA_API const char *capsa_result_error_name(const capsa_result *r);
CAPSA_API const char *capsa_result_error_message(const capsa_result *r);
CAPSA_API const char *capsa_result_error_stack(const capsa_result *r);

typedef struct capsa_stats {
    size_t struct_size;        /* set by the caller to sizeof(capsa_stats) */
    double wall_ms;            /* wall-clock time of the run */
    uint64_t memory_bytes;     /* guest linear memory at the end (its peak: it never shrinks) */
    uint64_t stdout_bytes;     /* bytes written, including those not kept */
    uint64_t stderr_bytes;
    uint64_t output_dropped;   /* bytes not kept because of max_output */
    uint64_t fuel_used;        /* fuel the run spent, the same on every identical run */
} capsa_stats;

/* Copies the run's statistics into *stats (up to stats->struct_size bytes). */
CAPSA_API void capsa_result_stats(const capsa_result *r, capsa_stats *stats);

/* The whole result as one JSON object {"stdout","stderr","value","error","stats"}.
 * Returns a new NUL-terminated string the caller frees with capsa_free, or NULL
 * when out of memory. */
CAPSA_API char *capsa_result_json(const capsa_result *r);

/* Frees memory returned by capsa (capsa_result_json). NULL is a no-op. */
CAPSA_API void capsa_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* CAPSA_H */
