/* JSON text at the host's edges: strict parsing of text from outside (numbers
 * included: each must read as what its text says), numbers compared as the
 * decimals they write, quoting of text that may not be UTF-8, validation of JSON
 * that is passed on, comparison of values by value, and values in messages. */
#include "json.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t scan_number(const char *s, size_t len, size_t i);
static int is_digit(char c);

/* ---- numbers as decimals -------------------------------------------------------- */

/* A JSON number's text read as a decimal: sign, significant digits and where the
 * point goes, without converting anything (the text may be of any length). */
typedef struct decimal {
    int sign;        /* -1, 1, or 0 when the number is zero (whatever its sign) */
    int64_t exp;     /* the value is 0.D x 10^exp, D the significant digits */
    const char *d;   /* the first significant digit */
    size_t n;        /* significant digits, trailing zeros left out, the '.' not counted */
    const char *dot; /* the '.' inside the digits, or NULL */
} decimal;

/* Exponents beyond this are kept at it: no double, and no number a policy can
 * hold, comes anywhere near. */
#define EXP_LIMIT ((int64_t)1 << 40)

/* Reads s[0..len), a valid JSON number, into *x. */
static void decimal_read(const char *s, size_t len, decimal *x)
{
    memset(x, 0, sizeof(*x));
    size_t i = 0;
    int neg = i < len && s[i] == '-';
    i += (size_t)neg;
    size_t int_at = i;
    while (i < len && is_digit(s[i]))
        i++;
    size_t int_end = i, frac_at = i, frac_end = i;
    if (i < len && s[i] == '.') {
        frac_at = ++i;
        while (i < len && is_digit(s[i]))
            i++;
        frac_end = i;
    }
    int64_t e = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = i < len && s[i] == '-';
        if (i < len && (s[i] == '-' || s[i] == '+'))
            i++;
        for (; i < len && is_digit(s[i]); i++)
            if (e < EXP_LIMIT)
                e = e * 10 + (s[i] - '0');
        e = eneg ? -e : e;
    }
    /* The first and the last significant digit. */
    size_t first = int_at;
    while (first < int_end && s[first] == '0')
        first++;
    if (first == int_end) {
        first = frac_at;
        while (first < frac_end && s[first] == '0')
            first++;
        if (first == frac_end)
            return; /* zero */
        x->exp = e - (int64_t)(first - frac_at);
    } else {
        x->exp = e + (int64_t)(int_end - first);
    }
    size_t last = frac_end > frac_at ? frac_end : int_end; /* one past it */
    while (s[last - 1] == '0' || s[last - 1] == '.')
        last--;
    x->sign = neg ? -1 : 1;
    x->d = s + first;
    x->dot = first < int_end && last > frac_at ? s + int_end : NULL;
    x->n = last - first - (x->dot != NULL);
}

/* Significant digit i of x. */
static char decimal_digit(const decimal *x, size_t i)
{
    const char *p = x->d + i;
    return x->dot && p >= x->dot ? p[1] : p[0];
}

static int decimal_cmp(const decimal *a, const decimal *b)
{
    if (a->sign != b->sign)
        return a->sign < b->sign ? -1 : 1;
    if (a->sign == 0)
        return 0;
    int mag = 0;
    if (a->exp != b->exp) {
        mag = a->exp < b->exp ? -1 : 1;
    } else {
        size_t n = a->n < b->n ? a->n : b->n;
        for (size_t i = 0; i < n && !mag; i++) {
            char x = decimal_digit(a, i), y = decimal_digit(b, i);
            mag = x < y ? -1 : x > y;
        }
        if (!mag && a->n != b->n)
            mag = a->n < b->n ? -1 : 1;
    }
    return a->sign > 0 ? mag : -mag;
}

int capsa__json_number_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    decimal x, y;
    decimal_read(a, alen, &x);
    decimal_read(b, blen, &y);
    return decimal_cmp(&x, &y);
}

/* Whether the real number s[0..len) reads as a double whose shortest form is the
 * same decimal number; *shortest (32 bytes) gets that form. */
static int real_is_exact(const char *s, size_t len, char *shortest)
{
    decimal x;
    decimal_read(s, len, &x);
    /* The same decimal as 0.D e exp, short enough to convert: a double's shortest
       form has at most 17 digits, so a longer D cannot be one (its first 40
       digits are enough to say what it would read as). */
    char canon[80];
    size_t k = 0, n = x.n < 40 ? x.n : 40;
    if (x.sign < 0)
        canon[k++] = '-';
    canon[k++] = '0';
    canon[k++] = '.';
    for (size_t i = 0; i < n; i++)
        canon[k++] = decimal_digit(&x, i);
    if (n == 0)
        canon[k++] = '0';
    snprintf(canon + k, sizeof(canon) - k, "e%lld", (long long)x.exp);
    double d;
    if (capsa__json_read_real(canon, &d) != 0) {
        snprintf(shortest, 32, "an unknown number");
        return 0;
    }
    if (capsa__json_real_text(d, shortest, 32) != 0) {
        snprintf(shortest, 32, "%s", d > 0 ? "infinity" : "-infinity");
        return 0;
    }
    return x.n <= 17 && capsa__json_number_cmp(s, len, shortest, strlen(shortest)) == 0;
}

/* Fails a parse: the message, its code and where, as jansson fills *err. */
static void parse_error(json_error_t *err, const char *text, size_t at, enum json_error_code code,
                        const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void parse_error(json_error_t *err, const char *text, size_t at, enum json_error_code code,
                        const char *fmt, ...)
{
    memset(err, 0, sizeof(*err));
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof(err->text) - 1, fmt, ap);
    va_end(ap);
    err->text[sizeof(err->text) - 1] = (char)code;
    err->position = (int)at;
    err->line = 1;
    size_t line_at = 0;
    for (size_t i = 0; i < at; i++)
        if (text[i] == '\n') {
            err->line++;
            line_at = i + 1;
        }
    err->column = (int)(at - line_at) + 1;
}

/* Checks every real number of text (valid JSON): each must read as a double that
 * stands for the same decimal number, so that the host compares what the text
 * says. Returns 1, or 0 with *err filled. */
static int reals_exact(const char *text, size_t len, json_error_t *err)
{
    for (size_t i = 0; i < len;) {
        char c = text[i];
        if (c == '"') {
            for (i++; i < len && text[i] != '"'; i++)
                i += text[i] == '\\';
            i++;
            continue;
        }
        if (c != '-' && !is_digit(c)) {
            i++;
            continue;
        }
        size_t end = scan_number(text, len, i);
        if (end == 0)
            return 1; /* not reached: jansson accepted the text */
        const char *num = text + i;
        size_t n = end - i;
        int real = 0;
        for (size_t k = 0; k < n; k++)
            real |= num[k] == '.' || num[k] == 'e' || num[k] == 'E';
        char shortest[32];
        if (real && !real_is_exact(num, n, shortest)) {
            parse_error(err, text, i, json_error_numeric_overflow,
                        "the number %.*s%s would read as %s", n > 40 ? 40 : (int)n, num,
                        n > 40 ? "..." : "", shortest);
            return 0;
        }
        i = end;
    }
    return 1;
}

json_t *capsa__json_load_strict(const char *text, size_t len, size_t flags, json_error_t *err)
{
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        parse_error(err, text, (size_t)(nul - text), json_error_invalid_syntax,
                    "a NUL byte is not allowed in JSON text");
        return NULL;
    }
    json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES | flags, err);
    if (v && !reals_exact(text, len, err)) {
        json_decref(v);
        return NULL;
    }
    return v;
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
                 : ch >= 0x80 ? capsa__utf8_len(u + i, len - i) : 0;
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
        size_t n = capsa__utf8_len(u + i, len - i);
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

/* The index after the digits at s[i..len), or 0 when there is none. */
static size_t scan_digits(const char *s, size_t len, size_t i)
{
    if (i >= len || !is_digit(s[i]))
        return 0;
    while (i < len && is_digit(s[i]))
        i++;
    return i;
}

/* Scans a number at s[i]; returns the index after it or 0. */
static size_t scan_number(const char *s, size_t len, size_t i)
{
    if (i < len && s[i] == '-')
        i++;
    if (i < len && s[i] == '0')
        i++;
    else if (!(i = scan_digits(s, len, i)))
        return 0;
    if (i < len && s[i] == '.' && !(i = scan_digits(s, len, i + 1)))
        return 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        if (!(i = scan_digits(s, len, i)))
            return 0;
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

/* Collects the first bytes of a JSON dump and stops it once they are enough. The
 * first byte left out is kept: it says whether the cut fell inside a character. */
typedef struct dump_head {
    char *buf;
    size_t len, room;
    int over;
    unsigned char next;
} dump_head;

static int dump_head_cb(const char *s, size_t n, void *ud)
{
    dump_head *h = ud;
    size_t k = n < h->room - h->len ? n : h->room - h->len;
    memcpy(h->buf + h->len, s, k);
    h->len += k;
    if (k < n) {
        h->over = 1;
        h->next = (unsigned char)s[k];
        return -1;
    }
    return 0;
}

long capsa__json_head(const json_t *v, char *buf, size_t size, int *cut)
{
    *cut = 0;
    if (size == 0)
        return 0;
    dump_head h = { buf, 0, size - 1, 0, 0 };
    if (capsa__json_dump_callback(v, dump_head_cb, &h, JSON_COMPACT | JSON_ENCODE_ANY) != 0 && !h.over) {
        buf[0] = '\0';
        return -1;
    }
    if (h.over) {
        /* Back to the start of the character the cut fell in. */
        for (unsigned char next = h.next; h.len > 0 && (next & 0xC0) == 0x80;)
            next = (unsigned char)buf[--h.len];
        *cut = 1;
    }
    buf[h.len] = '\0';
    return (long)h.len;
}

/* Compares an integer with a real of magnitude below 2^53 exactly: the real's
 * integer part converts without rounding, and its fraction says the rest. */
static int cmp_int_real(json_int_t i, double d)
{
    json_int_t t = (json_int_t)d;
    if (i != t)
        return i < t ? -1 : 1;
    double frac = d - (double)t;
    return frac > 0 ? -1 : frac < 0 ? 1 : 0;
}

/* A number's text: an integer's digits, or a real's shortest form (for numbers of
 * a strict parse, the decimal their text wrote). Returns its length, 0 if none. */
static size_t number_text(const json_t *v, char *buf, size_t size)
{
    if (json_is_integer(v)) {
        int n = snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return n > 0 && (size_t)n < size ? (size_t)n : 0;
    }
    return capsa__json_real_text(json_real_value(v), buf, size) == 0 ? strlen(buf) : 0;
}

int capsa__json_num_cmp(const json_t *x, const json_t *y)
{
    if (json_is_integer(x) && json_is_integer(y)) {
        json_int_t a = json_integer_value(x), b = json_integer_value(y);
        return a < b ? -1 : a > b;
    }
    if (json_is_real(x) && json_is_real(y)) {
        /* Distinct doubles have distinct shortest forms, in the same order. */
        double a = json_real_value(x), b = json_real_value(y);
        return a < b ? -1 : a > b ? 1 : a == b ? 0 : 2;
    }
    /* An integer and a real. Below 2^53 no integer but the real's own value is as
       near it as its shortest form, so the double compares as that decimal does.
       Beyond, the double may be another integer than the decimal it was read from
       (1234567890123456800.0 reads as ...768): the texts are compared. */
    double d = json_is_real(x) ? json_real_value(x) : json_real_value(y);
    if (d > -9007199254740992.0 && d < 9007199254740992.0) {
        if (json_is_integer(x))
            return cmp_int_real(json_integer_value(x), d);
        return -cmp_int_real(json_integer_value(y), d);
    }
    char a[40], b[40];
    size_t an = number_text(x, a, sizeof a), bn = number_text(y, b, sizeof b);
    if (!an || !bn)
        return 2;
    return capsa__json_number_cmp(a, an, b, bn);
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

const char *capsa__json_kind(const json_t *v, int article)
{
    static const char *const names[][2] = {
        { "object", "an object" }, { "array", "an array" }, { "string", "a string" },
        { "number", "a number" }, { "boolean", "a boolean" }, { "null", "null" },
    };
    int k;
    switch (json_typeof(v)) {
    case JSON_OBJECT: k = 0; break;
    case JSON_ARRAY: k = 1; break;
    case JSON_STRING: k = 2; break;
    case JSON_INTEGER: case JSON_REAL: k = 3; break;
    case JSON_TRUE: case JSON_FALSE: k = 4; break;
    default: k = 5; break;
    }
    return names[k][article != 0];
}
