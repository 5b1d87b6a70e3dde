/* Reading a run's result: accessors, statistics, and the whole result as one JSON
 * object {"stdout","stderr","value","error","stats"} (built with jansson). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sandbox.h"

static const char *part(const capsa_result *r, int i)
{
    return r && r->has[i] ? r->part[i].data : NULL;
}

CAPSA_API int capsa_result_status(const capsa_result *r)
{
    return r ? r->status : CAPSA_EINVAL;
}

CAPSA_API const char *capsa_result_stdout(const capsa_result *r, size_t *len)
{
    if (len)
        *len = r ? r->out.len : 0;
    return r && r->out.data ? r->out.data : "";
}

CAPSA_API const char *capsa_result_stderr(const capsa_result *r, size_t *len)
{
    if (len)
        *len = r ? r->err.len : 0;
    return r && r->err.data ? r->err.data : "";
}

CAPSA_API const char *capsa_result_value(const capsa_result *r)
{
    return part(r, PART_VALUE);
}

CAPSA_API const char *capsa_result_error_name(const capsa_result *r)
{
    return part(r, PART_ERROR_NAME);
}

CAPSA_API const char *capsa_result_error_message(const capsa_result *r)
{
    return part(r, PART_ERROR_MESSAGE);
}

CAPSA_API const char *capsa_result_error_stack(const capsa_result *r)
{
    return part(r, PART_ERROR_STACK);
}

CAPSA_API void capsa_result_stats(const capsa_result *r, capsa_stats *stats)
{
    if (!r || !stats || stats->struct_size < sizeof(size_t))
        return;
    size_t n = stats->struct_size < sizeof(r->stats) ? stats->struct_size : sizeof(r->stats);
    size_t want = stats->struct_size;
    memcpy(stats, &r->stats, n);
    stats->struct_size = want;
}

/* Length of the valid UTF-8 sequence at s[0..len), or 0 when it is not one. */
static size_t utf8_sequence(const unsigned char *s, size_t len)
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

/* Appends s[0..len) as a JSON string. Guest output need not be valid UTF-8:
 * invalid bytes become U+FFFD, so the document is always valid JSON. */
static int append_json_string(capsa__buf *b, const char *s, size_t len)
{
    const capsa_allocator *a = &capsa__default_allocator;
    capsa__buf clean = { 0 };
    const unsigned char *u = (const unsigned char *)s;
    int rc = capsa__buf_append(&clean, a, "", 0);
    for (size_t i = 0; i < len && rc == 0;) {
        size_t n = utf8_sequence(u + i, len - i);
        rc = n ? capsa__buf_append(&clean, a, s + i, n)
               : capsa__buf_append(&clean, a, "\xEF\xBF\xBD", 3);
        i += n ? n : 1;
    }
    json_t *j = rc == 0 ? json_stringn(clean.data, clean.len) : NULL;
    char *text = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    rc = text ? capsa__buf_append(b, a, text, strlen(text)) : -1;
    free(text);
    json_decref(j);
    capsa__buf_free(&clean, a);
    return rc;
}

static int append_str(capsa__buf *b, const char *s)
{
    return capsa__buf_append(b, &capsa__default_allocator, s, strlen(s));
}

static int append_error(capsa__buf *b, const capsa_result *r)
{
    static const struct { int part; const char *key; } keys[] = {
        { PART_ERROR_NAME, "{\"name\":" },
        { PART_ERROR_MESSAGE, ",\"message\":" },
        { PART_ERROR_STACK, ",\"stack\":" },
    };
    if (!r->has[PART_ERROR_NAME] && !r->has[PART_ERROR_MESSAGE])
        return append_str(b, "null");
    int rc = 0;
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]) && rc == 0; i++) {
        const capsa__buf *p = &r->part[keys[i].part];
        rc = append_str(b, keys[i].key);
        if (rc == 0)
            rc = r->has[keys[i].part] ? append_json_string(b, p->data, p->len)
                                      : append_str(b, "\"\"");
    }
    return rc ? rc : append_str(b, "}");
}

CAPSA_API char *capsa_result_json(const capsa_result *r)
{
    if (!r)
        return NULL;
    capsa__buf b = { 0 };
    char stats[320];
    snprintf(stats, sizeof(stats),
             ",\"stats\":{\"wall_ms\":%.3f,\"memory_bytes\":%llu,\"stdout_bytes\":%llu,"
             "\"stderr_bytes\":%llu,\"output_dropped\":%llu,\"fuel_used\":%llu}}",
             r->stats.wall_ms, (unsigned long long)r->stats.memory_bytes,
             (unsigned long long)r->stats.stdout_bytes, (unsigned long long)r->stats.stderr_bytes,
             (unsigned long long)r->stats.output_dropped, (unsigned long long)r->stats.fuel_used);
    /* The value is embedded as the guest's JSON.stringify wrote it: valid JSON,
     * and no precision is lost to a parse and a re-print. */
    int rc = append_str(&b, "{\"stdout\":");
    rc = rc ? rc : append_json_string(&b, r->out.data ? r->out.data : "", r->out.len);
    rc = rc ? rc : append_str(&b, ",\"stderr\":");
    rc = rc ? rc : append_json_string(&b, r->err.data ? r->err.data : "", r->err.len);
    rc = rc ? rc : append_str(&b, ",\"value\":");
    rc = rc ? rc : append_str(&b, r->has[PART_VALUE] ? r->part[PART_VALUE].data : "null");
    rc = rc ? rc : append_str(&b, ",\"error\":");
    rc = rc ? rc : append_error(&b, r);
    rc = rc ? rc : append_str(&b, stats);
    if (rc) {
        capsa__buf_free(&b, &capsa__default_allocator);
        return NULL;
    }
    return b.data; /* allocated by the C library: capsa_free releases it */
}

CAPSA_API void capsa_free(void *ptr)
{
    free(ptr);
}
