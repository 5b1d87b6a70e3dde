/* Host memory and text: allocation through the engine's allocator hooks, the
 * growable byte buffers that collect output and build results, the copies of the
 * caller's versioned structs (options, stats, ...), and the check of UTF-8 that
 * paths, messages and JSON share. */
#ifndef CAPSA_BUF_H
#define CAPSA_BUF_H

#include <stddef.h>
#include <stdint.h>

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

/* Appends n bytes; returns 0, or -1 when the buffer failed (now or before). */
int capsa__buf_append(capsa__buf *b, const capsa_allocator *a, const void *p, size_t n);
/* Appends the NUL-terminated string s. */
int capsa__buf_append_str(capsa__buf *b, const capsa_allocator *a, const char *s);
/* Appends v in decimal. */
int capsa__buf_append_u64(capsa__buf *b, const capsa_allocator *a, uint64_t v);
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
