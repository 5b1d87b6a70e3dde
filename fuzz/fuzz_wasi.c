/* libFuzzer harness: WASI host functions called with arbitrary arguments against
 * a live guest memory. The input is a program: each call is an opcode byte that
 * picks the function followed by its arguments. The host must never touch memory
 * outside the guest's (AddressSanitizer watches) and must answer every call with
 * an errno, never crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "wasi.h"

typedef struct program {
    const uint8_t *p, *end;
    capsa__wasi *w;
} program;

static uint32_t u32(program *pr)
{
    uint32_t v = 0;
    for (int i = 0; i < 4 && pr->p < pr->end; i++)
        v |= (uint32_t)*pr->p++ << (8 * i);
    return v;
}

static uint64_t u64(program *pr)
{
    uint64_t lo = u32(pr);
    return lo | (uint64_t)u32(pr) << 32;
}

static volatile uint8_t sink;

static void discard(void *ud, int fd, const char *data, size_t len)
{
    (void)ud, (void)fd;
    /* Reading every byte lets AddressSanitizer check the range handed out. */
    uint8_t sum = 0;
    for (size_t i = 0; i < len; i++)
        sum += (uint8_t)data[i];
    sink = sum;
}

/* Runs the program's calls; called on the guest stack under capsa__rt_call. */
static void run_program(void *arg)
{
    program *pr = arg;
    capsa__wasi *w = pr->w;
    while (pr->p < pr->end) {
        uint32_t r;
        switch (*pr->p++ % 7) {
        case 0: { uint32_t a = u32(pr), b = u32(pr), c = u32(pr);
                  r = Z_wasi_snapshot_preview1Z_fd_write(w, a, b, c, u32(pr)); break; }
        case 1: r = Z_wasi_snapshot_preview1Z_fd_close(w, u32(pr)); break;
        case 2: { uint32_t a = u32(pr); r = Z_wasi_snapshot_preview1Z_fd_fdstat_get(w, a, u32(pr)); break; }
        case 3: { uint32_t a = u32(pr); uint64_t b = u64(pr); uint32_t c = u32(pr);
                  r = Z_wasi_snapshot_preview1Z_fd_seek(w, a, b, c, u32(pr)); break; }
        case 4: { uint32_t a = u32(pr); uint64_t b = u64(pr);
                  r = Z_wasi_snapshot_preview1Z_clock_time_get(w, a, b, u32(pr)); break; }
        case 5: { uint32_t a = u32(pr) % (1u << 20); r = Z_wasi_snapshot_preview1Z_random_get(w, a, u32(pr) % 4096); break; }
        default: { uint32_t a = u32(pr), b = u32(pr), c = u32(pr) % 64;
                   r = Z_wasi_snapshot_preview1Z_poll_oneoff(w, a, b, c, u32(pr)); break; }
        }
        if (r > 76)
            abort(); /* every answer is a preview1 errno */
    }
}

static void make_memory(void *arg)
{
    wasm_rt_allocate_memory(arg, 2, 16);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wasm_rt_memory_t mem;
    static int64_t fuel;
    if (!mem.data) {
        if (capsa__rt_thread_prepare() != 0 || capsa__rt_call(&mem, &fuel, NULL, make_memory, &mem, NULL) != 0)
            abort();
    }
    /* The memory starts each program with known contents. */
    memset(mem.data, 0xa5, mem.size);
    capsa__wasi w = { &mem, discard, NULL };
    program pr = { data, data + size, &w };
    /* A deadline in the past: a poll_oneoff that would wait stops the call at once. */
    capsa__rt_limits limits = { 0, 1 };
    int trap = capsa__rt_call(&mem, &fuel, &limits, run_program, &pr, NULL);
    if (trap != 0 && trap != CAPSA__TRAP_TIMEOUT)
        abort();
    return 0;
}
