/* The body of a checkpoint: its contents as a row of zstd frames, each of at
 * most CAPSA__CKPT_SEGMENT bytes of them, each with zstd's checksum. Writing, a
 * sandbox's cache keeps the frames of its last checkpoint beside the bytes they
 * hold, so that a segment that did not change since is not compressed again;
 * reading, the frames are checked whole before any is decompressed, and a frame
 * that is one of the last body read is copied from it, not decompressed. The
 * format of the contents is checkpoint.c's. */
#ifndef CAPSA_CKPT_BODY_H
#define CAPSA_CKPT_BODY_H

#include <stddef.h>
#include <stdint.h>

#include "capsa.h"

/* The most contents one frame holds: 32 KiB, eight chunks of guest memory. */
#define CAPSA__CKPT_SEGMENT (32u << 10)

/* One chunk of guest memory that goes into the contents: its index (its offset
 * over CAPSA__RT_CHUNK) and its bytes (borrowed, CAPSA__RT_CHUNK of them). */
typedef struct capsa__ckpt_chunk {
    uint32_t index;
    const uint8_t *bytes;
} capsa__ckpt_chunk;

/* The frames of a sandbox's last checkpoint (owned by the sandbox). */
typedef struct capsa__ckpt_cache capsa__ckpt_cache;

/* Frees c and what it holds (NULL: nothing). a is the allocator it was made with. */
void capsa__ckpt_cache_free(const capsa_allocator *a, capsa__ckpt_cache *c);

/* A body read with a zip, kept for the next read: a copy of its frames and the
 * contents they hold (see capsa__ckpt_body_read). */
typedef struct capsa__ckpt_seen {
    uint8_t *body, *contents;
    struct ckpt_frame *frames; /* nframes, src into body, off into contents */
    uint32_t *slots;           /* nslots (a power of two): 1 + the index of a frame
                                  by its key, 0 for none */
    size_t nframes, nslots, len; /* len: the contents' bytes */
    size_t body_cap, contents_cap, frames_cap, slots_cap; /* in bytes */
} capsa__ckpt_seen;

/* What writing and reading work with, kept between checkpoints: the zstd contexts
 * and buffers. Zero-initialised is empty; capsa__ckpt_zip_free releases it. */
typedef struct capsa__ckpt_zip {
    void *cc;              /* ZSTD_CCtx */
    void *dc;              /* ZSTD_DCtx */
    uint8_t *out;          /* one compressed frame, out_cap bytes */
    size_t out_cap;
    uint8_t *gather;       /* a segment of chunks put together, CAPSA__CKPT_SEGMENT bytes */
    struct ckpt_frame *frames; /* the frames of the body being read */
    size_t frames_cap;
    capsa__ckpt_seen seen[2]; /* the last body read (seen[last]) and the one being read */
    int last;
} capsa__ckpt_zip;

void capsa__ckpt_zip_free(capsa__ckpt_zip *z, const capsa_allocator *a);

/* Frees each of the two bodies z keeps (the last read, the one before) whose
 * contents and copy are over max bytes. */
void capsa__ckpt_zip_trim(capsa__ckpt_zip *z, const capsa_allocator *a, size_t max);

/* Writes the body of contents that are prefix[0..prefix_len) followed by the bytes
 * of chunks[0..nchunks) (in increasing order of index) to fn, in frames: the
 * prefix in segments, the chunks in segments of the chunks of one aligned
 * CAPSA__CKPT_SEGMENT of guest memory. cache (NULL: none) is the sandbox's: a
 * segment whose bytes it holds is written from it, the others are compressed and
 * kept in it (made when *cache is NULL; what it cannot keep, out of memory, is
 * only not kept). a allocates z's buffers and the cache. Returns CAPSA_OK, or
 * CAPSA_ENOMEM or CAPSA_EIO (fn stopped) with msg saying why. */
int capsa__ckpt_body_write(capsa__ckpt_zip *z, const capsa_allocator *a,
                           capsa__ckpt_cache **cache, const uint8_t *prefix, size_t prefix_len,
                           const capsa__ckpt_chunk *chunks, size_t nchunks, capsa_write_fn fn,
                           void *ud, char *msg, size_t msgsize);

/* Decompresses the body body[0..len), which must be whole zstd frames with their
 * checksums and content sizes holding exactly n bytes, into a buffer of z's:
 * *out is its n bytes, valid until the next read with z. A frame that is byte for
 * byte one of the last body read with z (the next checkpoint of a session
 * restored before changes few) is not decompressed again: its contents are
 * that body's, which are what decompressing it gives (left where they are when
 * every such frame is where it was, the body then made over the last one's
 * contents; else copied). Returns
 * CAPSA_OK, CAPSA_EINVAL (corrupt or truncated) or CAPSA_ENOMEM, with msg saying
 * why. */
int capsa__ckpt_body_read(capsa__ckpt_zip *z, const capsa_allocator *a, const uint8_t *body,
                          size_t len, size_t n, const uint8_t **out, char *msg, size_t msgsize);

#endif
