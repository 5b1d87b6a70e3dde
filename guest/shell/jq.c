/* jq: the JSON processor, for the jq 1.6 language subset that scripts use: JSON
 * values with their parser and printer, the filter language's parser, and an
 * evaluator that hands each output of a filter to a continuation. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* for strptime */
#endif
#include "sh.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* ---------------------------------------------------------------- values */

/* Values nested deeper than this are refused, so that the recursion of the
 * functions walking them stays bounded; input texts may nest less. */
#define JQ_MAX_DEPTH 2000
#define JQ_MAX_PARSE_DEPTH 256

/* The kinds, in jq's sort order. */
enum { JK_NULL, JK_FALSE, JK_TRUE, JK_NUM, JK_STR, JK_ARR, JK_OBJ };

/* A JSON value, reference counted and immutable once shared (refs > 1). A
 * string's bytes are NUL-terminated; an object keeps its keys (strings) in
 * insertion order, next to their values. */
typedef struct jv {
    int kind;
    int refs;
    double num;
    char *str;
    size_t len;
    struct jv **items; /* array items, or object values */
    struct jv **keys;  /* object keys */
    size_t n, cap;
    int depth;         /* an upper bound of the nesting inside */
} jv;

static const char *const kind_names[] = { "null", "boolean", "boolean", "number",
                                          "string", "array", "object" };

/* A new value of the given kind, or NULL when out of memory. */
static jv *jv_new(int kind)
{
    jv *v = calloc(1, sizeof *v);
    if (v) {
        v->kind = kind;
        v->refs = 1;
    }
    return v;
}

static jv *jv_num(double d)
{
    jv *v = jv_new(JK_NUM);
    if (v)
        v->num = d;
    return v;
}

static jv *jv_bool(int b)
{
    return jv_new(b ? JK_TRUE : JK_FALSE);
}

/* A string value holding a copy of the n bytes at s. */
static jv *jv_strn(const char *s, size_t n)
{
    jv *v = jv_new(JK_STR);
    if (!v)
        return NULL;
    v->str = malloc(n + 1);
    if (!v->str) {
        free(v);
        return NULL;
    }
    if (n)
        memcpy(v->str, s, n);
    v->str[n] = 0;
    v->len = n;
    return v;
}

static jv *jv_str(const char *s)
{
    return jv_strn(s, strlen(s));
}

/* A string value that takes over the contents of b. */
static jv *jv_str_buf(sh_buf *b)
{
    size_t n;
    char *s = sh_buf_take(b, &n);
    jv *v = s ? jv_new(JK_STR) : NULL;
    if (!v) {
        free(s);
        return NULL;
    }
    v->str = s;
    v->len = n;
    return v;
}

static jv *jv_ref(jv *v)
{
    if (v)
        v->refs++;
    return v;
}

static void jv_free(jv *v)
{
    if (!v || --v->refs > 0)
        return;
    for (size_t i = 0; i < v->n; i++) {
        jv_free(v->items[i]);
        if (v->keys)
            jv_free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
    free(v);
}

static int truthy(const jv *v)
{
    return v->kind != JK_NULL && v->kind != JK_FALSE;
}

/* Makes room for one more item (and key, for objects): 0 or -1. */
static int jv_grow(jv *v)
{
    if (v->n < v->cap)
        return 0;
    size_t cap = v->cap ? v->cap * 2 : 4;
    jv **items = realloc(v->items, cap * sizeof *items);
    if (!items)
        return -1;
    v->items = items;
    if (v->kind == JK_OBJ) {
        jv **keys = realloc(v->keys, cap * sizeof *keys);
        if (!keys)
            return -1;
        v->keys = keys;
    }
    v->cap = cap;
    return 0;
}

/* Appends item (taken over, freed on failure) to the unshared array a. */
static int arr_push(jv *a, jv *item)
{
    if (!item || item->depth >= JQ_MAX_DEPTH || jv_grow(a) < 0) {
        jv_free(item);
        return -1;
    }
    a->items[a->n++] = item;
    if (item->depth >= a->depth)
        a->depth = item->depth + 1;
    return 0;
}

/* The index of key in object o, or -1. */
static long obj_find(const jv *o, const char *key, size_t len)
{
    for (size_t i = 0; i < o->n; i++)
        if (o->keys[i]->len == len && memcmp(o->keys[i]->str, key, len) == 0)
            return (long)i;
    return -1;
}

static jv *obj_get(const jv *o, const char *key, size_t len)
{
    long i = obj_find(o, key, len);
    return i < 0 ? NULL : o->items[i];
}

/* Sets key (a string value) to val in the unshared object o; both are taken
 * over (and freed on failure). */
static int obj_set(jv *o, jv *key, jv *val)
{
    if (!key || !val || val->depth >= JQ_MAX_DEPTH) {
        jv_free(key);
        jv_free(val);
        return -1;
    }
    long i = obj_find(o, key->str, key->len);
    if (i >= 0) {
        jv_free(key);
        jv_free(o->items[i]);
        o->items[i] = val;
        if (val->depth >= o->depth)
            o->depth = val->depth + 1;
        return 0;
    }
    if (jv_grow(o) < 0) {
        jv_free(key);
        jv_free(val);
        return -1;
    }
    o->keys[o->n] = key;
    o->items[o->n++] = val;
    if (val->depth >= o->depth)
        o->depth = val->depth + 1;
    return 0;
}

/* Returns v itself when unshared, or else a shallow copy (dropping one
 * reference to v): the result may be modified. NULL when out of memory (v is
 * released then). */
static jv *jv_unshare(jv *v)
{
    if (v->refs == 1)
        return v;
    jv *c = jv_new(v->kind);
    if (!c)
        goto fail;
    c->num = v->num;
    c->depth = v->depth;
    if (v->str && !(c->str = malloc(v->len + 1)))
        goto fail;
    if (v->str) {
        memcpy(c->str, v->str, v->len + 1);
        c->len = v->len;
    }
    if (v->n) {
        c->items = malloc(v->n * sizeof *c->items);
        if (!c->items)
            goto fail;
        if (v->keys && !(c->keys = malloc(v->n * sizeof *c->keys)))
            goto fail;
        for (size_t i = 0; i < v->n; i++) {
            c->items[i] = jv_ref(v->items[i]);
            if (v->keys)
                c->keys[i] = jv_ref(v->keys[i]);
        }
        c->n = c->cap = v->n;
    }
    jv_free(v);
    return c;
fail:
    jv_free(c);
    jv_free(v);
    return NULL;
}

/* Compares byte strings as jq does (memcmp, then the shorter first). */
static int bytes_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    int r = memcmp(a, b, an < bn ? an : bn);
    if (r)
        return r < 0 ? -1 : 1;
    return an < bn ? -1 : an > bn;
}

static int key_cmp(const void *x, const void *y)
{
    const jv *a = *(jv *const *)x, *b = *(jv *const *)y;
    return bytes_cmp(a->str, a->len, b->str, b->len);
}

/* The keys of object o sorted, in a new array of borrowed pointers (NULL when
 * out of memory or when o is empty). */
static jv **sorted_keys(const jv *o)
{
    if (!o->n)
        return NULL;
    jv **k = malloc(o->n * sizeof *k);
    if (k) {
        memcpy(k, o->keys, o->n * sizeof *k);
        qsort(k, o->n, sizeof *k, key_cmp);
    }
    return k;
}

/* jq's total order of values: -1, 0 or 1. */
static int jv_cmp(const jv *a, const jv *b)
{
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    switch (a->kind) {
    case JK_NUM:
        if (a->num != a->num)
            return -1; /* jq sorts nan below every number, itself included */
        if (b->num != b->num)
            return 1;
        return a->num < b->num ? -1 : a->num > b->num ? 1 : 0;
    case JK_STR:
        return bytes_cmp(a->str, a->len, b->str, b->len);
    case JK_ARR:
        for (size_t i = 0; i < a->n && i < b->n; i++) {
            int r = jv_cmp(a->items[i], b->items[i]);
            if (r)
                return r;
        }
        return a->n < b->n ? -1 : a->n > b->n;
    case JK_OBJ: {
        jv **ka = sorted_keys(a), **kb = sorted_keys(b);
        int r = 0;
        for (size_t i = 0; !r && i < a->n && i < b->n; i++)
            r = key_cmp(&ka[i], &kb[i]);
        if (!r)
            r = a->n < b->n ? -1 : a->n > b->n;
        for (size_t i = 0; !r && ka && i < a->n; i++)
            r = jv_cmp(obj_get(a, ka[i]->str, ka[i]->len), obj_get(b, ka[i]->str, ka[i]->len));
        free(ka);
        free(kb);
        return r;
    }
    default:
        return 0;
    }
}

/* ---------------------------------------------------------------- UTF-8 */

/* Decodes one code point from s (n bytes left) into *cp; returns its length,
 * or 1 with *cp = U+FFFD for an invalid sequence. */
static size_t utf8_decode(const unsigned char *s, size_t n, unsigned *cp)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if ((c & 0xe0) == 0xc0) {
        len = 2, c &= 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3, c &= 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4, c &= 0x07, min = 0x10000;
    } else {
        *cp = 0xfffd;
        return 1;
    }
    if (len > n)
        goto bad;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            goto bad;
        c = c << 6 | (s[i] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        goto bad;
    *cp = c;
    return len;
bad:
    *cp = 0xfffd;
    return 1;
}

static int utf8_encode(sh_buf *b, unsigned c)
{
    char t[4];
    size_t n;
    if (c < 0x80) {
        t[0] = (char)c, n = 1;
    } else if (c < 0x800) {
        t[0] = (char)(0xc0 | c >> 6), t[1] = (char)(0x80 | (c & 0x3f)), n = 2;
    } else if (c < 0x10000) {
        t[0] = (char)(0xe0 | c >> 12), t[1] = (char)(0x80 | (c >> 6 & 0x3f));
        t[2] = (char)(0x80 | (c & 0x3f)), n = 3;
    } else {
        t[0] = (char)(0xf0 | c >> 18), t[1] = (char)(0x80 | (c >> 12 & 0x3f));
        t[2] = (char)(0x80 | (c >> 6 & 0x3f)), t[3] = (char)(0x80 | (c & 0x3f)), n = 4;
    }
    return sh_buf_add(b, t, n);
}

/* The number of code points in the n bytes at s. */
static size_t utf8_count(const char *s, size_t n)
{
    size_t count = 0;
    unsigned cp;
    for (size_t i = 0; i < n; count++)
        i += utf8_decode((const unsigned char *)s + i, n - i, &cp);
    return count;
}

/* The byte offset of code point number idx in s (n bytes), or n past the end. */
static size_t utf8_offset(const char *s, size_t n, size_t idx)
{
    size_t i = 0;
    unsigned cp;
    while (idx-- > 0 && i < n)
        i += utf8_decode((const unsigned char *)s + i, n - i, &cp);
    return i;
}

/* A string value with the n bytes at s, invalid UTF-8 replaced by U+FFFD. */
static jv *jv_str_utf8(const char *s, size_t n)
{
    sh_buf b = { 0 };
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t k = utf8_decode((const unsigned char *)s + i, n - i, &cp);
        if (cp == 0xfffd && k == 1 ? utf8_encode(&b, cp) : sh_buf_add(&b, s + i, k)) {
            sh_buf_free(&b);
            return NULL;
        }
        i += k;
    }
    if (sh_buf_addc(&b, 0) < 0) {
        sh_buf_free(&b);
        return NULL;
    }
    b.len--;
    return jv_str_buf(&b);
}

/* ---------------------------------------------------------------- printing */

/* How values are printed. */
typedef struct dump_opts {
    int indent;   /* spaces per level; 0 is compact */
    int tab;      /* indent with tabs */
    int sort;     /* -S */
    int ascii;    /* -a */
} dump_opts;

/* Formats a number as jq 1.6 does: the shortest digits that read back the same
 * (17 at most), plain unless the exponent is far out, infinities clamped. */
static void fmt_num(char out[64], double d)
{
    if (d != d) {
        strcpy(out, "null");
        return;
    }
    if (d > DBL_MAX)
        d = DBL_MAX;
    if (d < -DBL_MAX)
        d = -DBL_MAX;
    if (d == 0) {
        strcpy(out, signbit(d) ? "-0" : "0");
        return;
    }
    char e[40];
    for (int prec = 0; prec < 17; prec++) {
        snprintf(e, sizeof e, "%.*e", prec, d);
        if (strtod(e, NULL) == d)
            break;
    }
    /* e is "-d.ddde+XX": collect the digits and the decimal exponent. */
    char digits[24];
    int nd = 0;
    const char *s = e;
    int neg = *s == '-';
    if (neg)
        s++;
    for (; *s && *s != 'e'; s++)
        if (isdigit((unsigned char)*s))
            digits[nd++] = *s;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    int exp10 = atoi(s + 1);
    int decpt = exp10 + 1;
    char *o = out;
    if (neg)
        *o++ = '-';
    if (decpt <= -4 || decpt > nd + 15) {
        *o++ = digits[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)nd - 1);
            o += nd - 1;
        }
        sprintf(o, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    } else if (decpt <= 0) {
        *o++ = '0';
        *o++ = '.';
        for (int i = decpt; i < 0; i++)
            *o++ = '0';
        memcpy(o, digits, (size_t)nd);
        o[nd] = 0;
    } else {
        for (int i = 0; i < decpt || i < nd; i++) {
            if (i == decpt)
                *o++ = '.';
            *o++ = i < nd ? digits[i] : '0';
        }
        *o = 0;
    }
}

/* Appends s as a JSON string literal. */
static int dump_str(sh_buf *b, const char *s, size_t n, int ascii)
{
    int r = sh_buf_addc(b, '"');
    for (size_t i = 0; i < n && r == 0;) {
        unsigned char c = (unsigned char)s[i];
        unsigned cp;
        size_t k = utf8_decode((const unsigned char *)s + i, n - i, &cp);
        const char *esc = NULL;
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\t': esc = "\\t"; break;
        case '\r': esc = "\\r"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        default: break;
        }
        if (esc)
            r = sh_buf_adds(b, esc);
        else if (c < 0x20 || c == 0x7f)
            r = sh_buf_addf(b, "\\u%04x", c);
        else if (ascii && cp >= 0x80) {
            if (cp >= 0x10000)
                r = sh_buf_addf(b, "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10),
                                0xdc00 + ((cp - 0x10000) & 0x3ff));
            else
                r = sh_buf_addf(b, "\\u%04x", cp);
        } else
            r = sh_buf_add(b, s + i, k);
        i += k;
    }
    return r ? r : sh_buf_addc(b, '"');
}

static int dump_newline(sh_buf *b, const dump_opts *o, int level)
{
    if (!o->indent && !o->tab)
        return 0;
    int r = sh_buf_addc(b, '\n');
    for (int i = 0; i < level && r == 0; i++) {
        if (o->tab)
            r = sh_buf_addc(b, '\t');
        else
            for (int k = 0; k < o->indent && r == 0; k++)
                r = sh_buf_addc(b, ' ');
    }
    return r;
}

/* Appends v as JSON text: 0, or -1 when out of memory. */
static int dump(sh_buf *b, const jv *v, const dump_opts *o, int level)
{
    char num[64];
    switch (v->kind) {
    case JK_NULL: return sh_buf_adds(b, "null");
    case JK_FALSE: return sh_buf_adds(b, "false");
    case JK_TRUE: return sh_buf_adds(b, "true");
    case JK_NUM:
        fmt_num(num, v->num);
        return sh_buf_adds(b, num);
    case JK_STR: return dump_str(b, v->str, v->len, o->ascii);
    default: break;
    }
    int obj = v->kind == JK_OBJ;
    if (v->n == 0)
        return sh_buf_adds(b, obj ? "{}" : "[]");
    jv **order = obj && o->sort ? sorted_keys(v) : NULL;
    if (obj && o->sort && !order)
        return -1;
    int r = sh_buf_addc(b, obj ? '{' : '[');
    for (size_t i = 0; i < v->n && r == 0; i++) {
        if (i)
            r = sh_buf_addc(b, ',');
        if (r == 0)
            r = dump_newline(b, o, level + 1);
        if (r == 0 && obj) {
            const jv *k = order ? order[i] : v->keys[i];
            r = dump_str(b, k->str, k->len, o->ascii);
            if (r == 0)
                r = sh_buf_adds(b, o->indent || o->tab ? ": " : ":");
            if (r == 0)
                r = dump(b, obj_get(v, k->str, k->len), o, level + 1);
        } else if (r == 0)
            r = dump(b, v->items[i], o, level + 1);
    }
    free(order);
    if (r == 0)
        r = dump_newline(b, o, level);
    return r ? r : sh_buf_addc(b, obj ? '}' : ']');
}

/* The compact JSON text of v as a new string value. */
static jv *jv_tojson(const jv *v)
{
    sh_buf b = { 0 };
    dump_opts o = { 0 };
    if (dump(&b, v, &o, 0) < 0 || sh_buf_addc(&b, 0) < 0) {
        sh_buf_free(&b);
        return NULL;
    }
    b.len--;
    return jv_str_buf(&b);
}

/* tostring: strings as they are, everything else as JSON. */
static jv *jv_tostring(jv *v)
{
    return v->kind == JK_STR ? jv_ref(v) : jv_tojson(v);
}

/* ---------------------------------------------------------------- JSON input */


/* A stream of JSON texts being read. */
typedef struct reader {
    const char *s;
    size_t len, pos;
    char err[160]; /* the message of the last parse error */
} reader;

static int is_json_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Records a parse error as jq words it, with the line and column of pos. */
static void json_error(reader *r, const char *what)
{
    size_t line = 1, col = 0;
    for (size_t i = 0; i < r->pos && i < r->len; i++) {
        if (r->s[i] == '\n')
            line++, col = 0;
        else
            col++;
    }
    snprintf(r->err, sizeof r->err, "%s at line %zu, column %zu", what, line, col);
}

static void skip_space(reader *r)
{
    while (r->pos < r->len && is_json_space(r->s[r->pos]))
        r->pos++;
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

/* Decodes the JSON string literal at r->pos (after its opening quote). */
static jv *parse_json_string(reader *r)
{
    sh_buf b = { 0 };
    while (r->pos < r->len && r->s[r->pos] != '"') {
        char c = r->s[r->pos++];
        int fail = 0;
        if (c != '\\') {
            fail = sh_buf_addc(&b, c);
        } else if (r->pos >= r->len) {
            break;
        } else {
            c = r->s[r->pos++];
            const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
            const char *k = c ? strchr(from, c) : NULL;
            unsigned cp;
            if (k) {
                fail = sh_buf_addc(&b, to[k - from]);
            } else if (c == 'u' && r->pos + 4 <= r->len && hex4(r->s + r->pos, &cp) == 0) {
                r->pos += 4;
                unsigned lo;
                if (cp >= 0xd800 && cp < 0xdc00 && r->pos + 6 <= r->len &&
                    r->s[r->pos] == '\\' && r->s[r->pos + 1] == 'u' &&
                    hex4(r->s + r->pos + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
                    r->pos += 6;
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                } else if (cp >= 0xd800 && cp < 0xe000) {
                    cp = 0xfffd;
                }
                fail = utf8_encode(&b, cp);
            } else {
                sh_buf_free(&b);
                json_error(r, "Invalid escape");
                return NULL;
            }
        }
        if (fail) {
            sh_buf_free(&b);
            snprintf(r->err, sizeof r->err, "out of memory");
            return NULL;
        }
    }
    if (r->pos >= r->len) {
        sh_buf_free(&b);
        json_error(r, "Unfinished string at EOF");
        return NULL;
    }
    r->pos++;
    jv *v = jv_str_utf8(b.data ? b.data : "", b.len);
    sh_buf_free(&b);
    if (!v)
        snprintf(r->err, sizeof r->err, "out of memory");
    return v;
}

static jv *parse_json_value(reader *r, int depth);

/* Parses an array or object (the opening bracket is at r->pos). */
static jv *parse_json_container(reader *r, int depth)
{
    int obj = r->s[r->pos] == '{';
    char close = obj ? '}' : ']';
    if (depth >= JQ_MAX_PARSE_DEPTH) {
        json_error(r, "Exceeds depth limit for parsing");
        return NULL;
    }
    r->pos++;
    jv *v = jv_new(obj ? JK_OBJ : JK_ARR);
    if (!v)
        goto oom;
    skip_space(r);
    if (r->pos < r->len && r->s[r->pos] == close) {
        r->pos++;
        return v;
    }
    for (;;) {
        skip_space(r);
        jv *key = NULL;
        if (obj) {
            if (r->pos >= r->len || r->s[r->pos] != '"') {
                json_error(r, r->pos >= r->len ? "Unfinished JSON term at EOF"
                                                : "Object keys must be strings");
                goto fail;
            }
            r->pos++;
            if (!(key = parse_json_string(r)))
                goto fail;
            skip_space(r);
            if (r->pos >= r->len || r->s[r->pos] != ':') {
                jv_free(key);
                json_error(r, r->pos >= r->len ? "Unfinished JSON term at EOF"
                                                : "Objects must consist of key:value pairs");
                goto fail;
            }
            r->pos++;
        }
        jv *item = parse_json_value(r, depth + 1);
        if (!item) {
            jv_free(key);
            goto fail;
        }
        if (obj ? obj_set(v, key, item) < 0 : arr_push(v, item) < 0)
            goto oom;
        skip_space(r);
        if (r->pos >= r->len) {
            json_error(r, "Unfinished JSON term at EOF");
            goto fail;
        }
        char c = r->s[r->pos++];
        if (c == close)
            return v;
        if (c != ',') {
            json_error(r, obj ? "Objects must consist of key:value pairs"
                              : "Expected separator between values");
            goto fail;
        }
    }
oom:
    snprintf(r->err, sizeof r->err, "out of memory");
fail:
    jv_free(v);
    return NULL;
}

/* Parses one value at r->pos (after blanks); NULL with r->err set on error. */
static jv *parse_json_value(reader *r, int depth)
{
    skip_space(r);
    if (r->pos >= r->len) {
        json_error(r, "Unfinished JSON term at EOF");
        return NULL;
    }
    char c = r->s[r->pos];
    jv *v;
    if (c == '[' || c == '{')
        return parse_json_container(r, depth);
    if (c == '"') {
        r->pos++;
        return parse_json_string(r);
    }
    size_t start = r->pos;
    while (r->pos < r->len && (isalnum((unsigned char)r->s[r->pos]) || r->s[r->pos] == '.' ||
                               r->s[r->pos] == '-' || r->s[r->pos] == '+'))
        r->pos++;
    size_t n = r->pos - start;
    const char *t = r->s + start;
    if (n == 4 && memcmp(t, "null", 4) == 0)
        v = jv_new(JK_NULL);
    else if (n == 4 && memcmp(t, "true", 4) == 0)
        v = jv_new(JK_TRUE);
    else if (n == 5 && memcmp(t, "false", 5) == 0)
        v = jv_new(JK_FALSE);
    else {
        /* Numbers as strtod reads them (jq 1.6 also takes ".5" and "nan"). */
        char tmp[64];
        char *end;
        if (n == 0 || n >= sizeof tmp) {
            if (n == 0)
                r->pos++;
            json_error(r, n == 0 && (c == ']' || c == '}') ? "Unmatched close"
                                                          : "Invalid literal");
            return NULL;
        }
        memcpy(tmp, t, n);
        tmp[n] = 0;
        double d = strtod(tmp, &end);
        if (*end || !strchr("-.0123456789nN", tmp[0]) ||
            (isalpha((unsigned char)tmp[0]) && strcasecmp(tmp, "nan") != 0)) {
            json_error(r, isdigit((unsigned char)tmp[0]) || tmp[0] == '-' ? "Invalid numeric literal"
                                                                         : "Invalid literal");
            return NULL;
        }
        v = jv_num(d);
    }
    if (!v)
        snprintf(r->err, sizeof r->err, "out of memory");
    return v;
}

/* The next value of the stream: 1 with *out set, 0 at the end, -1 on error. */
static int json_next(reader *r, jv **out)
{
    skip_space(r);
    if (r->pos >= r->len)
        return 0;
    *out = parse_json_value(r, 0);
    return *out ? 1 : -1;
}

/* Parses text that must hold exactly one value (fromjson, --argjson). */
static jv *parse_json_text(const char *s, size_t n, char *err, size_t errsize)
{
    reader r = { s, n, 0, { 0 } };
    jv *v = NULL;
    int st = json_next(&r, &v);
    if (st == 1) {
        skip_space(&r);
        if (r.pos >= r.len)
            return v;
        jv_free(v);
        json_error(&r, "Unexpected extra JSON values");
    } else if (st == 0) {
        snprintf(r.err, sizeof r.err, "Expected JSON value");
    }
    snprintf(err, errsize, "%s", r.err);
    return NULL;
}

/* ---------------------------------------------------------------- syntax tree */

enum {
    N_IDENTITY, N_LIT, N_INDEX, N_SLICE, N_ITER, N_TRY, N_PIPE, N_COMMA, N_NEG,
    N_ARITH, N_AND, N_OR, N_ALT, N_ASSIGN, N_IF, N_REDUCE, N_FOREACH, N_AS, N_DEF,
    N_CALL, N_VAR, N_FORMAT, N_STR, N_ARRAY, N_OBJECT, N_LABEL, N_BREAK,
    N_PVAR, N_PARR, N_POBJ
};

/* A node of a parsed filter. Which fields are used depends on op: a..e are
 * operands, args a list (call arguments, string parts, object entries as
 * key/value pairs, pattern elements), params a definition's parameter names. */
typedef struct node {
    int op;
    int binop; /* N_ARITH, N_ASSIGN: the operator's character ('<' is "<", 'l' "<=" ...) */
    int opt;   /* N_INDEX, N_SLICE, N_ITER followed by '?': their own errors are dropped */
    struct node *a, *b, *c, *d, *e;
    jv *val;    /* N_LIT */
    char *name; /* N_CALL, N_VAR, N_FORMAT, N_DEF, N_STR's format, N_LABEL, N_PVAR */
    struct node **args;
    size_t nargs;
    char **params;
    size_t nparams;
    struct node *all; /* every node, for freeing */
} node;

/* How deeply a program may nest (counting both pipelines and terms), so that
 * the recursive descent parser's stack stays bounded. */
#define JQ_MAX_PROGRAM_DEPTH 512

/* The parser's state: the program text and every node allocated. */
typedef struct parser {
    const char *s;
    size_t len, pos;
    node *all;
    int depth;
    size_t user_start; /* where the user's program starts (after the builtins) */
    char err[200];
} parser;

enum { TK_EOF, TK_IDENT, TK_FIELD, TK_VAR, TK_NUM, TK_STR, TK_FORMAT, TK_OP, TK_BAD };

/* One token: its type and where its text is. */
typedef struct token {
    int type;
    size_t start, end;
} token;

static const char *const multi_ops[] = { "?//", "|=", "+=", "-=", "*=", "/=", "%=", "//=",
                                         "==", "!=", "<=", ">=", "//", "..", NULL };

static int ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Skips blanks and comments, then reads the token at the current position
 * without consuming it. */
static token peek(parser *ps)
{
    const char *s = ps->s;
    size_t i = ps->pos, n = ps->len;
    for (;;) {
        while (i < n && isspace((unsigned char)s[i]))
            i++;
        if (i < n && s[i] == '#') {
            while (i < n && s[i] != '\n')
                i++;
            continue;
        }
        break;
    }
    ps->pos = i;
    token t = { TK_EOF, i, i };
    if (i >= n)
        return t;
    char c = s[i];
    size_t j = i + 1;
    if (ident_start(c)) {
        while (j < n && (ident_char(s[j]) || (s[j] == ':' && j + 1 < n && s[j + 1] == ':')))
            j += s[j] == ':' ? 2 : 1;
        t.type = TK_IDENT;
    } else if ((c == '$' || c == '@') && j < n && ident_start(s[j])) {
        while (j < n && ident_char(s[j]))
            j++;
        t.type = c == '$' ? TK_VAR : TK_FORMAT;
    } else if (c == '.' && j < n && ident_start(s[j])) {
        while (j < n && ident_char(s[j]))
            j++;
        t.type = TK_FIELD;
    } else if (isdigit((unsigned char)c) || (c == '.' && j < n && isdigit((unsigned char)s[j]))) {
        while (j < n && (isdigit((unsigned char)s[j]) || s[j] == '.'))
            j++;
        if (j < n && (s[j] == 'e' || s[j] == 'E')) {
            size_t k = j + 1;
            if (k < n && (s[k] == '+' || s[k] == '-'))
                k++;
            if (k < n && isdigit((unsigned char)s[k])) {
                j = k;
                while (j < n && isdigit((unsigned char)s[j]))
                    j++;
            }
        }
        t.type = TK_NUM;
    } else if (c == '"') {
        t.type = TK_STR;
    } else {
        t.type = strchr(".[]{}()|,:;=<>+-*/%?$", c) ? TK_OP : TK_BAD;
        for (int k = 0; multi_ops[k]; k++) {
            size_t l = strlen(multi_ops[k]);
            if (i + l <= n && memcmp(s + i, multi_ops[k], l) == 0) {
                j = i + l;
                t.type = TK_OP;
                break;
            }
        }
    }
    t.end = j;
    return t;
}

static int tok_is(parser *ps, const token *t, const char *text)
{
    size_t l = strlen(text);
    return (t->type == TK_OP || t->type == TK_IDENT) && t->end - t->start == l &&
           memcmp(ps->s + t->start, text, l) == 0;
}

/* Consumes the next token if it is text. */
static int accept(parser *ps, const char *text)
{
    token t = peek(ps);
    if (!tok_is(ps, &t, text))
        return 0;
    ps->pos = t.end;
    return 1;
}

/* Records a syntax error (the first one only); returns NULL for convenience. */
static node *syntax_error(parser *ps, const char *what)
{
    if (!ps->err[0]) {
        token t = peek(ps);
        if (t.type == TK_EOF)
            snprintf(ps->err, sizeof ps->err, "syntax error, unexpected $end (%s)", what);
        else
            snprintf(ps->err, sizeof ps->err, "syntax error, unexpected '%.*s' (%s)",
                     (int)(t.end - t.start > 20 ? 20 : t.end - t.start), ps->s + t.start, what);
    }
    return NULL;
}

static int expect(parser *ps, const char *text)
{
    if (accept(ps, text))
        return 0;
    char what[40];
    snprintf(what, sizeof what, "expected '%s'", text);
    syntax_error(ps, what);
    return -1;
}

/* A new node, owned by the parser. */
static node *mk(parser *ps, int op, node *a, node *b)
{
    node *n = calloc(1, sizeof *n);
    if (!n) {
        snprintf(ps->err, sizeof ps->err, "out of memory");
        return NULL;
    }
    n->op = op;
    n->a = a;
    n->b = b;
    n->all = ps->all;
    ps->all = n;
    return n;
}

static void free_nodes(node *n)
{
    while (n) {
        node *next = n->all;
        jv_free(n->val);
        free(n->name);
        free(n->args);
        for (size_t i = 0; i < n->nparams; i++)
            free(n->params[i]);
        free(n->params);
        free(n);
        n = next;
    }
}

/* Appends item to n's argument list. */
static int add_arg(parser *ps, node *n, node *item)
{
    if (!item)
        return -1;
    node **args = realloc(n->args, (n->nargs + 1) * sizeof *args);
    if (!args) {
        snprintf(ps->err, sizeof ps->err, "out of memory");
        return -1;
    }
    n->args = args;
    n->args[n->nargs++] = item;
    return 0;
}

static char *tok_dup(parser *ps, const token *t, size_t skip)
{
    size_t l = t->end - t->start - skip;
    char *s = malloc(l + 1);
    if (!s) {
        snprintf(ps->err, sizeof ps->err, "out of memory");
        return NULL;
    }
    memcpy(s, ps->s + t->start + skip, l);
    s[l] = 0;
    return s;
}

static node *mk_lit(parser *ps, jv *v)
{
    node *n = v ? mk(ps, N_LIT, NULL, NULL) : NULL;
    if (!n) {
        jv_free(v);
        if (!ps->err[0])
            snprintf(ps->err, sizeof ps->err, "out of memory");
        return NULL;
    }
    n->val = v;
    return n;
}

static node *mk_call(parser *ps, const char *name)
{
    node *n = mk(ps, N_CALL, NULL, NULL);
    if (n && !(n->name = strdup(name))) {
        snprintf(ps->err, sizeof ps->err, "out of memory");
        return NULL;
    }
    return n;
}

static node *parse_pipe(parser *ps);
static node *parse_postfix(parser *ps);
static node *parse_alt(parser *ps);

/* Parses a string literal (the opening quote is next), with its \(...)
 * interpolations; fmt is the format that applies to them, or NULL. */
static node *parse_string(parser *ps, const char *fmt)
{
    node *str = mk(ps, N_STR, NULL, NULL);
    sh_buf b = { 0 };
    int interpolated = 0;
    if (!str)
        return NULL;
    ps->pos++;
    for (;;) {
        if (ps->pos >= ps->len) {
            sh_buf_free(&b);
            return syntax_error(ps, "unterminated string");
        }
        char c = ps->s[ps->pos++];
        if (c == '"')
            break;
        if (c != '\\') {
            if (sh_buf_addc(&b, c) < 0)
                goto oom;
            continue;
        }
        if (ps->pos >= ps->len)
            continue;
        c = ps->s[ps->pos++];
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        const char *k = strchr(from, c);
        unsigned cp;
        if (c && k) {
            if (sh_buf_addc(&b, to[k - from]) < 0)
                goto oom;
        } else if (c == 'u' && ps->pos + 4 <= ps->len && hex4(ps->s + ps->pos, &cp) == 0) {
            ps->pos += 4;
            unsigned lo;
            if (cp >= 0xd800 && cp < 0xdc00 && ps->pos + 6 <= ps->len &&
                ps->s[ps->pos] == '\\' && ps->s[ps->pos + 1] == 'u' &&
                hex4(ps->s + ps->pos + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
                ps->pos += 6;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            if (utf8_encode(&b, cp) < 0)
                goto oom;
        } else if (c == '(') {
            interpolated = 1;
            if (add_arg(ps, str, mk_lit(ps, jv_strn(b.data ? b.data : "", b.len))) < 0)
                goto fail;
            b.len = 0;
            if (add_arg(ps, str, parse_pipe(ps)) < 0 || expect(ps, ")") < 0)
                goto fail;
        } else {
            sh_buf_free(&b);
            return syntax_error(ps, "invalid escape in string");
        }
    }
    jv *tail = jv_str_utf8(b.data ? b.data : "", b.len);
    sh_buf_free(&b);
    if (!interpolated && !fmt)
        return mk_lit(ps, tail);
    if (add_arg(ps, str, mk_lit(ps, tail)) < 0)
        return NULL;
    if (fmt && !(str->name = strdup(fmt)))
        goto oom;
    return str;
oom:
    snprintf(ps->err, sizeof ps->err, "out of memory");
fail:
    sh_buf_free(&b);
    return NULL;
}

/* Parses a destructuring pattern: $name, [p, ...] or {key: p, $name, ...}. */
static node *parse_pattern(parser *ps)
{
    token t = peek(ps);
    if (t.type == TK_VAR) {
        ps->pos = t.end;
        node *n = mk(ps, N_PVAR, NULL, NULL);
        if (n && !(n->name = tok_dup(ps, &t, 1)))
            return NULL;
        return n;
    }
    if (accept(ps, "[")) {
        node *n = mk(ps, N_PARR, NULL, NULL);
        do {
            if (!n || add_arg(ps, n, parse_pattern(ps)) < 0)
                return NULL;
        } while (accept(ps, ","));
        return expect(ps, "]") < 0 ? NULL : n;
    }
    if (accept(ps, "{")) {
        node *n = mk(ps, N_POBJ, NULL, NULL);
        do {
            if (!n)
                return NULL;
            t = peek(ps);
            node *key, *pat = NULL;
            if (t.type == TK_VAR) {
                key = parse_pattern(ps);
                if (accept(ps, ":"))
                    pat = parse_pattern(ps);
            } else {
                if (t.type == TK_IDENT) {
                    ps->pos = t.end;
                    char *s = tok_dup(ps, &t, 0);
                    key = s ? mk_lit(ps, jv_str(s)) : NULL;
                    free(s);
                } else if (t.type == TK_STR) {
                    key = parse_string(ps, NULL);
                } else if (accept(ps, "(")) {
                    key = parse_pipe(ps);
                    if (expect(ps, ")") < 0)
                        return NULL;
                } else {
                    return syntax_error(ps, "bad object pattern");
                }
                if (expect(ps, ":") < 0)
                    return NULL;
                pat = parse_pattern(ps);
                if (!pat)
                    return NULL;
            }
            if (add_arg(ps, n, key) < 0 || add_arg(ps, n, pat ? pat : key) < 0)
                return NULL;
        } while (accept(ps, ","));
        return expect(ps, "}") < 0 ? NULL : n;
    }
    return syntax_error(ps, "expected a pattern");
}

/* Parses a term of an object's value, which jq 1.6 limits to terms, their
 * negations and pipes of those. */
static node *parse_objval(parser *ps)
{
    if (accept(ps, "-")) {
        node *a = parse_objval(ps);
        return a ? mk(ps, N_NEG, a, NULL) : NULL;
    }
    return parse_postfix(ps);
}

/* Parses an object construction (after its '{'). */
static node *parse_object(parser *ps)
{
    node *obj = mk(ps, N_OBJECT, NULL, NULL);
    if (!obj)
        return NULL;
    if (accept(ps, "}"))
        return obj;
    do {
        token t = peek(ps);
        node *key = NULL, *val = NULL;
        if (t.type == TK_VAR) {
            ps->pos = t.end;
            char *s = tok_dup(ps, &t, 1);
            key = s ? mk_lit(ps, jv_str(s)) : NULL;
            val = key ? mk(ps, N_VAR, NULL, NULL) : NULL;
            if (!val)
                return NULL;
            val->name = s;
        } else {
            if (t.type == TK_IDENT || t.type == TK_NUM) {
                if (t.type == TK_NUM)
                    return syntax_error(ps, "object keys must be strings");
                ps->pos = t.end;
                char *s = tok_dup(ps, &t, 0);
                key = s ? mk_lit(ps, jv_str(s)) : NULL;
                free(s);
            } else if (t.type == TK_STR) {
                key = parse_string(ps, NULL);
            } else if (t.type == TK_FORMAT) {
                ps->pos = t.end;
                char *f = tok_dup(ps, &t, 0);
                key = f && peek(ps).type == TK_STR ? parse_string(ps, f) : NULL;
                free(f);
            } else if (accept(ps, "(")) {
                key = parse_pipe(ps);
                if (expect(ps, ")") < 0)
                    return NULL;
            } else {
                return syntax_error(ps, "bad object key");
            }
            if (!key)
                return NULL;
            if (accept(ps, ":")) {
                val = parse_objval(ps);
                while (val && accept(ps, "|")) {
                    node *rhs = parse_objval(ps);
                    val = rhs ? mk(ps, N_PIPE, val, rhs) : NULL;
                }
            } else {
                val = mk(ps, N_INDEX, mk(ps, N_IDENTITY, NULL, NULL), key);
            }
        }
        if (add_arg(ps, obj, key) < 0 || add_arg(ps, obj, val) < 0)
            return NULL;
    } while (accept(ps, ","));
    return expect(ps, "}") < 0 ? NULL : obj;
}

/* Parses the part after "reduce" or "foreach": SOURCE as PATTERN (a; b[; c]). */
static node *parse_fold(parser *ps, int op)
{
    node *n = mk(ps, op, NULL, NULL);
    if (!n || !(n->a = parse_postfix(ps)) || expect(ps, "as") < 0 ||
        !(n->d = parse_pattern(ps)) || expect(ps, "(") < 0 || !(n->b = parse_pipe(ps)) ||
        expect(ps, ";") < 0 || !(n->c = parse_pipe(ps)))
        return NULL;
    if (op == N_FOREACH && accept(ps, ";") && !(n->e = parse_pipe(ps)))
        return NULL;
    return expect(ps, ")") < 0 ? NULL : n;
}

/* Parses if COND then A (elif COND then A)* (else B)? end. */
static node *parse_if(parser *ps)
{
    node *n = mk(ps, N_IF, NULL, NULL);
    if (!n || !(n->a = parse_pipe(ps)) || expect(ps, "then") < 0 || !(n->b = parse_pipe(ps)))
        return NULL;
    if (accept(ps, "elif"))
        n->c = parse_if(ps);
    else if (expect(ps, "else") < 0 || !(n->c = parse_pipe(ps)) || expect(ps, "end") < 0)
        return NULL; /* jq 1.6 requires the else branch */
    return n->c ? n : NULL;
}

/* Parses a term: the simple expressions that postfix operators apply to. */
static node *parse_term(parser *ps)
{
    token t = peek(ps);
    node *n;
    switch (t.type) {
    case TK_NUM: {
        ps->pos = t.end;
        char buf[64];
        size_t l = t.end - t.start;
        if (l >= sizeof buf)
            l = sizeof buf - 1;
        memcpy(buf, ps->s + t.start, l);
        buf[l] = 0;
        return mk_lit(ps, jv_num(strtod(buf, NULL)));
    }
    case TK_STR:
        return parse_string(ps, NULL);
    case TK_FORMAT: {
        ps->pos = t.end;
        char *f = tok_dup(ps, &t, 0);
        if (!f)
            return NULL;
        if (peek(ps).type == TK_STR) {
            n = parse_string(ps, f);
            free(f);
            return n;
        }
        n = mk(ps, N_FORMAT, NULL, NULL);
        if (!n)
            free(f);
        else
            n->name = f;
        return n;
    }
    case TK_FIELD: {
        ps->pos = t.end;
        char *s = tok_dup(ps, &t, 1);
        n = s ? mk(ps, N_INDEX, mk(ps, N_IDENTITY, NULL, NULL), mk_lit(ps, jv_str(s))) : NULL;
        free(s);
        return n && n->a && n->b ? n : NULL;
    }
    case TK_VAR: {
        ps->pos = t.end;
        if (t.end - t.start == 8 && memcmp(ps->s + t.start, "$__loc__", 8) == 0) {
            size_t line = 1;
            for (size_t i = ps->user_start; i < t.start; i++)
                line += ps->s[i] == '\n';
            jv *loc = jv_new(JK_OBJ);
            if (loc && (obj_set(loc, jv_str("file"), jv_str("<top-level>")) < 0 ||
                        obj_set(loc, jv_str("line"), jv_num((double)line)) < 0)) {
                jv_free(loc);
                loc = NULL;
            }
            return mk_lit(ps, loc);
        }
        n = mk(ps, N_VAR, NULL, NULL);
        if (n && !(n->name = tok_dup(ps, &t, 1)))
            return NULL;
        return n;
    }
    case TK_IDENT:
        break;
    case TK_OP:
        if (tok_is(ps, &t, "..")) {
            ps->pos = t.end;
            return mk_call(ps, "recurse");
        }
        if (tok_is(ps, &t, ".")) {
            ps->pos = t.end;
            t = peek(ps);
            if (t.type == TK_STR)
                return mk(ps, N_INDEX, mk(ps, N_IDENTITY, NULL, NULL), parse_string(ps, NULL));
            return mk(ps, N_IDENTITY, NULL, NULL);
        }
        if (accept(ps, "(")) {
            n = parse_pipe(ps);
            return n && expect(ps, ")") == 0 ? n : NULL;
        }
        if (accept(ps, "[")) {
            if (accept(ps, "]"))
                return mk(ps, N_ARRAY, NULL, NULL);
            n = parse_pipe(ps);
            return n && expect(ps, "]") == 0 ? mk(ps, N_ARRAY, n, NULL) : NULL;
        }
        if (accept(ps, "{"))
            return parse_object(ps);
        /* fall through */
    default:
        return syntax_error(ps, "expected a term");
    }
    /* Keywords and function calls. */
    if (accept(ps, "reduce"))
        return parse_fold(ps, N_REDUCE);
    if (accept(ps, "foreach"))
        return parse_fold(ps, N_FOREACH);
    if (accept(ps, "if"))
        return parse_if(ps);
    if (accept(ps, "try")) {
        n = mk(ps, N_TRY, parse_postfix(ps), NULL);
        if (n && n->a && accept(ps, "catch") && !(n->b = parse_postfix(ps)))
            return NULL;
        return n && n->a ? n : NULL;
    }
    static const char *const reserved[] = { "then", "elif", "else", "end", "as", "catch",
                                            "and", "or", "def", "label", "import",
                                            "include", NULL };
    for (int i = 0; reserved[i]; i++)
        if (tok_is(ps, &t, reserved[i]))
            return syntax_error(ps, "expected a term");
    ps->pos = t.end;
    if (tok_is(ps, &t, "null") || tok_is(ps, &t, "true") || tok_is(ps, &t, "false"))
        return mk_lit(ps, jv_new(ps->s[t.start] == 'n' ? JK_NULL
                                 : ps->s[t.start] == 't' ? JK_TRUE : JK_FALSE));
    token v = peek(ps);
    if (tok_is(ps, &t, "break") && v.type == TK_VAR) {
        ps->pos = v.end;
        n = mk(ps, N_BREAK, NULL, NULL);
        if (n && !(n->name = tok_dup(ps, &v, 1)))
            return NULL;
        return n;
    }
    n = mk(ps, N_CALL, NULL, NULL);
    if (!n || !(n->name = tok_dup(ps, &t, 0)))
        return NULL;
    if (accept(ps, "(")) {
        do {
            if (add_arg(ps, n, parse_pipe(ps)) < 0)
                return NULL;
        } while (accept(ps, ";"));
        if (expect(ps, ")") < 0)
            return NULL;
    }
    return n;
}

/* Parses a term followed by its suffixes: .name, ."name", [e], [], [a:b], ?. */
static node *parse_postfix(parser *ps)
{
    if (++ps->depth > JQ_MAX_PROGRAM_DEPTH) {
        ps->depth--;
        snprintf(ps->err, sizeof ps->err, "program too deeply nested");
        return NULL;
    }
    node *n = parse_term(ps);
    while (n) {
        token t = peek(ps);
        if (t.type == TK_FIELD) {
            ps->pos = t.end;
            char *s = tok_dup(ps, &t, 1);
            n = s ? mk(ps, N_INDEX, n, mk_lit(ps, jv_str(s))) : NULL;
            free(s);
            if (n && !n->b)
                n = NULL;
        } else if (tok_is(ps, &t, ".") && ps->pos + 1 < ps->len && ps->s[t.end] == '"') {
            ps->pos = t.end;
            peek(ps);
            n = mk(ps, N_INDEX, n, parse_string(ps, NULL));
            if (n && !n->b)
                n = NULL;
        } else if (tok_is(ps, &t, "[")) {
            ps->pos = t.end;
            if (accept(ps, "]")) {
                n = mk(ps, N_ITER, n, NULL);
                continue;
            }
            node *from = NULL, *to = NULL;
            if (!accept(ps, ":")) {
                if (!(from = parse_pipe(ps)))
                    return NULL;
                if (accept(ps, "]")) {
                    n = mk(ps, N_INDEX, n, from);
                    continue;
                }
                if (expect(ps, ":") < 0)
                    return NULL;
            }
            if (!accept(ps, "]")) {
                if (!(to = parse_pipe(ps)) || expect(ps, "]") < 0)
                    return NULL;
            } else if (!from) {
                return syntax_error(ps, "empty slice");
            }
            n = mk(ps, N_SLICE, n, from);
            if (n)
                n->c = to;
        } else if (tok_is(ps, &t, "?")) {
            ps->pos = t.end;
            if ((n->op == N_INDEX || n->op == N_SLICE || n->op == N_ITER) && !n->opt)
                n->opt = 1;
            else
                n = mk(ps, N_TRY, n, NULL);
        } else {
            break;
        }
    }
    ps->depth--;
    return n;
}

/* Unary minus, and "TERM as PATTERN | BODY". */
static node *parse_unary(parser *ps)
{
    if (accept(ps, "-")) {
        node *a = parse_unary(ps);
        return a ? mk(ps, N_NEG, a, NULL) : NULL;
    }
    node *n = parse_postfix(ps);
    if (n && accept(ps, "as")) {
        node *as = mk(ps, N_AS, n, NULL);
        if (!as || !(as->d = parse_pattern(ps)) || expect(ps, "|") < 0 ||
            !(as->b = parse_pipe(ps)))
            return NULL;
        return as;
    }
    return n;
}

/* The binary operators by precedence level, loosest first; ops ending in '='
 * (assignments) and comparisons do not chain. */
static const char *const level_ops[][8] = {
    { "//", NULL },
    { "=", "|=", "+=", "-=", "*=", "/=", "%=", "//=" },
    { "or", NULL },
    { "and", NULL },
    { "==", "!=", "<", "<=", ">", ">=", NULL },
    { "+", "-", NULL },
    { "*", "/", "%", NULL },
};
#define N_LEVELS (sizeof level_ops / sizeof level_ops[0])

/* The operator codes (node->binop) of the texts above. */
static int binop_code(const char *op)
{
    static const char *const texts[] = { "==", "!=", "<=", ">=", "//=", "|=", NULL };
    static const char codes[] = "enlgA|";
    for (int i = 0; texts[i]; i++)
        if (strcmp(op, texts[i]) == 0)
            return codes[i];
    return op[0];
}

/* Parses binary operators from precedence level lv down. */
static node *parse_level(parser *ps, size_t lv)
{
    if (lv == N_LEVELS)
        return parse_unary(ps);
    node *left = parse_level(ps, lv + 1);
    while (left) {
        const char *op = NULL;
        for (int i = 0; i < 8 && level_ops[lv][i]; i++) {
            if (accept(ps, level_ops[lv][i])) {
                op = level_ops[lv][i];
                break;
            }
        }
        if (!op)
            break;
        if (lv == 0) { /* "//" is right-associative */
            node *right = parse_level(ps, 0);
            return right ? mk(ps, N_ALT, left, right) : NULL;
        }
        node *right = parse_level(ps, lv + 1);
        if (!right)
            return NULL;
        int kind = lv == 1 ? N_ASSIGN : lv == 2 ? N_OR : lv == 3 ? N_AND : N_ARITH;
        left = mk(ps, kind, left, right);
        if (left)
            left->binop = binop_code(op[0] == '=' && op[1] == 0 ? "=" : op);
        if (lv == 1 || lv == 4)
            break;
    }
    return left;
}

static node *parse_alt(parser *ps)
{
    return parse_level(ps, 0);
}

/* Parses a function definition (after "def"): NAME[(PARAMS)]: BODY; REST. */
static node *parse_def(parser *ps, int with_rest)
{
    token t = peek(ps);
    if (t.type != TK_IDENT)
        return syntax_error(ps, "expected a function name");
    ps->pos = t.end;
    node *n = mk(ps, N_DEF, NULL, NULL);
    if (!n || !(n->name = tok_dup(ps, &t, 0)))
        return NULL;
    if (accept(ps, "(")) {
        do {
            t = peek(ps);
            if (t.type != TK_IDENT && t.type != TK_VAR)
                return syntax_error(ps, "expected a parameter");
            ps->pos = t.end;
            char **params = realloc(n->params, (n->nparams + 1) * sizeof *params);
            if (!params)
                return syntax_error(ps, "out of memory");
            n->params = params;
            if (!(n->params[n->nparams] = tok_dup(ps, &t, 0)))
                return NULL;
            n->nparams++;
        } while (accept(ps, ";"));
        if (expect(ps, ")") < 0)
            return NULL;
    }
    if (expect(ps, ":") < 0 || !(n->a = parse_pipe(ps)) || expect(ps, ";") < 0)
        return NULL;
    if (with_rest && !(n->b = parse_pipe(ps)))
        return NULL;
    return n;
}

/* Parses a pipeline: definitions, "label $x | ...", and ',' and '|' chains. */
static node *parse_pipe(parser *ps)
{
    if (++ps->depth > JQ_MAX_PROGRAM_DEPTH) {
        ps->depth--;
        snprintf(ps->err, sizeof ps->err, "program too deeply nested");
        return NULL;
    }
    node *n;
    if (accept(ps, "def")) {
        n = parse_def(ps, 1);
    } else if (accept(ps, "label")) {
        token t = peek(ps);
        n = NULL;
        if (t.type != TK_VAR) {
            syntax_error(ps, "expected $name after label");
        } else {
            ps->pos = t.end;
            n = mk(ps, N_LABEL, NULL, NULL);
            if (n && (!(n->name = tok_dup(ps, &t, 1)) || expect(ps, "|") < 0 ||
                      !(n->a = parse_pipe(ps))))
                n = NULL;
        }
    } else {
        n = parse_alt(ps);
        while (n && accept(ps, ","))
            n = mk(ps, N_COMMA, n, parse_alt(ps)), n = n && n->b ? n : NULL;
        if (n && accept(ps, "|"))
            n = mk(ps, N_PIPE, n, parse_pipe(ps)), n = n && n->b ? n : NULL;
    }
    ps->depth--;
    return n;
}

/* ---------------------------------------------------------------- evaluation */

/* Return codes of the evaluator: 0 to go on, J_ERR for an error (its value in
 * jq.err), and from J_LABEL up, the label that a break (or limit, first)
 * unwinds to. */
#define J_ERR 1
#define J_LABEL 2

/* Keeps a helper out of its caller's stack frame (see eval). */
#define NOINLINE __attribute__((noinline))

/* How deep the evaluator may recurse, in bytes of C stack: about half of the
 * guest's 1 MiB. AddressSanitizer builds (native tests only) have frames
 * several times larger and a larger stack. */
#if defined(__SANITIZE_ADDRESS__)
#define JQ_STACK_LIMIT ((size_t)3 << 20)
#else
#define JQ_STACK_LIMIT ((size_t)480 << 10)
#endif

enum { E_VAR, E_FUNC, E_CLOSURE, E_LABEL, E_NONE };

/* A binding, on the C stack of the code that made it: variables, function
 * definitions, the filters passed as a function's arguments, and labels. */
typedef struct env {
    const struct env *up;
    int kind;
    const char *name;
    size_t arity;
    jv *val;                  /* E_VAR */
    const node *def;          /* E_FUNC: the definition; E_CLOSURE: the argument */
    const struct env *scope;  /* E_CLOSURE: the environment of the caller */
    int label;                /* E_LABEL */
} env;

/* The state of one run of jq. */
typedef struct jq {
    sh_proc *p;
    jv *err;          /* the pending error's value (NULL: out of memory) */
    int next_label;
    uintptr_t stack_base;
    reader in;        /* the input texts */
    char **files;     /* the input files (none: standard input) */
    size_t nfiles;
    int loaded;       /* the input texts were read */
    int load_status;  /* 2 when a file could not be read */
    char *input;      /* all of them */
    int raw_input;    /* -R */
    jv *consumable;   /* a reduce/foreach state an assignment may update in place */
    int consumed;     /* the assignment took it over */
    int input_error;  /* an input could not be parsed */
    dump_opts dump;
} jq;

/* Receives one output of a filter: its value and, when paths are tracked
 * (path(f), assignments), its path. Both are borrowed. */
typedef int (*emit_fn)(jq *q, jv *v, jv *path, void *data);

static int eval(jq *q, const node *n, const env *e, jv *in, jv *path, emit_fn k, void *kd);

/* Sets the pending error to a message and returns J_ERR. */
static int fail(jq *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(jq *q, const char *fmt, ...)
{
    sh_buf b = { 0 };
    va_list ap;
    va_start(ap, fmt);
    int r = sh_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    jv_free(q->err);
    q->err = r < 0 ? NULL : jv_str_buf(&b);
    sh_buf_free(&b);
    return J_ERR;
}

static int oom(jq *q)
{
    jv_free(q->err);
    q->err = NULL;
    return J_ERR;
}

/* Writes v's JSON text, cut as jq cuts values in messages, into buf. */
static const char *trunc_dump(char buf[32], const jv *v)
{
    jv *s = jv_tojson(v);
    if (!s)
        return "...";
    if (s->len > 14)
        snprintf(buf, 32, "%.11s...", s->str);
    else
        snprintf(buf, 32, "%s", s->str);
    jv_free(s);
    return buf;
}

/* The common "TYPE (VALUE) ..." error. */
static int fail_value(jq *q, const jv *v, const char *what)
{
    char b[32];
    return fail(q, "%s (%s) %s", kind_names[v->kind], trunc_dump(b, v), what);
}

/* Returns v, or reports out of memory when it is NULL: for natives. */
static jv *checked(jq *q, jv *v)
{
    if (!v)
        oom(q);
    return v;
}

/* A path with one more element, as a new array (NULL when out of memory). */
static jv *path_append(jv *path, jv *key)
{
    jv *p = jv_unshare(jv_ref(path));
    if (!p || arr_push(p, jv_ref(key)) < 0) {
        jv_free(p);
        return NULL;
    }
    return p;
}

/* Emits v with the path extended by key (when paths are tracked). */
static int emit_at(jq *q, jv *v, jv *path, jv *key, emit_fn k, void *kd)
{
    if (!path)
        return k(q, v, NULL, kd);
    jv *p = path_append(path, key);
    if (!p)
        return oom(q);
    int r = k(q, v, p, kd);
    jv_free(p);
    return r;
}

/* An integer from a number for indexing, clamped into range. */
static long to_index(double d)
{
    if (d != d)
        return 0;
    if (d > 1e15)
        return (long)1e15;
    if (d < -1e15)
        return (long)-1e15;
    return (long)floor(d);
}

static jv *indices_of(jq *q, jv *t, jv *k);

/* t[k] as jq defines it, or NULL with the error set. */
static jv *index_value(jq *q, jv *t, jv *k)
{
    if (t->kind == JK_OBJ && k->kind == JK_STR) {
        jv *v = obj_get(t, k->str, k->len);
        return checked(q, v ? jv_ref(v) : jv_new(JK_NULL));
    }
    if (t->kind == JK_ARR && k->kind == JK_NUM) {
        long i = to_index(k->num);
        if (i < 0)
            i += (long)t->n;
        if (i < 0 || (size_t)i >= t->n)
            return checked(q, jv_new(JK_NULL));
        return jv_ref(t->items[i]);
    }
    if (t->kind == JK_NULL && (k->kind == JK_STR || k->kind == JK_NUM || k->kind == JK_OBJ ||
                               k->kind == JK_NULL))
        return checked(q, jv_new(JK_NULL));
    if (t->kind == JK_ARR && k->kind == JK_ARR)
        return indices_of(q, t, k);
    if (k->kind == JK_OBJ && (t->kind == JK_ARR || t->kind == JK_STR)) {
        jv *from = obj_get(k, "start", 5), *to = obj_get(k, "end", 3);
        if (from && to) {
            jv *sl = NULL;
            long len = (long)(t->kind == JK_STR ? utf8_count(t->str, t->len) : t->n);
            double a = from->kind == JK_NUM ? from->num : 0;
            double b = to->kind == JK_NUM ? to->num : (double)len;
            long s = to_index(a), en = (long)ceil(b > 1e15 ? 1e15 : b < -1e15 ? -1e15 : b);
            if (s < 0)
                s += len;
            if (en < 0)
                en += len;
            s = s < 0 ? 0 : s > len ? len : s;
            en = en < s ? s : en > len ? len : en;
            if (t->kind == JK_STR) {
                size_t bs = utf8_offset(t->str, t->len, (size_t)s);
                size_t be = bs + utf8_offset(t->str + bs, t->len - bs, (size_t)(en - s));
                sl = jv_strn(t->str + bs, be - bs);
            } else if ((sl = jv_new(JK_ARR))) {
                for (long i = s; i < en; i++)
                    if (arr_push(sl, jv_ref(t->items[i])) < 0) {
                        jv_free(sl);
                        sl = NULL;
                        break;
                    }
            }
            return checked(q, sl);
        }
    }
    if (k->kind == JK_STR) {
        fail(q, "Cannot index %s with \"%s\"", kind_names[t->kind], k->str);
        return NULL;
    }
    fail(q, "Cannot index %s with %s", kind_names[t->kind], kind_names[k->kind]);
    return NULL;
}

/* ---- generic continuations */

/* A continuation that forwards to k while noting that an error came from
 * downstream (so try and // do not catch it). */
typedef struct guard {
    emit_fn k;
    void *kd;
    int downstream;
    int count;
    int truthy_only;
} guard;

static int guard_emit(jq *q, jv *v, jv *path, void *data)
{
    guard *g = data;
    if (g->truthy_only && !truthy(v))
        return 0;
    g->count++;
    int r = g->k(q, v, path, g->kd);
    if (r)
        g->downstream = 1;
    return r;
}

/* Collects outputs into an array (values, or their paths). */
typedef struct collect {
    jv *arr;
    int paths;
} collect;

static int collect_emit(jq *q, jv *v, jv *path, void *data)
{
    collect *c = data;
    if (arr_push(c->arr, jv_ref(c->paths ? path : v)) < 0)
        return oom(q);
    return 0;
}

/* Runs n and returns all its outputs in a new array (or their paths when
 * paths is set), or NULL with the error set. */
static jv *collect_all(jq *q, const node *n, const env *e, jv *in, int paths)
{
    collect c = { jv_new(JK_ARR), paths };
    if (!c.arr)
        return checked(q, NULL);
    jv *root = NULL;
    if (paths && !(root = jv_new(JK_ARR))) {
        jv_free(c.arr);
        return checked(q, NULL);
    }
    int r = eval(q, n, e, in, root, collect_emit, &c);
    jv_free(root);
    if (r) {
        jv_free(c.arr);
        if (r >= J_LABEL)
            fail(q, "break");
        return NULL;
    }
    return c.arr;
}

/* Keeps the first output and stops the generator with a private label. */
typedef struct first_out {
    jv *v;
    int label;
} first_out;

static int first_emit(jq *q, jv *v, jv *path, void *data)
{
    first_out *f = data;
    (void)q;
    (void)path;
    f->v = jv_ref(v);
    return f->label;
}

/* The first output of n on in (a new reference in *out, NULL when n produced
 * nothing): 0, or J_ERR / a label code. */
static int first_of(jq *q, const node *n, const env *e, jv *in, jv **out)
{
    first_out f = { NULL, q->next_label++ };
    int r = eval(q, n, e, in, NULL, first_emit, &f);
    *out = f.v;
    return r == f.label ? 0 : r;
}

/* Reports that a filter which cannot produce paths was asked for one. */
static int path_error_emit(jq *q, jv *v, jv *path, void *data)
{
    (void)path, (void)data;
    char b[32];
    return fail(q, "Invalid path expression with result %s", trunc_dump(b, v));
}

/* ---------------------------------------------------------------- operators */

/* Deep-merges object b into a (both borrowed): jq's object '*'. */
static jv *merge_deep(jv *a, jv *b)
{
    jv *r = jv_unshare(jv_ref(a));
    for (size_t i = 0; r && i < b->n; i++) {
        jv *old = obj_get(r, b->keys[i]->str, b->keys[i]->len);
        jv *val = old && old->kind == JK_OBJ && b->items[i]->kind == JK_OBJ
                      ? merge_deep(old, b->items[i])
                      : jv_ref(b->items[i]);
        if (obj_set(r, jv_ref(b->keys[i]), val) < 0) {
            jv_free(r);
            r = NULL;
        }
    }
    return r;
}

/* Splits string s at every occurrence of sep into a new array of strings. */
static jv *split_str(const jv *s, const jv *sep)
{
    jv *arr = jv_new(JK_ARR);
    if (!arr || s->len == 0)
        return arr;
    size_t start = 0;
    for (size_t i = 0; sep->len && i + sep->len <= s->len;) {
        if (memcmp(s->str + i, sep->str, sep->len) == 0) {
            if (arr_push(arr, jv_strn(s->str + start, i - start)) < 0)
                goto fail;
            i += sep->len;
            start = i;
        } else {
            i++;
        }
    }
    if (!sep->len) {
        /* An empty separator splits into single characters. */
        unsigned cp;
        for (size_t i = 0; i < s->len;) {
            size_t k = utf8_decode((const unsigned char *)s->str + i, s->len - i, &cp);
            if (arr_push(arr, jv_strn(s->str + i, k)) < 0)
                goto fail;
            i += k;
        }
        return arr;
    }
    if (arr_push(arr, jv_strn(s->str + start, s->len - start)) < 0)
        goto fail;
    return arr;
fail:
    jv_free(arr);
    return NULL;
}

/* Applies an arithmetic or comparison operator: a new value, or NULL with the
 * error set. */
static jv *binop(jq *q, int op, jv *a, jv *b)
{
    char ba[32], bb[32];
    const char *verb = "added";
    jv *r;
    switch (op) {
    case 'e': return checked(q, jv_bool(jv_cmp(a, b) == 0));
    case 'n': return checked(q, jv_bool(jv_cmp(a, b) != 0));
    case '<': return checked(q, jv_bool(jv_cmp(a, b) < 0));
    case 'l': return checked(q, jv_bool(jv_cmp(a, b) <= 0));
    case '>': return checked(q, jv_bool(jv_cmp(a, b) > 0));
    case 'g': return checked(q, jv_bool(jv_cmp(a, b) >= 0));
    case '+':
        if (a->kind == JK_NULL)
            return jv_ref(b);
        if (b->kind == JK_NULL)
            return jv_ref(a);
        if (a->kind != b->kind)
            break;
        if (a->kind == JK_NUM)
            return checked(q, jv_num(a->num + b->num));
        if (a->kind == JK_STR) {
            sh_buf s = { 0 };
            if (sh_buf_add(&s, a->str, a->len) < 0 || sh_buf_add(&s, b->str, b->len) < 0 ||
                sh_buf_addc(&s, 0) < 0) {
                sh_buf_free(&s);
                return checked(q, NULL);
            }
            s.len--;
            return checked(q, jv_str_buf(&s));
        }
        if (a->kind == JK_ARR || a->kind == JK_OBJ) {
            r = jv_unshare(jv_ref(a));
            for (size_t i = 0; r && i < b->n; i++) {
                int st = a->kind == JK_ARR ? arr_push(r, jv_ref(b->items[i]))
                                           : obj_set(r, jv_ref(b->keys[i]), jv_ref(b->items[i]));
                if (st < 0) {
                    jv_free(r);
                    r = NULL;
                }
            }
            return checked(q, r);
        }
        break;
    case '-':
        verb = "subtracted";
        if (a->kind == JK_NUM && b->kind == JK_NUM)
            return checked(q, jv_num(a->num - b->num));
        if (a->kind == JK_ARR && b->kind == JK_ARR) {
            r = jv_new(JK_ARR);
            for (size_t i = 0; r && i < a->n; i++) {
                size_t j = 0;
                while (j < b->n && jv_cmp(a->items[i], b->items[j]) != 0)
                    j++;
                if (j == b->n && arr_push(r, jv_ref(a->items[i])) < 0) {
                    jv_free(r);
                    r = NULL;
                }
            }
            return checked(q, r);
        }
        break;
    case '*':
        verb = "multiplied";
        if (a->kind == JK_NUM && b->kind == JK_NUM)
            return checked(q, jv_num(a->num * b->num));
        if ((a->kind == JK_STR && b->kind == JK_NUM) || (a->kind == JK_NUM && b->kind == JK_STR)) {
            jv *s = a->kind == JK_STR ? a : b;
            double times = a->kind == JK_NUM ? a->num : b->num;
            /* As jq 1.6: one copy plus (int)(times - 1) more; null when times <= 0. */
            if (times <= 0 || times != times)
                return checked(q, jv_new(JK_NULL));
            long n = times > 1e9 ? (long)1e9 : 1 + (long)(times - 1);
            if (s->len && (size_t)n > ((size_t)64 << 20) / s->len) {
                fail(q, "Repeat string result too long");
                return NULL;
            }
            sh_buf out = { 0 };
            for (long i = 0; i < n; i++)
                if (sh_buf_add(&out, s->str, s->len) < 0) {
                    sh_buf_free(&out);
                    return checked(q, NULL);
                }
            if (sh_buf_addc(&out, 0) < 0) {
                sh_buf_free(&out);
                return checked(q, NULL);
            }
            out.len--;
            return checked(q, jv_str_buf(&out));
        }
        if (a->kind == JK_OBJ && b->kind == JK_OBJ)
            return checked(q, merge_deep(a, b));
        break;
    case '/':
        verb = "divided";
        if (a->kind == JK_NUM && b->kind == JK_NUM) {
            if (b->num == 0) {
                fail(q, "%s (%s) and %s (%s) cannot be divided because the divisor is zero",
                     kind_names[a->kind], trunc_dump(ba, a), kind_names[b->kind], trunc_dump(bb, b));
                return NULL;
            }
            return checked(q, jv_num(a->num / b->num));
        }
        if (a->kind == JK_STR && b->kind == JK_STR)
            return checked(q, split_str(a, b));
        break;
    case '%':
        verb = "divided";
        if (a->kind == JK_NUM && b->kind == JK_NUM) {
            long long x = (long long)to_index(a->num), y = (long long)to_index(b->num);
            if (y == 0) {
                fail(q, "%s (%s) and %s (%s) cannot be divided (remainder) because the divisor is zero",
                     kind_names[a->kind], trunc_dump(ba, a), kind_names[b->kind], trunc_dump(bb, b));
                return NULL;
            }
            if (y < 0)
                y = -y;
            return checked(q, jv_num((double)(x % y)));
        }
        break;
    default:
        break;
    }
    fail(q, "%s (%s) and %s (%s) cannot be %s", kind_names[a->kind], trunc_dump(ba, a),
         kind_names[b->kind], trunc_dump(bb, b), verb);
    return NULL;
}

/* ---------------------------------------------------------------- paths */

/* The value at path in t (a new reference), or NULL with the error set. */
static jv *getpath(jq *q, jv *t, jv *path)
{
    jv *cur = jv_ref(t);
    for (size_t i = 0; cur && i < path->n; i++) {
        if (cur->kind == JK_NULL)
            return cur;
        jv *next = index_value(q, cur, path->items[i]);
        jv_free(cur);
        cur = next;
    }
    return cur;
}

/* Resolves a slice key {start, end} against a length into [*s, *e). */
static void slice_range(const jv *key, long len, long *s, long *e)
{
    jv *from = obj_get(key, "start", 5), *to = obj_get(key, "end", 3);
    long a = from && from->kind == JK_NUM ? to_index(from->num) : 0;
    long b = to && to->kind == JK_NUM ? (long)ceil(to->num > 1e15 ? 1e15 : to->num < -1e15 ? -1e15 : to->num) : len;
    if (a < 0)
        a += len;
    if (b < 0)
        b += len;
    a = a < 0 ? 0 : a > len ? len : a;
    b = b < a ? a : b > len ? len : b;
    *s = a;
    *e = b;
}

/* t (taken over) with the value at path[i..] replaced by v (borrowed); NULL
 * with the error set. */
static jv *setpath(jq *q, jv *t, jv *path, size_t i, jv *v)
{
    if (i == path->n) {
        jv_free(t);
        return jv_ref(v);
    }
    jv *key = path->items[i];
    if (t->kind == JK_NULL && (key->kind == JK_STR || key->kind == JK_NUM || key->kind == JK_OBJ)) {
        jv_free(t);
        if (!(t = jv_new(key->kind == JK_STR ? JK_OBJ : JK_ARR)))
            return checked(q, NULL);
    }
    if (key->kind == JK_STR && t->kind == JK_OBJ) {
        jv *child = obj_get(t, key->str, key->len);
        child = child ? jv_ref(child) : jv_new(JK_NULL);
        if (!(t = jv_unshare(t)) || !child) {
            jv_free(child);
            jv_free(t);
            return checked(q, NULL);
        }
        jv *nc = setpath(q, child, path, i + 1, v);
        if (!nc || obj_set(t, jv_ref(key), nc) < 0) {
            jv_free(t);
            return nc ? checked(q, NULL) : NULL;
        }
        return t;
    }
    if (key->kind == JK_NUM && t->kind == JK_ARR) {
        long idx = to_index(key->num);
        if (idx < 0)
            idx += (long)t->n;
        if (idx < 0) {
            jv_free(t);
            fail(q, "Out of bounds negative array index");
            return NULL;
        }
        if (idx > (long)(64 << 20)) {
            jv_free(t);
            fail(q, "Array index too large");
            return NULL;
        }
        if (!(t = jv_unshare(t)))
            return checked(q, NULL);
        while (t->n <= (size_t)idx)
            if (arr_push(t, jv_new(JK_NULL)) < 0) {
                jv_free(t);
                return checked(q, NULL);
            }
        jv *nc = setpath(q, jv_ref(t->items[idx]), path, i + 1, v);
        if (!nc) {
            jv_free(t);
            return NULL;
        }
        jv_free(t->items[idx]);
        t->items[idx] = nc;
        return t;
    }
    if (key->kind == JK_OBJ && t->kind == JK_ARR) {
        long s, e;
        slice_range(key, (long)t->n, &s, &e);
        jv *old = index_value(q, t, key);
        jv *nc = old ? setpath(q, old, path, i + 1, v) : NULL;
        if (!nc) {
            jv_free(t);
            return NULL;
        }
        if (nc->kind != JK_ARR) {
            jv_free(nc);
            jv_free(t);
            fail(q, "A slice of an array can only be assigned another array");
            return NULL;
        }
        jv *r = jv_new(JK_ARR);
        for (long k = 0; r && k < s; k++)
            if (arr_push(r, jv_ref(t->items[k])) < 0)
                r = NULL;
        for (size_t k = 0; r && k < nc->n; k++)
            if (arr_push(r, jv_ref(nc->items[k])) < 0)
                r = NULL;
        for (long k = e; r && k < (long)t->n; k++)
            if (arr_push(r, jv_ref(t->items[k])) < 0)
                r = NULL;
        jv_free(nc);
        jv_free(t);
        return checked(q, r);
    }
    if (key->kind == JK_STR)
        fail(q, "Cannot index %s with \"%s\"", kind_names[t->kind], key->str);
    else
        fail(q, "Cannot update field at object index of %s", kind_names[t->kind]);
    jv_free(t);
    return NULL;
}

/* t (taken over) without the value at path[i..]; NULL with the error set. */
static jv *delpath(jq *q, jv *t, jv *path, size_t i)
{
    if (i == path->n) {
        jv_free(t);
        return checked(q, jv_new(JK_NULL));
    }
    if (t->kind == JK_NULL)
        return t;
    jv *key = path->items[i];
    if (i + 1 < path->n) {
        jv *child = index_value(q, t, key);
        if (!child) {
            jv_free(t);
            return NULL;
        }
        if (child->kind == JK_NULL) {
            jv_free(child);
            return t;
        }
        jv *nc = delpath(q, child, path, i + 1);
        if (!nc) {
            jv_free(t);
            return NULL;
        }
        jv *one = jv_new(JK_ARR);
        jv *r = one && arr_push(one, jv_ref(key)) == 0 ? setpath(q, t, one, 0, nc)
                                                         : (jv_free(t), checked(q, NULL));
        jv_free(one);
        jv_free(nc);
        return r;
    }
    if (key->kind == JK_STR && t->kind == JK_OBJ) {
        long at = obj_find(t, key->str, key->len);
        if (at < 0)
            return t;
        if (!(t = jv_unshare(t)))
            return checked(q, NULL);
        jv_free(t->keys[at]);
        jv_free(t->items[at]);
        memmove(t->keys + at, t->keys + at + 1, (t->n - (size_t)at - 1) * sizeof *t->keys);
        memmove(t->items + at, t->items + at + 1, (t->n - (size_t)at - 1) * sizeof *t->items);
        t->n--;
        return t;
    }
    if ((key->kind == JK_NUM || key->kind == JK_OBJ) && t->kind == JK_ARR) {
        long s, e;
        if (key->kind == JK_NUM) {
            s = to_index(key->num);
            if (s < 0)
                s += (long)t->n;
            if (s < 0) {
                jv_free(t);
                fail(q, "Out of bounds negative array index");
                return NULL;
            }
            if (s >= (long)t->n)
                return t;
            e = s + 1;
        } else {
            slice_range(key, (long)t->n, &s, &e);
        }
        if (!(t = jv_unshare(t)))
            return checked(q, NULL);
        for (long k = s; k < e; k++)
            jv_free(t->items[k]);
        memmove(t->items + s, t->items + e, (t->n - (size_t)e) * sizeof *t->items);
        t->n -= (size_t)(e - s);
        return t;
    }
    if (key->kind == JK_STR)
        fail(q, "Cannot delete field at object index of %s", kind_names[t->kind]);
    else
        fail(q, "Cannot delete field at index of %s", kind_names[t->kind]);
    jv_free(t);
    return NULL;
}

static int value_cmp(const void *x, const void *y)
{
    return jv_cmp(*(jv *const *)x, *(jv *const *)y);
}

/* t (borrowed) without the values at the given paths, deepest and last first
 * so that earlier deletions do not move later ones. */
static jv *delpaths(jq *q, jv *t, jv *paths)
{
    if (paths->kind != JK_ARR) {
        fail(q, "Paths must be specified as an array");
        return NULL;
    }
    jv **sorted = malloc((paths->n ? paths->n : 1) * sizeof *sorted);
    if (!sorted)
        return checked(q, NULL);
    memcpy(sorted, paths->items, paths->n * sizeof *sorted);
    qsort(sorted, paths->n, sizeof *sorted, value_cmp);
    jv *r = jv_ref(t);
    for (size_t i = paths->n; r && i-- > 0;) {
        if (i + 1 < paths->n && jv_cmp(sorted[i], sorted[i + 1]) == 0)
            continue;
        if (sorted[i]->kind != JK_ARR) {
            jv_free(r);
            r = NULL;
            fail(q, "Path must be specified as an array");
        } else {
            r = delpath(q, r, sorted[i], 0);
        }
    }
    free(sorted);
    return r;
}

/* ---------------------------------------------------------------- the evaluator */

/* Continuation state shared by the binary forms: the node, environment, the
 * original input and path, the next continuation, and a value held between
 * the two operands. */
typedef struct step {
    jq *q;
    const node *n;
    const env *e;
    jv *in;
    jv *path;
    emit_fn k;
    void *kd;
    jv *held;
    const env *inner; /* foreach: the bindings of the current element */
} step;

static int pipe_emit(jq *q, jv *v, jv *path, void *data)
{
    step *s = data;
    return eval(q, s->n->b, s->e, v, path, s->k, s->kd);
}

/* Index: the key was computed (held); now the term. */
/* Drops the pending error (for the '?' forms): returns 0. */
static int drop_error(jq *q)
{
    jv_free(q->err);
    q->err = NULL;
    return 0;
}

static int index_term_emit(jq *q, jv *t, jv *path, void *data)
{
    step *s = data;
    jv *v = index_value(q, t, s->held);
    if (!v)
        return s->n->opt ? drop_error(q) : J_ERR;
    int r = emit_at(q, v, path, s->held, s->k, s->kd);
    jv_free(v);
    return r;
}

static int index_key_emit(jq *q, jv *key, jv *path, void *data)
{
    step *s = data;
    (void)path;
    step t = *s;
    t.held = key;
    return eval(q, s->n->a, s->e, s->in, s->path, index_term_emit, &t);
}

/* Slice: held is the {start, end} key. */
static int slice_term_emit(jq *q, jv *t, jv *path, void *data)
{
    step *s = data;
    if (t->kind == JK_NULL)
        return emit_at(q, t, path, s->held, s->k, s->kd);
    if (t->kind != JK_ARR && t->kind != JK_STR)
        return s->n->opt ? 0 : fail(q, "Cannot index %s with object", kind_names[t->kind]);
    jv *v = index_value(q, t, s->held);
    if (!v)
        return s->n->opt ? drop_error(q) : J_ERR;
    int r = emit_at(q, v, path, s->held, s->k, s->kd);
    jv_free(v);
    return r;
}

/* Emits every element of t (with its path). */
static int iterate(jq *q, jv *t, jv *path, emit_fn k, void *kd)
{
    char b[32];
    if (t->kind != JK_ARR && t->kind != JK_OBJ)
        return fail(q, "Cannot iterate over %s%s%s%s", kind_names[t->kind],
                    t->kind == JK_NULL ? "" : " (", t->kind == JK_NULL ? "" : trunc_dump(b, t),
                    t->kind == JK_NULL ? "" : ")");
    jv *hold = jv_ref(t);
    int r = 0;
    for (size_t i = 0; r == 0 && i < hold->n; i++) {
        jv *key = hold->kind == JK_OBJ ? jv_ref(hold->keys[i]) : (path ? jv_num((double)i) : NULL);
        if (path && !key) {
            r = oom(q);
            break;
        }
        r = emit_at(q, hold->items[i], path, key, k, kd);
        jv_free(key);
    }
    jv_free(hold);
    return r;
}

static int iter_emit(jq *q, jv *t, jv *path, void *data)
{
    step *s = data;
    if (s->n->opt && t->kind != JK_ARR && t->kind != JK_OBJ)
        return 0;
    return iterate(q, t, path, s->k, s->kd);
}

static int neg_emit(jq *q, jv *v, jv *path, void *data)
{
    step *s = data;
    (void)path;
    if (v->kind != JK_NUM)
        return fail_value(q, v, "cannot be negated");
    jv *r = jv_num(-v->num);
    if (!r)
        return oom(q);
    int st = s->k(q, r, NULL, s->kd);
    jv_free(r);
    return st;
}

/* Arithmetic: the right operand (held) is computed first, as jq does. */
static int arith_left_emit(jq *q, jv *a, jv *path, void *data)
{
    step *s = data;
    (void)path;
    jv *r = binop(q, s->n->binop, a, s->held);
    if (!r)
        return J_ERR;
    int st = s->k(q, r, NULL, s->kd);
    jv_free(r);
    return st;
}

static int emit_bool(jq *q, int b, emit_fn k, void *kd)
{
    jv *v = jv_bool(b);
    if (!v)
        return oom(q);
    int r = k(q, v, NULL, kd);
    jv_free(v);
    return r;
}

static int logic_right_emit(jq *q, jv *b, jv *path, void *data)
{
    step *s = data;
    (void)path;
    return emit_bool(q, truthy(b), s->k, s->kd);
}

static int logic_left_emit(jq *q, jv *a, jv *path, void *data)
{
    step *s = data;
    (void)path;
    int is_and = s->n->op == N_AND;
    if (truthy(a) != is_and)
        return emit_bool(q, !is_and, s->k, s->kd);
    return eval(q, s->n->b, s->e, s->in, NULL, logic_right_emit, s);
}

static int if_emit(jq *q, jv *c, jv *path, void *data)
{
    step *s = data;
    (void)path;
    const node *branch = truthy(c) ? s->n->b : s->n->c;
    if (!branch)
        return s->k(q, s->in, s->path, s->kd);
    return eval(q, branch, s->e, s->in, s->path, s->k, s->kd);
}

/* ---- patterns */

/* Counts the variables a pattern binds. */
static size_t pattern_vars(const node *p)
{
    if (p->op == N_PVAR)
        return 1;
    size_t n = 0;
    for (size_t i = 0; i < p->nargs; i++) {
        if (p->op == N_POBJ && i % 2 == 0) {
            if (p->args[i]->op == N_PVAR)
                n++;
            continue;
        }
        if (p->op == N_POBJ && p->args[i] == p->args[i - 1])
            continue;
        n += pattern_vars(p->args[i]);
    }
    return n;
}

/* Binds v to the pattern p, filling frames[*used...] (chained onto up);
 * returns the innermost binding, or NULL with the error set. */
static const env *bind_pattern(jq *q, const node *p, const env *e, const env *up, jv *v,
                               env *frames, size_t *used)
{
    if (p->op == N_PVAR) {
        env *f = &frames[(*used)++];
        *f = (env){ .up = up, .kind = E_VAR, .name = p->name, .val = jv_ref(v) };
        return f;
    }
    for (size_t i = 0; i < p->nargs && up; i += p->op == N_POBJ ? 2 : 1) {
        jv *part;
        const node *sub = p->args[p->op == N_POBJ ? i + 1 : i];
        if (p->op == N_PARR) {
            if (v->kind != JK_ARR && v->kind != JK_NULL) {
                fail(q, "Cannot index %s with number", kind_names[v->kind]);
                return NULL;
            }
            jv idx = { .kind = JK_NUM, .refs = 1, .num = (double)i };
            part = index_value(q, v, &idx);
        } else {
            const node *kn = p->args[i];
            jv *key;
            if (kn->op == N_PVAR) {
                key = jv_str(kn->name);
            } else if (first_of(q, kn, e, v, &key) != 0) {
                return NULL;
            }
            if (!key) {
                oom(q);
                return NULL;
            }
            if (key->kind != JK_STR) {
                jv_free(key);
                fail(q, "Cannot index %s with %s", kind_names[v->kind], "non-string key");
                return NULL;
            }
            part = index_value(q, v, key);
            jv_free(key);
            if (part && kn->op == N_PVAR) {
                up = bind_pattern(q, kn, e, up, part, frames, used);
                if (sub == kn) {
                    jv_free(part);
                    continue;
                }
            }
        }
        if (!part)
            return NULL;
        up = up ? bind_pattern(q, sub, e, up, part, frames, used) : NULL;
        jv_free(part);
    }
    return up;
}

/* The variables a pattern binds: one frame inline, more on the heap. */
typedef struct binding {
    env one;
    env *frames;
    size_t used;
} binding;

/* Binds v to pattern p on top of e: the new environment, or NULL with the
 * error set. unbind releases b either way. */
static const env *bind(jq *q, const node *p, const env *e, jv *v, binding *b)
{
    size_t nvars = pattern_vars(p);
    b->used = 0;
    b->frames = &b->one;
    if (nvars > 1 && !(b->frames = calloc(nvars, sizeof *b->frames))) {
        b->frames = &b->one;
        oom(q);
        return NULL;
    }
    return bind_pattern(q, p, e, e, v, b->frames, &b->used);
}

static void unbind(binding *b)
{
    for (size_t i = 0; i < b->used; i++)
        jv_free(b->frames[i].val);
    if (b->frames != &b->one)
        free(b->frames);
}

/* Binds v to pattern p and runs body with the new environment. */
static int with_pattern(jq *q, const node *p, const env *e, jv *v, const node *body, jv *in,
                        jv *path, emit_fn k, void *kd)
{
    binding b;
    const env *inner = bind(q, p, e, v, &b);
    int r = inner ? eval(q, body, inner, in, path, k, kd) : J_ERR;
    unbind(&b);
    return r;
}

static int as_emit(jq *q, jv *v, jv *path, void *data)
{
    step *s = data;
    (void)path;
    return with_pattern(q, s->n->d, s->e, v, s->n->b, s->in, s->path, s->k, s->kd);
}

/* ---- reduce and foreach */

/* The accumulator of reduce/foreach: replaced by the update's outputs. */
static int fold_update_emit(jq *q, jv *v, jv *path, void *data)
{
    step *s = data;
    (void)path;
    jv_free(s->held);
    s->held = jv_ref(v);
    if (s->n->op == N_REDUCE)
        return 0;
    if (s->n->e)
        return eval(q, s->n->e, s->inner, v, NULL, s->k, s->kd);
    return s->k(q, v, NULL, s->kd);
}

/* One element of the source: bind it, then run the update on the state. */
static int fold_item_emit(jq *q, jv *v, jv *path, void *data)
{
    step *s = data;
    (void)path;
    jv *state = s->held;
    s->held = NULL;
    jv *null_state = NULL;
    if (!state && !(state = null_state = jv_new(JK_NULL)))
        return oom(q);
    binding b;
    const env *saved = s->inner;
    int saved_consumed = q->consumed;
    s->inner = bind(q, s->n->d, s->e, v, &b);
    /* An update that is one assignment may modify the state in place (when
     * nothing else refers to it), instead of copying it for every element. */
    q->consumed = 0;
    q->consumable = s->n->c->op == N_ASSIGN && state->refs == 1 ? state : NULL;
    int r = s->inner ? eval(q, s->n->c, s->inner, state, NULL, fold_update_emit, s) : J_ERR;
    int consumed = q->consumed;
    q->consumable = NULL;
    q->consumed = saved_consumed;
    s->inner = saved;
    unbind(&b);
    if (!consumed)
        jv_free(state);
    return r;
}

static int fold_init_emit(jq *q, jv *init, jv *path, void *data)
{
    step *s = data;
    (void)path;
    step t = *s;
    t.held = jv_ref(init);
    int r = eval(q, s->n->a, s->e, s->in, NULL, fold_item_emit, &t);
    if (r == 0 && s->n->op == N_REDUCE) {
        jv *null_v = t.held ? NULL : jv_new(JK_NULL);
        if (!t.held && !null_v)
            r = oom(q);
        else
            r = s->k(q, t.held ? t.held : null_v, NULL, s->kd);
        jv_free(null_v);
    }
    jv_free(t.held);
    return r;
}

/* ---- arrays, objects and strings */

static int array_emit(jq *q, jv *v, jv *path, void *data)
{
    (void)path;
    if (arr_push(data, jv_ref(v)) < 0)
        return oom(q);
    return 0;
}

/* Object construction, one entry at a time: every combination of the
 * entries' keys and values makes one object (the first entry varies slowest). */
typedef struct objstep {
    const node *n;
    const env *e;
    jv *in;
    emit_fn k;
    void *kd;
    size_t i;  /* the entry being built */
    jv *obj;   /* the entries before it */
    jv *key;   /* its key */
} objstep;

static int object_key_emit(jq *q, jv *key, jv *path, void *data);

static int object_from(jq *q, const objstep *s)
{
    if (2 * s->i >= s->n->nargs)
        return s->k(q, s->obj, NULL, s->kd);
    objstep t = *s;
    return eval(q, s->n->args[2 * s->i], s->e, s->in, NULL, object_key_emit, &t);
}

static int object_value_emit(jq *q, jv *v, jv *path, void *data)
{
    const objstep *s = data;
    (void)path;
    jv *obj = jv_unshare(jv_ref(s->obj));
    if (!obj || obj_set(obj, jv_ref(s->key), jv_ref(v)) < 0) {
        jv_free(obj);
        return oom(q);
    }
    objstep t = *s;
    t.obj = obj;
    t.i++;
    int r = object_from(q, &t);
    jv_free(obj);
    return r;
}

static int object_key_emit(jq *q, jv *key, jv *path, void *data)
{
    const objstep *s = data;
    (void)path;
    char b[32];
    if (key->kind != JK_STR)
        return fail(q, "Object keys must be strings%s%s", key->kind == JK_NULL ? "" : ": ",
                    key->kind == JK_NULL ? "" : trunc_dump(b, key));
    objstep t = *s;
    t.key = key;
    return eval(q, s->n->args[2 * s->i + 1], s->e, s->in, NULL, object_value_emit, &t);
}

static jv *apply_format(jq *q, const char *fmt, jv *v);

/* String interpolation: parts are (literal, expression)* literal; the last
 * expression varies slowest, as in jq. */
typedef struct strstep {
    const node *n;
    const env *e;
    jv *in;
    emit_fn k;
    void *kd;
    size_t idx;   /* the expression being evaluated */
    jv **texts;   /* the texts of the expressions after it */
} strstep;

static int string_part_emit(jq *q, jv *v, jv *path, void *data);

static int string_from(jq *q, const strstep *s)
{
    if (s->idx > 0) {
        strstep t = *s;
        return eval(q, s->n->args[s->idx], s->e, s->in, NULL, string_part_emit, &t);
    }
    sh_buf b = { 0 };
    int st = 0;
    for (size_t i = 0; i < s->n->nargs && st == 0; i++) {
        jv *part = i % 2 ? s->texts[i] : s->n->args[i]->val;
        st = sh_buf_add(&b, part->str, part->len);
    }
    jv *r = st == 0 ? jv_str_buf(&b) : NULL;
    sh_buf_free(&b);
    if (!r)
        return oom(q);
    st = s->k(q, r, NULL, s->kd);
    jv_free(r);
    return st;
}

static int string_part_emit(jq *q, jv *v, jv *path, void *data)
{
    const strstep *s = data;
    (void)path;
    jv *text = s->n->name ? apply_format(q, s->n->name, v) : checked(q, jv_tostring(v));
    if (!text)
        return J_ERR;
    jv *saved = s->texts[s->idx];
    s->texts[s->idx] = text;
    strstep t = *s;
    t.idx = s->idx >= 2 ? s->idx - 2 : 0;
    int r = string_from(q, &t);
    s->texts[s->idx] = saved;
    jv_free(text);
    return r;
}

static int eval_string(jq *q, const node *n, const env *e, jv *in, emit_fn k, void *kd)
{
    jv **texts = calloc(n->nargs, sizeof *texts);
    if (!texts)
        return oom(q);
    strstep s = { n, e, in, k, kd, n->nargs - 2, texts };
    int r = string_from(q, &s);
    free(texts);
    return r;
}

/* ---- assignment */

/* Applies an assignment to every path in turn: for `|=` the first output of
 * the right side (or deletion when it has none, as jq 1.6), else rhs. When
 * owned, in is taken over (and modified in place if unshared). */
static jv *update_paths(jq *q, const node *n, const env *e, jv *in, jv *paths, jv *rhs,
                        int owned)
{
    jv *acc = owned ? in : jv_ref(in);
    for (size_t i = 0; acc && i < paths->n; i++) {
        jv *p = paths->items[i];
        jv *old = getpath(q, acc, p);
        if (!old) {
            jv_free(acc);
            return NULL;
        }
        jv *nv = NULL;
        int r = 0;
        switch (n->binop) {
        case '|':
            r = first_of(q, n->b, e, old, &nv);
            break;
        case '=':
            nv = jv_ref(rhs);
            break;
        case 'A':
            nv = jv_ref(truthy(old) ? old : rhs);
            break;
        default:
            nv = binop(q, n->binop, old, rhs);
            r = nv ? 0 : J_ERR;
            break;
        }
        jv_free(old);
        if (r) {
            if (r >= J_LABEL)
                fail(q, "break");
            jv_free(acc);
            return NULL;
        }
        if (!nv) {
            jv *one = jv_new(JK_ARR);
            if (!one || arr_push(one, jv_ref(p)) < 0) {
                jv_free(one);
                jv_free(acc);
                return checked(q, NULL);
            }
            jv *next = delpaths(q, acc, one);
            jv_free(one);
            jv_free(acc);
            acc = next;
        } else {
            acc = setpath(q, acc, p, 0, nv);
            jv_free(nv);
        }
    }
    return acc;
}

/* Runs an assignment: the paths of the left side (on the input), then for
 * `|=` one update, for the others one result per value of the right side
 * (computed on the input before anything changes). */
static int eval_assign(jq *q, const node *n, const env *e, jv *in, emit_fn k, void *kd)
{
    int take = q->consumable == in && in->refs == 1;
    q->consumable = NULL;
    jv *paths = collect_all(q, n->a, e, in, 1);
    if (!paths)
        return J_ERR;
    jv *rhs = NULL;
    if (n->binop != '|' && !(rhs = collect_all(q, n->b, e, in, 0))) {
        jv_free(paths);
        return J_ERR;
    }
    size_t count = rhs ? rhs->n : 1;
    take = take && count == 1;
    if (take)
        q->consumed = 1;
    int r = 0;
    for (size_t i = 0; r == 0 && i < count; i++) {
        jv *res = update_paths(q, n, e, in, paths, rhs ? rhs->items[i] : NULL, take);
        r = res ? k(q, res, NULL, kd) : J_ERR;
        jv_free(res);
    }
    jv_free(rhs);
    jv_free(paths);
    return r;
}

/* ---- function calls */

/* A native function: val computes one value from the input and the
 * arguments' values; gen emits any number of outputs; special gets the
 * unevaluated argument filters (for generators over filters, and paths). */
typedef struct native {
    const char *name;
    size_t nargs;
    jv *(*val)(jq *q, jv *in, jv **args);
    int (*gen)(jq *q, jv *in, jv **args, emit_fn k, void *kd);
    int (*special)(jq *q, const node *call, const env *e, jv *in, jv *path, emit_fn k, void *kd);
} native;

static const native *find_native(const char *name, size_t nargs);

/* The innermost function binding of name/arity visible from e, or NULL. */
static const env *lookup_func(const env *e, const char *name, size_t arity)
{
    for (; e; e = e->up)
        if ((e->kind == E_FUNC || e->kind == E_CLOSURE) && e->arity == arity &&
            strcmp(e->name, name) == 0)
            return e;
    return NULL;
}

static const env *lookup(const env *e, int kind, const char *name)
{
    for (; e; e = e->up)
        if (e->kind == kind && strcmp(e->name, name) == 0)
            return e;
    return NULL;
}

/* A call in progress: the arguments bound so far. */
typedef struct callstep {
    const native *nat;  /* a native's call, or NULL for a user function */
    const env *func;    /* the user function's binding */
    const node *call;
    const env *caller;
    jv *in;
    jv *path;
    emit_fn k;
    void *kd;
    size_t i;           /* the argument being bound */
    env *frames;        /* user functions: two per parameter */
    jv **vals;          /* natives: the argument values */
} callstep;

static int bind_args(jq *q, callstep *s);

static int arg_value_emit(jq *q, jv *v, jv *path, void *data)
{
    callstep *s = data;
    (void)path;
    callstep t = *s;
    if (s->nat) {
        s->vals[s->i] = v;
    } else {
        s->frames[2 * s->i].val = v;
    }
    t.i++;
    return bind_args(q, &t);
}

/* Binds arguments i.. of a call (every combination of the values of $-params
 * and native arguments, the first varying slowest), then runs the function. */
static int bind_args(jq *q, callstep *s)
{
    if (s->nat) {
        if (s->i < s->nat->nargs)
            return eval(q, s->call->args[s->i], s->caller, s->in, NULL, arg_value_emit, s);
        if (s->nat->val) {
            jv *r = s->nat->val(q, s->in, s->vals);
            if (!r)
                return J_ERR;
            int st = s->k(q, r, NULL, s->kd);
            jv_free(r);
            return st;
        }
        return s->nat->gen(q, s->in, s->vals, s->k, s->kd);
    }
    const node *def = s->func->def;
    if (s->i < def->nparams) {
        const char *param = def->params[s->i];
        env *var = &s->frames[2 * s->i], *clo = &s->frames[2 * s->i + 1];
        const env *up = s->i ? &s->frames[2 * s->i - 1] : s->func;
        int dollar = param[0] == '$';
        *clo = (env){ .up = up, .kind = E_CLOSURE, .name = param + dollar, .arity = 0,
                      .def = s->call->args[s->i], .scope = s->caller };
        if (!dollar) {
            *var = (env){ .up = up, .kind = E_NONE, .name = "" };
            callstep t = *s;
            t.i++;
            return bind_args(q, &t);
        }
        *var = (env){ .up = up, .kind = E_VAR, .name = param + 1 };
        clo->up = var;
        return eval(q, s->call->args[s->i], s->caller, s->in, NULL, arg_value_emit, s);
    }
    const env *top = def->nparams ? &s->frames[2 * def->nparams - 1] : s->func;
    return eval(q, def->a, top, s->in, s->path, s->k, s->kd);
}

static int call_bound(jq *q, const env *f, const node *n, const env *e, jv *in, jv *path,
                      emit_fn k, void *kd);

static int eval_call(jq *q, const node *n, const env *e, jv *in, jv *path, emit_fn k, void *kd)
{
    const env *f = lookup_func(e, n->name, n->nargs);
    if (f && f->kind == E_CLOSURE)
        return eval(q, f->def, f->scope, in, path, k, kd);
    if (f && f->def->nparams == 0)
        return eval(q, f->def->a, f, in, path, k, kd);
    return call_bound(q, f, n, e, in, path, k, kd);
}

/* Calls a function that takes arguments, or a native one. */
static NOINLINE int call_bound(jq *q, const env *f, const node *n, const env *e, jv *in,
                               jv *path, emit_fn k, void *kd)
{
    callstep s = { NULL, f, n, e, in, path, k, kd, 0, NULL, NULL };
    if (!f) {
        s.nat = find_native(n->name, n->nargs);
        if (!s.nat)
            return fail(q, "%s/%zu is not defined", n->name, n->nargs);
        if (s.nat->special)
            return s.nat->special(q, n, e, in, path, k, kd);
        if (path) {
            s.k = path_error_emit;
            s.path = NULL;
        }
        jv *vals[4] = { NULL, NULL, NULL, NULL };
        s.vals = vals;
        return bind_args(q, &s);
    }
    if (f->def->nparams && !(s.frames = calloc(2 * f->def->nparams, sizeof *s.frames)))
        return oom(q);
    int r = bind_args(q, &s);
    free(s.frames);
    return r;
}

/* Whether an operator can take part in a path expression. */
static int path_capable(int op)
{
    switch (op) {
    case N_IDENTITY: case N_INDEX: case N_SLICE: case N_ITER: case N_TRY: case N_PIPE:
    case N_COMMA: case N_ALT: case N_IF: case N_AS: case N_DEF: case N_CALL: case N_LABEL:
    case N_BREAK:
        return 1;
    default:
        return 0;
    }
}

/* Binary operators. The outer operand (the right one for arithmetic, the left
 * one for and/or, as in jq) is run to completion first, so that the inner one
 * does not run inside its continuation: with recursive filters on both sides
 * the C stack would otherwise grow with the size of the whole computation. */
static NOINLINE int eval_binary(jq *q, const node *n, const env *e, jv *in, emit_fn k,
                                void *kd)
{
    step st = { q, n, e, in, NULL, k, kd, NULL, NULL };
    step *s = &st;
    collect c = { jv_new(JK_ARR), 0 };
    if (!c.arr)
        return oom(q);
    int outer = eval(q, n->op == N_ARITH ? n->b : n->a, s->e, s->in, NULL, collect_emit, &c);
    jv *pending = q->err;
    q->err = NULL;
    int r = 0;
    for (size_t i = 0; r == 0 && i < c.arr->n; i++) {
        jv *v = c.arr->items[i];
        if (n->op == N_ARITH) {
            step t = *s;
            t.held = v;
            r = eval(q, n->a, s->e, s->in, NULL, arith_left_emit, &t);
        } else {
            r = logic_left_emit(q, v, NULL, s);
        }
    }
    jv_free(c.arr);
    if (r) {
        jv_free(pending);
        return r;
    }
    q->err = pending;
    return outer;
}

/* Emits one value made here (taken over). */
static int emit_new(jq *q, jv *v, emit_fn k, void *kd)
{
    if (!v)
        return J_ERR;
    int r = k(q, v, NULL, kd);
    jv_free(v);
    return r;
}

/* Runs filter n on input in: every output goes to k (with its path when path
 * is not NULL). Returns 0, J_ERR or a label code. */
/* Runs sub with a continuation that gets the node and environment (the forms
 * whose second part runs on each output of the first). Kept out of eval so
 * that eval's own stack frame, paid on every level of recursion, stays small. */
static NOINLINE int eval_via(jq *q, const node *n, const env *e, jv *in, jv *path, emit_fn k,
                             void *kd, const node *sub, jv *subpath, emit_fn via)
{
    step s = { q, n, e, in, path, k, kd, NULL, NULL };
    return eval(q, sub, e, in, subpath, via, &s);
}

/* .[from:to]: the bounds are computed first (their first outputs). */
static NOINLINE int eval_slice(jq *q, const node *n, const env *e, jv *in, jv *path, emit_fn k,
                               void *kd)
{
    jv *from = NULL, *to = NULL, *key = jv_new(JK_OBJ);
    if (!key)
        return oom(q);
    int r = n->b ? first_of(q, n->b, e, in, &from) : 0;
    if (r == 0 && n->c)
        r = first_of(q, n->c, e, in, &to);
    if (r == 0 && ((from && from->kind != JK_NUM && from->kind != JK_NULL) ||
                   (to && to->kind != JK_NUM && to->kind != JK_NULL)))
        r = fail(q, "Start and end indices of an array slice must be numbers");
    if (r == 0 && (obj_set(key, jv_str("start"), from ? jv_ref(from) : jv_new(JK_NULL)) < 0 ||
                   obj_set(key, jv_str("end"), to ? jv_ref(to) : jv_new(JK_NULL)) < 0))
        r = oom(q);
    jv_free(from);
    jv_free(to);
    step s = { q, n, e, in, path, k, kd, key, NULL };
    if (r == 0)
        r = eval(q, n->a, e, in, path, slice_term_emit, &s);
    jv_free(key);
    return r;
}

/* a // b, and try a catch b (or a? when b is NULL). */
static NOINLINE int eval_alt_try(jq *q, const node *n, const env *e, jv *in, jv *path,
                                 emit_fn k, void *kd)
{
    guard g = { k, kd, 0, 0, n->op == N_ALT };
    int r = eval(q, n->a, e, in, path, guard_emit, &g);
    if (n->op == N_ALT) /* jq 1.6 lets errors on the left through */
        return r || g.count ? r : eval(q, n->b, e, in, path, k, kd);
    if (r != J_ERR || g.downstream)
        return r;
    jv *err = q->err;
    q->err = NULL;
    if (!n->b) {
        jv_free(err);
        return 0;
    }
    if (!err && !(err = jv_str("out of memory")))
        return oom(q);
    r = eval(q, n->b, e, err, NULL, k, kd);
    jv_free(err);
    return r;
}

/* Definitions and labels: a binding for the rest of the filter. */
static NOINLINE int eval_binding(jq *q, const node *n, const env *e, jv *in, jv *path,
                                 emit_fn k, void *kd)
{
    if (n->op == N_DEF) {
        env f = { .up = e, .kind = E_FUNC, .name = n->name, .arity = n->nparams, .def = n };
        return eval(q, n->b, &f, in, path, k, kd);
    }
    env l = { .up = e, .kind = E_LABEL, .name = n->name, .label = q->next_label++ };
    int r = eval(q, n->a, &l, in, path, k, kd);
    return r == l.label ? 0 : r;
}

/* [f] and {...}. */
static NOINLINE int eval_construct(jq *q, const node *n, const env *e, jv *in, emit_fn k,
                                   void *kd)
{
    int r;
    if (n->op == N_OBJECT) {
        objstep o = { n, e, in, k, kd, 0, jv_new(JK_OBJ), NULL };
        if (!o.obj)
            return oom(q);
        r = object_from(q, &o);
        jv_free(o.obj);
        return r;
    }
    jv *arr = jv_new(JK_ARR);
    if (!arr)
        return oom(q);
    r = n->a ? eval(q, n->a, e, in, NULL, array_emit, arr) : 0;
    if (r == 0)
        r = k(q, arr, NULL, kd);
    jv_free(arr);
    return r;
}

/* Runs filter n on input in: every output goes to k (with its path when path
 * is not NULL). Returns 0, J_ERR or a label code. */
static int eval(jq *q, const node *n, const env *e, jv *in, jv *path, emit_fn k, void *kd)
{
    char here;
    uintptr_t at = (uintptr_t)&here;
    if ((at < q->stack_base ? q->stack_base - at : at - q->stack_base) > JQ_STACK_LIMIT)
        return fail(q, "Recursion too deep");
    if (path && !path_capable(n->op))
        return eval(q, n, e, in, NULL, path_error_emit, NULL);
    switch (n->op) {
    case N_IDENTITY:
        return k(q, in, path, kd);
    case N_LIT:
        return k(q, n->val, NULL, kd);
    case N_INDEX:
        return eval_via(q, n, e, in, path, k, kd, n->b, NULL, index_key_emit);
    case N_SLICE:
        return eval_slice(q, n, e, in, path, k, kd);
    case N_ITER:
        return eval_via(q, n, e, in, path, k, kd, n->a, path, iter_emit);
    case N_ALT:
    case N_TRY:
        return eval_alt_try(q, n, e, in, path, k, kd);
    case N_PIPE:
        return eval_via(q, n, e, in, path, k, kd, n->a, path, pipe_emit);
    case N_COMMA: {
        int r = eval(q, n->a, e, in, path, k, kd);
        return r ? r : eval(q, n->b, e, in, path, k, kd);
    }
    case N_NEG:
        return eval_via(q, n, e, in, path, k, kd, n->a, NULL, neg_emit);
    case N_ARITH:
    case N_AND:
    case N_OR:
        return eval_binary(q, n, e, in, k, kd);
    case N_ASSIGN:
        return eval_assign(q, n, e, in, k, kd);
    case N_IF:
        return eval_via(q, n, e, in, path, k, kd, n->a, NULL, if_emit);
    case N_REDUCE:
    case N_FOREACH:
        return eval_via(q, n, e, in, path, k, kd, n->b, NULL, fold_init_emit);
    case N_AS:
        return eval_via(q, n, e, in, path, k, kd, n->a, NULL, as_emit);
    case N_DEF:
    case N_LABEL:
        return eval_binding(q, n, e, in, path, k, kd);
    case N_CALL:
        return eval_call(q, n, e, in, path, k, kd);
    case N_VAR: {
        const env *v = lookup(e, E_VAR, n->name);
        return v ? k(q, v->val, NULL, kd) : fail(q, "$%s is not defined", n->name);
    }
    case N_FORMAT:
        return emit_new(q, apply_format(q, n->name, in), k, kd);
    case N_STR:
        return eval_string(q, n, e, in, k, kd);
    case N_ARRAY:
    case N_OBJECT:
        return eval_construct(q, n, e, in, k, kd);
    case N_BREAK: {
        const env *l = lookup(e, E_LABEL, n->name);
        return l ? l->label : fail(q, "$*label-%s is not defined", n->name);
    }
    default:
        return fail(q, "internal error: bad node");
    }
}

/* ---------------------------------------------------------------- builtins */

static jv *nat_length(jq *q, jv *in, jv **args)
{
    (void)args;
    switch (in->kind) {
    case JK_NULL: return checked(q, jv_num(0));
    case JK_NUM: return checked(q, jv_num(fabs(in->num)));
    case JK_STR: return checked(q, jv_num((double)utf8_count(in->str, in->len)));
    case JK_ARR:
    case JK_OBJ: return checked(q, jv_num((double)in->n));
    default: fail_value(q, in, "has no length"); return NULL;
    }
}

static jv *nat_utf8bytelength(jq *q, jv *in, jv **args)
{
    (void)args;
    if (in->kind != JK_STR) {
        fail_value(q, in, "only strings have UTF-8 byte length");
        return NULL;
    }
    return checked(q, jv_num((double)in->len));
}

static jv *nat_not(jq *q, jv *in, jv **args)
{
    (void)args;
    return checked(q, jv_bool(!truthy(in)));
}

/* keys (sorted) and keys_unsorted. */
static jv *keys_of(jq *q, jv *in, int sorted)
{
    if (in->kind != JK_OBJ && in->kind != JK_ARR) {
        fail_value(q, in, "has no keys");
        return NULL;
    }
    jv *r = jv_new(JK_ARR);
    for (size_t i = 0; r && i < in->n; i++)
        if (arr_push(r, in->kind == JK_OBJ ? jv_ref(in->keys[i]) : jv_num((double)i)) < 0)
            r = NULL;
    if (r && sorted && in->kind == JK_OBJ)
        qsort(r->items, r->n, sizeof *r->items, key_cmp);
    return checked(q, r);
}

static jv *nat_keys(jq *q, jv *in, jv **args)
{
    (void)args;
    return keys_of(q, in, 1);
}

static jv *nat_keys_unsorted(jq *q, jv *in, jv **args)
{
    (void)args;
    return keys_of(q, in, 0);
}

static jv *nat_has(jq *q, jv *in, jv **args)
{
    jv *k = args[0];
    if (in->kind == JK_OBJ && k->kind == JK_STR)
        return checked(q, jv_bool(obj_find(in, k->str, k->len) >= 0));
    if (in->kind == JK_ARR && k->kind == JK_NUM)
        return checked(q, jv_bool(k->num >= 0 && k->num < (double)in->n));
    fail(q, "Cannot check whether %s has a %s key", kind_names[in->kind], kind_names[k->kind]);
    return NULL;
}

/* jq's containment: substrings, sub-arrays (any order), sub-objects. */
static int contains(const jv *a, const jv *b)
{
    if (a->kind == JK_OBJ && b->kind == JK_OBJ) {
        for (size_t i = 0; i < b->n; i++) {
            jv *av = obj_get(a, b->keys[i]->str, b->keys[i]->len);
            if (!av || !contains(av, b->items[i]))
                return 0;
        }
        return 1;
    }
    if (a->kind == JK_ARR && b->kind == JK_ARR) {
        for (size_t i = 0; i < b->n; i++) {
            size_t j = 0;
            while (j < a->n && !contains(a->items[j], b->items[i]))
                j++;
            if (j == a->n)
                return 0;
        }
        return 1;
    }
    if (a->kind == JK_STR && b->kind == JK_STR) {
        if (b->len == 0)
            return 1;
        for (size_t i = 0; i + b->len <= a->len; i++)
            if (memcmp(a->str + i, b->str, b->len) == 0)
                return 1;
        return 0;
    }
    return jv_cmp(a, b) == 0;
}

static jv *nat_contains(jq *q, jv *in, jv **args)
{
    char b1[32], b2[32];
    if (in->kind != args[0]->kind && !((in->kind == JK_TRUE || in->kind == JK_FALSE) &&
                                       (args[0]->kind == JK_TRUE || args[0]->kind == JK_FALSE))) {
        fail(q, "%s (%s) and %s (%s) cannot have their containment checked",
             kind_names[in->kind], trunc_dump(b1, in), kind_names[args[0]->kind],
             trunc_dump(b2, args[0]));
        return NULL;
    }
    return checked(q, jv_bool(contains(in, args[0])));
}

static jv *nat_add(jq *q, jv *in, jv **args)
{
    (void)args;
    if (in->kind == JK_OBJ || in->kind == JK_ARR) {
        jv *acc = jv_new(JK_NULL);
        for (size_t i = 0; acc && i < in->n; i++) {
            jv *next = binop(q, '+', acc, in->items[i]);
            jv_free(acc);
            if (!next)
                return NULL;
            acc = next;
        }
        return checked(q, acc);
    }
    if (in->kind == JK_NULL)
        return checked(q, jv_new(JK_NULL));
    char b[32];
    fail(q, "Cannot iterate over %s (%s)", kind_names[in->kind], trunc_dump(b, in));
    return NULL;
}

static jv *nat_tostring(jq *q, jv *in, jv **args)
{
    (void)args;
    return checked(q, jv_tostring(in));
}

static jv *nat_tojson(jq *q, jv *in, jv **args)
{
    (void)args;
    return checked(q, jv_tojson(in));
}

static jv *nat_fromjson(jq *q, jv *in, jv **args)
{
    (void)args;
    char err[200];
    if (in->kind != JK_STR) {
        fail_value(q, in, "only strings can be parsed");
        return NULL;
    }
    jv *v = parse_json_text(in->str, in->len, err, sizeof err);
    if (!v)
        fail(q, "%s (while parsing '%s')", err, in->str);
    return v;
}

static jv *nat_tonumber(jq *q, jv *in, jv **args)
{
    (void)args;
    if (in->kind == JK_NUM)
        return jv_ref(in);
    if (in->kind == JK_STR) {
        char err[200];
        jv *v = parse_json_text(in->str, in->len, err, sizeof err);
        if (v && v->kind == JK_NUM)
            return v;
        jv_free(v);
        fail(q, "Invalid numeric literal at EOF at line 1, column %zu (while parsing '%s')",
             in->len, in->str);
        return NULL;
    }
    fail_value(q, in, "cannot be parsed as a number");
    return NULL;
}

static jv *nat_type(jq *q, jv *in, jv **args)
{
    (void)args;
    return checked(q, jv_str(kind_names[in->kind]));
}

static jv *nat_infinite(jq *q, jv *in, jv **args)
{
    (void)in, (void)args;
    return checked(q, jv_num(INFINITY));
}

static jv *nat_nan(jq *q, jv *in, jv **args)
{
    (void)in, (void)args;
    return checked(q, jv_num(NAN));
}

/* The number classifiers: isnan, isinfinite, isnormal. */
static jv *classify(jq *q, jv *in, int which)
{
    if (in->kind != JK_NUM) {
        fail_value(q, in, "number required");
        return NULL;
    }
    double d = in->num;
    int r = which == 0 ? d != d : which == 1 ? isinf(d) : isnormal(d);
    return checked(q, jv_bool(r));
}

static jv *nat_isnan(jq *q, jv *in, jv **args)
{
    (void)args;
    return classify(q, in, 0);
}

static jv *nat_isinfinite(jq *q, jv *in, jv **args)
{
    (void)args;
    return classify(q, in, 1);
}

static jv *nat_isnormal(jq *q, jv *in, jv **args)
{
    (void)args;
    return classify(q, in, 2);
}

/* An item with its sort key and position, for stable sorts. */
typedef struct keyed {
    jv *key, *item;
    size_t pos;
} keyed;

static int keyed_cmp(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    int r = jv_cmp(a->key, b->key);
    return r ? r : a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Sorts the array in by keys (an array as long, or NULL to sort by the
 * items): a new array of n keyed entries (borrowed pointers), or NULL. */
static keyed *sort_keyed(jq *q, jv *in, jv *keys, const char *what)
{
    if (in->kind != JK_ARR) {
        char b[32];
        fail(q, "%s (%s) cannot be %s, as it is not an array", kind_names[in->kind],
             trunc_dump(b, in), what);
        return NULL;
    }
    if (keys && (keys->kind != JK_ARR || keys->n != in->n)) {
        fail(q, "internal error: bad sort keys");
        return NULL;
    }
    keyed *k = malloc((in->n ? in->n : 1) * sizeof *k);
    if (!k) {
        oom(q);
        return NULL;
    }
    for (size_t i = 0; i < in->n; i++)
        k[i] = (keyed){ keys ? keys->items[i] : in->items[i], in->items[i], i };
    qsort(k, in->n, sizeof *k, keyed_cmp);
    return k;
}

/* sort, _sort_by_impl, unique (dedup set) and _group_by_impl (group set). */
static jv *sorted_array(jq *q, jv *in, jv *keys, int mode)
{
    keyed *k = sort_keyed(q, in, keys, mode == 2 ? "grouped" : "sorted");
    if (!k)
        return NULL;
    jv *r = jv_new(JK_ARR), *group = NULL;
    for (size_t i = 0; r && i < in->n; i++) {
        int same = i > 0 && jv_cmp(k[i - 1].key, k[i].key) == 0;
        if (mode == 1 && same)
            continue;
        if (mode == 2) {
            if (!same) {
                if (!(group = jv_new(JK_ARR)) || arr_push(r, group) < 0) {
                    jv_free(r);
                    r = NULL;
                    break;
                }
            }
            if (arr_push(group, jv_ref(k[i].item)) < 0) {
                jv_free(r);
                r = NULL;
            }
            continue;
        }
        if (arr_push(r, jv_ref(k[i].item)) < 0) {
            jv_free(r);
            r = NULL;
        }
    }
    free(k);
    return checked(q, r);
}

static jv *nat_sort(jq *q, jv *in, jv **args)
{
    (void)args;
    return sorted_array(q, in, NULL, 0);
}

static jv *nat_sort_by(jq *q, jv *in, jv **args)
{
    return sorted_array(q, in, args[0], 0);
}

static jv *nat_unique(jq *q, jv *in, jv **args)
{
    (void)args;
    return sorted_array(q, in, NULL, 1);
}

static jv *nat_group_by(jq *q, jv *in, jv **args)
{
    return sorted_array(q, in, args[0], 2);
}

/* min, max, _min_by_impl, _max_by_impl: ties go to the first minimum and the
 * last maximum. */
static jv *extreme(jq *q, jv *in, jv *keys, int want_max)
{
    if (in->kind != JK_ARR) {
        char b[32];
        fail(q, "%s (%s) cannot be searched for its %s, as it is not an array",
             kind_names[in->kind], trunc_dump(b, in), want_max ? "maximum" : "minimum");
        return NULL;
    }
    if (keys && (keys->kind != JK_ARR || keys->n != in->n)) {
        fail(q, "internal error: bad keys");
        return NULL;
    }
    if (in->n == 0)
        return checked(q, jv_new(JK_NULL));
    size_t best = 0;
    for (size_t i = 1; i < in->n; i++) {
        int c = jv_cmp(keys ? keys->items[i] : in->items[i], keys ? keys->items[best] : in->items[best]);
        if (want_max ? c >= 0 : c < 0)
            best = i;
    }
    return jv_ref(in->items[best]);
}

static jv *nat_min(jq *q, jv *in, jv **args)
{
    (void)args;
    return extreme(q, in, NULL, 0);
}

static jv *nat_max(jq *q, jv *in, jv **args)
{
    (void)args;
    return extreme(q, in, NULL, 1);
}

static jv *nat_min_by(jq *q, jv *in, jv **args)
{
    return extreme(q, in, args[0], 0);
}

static jv *nat_max_by(jq *q, jv *in, jv **args)
{
    return extreme(q, in, args[0], 1);
}

/* startswith, endswith, ltrimstr and rtrimstr. */
static jv *affix(jq *q, jv *in, jv *s, int end, int trim)
{
    if (in->kind != JK_STR || s->kind != JK_STR) {
        if (trim)
            return jv_ref(in);
        fail(q, "%s() requires string inputs", end ? "endswith" : "startswith");
        return NULL;
    }
    int match = s->len <= in->len &&
                memcmp(in->str + (end ? in->len - s->len : 0), s->str, s->len) == 0;
    if (!trim)
        return checked(q, jv_bool(match));
    if (!match)
        return jv_ref(in);
    return checked(q, jv_strn(in->str + (end ? 0 : s->len), in->len - s->len));
}

static jv *nat_startswith(jq *q, jv *in, jv **args)
{
    return affix(q, in, args[0], 0, 0);
}

static jv *nat_endswith(jq *q, jv *in, jv **args)
{
    return affix(q, in, args[0], 1, 0);
}

static jv *nat_ltrimstr(jq *q, jv *in, jv **args)
{
    return affix(q, in, args[0], 0, 1);
}

static jv *nat_rtrimstr(jq *q, jv *in, jv **args)
{
    return affix(q, in, args[0], 1, 1);
}

static jv *nat_explode(jq *q, jv *in, jv **args)
{
    (void)args;
    if (in->kind != JK_STR) {
        fail_value(q, in, "cannot be exploded");
        return NULL;
    }
    jv *r = jv_new(JK_ARR);
    unsigned cp;
    for (size_t i = 0; r && i < in->len;) {
        i += utf8_decode((const unsigned char *)in->str + i, in->len - i, &cp);
        if (arr_push(r, jv_num(cp)) < 0)
            r = NULL;
    }
    return checked(q, r);
}

static jv *nat_implode(jq *q, jv *in, jv **args)
{
    (void)args;
    if (in->kind != JK_ARR) {
        fail_value(q, in, "cannot be imploded");
        return NULL;
    }
    sh_buf b = { 0 };
    for (size_t i = 0; i < in->n; i++) {
        jv *c = in->items[i];
        if (c->kind != JK_NUM) {
            sh_buf_free(&b);
            fail(q, "Unicode codepoint must be numeric");
            return NULL;
        }
        double d = c->num;
        unsigned cp = d >= 0 && d <= 0x10ffff && !(d >= 0xd800 && d < 0xe000) ? (unsigned)d : 0xfffd;
        if (utf8_encode(&b, cp) < 0) {
            sh_buf_free(&b);
            return checked(q, NULL);
        }
    }
    return checked(q, jv_str_buf(&b));
}

static jv *nat_split(jq *q, jv *in, jv **args)
{
    if (in->kind != JK_STR || args[0]->kind != JK_STR) {
        fail(q, "split input and separator must be strings");
        return NULL;
    }
    return checked(q, split_str(in, args[0]));
}

static jv *nat_join(jq *q, jv *in, jv **args)
{
    jv *sep = args[0];
    if (in->kind != JK_ARR && in->kind != JK_OBJ) {
        char b[32];
        fail(q, "Cannot iterate over %s (%s)", kind_names[in->kind], trunc_dump(b, in));
        return NULL;
    }
    if (in->n == 0)
        return checked(q, jv_str(""));
    sh_buf b = { 0 };
    char num[64];
    for (size_t i = 0; i < in->n; i++) {
        jv *x = in->items[i];
        int st = 0;
        if (i) {
            if (sep->kind != JK_STR) {
                sh_buf_free(&b);
                char b1[32];
                fail(q, "string (\"\") and %s (%s) cannot be added", kind_names[sep->kind],
                     trunc_dump(b1, sep));
                return NULL;
            }
            st = sh_buf_add(&b, sep->str, sep->len);
        }
        if (x->kind == JK_STR)
            st = st ? st : sh_buf_add(&b, x->str, x->len);
        else if (x->kind == JK_NUM)
            fmt_num(num, x->num), st = st ? st : sh_buf_adds(&b, num);
        else if (x->kind == JK_TRUE || x->kind == JK_FALSE)
            st = st ? st : sh_buf_adds(&b, x->kind == JK_TRUE ? "true" : "false");
        else if (x->kind != JK_NULL) {
            sh_buf_free(&b);
            char b1[32];
            fail(q, "string (\"\") and %s (%s) cannot be added", kind_names[x->kind],
                 trunc_dump(b1, x));
            return NULL;
        }
        if (st) {
            sh_buf_free(&b);
            return checked(q, NULL);
        }
    }
    return checked(q, jv_str_buf(&b));
}

/* ascii_downcase and ascii_upcase. */
static jv *change_case(jq *q, jv *in, int up)
{
    if (in->kind != JK_STR) {
        fail_value(q, in, "cannot be case-converted");
        return NULL;
    }
    jv *r = jv_strn(in->str, in->len);
    for (size_t i = 0; r && i < r->len; i++) {
        char c = r->str[i];
        if (up && c >= 'a' && c <= 'z')
            r->str[i] = (char)(c - 32);
        else if (!up && c >= 'A' && c <= 'Z')
            r->str[i] = (char)(c + 32);
    }
    return checked(q, r);
}

static jv *nat_downcase(jq *q, jv *in, jv **args)
{
    (void)args;
    return change_case(q, in, 0);
}

static jv *nat_upcase(jq *q, jv *in, jv **args)
{
    (void)args;
    return change_case(q, in, 1);
}

/* The one-argument math functions, by name. */
static const struct {
    const char *name;
    double (*fn)(double);
} math1[] = {
    { "floor", floor }, { "ceil", ceil }, { "round", round }, { "sqrt", sqrt },
    { "fabs", fabs }, { "log", log }, { "log2", log2 }, { "log10", log10 }, { "exp", exp },
    { "exp2", exp2 }, { "sin", sin }, { "cos", cos }, { "tan", tan }, { "asin", asin },
    { "acos", acos }, { "atan", atan }, { "trunc", trunc }, { "cbrt", cbrt },
    { "significand", NULL }, { NULL, NULL },
};

static jv *math_apply(jq *q, jv *in, const char *name)
{
    if (in->kind != JK_NUM) {
        fail_value(q, in, "number required");
        return NULL;
    }
    for (int i = 0; math1[i].name; i++)
        if (strcmp(math1[i].name, name) == 0 && math1[i].fn)
            return checked(q, jv_num(math1[i].fn(in->num)));
    return checked(q, jv_num(in->num));
}

#define MATH_NATIVE(fname)                                   \
    static jv *nat_##fname(jq *q, jv *in, jv **args)         \
    {                                                        \
        (void)args;                                          \
        return math_apply(q, in, #fname);                    \
    }
MATH_NATIVE(floor)
MATH_NATIVE(ceil)
MATH_NATIVE(round)
MATH_NATIVE(sqrt)
MATH_NATIVE(fabs)
MATH_NATIVE(log)
MATH_NATIVE(log2)
MATH_NATIVE(log10)
MATH_NATIVE(exp)
MATH_NATIVE(exp2)
MATH_NATIVE(sin)
MATH_NATIVE(cos)
MATH_NATIVE(tan)
MATH_NATIVE(asin)
MATH_NATIVE(acos)
MATH_NATIVE(atan)
MATH_NATIVE(trunc)
MATH_NATIVE(cbrt)

static jv *nat_exp10(jq *q, jv *in, jv **args)
{
    (void)args;
    if (in->kind != JK_NUM) {
        fail_value(q, in, "number required");
        return NULL;
    }
    return checked(q, jv_num(pow(10, in->num)));
}

static jv *nat_pow(jq *q, jv *in, jv **args)
{
    (void)in;
    if (args[0]->kind != JK_NUM || args[1]->kind != JK_NUM) {
        fail(q, "pow/2 requires numbers");
        return NULL;
    }
    return checked(q, jv_num(pow(args[0]->num, args[1]->num)));
}

static jv *nat_atan2(jq *q, jv *in, jv **args)
{
    (void)in;
    if (args[0]->kind != JK_NUM || args[1]->kind != JK_NUM) {
        fail(q, "atan2/2 requires numbers");
        return NULL;
    }
    return checked(q, jv_num(atan2(args[0]->num, args[1]->num)));
}

static jv *nat_setpath(jq *q, jv *in, jv **args)
{
    if (args[0]->kind != JK_ARR) {
        fail(q, "Path must be specified as an array");
        return NULL;
    }
    if (args[0]->n > JQ_MAX_DEPTH) {
        fail(q, "Path too long");
        return NULL;
    }
    return setpath(q, jv_ref(in), args[0], 0, args[1]);
}

static jv *nat_delpaths(jq *q, jv *in, jv **args)
{
    return delpaths(q, in, args[0]);
}

/* indices: of a substring (byte offsets as jq 1.6), an element or a
 * sub-array. */
static jv *indices_of(jq *q, jv *t, jv *k)
{
    jv *r = jv_new(JK_ARR);
    if (!r)
        return checked(q, NULL);
    if (t->kind == JK_NULL) {
        jv_free(r);
        return checked(q, jv_new(JK_NULL));
    }
    if (t->kind == JK_STR && k->kind == JK_STR) {
        for (size_t i = 0; k->len && i + k->len <= t->len; i++)
            if (memcmp(t->str + i, k->str, k->len) == 0 && arr_push(r, jv_num((double)i)) < 0) {
                jv_free(r);
                return checked(q, NULL);
            }
        return r;
    }
    if (t->kind == JK_ARR) {
        jv one = { 0 };
        jv *items[1] = { k };
        if (k->kind != JK_ARR) {
            one.kind = JK_ARR, one.refs = 1, one.items = items, one.n = 1;
            k = &one;
        }
        for (size_t i = 0; k->n && i + k->n <= t->n; i++) {
            size_t j = 0;
            while (j < k->n && jv_cmp(t->items[i + j], k->items[j]) == 0)
                j++;
            if (j == k->n && arr_push(r, jv_num((double)i)) < 0) {
                jv_free(r);
                return checked(q, NULL);
            }
        }
        return r;
    }
    jv_free(r);
    fail(q, "Cannot determine indices of %s in %s", kind_names[k->kind], kind_names[t->kind]);
    return NULL;
}

static jv *nat_indices(jq *q, jv *in, jv **args)
{
    return indices_of(q, in, args[0]);
}

/* flatten(depth): nested arrays spliced up to depth levels. */
static int flatten_into(jv *out, jv *a, double depth)
{
    for (size_t i = 0; i < a->n; i++) {
        jv *x = a->items[i];
        if (x->kind == JK_ARR && depth > 0) {
            if (flatten_into(out, x, depth - 1) < 0)
                return -1;
        } else if (arr_push(out, jv_ref(x)) < 0) {
            return -1;
        }
    }
    return 0;
}

static jv *nat_flatten(jq *q, jv *in, jv **args)
{
    if (args[0]->kind != JK_NUM) {
        fail(q, "flatten depth must not be negative");
        return NULL;
    }
    if (args[0]->num < 0) {
        fail(q, "flatten depth must not be negative");
        return NULL;
    }
    if (in->kind != JK_ARR) {
        char b[32];
        fail(q, "Cannot iterate over %s (%s)", kind_names[in->kind], trunc_dump(b, in));
        return NULL;
    }
    jv *r = jv_new(JK_ARR);
    if (r && flatten_into(r, in, args[0]->num) < 0) {
        jv_free(r);
        r = NULL;
    }
    return checked(q, r);
}

static jv *nat_env(jq *q, jv *in, jv **args)
{
    (void)in, (void)args;
    jv *o = jv_new(JK_OBJ);
    char **envp = sh_environ(q->p);
    for (size_t i = 0; o && envp && envp[i]; i++) {
        const char *eq = strchr(envp[i], '=');
        if (!eq)
            continue;
        if (obj_set(o, jv_strn(envp[i], (size_t)(eq - envp[i])), jv_str(eq + 1)) < 0) {
            jv_free(o);
            o = NULL;
        }
    }
    return checked(q, o);
}

static jv *nat_format(jq *q, jv *in, jv **args)
{
    if (args[0]->kind != JK_STR) {
        fail_value(q, args[0], "is not a valid format");
        return NULL;
    }
    return apply_format(q, args[0]->str, in);
}

static jv *nat_now(jq *q, jv *in, jv **args)
{
    (void)in, (void)args;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return checked(q, jv_num((double)ts.tv_sec + ts.tv_nsec / 1e9));
}

/* ---- dates (always UTC) */

/* Fills tm from seconds since the epoch. */
static void to_tm(double t, struct tm *tm)
{
    long long secs = (long long)floor(t);
    long long days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
    long long rem = secs - days * 86400;
    long long z = days + 719468;
    long long era = (z >= 0 ? z : z - 146096) / 146097;
    long long doe = z - era * 146097;
    long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long y = yoe + era * 400;
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long long mp = (5 * doy + 2) / 153;
    long long d = doy - (153 * mp + 2) / 5 + 1;
    long long m = mp < 10 ? mp + 3 : mp - 9;
    y += m <= 2;
    memset(tm, 0, sizeof *tm);
    tm->tm_year = (int)(y - 1900);
    tm->tm_mon = (int)(m - 1);
    tm->tm_mday = (int)d;
    tm->tm_hour = (int)(rem / 3600);
    tm->tm_min = (int)(rem / 60 % 60);
    tm->tm_sec = (int)(rem % 60);
    tm->tm_wday = (int)(((days % 7) + 11) % 7);
    tm->tm_yday = (int)(days - sh_days_from_civil(y, 1, 1));
}

/* A broken-down time as jq's array [year, month0, mday, h, m, s, wday, yday]. */
static jv *tm_to_array(const struct tm *tm, double frac)
{
    double parts[8] = { tm->tm_year + 1900.0, tm->tm_mon, tm->tm_mday, tm->tm_hour,
                        tm->tm_min, tm->tm_sec + frac, tm->tm_wday, tm->tm_yday };
    jv *r = jv_new(JK_ARR);
    for (int i = 0; r && i < 8; i++)
        if (arr_push(r, jv_num(parts[i])) < 0)
            r = NULL;
    return r;
}

/* Reads jq's broken-down time array into tm: 0, or -1 with the error set. */
static int array_to_tm(jq *q, jv *a, struct tm *tm, const char *who)
{
    if (a->kind != JK_ARR || a->n < 6) {
        fail(q, "%s requires array of 6 numbers", who);
        return -1;
    }
    int f[8] = { 0 };
    for (size_t i = 0; i < a->n && i < 8; i++) {
        if (a->items[i]->kind != JK_NUM) {
            fail(q, "%s requires parsed datetime inputs", who);
            return -1;
        }
        double d = a->items[i]->num;
        f[i] = d > 1e9 ? 1000000000 : d < -1e9 ? -1000000000 : (int)d;
    }
    memset(tm, 0, sizeof *tm);
    tm->tm_year = f[0] - 1900;
    tm->tm_mon = f[1];
    tm->tm_mday = f[2];
    tm->tm_hour = f[3];
    tm->tm_min = f[4];
    tm->tm_sec = f[5];
    tm->tm_wday = f[6];
    tm->tm_yday = f[7];
    return 0;
}

static double tm_to_secs(const struct tm *tm)
{
    long long y = tm->tm_year + 1900LL + tm->tm_mon / 12, m = tm->tm_mon % 12;
    if (m < 0)
        m += 12, y--;
    return (double)(sh_days_from_civil(y, m + 1, 1) + tm->tm_mday - 1) * 86400.0 +
           tm->tm_hour * 3600.0 + tm->tm_min * 60.0 + tm->tm_sec;
}

static jv *nat_gmtime(jq *q, jv *in, jv **args)
{
    (void)args;
    if (in->kind != JK_NUM) {
        fail(q, "gmtime() requires a number");
        return NULL;
    }
    struct tm tm;
    double t = in->num > 1e15 ? 1e15 : in->num < -1e15 ? -1e15 : in->num;
    to_tm(t, &tm);
    return checked(q, tm_to_array(&tm, t - floor(t)));
}

static jv *nat_mktime(jq *q, jv *in, jv **args)
{
    (void)args;
    struct tm tm;
    if (in->kind != JK_ARR) {
        fail(q, "mktime requires array of 6 numbers");
        return NULL;
    }
    if (array_to_tm(q, in, &tm, "mktime") < 0)
        return NULL;
    return checked(q, jv_num(tm_to_secs(&tm)));
}

static jv *nat_strftime(jq *q, jv *in, jv **args)
{
    struct tm tm;
    if (in->kind == JK_NUM) {
        to_tm(in->num > 1e15 ? 1e15 : in->num < -1e15 ? -1e15 : in->num, &tm);
    } else if (in->kind != JK_ARR) {
        fail(q, "strftime/1 requires parsed datetime inputs");
        return NULL;
    } else if (array_to_tm(q, in, &tm, "strftime/1") < 0) {
        return NULL;
    }
    if (args[0]->kind != JK_STR) {
        fail(q, "strftime/1 requires a string format");
        return NULL;
    }
    /* Times are UTC here: %Z is "UTC" and %z "+0000" (wasi-libc's strftime has
       no zone names). */
    sh_buf fmt = { 0 };
    for (const char *c = args[0]->str; *c; c++) {
        if (c[0] == '%' && (c[1] == 'Z' || c[1] == 'z')) {
            sh_buf_adds(&fmt, c[1] == 'Z' ? "UTC" : "+0000");
            c++;
        } else if (c[0] == '%' && c[1] == '%') {
            sh_buf_adds(&fmt, "%%");
            c++;
        } else {
            sh_buf_addc(&fmt, *c);
        }
    }
    const char *f = sh_buf_cstr(&fmt);
    if (!f) {
        sh_buf_free(&fmt);
        fail(q, "out of memory");
        return NULL;
    }
    char buf[512];
    size_t n = strftime(buf, sizeof buf, f, &tm);
    sh_buf_free(&fmt);
    if (n == 0 && args[0]->len) {
        fail(q, "strftime/1: unknown system failure");
        return NULL;
    }
    return checked(q, jv_strn(buf, n));
}

static jv *nat_strptime(jq *q, jv *in, jv **args)
{
    if (in->kind != JK_STR || args[0]->kind != JK_STR) {
        fail(q, "strptime/1 requires string inputs and arguments");
        return NULL;
    }
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(in->str, args[0]->str, &tm);
    if (!end || *end) {
        fail(q, "date \"%s\" does not match format \"%s\"", in->str, args[0]->str);
        return NULL;
    }
    /* Recompute the weekday and day of the year, as jq does. */
    struct tm norm;
    to_tm(tm_to_secs(&tm), &norm);
    tm.tm_wday = norm.tm_wday;
    tm.tm_yday = norm.tm_yday;
    return checked(q, tm_to_array(&tm, 0));
}

/* ---- regular expressions */

/* A compiled expression with the names of its groups (NULL for unnamed). */
typedef struct jq_regex {
    regex_t re;
    size_t ngroups;
    char **names;
    int global;
} jq_regex;

static void regex_free(jq_regex *r)
{
    regfree(&r->re);
    for (size_t i = 0; i < r->ngroups; i++)
        free(r->names[i]);
    free(r->names);
}

/* Translates jq's regex syntax to POSIX ERE and compiles it: 0, or -1 with the
 * error set. */
static int regex_compile(jq *q, jq_regex *r, jv *re, jv *flags)
{
    int cflags = REG_EXTENDED, extended = 0;
    memset(r, 0, sizeof *r);
    if (flags && flags->kind == JK_STR) {
        for (size_t i = 0; i < flags->len; i++) {
            switch (flags->str[i]) {
            case 'g': r->global = 1; break;
            case 'i': cflags |= REG_ICASE; break;
            case 'x': extended = 1; break;
            case 'n': case 's': case 'l': case 'p': break;
            default:
                fail(q, "%s is not a valid modifier string", flags->str);
                return -1;
            }
        }
    } else if (flags && flags->kind != JK_NULL) {
        fail_value(q, flags, "is not a string");
        return -1;
    }
    sh_buf b = { 0 };
    int in_bracket = 0, st = 0;
    const char *s = re->str;
    size_t start = 0;
    if (re->len >= 4 && memcmp(s, "(?i)", 4) == 0) {
        cflags |= REG_ICASE;
        start = 4;
    }
    for (size_t i = start; i < re->len && st == 0; i++) {
        char c = s[i];
        if (extended && !in_bracket && (isspace((unsigned char)c) || c == '#')) {
            if (c == '#')
                while (i + 1 < re->len && s[i + 1] != '\n')
                    i++;
            continue;
        }
        if (c == '\\' && i + 1 < re->len) {
            char d = s[++i];
            int cls = sh_rx_class(&b, d, in_bracket);
            if (cls) {
                st = cls < 0 ? -1 : 0;
                continue;
            }
            const char *lit = d == 'n' ? "\n" : d == 't' ? "\t" : d == 'r' ? "\r" : NULL;
            if (lit)
                st = sh_buf_adds(&b, lit);
            else if (in_bracket)
                st = d == '\\' ? sh_buf_adds(&b, "\\") : sh_buf_addc(&b, d);
            else if (isalnum((unsigned char)d))
                st = sh_buf_addc(&b, d);
            else
                st = sh_buf_addc(&b, '\\') ? -1 : sh_buf_addc(&b, d);
            continue;
        }
        if (in_bracket) {
            if (c == ']' && !(i > 0 && (s[i - 1] == '[' || (s[i - 1] == '^' && s[i - 2] == '['))))
                in_bracket = 0;
            st = sh_buf_addc(&b, c);
            continue;
        }
        if (c == '[') {
            in_bracket = 1;
            st = sh_buf_addc(&b, c);
            if (i + 1 < re->len && s[i + 1] == '^')
                st = sh_buf_addc(&b, s[++i]);
            if (i + 1 < re->len && s[i + 1] == ']')
                st = sh_buf_addc(&b, s[++i]);
            continue;
        }
        if (c == '(') {
            char *name = NULL;
            if (i + 2 < re->len && s[i + 1] == '?' && s[i + 2] == '<' &&
                (i + 3 >= re->len || (s[i + 3] != '=' && s[i + 3] != '!'))) {
                size_t j = i + 3;
                while (j < re->len && s[j] != '>')
                    j++;
                name = malloc(j - i - 2);
                if (name) {
                    memcpy(name, s + i + 3, j - i - 3);
                    name[j - i - 3] = 0;
                }
                i = j;
            } else if (i + 2 < re->len && s[i + 1] == '?' && s[i + 2] == ':') {
                i += 2; /* a non-capturing group captures here: hidden from captures */
                name = strdup("");
            }
            char **names = realloc(r->names, (r->ngroups + 1) * sizeof *names);
            if (!names) {
                free(name);
                st = -1;
                break;
            }
            r->names = names;
            r->names[r->ngroups++] = name;
        }
        if ((c == '?' || c == '+') && i > 0 && (s[i - 1] == '*' || s[i - 1] == '+' ||
                                                s[i - 1] == '?' || s[i - 1] == '}'))
            continue; /* lazy and possessive quantifiers: greedy here */
        st = sh_buf_addc(&b, c);
    }
    char *pat = st == 0 ? sh_buf_cstr(&b) : NULL;
    if (!pat) {
        sh_buf_free(&b);
        regex_free(r);
        oom(q);
        return -1;
    }
    int rc = regcomp(&r->re, pat, cflags);
    sh_buf_free(&b);
    if (rc) {
        char msg[128];
        regerror(rc, &r->re, msg, sizeof msg);
        for (size_t i = 0; i < r->ngroups; i++)
            free(r->names[i]);
        free(r->names);
        fail(q, "%s (at offset 0) is not a valid regex: %s", re->str, msg);
        return -1;
    }
    return 0;
}

/* The match object jq builds for one match (offsets in code points). */
static jv *match_object(const char *s, const regmatch_t *m, const jq_regex *r)
{
    jv *o = jv_new(JK_OBJ), *caps = jv_new(JK_ARR);
    if (!o || !caps)
        goto fail;
    for (size_t g = 0; g <= r->ngroups; g++) {
        const char *name = g ? r->names[g - 1] : NULL;
        if (g && name && !name[0])
            continue;
        jv *c = g ? jv_new(JK_OBJ) : o;
        if (!c)
            goto fail;
        int ok;
        if (m[g].rm_so < 0) {
            ok = obj_set(c, jv_str("offset"), jv_num(-1)) == 0 &&
                 obj_set(c, jv_str("string"), jv_new(JK_NULL)) == 0 &&
                 obj_set(c, jv_str("length"), jv_num(0)) == 0;
        } else {
            size_t so = (size_t)m[g].rm_so, eo = (size_t)m[g].rm_eo;
            ok = obj_set(c, jv_str("offset"), jv_num((double)utf8_count(s, so))) == 0 &&
                 obj_set(c, jv_str("length"), jv_num((double)utf8_count(s + so, eo - so))) == 0 &&
                 obj_set(c, jv_str("string"), jv_strn(s + so, eo - so)) == 0;
        }
        if (ok && g)
            ok = obj_set(c, jv_str("name"), name ? jv_str(name) : jv_new(JK_NULL)) == 0 &&
                 arr_push(caps, c) == 0;
        else if (g && !ok)
            jv_free(c);
        if (!ok)
            goto fail;
    }
    if (obj_set(o, jv_str("captures"), caps) < 0) {
        jv_free(o);
        return NULL;
    }
    return o;
fail:
    jv_free(o);
    jv_free(caps);
    return NULL;
}

/* _match_impl(re; flags; test): all matches (or whether one exists). */
static jv *nat_match(jq *q, jv *in, jv **args)
{
    if (in->kind != JK_STR) {
        fail_value(q, in, "cannot be matched, as it is not a string");
        return NULL;
    }
    if (args[0]->kind != JK_STR) {
        fail_value(q, args[0], "is not a string");
        return NULL;
    }
    jq_regex r;
    if (regex_compile(q, &r, args[0], args[1]) < 0)
        return NULL;
    int test = truthy(args[2]);
    regmatch_t *m = calloc(r.ngroups + 1, sizeof *m);
    jv *res = m ? (test ? NULL : jv_new(JK_ARR)) : NULL;
    int found = 0, failed = !m || (!test && !res);
    size_t pos = 0;
    while (!failed && pos <= in->len) {
        if (regexec(&r.re, in->str + pos, r.ngroups + 1, m, pos ? REG_NOTBOL : 0) != 0)
            break;
        found = 1;
        if (test)
            break;
        for (size_t g = 0; g <= r.ngroups; g++)
            if (m[g].rm_so >= 0)
                m[g].rm_so += (regoff_t)pos, m[g].rm_eo += (regoff_t)pos;
        if (arr_push(res, match_object(in->str, m, &r)) < 0)
            failed = 1;
        if (!r.global)
            break;
        size_t next = (size_t)m[0].rm_eo;
        if (m[0].rm_eo == m[0].rm_so && next < in->len) {
            unsigned cp;
            next += utf8_decode((const unsigned char *)in->str + next, in->len - next, &cp);
        }
        /* As jq 1.6: no further search once the end is reached. */
        if (next >= in->len)
            break;
        pos = next;
    }
    free(m);
    regex_free(&r);
    if (failed) {
        jv_free(res);
        return checked(q, NULL);
    }
    return test ? checked(q, jv_bool(found)) : res;
}

/* ---- formats */

static int format_csv_tsv(jq *q, sh_buf *b, jv *in, int tsv)
{
    char num[64], bv[32];
    int st = 0;
    if (in->kind != JK_ARR) {
        fail_value(q, in, tsv ? "cannot be tsv-formatted, only an array can be"
                              : "cannot be csv-formatted, only an array can be");
        return -1;
    }
    for (size_t i = 0; i < in->n; i++) {
        jv *x = in->items[i];
        if (i)
            st |= sh_buf_addc(b, tsv ? '\t' : ',');
        switch (x->kind) {
        case JK_NUM:
            fmt_num(num, x->num);
            st |= sh_buf_adds(b, num);
            break;
        case JK_TRUE:
        case JK_FALSE:
            st |= sh_buf_adds(b, x->kind == JK_TRUE ? "true" : "false");
            break;
        case JK_NULL:
            break;
        case JK_STR:
            if (!tsv)
                st |= sh_buf_addc(b, '"');
            for (size_t k = 0; k < x->len; k++) {
                char c = x->str[k];
                if (!tsv && c == '"')
                    st |= sh_buf_adds(b, "\"\"");
                else if (tsv && (c == '\t' || c == '\n' || c == '\r' || c == '\\'))
                    st |= sh_buf_adds(b, c == '\t' ? "\\t" : c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\\\");
                else
                    st |= sh_buf_addc(b, c);
            }
            if (!tsv)
                st |= sh_buf_addc(b, '"');
            break;
        default:
            fail(q, "%s (%s) is not valid in a csv row", kind_names[x->kind], trunc_dump(bv, x));
            return -1;
        }
    }
    return st ? oom(q), -1 : 0;
}

static int format_sh(jq *q, sh_buf *b, jv *in)
{
    char num[64], bv[32];
    int st = 0;
    size_t n = in->kind == JK_ARR ? in->n : 1;
    for (size_t i = 0; i < n; i++) {
        jv *x = in->kind == JK_ARR ? in->items[i] : in;
        if (i)
            st |= sh_buf_addc(b, ' ');
        switch (x->kind) {
        case JK_STR:
            st |= sh_buf_add_squoted(b, x->str, x->len);
            break;
        case JK_NUM:
            fmt_num(num, x->num);
            st |= sh_buf_adds(b, num);
            break;
        case JK_OBJ:
        case JK_ARR:
            fail(q, "%s (%s) can not be escaped for shell", kind_names[x->kind], trunc_dump(bv, x));
            return -1;
        default:
            st |= sh_buf_adds(b, x->kind == JK_NULL ? "null" : x->kind == JK_TRUE ? "true" : "false");
            break;
        }
    }
    return st ? oom(q), -1 : 0;
}

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int format_base64(sh_buf *b, const jv *s)
{
    int st = 0;
    const unsigned char *p = (const unsigned char *)s->str;
    for (size_t i = 0; i < s->len; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < s->len)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < s->len)
            v |= p[i + 2];
        st |= sh_buf_addc(b, b64chars[v >> 18 & 63]);
        st |= sh_buf_addc(b, b64chars[v >> 12 & 63]);
        st |= sh_buf_addc(b, i + 1 < s->len ? b64chars[v >> 6 & 63] : '=');
        st |= sh_buf_addc(b, i + 2 < s->len ? b64chars[v & 63] : '=');
    }
    return st;
}

static int format_base64d(sh_buf *b, const jv *s)
{
    int st = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < s->len; i++) {
        const char *at = s->str[i] ? strchr(b64chars, s->str[i]) : NULL;
        if (!at)
            continue;
        acc = acc << 6 | (unsigned)(at - b64chars);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            st |= sh_buf_addc(b, (char)(acc >> bits & 0xff));
        }
    }
    return st;
}

/* Applies @name to v: a new string value, or NULL with the error set. */
static jv *apply_format(jq *q, const char *fmt, jv *v)
{
    if (fmt[0] == '@')
        fmt++;
    if (strcmp(fmt, "json") == 0)
        return checked(q, jv_tojson(v));
    if (strcmp(fmt, "text") == 0)
        return checked(q, jv_tostring(v));
    sh_buf b = { 0 };
    int st = 0;
    if (strcmp(fmt, "csv") == 0 || strcmp(fmt, "tsv") == 0) {
        st = format_csv_tsv(q, &b, v, fmt[0] == 't');
    } else if (strcmp(fmt, "sh") == 0) {
        st = format_sh(q, &b, v);
    } else if (strcmp(fmt, "html") == 0 || strcmp(fmt, "uri") == 0 ||
               strcmp(fmt, "base64") == 0 || strcmp(fmt, "base64d") == 0) {
        jv *s = jv_tostring(v);
        if (!s) {
            sh_buf_free(&b);
            return checked(q, NULL);
        }
        if (fmt[0] == 'b' && fmt[6] == 'd') {
            st = format_base64d(&b, s);
        } else if (fmt[0] == 'b') {
            st = format_base64(&b, s);
        } else {
            for (size_t i = 0; i < s->len; i++) {
                unsigned char c = (unsigned char)s->str[i];
                if (fmt[0] == 'u') {
                    if (isalnum(c) || strchr("-_.~", c))
                        st |= sh_buf_addc(&b, (char)c);
                    else
                        st |= sh_buf_addf(&b, "%%%02X", c);
                    continue;
                }
                const char *esc = c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;"
                                : c == '\'' ? "&apos;" : c == '"' ? "&quot;" : NULL;
                if (esc)
                    st |= sh_buf_adds(&b, esc);
                else
                    st |= sh_buf_addc(&b, (char)c);
            }
        }
        jv_free(s);
        if (st) {
            sh_buf_free(&b);
            return checked(q, NULL);
        }
    } else {
        sh_buf_free(&b);
        fail(q, "%s is not a valid format", fmt);
        return NULL;
    }
    if (st < 0) {
        sh_buf_free(&b);
        return NULL;
    }
    jv *r = sh_buf_addc(&b, 0) == 0 ? (b.len--, jv_str_utf8(b.data, b.len)) : NULL;
    sh_buf_free(&b);
    return checked(q, r);
}

/* ---- generators and builtins over filters */

static int gen_empty(jq *q, jv *in, jv **args, emit_fn k, void *kd)
{
    (void)q, (void)in, (void)args, (void)k, (void)kd;
    return 0;
}

static int gen_error(jq *q, jv *in, jv **args, emit_fn k, void *kd)
{
    (void)k, (void)kd;
    jv *v = args ? args[0] : in;
    if (v->kind == JK_NULL)
        return 0; /* jq 1.6: error(null) is not an error at all */
    jv_free(q->err);
    q->err = jv_ref(v);
    return J_ERR;
}

static int gen_error0(jq *q, jv *in, jv **args, emit_fn k, void *kd)
{
    (void)args;
    return gen_error(q, in, NULL, k, kd);
}

/* range(from; upto) and range(from; upto; by). */
static int gen_range(jq *q, jv *in, jv **args, emit_fn k, void *kd)
{
    (void)in;
    jv one = { .kind = JK_NUM, .refs = 1, .num = 1 };
    jv *by = args[2] ? args[2] : &one;
    if (args[0]->kind != JK_NUM || args[1]->kind != JK_NUM || by->kind != JK_NUM)
        return fail(q, "Range bounds must be numeric");
    double from = args[0]->num, upto = args[1]->num, inc = by->num;
    if (inc == 0 || inc != inc)
        return 0;
    int r = 0;
    for (double x = from; r == 0 && (inc > 0 ? x < upto : x > upto); x += inc) {
        jv *v = jv_num(x);
        if (!v)
            return oom(q);
        r = k(q, v, NULL, kd);
        jv_free(v);
    }
    return r;
}

static int gen_range2(jq *q, jv *in, jv **args, emit_fn k, void *kd)
{
    jv *a[3] = { args[0], args[1], NULL };
    return gen_range(q, in, a, k, kd);
}

/* Appends input text to b as jq 1.6 reads it: a NUL byte cuts the rest of
 * its line off. */
static int add_input_text(sh_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        const char *nul = memchr(s + i, 0, n - i);
        size_t end = nul ? (size_t)(nul - s) : n;
        if (sh_buf_add(b, s + i, end - i) < 0)
            return -1;
        if (!nul)
            break;
        const char *nl = memchr(s + end, '\n', n - end);
        i = nl ? (size_t)(nl - s) : n;
    }
    return 0;
}

/* Reads and concatenates the input files (or standard input) into q->in,
 * once. A file that cannot be read is reported and skipped (load_status 2). */
static int load_inputs(jq *q)
{
    sh_proc *p = q->p;
    sh_buf all = { 0 };
    q->loaded = 1;
    if (q->nfiles == 0 && add_input_text(&all, p->in, p->in_len) < 0)
        goto oom;
    for (size_t i = 0; i < q->nfiles; i++) {
        char *data;
        size_t n;
        if (strcmp(q->files[i], "-") != 0) {
            char *path = sh_path(p, q->files[i]);
            FILE *probe = path ? fopen(path, "rb") : NULL;
            if (!probe) {
                sh_err(p, "error: Could not open %s: %s", q->files[i],
                       path ? strerror(errno) : "out of memory");
                free(path);
                q->load_status = 2;
                continue;
            }
            fclose(probe);
            free(path);
        }
        if (sh_load(p, q->files[i], &data, &n) < 0) {
            q->load_status = 2;
            continue;
        }
        int r = add_input_text(&all, data, n);
        free(data);
        if (r < 0)
            goto oom;
    }
    size_t len;
    q->input = sh_buf_take(&all, &len);
    if (!q->input)
        goto oom;
    q->in = (reader){ q->input, len, 0, { 0 } };
    return 0;
oom:
    sh_buf_free(&all);
    return oom(q);
}

/* Reads the next input value: 1 with *out, 0 at the end, -1 on error (a
parse error, reported as the pending error). */
static int next_input(jq *q, jv **out)
{
    reader *r = &q->in;
    if (!q->loaded && load_inputs(q) != 0)
        return -1;
    if (q->raw_input) {
        if (r->pos >= r->len)
            return 0;
        const char *s = r->s + r->pos;
        const char *nl = memchr(s, '\n', r->len - r->pos);
        size_t n = nl ? (size_t)(nl - s) : r->len - r->pos;
        r->pos += n + (nl != NULL);
        *out = jv_str_utf8(s, n);
        if (!*out) {
            oom(q);
            return -1;
        }
        return 1;
    }
    int st = json_next(r, out);
    if (st < 0) {
        q->input_error = 1;
        r->pos = r->len;
        fail(q, "%s", r->err);
        return -1;
    }
    return st;
}

static int gen_input(jq *q, jv *in, jv **args, emit_fn k, void *kd)
{
    (void)in, (void)args;
    jv *v;
    int st = next_input(q, &v);
    if (st == 0)
        return fail(q, "No more inputs");
    if (st < 0)
        return J_ERR;
    return emit_new(q, v, k, kd);
}

static int gen_inputs(jq *q, jv *in, jv **args, emit_fn k, void *kd)
{
    (void)in, (void)args;
    for (;;) {
        jv *v;
        int st = next_input(q, &v);
        if (st <= 0)
            return st < 0 ? J_ERR : 0;
        if ((st = emit_new(q, v, k, kd)) != 0)
            return st;
    }
}

/* debug and stderr: print the input to stderr, then pass it on. */
static int print_err(jq *q, jv *in, emit_fn k, void *kd, int debug)
{
    sh_buf b = { 0 };
    dump_opts o = { 0 };
    if ((debug && sh_buf_adds(&b, "[\"DEBUG:\",") < 0) || dump(&b, in, &o, 0) < 0 ||
        sh_buf_adds(&b, debug ? "]\n" : "") < 0) {
        sh_buf_free(&b);
        return oom(q);
    }
    sh_write(q->p->err, b.data, b.len);
    sh_buf_free(&b);
    return k(q, in, NULL, kd);
}

static int gen_debug(jq *q, jv *in, jv **args, emit_fn k, void *kd)
{
    (void)args;
    return print_err(q, in, k, kd, 1);
}

static int gen_stderr(jq *q, jv *in, jv **args, emit_fn k, void *kd)
{
    (void)args;
    return print_err(q, in, k, kd, 0);
}

static int path_emit(jq *q, jv *v, jv *path, void *data)
{
    step *s = data;
    (void)v;
    return s->k(q, path, NULL, s->kd);
}

/* path(f): the paths of f's outputs. */
static int sp_path(jq *q, const node *call, const env *e, jv *in, jv *path, emit_fn k, void *kd)
{
    step s = { q, call, e, in, NULL, path ? path_error_emit : k, kd, NULL, NULL };
    jv *root = jv_new(JK_ARR);
    if (!root)
        return oom(q);
    int r = eval(q, call->args[0], e, in, root, path_emit, &s);
    jv_free(root);
    return r;
}

static int getpath_emit(jq *q, jv *p, jv *path, void *data)
{
    step *s = data;
    (void)path;
    if (p->kind != JK_ARR)
        return fail(q, "Path must be specified as an array");
    jv *v = getpath(q, s->in, p);
    if (!v)
        return J_ERR;
    int r;
    if (s->path) {
        jv *full = jv_unshare(jv_ref(s->path));
        for (size_t i = 0; full && i < p->n; i++)
            if (arr_push(full, jv_ref(p->items[i])) < 0)
                full = NULL;
        r = full ? s->k(q, v, full, s->kd) : oom(q);
        jv_free(full);
    } else {
        r = s->k(q, v, NULL, s->kd);
    }
    jv_free(v);
    return r;
}

/* getpath(p), which takes part in path expressions. */
static int sp_getpath(jq *q, const node *call, const env *e, jv *in, jv *path, emit_fn k, void *kd)
{
    step s = { q, call, e, in, path, k, kd, NULL, NULL };
    return eval(q, call->args[0], e, in, NULL, getpath_emit, &s);
}

/* limit(n; f) and first(f): outputs counted down to a private label. */
typedef struct limiter {
    emit_fn k;
    void *kd;
    long left;
    int label;
} limiter;

static int limit_emit(jq *q, jv *v, jv *path, void *data)
{
    limiter *l = data;
    int r = l->k(q, v, path, l->kd);
    if (r)
        return r;
    return --l->left <= 0 ? l->label : 0;
}

static int limit_run(jq *q, const node *f, const env *e, jv *in, jv *path, long n, emit_fn k,
                     void *kd)
{
    /* As jq 1.6: a negative limit is no limit, and 0 still lets one through. */
    if (n < 0)
        return eval(q, f, e, in, path, k, kd);
    if (n == 0)
        n = 1;
    limiter l = { k, kd, n, q->next_label++ };
    int r = eval(q, f, e, in, path, limit_emit, &l);
    return r == l.label ? 0 : r;
}

static int limit_count_emit(jq *q, jv *v, jv *path, void *data)
{
    step *s = data;
    (void)path;
    if (v->kind != JK_NUM)
        return fail(q, "Invalid limit: not a number");
    return limit_run(q, s->n->args[1], s->e, s->in, s->path, to_index(v->num), s->k, s->kd);
}

static int sp_limit(jq *q, const node *call, const env *e, jv *in, jv *path, emit_fn k, void *kd)
{
    step s = { q, call, e, in, path, k, kd, NULL, NULL };
    return eval(q, call->args[0], e, in, NULL, limit_count_emit, &s);
}

static int sp_first(jq *q, const node *call, const env *e, jv *in, jv *path, emit_fn k, void *kd)
{
    return limit_run(q, call->args[0], e, in, path, 1, k, kd);
}

/* until(cond; update) and while(cond; update) without recursion: a stack of
 * pending values, explored depth first as jq's recursive definitions do. */
static int sp_loop(jq *q, const node *call, const env *e, jv *in, jv *path, emit_fn k, void *kd)
{
    int is_while = call->name[0] == 'w';
    jv *todo = jv_new(JK_ARR);
    if (!todo || arr_push(todo, jv_ref(in)) < 0) {
        jv_free(todo);
        return oom(q);
    }
    int r = 0;
    (void)path;
    while (r == 0 && todo->n > 0) {
        jv *v = todo->items[--todo->n];
        jv *conds = collect_all(q, call->args[0], e, v, 0);
        jv *next = conds ? jv_new(JK_ARR) : NULL;
        if (conds && !next)
            r = oom(q);
        else if (!conds)
            r = J_ERR;
        for (size_t i = 0; r == 0 && i < conds->n; i++) {
            int c = truthy(conds->items[i]);
            if (c)
                r = k(q, v, NULL, kd);
            if (r == 0 && c == is_while) {
                jv *outs = collect_all(q, call->args[1], e, v, 0);
                if (!outs)
                    r = J_ERR;
                for (size_t j = 0; r == 0 && j < outs->n; j++)
                    if (arr_push(next, jv_ref(outs->items[j])) < 0)
                        r = oom(q);
                jv_free(outs);
            }
        }
        /* The first output of update is explored first. */
        for (size_t j = next ? next->n : 0; r == 0 && j-- > 0;)
            if (arr_push(todo, jv_ref(next->items[j])) < 0)
                r = oom(q);
        jv_free(next);
        jv_free(conds);
        jv_free(v);
    }
    jv_free(todo);
    return r;
}

/* repeat(f): f on the input, again and again (jq 1.6's behaviour). */
static int sp_repeat(jq *q, const node *call, const env *e, jv *in, jv *path, emit_fn k, void *kd)
{
    (void)path;
    for (;;) {
        int r = eval(q, call->args[0], e, in, NULL, k, kd);
        if (r)
            return r;
    }
}

static const native natives[] = {
    { "length", 0, nat_length, NULL, NULL },
    { "utf8bytelength", 0, nat_utf8bytelength, NULL, NULL },
    { "not", 0, nat_not, NULL, NULL },
    { "keys", 0, nat_keys, NULL, NULL },
    { "keys_unsorted", 0, nat_keys_unsorted, NULL, NULL },
    { "has", 1, nat_has, NULL, NULL },
    { "contains", 1, nat_contains, NULL, NULL },
    { "add", 0, nat_add, NULL, NULL },
    { "tostring", 0, nat_tostring, NULL, NULL },
    { "tojson", 0, nat_tojson, NULL, NULL },
    { "fromjson", 0, nat_fromjson, NULL, NULL },
    { "tonumber", 0, nat_tonumber, NULL, NULL },
    { "type", 0, nat_type, NULL, NULL },
    { "infinite", 0, nat_infinite, NULL, NULL },
    { "nan", 0, nat_nan, NULL, NULL },
    { "isnan", 0, nat_isnan, NULL, NULL },
    { "isinfinite", 0, nat_isinfinite, NULL, NULL },
    { "isnormal", 0, nat_isnormal, NULL, NULL },
    { "sort", 0, nat_sort, NULL, NULL },
    { "_sort_by_impl", 1, nat_sort_by, NULL, NULL },
    { "_group_by_impl", 1, nat_group_by, NULL, NULL },
    { "unique", 0, nat_unique, NULL, NULL },
    { "min", 0, nat_min, NULL, NULL },
    { "max", 0, nat_max, NULL, NULL },
    { "_min_by_impl", 1, nat_min_by, NULL, NULL },
    { "_max_by_impl", 1, nat_max_by, NULL, NULL },
    { "startswith", 1, nat_startswith, NULL, NULL },
    { "endswith", 1, nat_endswith, NULL, NULL },
    { "ltrimstr", 1, nat_ltrimstr, NULL, NULL },
    { "rtrimstr", 1, nat_rtrimstr, NULL, NULL },
    { "explode", 0, nat_explode, NULL, NULL },
    { "implode", 0, nat_implode, NULL, NULL },
    { "split", 1, nat_split, NULL, NULL },
    { "join", 1, nat_join, NULL, NULL },
    { "ascii_downcase", 0, nat_downcase, NULL, NULL },
    { "ascii_upcase", 0, nat_upcase, NULL, NULL },
    { "floor", 0, nat_floor, NULL, NULL },
    { "ceil", 0, nat_ceil, NULL, NULL },
    { "round", 0, nat_round, NULL, NULL },
    { "sqrt", 0, nat_sqrt, NULL, NULL },
    { "fabs", 0, nat_fabs, NULL, NULL },
    { "log", 0, nat_log, NULL, NULL },
    { "log2", 0, nat_log2, NULL, NULL },
    { "log10", 0, nat_log10, NULL, NULL },
    { "exp", 0, nat_exp, NULL, NULL },
    { "exp2", 0, nat_exp2, NULL, NULL },
    { "exp10", 0, nat_exp10, NULL, NULL },
    { "sin", 0, nat_sin, NULL, NULL },
    { "cos", 0, nat_cos, NULL, NULL },
    { "tan", 0, nat_tan, NULL, NULL },
    { "asin", 0, nat_asin, NULL, NULL },
    { "acos", 0, nat_acos, NULL, NULL },
    { "atan", 0, nat_atan, NULL, NULL },
    { "trunc", 0, nat_trunc, NULL, NULL },
    { "cbrt", 0, nat_cbrt, NULL, NULL },
    { "pow", 2, nat_pow, NULL, NULL },
    { "atan2", 2, nat_atan2, NULL, NULL },
    { "setpath", 2, nat_setpath, NULL, NULL },
    { "delpaths", 1, nat_delpaths, NULL, NULL },
    { "_indices", 1, nat_indices, NULL, NULL },
    { "_flatten", 1, nat_flatten, NULL, NULL },
    { "env", 0, nat_env, NULL, NULL },
    { "format", 1, nat_format, NULL, NULL },
    { "now", 0, nat_now, NULL, NULL },
    { "gmtime", 0, nat_gmtime, NULL, NULL },
    { "mktime", 0, nat_mktime, NULL, NULL },
    { "strftime", 1, nat_strftime, NULL, NULL },
    { "strptime", 1, nat_strptime, NULL, NULL },
    { "_match_impl", 3, nat_match, NULL, NULL },
    { "empty", 0, NULL, gen_empty, NULL },
    { "error", 0, NULL, gen_error0, NULL },
    { "error", 1, NULL, gen_error, NULL },
    { "range", 2, NULL, gen_range2, NULL },
    { "range", 3, NULL, gen_range, NULL },
    { "input", 0, NULL, gen_input, NULL },
    { "inputs", 0, NULL, gen_inputs, NULL },
    { "debug", 0, NULL, gen_debug, NULL },
    { "stderr", 0, NULL, gen_stderr, NULL },
    { "path", 1, NULL, NULL, sp_path },
    { "getpath", 1, NULL, NULL, sp_getpath },
    { "limit", 2, NULL, NULL, sp_limit },
    { "first", 1, NULL, NULL, sp_first },
    { "until", 2, NULL, NULL, sp_loop },
    { "while", 2, NULL, NULL, sp_loop },
    { "repeat", 1, NULL, NULL, sp_repeat },
    { NULL, 0, NULL, NULL, NULL },
};

static const native *find_native(const char *name, size_t nargs)
{
    for (const native *n = natives; n->name; n++)
        if (n->nargs == nargs && strcmp(n->name, name) == 0)
            return n;
    return NULL;
}

/* The builtins written in jq itself, as jq 1.6 defines them (or equivalently). */
static const char prelude[] =
    "def select(f): if f then . else empty end;"
    "def map(f): [.[] | f];"
    "def values: select(. != null);"
    "def nulls: select(. == null);"
    "def booleans: select(type == \"boolean\");"
    "def numbers: select(type == \"number\");"
    "def strings: select(type == \"string\");"
    "def arrays: select(type == \"array\");"
    "def objects: select(type == \"object\");"
    "def iterables: select(type|. == \"array\" or . == \"object\");"
    "def scalars: select(type|. != \"array\" and . != \"object\");"
    "def finites: select(isinfinite or isnan | not);"
    "def normals: select(isnormal);"
    "def map_values(f): .[] |= f;"
    "def recurse(f): def r: ., (f | r); r;"
    "def recurse(f; cond): def r: ., (f | select(cond) | r); r;"
    "def recurse: recurse(.[]?);"
    "def to_entries: [keys_unsorted[] as $k | {key: $k, value: .[$k]}];"
    "def from_entries: map({(.key // .k // .name // .Name // .K // .Key):"
    " (if has(\"value\") then .value else .v end)}) | add + {} // {};"
    "def with_entries(f): to_entries | map(f) | from_entries;"
    "def paths: path(..) | select(length > 0);"
    "def paths(node_filter): . as $dot | paths | select(. as $p | $dot | getpath($p) | node_filter);"
    "def leaf_paths: paths(scalars);"
    "def del(f): delpaths([path(f)]);"
    "def to_array: if type == \"array\" then . else [.] end;"
    "def isempty(g): first((g | false), true);"
    "def any: reduce .[] as $x (false; . or $x);"
    "def all: reduce .[] as $x (true; . and $x);"
    "def any(g; cond): isempty(first(g | cond | select(.))) | not;"
    "def all(g; cond): isempty(first(g | cond | select(. | not)));"
    "def any(f): any(.[]; f);"
    "def all(f): all(.[]; f);"
    "def range($x): range(0; $x);"
    "def in(xs): . as $x | xs | has($x);"
    "def inside(xs): . as $x | xs | contains($x);"
    "def indices($i): if type == \"array\" and ($i|type) == \"array\" then .[$i]"
    " elif type == \"array\" then .[[$i]] else _indices($i) end;"
    "def index($i): indices($i) | .[0];"
    "def rindex($i): indices($i) | .[-1:][0];"
    "def flatten($x): if $x < 0 then error(\"flatten depth must not be negative\") else _flatten($x) end;"
    "def flatten: _flatten(1e9);"
    "def sort_by(f): _sort_by_impl(map([f]));"
    "def group_by(f): _group_by_impl(map([f]));"
    "def unique_by(f): [group_by(f)[] | .[0]];"
    "def max_by(f): _max_by_impl(map([f]));"
    "def min_by(f): _min_by_impl(map([f]));"
    "def reverse: [.[length - 1 - range(0; length)]];"
    "def first: .[0];"
    "def last: .[-1];"
    "def last(f): reduce f as $x (null; $x);"
    "def nth($n): .[$n];"
    "def nth($n; f): if $n < 0 then error(\"Out of bounds negative array index\")"
    " else last(limit($n + 1; f)) end;"
    "def match(re; $flags): _match_impl(re; $flags; false) | .[];"
    "def match(re): match(re; null);"
    "def test(re; $flags): _match_impl(re; $flags; true);"
    "def test(re): test(re; null);"
    "def capture(re; $flags): match(re; $flags) | [.captures | .[] | select(.name != null)"
    " | {key: .name, value: .string}] | from_entries;"
    "def capture(re): capture(re; null);"
    "def scan(re; $flags): match(re; \"g\" + ($flags // \"\")) | if (.captures | length > 0)"
    " then [.captures | .[] | .string] else .string end;"
    "def scan(re): scan(re; null);"
    "def split($re; $flags): . as $s | [match($re; \"g\" + ($flags // \"\"))"
    " | (.offset, .offset + .length)] as $ms | [0] + $ms + [$s | length]"
    " | [range(0; length; 2) as $i | $s[.[$i]:.[$i + 1]]];"
    "def splits($re; $flags): split($re; $flags) | .[];"
    "def splits($re): splits($re; null);"
    "def sub(re; str; $flags): . as $in | [match(re; $flags)] as $ms"
    " | if ($ms | length) == 0 then $in else"
    " (reduce $ms[] as $m ({s: \"\", p: 0}; .s += $in[.p:$m.offset] + ($m | [.captures[]"
    " | select(.name != null) | {key: .name, value: .string}] | from_entries | str)"
    " | .p = $m.offset + $m.length) | .s + $in[.p:]) end;"
    "def sub(re; str): sub(re; str; \"\");"
    "def gsub(re; str): sub(re; str; \"g\");"
    "def gsub(re; str; $flags): sub(re; str; $flags + \"g\");"
    "def ascii: [.] | implode;"
    "def todate: strftime(\"%Y-%m-%dT%H:%M:%SZ\");"
    "def todateiso8601: todate;"
    "def fromdateiso8601: strptime(\"%Y-%m-%dT%H:%M:%SZ\") | mktime;"
    "def fromdate: fromdateiso8601;"
    "def date: todate;"
    "def dateadd(u; n): . + n;"
    "def datesub(u; n): . - n;"
    "def localtime: gmtime;"
    "def strflocaltime(f): strftime(f);"
    "def walk(f): . as $in | if type == \"object\" then reduce keys[] as $key"
    " ({}; . + {($key): ($in[$key] | walk(f))}) | f"
    " elif type == \"array\" then map(walk(f)) | f else f end;"
    "def transpose: if . == [] then [] else . as $in | (map(length) | max) as $max"
    " | [range(0; $max) as $j | [range(0; $in | length) as $i | $in[$i][$j]]] end;"
    "def combinations: if length == 0 then [] else .[0][] as $x"
    " | (.[1:] | combinations) as $w | [$x] + $w end;"
    "def combinations(n): . as $dot | [range(n)] | map($dot) | combinations;"
    "def tostream: path(def r: (.[]? | r), .; r) as $p | getpath($p)"
    " | reduce path(.[]?) as $q ([$p, .]; [$p + $q]);"
    "def input_filename: null;"
    "def INDEX(stream; idx_expr): reduce stream as $row ({}; .[$row | idx_expr | tostring] |= $row);"
    "def INDEX(idx_expr): INDEX(.[]; idx_expr);"
    "def IN(s): any(s == .; .);"
    "def IN(src; s): any(src == s; .);"
    "def truncate_stream(stream): . as $n | null | stream | . as $input"
    " | if (.[0] | length) > $n then setpath([0]; .[0][$n:]) else empty end;"
    "def fromstream(f): {x: null, e: false} as $init | foreach f as $i ($init;"
    " if .e then $init else . end | if $i | length == 2"
    " then setpath([\"e\"]; $i[0] | length == 0) | setpath([\"x\"] + $i[0]; $i[1])"
    " else setpath([\"e\"]; $i[0] | length == 1) end; if .e then .x else empty end);"
    "def builtins: [];";

/* ---------------------------------------------------------------- compile check */

/* A static scope: what names a part of the program can refer to. */
typedef struct scope {
    const struct scope *up;
    int kind; /* E_VAR, E_FUNC, E_LABEL */
    const char *name;
    size_t arity;
} scope;

static int check(const node *n, const scope *s, char *err, size_t errsize);

static int scope_has(const scope *s, int kind, const char *name, size_t arity)
{
    for (; s; s = s->up)
        if (s->kind == kind && strcmp(s->name, name) == 0 && (kind != E_FUNC || s->arity == arity))
            return 1;
    return 0;
}

/* Adds a pattern's variables to the scope (frames has room for them all) and
 * checks the expressions inside it. */
static const scope *check_pattern(const node *p, const scope *s, scope *frames, size_t *used,
                                  char *err, size_t errsize)
{
    if (p->op == N_PVAR) {
        scope *f = &frames[(*used)++];
        *f = (scope){ s, E_VAR, p->name, 0 };
        return f;
    }
    const scope *cur = s;
    for (size_t i = 0; i < p->nargs && cur; i++) {
        const node *a = p->args[i];
        if (p->op == N_POBJ && i % 2 == 1 && a == p->args[i - 1])
            continue;
        if (p->op == N_POBJ && i % 2 == 0 && a->op != N_PVAR) {
            if (check(a, s, err, errsize) < 0)
                return NULL;
            continue;
        }
        cur = check_pattern(a, cur, frames, used, err, errsize);
    }
    return cur;
}

/* Checks a node with a pattern's variables bound, for the given bodies. */
static int check_bound(const node *pat, const node *b1, const node *b2, const scope *s,
                       char *err, size_t errsize)
{
    size_t nv = pattern_vars(pat), used = 0;
    scope *frames = calloc(nv ? nv : 1, sizeof *frames);
    if (!frames) {
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    const scope *inner = check_pattern(pat, s, frames, &used, err, errsize);
    int r = inner ? 0 : -1;
    if (r == 0 && b1)
        r = check(b1, inner, err, errsize);
    if (r == 0 && b2)
        r = check(b2, inner, err, errsize);
    free(frames);
    return r;
}

/* Verifies that every function, variable and label referred to is defined,
 * as jq does before running anything: 0, or -1 with the message in err. */
static int check(const node *n, const scope *s, char *err, size_t errsize)
{
    if (!n)
        return 0;
    switch (n->op) {
    case N_DEF: {
        scope f = { s, E_FUNC, n->name, n->nparams };
        scope *params = calloc(2 * n->nparams + 1, sizeof *params);
        if (!params) {
            snprintf(err, errsize, "out of memory");
            return -1;
        }
        const scope *top = &f;
        for (size_t i = 0; i < n->nparams; i++) {
            const char *pn = n->params[i];
            int dollar = pn[0] == '$';
            params[2 * i] = (scope){ top, E_FUNC, pn + dollar, 0 };
            top = &params[2 * i];
            if (dollar) {
                params[2 * i + 1] = (scope){ top, E_VAR, pn + 1, 0 };
                top = &params[2 * i + 1];
            }
        }
        int r = check(n->a, top, err, errsize);
        free(params);
        return r < 0 ? r : check(n->b, &f, err, errsize);
    }
    case N_CALL:
        if (!scope_has(s, E_FUNC, n->name, n->nargs) && !find_native(n->name, n->nargs)) {
            snprintf(err, errsize, "%s/%zu is not defined", n->name, n->nargs);
            return -1;
        }
        break;
    case N_VAR:
        if (!scope_has(s, E_VAR, n->name, 0)) {
            snprintf(err, errsize, "$%s is not defined", n->name);
            return -1;
        }
        return 0;
    case N_AS:
        return check(n->a, s, err, errsize) < 0 ? -1 : check_bound(n->d, n->b, NULL, s, err, errsize);
    case N_REDUCE:
    case N_FOREACH:
        if (check(n->a, s, err, errsize) < 0 || check(n->b, s, err, errsize) < 0)
            return -1;
        return check_bound(n->d, n->c, n->e, s, err, errsize);
    case N_LABEL: {
        scope l = { s, E_LABEL, n->name, 0 };
        return check(n->a, &l, err, errsize);
    }
    case N_BREAK:
        if (!scope_has(s, E_LABEL, n->name, 0)) {
            snprintf(err, errsize, "$*label-%s is not defined", n->name);
            return -1;
        }
        return 0;
    default:
        break;
    }
    const node *kids[] = { n->a, n->b, n->c, n->d, n->e };
    for (size_t i = 0; i < 5; i++)
        if (check(kids[i], s, err, errsize) < 0)
            return -1;
    for (size_t i = 0; i < n->nargs; i++)
        if (check(n->args[i], s, err, errsize) < 0)
            return -1;
    return 0;
}

/* ---------------------------------------------------------------- the command */

/* Command-line settings. */
typedef struct options {
    int raw_out, join, null_input, slurp, exit_status, raw_input, from_file;
    const char *program;
    char **files;
    size_t nfiles;
} options;

/* Output state for the top-level continuation. */
typedef struct printer {
    const options *opt;
    int outputs;     /* values printed for the current input */
    int last_truthy; /* whether the last value printed was neither false nor null */
    int broken;      /* the reader of our output is gone */
} printer;

static int print_emit(jq *q, jv *v, jv *path, void *data)
{
    printer *pr = data;
    (void)path;
    sh_buf b = { 0 };
    int st;
    if (pr->opt->raw_out && v->kind == JK_STR)
        st = sh_buf_add(&b, v->str, v->len);
    else
        st = dump(&b, v, &q->dump, 0);
    if (st == 0 && !pr->opt->join)
        st = sh_buf_addc(&b, '\n');
    if (st < 0) {
        sh_buf_free(&b);
        return oom(q);
    }
    st = sh_out(q->p, b.data, b.len);
    sh_buf_free(&b);
    pr->outputs++;
    pr->last_truthy = truthy(v);
    if (st < 0) {
        pr->broken = 1;
        return q->next_label; /* a label nobody catches: unwinds everything */
    }
    return 0;
}

/* Reports the pending error of a run as jq does. */
static void report_error(jq *q, int have_input)
{
    char where[64];
    size_t line = 0;
    for (size_t i = 0; i < q->in.pos && i < q->in.len; i++)
        line += q->in.s[i] == '\n';
    if (have_input)
        snprintf(where, sizeof where, "<stdin>:%zu", line);
    else
        snprintf(where, sizeof where, "<unknown>");
    if (q->input_error && q->err && q->err->kind == JK_STR) {
        sh_write(q->p->err, "parse error: ", 13);
        sh_write(q->p->err, q->err->str, q->err->len);
        sh_write(q->p->err, "\n", 1);
    } else if (!q->err) {
        sh_err(q->p, "error (at %s): out of memory", where);
    } else if (q->err->kind == JK_STR) {
        sh_err(q->p, "error (at %s): %s", where, q->err->str);
    } else {
        jv *text = jv_tojson(q->err);
        sh_err(q->p, "error (at %s) (not a string): %s", where, text ? text->str : "?");
        jv_free(text);
    }
    jv_free(q->err);
    q->err = NULL;
}

/* Runs the program on one input: 0, 5 after an error, or for -e 1 (the last
 * output was false or null) or 4 (no output); -1 when output is broken. */
static int run_one(jq *q, const node *prog, const env *globals, jv *in, printer *pr,
                   int have_input)
{
    pr->outputs = 0;
    int r = eval(q, prog, globals, in, NULL, print_emit, pr);
    if (pr->broken)
        return -1;
    if (r == J_ERR) {
        if (q->err && q->err->kind == JK_NULL) {
            jv_free(q->err);
            q->err = NULL;
        } else {
            report_error(q, have_input);
            return 5;
        }
    } else if (r) {
        sh_err(q->p, "error (at <unknown>): break");
        return 5;
    }
    if (!pr->opt->exit_status)
        return 0;
    return pr->outputs == 0 ? 4 : pr->last_truthy ? 0 : 1;
}

/* A named value from --arg, --argjson, --slurpfile or --rawfile. */
typedef struct named_arg {
    const char *name;
    jv *val;
} named_arg;

/* Everything jq_main allocates, released in one place. */
typedef struct run_state {
    named_arg *named;
    size_t nnamed;
    jv *positional;
    env *globals;
    parser ps;
    char *text;
} run_state;

static void run_state_free(run_state *st)
{
    for (size_t i = 0; i < st->nnamed; i++)
        jv_free(st->named[i].val);
    free(st->named);
    jv_free(st->positional);
    free(st->globals);
    free_nodes(st->ps.all);
    free(st->text);
}

static int usage_error(sh_proc *p, const char *fmt, const char *arg)
{
    sh_write(p->err, "jq: ", 4);
    char msg[300];
    snprintf(msg, sizeof msg, fmt, arg);
    sh_write(p->err, msg, strlen(msg));
    sh_write(p->err, "\nUse jq --help for help with command-line options,\n"
                     "or see the jq manpage, or online docs  at https://stedolan.github.io/jq\n",
             strlen("\nUse jq --help for help with command-line options,\n"
                    "or see the jq manpage, or online docs  at https://stedolan.github.io/jq\n"));
    return 2;
}

/* Adds a named variable; val is taken over. 0, or -1 when out of memory. */
static int add_named(run_state *st, const char *name, jv *val)
{
    for (size_t i = 0; val && i < st->nnamed; i++)
        if (strcmp(st->named[i].name, name) == 0) {
            jv_free(val); /* the first definition wins, as in jq */
            return 0;
        }
    named_arg *n = val ? realloc(st->named, (st->nnamed + 1) * sizeof *n) : NULL;
    if (!n) {
        jv_free(val);
        return -1;
    }
    st->named = n;
    st->named[st->nnamed++] = (named_arg){ name, val };
    return 0;
}

/* Loads a file's JSON values (as an array) or its text, for --slurpfile and
 * --rawfile: NULL after printing the error. */
static jv *load_named_file(sh_proc *p, const char *path, int raw)
{
    char *data;
    size_t len;
    if (sh_load(p, path, &data, &len) < 0)
        return NULL;
    jv *v = NULL;
    if (raw) {
        v = jv_str_utf8(data, len);
    } else {
        reader r = { data, len, 0, { 0 } };
        v = jv_new(JK_ARR);
        jv *item;
        int s;
        while (v && (s = json_next(&r, &item)) != 0) {
            if (s < 0) {
                sh_err(p, "Bad JSON in --slurpfile %s: %s", path, r.err);
                jv_free(v);
                v = NULL;
                free(data);
                return NULL;
            }
            if (arr_push(v, item) < 0)
                v = NULL;
        }
    }
    free(data);
    if (!v)
        sh_oom(p);
    return v;
}

static const char usage_text[] =
    "jq - commandline JSON processor [version 1.6]\n"
    "\n"
    "Usage:\tjq [options] <jq filter> [file...]\n"
    "\tjq [options] --args <jq filter> [strings...]\n"
    "\tjq [options] --jsonargs <jq filter> [JSON_TEXTS...]\n"
    "\n"
    "jq is a tool for processing JSON inputs, applying the given filter to\n"
    "its JSON text inputs and producing the filter's results as JSON on\n"
    "standard output.\n"
    "\n"
    "The simplest filter is ., which copies jq's input to its output\n"
    "unmodified (except for formatting, but note that IEEE754 is used\n"
    "for number representation internally, with all that that implies).\n"
    "\n"
    "For more advanced filters see the jq(1) manpage (\"man jq\")\n"
    "and/or https://stedolan.github.io/jq\n"
    "\n"
    "Example:\n"
    "\n"
    "\t$ echo '{\"foo\": 0}' | jq .\n"
    "\t{\n"
    "\t\t\"foo\": 0\n"
    "\t}\n"
    "\n"
    "Some of the options include:\n"
    "  -c               compact instead of pretty-printed output;\n"
    "  -n               use `null` as the single input value;\n"
    "  -e               set the exit status code based on the output;\n"
    "  -s               read (slurp) all inputs into an array; apply filter to it;\n"
    "  -r               output raw strings, not JSON texts;\n"
    "  -R               read raw strings, not JSON texts;\n"
    "  -C               colorize JSON;\n"
    "  -M               monochrome (don't colorize JSON);\n"
    "  -S               sort keys of objects on output;\n"
    "  --tab            use tabs for indentation;\n"
    "  --arg a v        set variable $a to value <v>;\n"
    "  --argjson a v    set variable $a to JSON value <v>;\n"
    "  --slurpfile a f  set variable $a to an array of JSON texts read from <f>;\n"
    "  --rawfile a f    set variable $a to a string consisting of the contents of <f>;\n"
    "  --args           remaining arguments are string arguments, not files;\n"
    "  --jsonargs       remaining arguments are JSON arguments, not files;\n"
    "  --               terminates argument processing;\n"
    "\n"
    "Named arguments are also available as $ARGS.named[], while\n"
    "positional arguments are available as $ARGS.positional[].\n"
    "\n"
    "See the manpage for more options.\n";

/* Parses the command line into opt, q->dump and st: 0, or an exit status. */
static int parse_args(sh_proc *p, int argc, char **argv, options *opt, jq *q, run_state *st)
{
    int args_mode = 0, no_more_opts = 0;
    q->dump.indent = 2;
    opt->files = calloc((size_t)argc + 1, sizeof *opt->files);
    if (!opt->files || !(st->positional = jv_new(JK_ARR))) {
        sh_oom(p);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (no_more_opts || a[0] != '-' || !(isalpha((unsigned char)a[1]) || a[1] == '-')) {
            if (!opt->program) {
                opt->program = a;
            } else if (args_mode) {
                char err[200];
                jv *v = args_mode == 1 ? jv_str(a) : parse_json_text(a, strlen(a), err, sizeof err);
                if (!v) {
                    sh_err(p, "Invalid JSON text passed to --jsonargs");
                    return 2;
                }
                if (arr_push(st->positional, v) < 0) {
                    sh_oom(p);
                    return 2;
                }
            } else {
                opt->files[opt->nfiles++] = a;
            }
            continue;
        }
        if (strcmp(a, "--") == 0) {
            if (!opt->program) {
                sh_write(p->err, usage_text, strlen(usage_text));
                return 2;
            }
            no_more_opts = 1;
            continue;
        }
        if (a[1] != '-') {
            for (const char *c = a + 1; *c; c++) {
                switch (*c) {
                case 'r': opt->raw_out = 1; break;
                case 'j': opt->raw_out = opt->join = 1; break;
                case 'c': q->dump.indent = 0, q->dump.tab = 0; break;
                case 'n': opt->null_input = 1; break;
                case 's': opt->slurp = 1; break;
                case 'e': opt->exit_status = 1; break;
                case 'S': q->dump.sort = 1; break;
                case 'a': q->dump.ascii = 1; break;
                case 'R': opt->raw_input = 1; break;
                case 'f': opt->from_file = 1; break;
                case 'M': case 'C': break;
                case 'h':
                    sh_outs(p, usage_text);
                    return -1;
                default:
                    return usage_error(p, "Unknown option: %s", a);
                }
            }
            continue;
        }
        const char *l = a + 2;
        int need = strcmp(l, "arg") == 0 || strcmp(l, "argjson") == 0 ||
                   strcmp(l, "slurpfile") == 0 || strcmp(l, "rawfile") == 0 ? 2
                 : strcmp(l, "indent") == 0 ? 1 : 0;
        if (i + need >= argc)
            return usage_error(p, "%s takes a parameter", a);
        if (strcmp(l, "raw-output") == 0) opt->raw_out = 1;
        else if (strcmp(l, "join-output") == 0) opt->raw_out = opt->join = 1;
        else if (strcmp(l, "compact-output") == 0) q->dump.indent = 0, q->dump.tab = 0;
        else if (strcmp(l, "null-input") == 0) opt->null_input = 1;
        else if (strcmp(l, "slurp") == 0) opt->slurp = 1;
        else if (strcmp(l, "exit-status") == 0) opt->exit_status = 1;
        else if (strcmp(l, "sort-keys") == 0) q->dump.sort = 1;
        else if (strcmp(l, "ascii-output") == 0) q->dump.ascii = 1;
        else if (strcmp(l, "raw-input") == 0) opt->raw_input = 1;
        else if (strcmp(l, "from-file") == 0) opt->from_file = 1;
        else if (strcmp(l, "tab") == 0) q->dump.tab = 1, q->dump.indent = 1;
        else if (strcmp(l, "monochrome-output") == 0 || strcmp(l, "color-output") == 0 ||
                 strcmp(l, "unbuffered") == 0) ;
        else if (strcmp(l, "args") == 0) args_mode = 1;
        else if (strcmp(l, "jsonargs") == 0) args_mode = 2;
        else if (strcmp(l, "help") == 0) {
            sh_outs(p, usage_text);
            return -1;
        } else if (strcmp(l, "version") == 0) {
            sh_outs(p, "jq-1.6\n");
            return -1;
        } else if (strcmp(l, "indent") == 0) {
            /* As jq: atoi, and -1 means tabs. */
            long n = strtol(argv[++i], NULL, 10);
            if (n < -1 || n > 7)
                return usage_error(p, "%s", "Cannot indent more than 7 characters");
            q->dump.indent = n < 0 ? 1 : (int)n;
            q->dump.tab = n < 0;
        } else if (need == 2) {
            const char *name = argv[i + 1], *val = argv[i + 2];
            jv *v;
            if (strcmp(l, "arg") == 0) {
                v = jv_str(val);
            } else if (strcmp(l, "argjson") == 0) {
                char err[200];
                v = parse_json_text(val, strlen(val), err, sizeof err);
                if (!v) {
                    sh_err(p, "Invalid JSON text passed to --argjson");
                    return usage_error(p, "%s", "Invalid JSON text passed to --argjson");
                }
            } else {
                v = load_named_file(p, val, strcmp(l, "rawfile") == 0);
                if (!v)
                    return 2;
            }
            if (add_named(st, name, v) < 0) {
                sh_oom(p);
                return 2;
            }
            i += 2;
        } else {
            return usage_error(p, "Unknown option: %s", a);
        }
    }
    return 0;
}

/* Builds the global variables: $ENV, $__loc__-free named arguments and $ARGS
 * (innermost last). NULL when out of memory. */
static const env *make_globals(jq *q, run_state *st)
{
    st->globals = calloc(st->nnamed + 2, sizeof *st->globals);
    if (!st->globals)
        return NULL;
    jv *envv = nat_env(q, NULL, NULL), *args = jv_new(JK_OBJ), *named = jv_new(JK_OBJ);
    int ok = envv && add_named(st, "ENV", envv) == 0;
    for (size_t i = 0; ok && named && i + 1 < st->nnamed; i++)
        ok = obj_set(named, jv_str(st->named[i].name), jv_ref(st->named[i].val)) == 0;
    ok = ok && args && named && obj_set(args, jv_str("positional"), jv_ref(st->positional)) == 0 &&
         obj_set(args, jv_str("named"), jv_ref(named)) == 0;
    jv_free(named);
    if (!ok || add_named(st, "ARGS", args) < 0) {
        jv_free(args);
        return NULL;
    }
    const env *up = NULL;
    for (size_t i = 0; i < st->nnamed; i++) {
        st->globals[i] = (env){ .up = up, .kind = E_VAR, .name = st->named[i].name,
                                .val = st->named[i].val };
        up = &st->globals[i];
    }
    return up;
}

/* jq [OPTIONS] FILTER [FILES...] */
static int jq_main(sh_proc *p, int argc, char **argv)
{
    jq q = { 0 };
    options opt = { 0 };
    run_state st = { 0 };
    char base;
    q.p = p;
    q.stack_base = (uintptr_t)&base;
    q.next_label = J_LABEL;
    int status = parse_args(p, argc, argv, &opt, &q, &st);
    if (status) {
        free(opt.files);
        run_state_free(&st);
        return status < 0 ? 0 : status;
    }
    if (!opt.program)
        opt.program = ".";
    char *program_text = NULL;
    if (opt.from_file) {
        /* -f: the first operand names a file holding the program. */
        size_t len;
        if (sh_load(p, opt.program, &program_text, &len) < 0) {
            free(opt.files);
            run_state_free(&st);
            return 2;
        }
        opt.program = program_text;
    }
    /* Parse the builtins and the program as one text. */
    sh_buf text = { 0 };
    int text_ok = sh_buf_adds(&text, prelude) == 0 && sh_buf_addc(&text, '\n') == 0 &&
                  sh_buf_adds(&text, opt.program) == 0 && (st.text = sh_buf_take(&text, NULL));
    free(program_text);
    opt.program = "";
    if (!text_ok) {
        sh_buf_free(&text);
        sh_oom(p);
        free(opt.files);
        run_state_free(&st);
        return 2;
    }
    st.ps.s = st.text;
    st.ps.len = strlen(st.text);
    st.ps.user_start = strlen(prelude) + 1;
    node *prog = parse_pipe(&st.ps);
    if (prog && peek(&st.ps).type != TK_EOF)
        prog = syntax_error(&st.ps, "unexpected text after the program");
    const env *globals = prog ? make_globals(&q, &st) : NULL;
    if (prog && !globals)
        snprintf(st.ps.err, sizeof st.ps.err, "out of memory");
    scope gscope[64];
    const scope *sc = NULL;
    for (size_t i = 0; prog && globals && i < st.nnamed && i < 64; i++) {
        gscope[i] = (scope){ sc, E_VAR, st.named[i].name, 0 };
        sc = &gscope[i];
    }
    if (prog && globals && check(prog, sc, st.ps.err, sizeof st.ps.err) < 0)
        prog = NULL;
    if (!prog) {
        sh_err(p, "error: %s at <top-level>, line 1:\n%s\njq: 1 compile error",
               st.ps.err[0] ? st.ps.err : "syntax error", st.text + st.ps.user_start);
        free(opt.files);
        run_state_free(&st);
        return 3;
    }
    q.files = opt.files;
    q.nfiles = opt.nfiles;
    q.raw_input = opt.raw_input;
    /* With -n the files are only read when the program asks for input. */
    if (!opt.null_input && load_inputs(&q) != 0) {
        report_error(&q, 0);
        free(opt.files);
        run_state_free(&st);
        return 5;
    }
    printer pr = { &opt, 0, 0, 0 };
    int ret = 0;
    if (opt.null_input) {
        jv *null_v = jv_new(JK_NULL);
        ret = null_v ? run_one(&q, prog, globals, null_v, &pr, 0) : 5;
        jv_free(null_v);
    } else if (opt.slurp) {
        jv *all = NULL;
        int s = 0;
        if (opt.raw_input) {
            all = jv_str_utf8(q.in.s, q.in.len);
        } else if ((all = jv_new(JK_ARR))) {
            jv *v;
            while ((s = next_input(&q, &v)) == 1)
                if (arr_push(all, v) < 0) {
                    oom(&q);
                    s = -1;
                    break;
                }
        }
        if (!all)
            oom(&q);
        if (all && s == 0) {
            ret = run_one(&q, prog, globals, all, &pr, 1);
        } else {
            report_error(&q, 1);
            ret = q.input_error ? 4 : 5;
        }
        jv_free(all);
    } else {
        for (;;) {
            jv *v;
            int s = next_input(&q, &v);
            if (s == 0)
                break;
            if (s < 0) {
                report_error(&q, 1);
                ret = q.input_error ? 4 : 5;
                break;
            }
            ret = run_one(&q, prog, globals, v, &pr, 1);
            jv_free(v);
            if (ret < 0)
                break;
        }
    }
    free(opt.files);
    run_state_free(&st);
    jv_free(q.err);
    free(q.input);
    if (ret < 0)
        return SH_STATUS_PIPE;
    return q.load_status ? q.load_status : ret;
}

const sh_applet sh_applets_jq[] = {
    { "jq", jq_main, "process JSON with a filter program" },
    { NULL, NULL, NULL },
};
