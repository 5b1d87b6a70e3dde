/* One instance of the guest module (QuickJS and capsa's JS runtime, compiled from
 * wasm by wasm2c): creation, the calls into its exports, and its "capsa" imports.
 * This is the only file that sees the generated module's names. */
#ifndef CAPSA_INSTANCE_H
#define CAPSA_INSTANCE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "capsa.h"
#include "rt.h"
#include "tools.h"
#include "vfs.h"
#include "wasi.h"

typedef struct capsa__instance capsa__instance;

/* What the instance reports to its owner while it runs. */
typedef struct capsa__instance_hooks {
    capsa__wasi_output_fn output;              /* writes to fd 1 and 2 */
    /* One part of the run's outcome (CAPSA_RESULT_* of guest/abi.h); returns 0,
     * or -1 when it could not be kept (out of memory). */
    int (*result)(void *ud, uint32_t kind, const char *data, size_t len);
    void *ud;
    capsa__tools *tools; /* the tool calls of the guest go here; NULL: none */
    capsa__wasi_stdin *stdin_src; /* what fd 0 reads; NULL: nothing */
} capsa__instance_hooks;

/* An initialised guest (QuickJS and the JS runtime ready), kept as a memory image
 * that instances map copy-on-write. Made once per engine. */
typedef struct capsa__image capsa__image;

/* The ready image linked in (src/ready_image.S): *len bytes at the result, none
 * (0) in tools/mkimage.c. */
const uint8_t *capsa__ready_image_linked(size_t *len);

/* Makes the image: instantiates the guest once and gives it the memory and
 * globals of the ready image ready[0..ready_len) (one made at build time by
 * capsa__image_write_ready); with none (NULL), or one that is not of this guest
 * or not well-formed, initialises it instead (runs the guest's start, tens of
 * milliseconds). Both make the same image (capsa__image_id). On CAPSA_OK *out owns
 * the image (free with capsa__image_free); otherwise *out is NULL and msg (size
 * msgsize) says why. ready is borrowed for the call. */
int capsa__image_new(const capsa_allocator *a, const uint8_t *ready, size_t ready_len,
                     capsa__image **out, char *msg, size_t msgsize);

/* Whether img was made from the ready image: 0 no, 1 yes (its bytes copied), 2
 * yes, and its memory is the file that holds them, mapped. */
int capsa__image_is_ready(const capsa__image *img);

/* Writes img as a ready image to f (the build's tools/mkimage.c). Returns 0, or
 * -1 when f failed. */
int capsa__image_write_ready(capsa__image *img, FILE *f);

/* Frees the image. Instances made from it stay valid. NULL is a no-op. */
void capsa__image_free(capsa__image *img);

/* Makes an instance from the image, not yet bound to an owner (it may wait in a
 * pool). On CAPSA_OK *out owns it (free with capsa__instance_free); otherwise *out
 * is NULL and msg (size msgsize) says why. */
int capsa__instance_fresh(const capsa__image *img, capsa__instance **out, char *msg, size_t msgsize);

/* Puts an instance made from img back to the state of a fresh one, in place:
 * its memory (see capsa__rt_memory_restore), globals and table are the image's
 * again, its files are closed and it is bound to nobody. Whatever it ran, and
 * however it stopped (a trap or a limit included), nothing of that run remains.
 * Returns CAPSA_OK, or CAPSA_ENOMEM when the memory cannot be restored (no /proc):
 * the instance must then be freed. */
int capsa__instance_recycle(const capsa__image *img, capsa__instance *g);

/* Binds a fresh instance to its owner, once: the hooks it reports to, the
 * filesystem it sees (borrowed: it must outlive the instance), at most
 * memory_limit bytes of linear memory, a JS stack limit of max_stack bytes (0: the
 * most there is), and a Math.random seed of its own. On failure the instance must
 * be freed. */
int capsa__instance_bind(capsa__instance *g, const capsa__instance_hooks *hooks, capsa__vfs *vfs,
                         uint64_t memory_limit, uint32_t max_stack, char *msg, size_t msgsize);

/* Lets img learn from g, made from img and about to be freed, which of its pages
 * a memory writes (capsa__rt_image_learn), so that later instances are made with
 * them written. Any thread; g is only read. */
void capsa__instance_learn(capsa__image *img, const capsa__instance *g);

/* capsa__instance_fresh and capsa__instance_bind in one; *out is NULL on failure. */
int capsa__instance_new(const capsa__image *img, const capsa__instance_hooks *hooks,
                        capsa__vfs *vfs, uint64_t memory_limit, uint32_t max_stack,
                        capsa__instance **out, char *msg, size_t msgsize);

/* Frees the instance, its memory reservation included. NULL is a no-op. */
void capsa__instance_free(capsa__instance *g);

/* Runs code[0..len) named filename within limits (NULL: none). Returns CAPSA_OK
 * (the script completed), CAPSA_ESCRIPT (it threw), CAPSA_PENDING (tool calls are
 * pending: capsa__instance_continue goes on once outcomes are ready), CAPSA_ETRAP,
 * CAPSA_ETIMEOUT or CAPSA_EFUEL (the guest was stopped: the instance must not be
 * used again), CAPSA_ENOMEM, CAPSA_EGUEST; msg gets a description of errors.
 * *fuel_used gets the fuel spent. */
int capsa__instance_run(capsa__instance *g, const char *code, size_t len, const char *filename,
                        const capsa__rt_limits *limits, uint64_t *fuel_used,
                        char *msg, size_t msgsize);

/* Runs the shell command line cmd[0..len) with the standard input
 * input[0..input_len), or with NULL all of fd 0 (the guest's capsa_shell); returns as capsa__instance_run
 * (never CAPSA_PENDING). */
int capsa__instance_shell(capsa__instance *g, const char *cmd, size_t len, const char *input,
                          size_t input_len, const capsa__rt_limits *limits, uint64_t *fuel_used,
                          char *msg, size_t msgsize);

/* Resumes a run that returned CAPSA_PENDING; returns as capsa__instance_run. */
int capsa__instance_continue(capsa__instance *g, const capsa__rt_limits *limits,
                             uint64_t *fuel_used, char *msg, size_t msgsize);

/* The strings the guest's WASI args_get and environ_get give from now on
 * (process.argv's arguments and process.env): argv[0..argc) (argv[0] the
 * program's name) and envp[0..envc) ("NAME=value"), copied. A bound instance
 * starts with "capsa" alone and no environment. CAPSA_OK or CAPSA_ENOMEM (the
 * old ones kept). */
int capsa__instance_set_args(capsa__instance *g, const char *const *argv, size_t argc,
                             const char *const *envp, size_t envc);

/* Bytes of linear memory the instance has now. */
uint64_t capsa__instance_memory_bytes(const capsa__instance *g);

/* ---- checkpoints (checkpoint.c) ------------------------------------------------- */

/* The id of the image's contents (SHA-256 of its memory, globals and table size),
 * made on first use and kept: a checkpoint names it, so that one is restored only
 * over the very image it was taken from. Thread-safe. */
void capsa__image_id(capsa__image *img, uint8_t id[32]);

/* The state of an instance beyond the bytes of its memory. */
typedef struct capsa__instance_globals {
    uint32_t pages;         /* linear memory, in wasm pages */
    uint32_t stack_pointer; /* the guest's globals */
    uint32_t tls_base;
} capsa__instance_globals;

/* Reads instance g, made from img, between runs: *gl, and chunk(ud, off, bytes)
 * for each CAPSA__RT_CHUNK bytes of its memory that differ from the image. Refused
 * (CAPSA_EINVAL, msg says why) when the guest holds open files or its table is
 * not the image's; CAPSA_ENOMEM when chunk returned non-zero (its out of memory)
 * or the memory could not be read. */
int capsa__instance_save(const capsa__image *img, const capsa__instance *g,
                         capsa__instance_globals *gl,
                         int (*chunk)(void *ud, uint64_t off, const uint8_t *bytes), void *ud,
                         char *msg, size_t msgsize);

/* Loads a checkpoint into g, a bound instance as fresh as the image: begin
 * (the size and globals: CAPSA_EINVAL when the memory is smaller than the
 * image's or over g's limit), the chunks (-1 for bytes outside the memory), then
 * end, which gives the guest its settings again (a new Math.random seed and
 * performance.now() origin) within a small budget of fuel and time. On failure g
 * must be freed. A guest the loaded memory keeps from taking its settings is
 * CAPSA_EINVAL (the memory is the checkpoint's fault). */
int capsa__instance_load_begin(const capsa__image *img, capsa__instance *g,
                               const capsa__instance_globals *gl, char *msg, size_t msgsize);
int capsa__instance_load_chunk(capsa__instance *g, uint64_t off, const uint8_t *bytes, size_t len);
int capsa__instance_load_end(capsa__instance *g, uint64_t memory_limit, uint32_t max_stack,
                             char *msg, size_t msgsize);

#endif
