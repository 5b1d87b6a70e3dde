/* The whole boundary between the guest (compiled to wasm32-wasi) and the host
 * library: the exports the host calls, the "capsa" imports the guest calls, the
 * WASI imports that wasi-libc calls for it, and the numbers they exchange. Both
 * sides include this file, so the numbers are defined once; the build checks
 * that guest.wasm imports and exports exactly what is listed here
 * (tools/check-abi.sh). */
#ifndef CAPSA_GUEST_ABI_H
#define CAPSA_GUEST_ABI_H

#include <stdint.h>

/* --- exports: what the host calls (guest/main.c; host: src/instance.c) -----
 *
 *   capsa_init() -> i32
 *       Creates the JS runtime and evaluates the guest's JS files, once per
 *       process; the memory that results is the image of every sandbox.
 *   capsa_configure(memory_limit, seed_lo, seed_hi, stack_limit) -> i32
 *       One sandbox's settings: QuickJS's memory limit, Math.random's seed, the
 *       JS stack limit, and the time origin of performance.now().
 *   capsa_alloc(size) -> ptr, capsa_dealloc(ptr)
 *       Guest memory for what the host copies in (code, a command line).
 *   capsa_run(code_ptr, len, filename_ptr) -> i32
 *       Evaluates code as the body of an async function and runs its event loop.
 *   capsa_continue() -> i32
 *       Resumes a run that returned CAPSA_GUEST_PENDING.
 *   capsa_shell(cmd_ptr, len, input_ptr, input_len) -> i32
 *       Runs a shell command line; its exit status is reported as the value.
 *       input_len CAPSA_GUEST_SHELL_STDIN: its standard input is all of fd 0
 *       (the sandbox's standard input), read before the line runs.
 *   _initialize(), memory
 *       wasi-libc's reactor start and the linear memory. */

/* Status returned by capsa_init, capsa_configure, capsa_run, capsa_continue and
 * capsa_shell. */
enum {
    CAPSA_GUEST_OK = 0,        /* the script returned; a value may have been reported */
    CAPSA_GUEST_THREW = 1,     /* the script threw; error parts have been reported */
    CAPSA_GUEST_NOMEM = 2,     /* the guest ran out of memory outside the script */
    CAPSA_GUEST_BADARG = 3,    /* the host passed an invalid argument */
    CAPSA_GUEST_PENDING = 4,   /* nothing is runnable but tool calls are pending: the
                                  run's state is kept; capsa_continue resumes it once
                                  the host has results (capsa.pending said when the
                                  next timer is due) */
};

/* The input_len of capsa_shell that stands for "all of fd 0". */
#define CAPSA_GUEST_SHELL_STDIN 0xFFFFFFFFu

/* --- the "capsa" imports (guest: main.c, tools.c, loop.c; host: src/instance.c,
 * src/tools.c) -----------------------------------------------------------------
 *
 *   capsa.result(kind, ptr, len)
 *       One part of the run's outcome, kind a CAPSA_RESULT_* below.
 *   capsa.tool_call(name_ptr, name_len, args_ptr, args_len) -> i32
 *       Records a call of the tool named name with the JSON text args. The host
 *       assigns the id (> 0) and decides the call (registry, strict JSON, policy)
 *       before anything runs; a refused call still gets an id, and its error comes
 *       back as its outcome. < 0: the host could not take the call at all
 *       (CAPSA_TOOL_E*).
 *   capsa.tool_next(info_ptr) -> i32
 *       1 when a call has an outcome to deliver: writes a capsa_tool_info at
 *       info_ptr; 0 when none has.
 *   capsa.tool_take(id, ptr, len) -> i32
 *       Copies the outcome tool_next offered (len must be its length) to ptr and
 *       forgets it; ptr 0 and len 0 forget it without a copy (the guest could not
 *       allocate). 0, or -1 when id/len do not match what was offered.
 *   capsa.tools_generation() -> i32
 *       Changes whenever the registry changes: the guest then asks for the list.
 *   capsa.tools_list(ptr, cap) -> i32
 *       The registry as JSON ([{"name","flat","description","parameters"}]): its
 *       length; copied to ptr when cap is at least that.
 *   capsa.pending(wake_ns: i64)
 *       Said just before capsa_run/capsa_continue return CAPSA_GUEST_PENDING: the
 *       CLOCK_MONOTONIC time of the next timer, 0 when no timer is scheduled.
 *   capsa.tool_wait(wake_ns: i64) -> i32
 *       The shell (or a script it runs) waits inside a guest call, until a tool's
 *       outcome is ready or the timer at wake_ns (0: none) is due: a
 *       CAPSA_TOOL_WAIT_* below. The run's deadline still stops the guest.
 *
 * An outcome is JSON text: the result when ok is 1; {"code","message"} when 0. */

/* What a capsa.result(kind, ptr, len) import call reports. */
enum {
    CAPSA_RESULT_VALUE = 1,         /* the returned value as JSON text */
    CAPSA_RESULT_ERROR_NAME = 2,    /* name of the thrown error ("TypeError") */
    CAPSA_RESULT_ERROR_MESSAGE = 3, /* its message */
    CAPSA_RESULT_ERROR_STACK = 4,   /* its stack frames, one "    at ..." line each */
    CAPSA_RESULT_ERROR_CODE = 5,    /* its string `code` ("ENOENT", "permission_denied") */
    CAPSA_RESULT_EXIT_CODE = 6,     /* the run's exit code, 0-255 in decimal: what the
                                       script gave process.exit() or set as
                                       process.exitCode (not reported otherwise) */
};

typedef struct capsa_tool_info {
    uint32_t id;
    uint32_t ok;
    uint32_t len;
} capsa_tool_info;

enum {
    CAPSA_TOOL_EBUSY = -1,  /* too many calls in flight, or out of memory */
    CAPSA_TOOL_EBADARG = -2, /* a pointer or length outside guest memory */
};

/* What capsa.tool_wait answers. */
enum {
    CAPSA_TOOL_WAIT_NONE = 0,     /* no call is in flight */
    CAPSA_TOOL_WAIT_READY = 1,    /* an outcome is ready (capsa.tool_next) */
    CAPSA_TOOL_WAIT_WAKE = 2,     /* the timer is due */
    CAPSA_TOOL_WAIT_EXTERNAL = 3, /* the calls left are the host's to resolve (step mode) */
};

#ifdef __wasm__
/* The guest's declarations of the "capsa" imports, as listed above. */
#define CAPSA_IMPORT(name) __attribute__((import_module("capsa"), import_name(name)))
CAPSA_IMPORT("result") void capsa_host_result(uint32_t kind, const char *data, uint32_t len);
CAPSA_IMPORT("tool_call") int32_t capsa_host_tool_call(const char *name, uint32_t name_len,
                                                       const char *args, uint32_t args_len);
CAPSA_IMPORT("tool_next") int32_t capsa_host_tool_next(capsa_tool_info *info);
CAPSA_IMPORT("tool_take") int32_t capsa_host_tool_take(uint32_t id, char *data, uint32_t len);
CAPSA_IMPORT("tools_generation") int32_t capsa_host_tools_generation(void);
CAPSA_IMPORT("tools_list") int32_t capsa_host_tools_list(char *data, uint32_t cap);
CAPSA_IMPORT("pending") void capsa_host_pending(uint64_t wake_ns);
CAPSA_IMPORT("tool_wait") int32_t capsa_host_tool_wait(uint64_t wake_ns);
/* An export of the guest, as listed above. */
#define CAPSA_EXPORT(name) __attribute__((export_name(name)))
#endif

/* --- the WASI imports (guest: through wasi-libc; host: src/wasi.c) ---------
 *
 * The guest reaches files, clocks and random bytes only through these
 * wasi_snapshot_preview1 functions; each fd and path is checked on the host.
 *
 *   the script's arguments and environment (process.argv and process.env, as
 *     the host gave them; nothing of the host's own): args_sizes_get, args_get,
 *     environ_sizes_get, environ_get
 *   clocks and randomness: clock_time_get, poll_oneoff (sleeping until a
 *     timer), random_get
 *   file descriptors: fd_close, fd_fdstat_get, fd_fdstat_set_flags, fd_sync (SQLite),
 *     fd_filestat_get, fd_filestat_set_size, fd_prestat_get,
 *     fd_prestat_dir_name, fd_read, fd_readdir, fd_seek, fd_write
 *   paths: path_create_directory, path_filestat_get, path_filestat_set_times,
 *     path_link, path_open, path_readlink, path_remove_directory, path_rename,
 *     path_symlink, path_unlink_file
 *   the process: proc_exit (wasi-libc's exit and abort; the host stops the
 *     guest call there) */

#endif
