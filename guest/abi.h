/* The contract between the guest (compiled to wasm32-wasi) and the host library:
 * the exports the host calls and the "capsa" imports the guest calls. Both sides
 * include this file, so the numbers below are defined once. */
#ifndef CAPSA_GUEST_ABI_H
#define CAPSA_GUEST_ABI_H

#include <stdint.h>

/* Status returned by the guest's capsa_run export. */
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

/* What a capsa.result(kind, ptr, len) import call reports. */
enum {
    CAPSA_RESULT_VALUE = 1,         /* the returned value as JSON text */
    CAPSA_RESULT_ERROR_NAME = 2,    /* name of the thrown error ("TypeError") */
    CAPSA_RESULT_ERROR_MESSAGE = 3, /* its message */
    CAPSA_RESULT_ERROR_STACK = 4,   /* its stack frames, one "    at ..." line each */
    CAPSA_RESULT_ERROR_CODE = 5,    /* its string `code` ("ENOENT", "permission_denied") */
};

/* Tool calls (guest/tools.js, guest/main.c; host: src/instance.c, src/tools.c).
 *
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
 *
 * An outcome is JSON text: the result when ok is 1; {"code","message"} when 0. */
typedef struct capsa_tool_info {
    uint32_t id;
    uint32_t ok;
    uint32_t len;
} capsa_tool_info;

enum {
    CAPSA_TOOL_EBUSY = -1,  /* too many calls in flight, or out of memory */
    CAPSA_TOOL_EBADARG = -2, /* a pointer or length outside guest memory */
};

#endif
