/* The body of a checkpoint (ckpt_body.h): the contents as zstd frames of at most
 * CAPSA__CKPT_SEGMENT bytes. A segment is either a piece of the contents before
 * the guest's memory (the sections, in order) or the chunks of one aligned
 * segment of guest memory. Between two checkpoints a run changes few of them (a
 * small run of an agent's session: 22 of 1,098 chunks), so the sandbox's cache
 * keeps each segment's bytes and frame: a segment whose bytes are the same is
 * written from its frame, and the checkpoint's cost follows what changed. The
 * reader sees only frames: it checks each one whole (zstd magic, content size,
 * checksum) before it decompresses any, so a body that is not exactly such
 * frames holding the contents is refused. Reading, the zip keeps the last body
 * it read (a copy of its frames, their contents, and an index of the frames by
 * size and checksum): a frame of the next body that is byte for byte one of
 * those is not decompressed again, its contents copied instead (the same bytes
 * decode to the same contents), so restoring a session's next checkpoint costs
 * what changed plus a copy, not a decompression of everything (on make bench's
 * session 4.7 -> 1.2 ms); when each such frame sits where it sat, the body is
 * made over the last one's contents in place, and only what changed is written.
 * (Decompressing on two threads bought nothing on a machine of two hyperthreads
 * of one core, and make bench counts CPU time: one thread does it.) */
#include "ckpt_body.h"

#include <stdio.h>
#include <string.h>
#include <zstd.h>

#include "buf.h"
#include "rt.h" /* CAPSA__RT_CHUNK */

/* zstd's level: one of its fast ones. On the session of make bench (5.3 MB of
   contents: 1 MiB of files, 4.3 MB of guest memory for 1 MiB of JS data), level
   -1 compressed at about 700 MB/s to a seventh; the levels below it were no
   faster and compressed less. */
#define ZSTD_LEVEL (-1)
#define CHUNKS_PER_SEGMENT (CAPSA__CKPT_SEGMENT / CAPSA__RT_CHUNK)

typedef struct seg {
    uint8_t *copy, *frame; /* the segment's bytes and its frame, or NULL */
    uint32_t len, frame_len, frame_cap;
    int used;              /* by the checkpoint being written */
} seg;

struct capsa__ckpt_cache {
    seg *prefix, *blocks; /* by piece of the prefix; by segment of guest memory */
    size_t nprefix, nblocks;
};

struct ckpt_frame {
    const uint8_t *src;
    size_t csize, off, dsize;
    const struct ckpt_frame *same; /* reading: the last body's frame of the same bytes */
};

static void seg_clear(const capsa_allocator *a, seg *s)
{
    capsa__free(a, s->copy);
    capsa__free(a, s->frame);
    memset(s, 0, sizeof(*s));
}

void capsa__ckpt_cache_free(const capsa_allocator *a, capsa__ckpt_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nprefix; i++)
        seg_clear(a, &c->prefix[i]);
    for (size_t i = 0; i < c->nblocks; i++)
        seg_clear(a, &c->blocks[i]);
    capsa__free(a, c->prefix);
    capsa__free(a, c->blocks);
    capsa__free(a, c);
}

static void seen_free(const capsa_allocator *a, capsa__ckpt_seen *v)
{
    capsa__free(a, v->body);
    capsa__free(a, v->contents);
    capsa__free(a, v->frames);
    capsa__free(a, v->slots);
    memset(v, 0, sizeof(*v));
}

void capsa__ckpt_zip_free(capsa__ckpt_zip *z, const capsa_allocator *a)
{
    ZSTD_freeCCtx(z->cc);
    ZSTD_freeDCtx(z->dc);
    capsa__free(a, z->out);
    capsa__free(a, z->gather);
    capsa__free(a, z->frames);
    seen_free(a, &z->seen[0]);
    seen_free(a, &z->seen[1]);
    memset(z, 0, sizeof(*z));
}

void capsa__ckpt_zip_trim(capsa__ckpt_zip *z, const capsa_allocator *a, size_t max)
{
    for (int k = 0; k < 2; k++)
        if (z->seen[k].contents_cap + z->seen[k].body_cap > max)
            seen_free(a, &z->seen[k]);
}

/* ---- writing ------------------------------------------------------------------------ */

/* Grows the array *v of *n segments to at least want, the new ones empty: 0, or -1
   when out of memory (the array is as it was). */
static int segs_reserve(const capsa_allocator *a, seg **v, size_t *n, size_t want)
{
    if (want <= *n)
        return 0;
    seg *grown = a->realloc_fn(a->ud, *v, want * sizeof(seg));
    if (!grown)
        return -1;
    memset(grown + *n, 0, (want - *n) * sizeof(seg));
    *v = grown;
    *n = want;
    return 0;
}

/* The bytes of one segment: one piece (of the prefix) or the chunks of a segment
   of guest memory. */
typedef struct pieces {
    const uint8_t *p[CHUNKS_PER_SEGMENT];
    size_t n[CHUNKS_PER_SEGMENT];
    int count;
    size_t len;
} pieces;

static int seg_holds(const seg *s, const pieces *pc)
{
    if (!s->frame || s->len != pc->len)
        return 0;
    size_t at = 0;
    for (int i = 0; i < pc->count; at += pc->n[i], i++)
        if (memcmp(s->copy + at, pc->p[i], pc->n[i]) != 0)
            return 0;
    return 1;
}

/* Keeps src[0..len) and its frame in s; out of memory, s is left empty. */
static void seg_keep(const capsa_allocator *a, seg *s, const uint8_t *src, size_t len,
                     const uint8_t *frame, size_t flen)
{
    if (s->len != len || !s->copy) {
        capsa__free(a, s->copy);
        s->copy = capsa__malloc(a, len);
    }
    if (s->frame_cap < flen) {
        capsa__free(a, s->frame);
        s->frame = capsa__malloc(a, flen);
        s->frame_cap = s->frame ? (uint32_t)flen : 0;
    }
    if (!s->copy || !s->frame) {
        seg_clear(a, s);
        return;
    }
    memcpy(s->copy, src, len);
    memcpy(s->frame, frame, flen);
    s->len = (uint32_t)len;
    s->frame_len = (uint32_t)flen;
}

static int write_segment(capsa__ckpt_zip *z, const capsa_allocator *a, seg *s, const pieces *pc,
                         capsa_write_fn fn, void *ud, char *msg, size_t msgsize)
{
    if (s)
        s->used = 1;
    if (s && seg_holds(s, pc)) {
        if (fn(ud, s->frame, s->frame_len) != 0)
            return capsa__msgf(msg, msgsize, CAPSA_EIO, "the writer stopped the checkpoint");
        return CAPSA_OK;
    }
    const uint8_t *src = pc->p[0];
    if (pc->count > 1) {
        size_t at = 0;
        for (int i = 0; i < pc->count; at += pc->n[i], i++)
            memcpy(z->gather + at, pc->p[i], pc->n[i]);
        src = z->gather;
    }
    size_t n = ZSTD_compress2(z->cc, z->out, z->out_cap, src, pc->len);
    if (ZSTD_isError(n))
        return capsa__msgf(msg, msgsize, CAPSA_ENOMEM, "cannot compress the checkpoint: %s",
                           ZSTD_getErrorName(n));
    if (fn(ud, z->out, n) != 0)
        return capsa__msgf(msg, msgsize, CAPSA_EIO, "the writer stopped the checkpoint");
    if (s)
        seg_keep(a, s, src, pc->len, z->out, n);
    return CAPSA_OK;
}

static int zip_ready(capsa__ckpt_zip *z, const capsa_allocator *a)
{
    if (!z->cc) {
        z->cc = ZSTD_createCCtx();
        if (!z->cc ||
            ZSTD_isError(ZSTD_CCtx_setParameter(z->cc, ZSTD_c_compressionLevel, ZSTD_LEVEL)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(z->cc, ZSTD_c_checksumFlag, 1))) {
            ZSTD_freeCCtx(z->cc);
            z->cc = NULL;
            return -1;
        }
    }
    if (!z->out) {
        z->out_cap = ZSTD_compressBound(CAPSA__CKPT_SEGMENT);
        z->out = capsa__malloc(a, z->out_cap);
    }
    if (!z->gather)
        z->gather = capsa__malloc(a, CAPSA__CKPT_SEGMENT);
    return z->out && z->gather ? 0 : -1;
}

/* Frees what the cache holds of segments the checkpoint just written did not use,
   and readies the rest for the next one. */
static void cache_trim(const capsa_allocator *a, capsa__ckpt_cache *c)
{
    seg *v[2] = { c->prefix, c->blocks };
    size_t n[2] = { c->nprefix, c->nblocks };
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < n[k]; i++) {
            if (!v[k][i].used)
                seg_clear(a, &v[k][i]);
            v[k][i].used = 0;
        }
}

int capsa__ckpt_body_write(capsa__ckpt_zip *z, const capsa_allocator *a,
                           capsa__ckpt_cache **cache, const uint8_t *prefix, size_t prefix_len,
                           const capsa__ckpt_chunk *chunks, size_t nchunks, capsa_write_fn fn,
                           void *ud, char *msg, size_t msgsize)
{
    if (zip_ready(z, a) != 0)
        return capsa__msgf(msg, msgsize, CAPSA_ENOMEM, "out of memory compressing the checkpoint");
    capsa__ckpt_cache *c = cache ? *cache : NULL;
    if (cache && !c && (c = capsa__malloc(a, sizeof(*c)))) {
        memset(c, 0, sizeof(*c));
        *cache = c;
    }
    /* Without room for the cache's arrays, the segments are only not kept. */
    size_t npieces = (prefix_len + CAPSA__CKPT_SEGMENT - 1) / CAPSA__CKPT_SEGMENT;
    size_t nblocks = nchunks ? chunks[nchunks - 1].index / CHUNKS_PER_SEGMENT + 1 : 0;
    int keep_prefix = c && segs_reserve(a, &c->prefix, &c->nprefix, npieces) == 0;
    int keep_blocks = c && segs_reserve(a, &c->blocks, &c->nblocks, nblocks) == 0;
    int rc = CAPSA_OK;
    pieces pc;
    for (size_t i = 0; i < npieces && rc == CAPSA_OK; i++) {
        size_t at = i * CAPSA__CKPT_SEGMENT;
        pc.count = 1;
        pc.p[0] = prefix + at;
        pc.n[0] = pc.len = prefix_len - at < CAPSA__CKPT_SEGMENT ? prefix_len - at
                                                                : CAPSA__CKPT_SEGMENT;
        rc = write_segment(z, a, keep_prefix ? &c->prefix[i] : NULL, &pc, fn, ud, msg, msgsize);
    }
    for (size_t i = 0; i < nchunks && rc == CAPSA_OK;) {
        uint32_t block = chunks[i].index / CHUNKS_PER_SEGMENT;
        pc.count = 0;
        pc.len = 0;
        for (; i < nchunks && chunks[i].index / CHUNKS_PER_SEGMENT == block; i++) {
            pc.p[pc.count] = chunks[i].bytes;
            pc.n[pc.count++] = CAPSA__RT_CHUNK;
            pc.len += CAPSA__RT_CHUNK;
        }
        rc = write_segment(z, a, keep_blocks ? &c->blocks[block] : NULL, &pc, fn, ud, msg,
                           msgsize);
    }
    if (c)
        cache_trim(a, c);
    return rc;
}

/* ---- reading ------------------------------------------------------------------------ */

/* Finds the frames of body[0..len) into z->frames: CAPSA_OK when they are whole
   frames with checksums whose contents are exactly n bytes; *count says how many. */
static int find_frames(capsa__ckpt_zip *z, const capsa_allocator *a, const uint8_t *body,
                       size_t len, size_t n, size_t *count, char *msg, size_t msgsize)
{
    size_t k = 0, total = 0;
    while (len) {
        size_t csize = ZSTD_findFrameCompressedSize(body, len);
        unsigned long long dsize = ZSTD_isError(csize) || csize < 5 ? ZSTD_CONTENTSIZE_ERROR
                                   : ZSTD_getFrameContentSize(body, csize);
        /* A zstd frame (not a skippable one) with a checksum (bit 2 of its header's
           descriptor, RFC 8878) and a size that fits what is left. */
        if (dsize == ZSTD_CONTENTSIZE_ERROR || dsize == ZSTD_CONTENTSIZE_UNKNOWN ||
            capsa__load_le32(body) != ZSTD_MAGICNUMBER || !(body[4] & 4) || dsize == 0 ||
            dsize > CAPSA__CKPT_SEGMENT || dsize > n - total)
            return capsa__msgf(msg, msgsize, CAPSA_EINVAL,
                               "the checkpoint is corrupt or truncated (its compressed contents "
                               "are not whole zstd frames of the size its header says)");
        if (k == z->frames_cap) {
            size_t cap = z->frames_cap ? 2 * z->frames_cap : 256;
            struct ckpt_frame *f = a->realloc_fn(a->ud, z->frames, cap * sizeof(*f));
            if (!f)
                return capsa__msgf(msg, msgsize, CAPSA_ENOMEM,
                                   "out of memory reading the checkpoint");
            z->frames = f;
            z->frames_cap = cap;
        }
        z->frames[k++] = (struct ckpt_frame){ body, csize, total, (size_t)dsize, NULL };
        total += (size_t)dsize;
        body += csize;
        len -= csize;
    }
    if (total != n)
        return capsa__msgf(msg, msgsize, CAPSA_EINVAL,
                           "the checkpoint is corrupt or truncated (its compressed contents "
                           "are not whole zstd frames of the size its header says)");
    *count = k;
    return CAPSA_OK;
}

/* Grows the buffer *p of *cap bytes to at least want: 0, or -1 when out of memory
   (the buffer as it was). Its bytes are not kept: it is written anew. */
static int room(const capsa_allocator *a, void **p, size_t *cap, size_t want)
{
    if (want <= *cap)
        return 0;
    void *grown = capsa__malloc(a, want);
    if (!grown)
        return -1;
    capsa__free(a, *p);
    *p = grown;
    *cap = want;
    return 0;
}

/* Where a frame is looked for among those of the last body: its compressed size
   and the checksum of its contents (its last four bytes), mixed. */
static size_t frame_key(const struct ckpt_frame *f)
{
    uint64_t k = ((uint64_t)f->csize << 32 | capsa__load_le32(f->src + f->csize - 4)) *
                 0x9E3779B97F4A7C15ull;
    return (size_t)(k >> 32);
}

/* A frame of v (the last body read) that is byte for byte f, the one at f's
   offset if there is one; or NULL. */
static const struct ckpt_frame *seen_find(const capsa__ckpt_seen *v, const struct ckpt_frame *f)
{
    if (!v->nframes)
        return NULL;
    const struct ckpt_frame *found = NULL;
    size_t mask = v->nslots - 1;
    for (size_t i = frame_key(f) & mask; v->slots[i]; i = (i + 1) & mask) {
        const struct ckpt_frame *g = &v->frames[v->slots[i] - 1];
        if (g->csize == f->csize && g->dsize == f->dsize && (!found || g->off == f->off) &&
            memcmp(g->src, f->src, f->csize) == 0) {
            found = g;
            if (g->off == f->off)
                break;
        }
    }
    return found;
}

/* Makes v, whose contents were just read from the count frames of body[0..len),
   the body the next read looks in: a copy of its frames and their index. Out of
   memory, v keeps nothing (the next read decompresses every frame). */
static void seen_keep(capsa__ckpt_seen *v, const capsa_allocator *a, const uint8_t *body,
                      size_t len, const struct ckpt_frame *frames, size_t count)
{
    size_t nslots = 16;
    while (nslots < 2 * count)
        nslots *= 2;
    if (count > UINT32_MAX - 1 || room(a, (void **)&v->body, &v->body_cap, len) != 0 ||
        room(a, (void **)&v->frames, &v->frames_cap, count * sizeof(*frames)) != 0 ||
        room(a, (void **)&v->slots, &v->slots_cap, nslots * sizeof(*v->slots)) != 0)
        return;
    v->nslots = nslots;
    memcpy(v->body, body, len);
    memset(v->slots, 0, nslots * sizeof(*v->slots));
    for (size_t i = 0; i < count; i++) {
        v->frames[i] = frames[i];
        v->frames[i].src = v->body + (frames[i].src - body);
        v->frames[i].same = NULL;
        size_t j = frame_key(&v->frames[i]) & (nslots - 1);
        while (v->slots[j])
            j = (j + 1) & (nslots - 1);
        v->slots[j] = (uint32_t)i + 1;
    }
    v->nframes = count;
}

int capsa__ckpt_body_read(capsa__ckpt_zip *z, const capsa_allocator *a, const uint8_t *body,
                          size_t len, size_t n, const uint8_t **out, char *msg, size_t msgsize)
{
    size_t count = 0;
    int rc = find_frames(z, a, body, len, n, &count, msg, msgsize);
    if (rc != CAPSA_OK)
        return rc;
    /* The frames that are the last body's, found first. When each sits where it sat
       there, this body is made over the last one's contents in place: only the
       frames that changed are written (no two frames share a byte). Else it goes in
       the other buffer, the last one's contents copied from as they are. Either
       buffer holds nothing to look in until it is read whole. */
    capsa__ckpt_seen *last = &z->seen[z->last];
    int in_place = last->nframes && last->len == n;
    for (size_t i = 0; i < count; i++) {
        struct ckpt_frame *f = &z->frames[i];
        f->same = seen_find(last, f);
        in_place &= !f->same || f->same->off == f->off;
    }
    capsa__ckpt_seen *cur = in_place ? last : &z->seen[!z->last];
    if ((!z->dc && !(z->dc = ZSTD_createDCtx())) ||
        (!in_place && room(a, (void **)&cur->contents, &cur->contents_cap, n) != 0))
        return capsa__msgf(msg, msgsize, CAPSA_ENOMEM, "out of memory reading the checkpoint");
    for (size_t i = 0; i < count; i++) {
        const struct ckpt_frame *f = &z->frames[i];
        if (f->same) {
            if (!in_place)
                memcpy(cur->contents + f->off, last->contents + f->same->off, f->dsize);
            continue;
        }
        cur->nframes = 0; /* in place, last no longer holds its frames' contents */
        size_t got = ZSTD_decompressDCtx(z->dc, cur->contents + f->off, f->dsize, f->src,
                                         f->csize);
        if (ZSTD_isError(got) || got != f->dsize)
            return capsa__msgf(msg, msgsize, CAPSA_EINVAL, "the checkpoint is corrupt: %s",
                               ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short contents");
    }
    cur->nframes = 0; /* seen_keep says again what it holds */
    seen_keep(cur, a, body, len, z->frames, count);
    cur->len = n;
    if (cur != last)
        z->last = !z->last;
    *out = cur->contents;
    return CAPSA_OK;
}
