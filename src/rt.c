/* Our implementation of wasm2c's runtime contract (wasm-rt.h), replacing the
 * reference wasm-rt-impl.c: the whole guard reservation is released on free, trap
 * state and signal stacks are per thread, and allocation failure becomes a trap
 * that the host reports as CAPSA_ENOMEM instead of an abort. Also memory images:
 * capture, copy-on-write mapping, and restoring a memory to its image in place,
 * with the writes tracked through read-only pages. The fault handler stays in
 * front of any the host program installs later. */
#define _GNU_SOURCE
#include "rt.h"
#include "buf.h"
#include "fuel.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__has_feature)
#if __has_feature(address_sanitizer) /* clang */
#define CAPSA_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) /* gcc */
#define CAPSA_ASAN 1
#endif

#if CAPSA_ASAN
/* AddressSanitizer must be told when the guest stack is entered and left. */
#include <sanitizer/common_interface_defs.h>
#define ASAN_START_SWITCH(fake, bottom, size) __sanitizer_start_switch_fiber(fake, bottom, size)
#define ASAN_FINISH_SWITCH(fake, bottom, size) __sanitizer_finish_switch_fiber(fake, bottom, size)
#else
#define ASAN_START_SWITCH(fake, bottom, size) ((void)(fake), (void)(bottom), (void)(size))
#define ASAN_FINISH_SWITCH(fake, bottom, size) ((void)(fake), (void)(bottom), (void)(size))
#endif
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

/* How a thread moves to its guest stack and back. On x86-64 a switch of our own
 * (below): the callee-saved registers, the FP control words and the stack
 * pointer, and no signal mask, which guest code never changes (the fault handler
 * is SA_NODEFER and leaves by siglongjmp without one), where swapcontext and
 * getcontext make a system call for it each (three per outermost guest call, with
 * uc_link's setcontext). Elsewhere, under AddressSanitizer (whose swapcontext
 * interceptor clears the shadow of the stack entered) and with CET shadow stacks
 * (whose return addresses our switch would not match): ucontext. */
#if defined(__x86_64__) && !CAPSA_ASAN && !(defined(__CET__) && (__CET__ & 2))
#define OWN_SWITCH 1
#else
#define OWN_SWITCH 0
#endif

#define ALT_STACK_SIZE (64 * 1024)
/* Each thread that runs guest code gets a guest stack of its own: address space
 * only, committed as it is touched. The lowest part is a guard: a fault there is
 * the guest running off its stack. */
#define GUEST_STACK_SIZE (64u << 20)
#define GUEST_STACK_GUARD (64u << 10)
/* Offsets in a linear memory where a fault means the guest ran off its shadow
 * stack (placed first with wasm-ld --stack-first) and wrapped below address 0. */
#define SHADOW_STACK_WRAP_LO (0x100000000ull - (16u << 20))
#define SHADOW_STACK_WRAP_HI (0x100000000ull + (1u << 20))

/* Fuel is handed to the guest's counter in slices of at most this many units;
 * between slices the runtime checks the budget and the deadline. */
#define FUEL_SLICE 10000

/* One call from the host into the guest. */
typedef struct rt_frame {
    sigjmp_buf jmp;
    struct rt_frame *prev;
    const wasm_rt_memory_t *memory; /* the memory the guest may fault in */
    capsa__rt_track *track;         /* its write tracking, NULL: none */
    void (*fn)(void *);
    void *arg;
    int trap;
    int64_t *fuel;                  /* the instance's counter */
    uint64_t fuel_limit;            /* 0: unlimited */
    uint64_t fuel_handed;           /* units given to the counter so far */
    bool in_host;                   /* the guest called a host function, which runs */
    uint64_t deadline_ns;           /* 0: none */
    const int *interrupt;           /* CAPSA__RT_INTERRUPT set: stop; NULL: never */
} rt_frame;

typedef struct rt_thread {
    rt_frame *frame;          /* innermost guest call, NULL outside the guest */
    uint8_t *stack;           /* the guest stack mapping, NULL until prepared */
#if OWN_SWITCH
    void *host_sp, *guest_sp; /* where each stack was left */
#else
    ucontext_t host_ctx, guest_ctx;
#endif
    bool prepared;
    const void *host_stack_bottom; /* for AddressSanitizer's stack switches */
    size_t host_stack_size;
} rt_thread;

static __thread rt_thread tls;
/* The code of the last proc_exit on this thread (capsa__rt_exit). */
static __thread uint32_t tls_exit_code;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_status = -1;
static pthread_key_t thread_key;

/* ---- traps ---------------------------------------------------------------------- */

static _Noreturn void trap_to_host(int code)
{
    rt_frame *f = tls.frame;
    if (!f) {
        /* Neither a caller nor a guest can get here: guest code and the runtime
           functions that trap run only inside capsa__rt_call (instance.c enters
           the guest nowhere else). A trap has nowhere to return to (wasm_rt_trap
           is noreturn), so reaching this would be a bug of ours: stop loudly
           rather than run on with a guest in an unknown state. */
        fprintf(stderr, "capsa: trap %d outside guest code (a bug in capsa)\n", code);
        abort();
    }
    siglongjmp(f->jmp, code);
}

void wasm_rt_trap(wasm_rt_trap_t code)
{
    trap_to_host((int)code);
}

const char *wasm_rt_strerror(wasm_rt_trap_t trap)
{
    return capsa__rt_trap_message((int)trap);
}

const char *capsa__rt_trap_message(int trap)
{
    switch (trap) {
    case WASM_RT_TRAP_NONE: return "no trap";
    case WASM_RT_TRAP_OOB: return "out-of-bounds memory access";
    case WASM_RT_TRAP_INT_OVERFLOW: return "integer overflow";
    case WASM_RT_TRAP_DIV_BY_ZERO: return "integer division by zero";
    case WASM_RT_TRAP_INVALID_CONVERSION: return "invalid conversion to integer";
    case WASM_RT_TRAP_UNREACHABLE: return "unreachable code executed (guest abort)";
    case WASM_RT_TRAP_CALL_INDIRECT: return "invalid indirect call";
    case WASM_RT_TRAP_UNCAUGHT_EXCEPTION: return "uncaught wasm exception";
    case WASM_RT_TRAP_EXHAUSTION: return "call stack exhausted";
    case CAPSA__TRAP_NOMEM: return "out of memory while creating the guest";
    case CAPSA__TRAP_TIMEOUT: return "time limit reached";
    case CAPSA__TRAP_FUEL: return "fuel (instruction budget) exhausted";
    case CAPSA__TRAP_EXIT: return "the guest exited (proc_exit)";
    default: return "unknown trap";
    }
}

static int track_write(capsa__rt_track *t, uint8_t *data, uint64_t off);

/* Ends the frame's call with a trap raised by a fault. Guest code that keeps its
 * fuel counter in a register (src/fuel.h) had it there when it faulted; a host
 * function it called has already stored it. */
static _Noreturn void fault_trap(rt_frame *f, const ucontext_t *uc, int code)
{
#if CAPSA_FUEL_IN_REGISTER
    if (!f->in_host)
        *f->fuel = (int64_t)uc->uc_mcontext.gregs[REG_R15];
#endif
    /* The frame's jump restores no signal mask, and the switch back to the host
       none either: the mask the fault came with is put back here. A host handler
       the fault went through first (without SA_NODEFER) blocked the signal while
       it ran, and left blocked, the next fault would kill the process. */
    if (uc)
        pthread_sigmask(SIG_SETMASK, &uc->uc_sigmask, NULL);
    siglongjmp(f->jmp, code);
}

/* ---- the fault handler, in front of the host's ------------------------------------ */

/* Guest faults are capsa's to take: the guard pages' and write tracking's. A host
 * program may install a SIGSEGV handler of its own after capsa's (Python's
 * faulthandler, a JVM, a crash reporter), which would then get them first and,
 * unless it chains to the handler it replaced, end the process. So each outermost
 * guest call checks that capsa's handler is the one installed, and if not,
 * installs it again in front of the host's, to which it passes every fault that is
 * not a guest's. The host's handler most likely chains to the entry it replaced;
 * were that the entry installed in front of it, a fault nobody takes would go
 * round in circles. So the handler has several entries, "levels", each passing
 * faults on to a disposition of its own: level 0 to the one capsa found at start,
 * level n to the host handler it was installed in front of, which chains (if it
 * does) to the level it replaced. */
#define LEVELS 8
/* Ours: SA_ONSTACK for faults on an exhausted stack; SA_NODEFER because the handler
 * leaves by siglongjmp without restoring the mask. */
#define HANDLER_FLAGS (SA_SIGINFO | SA_ONSTACK | SA_NODEFER)

enum { LINK_FREE, LINK_HOST, LINK_PASS };

/* Where a level passes faults on. kind and below are read by the handler: atomic. */
typedef struct level_link {
    int kind;              /* LINK_* */
    int below;             /* HOST: the level the host's handler replaced; PASS: the
                              level that takes over, the host's handler having moved */
    struct sigaction host; /* HOST: the host's disposition */
} level_link;

typedef struct sig_front {
    int sig;
    struct sigaction first;   /* the disposition before capsa's, where level 0 passes */
    level_link level[LEVELS]; /* [0] unused */
    int installed;            /* the level installed last; set under front_lock */
} sig_front;

static sig_front fronts[2] = { { .sig = SIGSEGV }, { .sig = SIGBUS } };
static pthread_mutex_t front_lock = PTHREAD_MUTEX_INITIALIZER;

/* Passes a fault that is not a guest's to a disposition, as the kernel would have. */
static void pass_to(const struct sigaction *to, int sig, siginfo_t *si, void *uc)
{
    if ((to->sa_flags & SA_SIGINFO) && to->sa_sigaction) {
        to->sa_sigaction(sig, si, uc);
    } else if (to->sa_handler != SIG_DFL && to->sa_handler != SIG_IGN) {
        to->sa_handler(sig);
    } else if (si->si_code <= 0) {
        /* Sent, not raised by an instruction: nothing will fault again, so the
           default action is taken here (an ignored signal stays ignored). */
        if (to->sa_handler == SIG_DFL) {
            signal(sig, SIG_DFL);
            raise(sig);
        }
    } else {
        /* Returning re-runs the faulting instruction under the default action. */
        signal(sig, SIG_DFL);
    }
}

/* A fault inside guest code is a trap when it hits the running guest's memory
 * reservation (out of bounds) or the thread's stack guard (exhaustion). Anything
 * else is not ours: the level's disposition gets it. */
static void fault_handler(int level, int sig, siginfo_t *si, void *uc)
{
    rt_frame *f = tls.frame;
    /* si_code > 0: raised by an instruction. A signal sent with kill() or raise()
       is never a guest trap. */
    if (f && si->si_code > 0) {
        uintptr_t a = (uintptr_t)si->si_addr;
        const wasm_rt_memory_t *m = f->memory;
        if (m && m->data && a >= (uintptr_t)m->data &&
            a - (uintptr_t)m->data < CAPSA__RT_RESERVE) {
            uint64_t off = a - (uintptr_t)m->data;
            /* A first write to a read-only page of a tracked image: noted, made
               writable, and the instruction runs again. */
            int tracked = f->track ? track_write(f->track, m->data, off) : 0;
            if (tracked > 0)
                return;
            if (tracked < 0)
                fault_trap(f, uc, CAPSA__TRAP_NOMEM);
            /* The guest's shadow stack comes first in its memory: running off it
               wraps the address around to just below 4 GiB. */
            fault_trap(f, uc, off >= SHADOW_STACK_WRAP_LO && off < SHADOW_STACK_WRAP_HI
                                  ? WASM_RT_TRAP_EXHAUSTION : WASM_RT_TRAP_OOB);
        }
        if (a >= (uintptr_t)tls.stack && a < (uintptr_t)tls.stack + GUEST_STACK_GUARD)
            fault_trap(f, uc, WASM_RT_TRAP_EXHAUSTION);
    }
    const sig_front *fr = &fronts[sig == SIGBUS];
    /* The hops this fault made through our levels, kept in the last byte of its
       siginfo, which the kernel zeroes for each signal it delivers and handlers
       pass on. Should host handlers ever chain in a circle, the first disposition
       ends it. */
    unsigned char *hops = (unsigned char *)si + sizeof(*si) - 1;
    int k = *hops >= 2 * LEVELS ? 0 : level;
    if (*hops < UCHAR_MAX)
        (*hops)++;
    for (int steps = 0; k > 0 && steps < LEVELS; steps++) {
        int kind = __atomic_load_n(&fr->level[k].kind, __ATOMIC_ACQUIRE);
        if (kind == LINK_HOST) {
            pass_to(&fr->level[k].host, sig, si, uc);
            return;
        }
        k = kind == LINK_PASS ? __atomic_load_n(&fr->level[k].below, __ATOMIC_RELAXED) : 0;
    }
    pass_to(&fr->first, sig, si, uc);
}

#define LEVEL_ENTRY(n)                                                  \
    static void fault_level_##n(int sig, siginfo_t *si, void *uc)       \
    {                                                                   \
        fault_handler(n, sig, si, uc);                                  \
    }
LEVEL_ENTRY(0)
LEVEL_ENTRY(1)
LEVEL_ENTRY(2)
LEVEL_ENTRY(3)
LEVEL_ENTRY(4)
LEVEL_ENTRY(5)
LEVEL_ENTRY(6)
LEVEL_ENTRY(7)
static void (*const level_entry[LEVELS])(int, siginfo_t *, void *) = {
    fault_level_0, fault_level_1, fault_level_2, fault_level_3,
    fault_level_4, fault_level_5, fault_level_6, fault_level_7,
};

/* Installs level n's entry for fr's signal; *old (if not NULL) gets what was
 * there. Returns 0 or -1. */
static int install_level(const sig_front *fr, int n, struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = level_entry[n];
    sa.sa_flags = HANDLER_FLAGS;
    sigemptyset(&sa.sa_mask);
    return sigaction(fr->sig, &sa, old);
}

/* The level whose entry a disposition is, or -1 when it is not one of ours. */
static int level_of(const struct sigaction *sa)
{
    if (!(sa->sa_flags & SA_SIGINFO))
        return -1;
    for (int n = 0; n < LEVELS; n++)
        if (sa->sa_sigaction == level_entry[n])
            return n;
    return -1;
}

static bool same_disposition(const struct sigaction *a, const struct sigaction *b)
{
    if ((a->sa_flags & SA_SIGINFO) != (b->sa_flags & SA_SIGINFO))
        return false;
    return a->sa_flags & SA_SIGINFO ? a->sa_sigaction == b->sa_sigaction
                                    : a->sa_handler == b->sa_handler;
}

/* Puts our handler in front of whatever the host installed for fr's signal, with
 * front_lock held. Returns 0, or -1 when it cannot be (every level in use). */
static int take_front_locked(sig_front *fr)
{
    struct sigaction cur;
    if (sigaction(fr->sig, NULL, &cur) != 0)
        return -1;
    int k = level_of(&cur);
    if (k >= 0) {
        /* Ours, maybe an older level the host put back (its handler removed). */
        if ((cur.sa_flags & HANDLER_FLAGS) != HANDLER_FLAGS && install_level(fr, k, NULL) != 0)
            return -1;
        __atomic_store_n(&fr->installed, k, __ATOMIC_RELAXED);
        return 0;
    }
    /* The host's handler replaced level m. Installed again, it leaves the place
       it had: that level passes on to where the handler chained from there. */
    int m = fr->installed;
    for (int j = 1; j < LEVELS; j++)
        if (fr->level[j].kind == LINK_HOST && same_disposition(&fr->level[j].host, &cur))
            __atomic_store_n(&fr->level[j].kind, LINK_PASS, __ATOMIC_RELEASE);
    for (int j = 1; j < LEVELS; j++) {
        if (fr->level[j].kind != LINK_PASS)
            continue;
        int b = fr->level[j].below;
        for (int steps = 0; b > 0 && fr->level[b].kind == LINK_PASS && steps < LEVELS; steps++)
            b = fr->level[b].below;
        __atomic_store_n(&fr->level[j].below, b, __ATOMIC_RELAXED);
    }
    /* A level that a fault can reach from level m is in use. */
    bool used[LEVELS] = { true };
    for (int j = m; j > 0 && !used[j];) {
        used[j] = true;
        j = fr->level[j].kind == LINK_FREE ? 0 : fr->level[j].below;
    }
    int n = 1;
    while (n < LEVELS && used[n])
        n++;
    if (n == LEVELS)
        return -1;
    fr->level[n].host = cur;
    fr->level[n].below = m;
    __atomic_store_n(&fr->level[n].kind, LINK_HOST, __ATOMIC_RELEASE);
    if (install_level(fr, n, NULL) != 0) {
        __atomic_store_n(&fr->level[n].kind, LINK_FREE, __ATOMIC_RELEASE);
        return -1;
    }
    __atomic_store_n(&fr->installed, n, __ATOMIC_RELAXED);
    return 0;
}

/* Whether our handler is in front for both signals, putting it there if needed.
 * One sigaction call per signal when nothing changed. */
static bool in_front(void)
{
    bool ok = true;
    for (int i = 0; i < 2; i++) {
        sig_front *fr = &fronts[i];
        struct sigaction cur;
        if (sigaction(fr->sig, NULL, &cur) == 0 &&
            level_of(&cur) == __atomic_load_n(&fr->installed, __ATOMIC_RELAXED) &&
            (cur.sa_flags & HANDLER_FLAGS) == HANDLER_FLAGS)
            continue;
        pthread_mutex_lock(&front_lock);
        if (take_front_locked(fr) != 0)
            ok = false;
        pthread_mutex_unlock(&front_lock);
    }
    return ok;
}

static int disarm(capsa__rt_track *t, uint8_t *data);

/* Before an outermost guest call: our handler goes in front. When it cannot, a
 * host handler gets the guest's faults first, so the call's memory must not rely
 * on them for its tracking: tracking stops (the next restore scans). Returns 0, or
 * -1 when even that failed. */
static int guard_faults(const wasm_rt_memory_t *memory, capsa__rt_track *track)
{
    if (in_front() || !track || !track->armed)
        return 0;
    return disarm(track, memory->data);
}

/* Thread exit: the alternate signal stack and the guest stack go with the thread. */
static void free_thread(void *p)
{
    (void)p;
    stack_t ss = { .ss_flags = SS_DISABLE };
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == p) {
        sigaltstack(&ss, NULL);
        free(p);
    }
    if (tls.stack)
        munmap(tls.stack, GUEST_STACK_SIZE);
    tls.stack = NULL;
    tls.prepared = false;
}

static void init_process(void)
{
    if (pthread_key_create(&thread_key, free_thread) != 0)
        return;
    if (install_level(&fronts[0], 0, &fronts[0].first) != 0 ||
        install_level(&fronts[1], 0, &fronts[1].first) != 0)
        return;
    init_status = 0;
}

int capsa__rt_init(void)
{
    pthread_once(&init_once, init_process);
    return init_status;
}

int capsa__rt_thread_prepare(void)
{
    if (tls.prepared)
        return 0;
    if (capsa__rt_init() != 0)
        return -1;
    void *alt = NULL;
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_DISABLE)) {
        alt = malloc(ALT_STACK_SIZE);
        if (!alt)
            return -1;
        stack_t ss = { .ss_sp = alt, .ss_size = ALT_STACK_SIZE, .ss_flags = 0 };
        if (sigaltstack(&ss, NULL) != 0) {
            free(alt);
            return -1;
        }
    }
    void *stack = mmap(NULL, GUEST_STACK_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED || mprotect(stack, GUEST_STACK_GUARD, PROT_NONE) != 0) {
        if (stack != MAP_FAILED)
            munmap(stack, GUEST_STACK_SIZE);
        if (alt) {
            stack_t off = { .ss_flags = SS_DISABLE };
            sigaltstack(&off, NULL);
            free(alt);
        }
        return -1;
    }
    tls.stack = stack;
    /* The key's value is what free_thread gets: the alternate stack we own, if any
     * (a non-NULL value is needed for the destructor to run at all). */
    if (pthread_setspecific(thread_key, alt ? alt : stack) != 0) {
        munmap(stack, GUEST_STACK_SIZE);
        tls.stack = NULL;
        return -1;
    }
    tls.prepared = true;
    return 0;
}

/* Runs the innermost frame's function under trap protection, on the guest
 * stack. */
static void guest_stack_run(void)
{
    rt_frame *f = tls.frame;
    int trap = sigsetjmp(f->jmp, 0);
    if (trap == 0)
        f->fn(f->arg);
    f->trap = trap;
}

#if OWN_SWITCH
/* capsa__rt_switch(save, to): pushes the callee-saved registers and the SSE and
 * x87 control words, stores the stack pointer in *save and pops the same from the
 * stack at to (returning where that stack was left). capsa__rt_stack_start is
 * where a stack made by run_on_guest_stack first returns to: it calls the
 * function in r13, which never returns. */
void capsa__rt_switch(void **save, void *to) __attribute__((visibility("hidden")));
void capsa__rt_stack_start(void) __attribute__((visibility("hidden")));
__asm__(".pushsection .text\n"
        ".p2align 4\n"
        ".globl capsa__rt_switch\n"
        ".hidden capsa__rt_switch\n"
        ".type capsa__rt_switch, @function\n"
        "capsa__rt_switch:\n"
        "    .cfi_startproc\n"
        "    endbr64\n"
        "    pushq %rbp\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    pushq %rbx\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    pushq %r12\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    pushq %r13\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    pushq %r14\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    pushq %r15\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    subq $8, %rsp\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    stmxcsr (%rsp)\n"
        "    fnstcw 4(%rsp)\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    ldmxcsr (%rsp)\n"
        "    fldcw 4(%rsp)\n"
        "    addq $8, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        "    .cfi_endproc\n"
        ".size capsa__rt_switch, .-capsa__rt_switch\n"
        ".p2align 4\n"
        ".globl capsa__rt_stack_start\n"
        ".hidden capsa__rt_stack_start\n"
        ".type capsa__rt_stack_start, @function\n"
        "capsa__rt_stack_start:\n"
        "    .cfi_startproc\n"
        "    .cfi_undefined rip\n"
        "    callq *%r13\n"
        "    ud2\n"
        "    .cfi_endproc\n"
        ".size capsa__rt_stack_start, .-capsa__rt_stack_start\n"
        ".popsection\n");

/* The first function of the guest stack: the frame's call, then back to the host
 * for good (the next call makes the stack anew). */
static _Noreturn void guest_stack_main(void)
{
    guest_stack_run();
    capsa__rt_switch(&tls.guest_sp, tls.host_sp);
    __builtin_unreachable();
}

/* Runs guest_stack_run on the guest stack. The stack's top holds what
 * capsa__rt_switch pops: this thread's control words, zeros for the registers but
 * r13 (guest_stack_main), and capsa__rt_stack_start to return to, which then
 * runs with the stack pointer 16-byte aligned, as a call needs. Returns 0. */
static int run_on_guest_stack(void)
{
    uint64_t *to = (uint64_t *)(void *)(tls.stack + GUEST_STACK_SIZE) - 10;
    uint16_t fpcw;
    __asm__ volatile("fnstcw %0" : "=m"(fpcw));
    memset(to, 0, 8 * sizeof(*to));
    to[0] = (uint64_t)__builtin_ia32_stmxcsr() | (uint64_t)fpcw << 32;
    to[3] = (uint64_t)(uintptr_t)guest_stack_main;       /* r13 */
    to[7] = (uint64_t)(uintptr_t)capsa__rt_stack_start; /* the return address */
    capsa__rt_switch(&tls.host_sp, to);
    return 0;
}
#else
/* Entry of the guest stack: the frame's call, then back to the host context
 * (uc_link). */
static void guest_stack_entry(void)
{
    ASAN_FINISH_SWITCH(NULL, &tls.host_stack_bottom, &tls.host_stack_size);
    guest_stack_run();
    ASAN_START_SWITCH(NULL, tls.host_stack_bottom, tls.host_stack_size);
}

/* Runs guest_stack_run on the guest stack. Returns 0, or -1 when the switch
 * failed. */
static int run_on_guest_stack(void)
{
    if (getcontext(&tls.guest_ctx) != 0)
        return -1;
    tls.guest_ctx.uc_stack.ss_sp = tls.stack + GUEST_STACK_GUARD;
    tls.guest_ctx.uc_stack.ss_size = GUEST_STACK_SIZE - GUEST_STACK_GUARD;
    tls.guest_ctx.uc_link = &tls.host_ctx;
    makecontext(&tls.guest_ctx, guest_stack_entry, 0);
    void *fake = NULL;
    ASAN_START_SWITCH(&fake, tls.guest_ctx.uc_stack.ss_sp, tls.guest_ctx.uc_stack.ss_size);
    int rc = swapcontext(&tls.host_ctx, &tls.guest_ctx);
    ASAN_FINISH_SWITCH(fake, NULL, NULL);
    return rc == 0 ? 0 : -1;
}
#endif

uint64_t capsa__rt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t capsa__rt_deadline_ns(void)
{
    return tls.frame ? tls.frame->deadline_ns : 0;
}

int capsa__rt_interrupted(void)
{
    const rt_frame *f = tls.frame;
    return f && f->interrupt && (__atomic_load_n(f->interrupt, __ATOMIC_RELAXED) & CAPSA__RT_INTERRUPT);
}

_Noreturn void capsa__rt_timeout(void)
{
    trap_to_host(CAPSA__TRAP_TIMEOUT);
}

_Noreturn void capsa__rt_exit(uint32_t code)
{
    tls_exit_code = code;
    trap_to_host(CAPSA__TRAP_EXIT);
}

uint32_t capsa__rt_exit_code(void)
{
    return tls_exit_code;
}

/* The next slice for the innermost frame: the rest of the budget, at most a
 * slice. Unlimited calls get a full slice each time. */
static uint64_t next_slice(const rt_frame *f)
{
    if (!f->fuel_limit)
        return FUEL_SLICE;
    uint64_t left = f->fuel_limit - f->fuel_handed;
    return left < FUEL_SLICE ? left : FUEL_SLICE;
}

int64_t capsa__rt_fuel_slice(int64_t *counter)
{
    int64_t left = -1; /* a metering point spent the unit the counter did not have */
    rt_frame *f = tls.frame;
    if (!f || counter != f->fuel) {
        /* Metered code running outside a frame of its own cannot be stopped:
           keep it going rather than fault. */
        return *counter = left + FUEL_SLICE;
    }
    *counter = left; /* what a trap here reports */
    if ((f->deadline_ns && capsa__rt_now_ns() >= f->deadline_ns) || capsa__rt_interrupted())
        trap_to_host(CAPSA__TRAP_TIMEOUT);
    uint64_t n = next_slice(f);
    if (n == 0)
        trap_to_host(CAPSA__TRAP_FUEL);
    f->fuel_handed += n;
    return *counter = left + (int64_t)n;
}

void capsa__rt_fuel_to_host(int64_t *counter, int64_t left)
{
    *counter = left;
    rt_frame *f = tls.frame;
    if (f && counter == f->fuel)
        f->in_host = true;
}

int64_t capsa__rt_fuel_from_host(int64_t *counter)
{
    rt_frame *f = tls.frame;
    if (f && counter == f->fuel)
        f->in_host = false;
    return *counter;
}

_Noreturn void capsa__rt_fuel_trap(int64_t left, int code)
{
    rt_frame *f = tls.frame;
    if (f && !f->in_host)
        *f->fuel = left;
    trap_to_host(code);
}

int capsa__rt_call(const wasm_rt_memory_t *memory, capsa__rt_track *track, int64_t *fuel,
                   const capsa__rt_limits *limits, void (*fn)(void *), void *arg,
                   uint64_t *fuel_used)
{
    rt_frame f;
    f.prev = tls.frame;
    f.memory = memory;
    f.track = track;
    f.fn = fn;
    f.arg = arg;
    f.trap = 0;
    f.fuel = fuel;
    f.fuel_limit = limits ? limits->fuel : 0;
    f.deadline_ns = limits ? limits->deadline_ns : 0;
    f.interrupt = limits ? limits->interrupt : NULL;
    f.fuel_handed = 0;
    f.fuel_handed = next_slice(&f);
    f.in_host = false;
    int64_t saved = *fuel; /* a nested call gives the outer one its counter back */
    *fuel = (int64_t)f.fuel_handed;
    tls.frame = &f;
    if (f.prev) {
        /* Already on the guest stack (a host function called back into a guest). */
        int trap = sigsetjmp(f.jmp, 0);
        if (trap == 0)
            fn(arg);
        f.trap = trap;
    } else if (guard_faults(memory, track) != 0 || run_on_guest_stack() != 0) {
        f.trap = CAPSA__TRAP_NOMEM;
    }
    tls.frame = f.prev;
    if (fuel_used) {
        /* The counter ends at -1 when the unit that ran over was refused. */
        int64_t left = *fuel < 0 ? 0 : *fuel;
        uint64_t used = f.fuel_handed - (uint64_t)left;
        *fuel_used = f.fuel_limit && used > f.fuel_limit ? f.fuel_limit : used;
    }
    *fuel = saved;
    return f.trap;
}

/* ---- the contract's process-wide functions ------------------------------------- */

void wasm_rt_init(void)
{
    capsa__rt_init();
}

bool wasm_rt_is_initialized(void)
{
    return init_status == 0;
}

void wasm_rt_free(void)
{
    /* Signal handlers and function types live as long as the process. */
}

typedef struct func_type {
    uint32_t params, results;
    wasm_rt_type_t *types; /* params then results */
} func_type;

static pthread_mutex_t types_lock = PTHREAD_MUTEX_INITIALIZER;
static func_type *types;
static uint32_t ntypes, captypes;

/* Returns the 1-based index of a signature, equal for equal signatures, or 0 when
 * out of memory (0 never matches a table entry, so calls through it trap). */
uint32_t wasm_rt_register_func_type(uint32_t params, uint32_t results, ...)
{
    uint32_t n = params + results, idx = 0;
    wasm_rt_type_t *t = malloc((n ? n : 1) * sizeof(*t));
    if (!t)
        return 0;
    va_list ap;
    va_start(ap, results);
    for (uint32_t i = 0; i < n; i++)
        t[i] = (wasm_rt_type_t)va_arg(ap, int);
    va_end(ap);

    pthread_mutex_lock(&types_lock);
    for (uint32_t i = 0; i < ntypes; i++) {
        if (types[i].params == params && types[i].results == results &&
            memcmp(types[i].types, t, n * sizeof(*t)) == 0) {
            idx = i + 1;
            break;
        }
    }
    if (!idx) {
        if (ntypes == captypes) {
            uint32_t cap = captypes ? captypes * 2 : 32;
            func_type *nt = realloc(types, cap * sizeof(*nt));
            if (!nt)
                goto out;
            types = nt;
            captypes = cap;
        }
        types[ntypes] = (func_type){ params, results, t };
        t = NULL;
        idx = ++ntypes;
    }
out:
    pthread_mutex_unlock(&types_lock);
    free(t);
    return idx;
}

/* ---- linear memory --------------------------------------------------------------- */

/* Reserves len bytes of address space, inaccessible and committing nothing: at
 * `at` (replacing what is mapped there) or, with at NULL, where the kernel puts
 * it. Returns the address or MAP_FAILED. */
static void *reserve(void *at, uint64_t len)
{
    return mmap(at, len, PROT_NONE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (at ? MAP_FIXED : 0), -1, 0);
}

void wasm_rt_allocate_memory(wasm_rt_memory_t *m, uint32_t initial_pages, uint32_t max_pages)
{
    m->data = NULL;
    m->pages = 0;
    m->size = 0;
    m->max_pages = max_pages;
    if (initial_pages >= 65536 || initial_pages > max_pages)
        trap_to_host(CAPSA__TRAP_NOMEM);
    void *p = reserve(NULL, CAPSA__RT_RESERVE);
    if (p == MAP_FAILED)
        trap_to_host(CAPSA__TRAP_NOMEM);
    uint64_t bytes = (uint64_t)initial_pages * CAPSA__WASM_PAGE;
    if (bytes && mprotect(p, bytes, PROT_READ | PROT_WRITE) != 0) {
        munmap(p, CAPSA__RT_RESERVE);
        trap_to_host(CAPSA__TRAP_NOMEM);
    }
    m->data = p;
    m->pages = initial_pages;
    m->size = (uint32_t)bytes;
}

uint32_t wasm_rt_grow_memory(wasm_rt_memory_t *m, uint32_t delta)
{
    uint32_t old = m->pages;
    if (delta == 0)
        return old;
    uint64_t want = (uint64_t)old + delta;
    /* A 32-bit size field caps usable memory just below 4 GiB. */
    if (want > m->max_pages || want >= 65536)
        return UINT32_MAX;
    uint8_t *start = m->data + (uint64_t)old * CAPSA__WASM_PAGE;
    if (mprotect(start, (uint64_t)delta * CAPSA__WASM_PAGE, PROT_READ | PROT_WRITE) != 0)
        return UINT32_MAX;
    m->pages = (uint32_t)want;
    m->size = (uint32_t)(want * CAPSA__WASM_PAGE);
    return old;
}

void wasm_rt_free_memory(wasm_rt_memory_t *m)
{
    if (m->data)
        munmap(m->data, CAPSA__RT_RESERVE);
    m->data = NULL;
    m->pages = m->size = 0;
}

/* ---- images ---------------------------------------------------------------------- */

/* The host's page size, read once. */
static pthread_once_t page_once = PTHREAD_ONCE_INIT;
static long host_page;

static void read_page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    if (p > 0 && CAPSA__WASM_PAGE % (unsigned long)p == 0)
        host_page = p;
}

/* Writes bytes[0..n) at off of the image file fd: 0, or -1. */
static int image_put(int fd, uint64_t off, const uint8_t *bytes, uint64_t n)
{
    for (uint64_t done = 0; done < n;) {
        ssize_t w = pwrite(fd, bytes + done, n - done, (off_t)(off + done));
        if (w <= 0)
            return -1;
        done += (uint64_t)w;
    }
    return 0;
}

/* The image file of a memory of pages wasm pages, all zeros (a hole). Returns its
 * descriptor, or -1. */
static int image_open(capsa__rt_image *img, uint32_t pages, uint32_t max_pages)
{
    img->fd = -1;
    img->view = NULL;
    img->offset = 0;
    img->mapped = 0;
    img->pages = pages;
    img->max_pages = max_pages;
    memset(&img->hot, 0, sizeof(img->hot));
    int fd = memfd_create("capsa-image", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd >= 0 && ftruncate(fd, (off_t)((uint64_t)pages * CAPSA__WASM_PAGE)) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Seals the written image file fd (nobody can change the image under the
 * instances that map it) and maps it into img. 0, or -1 with fd closed. */
static int image_seal(capsa__rt_image *img, int fd)
{
    uint64_t size = (uint64_t)img->pages * CAPSA__WASM_PAGE;
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
        goto fail;
    if (size) {
        void *view = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
        if (view == MAP_FAILED)
            goto fail;
        img->view = view;
    }
    img->fd = fd;
    return 0;
fail:
    close(fd);
    return -1;
}

/* Writes the chunks of bytes[0..size) that are not zeros into the image file fd
 * (the rest stays a hole, which costs nothing and reads as zeros). 0, or -1. */
static int image_put_data(int fd, const uint8_t *bytes, uint64_t size)
{
    static const uint8_t zero[CAPSA__RT_CHUNK];
    for (uint64_t off = 0; off < size; off += CAPSA__RT_CHUNK) {
        uint64_t n = size - off < CAPSA__RT_CHUNK ? size - off : CAPSA__RT_CHUNK;
        if (memcmp(bytes + off, zero, n) != 0 && image_put(fd, off, bytes + off, n) != 0)
            return -1;
    }
    return 0;
}

/* Makes *img a sealed image file holding bytes[0..pages wasm pages). 0, or -1. */
static int image_copy(capsa__rt_image *img, const uint8_t *bytes, uint32_t pages,
                      uint32_t max_pages)
{
    int fd = image_open(img, pages, max_pages);
    if (fd < 0)
        return -1;
    if (image_put_data(fd, bytes, (uint64_t)pages * CAPSA__WASM_PAGE) != 0) {
        close(fd);
        return -1;
    }
    return image_seal(img, fd);
}

int capsa__rt_image_capture(capsa__rt_image *img, const wasm_rt_memory_t *m)
{
    return image_copy(img, m->data, (uint32_t)m->pages, (uint32_t)m->max_pages);
}

/* The file this process maps read-only at p (a page boundary), and p's offset in
 * it: the line of /proc/self/maps whose range holds p, the file opened by its
 * path and checked to be the very one mapped (its device and inode: a file put
 * in its place since, as by an upgrade, is not). Returns the descriptor, or -1. */
static int mapped_file(const void *p, uint64_t *offset)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return -1;
    char line[4096 + 128];
    int fd = -1;
    uintptr_t at = (uintptr_t)p;
    while (fd < 0 && fgets(line, sizeof(line), f)) {
        unsigned long long start, end, off, ino;
        unsigned dev_major, dev_minor;
        int path_at = 0;
        char perms[5];
        if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &start, &end, perms, &off,
                   &dev_major, &dev_minor, &ino, &path_at) < 7 || at < start || at >= end)
            continue;
        char *path = line + path_at;
        path[strcspn(path, "\n")] = '\0';
        struct stat st;
        if (path[0] != '/' || perms[0] != 'r' || perms[3] != 'p' ||
            (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
            break;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_ino != ino ||
            major(st.st_dev) != dev_major || minor(st.st_dev) != dev_minor) {
            close(fd);
            fd = -1;
            break;
        }
        *offset = off + (at - start);
    }
    fclose(f);
    return fd;
}

int capsa__rt_image_from_bytes(capsa__rt_image *img, const uint8_t *bytes, uint32_t pages,
                               uint32_t max_pages)
{
    pthread_once(&page_once, read_page_size);
    uint64_t size = (uint64_t)pages * CAPSA__WASM_PAGE, offset = 0;
    int fd = host_page > 0 && (uintptr_t)bytes % (uintptr_t)host_page == 0 && size
                 ? mapped_file(bytes, &offset) : -1;
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && offset % (uint64_t)host_page == 0 &&
        offset + size <= (uint64_t)st.st_size) {
        void *view = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, (off_t)offset);
        if (view != MAP_FAILED) {
            img->fd = fd;
            img->offset = offset;
            img->view = view;
            img->pages = pages;
            img->max_pages = max_pages;
            img->mapped = 1;
            memset(&img->hot, 0, sizeof(img->hot));
            return 0;
        }
    }
    if (fd >= 0)
        close(fd);
    /* Not in a file this process can map again: copied into an image file. */
    return image_copy(img, bytes, pages, max_pages);
}

void capsa__rt_image_release(capsa__rt_image *img)
{
    if (img->view)
        munmap((void *)img->view, (size_t)img->pages * CAPSA__WASM_PAGE);
    if (img->fd >= 0)
        close(img->fd);
    img->view = NULL;
    img->fd = -1;
}

/* ---- the pages a memory writes first ----------------------------------------------- */

enum { HOT_NONE, HOT_LEARNING, HOT_LEARNED };
/* The first HOT_TRIES memories freed are looked at, then one in HOT_EVERY (a
   process whose first sandboxes are large, as restored sessions are, may still
   make small ones later; a look reads 8 bytes of page table a page). */
#define HOT_TRIES 8
#define HOT_EVERY 64

/* /proc/self/pagemap: one 64-bit entry per page of the process. */
#define PAGEMAP_PRESENT (1ull << 63)
#define PAGEMAP_SWAPPED (1ull << 62)
#define PAGEMAP_FILE (1ull << 61) /* a page-cache page: in our mapping, the image's */

/* Whether pagemap entry e says the page is no longer the image's (within the
 * image: a private copy made when the guest wrote it, present and not a file page,
 * or such a copy swapped out; pages only read are the image's) or was ever
 * touched (beyond it). */
static int page_candidate(uint64_t e, int in_image)
{
    if (e & PAGEMAP_SWAPPED)
        return 1;
    return (e & PAGEMAP_PRESENT) && (!in_image || !(e & PAGEMAP_FILE));
}

/* Calls note(ctx, p) for each page p of the n host pages of an image's memory at
 * data that is no longer the image's, in order, until note returns non-zero.
 * Returns 0, note's non-zero, or -1 when the page tables cannot be read. The
 * pagemap is opened for each walk: a descriptor kept open would, in a child forked
 * from this process, still read the parent's page tables. */
static int walk_written(const uint8_t *data, uint64_t n, int (*note)(void *, uint32_t), void *ctx)
{
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    enum { BATCH = 512 };
    uint64_t entries[BATCH], page = (uint64_t)host_page;
    int rc = 0;
    for (uint64_t first = 0; !rc && first < n; first += BATCH) {
        uint64_t k = n - first < BATCH ? n - first : BATCH;
        off_t at = (off_t)(((uintptr_t)data / page + first) * sizeof(uint64_t));
        size_t want = (size_t)k * sizeof(uint64_t);
        if (pread(fd, entries, want, at) != (ssize_t)want)
            rc = -1;
        for (uint64_t i = 0; !rc && i < k; i++)
            if (page_candidate(entries[i], 1))
                rc = note(ctx, (uint32_t)(first + i));
    }
    close(fd);
    return rc;
}

/* Gives the memory at data its own copies of the hot pages (MADV_POPULATE_WRITE:
 * what a write fault on each would do). A kernel without it (before Linux 5.14)
 * refuses, and the pages are then copied when first written, as without. */
static void give_hot_pages(uint8_t *data, const capsa__rt_hot *hot)
{
#ifdef MADV_POPULATE_WRITE
    if (__atomic_load_n(&hot->state, __ATOMIC_ACQUIRE) != HOT_LEARNED)
        return;
    size_t page = (size_t)host_page;
    for (uint32_t i = 0; i < hot->nruns; i++)
        if (madvise(data + (size_t)hot->at[i] * page, (size_t)hot->len[i] * page,
                    MADV_POPULATE_WRITE) != 0)
            return;
#else
    (void)data;
    (void)hot;
#endif
}

/* walk_written's note for the hot pages: page p joins the runs of hot (ctx), or 1
 * when there are too many of them. */
static int note_hot(void *ctx, uint32_t p)
{
    capsa__rt_hot *hot = ctx;
    uint32_t total = 0;
    for (uint32_t i = 0; i < hot->nruns; i++)
        total += hot->len[i];
    if (total == CAPSA__RT_HOT_MAX)
        return 1;
    if (hot->nruns && hot->at[hot->nruns - 1] + hot->len[hot->nruns - 1] == p) {
        hot->len[hot->nruns - 1]++;
        return 0;
    }
    if (hot->nruns == CAPSA__RT_HOT_RUNS)
        return 1;
    hot->at[hot->nruns] = p;
    hot->len[hot->nruns++] = 1;
    return 0;
}

void capsa__rt_image_learn(capsa__rt_image *img, const wasm_rt_memory_t *m)
{
    capsa__rt_hot *hot = &img->hot;
    int none = HOT_NONE;
    if (!m->data || !img->pages || m->pages < img->pages ||
        !__atomic_compare_exchange_n(&hot->state, &none, HOT_LEARNING, 0, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        return;
    uint64_t seen = hot->seen++;
    int next = HOT_NONE;
    if (seen < HOT_TRIES || seen % HOT_EVERY == 0) {
        pthread_once(&page_once, read_page_size);
        uint64_t n = host_page > 0 ? (uint64_t)img->pages * CAPSA__WASM_PAGE / (uint64_t)host_page
                                   : 0;
        hot->nruns = 0;
        if (n && walk_written(m->data, n, note_hot, hot) == 0 && hot->nruns)
            next = HOT_LEARNED;
    }
    __atomic_store_n(&hot->state, next, __ATOMIC_RELEASE);
}

int capsa__rt_memory_from_image(wasm_rt_memory_t *m, const capsa__rt_image *img)
{
    memset(m, 0, sizeof(*m));
    void *p = reserve(NULL, CAPSA__RT_RESERVE);
    if (p == MAP_FAILED)
        return -1;
    uint64_t bytes = (uint64_t)img->pages * CAPSA__WASM_PAGE;
    if (bytes && mmap(p, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, img->fd,
                      (off_t)img->offset) == MAP_FAILED) {
        munmap(p, CAPSA__RT_RESERVE);
        return -1;
    }
    m->data = p;
    m->pages = img->pages;
    m->max_pages = img->max_pages;
    m->size = (uint32_t)bytes;
    give_hot_pages(m->data, &img->hot);
    return 0;
}

/* The mapping budget of tracking (see capsa__rt_track_budget): the process's
 * pieces in use and the two limits. Process-wide because mappings are. */
static uint32_t budget_used;
static uint32_t budget_memory = 256, budget_process = 16384;

uint32_t capsa__rt_track_budget(uint32_t per_memory, uint32_t process)
{
    uint32_t old = __atomic_load_n(&budget_process, __ATOMIC_RELAXED);
    __atomic_store_n(&budget_memory, per_memory, __ATOMIC_RELAXED);
    __atomic_store_n(&budget_process, process, __ATOMIC_RELAXED);
    return old;
}

/* Takes n more pieces for t from the budget: returns 0, or -1 (nothing taken)
 * when t or the process would go over. Async-signal-safe (lock-free atomics). */
static int take_pieces(capsa__rt_track *t, uint32_t n)
{
    if ((uint64_t)t->pieces + n > __atomic_load_n(&budget_memory, __ATOMIC_RELAXED))
        return -1;
    uint32_t used = __atomic_add_fetch(&budget_used, n, __ATOMIC_RELAXED);
    if (used > __atomic_load_n(&budget_process, __ATOMIC_RELAXED)) {
        __atomic_sub_fetch(&budget_used, n, __ATOMIC_RELAXED);
        return -1;
    }
    t->pieces += n;
    return 0;
}

static void give_pieces(capsa__rt_track *t)
{
    __atomic_sub_fetch(&budget_used, t->pieces, __ATOMIC_RELAXED);
    t->pieces = 0;
}

/* Stops tracking: the whole image becomes writable again, which joins its pieces
 * into one mapping, and the next restore finds the written pages by scanning.
 * Returns 0, or -1 when even that failed. Async-signal-safe. */
static int disarm(capsa__rt_track *t, uint8_t *data)
{
    t->armed = 0;
    if (mprotect(data, (size_t)t->npages * (size_t)host_page, PROT_READ | PROT_WRITE) != 0)
        return -1;
    give_pieces(t);
    return 0;
}

/* Called from the fault handler (so only async-signal-safe calls): a fault at
 * offset off of a memory whose tracking is armed is the first write to one of the
 * image's read-only pages when it lies there and the page is not noted yet. The
 * page is made writable and noted, or, when that would go over the mapping budget
 * or the mapping cannot be split, tracking stops: returns 1. Returns 0 when the
 * fault is not such a write, and -1 when the page cannot be made writable at all
 * (out of memory). */
static int track_write(capsa__rt_track *t, uint8_t *data, uint64_t off)
{
    if (!t->armed || off >= (uint64_t)t->npages * (uint64_t)host_page)
        return 0;
    uint64_t page = off / (uint64_t)host_page;
    if (t->written[page])
        return 0;
    /* Opening a page inside a read-only run splits it: two more mappings. */
    if (take_pieces(t, 2) == 0) {
        if (mprotect(data + page * (uint64_t)host_page, (size_t)host_page,
                     PROT_READ | PROT_WRITE) == 0) {
            t->written[page] = 1;
            t->list[t->nlist++] = (uint32_t)page;
            return 1;
        }
    }
    return disarm(t, data) == 0 ? 1 : -1;
}

void capsa__rt_track_free(capsa__rt_track *t)
{
    give_pieces(t);
    free(t->written);
    free(t->list);
    memset(t, 0, sizeof(*t));
}

/* Copies back from the image every page in t's list. */
static void restore_noted(uint8_t *data, const uint8_t *image, const capsa__rt_track *t)
{
    size_t page = (size_t)host_page;
    for (uint32_t i = 0; i < t->nlist; i++) {
        size_t off = (size_t)t->list[i] * page;
        memcpy(data + off, image + off, page);
    }
}

/* walk_written's note for scan_written: notes page p in t (ctx). */
static int note_written(void *ctx, uint32_t p)
{
    capsa__rt_track *t = ctx;
    t->written[p] = 1;
    t->list[t->nlist++] = p;
    return 0;
}

/* Finds the pages of [0, t->npages) that are no longer the image's own
 * (walk_written) and notes them in t, which it empties first. Returns 0 or -1. */
static int scan_written(const uint8_t *data, capsa__rt_track *t)
{
    memset(t->written, 0, t->npages);
    t->nlist = 0;
    return walk_written(data, t->npages, note_written, t);
}

/* Makes every page of the image that t does not note read-only, in runs, when
 * the mapping budget allows. Returns 0 (armed: t holds the pieces); 1 when not
 * armed (over the budget, or the process's map count is at its limit), with the
 * whole image writable; -1 when not even that worked (some pages may stay
 * read-only). */
static int protect_unwritten(uint8_t *data, capsa__rt_track *t)
{
    uint32_t runs = 0;
    for (uint32_t p = 0; p < t->npages; p++)
        runs += !t->written[p] && (p == 0 || t->written[p - 1]);
    /* Each run can split the image's mapping in two more pieces. */
    if (runs && take_pieces(t, 2 * runs) != 0)
        return 1;
    size_t page = (size_t)host_page;
    for (uint32_t p = 0; p < t->npages;) {
        if (t->written[p]) {
            p++;
            continue;
        }
        uint32_t end = p;
        while (end < t->npages && !t->written[end])
            end++;
        if (mprotect(data + (size_t)p * page, (size_t)(end - p) * page, PROT_READ) != 0)
            return disarm(t, data) == 0 ? 1 : -1;
        p = end;
    }
    return 0;
}

/* Grown memory up to this much keeps its pages when a memory goes back to its
 * image: zeroed and out of reach, so that growing again (a checkpoint's
 * restore, a run that allocates) finds them made instead of faulting each one
 * in anew (on the session of make bench's checkpoint figures, making the 4 MB
 * of pages a restore grows took 1.6 of its 3.8 ms). */
#define KEEP_GROWN (16ull << 20)

/* Zeroes the pages of data[0..len) that are present (the others read as zeros
 * already); every page when the page tables cannot be read. */
static void zero_present(uint8_t *data, uint64_t len)
{
    uint64_t page = (uint64_t)host_page, npages = len / page;
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    enum { BATCH = 512 };
    uint64_t entries[BATCH];
    for (uint64_t first = 0; first < npages; first += BATCH) {
        uint64_t n = npages - first < BATCH ? npages - first : BATCH;
        size_t want = (size_t)n * sizeof(uint64_t);
        off_t at = (off_t)(((uintptr_t)data / page + first) * sizeof(uint64_t));
        if (fd >= 0 && pread(fd, entries, want, at) != (ssize_t)want) {
            close(fd);
            fd = -1;
        }
        for (uint64_t i = 0; i < n; i++)
            if (fd < 0 || (entries[i] & (PAGEMAP_PRESENT | PAGEMAP_SWAPPED)))
                memset(data + (first + i) * page, 0, page);
    }
    if (fd >= 0)
        close(fd);
}

int capsa__rt_memory_restore(wasm_rt_memory_t *m, capsa__rt_track *t, const capsa__rt_image *img)
{
    pthread_once(&page_once, read_page_size);
    uint64_t bytes = (uint64_t)img->pages * CAPSA__WASM_PAGE;
    if (host_page <= 0 || !m->data || m->pages < img->pages || (bytes && !img->view))
        return -1;
    if (m->pages > img->pages) {
        /* Grown memory goes back to the reservation: past KEEP_GROWN its pages
           are freed. */
        uint8_t *grown = m->data + bytes;
        uint64_t len = (uint64_t)m->size - bytes, keep = len < KEEP_GROWN ? len : KEEP_GROWN;
        zero_present(grown, keep);
        if (mprotect(grown, keep, PROT_NONE) != 0 ||
            (len > keep && reserve(grown + keep, len - keep) == MAP_FAILED))
            return -1;
        m->pages = img->pages;
        m->size = (uint32_t)bytes;
    }
    m->max_pages = img->max_pages;
    if (t->armed) {
        restore_noted(m->data, img->view, t);
        return 0;
    }
    /* First restore, or tracking was given up: scan, then arm. */
    if (!t->written) {
        t->npages = (uint32_t)(bytes / (uint64_t)host_page);
        t->written = malloc(t->npages ? t->npages : 1);
        t->list = malloc((t->npages ? t->npages : 1) * sizeof(*t->list));
        if (!t->written || !t->list) {
            capsa__rt_track_free(t);
            return -1;
        }
    }
    /* Unarmed, the whole image is writable and holds no pieces; pieces still
       held mean an earlier disarm failed: it must work now. */
    if (t->pieces && disarm(t, m->data) != 0)
        return -1;
    if (scan_written(m->data, t) != 0)
        return -1;
    restore_noted(m->data, img->view, t);
    /* Unarmed, the restore stays exact: the next one scans again. */
    int protect = protect_unwritten(m->data, t);
    if (protect < 0)
        return -1;
    t->armed = protect == 0;
    return 0;
}

/* Compares the host page at off of m with what it should be if unchanged (the
 * image's bytes, or zeros beyond it), chunk by chunk, calling fn for each chunk
 * that differs. */
static int diff_page(const wasm_rt_memory_t *m, const capsa__rt_image *img, uint64_t off,
                     uint64_t from, int (*fn)(void *, uint64_t, const uint8_t *), void *ud)
{
    static const uint8_t zero[CAPSA__RT_CHUNK];
    uint64_t image_bytes = (uint64_t)img->pages * CAPSA__WASM_PAGE;
    for (uint64_t c = off; c < off + (uint64_t)host_page && c < m->size; c += CAPSA__RT_CHUNK) {
        if (c < from)
            continue;
        const uint8_t *was = c < image_bytes ? img->view + c : zero;
        if (memcmp(m->data + c, was, CAPSA__RT_CHUNK) != 0) {
            int rc = fn(ud, c, m->data + c);
            if (rc)
                return rc;
        }
    }
    return 0;
}

int capsa__rt_memory_diff(const wasm_rt_memory_t *m, const capsa__rt_track *t,
                          const capsa__rt_image *img, uint64_t from,
                          int (*fn)(void *ud, uint64_t off, const uint8_t *bytes), void *ud)
{
    pthread_once(&page_once, read_page_size);
    if (host_page <= 0 || (uint64_t)host_page < CAPSA__RT_CHUNK || !m->data)
        return -1;
    uint64_t page = (uint64_t)host_page;
    uint64_t image_bytes = (uint64_t)img->pages * CAPSA__WASM_PAGE;
    uint64_t npages = m->size / page, image_pages = image_bytes / page;
    /* Armed, the image's pages that t does not note are still read-only: the
       image's own. The rest is found in the page tables. */
    uint8_t *noted = NULL;
    if (t && t->armed && t->npages == image_pages) {
        noted = calloc(image_pages ? image_pages : 1, 1);
        if (!noted)
            return -1;
        for (uint32_t i = 0; i < t->nlist; i++)
            noted[t->list[i]] = 1;
    }
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    enum { BATCH = 512 };
    uint64_t entries[BATCH];
    int rc = 0;
    for (uint64_t first = 0; first < npages && !rc; first += BATCH) {
        uint64_t n = npages - first < BATCH ? npages - first : BATCH;
        size_t want = (size_t)n * sizeof(uint64_t);
        off_t at = (off_t)(((uintptr_t)m->data / page + first) * sizeof(uint64_t));
        if (fd >= 0 && pread(fd, entries, want, at) != (ssize_t)want) {
            close(fd);
            fd = -1; /* compare every page from here on */
        }
        for (uint64_t i = 0; i < n && !rc; i++) {
            uint64_t p = first + i;
            int in_image = p < image_pages;
            int candidate = noted && in_image ? noted[p]
                          : fd >= 0 ? page_candidate(entries[i], in_image) : 1;
            if (candidate && (p + 1) * page > from)
                rc = diff_page(m, img, p * page, from, fn, ud);
        }
    }
    if (fd >= 0)
        close(fd);
    free(noted);
    return rc;
}

int capsa__rt_memory_grow_to(wasm_rt_memory_t *m, uint32_t pages)
{
    if (pages < m->pages)
        return -1;
    if (pages == m->pages)
        return 0;
    uint64_t old = m->size;
    if (wasm_rt_grow_memory(m, pages - m->pages) == UINT32_MAX)
        return -1;
#ifdef MADV_POPULATE_WRITE
    /* What a checkpoint grew is written next, mostly: its pages are made in one
       call rather than one fault each (an older kernel refuses: they fault then). */
    madvise(m->data + old, m->size - old, MADV_POPULATE_WRITE);
#endif
    return 0;
}

int capsa__rt_memory_write(wasm_rt_memory_t *m, capsa__rt_track *t, uint64_t off,
                           const uint8_t *bytes, size_t len)
{
    pthread_once(&page_once, read_page_size);
    if (host_page <= 0 || off > m->size || len > m->size - off)
        return -1;
    if (t && t->armed) {
        uint64_t page = (uint64_t)host_page;
        for (uint64_t p = off / page * page; p < off + len; p += page)
            if (track_write(t, m->data, p) < 0)
                return -1;
    }
    memcpy(m->data + off, bytes, len);
    return 0;
}

/* ---- tables ---------------------------------------------------------------------- */

#define DEFINE_TABLE(type, elem)                                          \
    void wasm_rt_allocate_##type##_table(wasm_rt_##type##_table_t *t, uint32_t n,       \
                                         uint32_t max)                                  \
    {                                                                                   \
        t->data = NULL;                                                                 \
        t->size = 0;                                                                    \
        t->max_size = max;                                                              \
        if (n > max)                                                                    \
            trap_to_host(CAPSA__TRAP_NOMEM);                                            \
        if (n) {                                                                        \
            t->data = calloc(n, sizeof(elem));                                          \
            if (!t->data)                                                               \
                trap_to_host(CAPSA__TRAP_NOMEM);                                        \
        }                                                                               \
        t->size = n;                                                                    \
    }                                                                                   \
    void wasm_rt_free_##type##_table(wasm_rt_##type##_table_t *t)                       \
    {                                                                                   \
        free(t->data);                                                                  \
        t->data = NULL;                                                                 \
        t->size = 0;                                                                    \
    }                                                                                   \
    uint32_t wasm_rt_grow_##type##_table(wasm_rt_##type##_table_t *t, uint32_t delta,   \
                                         elem init)                                     \
    {                                                                                   \
        uint32_t old = t->size;                                                         \
        uint64_t want = (uint64_t)old + delta;                                          \
        if (delta == 0)                                                                 \
            return old;                                                                 \
        if (want > t->max_size || want > (SIZE_MAX / sizeof(elem)))                     \
            return UINT32_MAX;                                                          \
        elem *d = realloc(t->data, (size_t)want * sizeof(elem));                        \
        if (!d)                                                                         \
            return UINT32_MAX;                                                          \
        for (uint64_t i = old; i < want; i++)                                           \
            d[i] = init;                                                                \
        t->data = d;                                                                    \
        t->size = (uint32_t)want;                                                       \
        return old;                                                                     \
    }

DEFINE_TABLE(funcref, wasm_rt_funcref_t)
DEFINE_TABLE(externref, wasm_rt_externref_t)

/* The exception-handling part of the contract (wasm_rt_load_exception, ...) is not
 * implemented: the guest is built without wasm exceptions, so nothing calls it, and
 * a module that needs it fails to link instead of misbehaving. */
