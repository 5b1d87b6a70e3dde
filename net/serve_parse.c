/* The parsers of `capsa serve` (see serve_parse.h): what a client sends (the
 * files/ path, query counts, the JSON bodies) and what the store hands back (the
 * session record), each checked here and nowhere else. */
#define _GNU_SOURCE
#include "serve_parse.h"
#include "../src/json_write.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int serve_record_parse(const char *blob, size_t len, serve_record *r)
{
    size_t m = strlen(SERVE_RECORD_MAGIC);
    memset(r, 0, sizeof(*r));
    if (len < m || memcmp(blob, SERVE_RECORD_MAGIC, m) != 0)
        return -1;
    const char *meta = blob + m;
    const char *nl = memchr(meta, '\n', len - m);
    if (!nl)
        return -1;
    r->meta = json_loadb(meta, (size_t)(nl - meta), JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(r->meta)) {
        json_decref(r->meta);
        r->meta = NULL;
        return -1;
    }
    r->ckpt = nl + 1;
    r->ckpt_len = len - (size_t)(r->ckpt - blob);
    return 0;
}

char *serve_record_make(json_t *meta, const char *ckpt, size_t len, size_t *out_len)
{
    char *m = capsa__json_dumps(meta, JSON_COMPACT);
    if (!m)
        return NULL;
    size_t ml = strlen(SERVE_RECORD_MAGIC), n = strlen(m);
    char *b = malloc(ml + n + 1 + len);
    if (b) {
        memcpy(b, SERVE_RECORD_MAGIC, ml);
        memcpy(b + ml, m, n);
        b[ml + n] = '\n';
        if (len)
            memcpy(b + ml + n + 1, ckpt, len);
        *out_len = ml + n + 1 + len;
    }
    free(m);
    return b;
}

int serve_id_valid(const char *id, size_t n)
{
    if (n != 32)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
            return 0;
    }
    return 1;
}

int serve_path_decode(const char *raw, char *out, size_t size, const char **why)
{
    size_t o = 0;
    out[o++] = '/';
    for (const char *p = raw; *p; p++) {
        char ch = *p;
        if (ch == '%') {
            int hi, lo;
            if (sscanf(p + 1, "%1x%1x", (unsigned *)&hi, (unsigned *)&lo) != 2 ||
                !strchr("0123456789abcdefABCDEF", p[1]) || !strchr("0123456789abcdefABCDEF", p[2])) {
                *why = "a malformed percent escape";
                return -1;
            }
            ch = (char)(hi * 16 + lo);
            p += 2;
            if (ch == '\0') {
                *why = "a NUL byte";
                return -1;
            }
        }
        if (o + 2 >= size) {
            *why = "a path over 4096 bytes";
            return -1;
        }
        out[o++] = ch;
    }
    out[o] = '\0';
    if (o > 1 && out[o - 1] == '/') /* files/workspace/ is the directory */
        out[--o] = '\0';
    for (char *seg = out + 1; o > 1;) {
        char *end = strchr(seg, '/');
        size_t n = end ? (size_t)(end - seg) : strlen(seg);
        if (n == 0 || (n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.')) {
            *why = n ? "a '.' or '..' segment" : "an empty segment (//)";
            return -1;
        }
        if (!end)
            break;
        seg = end + 1;
    }
    return 0;
}

long long serve_query_count(const char *v, long long def, long long max)
{
    if (!v)
        return def;
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (!*v || *end || errno || n < 0 || n > max)
        return -1;
    return n;
}

json_t *serve_body_object(const char *body, size_t len, char *msg, size_t size)
{
    if (len == 0)
        return json_object();
    json_error_t e;
    json_t *o = json_loadb(body, len, JSON_REJECT_DUPLICATES, &e);
    if (!o) {
        snprintf(msg, size, "the body is not JSON: line %d column %d: %s", e.line, e.column,
                 e.text);
        return NULL;
    }
    if (!json_is_object(o)) {
        json_decref(o);
        snprintf(msg, size, "the body must be a JSON object");
        return NULL;
    }
    return o;
}

int serve_only_fields(json_t *body, const char *const *names, const char *list, char *msg,
                      size_t size)
{
    const char *k;
    json_t *v;
    json_object_foreach(body, k, v) {
        size_t i = 0;
        while (names[i] && strcmp(names[i], k) != 0)
            i++;
        if (!names[i]) {
            snprintf(msg, size, "unknown field \"%s\" (%s)", k, list);
            return 0;
        }
    }
    return 1;
}

int serve_limits(const capsa_options *server, json_t *lim, capsa_options *o, char *msg,
                 size_t size)
{
    *o = *server;
    if (!lim)
        return 0;
    if (!json_is_object(lim)) {
        snprintf(msg, size, "\"limits\" must be an object");
        return 400;
    }
    const char *k;
    json_t *v;
    json_object_foreach(lim, k, v) {
        if (!json_is_number(v) || json_number_value(v) < 0 || json_number_value(v) > 1e15) {
            snprintf(msg, size, "limits.%s must be a number from 0", k);
            return 422;
        }
        double x = json_number_value(v);
        uint64_t *field, max, want;
        const char *unit = "bytes";
        if (strcmp(k, "memory") == 0)
            field = &o->memory_limit;
        else if (strcmp(k, "disk") == 0)
            field = &o->fs_max_bytes;
        else if (strcmp(k, "max_output") == 0)
            field = &o->max_output;
        else if (strcmp(k, "fuel") == 0)
            field = &o->fuel, unit = "units";
        else if (strcmp(k, "timeout") == 0)
            field = &o->timeout_ms, unit = "seconds", x *= 1000;
        else {
            snprintf(msg, size, "unknown limit \"%s\" (memory, timeout, disk, max_output, fuel)",
                     k);
            return 422;
        }
        max = *field;
        want = (uint64_t)x;
        /* Above 0 but under one unit (a millisecond, a unit of fuel, a byte):
           one unit, not 0, which is "none" for the time and the fuel. */
        if (want == 0 && x > 0)
            want = 1;
        /* 0 is "none" for the time and the fuel: more than any maximum. */
        int unlimited = (field == &o->fuel || field == &o->timeout_ms) && want == 0;
        if ((max && (unlimited || want > max)) || (!unlimited && want == 0)) {
            if (want == 0 && !unlimited)
                snprintf(msg, size, "limits.%s must be above 0", k);
            else
                snprintf(msg, size, "limits.%s is over the server's maximum (%llu %s)", k,
                         (unsigned long long)(field == &o->timeout_ms ? max / 1000 : max), unit);
            return 422;
        }
        *field = want;
    }
    if (o->fs_max_file > o->fs_max_bytes)
        o->fs_max_file = o->fs_max_bytes;
    return 0;
}

int serve_run_check(json_t *body, int *shell, char *msg, size_t size)
{
    json_t *code = json_object_get(body, "code"), *lang = json_object_get(body, "language");
    const char *language = lang ? json_string_value(lang) : "javascript";
    static const char *const fields[] = { "code", "language", NULL };
    if (!serve_only_fields(body, fields, "code, language", msg, size))
        return -1;
    if (!json_is_string(code) || !language ||
        (strcmp(language, "javascript") != 0 && strcmp(language, "shell") != 0)) {
        snprintf(msg, size, "the body must be {\"code\": STRING, \"language\": \"javascript\" "
                            "(the default) or \"shell\"}");
        return -1;
    }
    *shell = strcmp(language, "shell") == 0;
    if (*shell && strlen(json_string_value(code)) != json_string_length(code)) {
        snprintf(msg, size, "a shell command line cannot hold a NUL");
        return -1;
    }
    return 0;
}
