/* Host memory and text: allocation through the engine's allocator hooks, the
 * growable byte buffers that collect output and build results (an append that
 * fails is remembered), the copies of the caller's versioned structs, and UTF-8. */
#include "buf.h"

#include <stdlib.h>
#include <string.h>

static void *libc_realloc(void *ud, void *p, size_t n)
{
    (void)ud;
    return realloc(p, n);
}

static void libc_free(void *ud, void *p)
{
    (void)ud;
    free(p);
}

const capsa_allocator capsa__default_allocator = { libc_realloc, libc_free, NULL };

int capsa__buf_append(capsa__buf *b, const capsa_allocator *a, const void *p, size_t n)
{
    if (b->failed)
        return -1;
    if (n > SIZE_MAX - b->len - 1) {
        b->failed = 1;
        return -1;
    }
    size_t need = b->len + n + 1;
    if (need > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < need)
            cap = cap > SIZE_MAX / 2 ? need : cap * 2;
        char *d = a->realloc_fn(a->ud, b->data, cap);
        if (!d) {
            b->failed = 1;
            return -1;
        }
        b->data = d;
        b->cap = cap;
    }
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int capsa__buf_append_str(capsa__buf *b, const capsa_allocator *a, const char *s)
{
    return capsa__buf_append(b, a, s, strlen(s));
}

int capsa__buf_append_u64(capsa__buf *b, const capsa_allocator *a, uint64_t v)
{
    char digits[20];
    size_t i = sizeof(digits);
    do {
        digits[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return capsa__buf_append(b, a, digits + i, sizeof(digits) - i);
}

void capsa__buf_fail(capsa__buf *b)
{
    b->failed = 1;
}

void capsa__buf_truncate(capsa__buf *b, size_t len)
{
    b->failed = 0;
    if (len < b->len) {
        b->len = len;
        b->data[len] = '\0';
    }
}

void capsa__buf_clear(capsa__buf *b)
{
    capsa__buf_truncate(b, 0);
}

void capsa__buf_free(capsa__buf *b, const capsa_allocator *a)
{
    capsa__free(a, b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}

int capsa__struct_in(void *dst, size_t dst_size, const void *src)
{
    size_t n;
    memcpy(&n, src, sizeof(n));
    if (n < sizeof(size_t) || n > dst_size)
        return -1;
    memcpy(dst, src, n);
    return 0;
}

void capsa__struct_out(void *dst, const void *src, size_t src_size)
{
    size_t want;
    memcpy(&want, dst, sizeof(want));
    memcpy(dst, src, want < src_size ? want : src_size);
    memcpy(dst, &want, sizeof(want));
}

char *capsa__strndup(const capsa_allocator *a, const char *s, size_t n)
{
    if (n == SIZE_MAX)
        return NULL;
    char *d = capsa__malloc(a, n + 1);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

size_t capsa__utf8_len(const unsigned char *s, size_t len)
{
    size_t n = s[0] < 0x80 ? 1 : (s[0] >> 5) == 6 ? 2 : (s[0] >> 4) == 14 ? 3
             : (s[0] >> 3) == 30 ? 4 : 0;
    if (n == 0 || n > len)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    }
    uint32_t c = n == 1 ? s[0] : n == 2 ? (s[0] & 0x1fu) : n == 3 ? (s[0] & 0x0fu) : (s[0] & 0x07u);
    for (size_t i = 1; i < n; i++)
        c = (c << 6) | (s[i] & 0x3fu);
    static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (c < min[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    return n;
}
