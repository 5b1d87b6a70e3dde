/* JSON text of jansson values with numbers as JavaScript writes them: a real's
 * shortest form, and the writer that uses it in place of jansson's dump (whose
 * layout, flags and string escapes it follows). Only jansson and the C library. */
#define _GNU_SOURCE /* newlocale, uselocale */
#include "json_write.h"

#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a real's shortest text ------------------------------------------------------ */

/* The "C" locale, made once: number text must not follow the host program's
 * setlocale (a decimal comma). NULL if it could not be made. */
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static locale_t c_locale;

static void make_c_locale(void)
{
    c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

int capsa__json_real_text(double d, char *buf, size_t size)
{
    pthread_once(&c_locale_once, make_c_locale);
    if (!c_locale || d != d || d - d != 0 || size < 32)
        return -1;
    /* The fewest digits that read back as d: "[-]D.DDDe[+-]X". */
    char e[40];
    locale_t old = uselocale(c_locale);
    for (int prec = 0; prec < 17; prec++) {
        snprintf(e, sizeof e, "%.*e", prec, d);
        if (strtod(e, NULL) == d)
            break;
    }
    uselocale(old);
    /* Then written as JavaScript writes a number: digits D, the point after the
       first n of them. */
    const char *p = e;
    char digits[20];
    size_t k = 0, at = 0;
    if (*p == '-')
        buf[at++] = *p++;
    for (; *p != 'e'; p++)
        if (*p != '.')
            digits[k++] = *p;
    long n = strtol(p + 1, NULL, 10) + 1;
    if ((long)k <= n && n <= 21) {
        memcpy(buf + at, digits, k);
        memset(buf + at + k, '0', (size_t)n - k);
        at += (size_t)n;
    } else if (0 < n && n <= 21) {
        memcpy(buf + at, digits, (size_t)n);
        buf[at + (size_t)n] = '.';
        memcpy(buf + at + (size_t)n + 1, digits + n, k - (size_t)n);
        at += k + 1;
    } else if (-6 < n && n <= 0) {
        buf[at++] = '0';
        buf[at++] = '.';
        memset(buf + at, '0', (size_t)-n);
        memcpy(buf + at + (size_t)-n, digits, k);
        at += (size_t)-n + k;
    } else {
        buf[at++] = digits[0];
        if (k > 1) {
            buf[at++] = '.';
            memcpy(buf + at, digits + 1, k - 1);
            at += k - 1;
        }
        at += (size_t)snprintf(buf + at, size - at, "e%c%ld", n > 0 ? '+' : '-', labs(n - 1));
    }
    buf[at] = '\0';
    return 0;
}

int capsa__json_read_real(const char *s, double *d)
{
    pthread_once(&c_locale_once, make_c_locale);
    if (!c_locale)
        return -1;
    locale_t old = uselocale(c_locale);
    *d = strtod(s, NULL);
    uselocale(old);
    return 0;
}

/* ---- the writer ---------------------------------------------------------------- */

/* As deep as jansson parses: the recursion below is bounded. */
#define WRITE_MAX_DEPTH 2048

typedef struct writer {
    json_dump_callback_t cb;
    void *ud;
    size_t flags;
} writer;

static int put(const writer *w, const char *s, size_t n)
{
    return w->cb(s, n, w->ud);
}

/* A line break and depth levels of indent with JSON_INDENT(n); otherwise a space
 * where one goes (space set) unless JSON_COMPACT. */
static int indent(const writer *w, int depth, int space)
{
    static const char blanks[] = "                                ";
    size_t n = JSON_MAX_INDENT & w->flags; /* FLAGS_TO_INDENT */
    if (n > 0) {
        if (put(w, "\n", 1) != 0)
            return -1;
        for (size_t left = (size_t)depth * n; left > 0;) {
            size_t k = left < sizeof blanks - 1 ? left : sizeof blanks - 1;
            if (put(w, blanks, k) != 0)
                return -1;
            left -= k;
        }
        return 0;
    }
    return space && !(w->flags & JSON_COMPACT) ? put(w, " ", 1) : 0;
}

/* s[0..len) as a JSON string: quote, backslash and control characters escaped as
 * jansson escapes them, everything else as it is (jansson's strings are UTF-8). */
static int string(const writer *w, const char *s, size_t len)
{
    if (put(w, "\"", 1) != 0)
        return -1;
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x20 && ch != '"' && ch != '\\') {
            run++;
            continue;
        }
        if (run && put(w, s + i - run, run) != 0)
            return -1;
        run = 0;
        char esc[8] = "\\";
        switch (ch) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default: snprintf(esc, sizeof esc, "\\u%04X", ch);
        }
        if (put(w, esc, strlen(esc)) != 0)
            return -1;
    }
    if (run && put(w, s + len - run, run) != 0)
        return -1;
    return put(w, "\"", 1);
}

static int value(const writer *w, const json_t *v, int depth)
{
    char num[64];
    switch (json_typeof(v)) {
    case JSON_NULL: return put(w, "null", 4);
    case JSON_TRUE: return put(w, "true", 4);
    case JSON_FALSE: return put(w, "false", 5);
    case JSON_INTEGER: {
        int n = snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return put(w, num, (size_t)n);
    }
    case JSON_REAL:
        if (capsa__json_real_text(json_real_value(v), num, sizeof num - 2) != 0)
            return -1;
        if (!strpbrk(num, ".e"))
            strcat(num, ".0");
        return put(w, num, strlen(num));
    case JSON_STRING: return string(w, json_string_value(v), json_string_length(v));
    case JSON_ARRAY: {
        size_t n = json_array_size(v);
        if (depth >= WRITE_MAX_DEPTH)
            return -1;
        if (n == 0)
            return put(w, "[]", 2);
        if (put(w, "[", 1) != 0 || indent(w, depth + 1, 0) != 0)
            return -1;
        for (size_t i = 0; i < n; i++) {
            if (value(w, json_array_get(v, i), depth + 1) != 0)
                return -1;
            if (i + 1 < n ? put(w, ",", 1) != 0 || indent(w, depth + 1, 1) != 0
                          : indent(w, depth, 0) != 0)
                return -1;
        }
        return put(w, "]", 1);
    }
    case JSON_OBJECT: {
        if (depth >= WRITE_MAX_DEPTH)
            return -1;
        if (json_object_size(v) == 0)
            return put(w, "{}", 2);
        if (put(w, "{", 1) != 0 || indent(w, depth + 1, 0) != 0)
            return -1;
        const char *sep = w->flags & JSON_COMPACT ? ":" : ": ";
        void *it = json_object_iter((json_t *)v);
        while (it) {
            const char *key = json_object_iter_key(it);
            void *next = json_object_iter_next((json_t *)v, it);
            if (string(w, key, json_object_iter_key_len(it)) != 0 || put(w, sep, strlen(sep)) != 0 ||
                value(w, json_object_iter_value(it), depth + 1) != 0)
                return -1;
            if (next ? put(w, ",", 1) != 0 || indent(w, depth + 1, 1) != 0 : indent(w, depth, 0) != 0)
                return -1;
            it = next;
        }
        return put(w, "}", 1);
    }
    }
    return -1;
}

int capsa__json_dump_callback(const json_t *v, json_dump_callback_t cb, void *ud, size_t flags)
{
    if (!v || (!(flags & JSON_ENCODE_ANY) && !json_is_object(v) && !json_is_array(v)))
        return -1;
    writer w = { cb, ud, flags };
    return value(&w, v, 0);
}

/* The growing text of capsa__json_dumps. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

static int text_put(const char *s, size_t n, void *ud)
{
    text *t = ud;
    if (n >= t->cap - t->len) {
        size_t cap = t->cap ? t->cap : 64;
        while (n >= cap - t->len)
            if ((cap *= 2) > ((size_t)-1) / 4)
                return -1;
        char *p = realloc(t->s, cap);
        if (!p)
            return -1;
        t->s = p;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    return 0;
}

char *capsa__json_dumps(const json_t *v, size_t flags)
{
    text t = { NULL, 0, 0 };
    if (capsa__json_dump_callback(v, text_put, &t, flags) != 0 || text_put("", 1, &t) != 0) {
        free(t.s);
        return NULL;
    }
    return t.s;
}
