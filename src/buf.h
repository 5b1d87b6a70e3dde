/* Host memory and text: allocation through the engine's allocator hooks, the
 * growable byte buffers that collect output and build results, the copies of the
 * caller's versioned structs (options, stats, ...), and the check of UTF-8 that
 * paths, messages and JSON share. */
#ifndef CAPSA_BUF_H
#define CAPSA_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "capsa.h"

/* The C library's allocator, used when the caller gives none. */
extern const capsa_allocator capsa__default_allocator;

static inline void *capsa__malloc(const capsa_allocator *a, size_t n)
{
    return a->realloc_fn(a->ud, NULL, n ? n : 1);
}

static inline void capsa__free(const capsa_allocator *a, void *p)
{
    if (p)
        a->free_fn(a->ud, p);
}

/* A NUL-terminated growable byte string; data is NULL until the first append.
 * An append that fails (out of memory) leaves the bytes as they were and marks
 * the buffer failed: every later append then does nothing and fails too, until
 * capsa__buf_clear, _truncate or _free. So a text made by many appends (a JSON
 * line, a declaration file) is written without a check per append, and checked
 * once at its end: `if (b.failed)`. */
typedef struct capsa__buf {
    char *data;
    size_t len, cap;
    int failed;
} capsa__buf;

/* Makes room for n more bytes (and the NUL) without appending them; returns 0,
 * or -1 when the buffer failed. */
int capsa__buf_reserve(capsa__buf *b, const capsa_allocator *a, size_t n);
/* capsa__buf_append when the bytes do not fit (or the buffer failed). */
int capsa__buf_append_grow(capsa__buf *b, const capsa_allocator *a, const void *p, size_t n);

/* Appends n bytes; returns 0, or -1 when the buffer failed (now or before).
 * Inline, as the lines of the audit trail and of results are made of many small
 * appends: bytes that fit are copied here, the rest go through the grow path. */
static inline int capsa__buf_append(capsa__buf *b, const capsa_allocator *a, const void *p,
                                    size_t n)
{
    if (b->failed || n >= b->cap - b->len) /* cap 0 (no data yet) never fits */
        return capsa__buf_append_grow(b, a, p, n);
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

/* Appends the NUL-terminated string s (a literal's length is known when inlined). */
static inline int capsa__buf_append_str(capsa__buf *b, const capsa_allocator *a, const char *s)
{
    return capsa__buf_append(b, a, s, strlen(s));
}
/* Appends v in decimal. */
int capsa__buf_append_u64(capsa__buf *b, const capsa_allocator *a, uint64_t v);
/* Appends v little-endian, in 1, 4 or 8 bytes (the encoding of checkpoints). */
int capsa__buf_put_u8(capsa__buf *b, const capsa_allocator *a, uint8_t v);
int capsa__buf_put_u32(capsa__buf *b, const capsa_allocator *a, uint32_t v);
int capsa__buf_put_u64(capsa__buf *b, const capsa_allocator *a, uint64_t v);
/* Appends s[0..len) after its length as a u32 (len must fit in one). */
int capsa__buf_put_str(capsa__buf *b, const capsa_allocator *a, const void *s, size_t len);
/* Marks the buffer failed, for a part of a text that could not be made (a
 * library out of memory). */
void capsa__buf_fail(capsa__buf *b);
/* Cuts the buffer back to its first len bytes (len at most b->len) and forgets a
 * failure: undoes what was appended after len. */
void capsa__buf_truncate(capsa__buf *b, size_t len);
/* Empties the buffer, keeping its memory, and forgets a failure. */
void capsa__buf_clear(capsa__buf *b);
/* Releases the buffer's memory and forgets a failure. */
void capsa__buf_free(capsa__buf *b, const capsa_allocator *a);
/* Little-endian numbers at p (guest structures, checkpoints). */
static inline void capsa__store_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void capsa__store_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void capsa__store_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t capsa__load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t capsa__load_le64(const uint8_t *p)
{
    return (uint64_t)capsa__load_le32(p) | (uint64_t)capsa__load_le32(p + 4) << 32;
}

/* Formats msg (msgsize bytes; NULL for none) and returns rc, so that error paths
 * read `return capsa__msgf(msg, msgsize, CAPSA_EINVAL, "...", ...)`. */
int capsa__msgf(char *msg, size_t msgsize, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A reader of bytes that come from outside (a checkpoint), the other side of the
 * capsa__buf_put_* functions. Each read checks what is left; the first that asks
 * for more marks the reader failed, and every read after it fails too (numbers
 * read as 0, bytes as NULL), so that a parser checks `failed` once per decision
 * rather than after every read. */
typedef struct capsa__rd {
    const uint8_t *p;
    size_t left;
    int failed;
} capsa__rd;

uint8_t capsa__rd_u8(capsa__rd *r);
uint32_t capsa__rd_u32(capsa__rd *r);
uint64_t capsa__rd_u64(capsa__rd *r);
/* The next n bytes (borrowed from the reader's data), or NULL. */
const uint8_t *capsa__rd_bytes(capsa__rd *r, size_t n);
/* A string written by capsa__buf_put_str: its bytes (borrowed, not NUL-terminated)
 * and *len, or NULL (and the reader failed) when it is longer than max. */
const char *capsa__rd_str(capsa__rd *r, size_t max, size_t *len);

/* Copies the caller's versioned struct src (its first member the size_t
 * struct_size) over the library's own in dst (dst_size bytes, defaults filled
 * in): the fields the caller knows; the others keep their defaults. Returns 0,
 * or -1 when src's struct_size is impossible (smaller than that member, or larger
 * than the library's struct). */
int capsa__struct_in(void *dst, size_t dst_size, const void *src);

/* Copies the library's struct src (src_size bytes) into the caller's dst as far
 * as dst's struct_size reaches (at least that member, checked by the caller);
 * dst keeps its own struct_size. */
void capsa__struct_out(void *dst, const void *src, size_t src_size);

/* A copy of s[0..n) with a NUL, or NULL when out of memory; free with capsa__free. */
char *capsa__strndup(const capsa_allocator *a, const char *s, size_t n);

/* The length of the valid UTF-8 sequence (shortest form, no surrogate, at most
 * U+10FFFF) at s[0..len), len > 0, or 0 when there is none. */
size_t capsa__utf8_len(const unsigned char *s, size_t len);

#endif
