/* Checkpoints: a sandbox to bytes and back (capsa_checkpoint, capsa_sandbox_restore
 * in capsa.h). The format is described at the top of checkpoint.c. */
#ifndef CAPSA_CHECKPOINT_H
#define CAPSA_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "capsa.h"

/* Makes a checkpoint of engine's build and image from its sections
 * sections[0..len) (what follows the repeated header in the contents): the
 * header, then the compressed contents, appended to *out (the C library's
 * allocator). For the fuzz harness of restores, which then reaches the sections'
 * parser with any bytes. Returns CAPSA_OK or CAPSA_ENOMEM. */
int capsa__checkpoint_seal(capsa_engine *engine, const void *sections, size_t len,
                           capsa__buf *out);

/* Frees what an engine keeps for its next checkpoint or restore (NULL: nothing). */
struct capsa__ckpt_scratch;
void capsa__checkpoint_scratch_free(capsa_engine *engine, struct capsa__ckpt_scratch *s);

#endif
