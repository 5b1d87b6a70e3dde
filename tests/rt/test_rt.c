/* Tests of the runtime layer (src/rt.c, src/rt.h) through capsa__rt_call: trap codes,
 * guard pages, memory growth and limits, the guest pointer check, memory images,
 * address space over thousands of instances, threads, host faults that must stay
 * fatal, and SIGSEGV handlers the host program installs after the runtime's. The
 * guest is tests/rt/trapper.wat, turned into C by wasm2c; the public API is used
 * where the same property must hold for sandboxes running QuickJS. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capsa.h"
#include "rt.h"
#include "test.h"

/* ---- the trapper module and its host import ------------------------------------- */

enum host_mode {
    HOST_ECHO,   /* host.call(x) returns x * 10 */
    HOST_NESTED, /* host.call(x) calls back into the guest, then returns x */
    HOST_NULL,   /* host.call(x) dereferences NULL: a host bug */
    HOST_EXIT,   /* host.call(x) ends the guest call as proc_exit(x) does */
};

typedef enum op {
    OP_LOAD, OP_LOAD8, OP_LOAD_OFF_MAX, OP_LOAD64_OFF_MAX,
    OP_STORE, OP_STORE8, OP_STORE_OFF_MAX,
    OP_GROW, OP_SIZE,
    OP_UNREACHABLE, OP_DIV_S, OP_DIV_U, OP_REM_S, OP_TRUNC, OP_CALL_SLOT,
    OP_DEEP, OP_RECURSE, OP_SHADOW, OP_SP,
    OP_SUM, OP_VIA_HOST, OP_SUM_THEN,
} op;

struct trapper;

/* The host side of the "host" import module, as wasm2c names it. */
struct Z_host_instance_t {
    struct trapper *self;
    enum host_mode mode;
    op nested_op;          /* HOST_NESTED: what the inner call does */
    uint32_t nested_a;
    int nested_trap;       /* HOST_NESTED: what the inner call returned */
    uint64_t nested_result;
    uint64_t nested_fuel;  /* HOST_NESTED: the fuel the inner call spent */
    int calls;
};

#include "trapper.h"

typedef struct trapper {
    Z_trapper_instance_t inst;
    struct Z_host_instance_t host;
} trapper;

typedef struct call {
    trapper *t;
    op op;
    uint32_t a, b;
    double f;
    uint64_t result;
} call;

/* Runs one export of the trapper; called by capsa__rt_call on the guest stack. */
static void run_op(void *p)
{
    call *c = p;
    Z_trapper_instance_t *in = &c->t->inst;
    switch (c->op) {
    case OP_LOAD: c->result = Z_trapperZ_load(in, c->a); break;
    case OP_LOAD8: c->result = Z_trapperZ_load8(in, c->a); break;
    case OP_LOAD_OFF_MAX: c->result = Z_trapperZ_load_off_max(in, c->a); break;
    case OP_LOAD64_OFF_MAX: c->result = Z_trapperZ_load64_off_max(in, c->a); break;
    case OP_STORE: Z_trapperZ_store(in, c->a, c->b); break;
    case OP_STORE8: Z_trapperZ_store8(in, c->a, c->b); break;
    case OP_STORE_OFF_MAX: Z_trapperZ_store_off_max(in, c->a, c->b); break;
    case OP_GROW: c->result = Z_trapperZ_grow(in, c->a); break;
    case OP_SIZE: c->result = Z_trapperZ_size(in); break;
    case OP_UNREACHABLE: Z_trapperZ_unreachable(in); break;
    case OP_DIV_S: c->result = Z_trapperZ_div_s(in, c->a, c->b); break;
    case OP_DIV_U: c->result = Z_trapperZ_div_u(in, c->a, c->b); break;
    case OP_REM_S: c->result = Z_trapperZ_rem_s(in, c->a, c->b); break;
    case OP_TRUNC: c->result = Z_trapperZ_trunc_f64_s(in, c->f); break;
    case OP_CALL_SLOT: c->result = Z_trapperZ_call_slot(in, c->a); break;
    case OP_DEEP: c->result = Z_trapperZ_deep(in, c->a); break;
    case OP_RECURSE: c->result = Z_trapperZ_recurse(in, c->a); break;
    case OP_SHADOW: c->result = Z_trapperZ_shadow_recurse(in, c->a); break;
    case OP_SP: c->result = Z_trapperZ_sp(in); break;
    case OP_SUM: c->result = Z_trapperZ_sum(in, c->a); break;
    case OP_VIA_HOST: c->result = Z_trapperZ_via_host(in, c->a); break;
    case OP_SUM_THEN: c->result = Z_trapperZ_sum_then(in, c->a, c->b); break;
    }
}

/* Calls export `o` with (a, b) under trap protection, its memory's writes noted
 * in *track (NULL: none): returns 0 or the trap code; *result (if not NULL) gets
 * the export's result. */
static int guest_tracked(trapper *t, capsa__rt_track *track, op o, uint32_t a, uint32_t b,
                         uint64_t *result)
{
    call c = { t, o, a, b, 0, 0 };
    int trap = capsa__rt_call(&t->inst.w2c_memory, track, &t->inst.capsa_fuel, NULL, run_op, &c,
                              NULL);
    if (result)
        *result = c.result;
    return trap;
}

static int guest(trapper *t, op o, uint32_t a, uint32_t b, uint64_t *result)
{
    return guest_tracked(t, NULL, o, a, b, result);
}

static int guest_trunc(trapper *t, double f, uint64_t *result)
{
    call c = { t, OP_TRUNC, 0, 0, f, 0 };
    int trap = capsa__rt_call(&t->inst.w2c_memory, NULL, &t->inst.capsa_fuel, NULL, run_op, &c, NULL);
    if (result)
        *result = c.result;
    return trap;
}

/* Returns a guest's value, or a value no export returns when the call trapped. */
#define NO_VALUE 0xdead0000deadull
static uint64_t value_of(trapper *t, op o, uint32_t a, uint32_t b)
{
    uint64_t r;
    return guest(t, o, a, b, &r) == 0 ? r : NO_VALUE;
}

/* The inner call of HOST_NESTED, with the fuel it spends. */
static void nested_call(void *p)
{
    struct Z_host_instance_t *h = p;
    call c = { h->self, h->nested_op, h->nested_a, 0, 0, 0 };
    h->nested_trap = capsa__rt_call(&h->self->inst.w2c_memory, NULL, &h->self->inst.capsa_fuel,
                                    NULL, run_op, &c, &h->nested_fuel);
    h->nested_result = c.result;
}

#if defined(__x86_64__)
/* A value for r15 that no fuel counter holds. */
#define R15_MARK 0x7e57c0de5eed1e55L

/* sum_with_r15(inst, n, value): calls the export sum(n) directly, with r15 set to
 * value; returns r15 as the export left it (r15 is callee-saved: it must come
 * back unchanged). */
long sum_with_r15(Z_trapper_instance_t *inst, uint32_t n, long value);
__asm__(".text\n"
        ".globl sum_with_r15\n"
        ".type sum_with_r15, @function\n"
        "sum_with_r15:\n"
        "    push %r15\n"
        "    mov %rdx, %r15\n"
        "    call Z_trapperZ_sum\n"
        "    mov %r15, %rax\n"
        "    pop %r15\n"
        "    ret\n"
        ".size sum_with_r15, .-sum_with_r15\n");
#endif

/* HOST_NULL faults on purpose: UBSan (make test-sanitize) must let it fault. */
__attribute__((no_sanitize("undefined"))) u32 Z_hostZ_call(struct Z_host_instance_t *h, u32 x)
{
    h->calls++;
    switch (h->mode) {
    case HOST_ECHO:
        return x * 10;
    case HOST_NESTED:
        nested_call(h);
        return x;
    case HOST_EXIT:
        capsa__rt_exit(x);
    case HOST_NULL: {
        volatile int *volatile nowhere = NULL;
        return (u32)*nowhere;
    }
    }
    return 0;
}

static void op_instantiate(void *p)
{
    trapper *t = p;
    Z_trapper_instantiate(&t->inst, &t->host);
}

/* A new trapper instance, or NULL; *trap (if not NULL) gets the instantiation's
 * trap code. Instantiation runs under trap protection as the runtime reports
 * allocation failure as a trap. */
static trapper *trapper_new(int *trap)
{
    trapper *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->host.self = t;
    int code = capsa__rt_call(&t->inst.w2c_memory, NULL, &t->inst.capsa_fuel, NULL, op_instantiate, t, NULL);
    if (trap)
        *trap = code;
    if (code) {
        Z_trapper_free(&t->inst);
        free(t);
        return NULL;
    }
    return t;
}

static void trapper_free(trapper *t)
{
    if (!t)
        return;
    Z_trapper_free(&t->inst);
    free(t);
}

/* ---- helpers ------------------------------------------------------------------- */

/* The process's VmSize in bytes, from /proc/self/status; 0 if unreadable. */
static uint64_t vm_size(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "VmSize: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return (uint64_t)kb << 10;
}

/* Whether every byte of [lo, hi) lies in mappings of /proc/self/maps whose
 * permissions begin with `perms` (e.g. "---"): walks consecutive mappings. */
static int range_has_perms(uintptr_t lo, uintptr_t hi, const char *perms)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return 0;
    char line[512];
    uintptr_t cur = lo;
    while (cur < hi && fgets(line, sizeof(line), f)) {
        unsigned long start, end;
        char p[8];
        if (sscanf(line, "%lx-%lx %7s", &start, &end, p) != 3)
            continue;
        if (end <= cur)
            continue;
        if (start > cur || strncmp(p, perms, strlen(perms)) != 0)
            break;
        cur = end;
    }
    fclose(f);
    return cur >= hi;
}

/* The number of open file descriptors, or -1. */
static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* Replaces t's linear memory with a new one mapped from img; returns 0 or -1. */
static int use_image(trapper *t, const capsa__rt_image *img)
{
    wasm_rt_free_memory(&t->inst.w2c_memory);
    return capsa__rt_memory_from_image(&t->inst.w2c_memory, img);
}

/* Runs fn(arg) in a forked child with core dumps off; returns the wait status, or
 * -1 if the child could not be made. fn's return value is the child's exit code. */
static int in_child(int (*fn)(void *), void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        struct rlimit no_core = { 0, 0 };
        setrlimit(RLIMIT_CORE, &no_core);
        _exit(fn(arg));
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return status;
}

static int killed_by_segv(int status)
{
    return status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
}

static int exited_with(int status, int code)
{
    return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == code;
}

#define PAGE CAPSA__WASM_PAGE
/* A word of the first page that trapper.wat leaves to the tests. */
#define SCRATCH 16384u

/* ---- traps --------------------------------------------------------------------- */

TEST(normal_calls)
{
    trapper *t = trapper_new(NULL);
    CHECK(t != NULL, "a trapper instance is created");
    if (!t)
        return;
    CHECK_INT(value_of(t, OP_LOAD, 0, 0), 42, "load at 0 reads the data segment's word");
    CHECK_INT(value_of(t, OP_LOAD8, 4, 0), 1, "load8 at 4 reads the data segment's byte");
    CHECK_INT(guest(t, OP_STORE, SCRATCH, 0xdeadbeef, NULL), 0, "store in bounds does not trap");
    CHECK_INT(value_of(t, OP_LOAD, SCRATCH, 0), 0xdeadbeef, "load reads back what store wrote");
    CHECK(memcmp(t->inst.w2c_memory.data + SCRATCH, "\xef\xbe\xad\xde", 4) == 0,
          "the host sees the guest's store at data + address, little-endian");
    CHECK_INT(value_of(t, OP_LOAD, PAGE - 4, 0), 0, "the last word of memory can be loaded");
    CHECK_INT(guest(t, OP_STORE8, PAGE - 1, 0x7f, NULL), 0,
              "the last byte of memory can be stored");
    CHECK_INT(t->inst.w2c_memory.data[PAGE - 1], 0x7f, "the host sees the store to the last byte");
    CHECK_INT(value_of(t, OP_SUM, 100, 0), 4950, "sum(100) loops 100 times");
    CHECK_INT((int32_t)value_of(t, OP_DIV_S, (uint32_t)-7, 2), -3, "i32.div_s -7 / 2 truncates");
    CHECK_INT(value_of(t, OP_REM_S, 0x80000000u, (uint32_t)-1), 0,
              "i32.rem_s INT_MIN % -1 is 0, not a trap");
    uint64_t r = 0;
    CHECK_INT(guest_trunc(t, -3.9, &r), 0, "i32.trunc_f64_s -3.9 does not trap");
    CHECK_INT((int32_t)r, -3, "i32.trunc_f64_s -3.9 gives -3");
    CHECK_INT(guest_trunc(t, -2147483648.5, &r), 0, "i32.trunc_f64_s -2147483648.5 is in range");
    CHECK_INT((int32_t)r, INT32_MIN, "i32.trunc_f64_s -2147483648.5 gives INT_MIN");
    CHECK_INT(value_of(t, OP_CALL_SLOT, 1, 0), 7, "call_indirect through slot 1 reaches $seven");
    CHECK_INT(value_of(t, OP_DEEP, 1000, 0), 1000, "deep(1000) recurses and returns");
    CHECK_INT(value_of(t, OP_VIA_HOST, 4, 0), 41, "guest code around a host import: 4 * 10 + 1");
    CHECK_INT(t->host.calls, 1, "the host import ran once");
    trapper_free(t);
}

typedef struct trap_case {
    const char *what;
    op op;
    uint32_t a, b;
    double f;
    int want;
} trap_case;

static const trap_case trap_cases[] = {
    { "i32.load at the memory size", OP_LOAD, PAGE, 0, 0, WASM_RT_TRAP_OOB },
    { "i32.load straddling the end (size - 2)", OP_LOAD, PAGE - 2, 0, 0, WASM_RT_TRAP_OOB },
    { "i32.load8_u at the memory size", OP_LOAD8, PAGE, 0, 0, WASM_RT_TRAP_OOB },
    { "i32.load a page past the end", OP_LOAD, 2 * PAGE, 0, 0, WASM_RT_TRAP_OOB },
    { "i32.load at 0x7fffffff", OP_LOAD, 0x7fffffff, 0, 0, WASM_RT_TRAP_OOB },
    { "i32.load at 0xfffffff0 + offset 0xffffffff", OP_LOAD_OFF_MAX, 0xfffffff0u, 0, 0,
      WASM_RT_TRAP_OOB },
    { "i32.load at 0xffffffff + offset 0xffffffff (farthest address)", OP_LOAD_OFF_MAX,
      0xffffffffu, 0, 0, WASM_RT_TRAP_OOB },
    { "i64.load at 0xffffffff + offset 0xffffffff (crosses the reservation's end)",
      OP_LOAD64_OFF_MAX, 0xffffffffu, 0, 0, WASM_RT_TRAP_OOB },
    { "i32.store at the memory size", OP_STORE, PAGE, 1, 0, WASM_RT_TRAP_OOB },
    { "i32.store8 at the memory size", OP_STORE8, PAGE, 1, 0, WASM_RT_TRAP_OOB },
    { "i32.store at 0x80000000", OP_STORE, 0x80000000u, 1, 0, WASM_RT_TRAP_OOB },
    { "i32.store at 0xffffffff + offset 0xffffffff", OP_STORE_OFF_MAX, 0xffffffffu, 1, 0,
      WASM_RT_TRAP_OOB },
    { "unreachable", OP_UNREACHABLE, 0, 0, 0, WASM_RT_TRAP_UNREACHABLE },
    { "i32.div_s by zero", OP_DIV_S, 5, 0, 0, WASM_RT_TRAP_DIV_BY_ZERO },
    { "i32.div_u by zero", OP_DIV_U, 5, 0, 0, WASM_RT_TRAP_DIV_BY_ZERO },
    { "i32.rem_s by zero", OP_REM_S, 5, 0, 0, WASM_RT_TRAP_DIV_BY_ZERO },
    { "i32.div_s INT_MIN / -1", OP_DIV_S, 0x80000000u, 0xffffffffu, 0,
      WASM_RT_TRAP_INT_OVERFLOW },
    { "i32.trunc_f64_s of NaN", OP_TRUNC, 0, 0, NAN, WASM_RT_TRAP_INVALID_CONVERSION },
    { "i32.trunc_f64_s of 1e10", OP_TRUNC, 0, 0, 1e10, WASM_RT_TRAP_INT_OVERFLOW },
    { "i32.trunc_f64_s of 2147483648", OP_TRUNC, 0, 0, 2147483648.0, WASM_RT_TRAP_INT_OVERFLOW },
    { "i32.trunc_f64_s of -2147483649", OP_TRUNC, 0, 0, -2147483649.0,
      WASM_RT_TRAP_INT_OVERFLOW },
    { "i32.trunc_f64_s of -inf", OP_TRUNC, 0, 0, -INFINITY, WASM_RT_TRAP_INT_OVERFLOW },
    { "call_indirect through null slot 0", OP_CALL_SLOT, 0, 0, 0, WASM_RT_TRAP_CALL_INDIRECT },
    { "call_indirect through null slot 3", OP_CALL_SLOT, 3, 0, 0, WASM_RT_TRAP_CALL_INDIRECT },
    { "call_indirect past the table (4)", OP_CALL_SLOT, 4, 0, 0, WASM_RT_TRAP_CALL_INDIRECT },
    { "call_indirect at 0xffffffff", OP_CALL_SLOT, 0xffffffffu, 0, 0,
      WASM_RT_TRAP_CALL_INDIRECT },
    { "call_indirect with a mismatched type (slot 2)", OP_CALL_SLOT, 2, 0, 0,
      WASM_RT_TRAP_CALL_INDIRECT },
    { "unbounded recursion (guest stack guard)", OP_RECURSE, 0, 0, 0, WASM_RT_TRAP_EXHAUSTION },
    { "shadow stack running below address 0", OP_SHADOW, 0, 0, 0, WASM_RT_TRAP_EXHAUSTION },
};

/* Each trap gives its code, and the same thread and instance then work normally:
 * the frame, the guest stack and the signal stack were all given back. */
TEST(each_trap_kind)
{
    trapper *t = trapper_new(NULL);
    CHECK(t != NULL, "a trapper instance is created");
    if (!t)
        return;
    char what[256];
    for (size_t i = 0; i < sizeof(trap_cases) / sizeof(trap_cases[0]); i++) {
        const trap_case *c = &trap_cases[i];
        call k = { t, c->op, c->a, c->b, c->f, 0 };
        int trap = capsa__rt_call(&t->inst.w2c_memory, NULL, &t->inst.capsa_fuel, NULL, run_op, &k, NULL);
        snprintf(what, sizeof(what), "%s traps with %s", c->what,
                 capsa__rt_trap_message(c->want));
        CHECK_INT(trap, c->want, what);
        snprintf(what, sizeof(what), "after %s: a normal call on the same thread", c->what);
        CHECK_INT(value_of(t, OP_SUM, 1000, 0), 499500, what);
        snprintf(what, sizeof(what), "after %s: the data segment is intact", c->what);
        CHECK_INT(value_of(t, OP_LOAD, 0, 0), 42, what);
        snprintf(what, sizeof(what), "after %s: a host import still works", c->what);
        CHECK_INT(value_of(t, OP_VIA_HOST, 2, 0), 21, what);
    }
    /* The same traps again, in a row, without normal calls in between. */
    int wrong = 0;
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < sizeof(trap_cases) / sizeof(trap_cases[0]); i++) {
            call k = { t, trap_cases[i].op, trap_cases[i].a, trap_cases[i].b, trap_cases[i].f, 0 };
            wrong += capsa__rt_call(&t->inst.w2c_memory, NULL, &t->inst.capsa_fuel, NULL, run_op, &k, NULL) != trap_cases[i].want;
        }
    CHECK_INT(wrong, 0, "traps repeated back to back keep their codes");
    CHECK_INT(value_of(t, OP_DEEP, 100000, 0), 100000,
              "after a stack exhaustion, deep(100000) still fits the guest stack");
    trapper_free(t);
}

/* The runtime tells a run-off shadow stack (wasm-ld --stack-first: the pointer wraps
 * below 0 to just under 4 GiB) from other out-of-bounds accesses by the faulting
 * offset: [4 GiB - 16 MiB, 4 GiB + 1 MiB) is exhaustion, anything else OOB. Plain
 * loads that land in that window are reported as exhaustion too; these checks pin
 * where the window lies. */
TEST(shadow_stack_window)
{
    trapper *t = trapper_new(NULL);
    CHECK(t != NULL, "a trapper instance is created");
    if (!t)
        return;
    CHECK_INT(guest(t, OP_SHADOW, 0, 0, NULL), WASM_RT_TRAP_EXHAUSTION,
              "a shadow stack running below 0 is reported as exhaustion");
    CHECK_INT(value_of(t, OP_SP, 0, 0), 8224u - 9 * 1024u,
              "the shadow stack pointer wrapped to just under 4 GiB when it trapped");
    CHECK_INT(guest(t, OP_LOAD, 0xff000000u - 4, 0, NULL), WASM_RT_TRAP_OOB,
              "a load just below the window is out of bounds");
    CHECK_INT(guest(t, OP_LOAD, 0xff000000u, 0, NULL), WASM_RT_TRAP_EXHAUSTION,
              "a load at the window's start is taken for exhaustion");
    CHECK_INT(guest(t, OP_LOAD_OFF_MAX, 0x100000u, 0, NULL), WASM_RT_TRAP_EXHAUSTION,
              "an access at 4 GiB + 1 MiB - 1 (index + offset) is the window's last byte");
    CHECK_INT(guest(t, OP_LOAD_OFF_MAX, 0x100001u, 0, NULL), WASM_RT_TRAP_OOB,
              "an access at 4 GiB + 1 MiB (index + offset) is past the window: OOB");
    trapper_free(t);
}

/* ---- out-of-bounds accesses and host memory --------------------------------------- */

TEST(oob_stays_in_reservation)
{
    trapper *a = trapper_new(NULL), *b = trapper_new(NULL);
    CHECK(a && b, "two trapper instances are created");
    if (!a || !b) {
        trapper_free(a);
        trapper_free(b);
        return;
    }
    wasm_rt_memory_t *m = &a->inst.w2c_memory;
    uintptr_t data = (uintptr_t)m->data;
    CHECK(range_has_perms(data, data + m->size, "rw"),
          "the guest's pages are mapped read-write");
    CHECK(range_has_perms(data + m->size, data + CAPSA__RT_RESERVE, "---"),
          "everything from the memory's end to data + 8 GiB (any index + offset) is "
          "inaccessible");

    /* Every out-of-bounds store traps and changes nothing, here or in b. */
    uint8_t *snap_a = malloc(PAGE), *snap_b = malloc(PAGE);
    CHECK(snap_a && snap_b, "snapshot buffers are allocated");
    if (snap_a && snap_b) {
        guest(b, OP_STORE, SCRATCH, 0x0b0b0b0b, NULL);
        memcpy(snap_a, a->inst.w2c_memory.data, PAGE);
        memcpy(snap_b, b->inst.w2c_memory.data, PAGE);
        static const struct { op op; uint32_t addr; } stores[] = {
            { OP_STORE8, PAGE }, { OP_STORE, PAGE }, { OP_STORE, PAGE + 4096 },
            { OP_STORE, 0x7ffffffc }, { OP_STORE, 0xfffffffc },
            { OP_STORE_OFF_MAX, 0 }, { OP_STORE_OFF_MAX, 0x80000000u },
            { OP_STORE_OFF_MAX, 0xffffffffu },
#if defined(__x86_64__) || defined(__i386__)
            /* x86 never performs part of a faulting store; other CPUs may. */
            { OP_STORE, PAGE - 2 }, { OP_STORE, PAGE - 1 },
#endif
        };
        int traps = 0;
        for (size_t i = 0; i < sizeof(stores) / sizeof(stores[0]); i++)
            traps += guest(a, stores[i].op, stores[i].addr, 0xa5a5a5a5u, NULL) != 0;
        CHECK_INT(traps, (int)(sizeof(stores) / sizeof(stores[0])),
                  "every out-of-bounds store traps");
        CHECK(memcmp(snap_a, a->inst.w2c_memory.data, PAGE) == 0,
              "the trapping stores left the instance's own memory unchanged");
        CHECK(memcmp(snap_b, b->inst.w2c_memory.data, PAGE) == 0,
              "the trapping stores left another instance's memory unchanged");
        CHECK_INT(value_of(b, OP_LOAD, SCRATCH, 0), 0x0b0b0b0b,
                  "the other instance reads its own value back");
    }
    free(snap_a);
    free(snap_b);

    /* A store at the end that trapped did not land in the page that grows there. */
    CHECK_INT(guest(a, OP_STORE8, PAGE, 0x55, NULL), WASM_RT_TRAP_OOB,
              "store8 at the memory size traps");
    CHECK_INT(value_of(a, OP_GROW, 1, 0), 1, "memory.grow 1 from 1 page returns 1");
    CHECK_INT(value_of(a, OP_LOAD8, PAGE, 0), 0,
              "the grown page holds 0 where the trapping store aimed");
    trapper_free(a);
    trapper_free(b);
}

/* ---- memory growth and limits ---------------------------------------------------- */

TEST(memory_growth)
{
    trapper *t = trapper_new(NULL);
    CHECK(t != NULL, "a trapper instance is created");
    if (!t)
        return;
    wasm_rt_memory_t *m = &t->inst.w2c_memory;
    CHECK_INT(m->max_pages, 4, "the declared maximum (4 pages) reaches the runtime");
    CHECK_INT(value_of(t, OP_SIZE, 0, 0), 1, "memory.size starts at 1 page");
    CHECK_INT(value_of(t, OP_GROW, 0, 0), 1, "memory.grow 0 returns the size, 1");
    CHECK_INT(value_of(t, OP_GROW, 1, 0), 1, "memory.grow 1 returns the old size, 1");
    CHECK_INT(m->pages, 2, "the runtime's page count follows growth");
    CHECK_INT(m->size, 2 * PAGE, "the runtime's byte size follows growth");
    CHECK_INT(value_of(t, OP_LOAD, 2 * PAGE - 4, 0), 0, "the last word of the new page reads 0");
    CHECK_INT(guest(t, OP_STORE, 2 * PAGE - 4, 77, NULL), 0, "the new page is writable");
    CHECK_INT(guest(t, OP_LOAD, 2 * PAGE, 0, NULL), WASM_RT_TRAP_OOB,
              "the byte after the new page is still out of bounds");
    uint64_t r = 0;
    CHECK_INT(guest(t, OP_GROW, 3, 0, &r), 0, "memory.grow past the maximum does not trap");
    CHECK_INT((uint32_t)r, UINT32_MAX, "memory.grow 3 from 2 pages (max 4) returns -1");
    CHECK_INT(value_of(t, OP_SIZE, 0, 0), 2, "a failed memory.grow leaves the size alone");
    CHECK_INT(value_of(t, OP_GROW, 2, 0), 2, "memory.grow 2 up to the maximum succeeds");
    CHECK_INT((uint32_t)value_of(t, OP_GROW, 1, 0), UINT32_MAX,
              "memory.grow 1 at the maximum returns -1");
    CHECK_INT(value_of(t, OP_LOAD, 4 * PAGE - 4, 0), 0, "the fourth page is readable");
    CHECK_INT(value_of(t, OP_LOAD, 2 * PAGE - 4, 0), 77, "growth kept the earlier contents");
    trapper_free(t);

    /* The host lowers max_pages after instantiation, as capsa does for its memory
     * limit: growth must respect the lowered value. */
    t = trapper_new(NULL);
    CHECK(t != NULL, "a second trapper instance is created");
    if (!t)
        return;
    m = &t->inst.w2c_memory;
    m->max_pages = 2;
    CHECK_INT((uint32_t)value_of(t, OP_GROW, 2, 0), UINT32_MAX,
              "with max_pages lowered to 2, memory.grow 2 from 1 page returns -1");
    CHECK_INT(m->pages, 1, "the refused growth left 1 page");
    CHECK_INT(value_of(t, OP_GROW, 1, 0), 1, "memory.grow 1 to the lowered maximum succeeds");
    CHECK_INT((uint32_t)value_of(t, OP_GROW, 1, 0), UINT32_MAX,
              "memory.grow 1 beyond the lowered maximum returns -1");
    CHECK_INT(guest(t, OP_LOAD, 2 * PAGE, 0, NULL), WASM_RT_TRAP_OOB,
              "memory past the lowered maximum stays out of bounds");

    /* Without a maximum, the 32-bit size still caps memory below 4 GiB. */
    m->max_pages = UINT32_MAX;
    CHECK_INT((uint32_t)value_of(t, OP_GROW, 65536, 0), UINT32_MAX,
              "memory.grow to 65536 + 2 pages (over 4 GiB) returns -1");
    CHECK_INT((uint32_t)value_of(t, OP_GROW, UINT32_MAX, 0), UINT32_MAX,
              "memory.grow 0xffffffff pages returns -1 (no overflow)");
    CHECK_INT((uint32_t)value_of(t, OP_GROW, 65536 - 2, 0), UINT32_MAX,
              "memory.grow to exactly 65536 pages returns -1 (size would not fit 32 bits)");
    CHECK_INT(m->pages, 2, "the refused growths left 2 pages");
    trapper_free(t);
}

/* ---- the guest pointer check ------------------------------------------------------ */

TEST(guest_ptr)
{
    trapper *t = trapper_new(NULL);
    CHECK(t != NULL, "a trapper instance is created");
    if (!t)
        return;
    const wasm_rt_memory_t *m = &t->inst.w2c_memory;
    uint8_t *d = m->data;
    CHECK(capsa__guest_ptr(m, 0, 0) == d, "[0, 0) is accepted");
    CHECK(capsa__guest_ptr(m, 0, PAGE) == d, "[0, size) (all of memory) is accepted");
    CHECK(capsa__guest_ptr(m, 100, 4) == d + 100, "[100, 104) maps to data + 100");
    CHECK(capsa__guest_ptr(m, PAGE - 1, 1) == d + PAGE - 1, "the last byte is accepted");
    CHECK(capsa__guest_ptr(m, PAGE, 0) == d + PAGE, "a 0-length range at the end is accepted");
    CHECK(capsa__guest_ptr(m, PAGE, 1) == NULL, "[size, size + 1) is refused");
    CHECK(capsa__guest_ptr(m, PAGE - 1, 2) == NULL, "a range straddling the end is refused");
    CHECK(capsa__guest_ptr(m, 0, PAGE + 1) == NULL, "a length over the size is refused");
    CHECK(capsa__guest_ptr(m, PAGE + 1, 0) == NULL,
          "a 0-length range past the end is refused");
    CHECK(capsa__guest_ptr(m, UINT32_MAX, 0) == NULL, "a 0-length range at 0xffffffff is refused");
    CHECK(capsa__guest_ptr(m, UINT32_MAX, 2) == NULL,
          "ptr + len overflowing 32 bits is refused");
    CHECK(capsa__guest_ptr(m, 0, UINT32_MAX) == NULL, "a length of 0xffffffff is refused");
    CHECK(capsa__guest_ptr(m, 0, (uint64_t)UINT32_MAX + 1) == NULL,
          "a length of 4 GiB is refused");
    CHECK(capsa__guest_ptr(m, 0, UINT64_MAX) == NULL, "a length of 2^64 - 1 is refused");
    CHECK(capsa__guest_ptr(m, 1, UINT64_MAX) == NULL,
          "ptr + len wrapping around 64 bits (1 + 2^64 - 1) is refused");
    CHECK(capsa__guest_ptr(m, PAGE, UINT64_MAX - PAGE + 1) == NULL,
          "a length that wraps ptr + len to exactly 0 is refused");
    CHECK_INT(value_of(t, OP_GROW, 1, 0), 1, "memory.grow 1 succeeds");
    CHECK(capsa__guest_ptr(m, PAGE, PAGE) == d + PAGE,
          "after growth, the new page is accepted");
    CHECK(capsa__guest_ptr(m, 2 * PAGE - 1, 2) == NULL,
          "after growth, a range straddling the new end is refused");
    trapper_free(t);
}

/* An image from bytes: those of a file this process maps read-only are that file
 * (mapped again, nothing copied, at their offset in it), writes to a memory from
 * it stay private, and a file replaced since under the same path is not taken
 * for it (copied instead); bytes of no file are copied. */
TEST(image_from_bytes)
{
    char path[] = "/tmp/capsa-rt-image-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "a file for the image");
    if (fd < 0)
        return;
    /* A page of something else, then 2 wasm pages: a word in each, a hole. */
    size_t size = 4096 + 2 * PAGE;
    uint8_t *bytes = calloc(1, size);
    if (bytes) {
        memcpy(bytes + 4096 + SCRATCH, "\x44\x33\x22\x11", 4);
        memcpy(bytes + 4096 + PAGE + 100, "\x88\x77\x66\x55", 4);
    }
    CHECK(bytes && write(fd, bytes, size) == (ssize_t)size, "the file is written");
    uint8_t *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    CHECK(map != MAP_FAILED, "the file is mapped read-only");
    trapper *a = trapper_new(NULL);
    CHECK(a != NULL, "a trapper instance");
    if (map == MAP_FAILED || !a || !bytes) {
        trapper_free(a);
        free(bytes);
        unlink(path);
        return;
    }
    capsa__rt_image img;
    CHECK_INT(capsa__rt_image_from_bytes(&img, map + 4096, 2, 4), 0, "an image of the mapped bytes");
    struct stat st, want;
    CHECK(img.mapped == 1 && img.offset == 4096 && fstat(img.fd, &st) == 0 &&
              stat(path, &want) == 0 && st.st_ino == want.st_ino,
          "the image is the file itself, at the bytes' offset in it");
    CHECK_INT(use_image(a, &img), 0, "a memory is made from it");
    CHECK_INT(value_of(a, OP_LOAD, SCRATCH, 0), 0x11223344, "its first page is the file's");
    CHECK_INT(value_of(a, OP_LOAD, PAGE + 100, 0), 0x55667788, "and its second");
    CHECK_INT(guest(a, OP_STORE, SCRATCH, 7, NULL), 0, "the memory is writable");
    CHECK(memcmp(map + 4096 + SCRATCH, "\x44\x33\x22\x11", 4) == 0 && img.view[SCRATCH] == 0x44,
          "a write to the memory reaches neither the file nor the image");
    capsa__rt_image_release(&img);

    /* Another file put at the same path: the mapped bytes are not its. */
    CHECK(unlink(path) == 0, "the file is removed");
    fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
    CHECK(fd >= 0 && write(fd, bytes, size) == (ssize_t)size, "another file takes its path");
    if (fd >= 0)
        close(fd);
    CHECK_INT(capsa__rt_image_from_bytes(&img, map + 4096, 2, 4), 0,
              "an image of the bytes of the file that was removed");
    CHECK(img.mapped == 0 && img.view && memcmp(img.view, map + 4096, 2 * PAGE) == 0,
          "is a copy of them, not the new file");
    capsa__rt_image_release(&img);
    CHECK_INT(capsa__rt_image_from_bytes(&img, bytes + 4096, 2, 4), 0, "an image of heap bytes");
    CHECK(img.mapped == 0 && img.view && memcmp(img.view, bytes + 4096, 2 * PAGE) == 0,
          "is a copy of them");
    CHECK_INT(use_image(a, &img), 0, "a memory is made from the copy");
    CHECK_INT(value_of(a, OP_LOAD, PAGE + 100, 0), 0x55667788, "it holds the bytes");
    capsa__rt_image_release(&img);
    trapper_free(a);
    munmap(map, size);
    free(bytes);
    unlink(path);
}

#define CHURN 2000
#define GIB (1ull << 30)

/* ---- memory images ---------------------------------------------------------------- */

TEST(images)
{
    trapper *src = trapper_new(NULL), *a = trapper_new(NULL), *b = trapper_new(NULL);
    CHECK(src && a && b, "three trapper instances are created");
    if (!src || !a || !b) {
        trapper_free(src);
        trapper_free(a);
        trapper_free(b);
        return;
    }
    /* The source: 2 of its 4 pages, data in both. */
    guest(src, OP_STORE, SCRATCH, 0x11223344, NULL);
    CHECK_INT(value_of(src, OP_GROW, 1, 0), 1, "the source memory grows to 2 pages");
    guest(src, OP_STORE, PAGE + 100, 0x55667788, NULL);
    guest(src, OP_STORE8, 2 * PAGE - 1, 0x99, NULL);

    capsa__rt_image img;
    CHECK_INT(capsa__rt_image_capture(&img, &src->inst.w2c_memory), 0, "a memory is captured");
    CHECK(img.fd >= 0, "the image holds a file descriptor");
    CHECK_INT(img.pages, 2, "the image has the memory's 2 pages");
    CHECK_INT(img.max_pages, 4, "the image keeps the memory's maximum");
    int seals = fcntl(img.fd, F_GET_SEALS);
    CHECK(seals >= 0 && (seals & F_SEAL_WRITE) && (seals & F_SEAL_SHRINK) &&
              (seals & F_SEAL_GROW) && (seals & F_SEAL_SEAL),
          "the image is sealed against writes, resizing and new seals");
    CHECK(pwrite(img.fd, "x", 1, 0) < 0 && errno == EPERM, "writing to the image fails");
    CHECK(ftruncate(img.fd, 0) != 0, "shrinking the image fails");
    struct stat st;
    CHECK(fstat(img.fd, &st) == 0 && st.st_size == 2 * PAGE, "the image file is 2 pages long");
    CHECK(st.st_blocks * 512 <= 4 * 4096,
          "the image stores only the 3 host pages that hold data; zero pages are holes");

    /* The source changes after the capture: the image must not. */
    guest(src, OP_STORE, SCRATCH, 0xaaaaaaaa, NULL);

    CHECK_INT(use_image(a, &img), 0, "a memory is made from the image");
    CHECK_INT(use_image(b, &img), 0, "a second memory is made from the image");
    wasm_rt_memory_t *ma = &a->inst.w2c_memory;
    CHECK_INT(ma->pages, 2, "the memory from the image has 2 pages");
    CHECK_INT(ma->size, 2 * PAGE, "the memory from the image has 2 pages of bytes");
    CHECK_INT(ma->max_pages, 4, "the memory from the image has the image's maximum");
    CHECK_INT(value_of(a, OP_LOAD, 0, 0), 42, "the data segment's word comes from the image");
    CHECK_INT(value_of(a, OP_LOAD, SCRATCH, 0), 0x11223344,
              "the image holds the value at capture, not the source's later one");
    CHECK_INT(value_of(a, OP_LOAD, PAGE + 100, 0), 0x55667788,
              "the image's second page holds its data");
    CHECK_INT(value_of(a, OP_LOAD8, 2 * PAGE - 1, 0), 0x99, "the image's last byte is kept");
    CHECK_INT(value_of(a, OP_LOAD, PAGE / 2, 0), 0, "a hole of the image reads as zero");

    /* Copy-on-write: each memory's writes are its own. */
    CHECK_INT(guest(a, OP_STORE, SCRATCH, 0xa0a0a0a0, NULL), 0,
              "a memory from the image is writable");
    CHECK_INT(guest(a, OP_STORE, PAGE / 2, 5, NULL), 0, "a hole of the image is writable");
    CHECK_INT(value_of(b, OP_LOAD, SCRATCH, 0), 0x11223344,
              "a write to one memory from the image is not seen by another");
    CHECK_INT(value_of(b, OP_LOAD, PAGE / 2, 0), 0, "a write into a hole is not seen by another");
    CHECK_INT(value_of(src, OP_LOAD, SCRATCH, 0), 0xaaaaaaaa,
              "a write to a memory from the image is not seen by the source");

    /* Bounds and growth past the image. */
    uintptr_t data = (uintptr_t)ma->data;
    CHECK(range_has_perms(data + ma->size, data + CAPSA__RT_RESERVE, "---"),
          "a memory from the image has the full guard reservation after its end");
    CHECK_INT(guest(a, OP_LOAD, 2 * PAGE, 0, NULL), WASM_RT_TRAP_OOB,
              "a load just past the image's pages traps OOB");
    CHECK_INT(guest(a, OP_STORE, 0x7ffffff0, 1, NULL), WASM_RT_TRAP_OOB,
              "a store far past the image's pages traps OOB");
    CHECK_INT(value_of(a, OP_GROW, 1, 0), 2, "a memory from the image grows past the image");
    CHECK_INT(value_of(a, OP_LOAD, 3 * PAGE - 4, 0), 0, "the grown page reads zero");
    CHECK_INT(guest(a, OP_STORE, 3 * PAGE - 4, 9, NULL), 0, "the grown page is writable");
    CHECK_INT(value_of(a, OP_LOAD, PAGE + 100, 0), 0x55667788,
              "growth keeps the image's pages");
    CHECK_INT(value_of(a, OP_GROW, 1, 0), 3, "it grows to the image's maximum of 4 pages");
    CHECK_INT((uint32_t)value_of(a, OP_GROW, 1, 0), UINT32_MAX,
              "growth past the image's maximum returns -1");

    /* Releasing the image leaves the memories made from it intact. */
    capsa__rt_image_release(&img);
    CHECK_INT(img.fd, -1, "a released image is empty");
    CHECK_INT(value_of(b, OP_LOAD, PAGE + 100, 0), 0x55667788,
              "after the release, a memory from the image still reads the image's data");
    CHECK_INT(value_of(a, OP_LOAD, SCRATCH, 0), 0xa0a0a0a0,
              "after the release, a memory keeps its own writes");
    wasm_rt_memory_t none;
    memset(&none, 0xff, sizeof(none));
    CHECK_INT(capsa__rt_memory_from_image(&none, &img), -1,
              "no memory can be made from a released image");
    CHECK(none.data == NULL && none.size == 0,
          "a failed memory_from_image leaves the memory empty");
    capsa__rt_image_release(&img);
    CHECK_INT(img.fd, -1, "releasing an image twice is harmless");
    trapper_free(src);
    trapper_free(a);
    trapper_free(b);
}

/* Host code inside a guest call writing guest memory, as WASI's fd_read does. */
typedef struct host_write {
    uint8_t *at;
    uint8_t value;
} host_write;

static void write_from_host(void *p)
{
    host_write *w = p;
    *w->at = w->value;
}

/* capsa__rt_memory_restore: a memory made from an image goes back to the image in
 * place, whatever was written where, by the guest or by host code in its calls;
 * grown memory is released; after the first restore, writes are tracked. */
TEST(image_restore)
{
    trapper *src = trapper_new(NULL), *a = trapper_new(NULL);
    CHECK(src && a, "two trapper instances are created");
    if (!src || !a) {
        trapper_free(src);
        trapper_free(a);
        return;
    }
    guest(src, OP_STORE, SCRATCH, 0x11223344, NULL);
    guest(src, OP_GROW, 1, 0, NULL);
    guest(src, OP_STORE, PAGE + 100, 0x55667788, NULL);
    capsa__rt_image img;
    CHECK_INT(capsa__rt_image_capture(&img, &src->inst.w2c_memory), 0, "a 2-page memory is captured");
    CHECK(img.view != NULL && memcmp(img.view, src->inst.w2c_memory.data, 2 * PAGE) == 0,
          "the image's read-only view holds the captured bytes");
    CHECK_INT(use_image(a, &img), 0, "a memory is made from the image");
    wasm_rt_memory_t *m = &a->inst.w2c_memory;
    capsa__rt_track track;
    memset(&track, 0, sizeof(track));

    /* First restore: the written pages are found by scanning. */
    guest_tracked(a, &track, OP_STORE, SCRATCH, 0xa0a0a0a0, NULL);
    guest_tracked(a, &track, OP_STORE, PAGE / 2, 5, NULL);
    CHECK_INT(value_of(a, OP_GROW, 2, 0), 2, "the memory grows to 4 pages");
    guest_tracked(a, &track, OP_STORE, 3 * PAGE + 8, 7, NULL);
    m->max_pages = 3;
    uintptr_t data = (uintptr_t)m->data;
    CHECK_INT(capsa__rt_memory_restore(m, &track, &img), 0, "the memory is restored");
    CHECK(memcmp(m->data, img.view, 2 * PAGE) == 0, "its bytes are the image's again");
    CHECK_INT(m->pages, 2, "its size is the image's again");
    CHECK_INT(m->max_pages, 4, "its maximum is the image's again");
    CHECK_INT((uintptr_t)m->data, data, "in place: the same reservation");
    CHECK_INT(guest(a, OP_LOAD, 3 * PAGE + 8, 0, NULL), WASM_RT_TRAP_OOB,
              "memory it had grown is out of bounds again");
    CHECK(range_has_perms(data + 2 * PAGE, data + CAPSA__RT_RESERVE, "---"),
          "everything after the image is inaccessible again");
    CHECK(track.armed, "the first restore arms the tracking");
    CHECK_INT(track.nlist, 2, "it noted the 2 host pages written");
    CHECK(range_has_perms(data + PAGE / 2 + 4096, data + PAGE + 4096, "r--"),
          "unwritten pages of the image are read-only");
    CHECK(range_has_perms(data + SCRATCH, data + SCRATCH + 4096, "rw"),
          "a written page stays writable (no fault on the next write)");
    CHECK_INT(value_of(a, OP_GROW, 1, 0), 2, "it grows again");
    CHECK_INT(value_of(a, OP_LOAD, 2 * PAGE + 8, 0), 0, "and the grown page reads zero");

    /* Tracked: guest and host writes to read-only pages are noted and undone. */
    uint32_t noted = track.nlist;
    CHECK_INT(guest_tracked(a, &track, OP_STORE, PAGE + 100, 0x0badf00d, NULL), 0,
              "a guest write to a read-only image page succeeds");
    CHECK_INT(value_of(a, OP_LOAD, PAGE + 100, 0), 0x0badf00d, "and the value is there");
    CHECK_INT(track.nlist, noted + 1, "the page is noted");
    host_write w = { m->data + PAGE + 3 * 4096, 0x5a };
    CHECK_INT(capsa__rt_call(m, &track, &a->inst.capsa_fuel, NULL, write_from_host, &w, NULL), 0,
              "host code in a guest call writes to a read-only image page");
    CHECK_INT(track.nlist, noted + 2, "that page is noted too");
    CHECK_INT(guest_tracked(a, &track, OP_STORE, 2 * PAGE + 8, 3, NULL), 0,
              "a write past the image is not tracked");
    CHECK_INT(track.nlist, noted + 2, "and not noted");
    CHECK_INT(guest_tracked(a, &track, OP_STORE, 5 * PAGE, 1, NULL), WASM_RT_TRAP_OOB,
              "a store out of bounds still traps with tracking armed");
    CHECK_INT(capsa__rt_memory_restore(m, &track, &img), 0, "restored again");
    CHECK(memcmp(m->data, img.view, 2 * PAGE) == 0, "every tracked write is undone");
    CHECK_INT(m->pages, 2, "the growth is undone");

    /* Many rounds of writes at random places, each undone exactly. */
    uint32_t seed = 12345;
    int exact = 0;
    for (int round = 0; round < 200; round++) {
        for (int k = 0; k < 1 + round % 9; k++) {
            seed = seed * 1103515245u + 12345u;
            uint32_t at = (seed >> 8) % (2 * PAGE - 4);
            guest_tracked(a, &track, k % 2 ? OP_STORE8 : OP_STORE, at, seed, NULL);
        }
        exact += capsa__rt_memory_restore(m, &track, &img) == 0 &&
                 memcmp(m->data, img.view, 2 * PAGE) == 0;
    }
    CHECK_INT(exact, 200, "200 rounds of random writes are each undone exactly");

    /* A memory made from another image is refused. */
    capsa__rt_track other;
    memset(&other, 0, sizeof(other));
    trapper *one = trapper_new(NULL);
    capsa__rt_image small;
    int captured = one && capsa__rt_image_capture(&small, &one->inst.w2c_memory) == 0;
    CHECK(captured, "a 1-page image is captured");
    if (captured) {
        CHECK_INT(capsa__rt_memory_restore(&one->inst.w2c_memory, &other, &img), -1,
                  "a memory smaller than the image cannot be restored to it");
        capsa__rt_image_release(&small);
    }
    trapper_free(one);
    capsa__rt_track_free(&other);
    capsa__rt_track_free(&track);
    CHECK(track.written == NULL && !track.armed, "freed tracking is empty");
    capsa__rt_image_release(&img);
    CHECK(img.view == NULL, "a released image has no view");
    trapper_free(src);
    trapper_free(a);
}

/* In a child: fills the process's map count to its limit, then writes to a
 * read-only page of an armed memory, which needs the mapping split. The tracking
 * must give up (the whole image writable again), the write land, and the next
 * restore be exact all the same. Exit code: 0, or the number of the check that
 * failed. */
typedef struct map_limit {
    trapper *t;
    capsa__rt_track *track;
    const capsa__rt_image *img;
} map_limit;

static int child_map_limit(void *arg)
{
    map_limit *ml = arg;
    wasm_rt_memory_t *m = &ml->t->inst.w2c_memory;
    if (!ml->track->armed)
        return 1;
    /* Single pages of alternating protection never merge: each is a mapping. */
    long made = 0;
    for (;; made++) {
        int prot = made % 2 ? PROT_READ : PROT_NONE;
        if (mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
            break;
        if (made > 10000000)
            return 2;
    }
    if (made < 100)
        return 3;
    if (guest_tracked(ml->t, ml->track, OP_STORE, PAGE + 5 * 4096 + 12, 0x77, NULL) != 0)
        return 4;
    if (ml->track->armed)
        return 5; /* the split could not have succeeded at the limit */
    uint64_t v = 0;
    if (guest(ml->t, OP_LOAD, PAGE + 5 * 4096 + 12, 0, &v) != 0 || v != 0x77)
        return 6;
    if (guest_tracked(ml->t, ml->track, OP_STORE, 8 * 4096, 0x99, NULL) != 0)
        return 7;
    if (capsa__rt_memory_restore(m, ml->track, ml->img) != 0)
        return 8;
    if (memcmp(m->data, ml->img->view, 2 * PAGE) != 0)
        return 9;
    return 0;
}

/* In a child forked after the parent wrote one page of a memory not yet
 * restored: the child writes another and restores. The scan must read the
 * child's page tables, not the parent's. Exit code 0, or which check failed. */
static int child_fork_scan(void *arg)
{
    map_limit *ml = arg;
    wasm_rt_memory_t *m = &ml->t->inst.w2c_memory;
    if (ml->track->armed || guest(ml->t, OP_STORE, PAGE + 4096, 0x42, NULL) != 0)
        return 1;
    if (capsa__rt_memory_restore(m, ml->track, ml->img) != 0)
        return 2;
    return memcmp(m->data, ml->img->view, 2 * PAGE) == 0 ? 0 : 3;
}

/* Tracking and faults that are not its business: a host write, during a call of
 * one memory, to another memory's read-only image page stays fatal. */
typedef struct cross_write {
    trapper *a;
    capsa__rt_track *track;
    uint8_t *other;
} cross_write;

static void write_other(void *p)
{
    cross_write *c = p;
    *c->other = 1;
}

static int child_cross_write(void *arg)
{
    cross_write *c = arg;
    capsa__rt_call(&c->a->inst.w2c_memory, c->track, &c->a->inst.capsa_fuel, NULL, write_other, c,
                   NULL);
    return 0;
}

/* Whether the host page at p is a private copy (present, not a page of a file). */
static int page_is_private(const void *p)
{
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    uint64_t e = 0;
    int ok = fd >= 0 && pread(fd, &e, sizeof(e), (off_t)((uintptr_t)p / 4096 * sizeof(e))) ==
                            (ssize_t)sizeof(e);
    if (fd >= 0)
        close(fd);
    return ok && (e >> 63 & 1) && !(e >> 61 & 1);
}

/* Whether host page p is in the runs hot learned. */
static int hot_has(const capsa__rt_hot *hot, uint32_t p)
{
    for (uint32_t i = 0; i < hot->nruns; i++)
        if (p >= hot->at[i] && p - hot->at[i] < hot->len[i])
            return 1;
    return 0;
}

/* capsa__rt_image_learn: the pages a memory made from an image wrote are learned
 * from it, and every later memory made from the image starts with its own copies
 * of them, the image's bytes, which no other memory sees written; a memory that
 * wrote more than CAPSA__RT_HOT_MAX pages teaches nothing, and after 8 such the
 * image stops looking. */
TEST(hot_pages)
{
    trapper *src = trapper_new(NULL), *a = trapper_new(NULL), *b = trapper_new(NULL),
            *c = trapper_new(NULL);
    CHECK(src && a && b && c, "four trapper instances are created");
    if (!src || !a || !b || !c) {
        trapper_free(src);
        trapper_free(a);
        trapper_free(b);
        trapper_free(c);
        return;
    }
    guest(src, OP_STORE, SCRATCH, 0x11223344, NULL);
    guest(src, OP_GROW, 1, 0, NULL);
    guest(src, OP_STORE, PAGE + 5 * 4096 + 4, 0x99, NULL);
    capsa__rt_image img;
    CHECK_INT(capsa__rt_image_capture(&img, &src->inst.w2c_memory), 0, "a 2-page memory is captured");
    CHECK_INT(img.hot.state, 0, "a new image has learned nothing");
    CHECK_INT(use_image(a, &img), 0, "a memory is made from it");
    guest(a, OP_STORE, PAGE + 8, 7, NULL);
    guest(a, OP_STORE, PAGE + 5 * 4096 + 4, 9, NULL);
    capsa__rt_image_learn(&img, &a->inst.w2c_memory);
    CHECK_INT(img.hot.state, 2, "the image learned from the memory");
    CHECK(hot_has(&img.hot, PAGE / 4096) && hot_has(&img.hot, PAGE / 4096 + 5),
          "the two pages it wrote are learned");
    CHECK(!hot_has(&img.hot, PAGE / 4096 + 2), "a page it did not write is not");

    CHECK_INT(use_image(b, &img), 0, "a later memory is made from the image");
    uint8_t *bd = b->inst.w2c_memory.data;
    CHECK(page_is_private(bd + PAGE) && page_is_private(bd + PAGE + 5 * 4096),
          "it has its own copies of the learned pages before any write");
    CHECK(!page_is_private(bd + PAGE + 2 * 4096), "but not of the others");
    CHECK(memcmp(bd, img.view, 2 * PAGE) == 0, "its bytes are the image's");
    CHECK_INT(value_of(b, OP_LOAD, PAGE + 5 * 4096 + 4, 0), 0x99, "the image's value, not a's");
    guest(b, OP_STORE, PAGE + 5 * 4096 + 4, 0x1234, NULL);
    CHECK_INT(value_of(b, OP_LOAD, PAGE + 5 * 4096 + 4, 0), 0x1234, "a write to such a page lands");
    CHECK_INT(use_image(c, &img), 0, "a third memory is made");
    CHECK_INT(value_of(c, OP_LOAD, PAGE + 5 * 4096 + 4, 0), 0x99, "which does not see b's write");
    CHECK_INT(value_of(a, OP_LOAD, PAGE + 5 * 4096 + 4, 0), 9, "nor does a, nor b a's");
    CHECK(memcmp(img.view + PAGE + 5 * 4096, src->inst.w2c_memory.data + PAGE + 5 * 4096, 4096) == 0,
          "the image itself is unchanged");
    uint32_t runs = img.hot.nruns;
    guest(c, OP_STORE, PAGE + 9 * 4096, 1, NULL);
    capsa__rt_image_learn(&img, &c->inst.w2c_memory);
    CHECK(img.hot.nruns == runs && !hot_has(&img.hot, PAGE / 4096 + 9), "it learns once");
    capsa__rt_image_release(&img);

    /* A memory that wrote too many pages teaches nothing; after 8 such, the image
       looks at one memory in 64. */
    CHECK_INT(value_of(src, OP_GROW, 2, 0), 2, "the memory grows to 4 pages");
    capsa__rt_image big;
    CHECK_INT(capsa__rt_image_capture(&big, &src->inst.w2c_memory), 0, "a 4-page memory is captured");
    int learned = 0;
    for (int i = 0; i < 9; i++) {
        CHECK_INT(use_image(a, &big), 0, "a memory is made from it");
        for (uint32_t p = 0; p <= CAPSA__RT_HOT_MAX; p++)
            guest(a, OP_STORE, p * 4096 + 16, p + 1, NULL);
        capsa__rt_image_learn(&big, &a->inst.w2c_memory);
        learned += big.hot.state == 2;
    }
    CHECK_INT(learned, 0, "from a memory that wrote one page too many, nothing is learned");
    CHECK_INT(use_image(b, &big), 0, "a memory is made from it");
    CHECK(!page_is_private(b->inst.w2c_memory.data + 4096), "with no page of its own");
    int offered = 9, first = 0;
    while (big.hot.state != 2 && offered < 200) {
        if (use_image(a, &big) != 0)
            break;
        guest(a, OP_STORE, 7 * 4096, 1, NULL);
        capsa__rt_image_learn(&big, &a->inst.w2c_memory);
        offered++;
        first = big.hot.state == 2 ? offered : 0;
    }
    CHECK_INT(first, 65, "a small memory is learned from when the 65th memory is looked at");
    CHECK(hot_has(&big.hot, 7) && big.hot.nruns == 1, "its one page");
    capsa__rt_image_release(&big);
    trapper_free(src);
    trapper_free(a);
    trapper_free(b);
    trapper_free(c);
}

TEST(image_restore_limits)
{
    trapper *src = trapper_new(NULL), *a = trapper_new(NULL), *b = trapper_new(NULL);
    capsa__rt_image img;
    int ready = src && a && b && guest(src, OP_GROW, 1, 0, NULL) == 0 &&
                capsa__rt_image_capture(&img, &src->inst.w2c_memory) == 0;
    CHECK(ready, "an image of 2 pages and two memories to restore");
    if (!ready) {
        trapper_free(src);
        trapper_free(a);
        trapper_free(b);
        return;
    }
    capsa__rt_track ta, tb;
    memset(&ta, 0, sizeof(ta));
    memset(&tb, 0, sizeof(tb));
    int armed = use_image(a, &img) == 0 && use_image(b, &img) == 0 &&
                guest(a, OP_STORE, SCRATCH, 1, NULL) == 0 &&
                capsa__rt_memory_restore(&a->inst.w2c_memory, &ta, &img) == 0 &&
                capsa__rt_memory_restore(&b->inst.w2c_memory, &tb, &img) == 0 && ta.armed &&
                tb.armed;
    CHECK(armed, "both memories are restored once and their tracking armed");
    trapper *c = trapper_new(NULL);
    capsa__rt_track tc;
    memset(&tc, 0, sizeof(tc));
    if (c && use_image(c, &img) == 0 && guest(c, OP_STORE, SCRATCH, 3, NULL) == 0) {
        map_limit fs = { c, &tc, &img };
        CHECK(exited_with(in_child(child_fork_scan, &fs), 0),
              "in a forked child, the first restore finds the child's written pages");
        CHECK_INT(capsa__rt_memory_restore(&c->inst.w2c_memory, &tc, &img), 0,
                  "and in the parent its own");
        CHECK(memcmp(c->inst.w2c_memory.data, img.view, 2 * PAGE) == 0, "exactly");
    } else {
        CHECK(0, "a third memory from the image, written once");
    }
    capsa__rt_track_free(&tc);
    trapper_free(c);
    if (armed) {
        map_limit ml = { a, &ta, &img };
        int status = in_child(child_map_limit, &ml);
        CHECK(exited_with(status, 0),
              "at the process's map count limit, tracking gives up and restores stay exact");
        if (!exited_with(status, 0) && status != -1 && WIFEXITED(status))
            fprintf(stderr, "  child_map_limit failed its check %d\n", WEXITSTATUS(status));
        cross_write cw = { a, &ta, b->inst.w2c_memory.data + PAGE + 4096 };
        CHECK(killed_by_segv(in_child(child_cross_write, &cw)),
              "a host write to another memory's read-only image page kills with SIGSEGV");
        CHECK_INT(guest_tracked(b, &tb, OP_STORE, PAGE + 4096, 2, NULL), 0,
                  "while that memory's own guest writes there through its tracking");
    }
    capsa__rt_track_free(&ta);
    capsa__rt_track_free(&tb);
    capsa__rt_image_release(&img);
    trapper_free(src);
    trapper_free(a);
    trapper_free(b);
}

/* The number of mappings of /proc/self/maps that overlap [lo, hi). */
static int mappings_in(uintptr_t lo, uintptr_t hi)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned long start, end;
        if (sscanf(line, "%lx-%lx", &start, &end) == 2 && start < hi && end > lo)
            n++;
    }
    fclose(f);
    return n;
}

/* Tracking's mapping budget: a memory that would split its image into more pieces
 * than allowed is not tracked (or stops being tracked), and its restores stay
 * exact all the same; pieces come back when tracking ends. */
TEST(image_restore_budget)
{
    trapper *src = trapper_new(NULL), *a = trapper_new(NULL), *b = trapper_new(NULL);
    capsa__rt_image img;
    int ready = src && a && b && guest(src, OP_GROW, 1, 0, NULL) == 0 &&
                capsa__rt_image_capture(&img, &src->inst.w2c_memory) == 0 &&
                use_image(a, &img) == 0 && use_image(b, &img) == 0;
    CHECK(ready, "an image of 2 pages (32 host pages) and two memories from it");
    if (!ready) {
        trapper_free(src);
        trapper_free(a);
        trapper_free(b);
        return;
    }
    wasm_rt_memory_t *ma = &a->inst.w2c_memory, *mb = &b->inst.w2c_memory;
    uintptr_t da = (uintptr_t)ma->data;
    capsa__rt_track ta, tb;
    memset(&ta, 0, sizeof(ta));
    memset(&tb, 0, sizeof(tb));
    uint32_t old = capsa__rt_track_budget(4, 1000);

    /* Three pages apart make four read-only runs: eight pieces, over four. */
    for (uint32_t i = 0; i < 3; i++)
        guest(a, OP_STORE, 4096 + i * 8 * 4096, 1, NULL);
    CHECK_INT(capsa__rt_memory_restore(ma, &ta, &img), 0, "a restore over the budget works");
    CHECK(!ta.armed && ta.pieces == 0, "but leaves the memory untracked, holding nothing");
    CHECK(range_has_perms(da, da + 2 * PAGE, "rw"), "its image stays writable");
    guest_tracked(a, &ta, OP_STORE, 20 * 4096, 2, NULL);
    CHECK_INT(capsa__rt_memory_restore(ma, &ta, &img), 0, "restored again, by scanning");
    CHECK(memcmp(ma->data, img.view, 2 * PAGE) == 0, "exactly");

    /* Written pages at the start: one run, two pieces; the first new page takes
       the last two; the next one is over: tracking stops. */
    capsa__rt_track_budget(4, 1000);
    capsa__rt_track_free(&ta);
    use_image(a, &img);
    ma = &a->inst.w2c_memory;
    da = (uintptr_t)ma->data;
    guest(a, OP_STORE, 0, 1, NULL);
    CHECK_INT(capsa__rt_memory_restore(ma, &ta, &img), 0, "a memory with one run to protect");
    CHECK(ta.armed && ta.pieces == 2, "is tracked, holding two pieces");
    CHECK(mappings_in(da, da + 2 * PAGE) <= 2, "its image is at most two mappings");
    CHECK_INT(guest_tracked(a, &ta, OP_STORE, 10 * 4096, 3, NULL), 0, "a write within the budget");
    CHECK(ta.armed && ta.pieces == 4 && ta.nlist == 2, "is noted and takes two pieces");
    CHECK(mappings_in(da, da + 2 * PAGE) <= 4, "its image is at most four mappings");
    CHECK_INT(guest_tracked(a, &ta, OP_STORE, 20 * 4096, 4, NULL), 0, "a write over the budget lands");
    CHECK(!ta.armed && ta.pieces == 0, "and stops the tracking, giving its pieces back");
    CHECK_INT(mappings_in(da, da + 2 * PAGE), 1, "the image is one mapping again");
    CHECK_INT(value_of(a, OP_LOAD, 20 * 4096, 0), 4, "the write is there");
    CHECK_INT(capsa__rt_memory_restore(ma, &ta, &img), 0, "the next restore scans");
    CHECK(memcmp(ma->data, img.view, 2 * PAGE) == 0, "and is exact");

    /* The process's budget is shared: what one memory holds, another cannot. */
    capsa__rt_track_free(&ta);
    capsa__rt_track_budget(256, 2);
    use_image(a, &img);
    guest(a, OP_STORE, 0, 1, NULL);
    guest(b, OP_STORE, 0, 1, NULL);
    capsa__rt_memory_restore(&a->inst.w2c_memory, &ta, &img);
    capsa__rt_memory_restore(mb, &tb, &img);
    CHECK(ta.armed && !tb.armed, "of two memories, only the first fits a process budget of two");
    capsa__rt_track_free(&ta);
    guest(b, OP_STORE, 0, 1, NULL);
    capsa__rt_memory_restore(mb, &tb, &img);
    CHECK(tb.armed, "once the first gives its pieces back, the second is tracked");
    CHECK(memcmp(mb->data, img.view, 2 * PAGE) == 0, "and restored exactly");

    capsa__rt_track_free(&tb);
    capsa__rt_track_budget(256, old);
    capsa__rt_image_release(&img);
    trapper_free(src);
    trapper_free(a);
    trapper_free(b);
}

TEST(image_churn)
{
    trapper *t = trapper_new(NULL);
    CHECK(t != NULL, "a trapper instance is created");
    if (!t)
        return;
    guest(t, OP_STORE, SCRATCH, 0x600d, NULL);
    capsa__rt_image img;
    int captured = capsa__rt_image_capture(&img, &t->inst.w2c_memory) == 0;
    CHECK(captured, "the instance's memory is captured");
    if (!captured) {
        trapper_free(t);
        return;
    }
    int fds = open_fds();
    uint64_t before = vm_size();
    int failed = 0, wrong = 0;
    for (int i = 0; i < CHURN; i++) {
        if (use_image(t, &img) != 0) {
            failed++;
            continue;
        }
        wrong += value_of(t, OP_LOAD, SCRATCH, 0) != 0x600d;
        guest(t, OP_STORE, SCRATCH, (uint32_t)i, NULL);
        wrong += guest(t, OP_LOAD, PAGE, 0, NULL) != WASM_RT_TRAP_OOB;
    }
    uint64_t after = vm_size();
    CHECK_INT(failed, 0, "2000 memories are made from one image, one after another");
    CHECK_INT(wrong, 0, "each starts from the image, unchanged by the previous one's write");
    CHECK(after < before + GIB,
          "after 2000 memories from the image the address space grew by far less than 8 GiB");
    CHECK_INT(open_fds(), fds, "memories from the image hold no file descriptors of their own");
    capsa__rt_image_release(&img);
    trapper_free(t);
}

/* ---- address space over many instances ----------------------------------------- */

TEST(trapper_churn)
{
    uint64_t before = vm_size();
    CHECK(before > 0, "VmSize is readable from /proc/self/status");
    /* The measure sees reservations: a few live instances add 8 GiB each. */
    trapper *live[4];
    int made = 0;
    for (int i = 0; i < 4; i++)
        made += (live[i] = trapper_new(NULL)) != NULL;
    CHECK_INT(made, 4, "four trapper instances live at once");
    CHECK(vm_size() >= before + 4 * CAPSA__RT_RESERVE,
          "four live instances add at least 4 x 8 GiB of address space");
    for (int i = 0; i < 4; i++)
        trapper_free(live[i]);
    CHECK(vm_size() < before + GIB, "freeing them gives the address space back");

    int failed = 0, wrong = 0;
    for (int i = 0; i < CHURN; i++) {
        trapper *t = trapper_new(NULL);
        if (!t) {
            failed++;
            continue;
        }
        wrong += guest(t, OP_STORE, PAGE + (uint32_t)i, 1, NULL) != WASM_RT_TRAP_OOB;
        wrong += value_of(t, OP_SUM, (uint32_t)i, 0) != (uint64_t)i * (i - 1) / 2;
        trapper_free(t);
    }
    uint64_t after = vm_size();
    CHECK_INT(failed, 0, "2000 trapper instances are created one after another");
    CHECK_INT(wrong, 0, "each of them traps on an OOB store, then sums correctly");
    CHECK(after < before + GIB,
          "after 2000 instances the address space grew by far less than one reservation");
    if (after >= before + GIB)
        fprintf(stderr, "  VmSize before %llu MiB, after %llu MiB\n",
                (unsigned long long)(before >> 20), (unsigned long long)(after >> 20));
}

static int run_js(capsa_sandbox *sb, const char *code, const char **value)
{
    const capsa_result *r = NULL;
    int rc = capsa_run(sb, code, strlen(code), NULL, &r);
    if (value)
        *value = r ? capsa_result_value(r) : NULL;
    return rc;
}

TEST(sandbox_churn)
{
    capsa_engine *e = NULL;
    CHECK_INT(capsa_engine_new(NULL, &e), CAPSA_OK, "an engine is created");
    if (!e)
        return;
    capsa_sandbox *sb = NULL;
    /* One sandbox first, so that one-time setup is not counted as growth. */
    CHECK_INT(capsa_sandbox_new(e, NULL, &sb), CAPSA_OK, "a first sandbox is created");
    capsa_sandbox_free(sb);

    uint64_t before = vm_size();
    capsa_sandbox *two[2] = { NULL, NULL };
    capsa_sandbox_new(e, NULL, &two[0]);
    capsa_sandbox_new(e, NULL, &two[1]);
    CHECK(two[0] && two[1], "two sandboxes live at once");
    CHECK(vm_size() >= before + 2 * CAPSA__RT_RESERVE,
          "two live sandboxes add at least 2 x 8 GiB of address space");
    capsa_sandbox_free(two[0]);
    capsa_sandbox_free(two[1]);

    int failed = 0, wrong = 0;
    for (int i = 0; i < CHURN; i++) {
        sb = NULL;
        if (capsa_sandbox_new(e, NULL, &sb) != CAPSA_OK || !sb) {
            failed++;
            continue;
        }
        if (i == 0 || i == CHURN - 1) {
            const char *v = NULL;
            wrong += run_js(sb, "return 6 * 7", &v) != CAPSA_OK || !v || strcmp(v, "42") != 0;
        }
        capsa_sandbox_free(sb);
    }
    uint64_t after = vm_size();
    CHECK_INT(failed, 0, "2000 sandboxes are created and freed one after another");
    CHECK_INT(wrong, 0, "the first and the last of them run JS");
    CHECK(after < before + GIB,
          "after 2000 sandboxes the address space grew by far less than one reservation");
    if (after >= before + GIB)
        fprintf(stderr, "  VmSize before %llu MiB, after %llu MiB\n",
                (unsigned long long)(before >> 20), (unsigned long long)(after >> 20));
    capsa_engine_free(e);
}

/* ---- threads ------------------------------------------------------------------------ */

#define THREADS 8
#define ITERATIONS 300

typedef struct worker {
    int id;
    capsa_engine *engine;
    const capsa__rt_image *image; /* odd workers run on a memory made from it */
    pthread_barrier_t *start;
    int setup_failed;
    int normal_ok, normal_wrong;  /* normal calls */
    int traps_ok, traps_wrong;    /* calls that had to trap with a given code */
    int memory_wrong;             /* the instance's own word was not its own */
    int js_ok, js_wrong, js_threw_ok;
    char js_error[160];
} worker;

static void *worker_main(void *p)
{
    worker *w = p;
    if (capsa__rt_thread_prepare() != 0) {
        w->setup_failed = 1;
        pthread_barrier_wait(w->start);
        return NULL;
    }
    trapper *t = trapper_new(NULL);
    capsa_sandbox *sb = NULL;
    if (!t || capsa_sandbox_new(w->engine, NULL, &sb) != CAPSA_OK)
        w->setup_failed = 1;
    else if (w->image &&
             (use_image(t, w->image) != 0 || value_of(t, OP_LOAD, SCRATCH, 0) != 0x1ae))
        w->setup_failed = 1;
    pthread_barrier_wait(w->start);
    if (w->setup_failed) {
        trapper_free(t);
        capsa_sandbox_free(sb);
        return NULL;
    }
    uint32_t mark = 0x1000u * (uint32_t)(w->id + 1);
    for (int i = 0; i < ITERATIONS; i++) {
        uint32_t mine = mark + (uint32_t)i;
        guest(t, OP_STORE, SCRATCH, mine, NULL);
        uint32_t n = (uint32_t)(i + w->id * 7);
        if (value_of(t, OP_SUM, n, 0) == (uint64_t)n * (n - 1) / 2 % 0x100000000ull)
            w->normal_ok++;
        else
            w->normal_wrong++;
        /* Some iterations trap on purpose, each thread at its own rhythm. */
        int want = 0, got = 0;
        switch ((i + w->id) % 5) {
        case 0:
            want = WASM_RT_TRAP_OOB;
            got = guest(t, OP_LOAD, PAGE + (uint32_t)i, 0, NULL);
            break;
        case 1:
            want = WASM_RT_TRAP_DIV_BY_ZERO;
            got = guest(t, OP_DIV_S, mine, 0, NULL);
            break;
        case 2:
            want = WASM_RT_TRAP_CALL_INDIRECT;
            got = guest(t, OP_CALL_SLOT, 2, 0, NULL);
            break;
        case 3:
            want = WASM_RT_TRAP_UNREACHABLE;
            got = guest(t, OP_UNREACHABLE, 0, 0, NULL);
            break;
        default:
            break;
        }
        if (i % 100 == w->id) {
            want = WASM_RT_TRAP_EXHAUSTION;
            got = guest(t, OP_RECURSE, 0, 0, NULL);
        }
        if (want && got == want)
            w->traps_ok++;
        else if (want)
            w->traps_wrong++;
        if (value_of(t, OP_LOAD, SCRATCH, 0) != mine)
            w->memory_wrong++;
        if (i % 60 == 0) {
            /* The thread's sandbox: a sum that depends on the thread, then a throw. */
            char code[128], want_v[32];
            unsigned long long lim = 100000ull + (unsigned long long)w->id;
            snprintf(code, sizeof(code),
                     "{ let s = 0; for (let i = 0; i < %llu; i++) s += i; return s; }", lim);
            snprintf(want_v, sizeof(want_v), "%llu", lim * (lim - 1) / 2);
            const char *v = NULL;
            int rc = run_js(sb, code, &v);
            if (rc == CAPSA_OK && v && strcmp(v, want_v) == 0) {
                w->js_ok++;
            } else {
                w->js_wrong++;
                snprintf(w->js_error, sizeof(w->js_error), "rc %d value %s: %s", rc,
                         v ? v : "(null)", capsa_errmsg(sb));
            }
            snprintf(code, sizeof(code), "throw new Error('thread %d')", w->id);
            const capsa_result *r = NULL;
            rc = capsa_run(sb, code, strlen(code), NULL, &r);
            char want_msg[32];
            snprintf(want_msg, sizeof(want_msg), "thread %d", w->id);
            const char *msg = r ? capsa_result_error_message(r) : NULL;
            if (rc == CAPSA_ESCRIPT && msg && strcmp(msg, want_msg) == 0)
                w->js_threw_ok++;
            else
                w->js_wrong++;
        }
    }
    trapper_free(t);
    capsa_sandbox_free(sb);
    return NULL;
}

TEST(threads)
{
    capsa_engine *e = NULL;
    CHECK_INT(capsa_engine_new(NULL, &e), CAPSA_OK, "an engine is created");
    if (!e)
        return;
    /* Odd threads share one image: their memories start equal and must diverge. */
    trapper *src = trapper_new(NULL);
    capsa__rt_image img = { .fd = -1 };
    int have_image = src && guest(src, OP_STORE, SCRATCH, 0x1ae, NULL) == 0 &&
                     capsa__rt_image_capture(&img, &src->inst.w2c_memory) == 0;
    CHECK(have_image, "an image for the odd threads is captured");
    trapper_free(src);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, THREADS);
    worker w[THREADS];
    pthread_t th[THREADS];
    int started = 0;
    for (int i = 0; i < THREADS; i++) {
        memset(&w[i], 0, sizeof(w[i]));
        w[i].id = i;
        w[i].engine = e;
        w[i].image = i % 2 && have_image ? &img : NULL;
        w[i].start = &start;
        started += pthread_create(&th[i], NULL, worker_main, &w[i]) == 0;
    }
    CHECK_INT(started, THREADS, "8 threads start");
    if (started != THREADS) {
        /* The barrier would never open: nothing sensible is left to test. */
        test_failed++;
        exit(test_summary("test_rt"));
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);

    char what[200];
    for (int i = 0; i < THREADS; i++) {
        snprintf(what, sizeof(what), "thread %d: its instance and sandbox are created", i);
        CHECK_INT(w[i].setup_failed, 0, what);
        snprintf(what, sizeof(what), "thread %d: every normal call gives its own sum", i);
        CHECK_INT(w[i].normal_ok, ITERATIONS, what);
        snprintf(what, sizeof(what), "thread %d: every deliberate trap has its code", i);
        CHECK_INT(w[i].traps_wrong, 0, what);
        snprintf(what, sizeof(what), "thread %d: deliberate traps happened", i);
        CHECK(w[i].traps_ok >= ITERATIONS * 4 / 5, what);
        snprintf(what, sizeof(what), "thread %d: its memory held its own values throughout", i);
        CHECK_INT(w[i].memory_wrong, 0, what);
        snprintf(what, sizeof(what), "thread %d: its sandbox's JS sums are its own", i);
        CHECK_INT(w[i].js_ok, ITERATIONS / 60, what);
        snprintf(what, sizeof(what), "thread %d: its sandbox's throws carry its own message", i);
        CHECK_INT(w[i].js_threw_ok, ITERATIONS / 60, what);
        if (w[i].js_error[0])
            fprintf(stderr, "  thread %d: %s\n", i, w[i].js_error);
    }
    capsa__rt_image_release(&img);
    capsa_engine_free(e);
}

/* A thread's guest stack goes when the thread ends. */
static void *short_thread(void *p)
{
    int *ok = p;
    if (capsa__rt_thread_prepare() != 0)
        return NULL;
    trapper *t = trapper_new(NULL);
    *ok = t && value_of(t, OP_DEEP, 10000, 0) == 10000;
    trapper_free(t);
    return NULL;
}

TEST(thread_exit_releases_stacks)
{
    /* One thread first, so that the C library's cache of thread stacks is warm. */
    pthread_t th;
    int ok = 0, all_ok = 1;
    if (pthread_create(&th, NULL, short_thread, &ok) == 0)
        pthread_join(th, NULL);
    uint64_t before = vm_size();
    for (int i = 0; i < 24; i++) {
        ok = 0;
        if (pthread_create(&th, NULL, short_thread, &ok) != 0) {
            all_ok = 0;
            break;
        }
        pthread_join(th, NULL);
        all_ok &= ok;
    }
    uint64_t after = vm_size();
    CHECK(all_ok, "24 short-lived threads each run guest code");
    CHECK(after < before + 256ull * 1024 * 1024,
          "24 ended threads left less than 256 MiB of address space (each guest stack "
          "is 64 MiB)");
}

/* ---- stacks ---------------------------------------------------------------------------- */

typedef struct where {
    const wasm_rt_memory_t *memory;
    int64_t *fuel;
    uintptr_t outer, inner;
} where;

static void note_inner(void *p)
{
    volatile char here = 0;
    ((where *)p)->inner = (uintptr_t)&here;
}

static void note_outer(void *p)
{
    volatile char here = 0;
    where *w = p;
    w->outer = (uintptr_t)&here;
    /* A host function calling back into the guest stays on the same guest stack. */
    capsa__rt_call(w->memory, NULL, w->fuel, NULL, note_inner, w, NULL);
}

/* Guest code runs on a stack of its own, not the calling thread's. */
TEST(guest_stack_is_separate)
{
    pthread_attr_t attr;
    void *lo = NULL;
    size_t size = 0;
    int known = pthread_getattr_np(pthread_self(), &attr) == 0;
    if (known) {
        known = pthread_attr_getstack(&attr, &lo, &size) == 0;
        pthread_attr_destroy(&attr);
    }
    CHECK(known, "the main thread's stack bounds are known");
    trapper *t = trapper_new(NULL);
    CHECK(t != NULL, "a trapper instance is created");
    if (!t)
        return;
    where w = { &t->inst.w2c_memory, &t->inst.capsa_fuel, 0, 0 };
    CHECK_INT(capsa__rt_call(&t->inst.w2c_memory, NULL, &t->inst.capsa_fuel, NULL, note_outer, &w, NULL), 0,
              "host code runs under capsa__rt_call");
    trapper_free(t);
    uintptr_t l = (uintptr_t)lo, h = l + size;
    volatile char host = 0;
    CHECK((uintptr_t)&host >= l && (uintptr_t)&host < h,
          "control: a host local lies in the thread's stack bounds");
    CHECK(w.outer && !(w.outer >= l && w.outer < h),
          "a local of code run by capsa__rt_call lies outside the thread's stack");
    CHECK(w.inner && w.inner < w.outer && w.outer - w.inner < (1u << 20),
          "a nested call runs further down the same guest stack");
}

typedef struct own_alt {
    void *buf;
    int installed, prepared, kept, trap, sum_ok;
} own_alt;

static void *own_alt_main(void *p)
{
    own_alt *o = p;
    stack_t ss = { .ss_sp = o->buf, .ss_size = 128 * 1024, .ss_flags = 0 };
    o->installed = sigaltstack(&ss, NULL) == 0;
    o->prepared = capsa__rt_thread_prepare() == 0;
    stack_t cur;
    o->kept = sigaltstack(NULL, &cur) == 0 && cur.ss_sp == o->buf && !(cur.ss_flags & SS_DISABLE);
    trapper *t = trapper_new(NULL);
    if (t) {
        o->trap = guest(t, OP_LOAD, PAGE, 0, NULL);
        o->sum_ok = value_of(t, OP_SUM, 10, 0) == 45;
    }
    trapper_free(t);
    return NULL;
}

/* A thread that brought its own alternate signal stack keeps it, and the runtime
 * does not free it when the thread ends (the owner does, below). */
TEST(own_alt_stack_kept)
{
    own_alt o;
    memset(&o, 0, sizeof(o));
    o.buf = malloc(128 * 1024);
    CHECK(o.buf != NULL, "an alternate stack buffer is allocated");
    if (!o.buf)
        return;
    pthread_t th;
    int rc = pthread_create(&th, NULL, own_alt_main, &o);
    CHECK_INT(rc, 0, "a thread starts");
    if (rc == 0)
        pthread_join(th, NULL);
    CHECK(o.installed, "the thread installs its own alternate signal stack");
    CHECK(o.prepared, "the thread is prepared for guest code");
    CHECK(o.kept, "preparing keeps the thread's own alternate signal stack");
    CHECK_INT(o.trap, WASM_RT_TRAP_OOB, "a guest fault is a trap on the thread's own signal stack");
    CHECK(o.sum_ok, "the thread calls normally after the trap");
    /* Were the buffer freed at thread exit, this would be a double free. */
    free(o.buf);
}

/* ---- a small host stack ------------------------------------------------------------ */

typedef struct small_stack {
    int prepared, created;
    uint64_t deep, sum;
    int exhaustion;
    int js_rc;
    char js_value[32];
} small_stack;

static void *small_stack_main(void *p)
{
    small_stack *s = p;
    s->prepared = capsa__rt_thread_prepare() == 0;
    trapper *t = trapper_new(NULL);
    s->created = t != NULL;
    if (t) {
        /* 200000 levels need megabytes of stack: far more than the thread has. */
        s->deep = value_of(t, OP_DEEP, 200000, 0);
        s->exhaustion = guest(t, OP_RECURSE, 0, 0, NULL);
        s->sum = value_of(t, OP_SUM, 1000, 0);
    }
    trapper_free(t);
    capsa_engine *e = NULL;
    capsa_sandbox *sb = NULL;
    s->js_rc = -1;
    if (capsa_engine_new(NULL, &e) == CAPSA_OK && capsa_sandbox_new(e, NULL, &sb) == CAPSA_OK) {
        const char *v = NULL;
        s->js_rc = run_js(sb, "function f(n) { return n ? f(n - 1) + 1 : 0; } return f(3000);", &v);
        snprintf(s->js_value, sizeof(s->js_value), "%s", v ? v : "(null)");
    }
    capsa_sandbox_free(sb);
    capsa_engine_free(e);
    return NULL;
}

TEST(small_pthread_stack)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    CHECK_INT(pthread_attr_setstacksize(&attr, 64 * 1024), 0, "a 64 KiB thread stack is accepted");
    small_stack s;
    memset(&s, 0, sizeof(s));
    pthread_t th;
    int rc = pthread_create(&th, &attr, small_stack_main, &s);
    pthread_attr_destroy(&attr);
    CHECK_INT(rc, 0, "a thread with a 64 KiB stack starts");
    if (rc != 0)
        return;
    pthread_join(th, NULL);
    CHECK(s.prepared, "the small-stack thread is prepared for guest code");
    CHECK(s.created, "the small-stack thread creates a trapper instance");
    CHECK_INT(s.deep, 200000, "deep(200000) completes on the guest stack, not the thread's");
    CHECK_INT(s.exhaustion, WASM_RT_TRAP_EXHAUSTION,
              "unbounded recursion on the small-stack thread ends as exhaustion");
    CHECK_INT(s.sum, 499500, "the small-stack thread calls normally after exhaustion");
    CHECK_INT(s.js_rc, CAPSA_OK, "the small-stack thread runs recursive JS in a sandbox");
    CHECK_STR(s.js_value, "3000", "JS recursion 3000 deep returns 3000");
}

/* ---- calls back into the guest --------------------------------------------------------- */

TEST(nested_calls)
{
    trapper *t = trapper_new(NULL);
    CHECK(t != NULL, "a trapper instance is created");
    if (!t)
        return;
    static const struct { op op; uint32_t a; int want; const char *what; } inner[] = {
        { OP_UNREACHABLE, 0, WASM_RT_TRAP_UNREACHABLE, "unreachable" },
        { OP_LOAD, PAGE, WASM_RT_TRAP_OOB, "an out-of-bounds load" },
        { OP_RECURSE, 0, WASM_RT_TRAP_EXHAUSTION, "unbounded recursion" },
        { OP_DIV_U, 0, WASM_RT_TRAP_DIV_BY_ZERO, "a division by zero" },
    };
    char what[200];
    t->host.mode = HOST_NESTED;
    for (size_t i = 0; i < sizeof(inner) / sizeof(inner[0]); i++) {
        t->host.nested_op = inner[i].op;
        t->host.nested_a = inner[i].a;
        t->host.nested_trap = -1;
        uint64_t r = 0;
        int trap = guest(t, OP_VIA_HOST, 5, 0, &r);
        snprintf(what, sizeof(what), "%s in a nested call traps only the nested call",
                 inner[i].what);
        CHECK_INT(t->host.nested_trap, inner[i].want, what);
        snprintf(what, sizeof(what), "after %s in a nested call, the outer call finishes",
                 inner[i].what);
        CHECK_INT(trap, 0, what);
        CHECK_INT(r, 6, what);
    }
    t->host.nested_op = OP_SUM;
    t->host.nested_a = 10;
    CHECK_INT(value_of(t, OP_VIA_HOST, 1, 0), 2, "an outer call around a normal nested call");
    CHECK_INT(t->host.nested_trap, 0, "the normal nested call does not trap");
    CHECK_INT(t->host.nested_result, 45, "the normal nested call returns sum(10)");
    t->host.mode = HOST_ECHO;
    CHECK_INT(guest(t, OP_UNREACHABLE, 0, 0, NULL), WASM_RT_TRAP_UNREACHABLE,
              "after nested calls, an outer trap still reaches the outer caller");
    CHECK_INT(value_of(t, OP_SUM, 10, 0), 45, "after nested calls, a normal call works");
    trapper_free(t);
}

/* ---- host faults stay fatal --------------------------------------------------------- */

/* The faults below are on purpose: UBSan (make test-sanitize) must let them fault. */
#define DELIBERATE_FAULT __attribute__((no_sanitize("undefined")))

DELIBERATE_FAULT static int child_null_outside(void *arg)
{
    (void)arg;
    volatile int *volatile nowhere = NULL;
    return *nowhere + 100;
}

DELIBERATE_FAULT static void null_in_frame(void *arg)
{
    (void)arg;
    volatile int *volatile nowhere = NULL;
    *nowhere = 1;
}

static int child_null_in_frame(void *arg)
{
    trapper *t = arg;
    capsa__rt_call(&t->inst.w2c_memory, NULL, &t->inst.capsa_fuel, NULL, null_in_frame, NULL, NULL);
    return 100;
}

static int child_null_in_import(void *arg)
{
    trapper *t = arg;
    t->host.mode = HOST_NULL;
    guest(t, OP_VIA_HOST, 1, 0, NULL);
    return 100;
}

static uint8_t *readonly_page;

static void write_readonly(void *arg)
{
    (void)arg;
    *(volatile uint8_t *)readonly_page = 1;
}

static int child_readonly_in_frame(void *arg)
{
    trapper *t = arg;
    capsa__rt_call(&t->inst.w2c_memory, NULL, &t->inst.capsa_fuel, NULL, write_readonly, NULL, NULL);
    return 100;
}

static void raise_segv(void *arg)
{
    (void)arg;
    raise(SIGSEGV);
}

/* A SIGSEGV sent with raise() (as kill would) has no faulting instruction: the
 * default action must still end the process. */
static int child_raise_outside(void *arg)
{
    (void)arg;
    raise_segv(NULL);
    return 100;
}

static int child_raise_in_frame(void *arg)
{
    trapper *t = arg;
    capsa__rt_call(&t->inst.w2c_memory, NULL, &t->inst.capsa_fuel, NULL, raise_segv, NULL, NULL);
    return 100;
}

/* Control: a guest fault in a child is still a trap, so the child exits normally. */
static int child_guest_oob(void *arg)
{
    trapper *t = arg;
    return guest(t, OP_LOAD, PAGE, 0, NULL) == WASM_RT_TRAP_OOB &&
                   value_of(t, OP_SUM, 10, 0) == 45
               ? 7
               : 100;
}

TEST(host_faults_stay_fatal)
{
    trapper *t = trapper_new(NULL);
    CHECK(t != NULL, "a trapper instance is created");
    if (!t)
        return;
    CHECK(exited_with(in_child(child_guest_oob, t), 7),
          "control: a guest OOB in a forked child is a trap and the child exits normally");
    CHECK(killed_by_segv(in_child(child_null_outside, t)),
          "a NULL dereference in host code outside the guest kills the process with SIGSEGV");
    CHECK(killed_by_segv(in_child(child_null_in_frame, t)),
          "a NULL dereference in host code run by capsa__rt_call kills with SIGSEGV");
    CHECK(killed_by_segv(in_child(child_null_in_import, t)),
          "a NULL dereference in a host import called by the guest kills with SIGSEGV");
    readonly_page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(readonly_page != MAP_FAILED, "a read-only page is mapped");
    if (readonly_page != MAP_FAILED) {
        CHECK(killed_by_segv(in_child(child_readonly_in_frame, t)),
              "a host write to a read-only host page during a guest call kills with SIGSEGV");
        munmap(readonly_page, 4096);
    }
    CHECK(killed_by_segv(in_child(child_raise_outside, t)),
          "a SIGSEGV raised (not a fault) outside guest code still kills the process");
    CHECK(killed_by_segv(in_child(child_raise_in_frame, t)),
          "a SIGSEGV raised (not a fault) during a guest call still kills the process");
    CHECK_INT(value_of(t, OP_SUM, 10, 0), 45, "the parent is unaffected by its children");
    trapper_free(t);
}

/* ---- signal handlers of the host program -------------------------------------------- */

/* Host programs install SIGSEGV handlers of their own, often after capsa's (Python's
 * faulthandler, a JVM, Go's runtime, crash reporters). The children below install
 * one after sandboxes have run: a handler that ends the process if it is ever
 * reached, the same in signal()'s style, one that chains to the handler it
 * replaced, and the default action. Guest code must go on working whichever it
 * is: the faults of write tracking and of the guard pages are capsa's; host
 * faults must still reach the host's handler. */
enum host_kind { HOST_FATAL, HOST_PLAIN, HOST_CHAINING, HOST_DEFAULT };
static const char *const host_kind_name[] = {
    "a handler that exits", "a signal()-style handler that exits",
    "a handler that chains to the one it replaced", "the default action",
};
#define HOST_HANDLER_EXIT 77

/* Times a host handler ran, in memory shared with the parent (a child may die). */
static int *host_seen;
/* What the host's handlers replaced: [0] SIGSEGV, [1] SIGBUS. */
static struct sigaction host_replaced[2];

static void host_fatal(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)si, (void)uc;
    __atomic_add_fetch(host_seen, 1, __ATOMIC_RELAXED);
    _exit(HOST_HANDLER_EXIT);
}

static void host_plain(int sig)
{
    (void)sig;
    __atomic_add_fetch(host_seen, 1, __ATOMIC_RELAXED);
    _exit(HOST_HANDLER_EXIT);
}

/* Counts a run of a host handler, then chains as a well-behaved one does: to the
 * disposition prev it replaced. */
static void chain_to(const struct sigaction *prev, int sig, siginfo_t *si, void *uc)
{
    __atomic_add_fetch(host_seen, 1, __ATOMIC_RELAXED);
    if (prev->sa_flags & SA_SIGINFO) {
        prev->sa_sigaction(sig, si, uc);
    } else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
        prev->sa_handler(sig);
    } else {
        signal(sig, SIG_DFL);
        if (si->si_code <= 0)
            raise(sig);
    }
}

static void host_chaining(int sig, siginfo_t *si, void *uc)
{
    chain_to(&host_replaced[sig == SIGBUS], sig, si, uc);
}

/* Installs a host handler of the kind for SIGSEGV and SIGBUS; returns 0 or -1. */
static int install_host_handler(enum host_kind kind)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sigemptyset(&sa.sa_mask);
    switch (kind) {
    case HOST_FATAL:
        sa.sa_sigaction = host_fatal;
        sa.sa_flags = SA_SIGINFO;
        break;
    case HOST_PLAIN:
        sa.sa_handler = host_plain;
        break;
    case HOST_CHAINING:
        sa.sa_sigaction = host_chaining;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        break;
    case HOST_DEFAULT:
        sa.sa_handler = SIG_DFL;
        break;
    }
    if (sigaction(SIGSEGV, &sa, &host_replaced[0]) != 0 ||
        sigaction(SIGBUS, &sa, &host_replaced[1]) != 0)
        return -1;
    return 0;
}

/* What a child gets: the kind of handler the host installs, and a memory made
 * from an image, restored once (its writes tracked). */
typedef struct tracked_memory {
    trapper *t;
    capsa__rt_track *track;
    const capsa__rt_image *img;
} tracked_memory;

typedef struct host_case {
    enum host_kind kind;
    tracked_memory tm;
} host_case;

/* Runs JS that builds n objects (so writes memory in proportion) and checks its
 * value. */
static int js_works(capsa_sandbox *sb, int n)
{
    char code[200], want[32];
    snprintf(code, sizeof(code),
             "{ let a = []; for (let i = 0; i < %d; i++) a.push({ i, s: 'x' + i });"
             " return a.length + a[%d].s.length; }", n, n - 1);
    snprintf(want, sizeof(want), "%d", n + 1 + snprintf(NULL, 0, "%d", n - 1));
    const char *v = NULL;
    int rc = run_js(sb, code, &v);
    return rc == CAPSA_OK && v && strcmp(v, want) == 0;
}

/* In a child: an engine with a pool; a sandbox runs, is reset and runs again (so
 * its memory has been restored in place and its writes are tracked), and another
 * goes back to the pool; then the host installs its handler. Runs after that,
 * resets and sandboxes taken from the pool must all work, and the host's handler
 * never sees capsa's faults. Exit code: 0, or a bit per failed expectation. */
static int child_js_after_handler(void *arg)
{
    enum host_kind kind = ((const host_case *)arg)->kind;
    capsa_engine_options o;
    capsa_engine_options_init(&o);
    o.pool_size = 2;
    capsa_engine *e = NULL;
    capsa_sandbox *sb = NULL, *other = NULL;
    if (capsa_engine_new(&o, &e) != CAPSA_OK || capsa_sandbox_new(e, NULL, &sb) != CAPSA_OK ||
        capsa_sandbox_new(e, NULL, &other) != CAPSA_OK)
        return 64;
    int bad = 0;
    if (!js_works(sb, 100) || capsa_reset(sb) != CAPSA_OK || !js_works(sb, 100) ||
        capsa_reset(sb) != CAPSA_OK || !js_works(other, 100))
        bad |= 1;
    capsa_sandbox_free(other);
    other = NULL;
    if (install_host_handler(kind) != 0)
        return 64;
    /* Each run builds more than the one before, so it writes pages of the image
       that no earlier run wrote. */
    for (int i = 0; i < 3; i++) {
        if (!js_works(sb, 5000 << i))
            bad |= 2;
        if (capsa_reset(sb) != CAPSA_OK)
            bad |= 4;
    }
    if (capsa_sandbox_new(e, NULL, &other) != CAPSA_OK || !js_works(other, 50000) ||
        !js_works(other, 60000))
        bad |= 8;
    capsa_sandbox_free(other);
    if (capsa_sandbox_new(e, NULL, &other) != CAPSA_OK || !js_works(other, 70000))
        bad |= 16;
    capsa_sandbox_free(other);
    capsa_sandbox_free(sb);
    capsa_engine_free(e);
    if (__atomic_load_n(host_seen, __ATOMIC_RELAXED) != 0)
        bad |= 32;
    return bad;
}

/* The runtime's faults with a memory restored once (its writes tracked): a write
 * to a tracked page, a load out of bounds, running off the guest stack, and the
 * restore after them. Returns 0, or a bit per failed expectation. */

static int runtime_faults_work(const tracked_memory *tm, uint32_t value)
{
    int bad = 0;
    wasm_rt_memory_t *m = &tm->t->inst.w2c_memory;
    if (guest_tracked(tm->t, tm->track, OP_STORE, PAGE + 4096 + 8, value, NULL) != 0 ||
        value_of(tm->t, OP_LOAD, PAGE + 4096 + 8, 0) != value)
        bad |= 1;
    if (guest_tracked(tm->t, tm->track, OP_LOAD, 3 * PAGE, 0, NULL) != WASM_RT_TRAP_OOB)
        bad |= 2;
    if (guest_tracked(tm->t, tm->track, OP_RECURSE, 0, 0, NULL) != WASM_RT_TRAP_EXHAUSTION)
        bad |= 4;
    if (capsa__rt_memory_restore(m, tm->track, tm->img) != 0 ||
        memcmp(m->data, tm->img->view, 2 * PAGE) != 0)
        bad |= 8;
    /* A trap that went through a host handler first leaves no signal blocked. */
    sigset_t now;
    if (pthread_sigmask(SIG_SETMASK, NULL, &now) != 0 || sigismember(&now, SIGSEGV) ||
        sigismember(&now, SIGBUS))
        bad |= 16;
    return bad;
}

/* In a child: the host installs its handler after a memory was restored; the
 * runtime's faults must still be the runtime's. */
static int child_traps_after_handler(void *arg)
{
    host_case *hc = arg;
    if (!hc->tm.track->armed || install_host_handler(hc->kind) != 0)
        return 64;
    /* The child's exit status is its 8 low bits: what failed, in 6. */
    int bad = runtime_faults_work(&hc->tm, 0x51) | runtime_faults_work(&hc->tm, 0x52);
    if (__atomic_load_n(host_seen, __ATOMIC_RELAXED) != 0)
        bad |= 32;
    return bad;
}

/* In a child: after the host's handler is in place and guest code ran, a NULL
 * dereference in host code must reach the host's handler (once). */
DELIBERATE_FAULT static int child_host_fault_after_handler(void *arg)
{
    host_case *hc = arg;
    if (install_host_handler(hc->kind) != 0 || runtime_faults_work(&hc->tm, 0x61) != 0)
        return 64;
    volatile int *volatile nowhere = NULL;
    return *nowhere + 100;
}

/* The same for a NULL dereference in a host import the guest calls. */
static int child_import_fault_after_handler(void *arg)
{
    host_case *hc = arg;
    if (install_host_handler(hc->kind) != 0 || runtime_faults_work(&hc->tm, 0x62) != 0)
        return 64;
    hc->tm.t->host.mode = HOST_NULL;
    guest(hc->tm.t, OP_VIA_HOST, 1, 0, NULL);
    return 100;
}

/* In a child: the host installs the same handler again and again (as a crash
 * reporter that checks it is still in place does), with guest code between;
 * then a host fault must reach it exactly once. */
DELIBERATE_FAULT static int child_handler_reinstalled(void *arg)
{
    host_case *hc = arg;
    for (uint32_t i = 0; i < 40; i++) {
        if (install_host_handler(hc->kind) != 0)
            return 64;
        if (runtime_faults_work(&hc->tm, 0x100 + i) != 0)
            return 65;
    }
    if (__atomic_load_n(host_seen, __ATOMIC_RELAXED) != 0)
        return 66;
    volatile int *volatile nowhere = NULL;
    return *nowhere + 100;
}

/* In a child: the host installs its handler and later puts back the one it
 * replaced (as faulthandler.disable() does). Guest code works throughout, and a
 * host fault then no longer reaches the removed handler. */
DELIBERATE_FAULT static int child_handler_removed(void *arg)
{
    host_case *hc = arg;
    if (install_host_handler(hc->kind) != 0 || runtime_faults_work(&hc->tm, 0x71) != 0)
        return 64;
    if (sigaction(SIGSEGV, &host_replaced[0], NULL) != 0 ||
        sigaction(SIGBUS, &host_replaced[1], NULL) != 0)
        return 64;
    if (runtime_faults_work(&hc->tm, 0x72) != 0)
        return 65;
    volatile int *volatile nowhere = NULL;
    return *nowhere + 100;
}

/* Host handlers of different programs, each chaining to what it replaced. */
#define STACKED 10
static struct sigaction stacked_replaced[STACKED];

#define STACKED_HANDLER(n)                                       \
    static void host_stacked_##n(int sig, siginfo_t *si, void *uc) \
    {                                                            \
        chain_to(&stacked_replaced[n], sig, si, uc);             \
    }
STACKED_HANDLER(0)
STACKED_HANDLER(1)
STACKED_HANDLER(2)
STACKED_HANDLER(3)
STACKED_HANDLER(4)
STACKED_HANDLER(5)
STACKED_HANDLER(6)
STACKED_HANDLER(7)
STACKED_HANDLER(8)
STACKED_HANDLER(9)
static void (*const host_stacked[STACKED])(int, siginfo_t *, void *) = {
    host_stacked_0, host_stacked_1, host_stacked_2, host_stacked_3, host_stacked_4,
    host_stacked_5, host_stacked_6, host_stacked_7, host_stacked_8, host_stacked_9,
};

/* Installs fn for SIGSEGV; *replaced (if not NULL) gets what it replaced. */
static int install_segv(void (*fn)(int, siginfo_t *, void *), struct sigaction *replaced)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = fn;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    return sigaction(SIGSEGV, &sa, replaced);
}

/* A write to a page of the image that no earlier call wrote, then a restore. */
static int tracked_write_works(const tracked_memory *tm, uint32_t page)
{
    wasm_rt_memory_t *m = &tm->t->inst.w2c_memory;
    uint32_t at = PAGE + page * 4096 + 20;
    return guest_tracked(tm->t, tm->track, OP_STORE, at, 0x5a5a, NULL) == 0 &&
           value_of(tm->t, OP_LOAD, at, 0) == 0x5a5a &&
           capsa__rt_memory_restore(m, tm->track, tm->img) == 0 &&
           memcmp(m->data, tm->img->view, 2 * PAGE) == 0;
}

/* In a child: more host programs install handlers, one after another with guest
 * code between, than capsa has places in front of them. Guest code works
 * throughout (they chain), and a host fault reaches each of them once. Then a
 * handler that exits goes on top, where capsa can no longer get in front of it:
 * writes to the tracked image must not fault (tracking stops, restores scan). */
DELIBERATE_FAULT static int child_handlers_stacked(void *arg)
{
    host_case *hc = arg;
    for (int i = 0; i < STACKED; i++) {
        if (install_segv(host_stacked[i], &stacked_replaced[i]) != 0)
            return 64;
        if (runtime_faults_work(&hc->tm, 0x200 + (uint32_t)i) != 0)
            return 65;
    }
    /* Past capsa's places in front, guest faults reach the newest handlers first. */
    __atomic_store_n(host_seen, 0, __ATOMIC_RELAXED);
    if (hc->kind == HOST_FATAL) {
        if (install_segv(host_fatal, NULL) != 0)
            return 64;
        for (uint32_t p = 3; p < 8; p++)
            if (!tracked_write_works(&hc->tm, p))
                return 67;
        return 0;
    }
    volatile int *volatile nowhere = NULL;
    return *nowhere + 100;
}

/* A host handler that keeps the disposition it replaced the first time it was
 * installed, even when installed again over another. */
static struct sigaction sticky_replaced;
static int sticky_saved;

#define STICKY_GIVES_UP 1000
static void host_sticky(int sig, siginfo_t *si, void *uc)
{
    /* Going round for ever would hang the test: it ends the child instead. */
    if (__atomic_load_n(host_seen, __ATOMIC_RELAXED) >= STICKY_GIVES_UP)
        _exit(HOST_HANDLER_EXIT);
    chain_to(&sticky_replaced, sig, si, uc);
}

static int install_sticky(void)
{
    struct sigaction old;
    if (install_segv(host_sticky, &old) != 0)
        return -1;
    if (!sticky_saved)
        sticky_replaced = old;
    sticky_saved = 1;
    return 0;
}

/* In a child: host handlers come and go so that the sticky one ends up chaining,
 * through capsa's handler, back to itself. Guest code works all the same, and a
 * host fault goes round only a bounded number of times before the default action
 * ends the process. */
DELIBERATE_FAULT static int child_handler_circle(void *arg)
{
    host_case *hc = arg;
    struct sigaction before_a, before_sticky;
    if (install_segv(host_stacked[0], &stacked_replaced[0]) != 0 ||
        runtime_faults_work(&hc->tm, 0x301) != 0)
        return 64;
    before_a = stacked_replaced[0];
    if (sigaction(SIGSEGV, NULL, &before_sticky) != 0 || install_sticky() != 0 ||
        runtime_faults_work(&hc->tm, 0x302) != 0)
        return 65;
    /* Both removed again, newest first; then the sticky one comes back. */
    if (sigaction(SIGSEGV, &before_sticky, NULL) != 0 || runtime_faults_work(&hc->tm, 0x303) != 0 ||
        sigaction(SIGSEGV, &before_a, NULL) != 0 || runtime_faults_work(&hc->tm, 0x304) != 0)
        return 66;
    if (install_sticky() != 0 || runtime_faults_work(&hc->tm, 0x305) != 0 ||
        runtime_faults_work(&hc->tm, 0x306) != 0)
        return 67;
    if (__atomic_load_n(host_seen, __ATOMIC_RELAXED) != 0)
        return 68;
    volatile int *volatile nowhere = NULL;
    return *nowhere + 100;
}

/* Reports a child's exit status when it is not the expected one. */
static void explain_status(const char *what, int status)
{
    if (status == -1)
        fprintf(stderr, "  %s: no child\n", what);
    else if (WIFEXITED(status))
        fprintf(stderr, "  %s: child exited with %d\n", what, WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        fprintf(stderr, "  %s: child killed by signal %d\n", what, WTERMSIG(status));
}

/* How a child must end: exited with code (-1: killed by SIGSEGV), the host's
 * handlers having run from seen_min to seen_max times. */
typedef struct child_end {
    int code;
    int seen_min, seen_max;
} child_end;

static const child_end ENDS_NORMALLY = { 0, 0, 0 };
static const child_end ENDS_BY_DEFAULT = { -1, 0, 0 };

/* How a host fault ends a child under the host's handler of that kind. */
static child_end host_fault_end(enum host_kind kind)
{
    static const child_end ends[] = {
        [HOST_FATAL] = { HOST_HANDLER_EXIT, 1, 1 },
        [HOST_PLAIN] = { HOST_HANDLER_EXIT, 1, 1 },
        [HOST_CHAINING] = { -1, 1, 1 },
        [HOST_DEFAULT] = { -1, 0, 0 },
    };
    return ends[kind];
}

/* Runs fn(arg) in a child and checks that it ends as want says. */
static void check_child(int (*fn)(void *), void *arg, child_end want, const char *what)
{
    *host_seen = 0;
    int status = in_child(fn, arg);
    int seen = *host_seen;
    int ok = (want.code < 0 ? killed_by_segv(status) : exited_with(status, want.code)) &&
             seen >= want.seen_min && seen <= want.seen_max;
    CHECK(ok, what);
    if (!ok) {
        explain_status(what, status);
        fprintf(stderr, "  the host's handlers ran %d times\n", seen);
    }
}

/* The children run with each kind of host handler, and how they must end:
 * normally, as a host fault under that handler, or by the default action. */
enum { END_NORMALLY, END_HOST_FAULT, END_BY_DEFAULT };
static const struct {
    int (*fn)(void *);
    int end;
    const char *what;
} host_cases[] = {
    { child_js_after_handler, END_NORMALLY,
      "installed after sandboxes ran and were reset, runs, resets and pooled sandboxes work" },
    { child_traps_after_handler, END_NORMALLY,
      "installed, tracked writes, OOB and stack exhaustion stay the runtime's and restores "
      "are exact" },
    { child_host_fault_after_handler, END_HOST_FAULT, "installed, a host fault still reaches it" },
    { child_import_fault_after_handler, END_HOST_FAULT,
      "installed, a fault in a host import during a guest call reaches it" },
    { child_handler_reinstalled, END_HOST_FAULT,
      "installed 40 times over, guest code works and a host fault reaches it once" },
    { child_handler_removed, END_BY_DEFAULT,
      "installed and removed again, guest code works and a host fault kills as before" },
};

TEST(host_signal_handlers)
{
    host_seen = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(host_seen != MAP_FAILED, "a page shared with the children is mapped");
    if (host_seen == MAP_FAILED)
        return;
    trapper *src = trapper_new(NULL), *a = trapper_new(NULL);
    capsa__rt_image img = { .fd = -1 };
    capsa__rt_track track;
    memset(&track, 0, sizeof(track));
    int ready = src && a && guest(src, OP_GROW, 1, 0, NULL) == 0 &&
                capsa__rt_image_capture(&img, &src->inst.w2c_memory) == 0;
    ready = ready && use_image(a, &img) == 0 && guest(a, OP_STORE, SCRATCH, 1, NULL) == 0 &&
            capsa__rt_memory_restore(&a->inst.w2c_memory, &track, &img) == 0 && track.armed;
    CHECK(ready, "a memory made from an image, restored once, its writes tracked");
    for (int k = HOST_FATAL; ready && k <= HOST_DEFAULT; k++) {
        host_case hc = { (enum host_kind)k, { a, &track, &img } };
        for (size_t i = 0; i < sizeof(host_cases) / sizeof(host_cases[0]); i++) {
            char what[200];
            snprintf(what, sizeof(what), "with %s %s", host_kind_name[k], host_cases[i].what);
            int end = host_cases[i].end;
            check_child(host_cases[i].fn, &hc,
                        end == END_HOST_FAULT ? host_fault_end(hc.kind)
                        : end == END_BY_DEFAULT ? ENDS_BY_DEFAULT : ENDS_NORMALLY,
                        what);
        }
    }
    if (ready) {
        host_case hc = { HOST_CHAINING, { a, &track, &img } };
        check_child(child_handlers_stacked, &hc, (child_end){ -1, STACKED, STACKED },
                    "with 10 host handlers stacked, each chaining, guest code works and a host "
                    "fault reaches each of them once");
        hc.kind = HOST_FATAL;
        check_child(child_handlers_stacked, &hc, ENDS_NORMALLY,
                    "with a handler that exits on top of 10 others, tracked writes still never "
                    "reach it and restores stay exact");
        check_child(child_handler_circle, &hc, (child_end){ -1, 1, 16 },
                    "host handlers that chain in a circle through capsa's end in the default "
                    "action after a bounded number of rounds");
    }
    uint64_t sum = 0;
    CHECK(guest_tracked(a, &track, OP_SUM, 10, 0, &sum) == 0 && sum == 45,
          "the parent is unaffected by its children");
    capsa__rt_track_free(&track);
    capsa__rt_image_release(&img);
    trapper_free(src);
    trapper_free(a);
    munmap(host_seen, 4096);
}

/* ---- allocation failure ------------------------------------------------------------- */

/* In a child whose address space is capped below one reservation: creating an
 * instance traps with CAPSA__TRAP_NOMEM, a sandbox fails with CAPSA_ENOMEM, and both
 * work again once the cap is lifted. Exit code: a bit per failed expectation. */
static int child_nomem(void *arg)
{
    (void)arg;
    capsa_engine *e = NULL;
    if (capsa_engine_new(NULL, &e) != CAPSA_OK)
        return 64;
    struct rlimit old, cap;
    if (getrlimit(RLIMIT_AS, &old) != 0)
        return 64;
    cap = old;
    cap.rlim_cur = vm_size() + 512ull * 1024 * 1024;
    if (setrlimit(RLIMIT_AS, &cap) != 0)
        return 64;
    int bad = 0, trap = 0;
    trapper *t = trapper_new(&trap);
    if (t || trap != CAPSA__TRAP_NOMEM)
        bad |= 1;
    capsa_sandbox *sb = NULL;
    if (capsa_sandbox_new(e, NULL, &sb) != CAPSA_ENOMEM || sb)
        bad |= 2;
    setrlimit(RLIMIT_AS, &old);
    t = trapper_new(&trap);
    if (!t || trap != 0 || value_of(t, OP_SUM, 10, 0) != 45)
        bad |= 4;
    if (capsa_sandbox_new(e, NULL, &sb) != CAPSA_OK || !sb)
        bad |= 8;
    trapper_free(t);
    capsa_sandbox_free(sb);
    capsa_engine_free(e);
    return bad;
}

TEST(allocation_failure)
{
    int status = in_child(child_nomem, NULL);
    CHECK(status != -1 && WIFEXITED(status), "the capped child exits rather than aborts");
    int bits = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : 255;
    CHECK(!(bits & 64), "the child could cap its address space");
    CHECK(!(bits & 1), "with the address space capped, instantiation traps with "
                       "CAPSA__TRAP_NOMEM");
    CHECK(!(bits & 2), "with the address space capped, capsa_sandbox_new gives CAPSA_ENOMEM");
    CHECK(!(bits & 4), "with the cap lifted, instantiation works again");
    CHECK(!(bits & 8), "with the cap lifted, capsa_sandbox_new works again");
}

/* ---- messages ------------------------------------------------------------------------ */

/* Runs sum(n) with limits; returns the trap code, *fuel_used the fuel spent. */
static int limited_sum(trapper *t, uint32_t n, const capsa__rt_limits *limits, uint64_t *fuel_used)
{
    call c = { t, OP_SUM, n, 0, 0, 0 };
    return capsa__rt_call(&t->inst.w2c_memory, NULL, &t->inst.capsa_fuel, limits, run_op, &c, fuel_used);
}

/* Fuel meters every loop iteration and function entry, deterministically; the
 * deadline stops a long loop with its own trap code. */
TEST(fuel_and_deadline)
{
    trapper *t = trapper_new(NULL);
    CHECK(t != NULL, "a trapper instance is created");
    if (!t)
        return;
    uint64_t used1 = 0, used2 = 0, used_big = 0;
    CHECK_INT(limited_sum(t, 1000, NULL, &used1), 0, "sum(1000) runs without limits");
    CHECK_INT(limited_sum(t, 1000, NULL, &used2), 0, "and again");
    CHECK(used1 >= 1000, "fuel counts at least every loop iteration");
    CHECK_INT(used1, used2, "the same call spends the same fuel");
    CHECK_INT(limited_sum(t, 100000, NULL, &used_big), 0, "sum(100000) runs");
    CHECK(used_big > used1 * 50, "fuel grows with the iterations");
    capsa__rt_limits exact = { used1, 0, NULL };
    CHECK_INT(limited_sum(t, 1000, &exact, NULL), 0, "exactly the fuel needed is enough");
    capsa__rt_limits short_by_one = { used1 - 1, 0, NULL };
    uint64_t used3 = 0;
    CHECK_INT(limited_sum(t, 1000, &short_by_one, &used3), CAPSA__TRAP_FUEL,
              "one unit less stops the call");
    CHECK_INT(used3, used1 - 1, "the stopped call spent its whole budget");
    capsa__rt_limits past = { 0, capsa__rt_now_ns() - 1, NULL };
    CHECK_INT(limited_sum(t, 100000000, &past, NULL), CAPSA__TRAP_TIMEOUT,
              "a passed deadline stops a long loop");
    uint64_t t0 = capsa__rt_now_ns();
    capsa__rt_limits soon = { 0, t0 + 20000000, NULL };
    int trap = limited_sum(t, 4000000000u, &soon, NULL);
    uint64_t took_ms = (capsa__rt_now_ns() - t0) / 1000000;
    CHECK_INT(trap, CAPSA__TRAP_TIMEOUT, "a 20 ms deadline stops 4e9 iterations");
    CHECK(took_ms < 20 + 50, "within 50 ms of the deadline");
    CHECK_INT(value_of(t, OP_SUM, 10, 0), 45, "the instance works after limits");
    trapper_free(t);
}

/* Runs sum_then(n, how) with limits; returns the trap code, *fuel_used the fuel
 * spent. */
static int sum_then(trapper *t, uint32_t n, uint32_t how, const capsa__rt_limits *limits,
                    uint64_t *fuel_used)
{
    call c = { t, OP_SUM_THEN, n, how, 0, 0 };
    return capsa__rt_call(&t->inst.w2c_memory, NULL, &t->inst.capsa_fuel, limits, run_op, &c,
                          fuel_used);
}

/* Wherever guest code keeps its fuel counter while it runs (a register on x86-64,
 * src/fuel.h), the runtime sees it exactly when the guest leaves: by returning,
 * by a trap of its own, by a fault, around a host function, by a trap from a host
 * function, around a nested call, and across slices (25,000 iterations take
 * three). The register is callee-saved for the host: an export gives it back. */
TEST(fuel_at_the_host_boundary)
{
    trapper *t = trapper_new(NULL);
    CHECK(t != NULL, "a trapper instance is created");
    if (!t)
        return;
    const uint32_t n = 25000;
    uint64_t used[4] = { 0 };
    CHECK_INT(sum_then(t, n, 0, NULL, &used[0]), 0, "sum_then returns");
    CHECK(used[0] > n, "it spent a unit per iteration");
    CHECK_INT(sum_then(t, n, 1, NULL, &used[1]), WASM_RT_TRAP_UNREACHABLE, "unreachable traps");
    CHECK_INT(used[1], used[0], "a trap of the guest's own reports the fuel it spent");
    CHECK_INT(sum_then(t, n, 2, NULL, &used[2]), WASM_RT_TRAP_OOB, "an out-of-bounds load traps");
    CHECK_INT(used[2], used[0], "a fault reports the fuel spent up to it");
    t->host.mode = HOST_ECHO;
    CHECK_INT(sum_then(t, n, 3, NULL, &used[3]), 0, "a host function called");
    CHECK_INT(used[3], used[0], "a host function keeps the guest's count");
    t->host.mode = HOST_EXIT;
    uint64_t exited = 0;
    CHECK_INT(sum_then(t, n, 3, NULL, &exited), CAPSA__TRAP_EXIT, "a host function exits");
    CHECK_INT(exited, used[0], "a trap from a host function reports the guest's count");
    t->host.mode = HOST_ECHO;
    capsa__rt_limits exact = { used[0], 0, NULL };
    CHECK_INT(sum_then(t, n, 3, &exact, NULL), 0, "exactly the fuel needed is enough");
    capsa__rt_limits short_by_one = { used[0] - 1, 0, NULL };
    uint64_t spent = 0;
    CHECK_INT(sum_then(t, n, 0, &short_by_one, &spent), CAPSA__TRAP_FUEL,
              "one unit less stops the call");
    CHECK_INT(spent, used[0] - 1, "the stopped call spent its whole budget");

    /* A nested call spends its own fuel, not the outer call's. */
    uint64_t inner_alone = 0, outer = 0;
    CHECK_INT(limited_sum(t, 3 * n, NULL, &inner_alone), 0, "sum(75000) runs");
    t->host.mode = HOST_NESTED;
    t->host.nested_op = OP_SUM;
    t->host.nested_a = 3 * n;
    CHECK_INT(sum_then(t, n, 3, NULL, &outer), 0, "an outer call around a nested one");
    CHECK_INT(t->host.nested_trap, 0, "the nested call returned");
    CHECK_INT(t->host.nested_fuel, inner_alone, "the nested call spent what it spends alone");
    CHECK_INT(outer, used[0], "the outer call spent what it spends without one");
#if defined(__x86_64__)
    /* Outside any call frame, so that no host function between the test and the
       export saves and restores r15 on the export's behalf. */
    CHECK(sum_with_r15(&t->inst, n, R15_MARK) == R15_MARK,
          "an exported function gives its caller's r15 back");
#endif
    t->host.mode = HOST_ECHO;
    trapper_free(t);
}

TEST(trap_messages)
{
    static const int codes[] = {
        WASM_RT_TRAP_OOB, WASM_RT_TRAP_INT_OVERFLOW, WASM_RT_TRAP_DIV_BY_ZERO,
        WASM_RT_TRAP_INVALID_CONVERSION, WASM_RT_TRAP_UNREACHABLE, WASM_RT_TRAP_CALL_INDIRECT,
        WASM_RT_TRAP_UNCAUGHT_EXCEPTION, WASM_RT_TRAP_EXHAUSTION, CAPSA__TRAP_NOMEM,
    };
    size_t n = sizeof(codes) / sizeof(codes[0]);
    int unknown = 0, same = 0;
    for (size_t i = 0; i < n; i++) {
        unknown += strcmp(capsa__rt_trap_message(codes[i]), "unknown trap") == 0;
        for (size_t j = 0; j < i; j++)
            same += strcmp(capsa__rt_trap_message(codes[i]), capsa__rt_trap_message(codes[j])) == 0;
    }
    CHECK_INT(unknown, 0, "every trap code has a message of its own kind");
    CHECK_INT(same, 0, "no two trap codes share a message");
    CHECK_STR(capsa__rt_trap_message(12345), "unknown trap", "an unknown code is named so");
    CHECK_STR(wasm_rt_strerror(WASM_RT_TRAP_OOB), capsa__rt_trap_message(WASM_RT_TRAP_OOB),
              "wasm_rt_strerror gives the runtime's message");
}

int main(void)
{
    if (capsa__rt_init() != 0 || capsa__rt_thread_prepare() != 0) {
        fprintf(stderr, "test_rt: cannot prepare the runtime\n");
        return 1;
    }
    Z_trapper_init_module();
    RUN(normal_calls);
    RUN(each_trap_kind);
    RUN(shadow_stack_window);
    RUN(oob_stays_in_reservation);
    RUN(memory_growth);
    RUN(guest_ptr);
    RUN(images);
    RUN(image_from_bytes);
    RUN(image_restore);
    RUN(image_restore_limits);
    RUN(hot_pages);
    RUN(image_restore_budget);
    RUN(image_churn);
    RUN(nested_calls);
    RUN(trap_messages);
    RUN(fuel_and_deadline);
    RUN(fuel_at_the_host_boundary);
    RUN(host_faults_stay_fatal);
    RUN(host_signal_handlers);
    RUN(allocation_failure);
    RUN(guest_stack_is_separate);
    RUN(own_alt_stack_kept);
    RUN(small_pthread_stack);
    RUN(threads);
    RUN(thread_exit_releases_stacks);
    RUN(trapper_churn);
    RUN(sandbox_churn);
    return test_summary("test_rt");
}
