/* libFuzzer harness: WASI host functions called with arbitrary arguments against
 * a live guest memory. The input is a program: each call is an opcode byte that
 * picks the function followed by its arguments, over a small filesystem preopened
 * as "/" and "work". The host must never touch memory outside the guest's
 * (AddressSanitizer watches) and must answer every call with an errno, never
 * crash or leak (proc_exit is left out: it ends the call by design). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "rt.h"
#include "vfs.h"
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

/* A guest address: mostly inside the memory (2 pages), sometimes past its end. */
static uint32_t addr(program *pr)
{
    uint32_t v = u32(pr);
    return v & 0x80000000u ? v : v % (2 * 65536 + 256);
}

/* A length: mostly small, sometimes anything. */
static uint32_t length(program *pr)
{
    uint32_t v = u32(pr);
    return v & 0x80000000u ? v : v % 4096;
}

/* An fd: mostly one that may exist. */
static uint32_t fd_arg(program *pr)
{
    uint32_t v = pr->p < pr->end ? *pr->p++ : 0;
    return v < 0xf0 ? v % 16 : u32(pr);
}

/* Runs the program's calls; called on the guest stack under capsa__rt_call. Each
 * call is an opcode byte and its arguments; opcode 0 writes bytes into guest memory
 * (paths, iovecs), the others call a WASI function. */
static void run_program(void *arg)
{
    program *pr = arg;
    capsa__wasi *w = pr->w;
    uint8_t *mem = w->memory->data;
    while (pr->p < pr->end) {
        uint32_t r = 0;
        uint8_t op = *pr->p++;
        switch (op % 36) {
        case 0: { /* poke: offset, n, bytes */
            uint32_t at = u32(pr) % 65536, n = pr->p < pr->end ? *pr->p++ : 0;
            for (uint32_t i = 0; i < n && pr->p < pr->end; i++)
                mem[at + i] = *pr->p++;
            break;
        }
#define F(name) Z_wasi_snapshot_preview1Z_##name
        case 1: { uint32_t a = fd_arg(pr), b = addr(pr), c = length(pr) % 64; r = F(fd_write)(w, a, b, c, addr(pr)); break; }
        case 2: { uint32_t a = fd_arg(pr), b = addr(pr), c = length(pr) % 64; r = F(fd_read)(w, a, b, c, addr(pr)); break; }
        case 3: r = F(fd_close)(w, fd_arg(pr)); break;
        case 4: { uint32_t a = fd_arg(pr); r = F(fd_fdstat_get)(w, a, addr(pr)); break; }
        case 5: { uint32_t a = fd_arg(pr); uint64_t b = u64(pr); uint32_t c = u32(pr) % 4; r = F(fd_seek)(w, a, b, c, addr(pr)); break; }
        case 6: { uint32_t a = u32(pr) % 5; uint64_t b = u64(pr); r = F(clock_time_get)(w, a, b, addr(pr)); break; }
        case 7: { uint32_t a = addr(pr); r = F(random_get)(w, a, length(pr)); break; }
        case 8: { uint32_t a = addr(pr), b = addr(pr), c = u32(pr) % 64; r = F(poll_oneoff)(w, a, b, c, addr(pr)); break; }
        case 9: { /* path_open(dirfd, lookupflags, path, len, oflags, base, inheriting, fdflags, fd_out) */
            uint32_t d = fd_arg(pr), lf = u32(pr) & 1, p = addr(pr), l = length(pr) % 300, of = u32(pr) & 15;
            uint64_t rb = u64(pr), ri = u64(pr);
            uint32_t ff = u32(pr) & 31;
            r = F(path_open)(w, d, lf, p, l, of, rb, ri, ff, addr(pr));
            break;
        }
        case 10: { uint32_t d = fd_arg(pr), p = addr(pr); r = F(path_create_directory)(w, d, p, length(pr) % 300); break; }
        case 11: { uint32_t d = fd_arg(pr), p = addr(pr); r = F(path_remove_directory)(w, d, p, length(pr) % 300); break; }
        case 12: { uint32_t d = fd_arg(pr), p = addr(pr); r = F(path_unlink_file)(w, d, p, length(pr) % 300); break; }
        case 13: { uint32_t d = fd_arg(pr), lf = u32(pr) & 1, p = addr(pr), l = length(pr) % 300; r = F(path_filestat_get)(w, d, lf, p, l, addr(pr)); break; }
        case 14: { uint32_t d = fd_arg(pr), p = addr(pr), l = length(pr) % 300, d2 = fd_arg(pr), p2 = addr(pr); r = F(path_rename)(w, d, p, l, d2, p2, length(pr) % 300); break; }
        case 15: { uint32_t t = addr(pr), tl = length(pr) % 300, d = fd_arg(pr), p = addr(pr); r = F(path_symlink)(w, t, tl, d, p, length(pr) % 300); break; }
        case 16: { uint32_t d = fd_arg(pr), p = addr(pr), l = length(pr) % 300, b = addr(pr), bl = length(pr); r = F(path_readlink)(w, d, p, l, b, bl, addr(pr)); break; }
        case 17: { uint32_t d = fd_arg(pr), lf = u32(pr) & 1, p = addr(pr), l = length(pr) % 300, d2 = fd_arg(pr), p2 = addr(pr); r = F(path_link)(w, d, lf, p, l, d2, p2, length(pr) % 300); break; }
        case 18: { uint32_t d = fd_arg(pr), b = addr(pr), bl = length(pr); uint64_t c = u64(pr) % 64; r = F(fd_readdir)(w, d, b, bl, c, addr(pr)); break; }
        case 19: { uint32_t d = fd_arg(pr), b = addr(pr), c = length(pr) % 64; uint64_t o = u64(pr); r = F(fd_pread)(w, d, b, c, o, addr(pr)); break; }
        case 20: { uint32_t d = fd_arg(pr), b = addr(pr), c = length(pr) % 64; uint64_t o = u64(pr) % (1u << 20); r = F(fd_pwrite)(w, d, b, c, o, addr(pr)); break; }
        case 21: { uint32_t d = fd_arg(pr); r = F(fd_filestat_get)(w, d, addr(pr)); break; }
        case 22: { uint32_t d = fd_arg(pr); r = F(fd_filestat_set_size)(w, d, u64(pr) % (1u << 22)); break; }
        case 23: { uint32_t d = fd_arg(pr); uint64_t a = u64(pr), m = u64(pr); r = F(fd_filestat_set_times)(w, d, a, m, u32(pr) & 15); break; }
        case 24: { uint32_t d = fd_arg(pr); r = F(fd_fdstat_set_flags)(w, d, u32(pr) & 31); break; }
        case 25: { uint32_t d = fd_arg(pr); uint64_t a = u64(pr); r = F(fd_fdstat_set_rights)(w, d, a, u64(pr)); break; }
        case 26: { uint32_t a = fd_arg(pr); r = F(fd_renumber)(w, a, fd_arg(pr)); break; }
        case 27: { uint32_t a = fd_arg(pr); r = F(fd_prestat_get)(w, a, addr(pr)); break; }
        case 28: { uint32_t a = fd_arg(pr), b = addr(pr); r = F(fd_prestat_dir_name)(w, a, b, length(pr)); break; }
        case 29: { uint32_t a = addr(pr); r = F(args_get)(w, a, addr(pr)); break; }
        case 30: { uint32_t a = addr(pr); r = F(environ_sizes_get)(w, a, addr(pr)); break; }
        case 31: { uint32_t d = fd_arg(pr); r = F(fd_tell)(w, d, addr(pr)); break; }
        case 32: { uint32_t d = fd_arg(pr); uint64_t o = u64(pr) % (1u << 22); r = F(fd_allocate)(w, d, o, u64(pr) % (1u << 22)); break; }
        case 33: { uint32_t d = fd_arg(pr), b = addr(pr), c = length(pr) % 64, f = u32(pr); r = F(sock_recv)(w, d, b, c, f, addr(pr), addr(pr)); break; }
        case 34: { uint32_t a = u32(pr) % 4; r = F(clock_res_get)(w, a, addr(pr)); break; }
        default: { uint32_t d = fd_arg(pr), lf = u32(pr) & 1, p = addr(pr), l = length(pr) % 300; uint64_t a = u64(pr), m = u64(pr);
                   r = F(path_filestat_set_times)(w, d, lf, p, l, a, m, u32(pr) & 15); break; }
#undef F
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
        if (capsa__rt_thread_prepare() != 0 || capsa__rt_call(&mem, NULL, &fuel, NULL, make_memory, &mem, NULL) != 0)
            abort();
    }
    /* The memory starts each program with known contents, and the guest with a
       small filesystem of its own, preopened as the sandbox's is. */
    memset(mem.data, 0xa5, mem.size);
    capsa__vfs_quota q = { 1 << 20, 128, 1 << 18 };
    capsa__vfs *vfs = NULL;
    if (capsa__vfs_new(&capsa__default_allocator, &q, &vfs) != 0)
        return 0;
    static const capsa__wasi_preopen pre[] = { { "/", "/" }, { "/workspace", "work" } };
    static const char *const argv[] = { "fuzz", "arg" };
    static const char *const envp[] = { "A=1" };
    capsa__wasi_config cfg = { pre, 2, argv, 2, envp, 1 };
    static uint8_t stdin_bytes[] = "stdin";
    capsa__wasi_stdin in = { .data = stdin_bytes, .len = 5 };
    capsa__wasi w;
    memset(&w, 0, sizeof(w));
    if (capsa__wasi_init(&w, &capsa__default_allocator, vfs, &cfg) != 0) {
        capsa__vfs_free(vfs);
        return 0;
    }
    w.memory = &mem;
    w.output = discard;
    w.stdin_src = &in;
    program pr = { data, data + size, &w };
    /* A deadline in the past: a poll_oneoff that would wait stops the call at once. */
    capsa__rt_limits limits = { 0, 1, NULL };
    int trap = capsa__rt_call(&mem, NULL, &fuel, &limits, run_program, &pr, NULL);
    if (trap != 0 && trap != CAPSA__TRAP_TIMEOUT)
        abort();
    capsa__wasi_finish(&w);
    capsa__vfs_free(vfs);
    return 0;
}
