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

/* The version's one home: the Makefile (the shared library's name and SONAME,
 * capsa.pc, the Debian package) and the Python package read these three lines.
 * The ABI policy (docs/install.md, "Versions and ABI"): a minor version only adds, a major
 * one may break and changes the SONAME. */
#define CAPSA_VERSION_MAJOR 0
#define CAPSA_VERSION_MINOR 2
#define CAPSA_VERSION_PATCH 0
#define CAPSA__VERSION_STR0(x) #x
#define CAPSA__VERSION_STR(x) CAPSA__VERSION_STR0(x)
#define CAPSA_VERSION_STRING                                                   \
    CAPSA__VERSION_STR(CAPSA_VERSION_MAJOR) "." CAPSA__VERSION_STR(CAPSA_VERSION_MINOR) "." \
        CAPSA__VERSION_STR(CAPSA_VERSION_PATCH)
#define CAPSA_VERSION_NUMBER \
    (CAPSA_VERSION_MAJOR * 10000 + CAPSA_VERSION_MINOR * 100 + CAPSA_VERSION_PATCH)

/* The CAPSA_VERSION_NUMBER the library was built with: compare it with the
 * header's to check that a program got the library it was compiled for. */
CAPSA_API int capsa_version_number(void);
/* The version as a static string, e.g. "0.2.0". */
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
    X(ETOOMANY, 10, "too many live sandboxes")                                     \
    X(ENOENT, 11, "no such file or directory")                                     \
    X(EEXIST, 12, "file exists")                                                   \
    X(ENOTDIR, 13, "not a directory")                                              \
    X(EISDIR, 14, "is a directory")                                                \
    X(ENOTEMPTY, 15, "directory not empty")                                        \
    X(ENOSPC, 16, "the sandbox's filesystem quota is exceeded")                    \
    X(PENDING, 17, "the run waits for tool calls the host resolves (step mode)")  \
    X(EINTERRUPTED, 18, "the run was interrupted (the sandbox was reset)")

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

/* Signals: guest code is kept in bounds by guard pages, and a restored instance
 * (capsa_reset, the pool) notes the pages it writes through write-protection, so
 * guest code takes SIGSEGV faults that are capsa's own. The first engine installs
 * capsa's SIGSEGV and SIGBUS handler, which passes every fault that is not a
 * guest's to the disposition it replaced. A host program that installs a handler
 * of its own later (a crash reporter, a language runtime) should chain in the same
 * way: pass a fault it does not handle to the handler it replaced (what
 * sigaction gave it back). Either way capsa stays correct: each run first checks
 * that its handler is in front and, if the host's replaced it, installs it again
 * in front of the host's, which still gets every fault that is not a guest's.
 * Only past seven host handlers installed one
 * over another does capsa stop doing so: its instances then stop tracking writes
 * (restores find them by scanning instead), and a guest out-of-bounds access is a
 * trap only if the host's handler chains. A handler installed by another thread
 * while a run is in progress, or by a tool callback during it, counts from the
 * next run. */

/* Allocation hooks for the host-side memory of an engine and its sandboxes:
 * handles, images, results and output. The guest's own memory is the runtime's
 * and does not go through them: its linear memory (mapped), its function table and
 * the thread's guest stack. realloc_fn(ud, NULL, n) allocates. They are also called
 * from the sandboxes' tool worker threads, so they must be thread-safe. */
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
                                    ahead of need: capsa_sandbox_new and the
                                    recovery after a trap or a limit take one
                                    instead of making one; capsa_sandbox_free and
                                    a stop put the sandbox's instance back in the
                                    pool, restored to the image in place (the pages
                                    it wrote are copied back), else make one to
                                    refill it; default 0 (none), at most 1024 */
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

/* Called with each audit line (one JSON object, no newline; see "tools" below), on
 * the thread running the sandbox. line is valid only during the call. */
typedef void (*capsa_audit_fn)(void *ud, const char *line, size_t len);

/* capsa_options.audit_flags */
enum {
    CAPSA_AUDIT_HASH_ARGS = 1, /* log the SHA-256 of a call's arguments, not the arguments */
    CAPSA_AUDIT_NO_FILE = 2,   /* no /log/actions.jsonl: only the audit callback */
    CAPSA_AUDIT_KEEP = 4,      /* without on_audit: the sandbox keeps the lines the
                                  callback would get (within audit_max_bytes), for
                                  capsa_audit_take; with on_audit: no effect */
};

/* One guest instance: its JS state and memory persist from run to run, like a
 * notebook, until capsa_reset. A sandbox is used by one thread at a time; distinct
 * sandboxes may run on distinct threads at once. While capsa_run or capsa_resume
 * is in progress (a tool callback runs inside one), the functions that change the
 * sandbox (capsa_run, capsa_resume, capsa_reset, capsa_fs_*, capsa_tool_add,
 * capsa_policy_set/add/reset_counts, capsa_call_resolve/reject) and
 * capsa_checkpoint return
 * CAPSA_EINVAL without touching it, and capsa_sandbox_free does nothing: a callback
 * cannot re-enter its own sandbox. */
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
    /* Quotas of the sandbox's filesystem, for the guest and the host API alike;
       the guest gets ENOSPC (or EDQUOT for the file size) beyond them. */
    uint64_t fs_max_bytes;    /* file contents; default 64 MiB */
    uint64_t fs_max_entries;  /* files, directories and symlinks; default 10,000 */
    uint64_t fs_max_file;     /* the largest file; default fs_max_bytes */
    /* Tools (see "tools" below). */
    uint32_t tool_concurrency; /* worker threads running tool callbacks at once;
                                  default 8, at most 256 */
    uint64_t tool_timeout_ms; /* a call's time limit unless its tool sets one;
                                 default 30000 */
    uint64_t tool_max_args;   /* bytes of one call's JSON arguments; default 1 MiB */
    uint64_t tool_max_result; /* bytes of one call's JSON result; default 16 MiB */
    uint32_t audit_flags;     /* CAPSA_AUDIT_* */
    capsa_audit_fn on_audit;  /* NULL: none */
    void *on_audit_ud;
    /* Budgets of what a script's tool calls make the host keep (see "tools"). */
    uint64_t tool_max_pending; /* bytes the host may hold for the calls of a run:
                                  the arguments of calls not yet settled, their
                                  audit copies, and the results the script has
                                  not taken yet; a call or a result that would go
                                  over it fails with resource_exhausted and its
                                  bytes are freed at once; default memory_limit,
                                  at least 64 MiB */
    uint32_t tool_max_denials; /* calls of one run that may be refused (denied,
                                  unknown tool, bad arguments, over a budget);
                                  after them every further call of the run fails
                                  at once with resource_exhausted, audited by one
                                  summary line; default 1000 */
    uint64_t audit_max_bytes;  /* bytes of audit lines, each counted with one more
                                  for its newline, that on_audit (or with
                                  CAPSA_AUDIT_KEEP, the kept lines) may get over the
                                  sandbox's life; past it calls are refused with
                                  audit_unavailable and other lines are dropped;
                                  0: no limit */
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

/* Copies the sandbox's options (as capsa_sandbox_new or capsa_sandbox_restore
 * made them, defaults filled in) into *opts, up to opts->struct_size bytes (set by
 * the caller, or by capsa_options_init). CAPSA_EINVAL when either is NULL. */
CAPSA_API int capsa_sandbox_options(const capsa_sandbox *sb, capsa_options *opts);

/* Frees a sandbox and everything it owns, including its last result. NULL is a
 * no-op. Tool callbacks still running on its worker threads (calls that timed out,
 * or of a run that ended) cannot be stopped: it waits for them to return. */
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
 * CAPSA_EFUEL when a limit stopped it, CAPSA_EINTERRUPTED when capsa_interrupt did
 * (after these four the sandbox is reset: its JS state is lost, and it stays
 * usable; the result describes what happened as an error), CAPSA_ETOOBIG for code over 64 MiB, CAPSA_EINVAL for misuse,
 * CAPSA_ENOMEM, and CAPSA_PENDING when the script waits for tool calls the caller
 * resolves (step mode, see "tools" below). On CAPSA_OK, CAPSA_ESCRIPT, CAPSA_ETRAP,
 * CAPSA_ETIMEOUT, CAPSA_EFUEL, CAPSA_EINTERRUPTED and CAPSA_PENDING, *out (if not NULL) points to the
 * result; otherwise it is NULL. Tool calls run while the run waits for them; the
 * time limit and the fuel span the whole run. */
CAPSA_API int capsa_run(capsa_sandbox *sb, const char *code, size_t len,
                        const char *filename, const capsa_result **out);

/* The code runs as an ES module instead when filename ends in ".mjs", or when it
 * is not a valid async function body but is a valid module (static import and
 * export): the module's own imports are loaded first, its top-level await works,
 * its declarations stay its own, and the run's value is undefined. Either way the
 * script is taken to be in the working directory (/workspace): relative imports
 * and require() resolve there, process.argv[1] and a module's import.meta.url
 * name /workspace/<the last part of filename>.
 *
 * process.exit(code) ends the run at once (no callback runs after it); the run
 * then returns CAPSA_OK, without a value, and capsa_result_exit_code gives the
 * code (0-255: code & 255), as it gives process.exitCode when the script set it
 * and returned. */

/* The arguments a script finds in process.argv after its own path
 * (process.argv is [process.execPath, the script, ...arguments]):
 * argv[0..argc), each NUL-terminated UTF-8; argc 0 (argv may then be NULL) for
 * none, the default. The strings are copied; at most 1 MiB in all. They hold for
 * the sandbox's next runs (a script sees them when it first reads process.argv in
 * a run; a script that changed its process.argv sees the new ones only when they
 * differ from those it was built from). CAPSA_OK, CAPSA_EINVAL (a NULL entry,
 * invalid UTF-8, or a run in progress), CAPSA_ETOOBIG, CAPSA_ENOMEM; the old
 * arguments stay on failure. */
CAPSA_API int capsa_set_args(capsa_sandbox *sb, size_t argc, const char *const *argv);

/* The environment a script finds in process.env: envp[0..envc), each
 * "NAME=value" in UTF-8 (NAME not empty), copied, at most 1 MiB in all; it
 * replaces the whole environment. Nothing of the host's environment ever reaches
 * the guest: a sandbox starts with an empty one. Takes effect as capsa_set_args
 * does, and returns as it does (CAPSA_EINVAL too for an entry without '='). */
CAPSA_API int capsa_set_env(capsa_sandbox *sb, size_t envc, const char *const *envp);

/* The sandbox's standard input: what fd 0 of the guest reads, for scripts
 * (fs.readFileSync(0) or '/dev/stdin', process.stdin) and for capsa_shell with
 * input NULL. It is one stream for the sandbox's runs: what a run read is gone
 * for the next, and it stays at its end once there. A sandbox starts with an
 * empty one (reads end at once). Either call replaces the one before; neither
 * may be made during a run (CAPSA_EINVAL). */

/* Standard input from data[0..len) (bytes, copied; NULL with len 0: empty).
 * CAPSA_OK, CAPSA_EINVAL, CAPSA_ETOOBIG over 64 MiB, CAPSA_ENOMEM. */
CAPSA_API int capsa_set_stdin(capsa_sandbox *sb, const void *data, size_t len);

/* The most bytes capsa_set_stdin_fd lets the guest read when max_bytes is 0. */
#define CAPSA_STDIN_MAX_DEFAULT ((uint64_t)64 << 20)

/* Standard input read from the host's file descriptor fd (a pipe, a file, a
 * terminal), borrowed: the caller keeps it open while the sandbox may run and
 * closes it. Nothing is read until the guest reads, and then as much as one read
 * of fd gives. A read that waits for bytes waits no longer than the run's time
 * limit, and capsa_interrupt stops it: the run then ends as its limit or the
 * interrupt makes it end. Past max_bytes in all (0: CAPSA_STDIN_MAX_DEFAULT) the
 * guest's read fails with EFBIG (a script sees an Error with code 'EFBIG'; the
 * shell does not run its line), and every later read does too. When fd is a
 * terminal the guest sees one (process.stdin.isTTY) and reads end at once:
 * sandboxed code is not interactive. CAPSA_OK, CAPSA_EINVAL (fd < 0). */
CAPSA_API int capsa_set_stdin_fd(capsa_sandbox *sb, int fd, uint64_t max_bytes);

/* Runs the shell command line cmdline (NUL-terminated UTF-8), with
 * input[0..input_len) (UTF-8 text) as its standard input, or with NULL (and
 * input_len 0) all of the sandbox's standard input (capsa_set_stdin, read before
 * the line runs; empty unless set), in the
 * sandbox's shell: POSIX sh grammar with control flow, the applets listed by `help` (cat,
 * grep, sed, awk, jq, ...), `js` for JavaScript and `tool` for host tools (with
 * the same capability checks as calls from JS). The shell runs inside the guest,
 * confined as scripts are, in the same JS context (so `js -e` sees the scripts'
 * globals); its variables, functions and working directory (/workspace at first)
 * persist to later command lines. Output streams to the result's stdout and
 * stderr as for a JS run; capsa_result_exit_code gives the exit status (the
 * value is the same number as JSON). Returns as capsa_run does; the shell's
 * `tool` needs tools the library runs (step mode is reported as a failed
 * command). */
CAPSA_API int capsa_shell(capsa_sandbox *sb, const char *cmdline, const char *input,
                          size_t input_len, const capsa_result **out);

/* Asks the run in progress on sb (capsa_run, capsa_shell or capsa_resume, on
 * another thread) to stop, as its time limit would: guest code stops at its next
 * metering point, and waits for timers or tool calls end at once. That call then
 * returns CAPSA_EINTERRUPTED, with the sandbox reset as after a timeout (its JS
 * state is lost, its files are kept; the result's error is named
 * "InterruptError"). The one function that may be called from any thread while
 * another uses sb; sb must stay alive during the call (the caller owns both).
 * Returns CAPSA_OK when a run was in progress (the request holds until it ends),
 * CAPSA_ENOENT when none was (nothing happens, and the next run is not affected:
 * a run left pending in step mode is abandoned with capsa_reset instead). */
CAPSA_API int capsa_interrupt(capsa_sandbox *sb);

/* Discards the sandbox's JS state and guest memory and starts it afresh, from
 * the engine's image: the instance is restored in place (what the guest wrote is
 * copied back from the image, grown memory is released but for up to 16 MiB
 * of its pages, kept zeroed for growing again). Files stay. */
CAPSA_API int capsa_reset(capsa_sandbox *sb);

/* Accessors of a result. Returned pointers are owned by the result. */
CAPSA_API int capsa_result_status(const capsa_result *r);
/* The exit status of a capsa_shell command line (0-255); for a JS run, the code
 * the script gave process.exit() or set as process.exitCode (0-255); -1 for a JS
 * run that used neither, or threw, and for a command line that did not finish (a
 * limit stopped it). */
CAPSA_API int capsa_result_exit_code(const capsa_result *r);
/* 1 when the capsa_shell command line ran `exit` (an interactive loop stops
 * then; the shell itself stays usable), else 0. */
CAPSA_API int capsa_result_shell_exited(const capsa_result *r);
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
/* The thrown error's string `code` ("ENOENT" from fs, "permission_denied" from a
 * tool call, ...), or NULL when it has none. */
CAPSA_API const char *capsa_result_error_code(const capsa_result *r);

typedef struct capsa_stats {
    size_t struct_size;        /* set by the caller to sizeof(capsa_stats) */
    double wall_ms;            /* wall-clock time of the run */
    uint64_t memory_bytes;     /* guest linear memory at the end (its peak: it only
                                  shrinks when the instance goes back to the image) */
    uint64_t stdout_bytes;     /* bytes written, including those not kept */
    uint64_t stderr_bytes;
    uint64_t output_dropped;   /* bytes not kept because of max_output */
    uint64_t fuel_used;        /* fuel the run spent, the same on every identical run */
    uint64_t tool_calls;       /* tool calls the script made, refused ones included */
} capsa_stats;

/* Copies the run's statistics into *stats (up to stats->struct_size bytes). */
CAPSA_API void capsa_result_stats(const capsa_result *r, capsa_stats *stats);

/* The whole result as one JSON object {"stdout","stderr","value","error","stats"}
 * (and "exit_code" when capsa_result_exit_code is not -1).
 * Returns a new NUL-terminated string the caller frees with capsa_free, or NULL
 * when out of memory. */
CAPSA_API char *capsa_result_json(const capsa_result *r);

/* ---- tools -------------------------------------------------------------------------- */

/* A sandbox's scripts reach the world only through the tools its host registers,
 * and only as far as its capability policy allows. A tool has a name
 * ("provider.action", "a.b.c": segments of letters, digits, '_' and '-' joined by
 * '.', the canonical separator; '/' is the same separator, so "a/b/c" names the
 * tool "a.b.c", which is what the registry, the policy's messages, the audit and
 * tools.list() call it), a description, a JSON Schema of its parameters and a
 * callback. Scripts call it as an async function, namespaced or flat:
 *     await tools.github.search_issues({q: "x"})
 *     await github_search_issues({q: "x"})        ('.' and '-' become '_')
 * with tools.list(), tools.describe(name) and tools.call(name, args) (either
 * separator); TypeScript declarations generated from the schemas are in
 * /tools/<name>.d.ts and /tools/index.d.ts. The arguments cross the boundary once,
 * as JSON text. For each call, on the host and before anything runs: the name must
 * be registered, the text must be strict JSON (a duplicate key, invalid UTF-8,
 * "\u0000" or a number outside int64/double is an error) and an object, it must
 * match the tool's schema (else invalid_arguments, with the argument's path and
 * the rule: "/q: expected string, got number"; checked before the policy, so it
 * spends no budget), and the policy must allow it (deny by default: a sandbox
 * starts with no capabilities). The callback then gets the very text the policy
 * checked. A refused or failed call rejects the script's
 * promise with a ToolError (an Error) whose code says why: permission_denied
 * (message: the policy's), unknown_tool, invalid_arguments, invalid_result,
 * result_too_large, timeout, tool_error, resource_exhausted, audit_unavailable, or
 * the code the tool gave.
 *
 * What the calls of a run make the host keep is bounded: at most 1024 calls in
 * flight; tool_max_pending bytes of their arguments, audit lines and results the
 * script has not taken yet (a call or a result over it fails with
 * resource_exhausted, its bytes freed); and tool_max_denials refused calls, after
 * which every further call of the run fails at once with resource_exhausted.
 *
 * Every call is audited: one JSON line appended to /log/actions.jsonl in the
 * sandbox (the guest may read that file, never write to it, not even append: every
 * line there is the host's) and handed to capsa_options.on_audit:
 * {"time","event":"tool_call","run","id","tool","args" (or "args_bytes" and
 * "args_sha256" with CAPSA_AUDIT_HASH_ARGS, when the arguments are not valid JSON,
 * and when a denied call's are over 4 KiB),"decision":"allowed"|"denied",
 * "capability" (the pattern that decided, or null),"reason" (when denied),
 * "outcome":"ok"|"error"|"cancelled","error_code","result_bytes","duration_ms"};
 * the lifecycle of runs: "run_start", "run_end" (status, wall_ms, tool_calls, and
 * tool_calls_unaudited when some were refused without a line) and "limit" (time,
 * fuel, trap); and "tool_denials" (denied, message) once a run's refusals reach
 * tool_max_denials. Fail closed: a call the trail has no room for (the log at its
 * filesystem quota, or on_audit at audit_max_bytes) is refused with
 * audit_unavailable before its tool runs. */

/* The audit lines a sandbox with CAPSA_AUDIT_KEEP (and no on_audit) kept since the
 * last call: *lines points to them, each ended by a newline, and *len is their
 * bytes (NULL and 0: none). Borrowed from sb, valid until its next
 * capsa_audit_take or capsa_sandbox_free. A caller that takes the lines after each
 * run saves the callback a line costs (a language binding's main cost of the
 * trail). May be called from any thread, also while a run is in progress (its
 * lines so far), by one thread at a time. Neither kept lines nor the flag are part
 * of a checkpoint: like the callbacks, a restored sandbox's reader of the trail is
 * the restore's (capsa_restore_options.on_audit).
 * CAPSA_EINVAL when sb, lines or len is NULL. */
CAPSA_API int capsa_audit_take(capsa_sandbox *sb, const char **lines, size_t *len);

typedef struct capsa_tool_call {
    size_t struct_size;  /* set by whoever fills it: sizeof(capsa_tool_call) */
    uint64_t id;         /* assigned by the host; unique within the sandbox's run */
    const char *name;    /* the tool's registered name, canonical ("a.b") */
    const char *args;    /* the arguments' JSON text exactly as the policy checked
                            it (a JSON object), NUL-terminated */
    size_t args_len;
} capsa_tool_call;

/* Where a callback puts its answer: valid during the callback only. */
typedef struct capsa_tool_reply capsa_tool_reply;

/* A tool's callback. Runs on one of the sandbox's worker threads (several at once
 * for concurrent calls: it must be thread-safe), or on the thread running the
 * sandbox for CAPSA_TOOL_INLINE tools. It answers with capsa_tool_reply_json or
 * capsa_tool_reply_error before returning; returning without either is a
 * tool_error. call and its strings are valid during the call only. A callback must
 * not call into the same sandbox. */
typedef void (*capsa_tool_fn)(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply);

/* The call's result: json[0..len), one JSON value (copied). Over
 * capsa_options.tool_max_result: CAPSA_ETOOBIG, and the script gets
 * result_too_large; not valid JSON: CAPSA_EINVAL, and it gets invalid_result; over
 * what capsa_options.tool_max_pending leaves (results the script has not taken
 * fill it): CAPSA_ETOOBIG, not copied, and it gets resource_exhausted. */
CAPSA_API int capsa_tool_reply_json(capsa_tool_reply *reply, const char *json, size_t len);

/* The call failed: the script gets a ToolError with this code ([A-Za-z0-9_], at most
 * 47 bytes; otherwise or NULL: "tool_error") and message (NULL: a generic one; cut
 * at 4 KiB). Copied. */
CAPSA_API int capsa_tool_reply_error(capsa_tool_reply *reply, const char *code,
                                     const char *message);

/* Whether the script no longer waits for this call (it timed out, or its run
 * ended): a long callback may poll it and give up early. */
CAPSA_API int capsa_tool_reply_cancelled(const capsa_tool_reply *reply);

/* capsa_tool_def.flags */
enum {
    /* Call the callback directly on the thread running the sandbox, inside the
     * script's call (no thread hop): for fast, non-blocking tools. Its time counts
     * against the run's deadline but cannot be interrupted; the per-call timeout
     * does not apply. */
    CAPSA_TOOL_INLINE = 1,
};

typedef struct capsa_tool_def {
    size_t struct_size;      /* set by capsa_tool_def_init */
    const char *name;        /* required */
    const char *description; /* NULL: none */
    const char *parameters;  /* JSON Schema text of the arguments object (parsed
                                strictly; draft 2020-12, or draft-07 by its
                                $schema; see docs/tools.md for what is asserted);
                                compiled once, every call validated against it;
                                NULL: {"type":"object"} */
    capsa_tool_fn fn;        /* NULL: the host resolves its calls itself (step mode,
                                below) */
    void *ud;                /* passed to fn */
    uint32_t flags;          /* CAPSA_TOOL_* */
    uint64_t timeout_ms;     /* per call; 0: capsa_options.tool_timeout_ms. A call
                                not answered in time rejects with code "timeout";
                                the late answer is discarded. */
    const char *returns;     /* JSON Schema text of the result (parsed strictly and
                                compiled as parameters is), for the declarations'
                                return type only: results are not checked against
                                it. NULL: Promise<any> */
} capsa_tool_def;

/* Fills *def with the defaults. */
CAPSA_API void capsa_tool_def_init(capsa_tool_def *def);

/* Registers a tool in the sandbox under its canonical name ('/' as '.'; the strings
 * are copied; ud is kept) and writes its declarations to /tools/<name>.d.ts.
 * Scripts see it from their next run on. A name taken (with either separator: "a/b"
 * is "a.b") or whose flat form is taken is CAPSA_EEXIST; a bad name CAPSA_EINVAL; a
 * schema that is not strict JSON, does not describe an object, or that the
 * validator cannot compile (an unknown type, a remote $ref, unevaluatedProperties,
 * a lookahead in a pattern, ...) CAPSA_EINVAL with the validator's message, which
 * names the place ("tool 'q': parameters: #/properties/q/type: unknown type
 * 'strin'"); no room in /tools CAPSA_ENOSPC; out of memory CAPSA_ENOMEM. */
CAPSA_API int capsa_tool_add(capsa_sandbox *sb, const capsa_tool_def *def);

/* ---- capabilities --------------------------------------------------------------------- */

// Each sandbox has a policy: an ordered list of capabilities, each a method
// pattern over tool names split into segments on '.' or '/', the same separator
// ("*" one segment, "**" any number: "github.*" and "github/*" both match
// "github.search_issues", "*" does not; patterns are kept, and named in messages,
// with '.'), constraints on the arguments and an optional budget of calls. The
// first capability whose pattern and constraints match and that has budget left
// allows a call and spends one unit. Budgets last as long as the policy (across
// runs). The file format:
//   {"capabilities": [{"pattern": "math/**",
//                      "constraints": [{"param": "a", "op": "<=", "value": 10}],
//                      "max_calls": 3}]}
// (operators == != < <= > >= in not_in contains starts_with ends_with exists
// not_exists, and/or nesting; see docs/tools.md).
// (Line comments: the patterns hold "/*", which -Wcomment rejects inside a block comment.)

/* Replaces the sandbox's policy with the one in json[0..len) (budgets start at
 * zero). A malformed policy (unknown field, wrong type, duplicate key, ...) is
 * CAPSA_EINVAL and leaves the old one; capsa_errmsg names the line or field. */
CAPSA_API int capsa_policy_set(capsa_sandbox *sb, const char *json, size_t len);

/* Appends a capability: pattern, constraints as the JSON text of a constraint list
 * (NULL: none), max_calls (0: unlimited). Copied. */
CAPSA_API int capsa_policy_add(capsa_sandbox *sb, const char *pattern,
                               const char *constraints_json, uint64_t max_calls);

/* The calls the first capability with this pattern (either separator: "a/x" finds
 * the capability added as "a.x") has allowed (*used)
 * and may still allow (*remaining; UINT64_MAX when unlimited). Either pointer may
 * be NULL. CAPSA_ENOENT when no capability has the pattern. */
CAPSA_API int capsa_policy_calls(capsa_sandbox *sb, const char *pattern, uint64_t *used,
                                 uint64_t *remaining);

/* Every capability's counts as JSON:
 * [{"pattern","max_calls" (null: unlimited),"used","remaining" (null)}]. A new
 * string the caller frees with capsa_free; NULL when out of memory. */
CAPSA_API char *capsa_policy_counts_json(capsa_sandbox *sb);

/* The policy as the JSON text of a policy file (compact; it loads back as the
 * same policy; used calls are capsa_policy_counts_json's). A new string the
 * caller frees with capsa_free; NULL when out of memory. */
CAPSA_API char *capsa_policy_json(capsa_sandbox *sb);

/* Sets every capability's used calls back to zero. */
CAPSA_API int capsa_policy_reset_counts(capsa_sandbox *sb);

/* Would a call of tool name (either separator, or its flat name) with the JSON
 * arguments args_json[0..len) (NULL: none) be allowed now by the policy? Spends
 * nothing, and checks the policy only (not the tool's schema). *allowed gets 1 or
 * 0 and message (message_size bytes, may be NULL) the policy's message.
 * CAPSA_EINVAL when args_json is not strict JSON. */
CAPSA_API int capsa_policy_check(capsa_sandbox *sb, const char *name, const char *args_json,
                                 size_t len, int *allowed, char *message, size_t message_size);

/* ---- step mode: the host resolves tool calls itself ------------------------------------ */

/* Calls of tools registered without a callback are left to the caller, as an
 * event-loop host (asyncio) needs: when the script can go no further without
 * them, capsa_run (or capsa_resume) returns CAPSA_PENDING, with *out pointing to
 * the result so far (output). The caller reads the pending calls, settles any of
 * them in any order with capsa_call_resolve / capsa_call_reject, and calls
 * capsa_resume, again until it returns something else. The run's time limit and
 * fuel span all its steps, the time the caller takes included; a call's timeout
 * counts from the moment the script made it and is applied when the run is
 * resumed. Timers keep working: capsa_pending_timer_ms says when the script's
 * next timer is due, and resuming then runs it. capsa_run on a sandbox whose run
 * is pending is CAPSA_EINVAL; capsa_reset abandons the pending run. */

/* The calls waiting for the caller when the run last returned CAPSA_PENDING; the
 * list stays as it was (settled entries included) until the next resume. */
CAPSA_API size_t capsa_pending_count(const capsa_sandbox *sb);

/* Fills *call (call->struct_size set by the caller) with pending call i; its
 * strings are valid until the call is settled or the run resumed. CAPSA_ENOENT
 * when it has been settled since. */
CAPSA_API int capsa_pending_call(const capsa_sandbox *sb, size_t i, capsa_tool_call *call);

/* Milliseconds until the script's next timer is due (0: due now), or -1 when it
 * has none. */
CAPSA_API double capsa_pending_timer_ms(const capsa_sandbox *sb);

/* Settles pending call id with the result json[0..len) (copied). CAPSA_ENOENT when
 * no such call waits (settled, timed out, or from another run). Not valid JSON,
 * over tool_max_result, or over what tool_max_pending leaves: the call is settled
 * anyway (the script gets invalid_result, result_too_large or resource_exhausted)
 * and the answer is CAPSA_EINVAL or CAPSA_ETOOBIG. */
CAPSA_API int capsa_call_resolve(capsa_sandbox *sb, uint64_t id, const char *json, size_t len);

/* Settles pending call id as failed, as capsa_tool_reply_error does. */
CAPSA_API int capsa_call_reject(capsa_sandbox *sb, uint64_t id, const char *code,
                                const char *message);

/* Resumes a run that returned CAPSA_PENDING; returns as capsa_run does (and
 * CAPSA_EINVAL when no run is pending). */
CAPSA_API int capsa_resume(capsa_sandbox *sb, const capsa_result **out);

/* ---- files ------------------------------------------------------------------------ */

/* Each sandbox has its own in-memory filesystem, kept across runs and resets and
 * freed with the sandbox. The guest sees:
 *   /            read-only
 *   /workspace   read-write, the working directory
 *   /tmp         read-write
 *   /tools       read-only
 *   /log         append-only: the guest may read and append to files the host
 *                put there, never truncate, overwrite, create or remove; the
 *                audit log /log/actions.jsonl is read-only for it (EPERM)
 *   /dev/null    reads as empty, discards what is written
 * The functions below act as the host: the guest's permissions do not bind them,
 * the quotas do. Except past a symlink (one the guest may have planted): a write,
 * mkdir, remove, tar import or mount whose path goes through a symlink is done
 * only where the guest itself may write (/workspace, /tmp, read-write mounts),
 * else it fails with CAPSA_EINVAL and changes nothing. So a link such as
 * /workspace/task.txt -> /log/actions.jsonl cannot make the host overwrite the
 * audit trail, /tools or a read-only mount on the guest's behalf, while links
 * inside the workspace work as in POSIX. A final symlink given to
 * capsa_fs_remove is removed itself; reads follow symlinks anywhere. Paths are
 * absolute guest paths ("/workspace/a.txt"); ".." stops at "/". On failure they
 * return a CAPSA_E* code and capsa_errmsg(sb) says which path and why; nothing
 * is half done. */

/* How deep directories nest: at most this many levels below "/" (/workspace is
 * level 1). Making or moving a directory deeper fails, for the guest (ENAMETOOLONG)
 * and for the functions below (CAPSA_EINVAL), and so does mounting or importing a
 * deeper tree. Paths are at most 4096 bytes, names 255. */
#define CAPSA_FS_MAX_DEPTH 256

typedef enum capsa_file_type {
    CAPSA_FILE = 1,
    CAPSA_DIRECTORY = 2,
    CAPSA_SYMLINK = 3,
} capsa_file_type;

typedef struct capsa_file_info {
    size_t struct_size;       /* set by the caller to sizeof(capsa_file_info) */
    capsa_file_type type;
    uint64_t size;            /* bytes of a file; a symlink's target length; a
                                 directory's entries */
    uint64_t mtime_ns;        /* last modification, ns since the epoch */
    int guest_writable;       /* whether the guest may change it (its mount's mode) */
} capsa_file_info;

/* Writes data[0..len) to the file at path, creating it and its parent directories
 * or replacing its contents. data is copied. */
CAPSA_API int capsa_fs_write(capsa_sandbox *sb, const char *path, const void *data, size_t len);

/* Reads the file at path (symlinks followed). On CAPSA_OK *data is a new buffer of
 * *len bytes plus a NUL, which the caller frees with capsa_free; otherwise *data is
 * NULL. */
CAPSA_API int capsa_fs_read(capsa_sandbox *sb, const char *path, char **data, size_t *len);

/* Creates the directory at path and its parents; an existing directory is fine. */
CAPSA_API int capsa_fs_mkdir(capsa_sandbox *sb, const char *path);

/* Called once per entry of a listed directory, in name order ("." and ".." are
 * not listed). name and info are valid during the call only. Return 0 to go on,
 * anything else to stop the listing (capsa_fs_list then returns CAPSA_OK). The
 * callback must not change the sandbox's files. */
typedef int (*capsa_dir_fn)(void *ud, const char *name, const capsa_file_info *info);

/* Lists the directory at path. */
CAPSA_API int capsa_fs_list(capsa_sandbox *sb, const char *path, capsa_dir_fn fn, void *ud);

/* Describes the node at path (a final symlink is not followed) into *info (up to
 * info->struct_size bytes). */
CAPSA_API int capsa_fs_stat(capsa_sandbox *sb, const char *path, capsa_file_info *info);

/* Removes the file, symlink or empty directory at path; with recursive set, a
 * directory and everything under it. Mount points (/workspace, /tmp, ...) cannot
 * be removed (CAPSA_EINVAL). */
CAPSA_API int capsa_fs_remove(capsa_sandbox *sb, const char *path, int recursive);

/* Mount modes. */
enum {
    CAPSA_MOUNT_RO = 0, /* the guest may read */
    CAPSA_MOUNT_RW = 1, /* the guest may change it, and its changes are written back */
};

/* Mounts the host directory host_dir at guest_path (created), copying its tree
 * in now: later changes on the host are not seen. Host symlinks are copied as
 * symlinks that resolve inside the sandbox only; devices, sockets and fifos are
 * skipped. With CAPSA_MOUNT_RW the guest may write there, and after every run
 * what changed since the last write-back is written back to host_dir: files the
 * guest (or the host API) wrote or made there, entries it removed removed.
 * Nothing unchanged is touched: such files keep their inode, permissions and
 * hard links, and host symlinks and special files stay. A rewritten file keeps
 * its host file's permissions (a file the guest moved keeps the ones it came in
 * with; set-id bits are dropped, permissions never loosened); the guest's
 * symlinks are not made on the host, no host symlink is ever followed, and a
 * mount nested inside is written back on its own. Read-write is explicit, never
 * a default. The copy counts against the quotas. */
CAPSA_API int capsa_fs_mount(capsa_sandbox *sb, const char *host_dir, const char *guest_path,
                             int mode);

/* Copies the tree at guest_path into the host directory host_dir (created if
 * missing; existing files are replaced, keeping their permissions, others are
 * left): directories and files, not symlinks. Never follows a symlink on the
 * host. */
CAPSA_API int capsa_fs_copy_out(capsa_sandbox *sb, const char *guest_path, const char *host_dir);

/* The tree at guest_path as a POSIX tar stream (names relative to it). On
 * CAPSA_OK *data is a new buffer of *len bytes that the caller frees with
 * capsa_free. */
CAPSA_API int capsa_fs_export_tar(capsa_sandbox *sb, const char *guest_path, char **data,
                                  size_t *len);

/* Extracts the tar stream data[0..len) (copied as needed) under guest_path
 * (created). A name that would leave guest_path, an unsupported entry type or a
 * malformed stream refuses the whole archive before anything is written
 * (CAPSA_EINVAL); over a quota, CAPSA_ENOSPC. */
CAPSA_API int capsa_fs_import_tar(capsa_sandbox *sb, const char *guest_path, const void *data,
                                  size_t len);

/* ---- checkpoints ------------------------------------------------------------------- */

/* A checkpoint is a sandbox as bytes, which capsa_sandbox_restore makes a sandbox
 * from again, in this process or in another (on another machine too) running the
 * same build of capsa: its JS state (the guest's memory and globals: globals,
 * closures, classes, the module cache), its files (contents,
 * times, symlinks, hard links, mounts' subtrees and modes), its limits and quotas
 * (every capsa_options field but the callbacks), its policy with the calls each
 * capability has allowed, its tools by name, and its audit trail's place (the run
 * count, /log/actions.jsonl, the bytes given to on_audit). Nothing of the host
 * goes in: not the tool callbacks (bound again by name at the restore), not the
 * output and audit callbacks, and not the host directories of mounts: a mount's
 * subtree is kept, as the guest left it, with its mode, and its host directory
 * is given again by capsa_fs_mount at the same path, which replaces the kept
 * copy with the directory's contents (read-write: written back after each run,
 * from then on). Until then a read-write mount is written back nowhere.
 *
 * Only between runs: during a run (from a tool callback) or while a run waits in
 * step mode (CAPSA_PENDING) it is CAPSA_EINVAL. A script that left files open
 * (an fs.openSync without its closeSync) cannot be checkpointed either
 * (CAPSA_EINVAL, capsa_errmsg says which fd): descriptors are not kept. The
 * restored sandbox's Math.random gets a seed of its own and performance.now()
 * counts from the restore.
 *
 * The format: a header (magic "CAPSACKP", the format version, the guest's build
 * id, the id of the guest image it was taken over) and a zstd frame of the
 * contents, which repeat the header, under zstd's checksum. The guest's memory is
 * kept as the 4 KiB pages that differ from the image, so a checkpoint's size
 * follows what the session changed, not its memory limit. A checkpoint is input
 * like any other: every length, offset, count, name and path in it is checked,
 * and a corrupt, truncated or tampered one is refused (CAPSA_EINVAL, never a
 * crash); its memory is guest memory, which can do nothing the guest itself
 * could not. (zstd's working memory comes from the C library, not from the
 * engine's allocator.) */

/* Called with the successive pieces of a checkpoint, data[0..len) valid during
 * the call only. Returns 0 to go on, anything else to stop the checkpoint. */
typedef int (*capsa_write_fn)(void *ud, const void *data, size_t len);

/* Checkpoints sb into fn (see above): CAPSA_OK, CAPSA_EINVAL (during a run, a
 * pending run, open files; capsa_errmsg says why), CAPSA_EIO when fn stopped it,
 * CAPSA_ENOMEM. The sandbox is not changed, but for one "checkpoint" line in its
 * audit trail when it keeps one. */
CAPSA_API int capsa_checkpoint_write(capsa_sandbox *sb, capsa_write_fn fn, void *ud);

/* The same into a buffer: on CAPSA_OK *data is a new buffer of *len bytes that the
 * caller frees with capsa_free; otherwise *data is NULL. */
CAPSA_API int capsa_checkpoint(capsa_sandbox *sb, char **data, size_t *len);

/* The most bytes a checkpoint's contents may have, decompressed, unless
 * capsa_restore_options.max_bytes says otherwise: the largest guest memory and a
 * GiB of files. */
#define CAPSA_CHECKPOINT_MAX ((4ull << 30) + (1ull << 30))

typedef struct capsa_restore_options {
    size_t struct_size;       /* set by _init */
    /* The tools' callbacks, by name: each tool of the checkpoint is bound to the fn
       and ud of the definition with its name (the rest of that definition is not
       used: the checkpoint's description, schema, flags and timeout stay, as the
       script saw them). A tool that had a callback and that no definition names
       fails the restore (CAPSA_ENOENT, capsa's message names it); one that had
       none (step mode) may be given one. Definitions naming no tool of the
       checkpoint are ignored (add new tools with capsa_tool_add). The array and
       the definitions are read during the call only. */
    const capsa_tool_def *const *tools;
    size_t n_tools;
    /* The callbacks of capsa_options, which a checkpoint does not keep. */
    capsa_output_fn on_output;
    void *on_output_ud;
    capsa_audit_fn on_audit;
    void *on_audit_ud;
    uint64_t max_bytes;       /* the most bytes the contents may expand to (a
                                 small blob can claim gigabytes); 0:
                                 CAPSA_CHECKPOINT_MAX */
    /* CAPSA_AUDIT_KEEP or 0: the restored sandbox keeps its audit lines for
       capsa_audit_take, as capsa_options' flag does (a checkpoint does not keep
       it). The other audit flags are the checkpoint's: any other bit is
       CAPSA_EINVAL. */
    uint32_t audit_flags;
} capsa_restore_options;

/* Fills *opts with the defaults (no tools, no callbacks). */
CAPSA_API void capsa_restore_options_init(capsa_restore_options *opts);

/* Makes a new sandbox of engine from the checkpoint data[0..len) (read during the
 * call only; opts may be NULL for the defaults). On CAPSA_OK *out owns it (free
 * with capsa_sandbox_free): as the checkpointed sandbox was, its limits included,
 * with no result yet. On failure *out is NULL and errmsg (errmsg_size bytes; may
 * be NULL) says why: CAPSA_EINVAL for data that is not a checkpoint, is corrupt
 * or truncated, comes from another format version, another build of capsa's
 * guest or another guest image, or names a tool with no callback (CAPSA_ENOENT,
 * see above); CAPSA_ETOOBIG when its contents are over max_bytes; CAPSA_ENOMEM,
 * CAPSA_ETOOMANY as capsa_sandbox_new. */
CAPSA_API int capsa_sandbox_restore(capsa_engine *engine, const void *data, size_t len,
                                    const capsa_restore_options *opts, capsa_sandbox **out,
                                    char *errmsg, size_t errmsg_size);

/* Frees memory returned by capsa (capsa_result_json, capsa_fs_read,
 * capsa_fs_export_tar, capsa_policy_json, capsa_policy_counts_json,
 * capsa_checkpoint). NULL is a no-op. */
CAPSA_API void capsa_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* CAPSA_H */
