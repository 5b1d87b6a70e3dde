/* Our implementation of wasm2c's runtime contract (wasm-rt.h): linear memory in a
 * guard-page reservation, traps turned into return codes, per-thread trap state and
 * signal stacks, no abort on allocation failure; memory images, mapped
 * copy-on-write and restored in place. Also the one helper that checks a guest
 * pointer and length before the host touches guest memory. */
#ifndef CAPSA_RT_H
#define CAPSA_RT_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>

#include <wasm-rt.h>

#if !WASM_RT_MEMCHECK_SIGNAL_HANDLER
#error "capsa's runtime relies on guard pages: build the guest with WASM_RT_MEMCHECK_SIGNAL_HANDLER"
#endif

#define CAPSA__WASM_PAGE 65536u
/* Reserved address space per linear memory: 4 GiB addressable by a 32-bit index
 * plus 4 GiB so that index + 32-bit offset also lands in the reservation, plus a
 * page for the width of the widest access at the very end. */
#define CAPSA__RT_RESERVE ((8ull << 30) + CAPSA__WASM_PAGE)

/* Trap codes beyond wasm_rt_trap_t, raised by the runtime itself. */
enum {
    CAPSA__TRAP_NOMEM = 0x100,   /* allocation failed while creating a guest */
    CAPSA__TRAP_TIMEOUT = 0x101, /* the call's wall-clock deadline passed */
    CAPSA__TRAP_FUEL = 0x102,    /* the call spent its fuel */
    CAPSA__TRAP_EXIT = 0x103,    /* the guest called proc_exit (capsa__rt_exit) */
};

/* What one guest call may spend. Fuel counts metering points (function entries
 * and loop iterations, see src/fuel.h): deterministic for the same code and
 * state. The deadline is checked each time a slice of fuel is handed out. */
typedef struct capsa__rt_limits {
    uint64_t fuel;        /* units; 0: no limit */
    uint64_t deadline_ns; /* CLOCK_MONOTONIC nanoseconds; 0: none */
    const int *interrupt; /* another thread may set CAPSA__RT_INTERRUPT in *interrupt
                             (atomically) to stop the call as at its deadline;
                             NULL: never */
} capsa__rt_limits;

/* The bit of *capsa__rt_limits.interrupt that stops the call. */
#define CAPSA__RT_INTERRUPT 2

/* Whether the guest call running on this thread has been asked to stop (its
 * interrupt bit); for host functions that wait. */
int capsa__rt_interrupted(void);

/* CLOCK_MONOTONIC now, in nanoseconds. */
uint64_t capsa__rt_now_ns(void);

/* The deadline (CLOCK_MONOTONIC ns) of the guest call running on this thread, 0
 * when it has none or no guest call is running. For host functions that wait. */
uint64_t capsa__rt_deadline_ns(void);

/* Stops the guest call running on this thread with CAPSA__TRAP_TIMEOUT; for host
 * functions (called by the guest) that reach the deadline while waiting. */
_Noreturn void capsa__rt_timeout(void);

/* Stops the guest call running on this thread with CAPSA__TRAP_EXIT, as a trap
 * does: for proc_exit. The code is kept for capsa__rt_exit_code. */
_Noreturn void capsa__rt_exit(uint32_t code);

/* The code of the last capsa__rt_exit on this thread (0 if none yet). */
uint32_t capsa__rt_exit_code(void);

/* Prepares the process once (signal handlers); returns 0 or -1 if that failed. */
int capsa__rt_init(void);

/* Prepares the calling thread for guest code: an alternate signal stack and the
 * thread's guest stack. Cheap after the first call. Returns 0, or -1 when out of
 * memory. */
int capsa__rt_thread_prepare(void);

/* Which pages of a linear memory made from an image the guest writes, once the
 * memory has been restored (capsa__rt_memory_restore): the image's pages it has
 * not written are then kept read-only, and the first write to one is a fault that
 * the runtime takes to make the page writable and note it. So the next restore
 * knows what to copy back without asking the kernel. Owned by the memory's owner,
 * zeroed at first; capsa__rt_track_free releases it. */
typedef struct capsa__rt_track {
    uint8_t *written;   /* one flag per host page of the image; NULL until needed */
    uint32_t *list;     /* the written pages, in the order they were first written */
    uint32_t nlist;
    uint32_t npages;    /* host pages in the image */
    uint32_t pieces;    /* mappings the read-only runs may add, held from the budget */
    volatile int armed; /* the unwritten pages are read-only and writes are noted */
} capsa__rt_track;

/* Frees what the tracking holds, its share of the mapping budget included; *t is
 * zeroed. */
void capsa__rt_track_free(capsa__rt_track *t);

/* Each read-only run of a tracked image splits its mapping, and a process may hold
 * only so many mappings (vm.max_map_count, 65,530 by default), which it needs for
 * much else. So tracking draws on a budget: at most per_memory pieces for one
 * memory and process pieces for all together. A memory that would go over is not
 * tracked (its restores scan instead), so no guest can use up the process's
 * mappings. Defaults: 256 and 16,384; tests lower them. Returns the previous
 * process budget. */
uint32_t capsa__rt_track_budget(uint32_t per_memory, uint32_t process);

/* Runs fn(arg) as guest code whose linear memory is `memory` (its written pages
 * noted in *track, NULL: not tracked) and whose fuel counter is *fuel, within
 * *limits (NULL: none), on the calling thread's guest stack (a large mapping of its
 * own, so that guest recursion never depends on the caller's stack size). Returns 0, or the trap code (wasm_rt_trap_t or
 * CAPSA__TRAP_*) when the guest trapped; fn then did not finish. *fuel_used (if not
 * NULL) gets the units spent. The thread must have been prepared. An outermost
 * call first puts the runtime's fault handler back in front of any the host
 * installed since (or, when it cannot, stops *track's tracking). */
int capsa__rt_call(const wasm_rt_memory_t *memory, capsa__rt_track *track, int64_t *fuel,
                   const capsa__rt_limits *limits, void (*fn)(void *), void *arg,
                   uint64_t *fuel_used);

/* A linear memory's contents kept as an image: a sealed memfd that instances map
 * copy-on-write, so a new instance costs page-table work, not a copy. */
/* The pages of an image that a memory made from it gets written before it is
 * freed, learned from one such memory (capsa__rt_image_learn): every later memory
 * made from the image is given its own copies of them at once, in one call to the
 * kernel, instead of taking a write fault on each (a fresh sandbox's first run
 * writes some 35 of them). At most CAPSA__RT_HOT_MAX pages in CAPSA__RT_HOT_RUNS
 * runs; a memory that wrote more is not learned from (it was not a typical run). */
#define CAPSA__RT_HOT_MAX 48
#define CAPSA__RT_HOT_RUNS 32
typedef struct capsa__rt_hot {
    int state;     /* atomic: 0 not learned, 1 being learned, 2 learned */
    uint64_t seen; /* memories offered to learn from, under state 1 */
    uint32_t nruns;
    uint32_t at[CAPSA__RT_HOT_RUNS], len[CAPSA__RT_HOT_RUNS]; /* host pages */
} capsa__rt_hot;

typedef struct capsa__rt_image {
    int fd;               /* the file that holds it, -1 when empty */
    uint64_t offset;      /* where in that file it starts (a page boundary) */
    const uint8_t *view;  /* the image, mapped read-only and shared; NULL when empty */
    uint32_t pages;       /* size of the image in wasm pages */
    uint32_t max_pages;   /* the memory's maximum when it was captured */
    int mapped;           /* 1: fd is the file some bytes came from (not a copy) */
    capsa__rt_hot hot;    /* what memories made from it write first */
} capsa__rt_image;

/* Captures m into *img (zero pages are left as holes). Returns 0 or -1. */
int capsa__rt_image_capture(capsa__rt_image *img, const wasm_rt_memory_t *m);
/* Makes *img the image of a memory of pages wasm pages (its maximum max_pages)
 * whose bytes are bytes[0..pages * CAPSA__WASM_PAGE). When they are a read-only
 * mapping of a file of this process (the library's ready image), the image is
 * that file, mapped again: nothing is copied, and the pages a memory made from
 * it never touches are never read. Otherwise they are copied (as by capture).
 * Returns 0 or -1. */
int capsa__rt_image_from_bytes(capsa__rt_image *img, const uint8_t *bytes, uint32_t pages,
                               uint32_t max_pages);
/* Releases the image; instances mapped from it keep their pages. */
void capsa__rt_image_release(capsa__rt_image *img);
/* Makes *m a new linear memory (a full guard reservation) whose first pages map
 * the image copy-on-write, the pages img has learned (capsa__rt_hot) already
 * written. Returns 0, or -1 with *m empty. */
int capsa__rt_memory_from_image(wasm_rt_memory_t *m, const capsa__rt_image *img);
/* Learns from m, a memory made from img about to be freed, which pages of the
 * image it wrote (capsa__rt_hot), unless img has learned them already or m wrote
 * more than CAPSA__RT_HOT_MAX. Cheap once learned (an atomic load); looks at the
 * first 8 memories offered, then at one in 64. Any thread. */
void capsa__rt_image_learn(capsa__rt_image *img, const wasm_rt_memory_t *m);
/* Puts *m, made from img by capsa__rt_memory_from_image, back to img's contents
 * and size without a new mapping: the pages the guest wrote are copied back from
 * the image, and memory it grew is unmapped again. Pages it only read still map
 * the image, and the copies stay mapped, so the next run takes no page faults on
 * them. The first restore finds the written pages in /proc/self/pagemap (their
 * private copies) and arms *track; later ones copy what *track noted. Returns 0,
 * or -1 when the written pages cannot be found (no /proc, no memory): *m must
 * then be freed. */
int capsa__rt_memory_restore(wasm_rt_memory_t *m, capsa__rt_track *track,
                             const capsa__rt_image *img);

/* The unit in which a memory's differences from its image are found and written
 * back (a checkpoint's pages): 4 KiB, whatever the host's page size. */
#define CAPSA__RT_CHUNK 4096u

/* Calls fn(ud, off, bytes) for each CAPSA__RT_CHUNK bytes at off >= from of m, in
 * increasing order, that differ from img (where img has them) or are not zero
 * (memory grown beyond img). m must have been made from img
 * (capsa__rt_memory_from_image). Only the pages that can differ are compared:
 * those *track noted when it is armed, else those /proc/self/pagemap shows as no
 * longer the image's (or, without /proc, every page). Returns 0, or the first
 * non-zero value fn returned. Does not change m. */
int capsa__rt_memory_diff(const wasm_rt_memory_t *m, const capsa__rt_track *track,
                          const capsa__rt_image *img, uint64_t from,
                          int (*fn)(void *ud, uint64_t off, const uint8_t *bytes), void *ud);

/* Grows m (made from an image and holding its contents) to pages wasm pages, for
 * capsa__rt_memory_write, with the new pages made at once (they are about to be
 * written). Returns 0, or -1 when pages is below its size or over its maximum (or
 * the pages cannot be mapped). */
int capsa__rt_memory_grow_to(wasm_rt_memory_t *m, uint32_t pages);

/* Writes bytes[0..len) at off of m from the host (len and off within m's size:
 * the caller checks), noting the pages written in *track as a write of the guest's
 * would be, so that tracked pages that are read-only become writable first. Returns
 * 0, or -1 when a page cannot be made writable. */
int capsa__rt_memory_write(wasm_rt_memory_t *m, capsa__rt_track *track, uint64_t off,
                           const uint8_t *bytes, size_t len);

/* A message for a trap code (wasm_rt_trap_t or CAPSA__TRAP_*). */
const char *capsa__rt_trap_message(int trap);

/* The host address of guest bytes [ptr, ptr + len), or NULL when any of them lies
 * outside the guest's memory. Every guest pointer goes through here before use. */
static inline uint8_t *capsa__guest_ptr(const wasm_rt_memory_t *m, uint32_t ptr, uint64_t len)
{
    if (len > m->size || ptr > m->size - len)
        return NULL;
    return m->data + ptr;
}

#endif
