/* The contract between the guest (compiled to wasm32-wasi) and the host library:
 * the exports the host calls and the "capsa" imports the guest calls. Both sides
 * include this file, so the numbers below are defined once. */
#ifndef CAPSA_GUEST_ABI_H
#define CAPSA_GUEST_ABI_H

/* Status returned by the guest's capsa_run export. */
enum {
    CAPSA_GUEST_OK = 0,        /* the script returned; a value may have been reported */
    CAPSA_GUEST_THREW = 1,     /* the script threw; error parts have been reported */
    CAPSA_GUEST_NOMEM = 2,     /* the guest ran out of memory outside the script */
    CAPSA_GUEST_BADARG = 3,    /* the host passed an invalid argument */
};

/* What a capsa.result(kind, ptr, len) import call reports. */
enum {
    CAPSA_RESULT_VALUE = 1,         /* the returned value as JSON text */
    CAPSA_RESULT_ERROR_NAME = 2,    /* name of the thrown error ("TypeError") */
    CAPSA_RESULT_ERROR_MESSAGE = 3, /* its message */
    CAPSA_RESULT_ERROR_STACK = 4,   /* its stack frames, one "    at ..." line each */
};

#endif
