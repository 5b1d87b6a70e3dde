/* Checkpoints: a sandbox between runs to bytes (capsa_checkpoint_write), and a new
 * sandbox from them (capsa_sandbox_restore). The bytes are input from outside:
 * every length, count and offset is checked here or by the subsystem that reads
 * its section (vfs_ckpt.c, instance.c, tools.c, policy.c), and any failure frees
 * the sandbox being made. Version 2 of the format, little-endian:
 *
 *   header    "CAPSACKP", u32 format version, u32 flags (0), the guest's build id
 *             (32 bytes: the SHA-256 of the generated guest C), the image id (32
 *             bytes, capsa__image_id), u64 length of the contents, u64 0: 96 bytes
 *   body      the contents in zstd frames of at most 32 KiB, each with zstd's
 *             checksum, to the end (ckpt_body.c)
 *   contents  the header again (so that the checksum covers it), then each
 *             section as u32 tag, u64 length and its bytes, in this order:
 *     OPTIONS  every field of capsa_options but the callbacks, as u64
 *     STATE    runs started, audit lines dropped, bytes given to on_audit
 *     POLICY   the policy's JSON text, the number of capabilities, each one's
 *              used calls (u64)
 *     TOOLS    the registry's generation, the next call's id, the number of
 *              tools, and for each its name, description, schema, result's
 *              schema (strings: u32 length and bytes; an empty result's schema is
 *              none), u32 flags, u64 timeout, u8 had a callback
 *     FILES    the tree (vfs_ckpt.c)
 *     MOUNTS   the number of host mounts, and for each its guest path and u8
 *              read-write (never its host directory)
 *     MEMORY   u8 kept (0: the sandbox had no instance, as after a trap); then
 *              u32 wasm pages, u32 stack pointer, u32 TLS base, and the runs of
 *              chunks (CAPSA__RT_CHUNK bytes) that differ from the image: u32
 *              number of runs, each run's u32 first chunk and u32 count, in
 *              increasing order, then the bytes of every run's chunks, in the
 *              same order, to the end of the contents. */
#include "checkpoint.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "ckpt_body.h"
#include "fs.h"
#include "guest_id.h" /* CAPSA__GUEST_ID, made by the build from the generated C */
#include "instance.h"
#include "policy.h"
#include "rt.h"
#include "sandbox.h"
#include "tools.h"
#include "vfs_ckpt.h"

#define MAGIC "CAPSACKP"
#define FORMAT_VERSION 2u
#define HEADER_SIZE 96u
/* A contents buffer larger than this is not kept for the next checkpoint. */
#define SCRATCH_KEEP (64u << 20)

/* What a checkpoint or a restore works with, kept by the engine for the next one
 * (one set: others are made and freed as needed), so that the contexts' and the
 * buffer's memory is not mapped and faulted in anew each time. */
typedef struct capsa__ckpt_scratch {
    capsa__ckpt_zip zip;
    capsa__buf contents;        /* the engine's allocator; a checkpoint's holds
                                   what comes before the memory's chunks */
    capsa__ckpt_chunk *chunks;  /* the chunks of guest memory a checkpoint keeps */
    size_t nchunks, chunks_cap;
} capsa__ckpt_scratch;

void capsa__checkpoint_scratch_free(capsa_engine *engine, capsa__ckpt_scratch *s)
{
    if (!s)
        return;
    capsa__ckpt_zip_free(&s->zip, &engine->alloc);
    capsa__buf_free(&s->contents, &engine->alloc);
    capsa__free(&engine->alloc, s->chunks);
    capsa__free(&engine->alloc, s);
}

/* The engine's spare set, or a new one (NULL when out of memory); its buffer empty. */
static capsa__ckpt_scratch *scratch_take(capsa_engine *e)
{
    pthread_mutex_lock(&e->ckpt_lock);
    capsa__ckpt_scratch *s = e->ckpt_spare;
    e->ckpt_spare = NULL;
    pthread_mutex_unlock(&e->ckpt_lock);
    if (!s && (s = capsa__malloc(&e->alloc, sizeof(*s))))
        memset(s, 0, sizeof(*s));
    if (s) {
        capsa__buf_clear(&s->contents);
        s->nchunks = 0;
    }
    return s;
}

/* Gives s back: kept as the engine's spare when there is none, else freed. */
static void scratch_put(capsa_engine *e, capsa__ckpt_scratch *s)
{
    if (s->contents.cap > SCRATCH_KEEP)
        capsa__buf_free(&s->contents, &e->alloc);
    capsa__ckpt_zip_trim(&s->zip, &e->alloc, SCRATCH_KEEP / 2); /* two of them */
    if (s->chunks_cap * sizeof(*s->chunks) > SCRATCH_KEEP) {
        capsa__free(&e->alloc, s->chunks);
        s->chunks = NULL;
        s->chunks_cap = 0;
    }
    pthread_mutex_lock(&e->ckpt_lock);
    if (!e->ckpt_spare) {
        e->ckpt_spare = s;
        s = NULL;
    }
    pthread_mutex_unlock(&e->ckpt_lock);
    capsa__checkpoint_scratch_free(e, s);
}

enum {
    SEC_OPTIONS = 1,
    SEC_STATE,
    SEC_POLICY,
    SEC_TOOLS,
    SEC_FILES,
    SEC_MOUNTS,
    SEC_MEMORY,
};

static const char *const section_names[] = { "", "options", "state", "policy", "tools",
                                              "files", "mounts", "memory" };

/* The fields of capsa_options a checkpoint keeps, and their widths. */
#define OPTION_FIELDS(X)                                                                  \
    X(memory_limit, 64) X(max_output, 64) X(timeout_ms, 64) X(fuel, 64) X(max_stack, 32)  \
    X(fs_max_bytes, 64) X(fs_max_entries, 64) X(fs_max_file, 64) X(tool_concurrency, 32)  \
    X(tool_timeout_ms, 64) X(tool_max_args, 64) X(tool_max_result, 64) X(audit_flags, 32) \
    X(tool_max_pending, 64) X(tool_max_denials, 32) X(audit_max_bytes, 64)

/* ---- the header ------------------------------------------------------------------- */

/* The build id, from the hex digits the build wrote. */
static void build_id(uint8_t id[32])
{
    static const char hex[] = CAPSA__GUEST_ID;
    for (int i = 0; i < 32; i++) {
        uint8_t v = 0;
        for (int k = 0; k < 2; k++) {
            char c = hex[2 * i + k];
            v = (uint8_t)(v << 4 | (c <= '9' ? c - '0' : c - 'a' + 10));
        }
        id[i] = v;
    }
}

static void make_header(capsa_engine *e, uint64_t contents_len, uint8_t h[HEADER_SIZE])
{
    memset(h, 0, HEADER_SIZE);
    memcpy(h, MAGIC, 8);
    capsa__store_le32(h + 8, FORMAT_VERSION);
    build_id(h + 16);
    capsa__image_id(e->image, h + 48);
    capsa__store_le64(h + 80, contents_len);
}

/* Writes the header of the contents in s (whose first HEADER_SIZE bytes it fills
 * too) and the compressed contents, the chunks in s after what its buffer holds,
 * to fn; cache is the sandbox's (NULL: none). */
static int emit(capsa_engine *e, capsa__ckpt_scratch *s, capsa__ckpt_cache **cache,
                capsa_write_fn fn, void *ud, char *msg, size_t msgsize)
{
    capsa__buf *p = &s->contents;
    make_header(e, p->len + (uint64_t)s->nchunks * CAPSA__RT_CHUNK, (uint8_t *)p->data);
    if (fn(ud, p->data, HEADER_SIZE) != 0) {
        snprintf(msg, msgsize, "the writer stopped the checkpoint");
        return CAPSA_EIO;
    }
    return capsa__ckpt_body_write(&s->zip, &e->alloc, cache, (const uint8_t *)p->data, p->len,
                                  s->chunks, s->nchunks, fn, ud, msg, msgsize);
}

/* ---- writing ------------------------------------------------------------------------ */

static void patch_u32(capsa__buf *b, size_t at, uint32_t v)
{
    if (!b->failed)
        capsa__store_le32((uint8_t *)b->data + at, v);
}

/* Begins section tag: returns where its length goes, for section_end. */
static size_t section_begin(capsa__buf *b, const capsa_allocator *a, uint32_t tag)
{
    capsa__buf_put_u32(b, a, tag);
    size_t at = b->len;
    capsa__buf_put_u64(b, a, 0);
    return at;
}

static void section_end(capsa__buf *b, size_t at)
{
    if (!b->failed)
        capsa__store_le64((uint8_t *)b->data + at, b->len - at - 8);
}

/* Notes each changed chunk of guest memory, as they come in increasing order. */
typedef struct mem_out {
    capsa__ckpt_scratch *s;
    const capsa_allocator *a;
} mem_out;

static int put_chunk(void *ud, uint64_t off, const uint8_t *bytes)
{
    mem_out *m = ud;
    capsa__ckpt_scratch *s = m->s;
    if (s->nchunks == s->chunks_cap) {
        size_t cap = s->chunks_cap ? 2 * s->chunks_cap : 1024;
        capsa__ckpt_chunk *grown = m->a->realloc_fn(m->a->ud, s->chunks, cap * sizeof(*grown));
        if (!grown)
            return -1;
        s->chunks = grown;
        s->chunks_cap = cap;
    }
    s->chunks[s->nchunks++] = (capsa__ckpt_chunk){ (uint32_t)(off / CAPSA__RT_CHUNK), bytes };
    return 0;
}

/* Appends the runs of the chunks in s to b: their number, then each one's first
   chunk and count. */
static void put_runs(capsa__buf *b, const capsa_allocator *a, const capsa__ckpt_scratch *s)
{
    size_t count_at = b->len;
    uint32_t runs = 0;
    capsa__buf_put_u32(b, a, 0);
    for (size_t i = 0; i < s->nchunks;) {
        size_t j = i + 1;
        while (j < s->nchunks && s->chunks[j].index == s->chunks[j - 1].index + 1)
            j++;
        capsa__buf_put_u32(b, a, s->chunks[i].index);
        capsa__buf_put_u32(b, a, (uint32_t)(j - i));
        runs++;
        i = j;
    }
    patch_u32(b, count_at, runs);
}

/* Appends the sections of sb to s's buffer (which holds the header's room
 * already), the chunks of guest memory to its list. */
static int save_sections(capsa_sandbox *sb, capsa__ckpt_scratch *s)
{
    capsa__buf *b = &s->contents;
    const capsa_allocator *a = sb->alloc;
    size_t at = section_begin(b, a, SEC_OPTIONS);
#define PUT_OPTION(field, bits) capsa__buf_put_u64(b, a, (uint64_t)sb->opts.field);
    OPTION_FIELDS(PUT_OPTION)
#undef PUT_OPTION
    section_end(b, at);

    at = section_begin(b, a, SEC_STATE);
    capsa__buf_put_u64(b, a, sb->runs);
    capsa__buf_put_u64(b, a, sb->audit_dropped);
    capsa__buf_put_u64(b, a, sb->audit_sent);
    section_end(b, at);

    const capsa__policy *policy = capsa__tools_policy(sb->tools);
    char *text = capsa__policy_to_json(policy);
    if (!text)
        return CAPSA_ENOMEM;
    at = section_begin(b, a, SEC_POLICY);
    capsa__buf_put_str(b, a, text, strlen(text));
    capsa__policy_free_string(policy, text);
    size_t ncaps = capsa__policy_count(policy);
    capsa__buf_put_u32(b, a, (uint32_t)ncaps);
    for (size_t i = 0; i < ncaps; i++)
        capsa__buf_put_u64(b, a, capsa__policy_used(policy, i));
    section_end(b, at);

    at = section_begin(b, a, SEC_TOOLS);
    size_t ntools = capsa__tools_count(sb->tools);
    capsa__buf_put_u32(b, a, capsa__tools_generation(sb->tools));
    capsa__buf_put_u32(b, a, capsa__tools_next_id(sb->tools));
    capsa__buf_put_u32(b, a, (uint32_t)ntools);
    for (size_t i = 0; i < ntools; i++) {
        capsa__tool_saved t;
        capsa__tools_saved(sb->tools, i, &t);
        capsa__buf_put_str(b, a, t.name, strlen(t.name));
        capsa__buf_put_str(b, a, t.description, strlen(t.description));
        capsa__buf_put_str(b, a, t.schema, strlen(t.schema));
        capsa__buf_put_str(b, a, t.returns ? t.returns : "", t.returns ? strlen(t.returns) : 0);
        capsa__buf_put_u32(b, a, t.flags);
        capsa__buf_put_u64(b, a, t.timeout_ms);
        capsa__buf_put_u8(b, a, (uint8_t)t.has_fn);
    }
    section_end(b, at);

    at = section_begin(b, a, SEC_FILES);
    if (capsa__vfs_save(sb->vfs, b, a) != 0)
        return CAPSA_ENOMEM;
    section_end(b, at);

    at = section_begin(b, a, SEC_MOUNTS);
    capsa__buf_put_u32(b, a, (uint32_t)sb->n_mounts);
    for (size_t i = 0; i < sb->n_mounts; i++) {
        const capsa__host_mount *m = &sb->mounts[i];
        capsa__buf_put_str(b, a, m->guest_path, strlen(m->guest_path));
        capsa__buf_put_u8(b, a, (uint8_t)m->rw);
    }
    section_end(b, at);

    at = section_begin(b, a, SEC_MEMORY);
    capsa__buf_put_u8(b, a, sb->inst != NULL);
    if (sb->inst) {
        capsa__instance_globals gl;
        size_t globals_at = b->len;
        capsa__buf_put_u32(b, a, 0);
        capsa__buf_put_u32(b, a, 0);
        capsa__buf_put_u32(b, a, 0);
        mem_out m = { s, a };
        int rc = capsa__instance_save(sb->engine->image, sb->inst, &gl, put_chunk, &m, sb->errmsg,
                                      sizeof(sb->errmsg));
        if (rc != CAPSA_OK)
            return rc;
        patch_u32(b, globals_at, gl.pages);
        patch_u32(b, globals_at + 4, gl.stack_pointer);
        patch_u32(b, globals_at + 8, gl.tls_base);
        put_runs(b, a, s);
    }
    /* The chunks' bytes follow, to the end of the contents. */
    section_end(b, at);
    if (!b->failed)
        capsa__store_le64((uint8_t *)b->data + at,
                          b->len - at - 8 + (uint64_t)s->nchunks * CAPSA__RT_CHUNK);
    return b->failed ? CAPSA_ENOMEM : CAPSA_OK;
}

CAPSA_API int capsa_checkpoint_write(capsa_sandbox *sb, capsa_write_fn fn, void *ud)
{
    if (!sb || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL; /* during a run: the run's message stays */
    if (!fn) {
        capsa__sandbox_errorf(sb, "capsa_checkpoint_write: no writer");
        return CAPSA_EINVAL;
    }
    if (sb->pending) {
        capsa__sandbox_errorf(sb, "a run is pending (step mode): a checkpoint is taken between "
                                  "runs; settle its tool calls and capsa_resume it, or "
                                  "capsa_reset the sandbox");
        return CAPSA_EINVAL;
    }
    capsa__ckpt_scratch *s = scratch_take(sb->engine);
    if (!s) {
        capsa__sandbox_errorf(sb, "out of memory making the checkpoint");
        return CAPSA_ENOMEM;
    }
    capsa__buf *b = &s->contents;
    uint8_t room[HEADER_SIZE] = { 0 };
    capsa__buf_append(b, sb->alloc, room, sizeof(room));
    int rc = save_sections(sb, s);
    if (rc == CAPSA_ENOMEM)
        capsa__sandbox_errorf(sb, "out of memory making the checkpoint");
    /* The frames are kept from a sandbox's second checkpoint on: keeping them costs
       a copy of the contents, which only a sandbox checkpointed again gets back
       (a `capsa run --session` process makes one checkpoint; a server that keeps
       a session loaded, one after every run). */
    if (rc == CAPSA_OK)
        rc = emit(sb->engine, s, sb->checkpoints++ ? &sb->ckpt_cache : NULL, fn, ud, sb->errmsg,
                  sizeof(sb->errmsg));
    uint64_t bytes = b->len + (uint64_t)s->nchunks * CAPSA__RT_CHUNK;
    scratch_put(sb->engine, s);
    if (rc != CAPSA_OK)
        return rc;
    capsa__sandbox_errorf(sb, "not an error");
    if (capsa__sandbox_audited(sb)) {
        char extra[64];
        snprintf(extra, sizeof(extra), "\"bytes\":%llu", (unsigned long long)bytes);
        capsa__audit_event(sb, "checkpoint", sb->runs, extra);
    }
    return CAPSA_OK;
}

/* A writer into a buffer of the C library's (capsa_free releases it). */
static int to_buf(void *ud, const void *data, size_t len)
{
    return capsa__buf_append(ud, &capsa__default_allocator, data, len);
}

CAPSA_API int capsa_checkpoint(capsa_sandbox *sb, char **data, size_t *len)
{
    if (data)
        *data = NULL;
    if (len)
        *len = 0;
    if (!sb || !data || !len)
        return CAPSA_EINVAL;
    capsa__buf b = { 0 };
    int rc = capsa_checkpoint_write(sb, to_buf, &b);
    if (rc != CAPSA_OK) {
        if (rc == CAPSA_EIO) {
            rc = CAPSA_ENOMEM; /* the only way to_buf stops */
            capsa__sandbox_errorf(sb, "out of memory for the checkpoint's bytes");
        }
        capsa__buf_free(&b, &capsa__default_allocator);
        return rc;
    }
    *data = b.data;
    *len = b.len;
    return CAPSA_OK;
}

int capsa__checkpoint_seal(capsa_engine *engine, const void *sections, size_t len,
                           capsa__buf *out)
{
    capsa__ckpt_scratch *s = scratch_take(engine);
    if (!s)
        return CAPSA_ENOMEM;
    uint8_t room[HEADER_SIZE] = { 0 };
    capsa__buf_append(&s->contents, &engine->alloc, room, sizeof(room));
    capsa__buf_append(&s->contents, &engine->alloc, sections, len);
    char msg[128];
    int rc = s->contents.failed ? CAPSA_ENOMEM
                                : emit(engine, s, NULL, to_buf, out, msg, sizeof(msg));
    scratch_put(engine, s);
    return rc == CAPSA_EIO ? CAPSA_ENOMEM : rc;
}

/* ---- reading ------------------------------------------------------------------------ */

static void hex8(const uint8_t *id, char out[17])
{
    for (int i = 0; i < 8; i++)
        snprintf(out + 2 * i, 3, "%02x", id[i]);
}

/* Checks the header of data[0..len) against this build and engine and
 * decompresses the contents into s's buffer, whose repeated header it checks
 * too. */
static int open_blob(capsa_engine *e, const uint8_t *data, size_t len, uint64_t max,
                     capsa__ckpt_scratch *s, capsa__rd *contents, char *msg, size_t msgsize)
{
    if (len < 8 || memcmp(data, MAGIC, 8) != 0)
        return capsa__msgf(msg, msgsize, CAPSA_EINVAL,
                           "not a capsa checkpoint (no CAPSACKP header)");
    if (len < HEADER_SIZE)
        return capsa__msgf(msg, msgsize, CAPSA_EINVAL,
                           "the checkpoint is truncated (%zu bytes: its header alone is %u)",
                           len, HEADER_SIZE);
    uint32_t version = (uint32_t)capsa__load_le64(data + 8) & UINT32_MAX;
    if (version != FORMAT_VERSION)
        return capsa__msgf(msg, msgsize, CAPSA_EINVAL,
                           "the checkpoint has format version %u; this capsa (%s) reads version %u",
                           version, CAPSA_VERSION_STRING, FORMAT_VERSION);
    if (capsa__load_le64(data + 8) >> 32 || capsa__load_le64(data + 88))
        return capsa__msgf(msg, msgsize, CAPSA_EINVAL, "the checkpoint's header has unknown flags");
    uint8_t want[HEADER_SIZE];
    make_header(e, 0, want);
    char a[17], b[17];
    if (memcmp(data + 16, want + 16, 32) != 0) {
        hex8(data + 16, a);
        hex8(want + 16, b);
        return capsa__msgf(msg, msgsize, CAPSA_EINVAL,
                           "the checkpoint was made by another build of capsa's guest (build "
                           "%s..., this one is %s...): restore it with that build", a, b);
    }
    if (memcmp(data + 48, want + 48, 32) != 0) {
        hex8(data + 48, a);
        hex8(want + 48, b);
        return capsa__msgf(msg, msgsize, CAPSA_EINVAL,
                           "the checkpoint was taken over another guest image (%s..., this "
                           "engine's is %s...) of the same build: the image is not the same in "
                           "every process", a, b);
    }
    uint64_t n = capsa__load_le64(data + 80);
    if (n > max)
        return capsa__msgf(msg, msgsize, CAPSA_ETOOBIG,
                           "the checkpoint's contents are %llu bytes, over the limit of %llu",
                           (unsigned long long)n, (unsigned long long)max);
    if (n < HEADER_SIZE || n > SIZE_MAX)
        return capsa__msgf(msg, msgsize, CAPSA_EINVAL,
                           "the checkpoint's header is corrupt (contents of %llu bytes)",
                           (unsigned long long)n);
    const uint8_t *out;
    int rc = capsa__ckpt_body_read(&s->zip, &e->alloc, data + HEADER_SIZE, len - HEADER_SIZE,
                                   (size_t)n, &out, msg, msgsize);
    if (rc != CAPSA_OK)
        return rc;
    if (memcmp(out, data, HEADER_SIZE) != 0)
        return capsa__msgf(msg, msgsize, CAPSA_EINVAL,
                           "the checkpoint is corrupt: its header is not the one its contents "
                           "repeat");
    *contents = (capsa__rd){ out + HEADER_SIZE, (size_t)n - HEADER_SIZE, 0 };
    return CAPSA_OK;
}

/* Reads the next section, which must be tag, into *sec. */
static int section(capsa__rd *r, uint32_t tag, capsa__rd *sec, char *msg, size_t msgsize)
{
    uint32_t t = capsa__rd_u32(r);
    uint64_t n = capsa__rd_u64(r);
    const uint8_t *p = !r->failed && t == tag && n <= r->left ? capsa__rd_bytes(r, (size_t)n)
                                                             : NULL;
    if (!p)
        return capsa__msgf(msg, msgsize, CAPSA_EINVAL,
                           "the checkpoint is malformed: its %s section is missing or truncated",
                           section_names[tag]);
    *sec = (capsa__rd){ p, (size_t)n, 0 };
    return CAPSA_OK;
}

/* After a section's fields: it must have ended where its length said. */
static int section_done(capsa_sandbox *sb, const capsa__rd *sec, uint32_t tag)
{
    if (!sec->failed && sec->left == 0)
        return CAPSA_OK;
    capsa__sandbox_errorf(sb, "the checkpoint is malformed: its %s section is %s",
                          section_names[tag], sec->failed ? "truncated" : "longer than its fields");
    return CAPSA_EINVAL;
}

static int load_state(capsa_sandbox *sb, capsa__rd *r)
{
    sb->runs = capsa__rd_u64(r);
    sb->audit_dropped = capsa__rd_u64(r);
    sb->audit_sent = capsa__rd_u64(r);
    return section_done(sb, r, SEC_STATE);
}

static int load_policy(capsa_sandbox *sb, capsa__rd *r)
{
    size_t len;
    const char *text = capsa__rd_str(r, r->left, &len);
    uint32_t n = capsa__rd_u32(r);
    if (r->failed)
        return section_done(sb, r, SEC_POLICY);
    capsa__policy *p = NULL;
    char err[256];
    int rc = capsa__policy_parse(sb->alloc, text, len, &p, err, sizeof(err));
    if (rc != CAPSA_OK) {
        capsa__sandbox_errorf(sb, "the checkpoint's policy does not load: %s", err);
        return rc;
    }
    if (n != capsa__policy_count(p)) {
        capsa__sandbox_errorf(sb, "the checkpoint's policy has %zu capabilities and counts for %u",
                              capsa__policy_count(p), n);
        capsa__policy_free(p);
        return CAPSA_EINVAL;
    }
    for (uint32_t i = 0; i < n && !r->failed; i++) {
        uint64_t used = capsa__rd_u64(r);
        if (!r->failed && capsa__policy_set_used(p, i, used) != 0) {
            capsa__sandbox_errorf(sb, "the checkpoint's capability %u has used %llu calls, over "
                                      "its budget", i, (unsigned long long)used);
            capsa__policy_free(p);
            return CAPSA_EINVAL;
        }
    }
    capsa__tools_set_policy(sb->tools, p);
    return section_done(sb, r, SEC_POLICY);
}

/* A string of a section as a new NUL-terminated copy (the engine's allocator), or
 * NULL: truncated, over max bytes, holding a NUL, or out of memory (*nomem). */
static char *read_string(capsa_sandbox *sb, capsa__rd *r, size_t max, int *nomem)
{
    size_t len;
    const char *s = capsa__rd_str(r, max, &len);
    if (!s || memchr(s, '\0', len))
        return NULL;
    char *copy = capsa__strndup(sb->alloc, s, len);
    *nomem = !copy;
    return copy;
}

static int load_tools(capsa_sandbox *sb, capsa__rd *r, const capsa_restore_options *ro)
{
    uint32_t generation = capsa__rd_u32(r);
    uint32_t next_id = capsa__rd_u32(r);
    uint32_t n = capsa__rd_u32(r);
    /* Each tool takes at least 29 bytes: a count past that is not believed. */
    if (r->failed || n > r->left / 29)
        return section_done(sb, r, SEC_TOOLS);
    capsa__tool_saved *saved = capsa__malloc(sb->alloc, (n ? n : 1) * sizeof(*saved));
    if (!saved) {
        capsa__sandbox_errorf(sb, "out of memory restoring the tools");
        return CAPSA_ENOMEM;
    }
    memset(saved, 0, (n ? n : 1) * sizeof(*saved));
    int nomem = 0, rc = CAPSA_OK;
    uint32_t made = 0;
    for (; made < n && rc == CAPSA_OK; made++) {
        capsa__tool_saved *t = &saved[made];
        t->name = read_string(sb, r, CAPSA__TOOL_NAME_MAX, &nomem);
        t->description = t->name ? read_string(sb, r, r->left, &nomem) : NULL;
        t->schema = t->description ? read_string(sb, r, r->left, &nomem) : NULL;
        t->returns = t->schema ? read_string(sb, r, r->left, &nomem) : NULL;
        t->flags = capsa__rd_u32(r);
        t->timeout_ms = capsa__rd_u64(r);
        uint8_t has_fn = capsa__rd_u8(r);
        t->has_fn = has_fn;
        if (nomem) {
            capsa__sandbox_errorf(sb, "out of memory restoring the tools");
            rc = CAPSA_ENOMEM;
        } else if (!t->returns || r->failed || has_fn > 1) {
            capsa__sandbox_errorf(sb, "the checkpoint is malformed: tool %u of its tools section "
                                      "is truncated or holds a bad string", made);
            rc = CAPSA_EINVAL;
        }
    }
    for (uint32_t i = 0; i < made; i++)
        if (saved[i].returns && !saved[i].returns[0]) {
            capsa__free(sb->alloc, (char *)saved[i].returns);
            saved[i].returns = NULL; /* none */
        }
    if (rc == CAPSA_OK && (rc = section_done(sb, r, SEC_TOOLS)) == CAPSA_OK)
        rc = capsa__tools_restore(sb->tools, saved, n, ro->tools, ro->tools ? ro->n_tools : 0,
                                  generation, next_id);
    for (uint32_t i = 0; i < made; i++) {
        capsa__free(sb->alloc, (char *)saved[i].name);
        capsa__free(sb->alloc, (char *)saved[i].description);
        capsa__free(sb->alloc, (char *)saved[i].schema);
        capsa__free(sb->alloc, (char *)saved[i].returns);
    }
    capsa__free(sb->alloc, saved);
    return rc;
}

static int load_files(capsa_sandbox *sb, capsa__rd *r)
{
    int err = capsa__vfs_load(sb->vfs, r, sb->errmsg, sizeof(sb->errmsg));
    if (err)
        return capsa__vfs_status(err) == CAPSA_ENOMEM ? CAPSA_ENOMEM : CAPSA_EINVAL;
    return section_done(sb, r, SEC_FILES);
}

static int load_mounts(capsa_sandbox *sb, capsa__rd *r)
{
    uint32_t n = capsa__rd_u32(r);
    for (uint32_t i = 0; i < n && !r->failed; i++) {
        size_t len;
        const char *path = capsa__rd_str(r, CAPSA__VFS_PATH_MAX, &len);
        uint8_t rw = capsa__rd_u8(r);
        if (r->failed)
            break;
        if (rw > 1 || memchr(path, '\0', len)) {
            capsa__sandbox_errorf(sb, "the checkpoint is malformed: mount %u", i);
            return CAPSA_EINVAL;
        }
        int rc = capsa__fs_restore_mount(sb, path, len, rw);
        if (rc != CAPSA_OK)
            return rc;
    }
    return section_done(sb, r, SEC_MOUNTS);
}

static int load_memory(capsa_sandbox *sb, capsa__rd *r)
{
    uint8_t kept = capsa__rd_u8(r);
    if (kept > 1) {
        capsa__sandbox_errorf(sb, "the checkpoint is malformed: its memory section");
        return CAPSA_EINVAL;
    }
    if (r->failed || !kept)
        return section_done(sb, r, SEC_MEMORY);
    capsa__instance_globals gl;
    gl.pages = capsa__rd_u32(r);
    gl.stack_pointer = capsa__rd_u32(r);
    gl.tls_base = capsa__rd_u32(r);
    if (r->failed)
        return section_done(sb, r, SEC_MEMORY);
    int rc = capsa__instance_load_begin(sb->engine->image, sb->inst, &gl, sb->errmsg,
                                        sizeof(sb->errmsg));
    if (rc != CAPSA_OK)
        return rc;
    /* The runs, then their bytes: the runs in increasing order, in range, and
       their chunks exactly what follows them. */
    uint64_t chunks = (uint64_t)gl.pages * (CAPSA__WASM_PAGE / CAPSA__RT_CHUNK), next = 0;
    uint64_t total = 0;
    uint32_t nruns = capsa__rd_u32(r);
    const uint8_t *table = !r->failed && nruns <= r->left / 8
                               ? capsa__rd_bytes(r, (size_t)nruns * 8) : NULL;
    for (uint32_t i = 0; table && i < nruns; i++) {
        uint32_t first = capsa__load_le32(table + 8 * i);
        uint32_t count = capsa__load_le32(table + 8 * i + 4);
        if (!count || first < next || (uint64_t)first + count > chunks)
            table = NULL;
        next = (uint64_t)first + count;
        total += count;
    }
    if (!table || total != r->left / CAPSA__RT_CHUNK || r->left % CAPSA__RT_CHUNK) {
        capsa__sandbox_errorf(sb, "the checkpoint is malformed: its %u runs of memory pages are "
                                  "out of order, out of range (of %llu pages), or not what "
                                  "follows them", nruns, (unsigned long long)chunks);
        return CAPSA_EINVAL;
    }
    for (uint32_t i = 0; i < nruns; i++) {
        uint32_t first = capsa__load_le32(table + 8 * i);
        size_t len = (size_t)capsa__load_le32(table + 8 * i + 4) * CAPSA__RT_CHUNK;
        if (capsa__instance_load_chunk(sb->inst, (uint64_t)first * CAPSA__RT_CHUNK,
                                       capsa__rd_bytes(r, len), len) != 0) {
            capsa__sandbox_errorf(sb, "cannot write the checkpoint's memory pages at page %u",
                                  first);
            return CAPSA_EINVAL;
        }
    }
    if ((rc = section_done(sb, r, SEC_MEMORY)) != CAPSA_OK)
        return rc;
    return capsa__instance_load_end(sb->inst, sb->opts.memory_limit, sb->opts.max_stack,
                                    sb->errmsg, sizeof(sb->errmsg));
}

/* Makes the sandbox from the contents' sections. On failure msg says why and
 * *out is NULL. */
static int restore_sections(capsa_engine *e, const capsa_restore_options *ro, capsa__rd *r,
                            capsa_sandbox **out, char *msg, size_t msgsize)
{
    capsa__rd sec;
    int rc = section(r, SEC_OPTIONS, &sec, msg, msgsize);
    if (rc != CAPSA_OK)
        return rc;
    capsa_options o;
    capsa_options_init(&o);
    uint64_t v;
    int wide = 0;
#define GET_OPTION(field, bits)                                 \
    v = capsa__rd_u64(&sec);                                    \
    wide |= bits == 32 && v > UINT32_MAX;                       \
    o.field = (__typeof__(o.field))v;
    OPTION_FIELDS(GET_OPTION)
#undef GET_OPTION
    if (sec.failed || sec.left || wide)
        return capsa__msgf(msg, msgsize, CAPSA_EINVAL, "the checkpoint is malformed: its options "
                           "section is %s", wide ? "out of range" : "truncated or too long");
    /* Kept lines stand in for an audit callback, and callbacks are the restore's. */
    o.audit_flags = (o.audit_flags & ~(uint32_t)CAPSA_AUDIT_KEEP) | ro->audit_flags;
    o.on_output = ro->on_output;
    o.on_output_ud = ro->on_output_ud;
    o.on_audit = ro->on_audit;
    o.on_audit_ud = ro->on_audit_ud;
    capsa_sandbox *sb;
    rc = capsa_sandbox_new(e, &o, &sb);
    if (rc == CAPSA_EINVAL)
        return capsa__msgf(msg, msgsize, rc,
                           "the checkpoint's options are not valid (a limit out of range)");
    if (rc != CAPSA_OK)
        return capsa__msgf(msg, msgsize, rc, "cannot make the sandbox: %s", capsa_errstr(rc));
    static int (*const loaders[])(capsa_sandbox *, capsa__rd *) = {
        [SEC_STATE] = load_state, [SEC_POLICY] = load_policy, [SEC_FILES] = load_files,
        [SEC_MOUNTS] = load_mounts, [SEC_MEMORY] = load_memory,
    };
    for (uint32_t tag = SEC_STATE; rc == CAPSA_OK && tag <= SEC_MEMORY; tag++) {
        rc = section(r, tag, &sec, sb->errmsg, sizeof(sb->errmsg));
        if (rc == CAPSA_OK)
            rc = tag == SEC_TOOLS ? load_tools(sb, &sec, ro) : loaders[tag](sb, &sec);
    }
    if (rc == CAPSA_OK && r->left) {
        capsa__sandbox_errorf(sb, "the checkpoint is malformed: %zu bytes after its last section",
                              r->left);
        rc = CAPSA_EINVAL;
    }
    if (rc != CAPSA_OK) {
        capsa__msgf(msg, msgsize, rc, "%s", sb->errmsg);
        capsa_sandbox_free(sb);
        return rc;
    }
    capsa__sandbox_errorf(sb, "not an error");
    if (capsa__sandbox_audited(sb))
        capsa__audit_event(sb, "restore", sb->runs, "");
    *out = sb;
    return CAPSA_OK;
}

CAPSA_API void capsa_restore_options_init(capsa_restore_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof(*opts));
    opts->struct_size = sizeof(*opts);
}

CAPSA_API int capsa_sandbox_restore(capsa_engine *engine, const void *data, size_t len,
                                    const capsa_restore_options *opts, capsa_sandbox **out,
                                    char *errmsg, size_t errmsg_size)
{
    char scratch[8];
    if (!errmsg) {
        errmsg = scratch;
        errmsg_size = sizeof(scratch);
    }
    if (errmsg_size)
        errmsg[0] = '\0';
    if (out)
        *out = NULL;
    if (!engine || !out || (!data && len))
        return capsa__msgf(errmsg, errmsg_size, CAPSA_EINVAL, "capsa_sandbox_restore: %s",
                           !engine ? "no engine"
                           : !out  ? "no place for the sandbox"
                                   : "data is NULL");
    capsa_restore_options ro;
    capsa_restore_options_init(&ro);
    if (opts && capsa__struct_in(&ro, sizeof(ro), opts) != 0)
        return capsa__msgf(errmsg, errmsg_size, CAPSA_EINVAL,
                           "capsa_sandbox_restore: options of an unknown size");
    if (ro.n_tools && !ro.tools)
        return capsa__msgf(errmsg, errmsg_size, CAPSA_EINVAL,
                           "capsa_sandbox_restore: n_tools is %zu and tools is NULL", ro.n_tools);
    if (ro.audit_flags & ~(uint32_t)CAPSA_AUDIT_KEEP)
        return capsa__msgf(errmsg, errmsg_size, CAPSA_EINVAL,
                           "capsa_sandbox_restore: audit_flags is %#x; only CAPSA_AUDIT_KEEP is "
                           "a restore's (the other flags are the checkpoint's)", ro.audit_flags);
    capsa__ckpt_scratch *s = scratch_take(engine);
    if (!s)
        return capsa__msgf(errmsg, errmsg_size, CAPSA_ENOMEM,
                           "out of memory restoring a checkpoint");
    capsa__rd r;
    int rc = open_blob(engine, data ? data : "", len,
                       ro.max_bytes ? ro.max_bytes : CAPSA_CHECKPOINT_MAX, s, &r, errmsg,
                       errmsg_size);
    if (rc == CAPSA_OK)
        rc = restore_sections(engine, &ro, &r, out, errmsg, errmsg_size);
    scratch_put(engine, s);
    return rc;
}
