/* libFuzzer harness: what `capsa serve` reads from a URL (net/serve_parse.c):
 * the files/{path} part turned into a guest path, the query counts (after,
 * limit) and session ids. The input, up to its first NUL (a URL holds none), is
 * the raw path; its first byte also picks a small output buffer now and then,
 * so that the length check is reached. An accepted path must start with '/',
 * fit its buffer, be what an independent decoding gives, and hold no NUL, no
 * empty, "." or ".." segment and no trailing '/' (but the root). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../net/serve_parse.h"

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The reference: raw percent-decoded into a new buffer (*n bytes), or NULL
 * when an escape is malformed. */
static char *decode(const char *raw, size_t *n)
{
    size_t len = strlen(raw);
    char *d = malloc(len + 1);
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (raw[i] != '%') {
            d[o++] = raw[i];
            continue;
        }
        int hi = i + 1 < len ? hexval((unsigned char)raw[i + 1]) : -1;
        int lo = i + 2 < len ? hexval((unsigned char)raw[i + 2]) : -1;
        if (hi < 0 || lo < 0) {
            free(d);
            return NULL;
        }
        d[o++] = (char)(hi * 16 + lo);
        i += 2;
    }
    *n = o;
    return d;
}

static void check_path(const char *raw, size_t size)
{
    char *out = malloc(size);
    const char *why = NULL;
    int rc = serve_path_decode(raw, out, size, &why);
    size_t n;
    char *ref = decode(raw, &n);
    if (rc != 0) {
        if (!why || !*why)
            abort(); /* a refusal says why */
        /* A refusal of a well-formed path is for a NUL, its length or a segment. */
        if (ref && !memchr(ref, '\0', n) && n + 3 < size) {
            int bad = n > 0 && ref[0] == '/';
            for (size_t i = 0; i + 1 < n; i++)
                bad |= ref[i] == '/' && ref[i + 1] == '/';
            if (!bad && !strstr(why, "segment"))
                abort();
        }
        free(ref);
        free(out);
        return;
    }
    size_t len = strnlen(out, size);
    if (len >= size || out[0] != '/')
        abort();
    if (!ref || memchr(ref, '\0', n))
        abort(); /* a malformed escape or a NUL was accepted */
    /* out is "/" + ref, less one trailing '/'. */
    size_t want = n && ref[n - 1] == '/' ? n - 1 : n;
    if (len != want + 1 || memcmp(out + 1, ref, want) != 0)
        abort();
    if (strstr(out, "//") || strstr(out, "/./") || strstr(out, "/../"))
        abort();
    if (len > 1 && out[len - 1] == '/')
        abort();
    const char *last = strrchr(out, '/') + 1;
    if (len > 1 && (strcmp(last, ".") == 0 || strcmp(last, "..") == 0))
        abort();
    free(ref);
    free(out);
}

static void check_count(const char *v)
{
    long long max = 1000, n = serve_query_count(v, 7, max);
    if (n < -1 || n > max)
        abort();
    if (n >= 0) {
        char buf[32];
        snprintf(buf, sizeof(buf), "%lld", n);
        /* Only digits (and a sign, and leading zeros or spaces, as strtoll takes). */
        if (strspn(v, " \t\n\v\f\r+-0123456789") != strlen(v))
            abort();
    }
    if (serve_query_count(NULL, 7, max) != 7)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *raw = malloc(size + 1);
    memcpy(raw, data, size);
    raw[size] = '\0';
    /* The server's buffer; or, when the first byte's low bits are 0, a short one. */
    size_t out = size && (data[0] & 3) == 0 ? 2 + data[0] % 61 : 4200;
    check_path(raw, out);
    check_count(raw);
    size_t n = strlen(raw);
    int valid = serve_id_valid(raw, n);
    if (valid && (n != 32 || strspn(raw, "0123456789abcdef") != 32))
        abort();
    free(raw);
    return 0;
}
