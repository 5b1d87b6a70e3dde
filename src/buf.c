/* Host memory and text: allocation through the engine's allocator hooks, the
 * growable byte buffers that collect output and build results (an append that
 * fails is remembered), little-endian numbers written into them and read back
 * with every length checked (checkpoints), the copies of the caller's versioned
 * structs, and UTF-8. */
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
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

int capsa__buf_reserve(capsa__buf *b, const capsa_allocator *a, size_t n)
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
    return 0;
}

int capsa__buf_append_grow(capsa__buf *b, const capsa_allocator *a, const void *p, size_t n)
{
    if (capsa__buf_reserve(b, a, n) != 0)
        return -1;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
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

int capsa__buf_put_u8(capsa__buf *b, const capsa_allocator *a, uint8_t v)
{
    return capsa__buf_append(b, a, &v, 1);
}

int capsa__buf_put_u32(capsa__buf *b, const capsa_allocator *a, uint32_t v)
{
    uint8_t le[4];
    capsa__store_le32(le, v);
    return capsa__buf_append(b, a, le, sizeof(le));
}

int capsa__buf_put_u64(capsa__buf *b, const capsa_allocator *a, uint64_t v)
{
    uint8_t le[8];
    capsa__store_le64(le, v);
    return capsa__buf_append(b, a, le, sizeof(le));
}

int capsa__buf_put_str(capsa__buf *b, const capsa_allocator *a, const void *s, size_t len)
{
    if (len > UINT32_MAX) {
        b->failed = 1;
        return -1;
    }
    capsa__buf_put_u32(b, a, (uint32_t)len);
    return capsa__buf_append(b, a, s, len);
}

const uint8_t *capsa__rd_bytes(capsa__rd *r, size_t n)
{
    if (r->failed || n > r->left) {
        r->failed = 1;
        return NULL;
    }
    const uint8_t *p = r->p;
    r->p += n;
    r->left -= n;
    return p;
}

uint8_t capsa__rd_u8(capsa__rd *r)
{
    const uint8_t *p = capsa__rd_bytes(r, 1);
    return p ? p[0] : 0;
}

uint32_t capsa__rd_u32(capsa__rd *r)
{
    const uint8_t *p = capsa__rd_bytes(r, 4);
    return p ? capsa__load_le32(p) : 0;
}

uint64_t capsa__rd_u64(capsa__rd *r)
{
    const uint8_t *p = capsa__rd_bytes(r, 8);
    return p ? capsa__load_le64(p) : 0;
}

const char *capsa__rd_str(capsa__rd *r, size_t max, size_t *len)
{
    uint32_t n = capsa__rd_u32(r);
    *len = 0;
    if (n > max) {
        r->failed = 1;
        return NULL;
    }
    const uint8_t *p = capsa__rd_bytes(r, n);
    if (p)
        *len = n;
    return (const char *)p;
}

int capsa__msgf(char *msg, size_t msgsize, int rc, const char *fmt, ...)
{
    if (msg && msgsize) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msgsize, fmt, ap);
        va_end(ap);
    }
    return rc;
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
