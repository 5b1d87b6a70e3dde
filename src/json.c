/* JSON text at the host's edges: strict parsing of text from outside, quoting of
 * text that may not be UTF-8, validation of JSON that is passed on, and comparison
 * of values by value. */
#include "json.h"

#include <stdio.h>
#include <string.h>

json_t *capsa__json_load_strict(const char *text, size_t len, size_t flags, json_error_t *err)
{
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        memset(err, 0, sizeof(*err));
        snprintf(err->text, sizeof(err->text) - 1, "a NUL byte is not allowed in JSON text");
        err->text[sizeof(err->text) - 1] = (char)json_error_invalid_syntax;
        err->position = (int)(nul - text);
        err->line = 1;
        err->column = (int)(nul - text) + 1;
        return NULL;
    }
    return json_loadb(text, len, JSON_REJECT_DUPLICATES | flags, err);
}

size_t capsa__json_utf8_len(const unsigned char *s, size_t len)
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

int capsa__json_quote(capsa__buf *b, const capsa_allocator *a, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    if (capsa__buf_append(b, a, "\"", 1) != 0)
        return -1;
    size_t run = 0; /* bytes copied as they are, pending */
    for (size_t i = 0; i < len;) {
        unsigned char ch = u[i];
        size_t n = ch >= 0x20 && ch < 0x80 && ch != '"' && ch != '\\' ? 1
                 : ch >= 0x80 ? capsa__json_utf8_len(u + i, len - i) : 0;
        if (n) {
            i += n;
            run += n;
            continue;
        }
        if (run && capsa__buf_append(b, a, s + i - run, run) != 0)
            return -1;
        run = 0;
        char esc[8];
        size_t elen = 2;
        esc[0] = '\\';
        if (ch == '"' || ch == '\\')
            esc[1] = (char)ch;
        else if (ch == '\n')
            esc[1] = 'n';
        else if (ch == '\r')
            esc[1] = 'r';
        else if (ch == '\t')
            esc[1] = 't';
        else if (ch < 0x20) {
            memcpy(esc, "\\u00", 4);
            esc[4] = hex[ch >> 4];
            esc[5] = hex[ch & 15];
            elen = 6;
        } else {
            memcpy(esc, "\xEF\xBF\xBD", 3); /* invalid UTF-8: U+FFFD */
            elen = 3;
        }
        if (capsa__buf_append(b, a, esc, elen) != 0)
            return -1;
        i++;
    }
    if (run && capsa__buf_append(b, a, s + len - run, run) != 0)
        return -1;
    return capsa__buf_append(b, a, "\"", 1);
}

#define JSON_MAX_DEPTH 512

static size_t skip_ws(const char *s, size_t len, size_t i)
{
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

/* Scans a string starting at the quote s[i]; returns the index after it or 0. */
static size_t scan_string(const char *s, size_t len, size_t i)
{
    const unsigned char *u = (const unsigned char *)s;
    for (i++; i < len;) {
        unsigned char c = u[i];
        if (c == '"')
            return i + 1;
        if (c < 0x20)
            return 0;
        if (c == '\\') {
            if (i + 1 >= len)
                return 0;
            char e = s[i + 1];
            if (e == 'u') {
                if (i + 5 >= len)
                    return 0;
                for (int k = 2; k < 6; k++) {
                    char h = s[i + k];
                    if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F')))
                        return 0;
                }
                i += 6;
            } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
                       e == 'r' || e == 't') {
                i += 2;
            } else {
                return 0;
            }
            continue;
        }
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t n = capsa__json_utf8_len(u + i, len - i);
        if (!n)
            return 0;
        i += n;
    }
    return 0;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Scans a number at s[i]; returns the index after it or 0. */
static size_t scan_number(const char *s, size_t len, size_t i)
{
    if (i < len && s[i] == '-')
        i++;
    if (i >= len)
        return 0;
    if (s[i] == '0') {
        i++;
    } else if (is_digit(s[i])) {
        while (i < len && is_digit(s[i]))
            i++;
    } else {
        return 0;
    }
    if (i < len && s[i] == '.') {
        i++;
        if (i >= len || !is_digit(s[i]))
            return 0;
        while (i < len && is_digit(s[i]))
            i++;
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= len || !is_digit(s[i]))
            return 0;
        while (i < len && is_digit(s[i]))
            i++;
    }
    return i;
}

/* An object member's key and colon at s[i]: the index of its value (whitespace
 * skipped), or 0 when there is none. */
static size_t scan_key(const char *s, size_t len, size_t i)
{
    if (i >= len || s[i] != '"' || !(i = scan_string(s, len, i)))
        return 0;
    i = skip_ws(s, len, i);
    if (i >= len || s[i] != ':')
        return 0;
    return skip_ws(s, len, i + 1);
}

int capsa__json_valid(const char *s, size_t len)
{
    char stack[JSON_MAX_DEPTH]; /* '{' or '[' of each open container */
    int depth = 0;
    size_t i = skip_ws(s, len, 0);
    for (;;) {
        /* A value at s[i]. */
        if (i >= len)
            return 0;
        char c = s[i];
        if (c == '{' || c == '[') {
            if (depth == JSON_MAX_DEPTH)
                return 0;
            stack[depth++] = c;
            i = skip_ws(s, len, i + 1);
            if (i < len && s[i] == (c == '{' ? '}' : ']')) {
                depth--;
                i++;
                goto after_value;
            }
            if (c == '{' && !(i = scan_key(s, len, i)))
                return 0;
            continue;
        }
        if (c == '"') {
            if (!(i = scan_string(s, len, i)))
                return 0;
        } else if (c == '-' || is_digit(c)) {
            if (!(i = scan_number(s, len, i)))
                return 0;
        } else if (len - i >= 4 && memcmp(s + i, "true", 4) == 0) {
            i += 4;
        } else if (len - i >= 5 && memcmp(s + i, "false", 5) == 0) {
            i += 5;
        } else if (len - i >= 4 && memcmp(s + i, "null", 4) == 0) {
            i += 4;
        } else {
            return 0;
        }
    after_value:
        i = skip_ws(s, len, i);
        for (;;) {
            if (depth == 0)
                return i == len;
            if (i >= len)
                return 0;
            char open = stack[depth - 1];
            if (s[i] == ',') {
                i = skip_ws(s, len, i + 1);
                if (open == '{' && !(i = scan_key(s, len, i)))
                    return 0;
                break; /* the next value */
            }
            if (s[i] != (open == '{' ? '}' : ']'))
                return 0;
            depth--;
            i = skip_ws(s, len, i + 1);
        }
    }
}

/* Collects the first bytes of a JSON dump and stops it once they are enough. */
typedef struct dump_head {
    char *buf;
    size_t len, room;
    int over;
} dump_head;

static int dump_head_cb(const char *s, size_t n, void *ud)
{
    dump_head *h = ud;
    size_t k = n < h->room - h->len ? n : h->room - h->len;
    memcpy(h->buf + h->len, s, k);
    h->len += k;
    if (k < n) {
        h->over = 1;
        return -1;
    }
    return 0;
}

long capsa__json_head(const json_t *v, char *buf, size_t size, int *cut)
{
    *cut = 0;
    if (size == 0)
        return 0;
    dump_head h = { buf, 0, size - 1, 0 };
    if (json_dump_callback(v, dump_head_cb, &h, JSON_COMPACT | JSON_ENCODE_ANY) != 0 && !h.over) {
        buf[0] = '\0';
        return -1;
    }
    if (h.over) {
        while (h.len > 0 && ((unsigned char)buf[h.len] & 0xC0) == 0x80)
            h.len--;
        *cut = 1;
    }
    buf[h.len] = '\0';
    return (long)h.len;
}

/* Compares an integer with a real exactly. Converting i to double would round
 * beyond 2^53, so the real is split into its integer part (exact, as it is in
 * range) and its fraction instead. */
static int cmp_int_real(json_int_t i, double d)
{
    if (d != d)
        return 2;
    if (d >= 9223372036854775808.0)
        return -1;
    if (d < -9223372036854775808.0)
        return 1;
    json_int_t t = (json_int_t)d;
    if (i != t)
        return i < t ? -1 : 1;
    double frac = d - (double)t;
    return frac > 0 ? -1 : frac < 0 ? 1 : 0;
}

int capsa__json_num_cmp(const json_t *x, const json_t *y)
{
    if (json_is_integer(x) && json_is_integer(y)) {
        json_int_t a = json_integer_value(x), b = json_integer_value(y);
        return a < b ? -1 : a > b;
    }
    if (json_is_integer(x))
        return cmp_int_real(json_integer_value(x), json_real_value(y));
    if (json_is_integer(y)) {
        int r = cmp_int_real(json_integer_value(y), json_real_value(x));
        return r == 2 ? 2 : -r;
    }
    double a = json_real_value(x), b = json_real_value(y);
    return a < b ? -1 : a > b ? 1 : a == b ? 0 : 2;
}

int capsa__json_equal(const json_t *x, const json_t *y, unsigned max_depth)
{
    if (json_is_number(x) || json_is_number(y))
        return json_is_number(x) && json_is_number(y) && capsa__json_num_cmp(x, y) == 0;
    if (json_typeof(x) != json_typeof(y))
        return 0;
    switch (json_typeof(x)) {
    case JSON_STRING:
        return json_string_length(x) == json_string_length(y) &&
               memcmp(json_string_value(x), json_string_value(y), json_string_length(x)) == 0;
    case JSON_ARRAY:
        if (json_array_size(x) != json_array_size(y) || (json_array_size(x) && max_depth == 0))
            return 0;
        for (size_t i = 0; i < json_array_size(x); i++)
            if (!capsa__json_equal(json_array_get(x, i), json_array_get(y, i), max_depth - 1))
                return 0;
        return 1;
    case JSON_OBJECT:
        if (json_object_size(x) != json_object_size(y) || (json_object_size(x) && max_depth == 0))
            return 0;
        for (void *it = json_object_iter((json_t *)x); it; it = json_object_iter_next((json_t *)x, it)) {
            const json_t *w = json_object_getn(y, json_object_iter_key(it), json_object_iter_key_len(it));
            if (!w || !capsa__json_equal(json_object_iter_value(it), w, max_depth - 1))
                return 0;
        }
        return 1;
    default:
        return 1; /* null, true, false: the type says it all */
    }
}
