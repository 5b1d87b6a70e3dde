/* jq's JSON values: reference-counted and immutable once shared, their order,
 * UTF-8, the printer (jq's formatting of numbers and strings) and the parser of
 * input texts. */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jq.h"

/* Input texts nest at most this deep (values made by programs, JQ_MAX_DEPTH). */
#define JQ_MAX_PARSE_DEPTH 256

const char *const jq_kind_names[] = { "null", "boolean", "boolean", "number",
                                      "string", "array", "object" };

jv *jv_new(int kind)
{
    jv *v = calloc(1, sizeof *v);
    if (v) {
        v->kind = kind;
        v->refs = 1;
    }
    return v;
}

jv *jv_num(double d)
{
    jv *v = jv_new(JK_NUM);
    if (v)
        v->num = d;
    return v;
}

jv *jv_bool(int b)
{
    return jv_new(b ? JK_TRUE : JK_FALSE);
}

jv *jv_strn(const char *s, size_t n)
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

jv *jv_str(const char *s)
{
    return jv_strn(s, strlen(s));
}

jv *jv_str_buf(sh_buf *b)
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

jv *jv_ref(jv *v)
{
    if (v)
        v->refs++;
    return v;
}

void jv_free(jv *v)
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

int jq_truthy(const jv *v)
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

int jq_arr_push(jv *a, jv *item)
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

long jq_obj_find(const jv *o, const char *key, size_t len)
{
    for (size_t i = 0; i < o->n; i++)
        if (o->keys[i]->len == len && memcmp(o->keys[i]->str, key, len) == 0)
            return (long)i;
    return -1;
}

jv *jq_obj_get(const jv *o, const char *key, size_t len)
{
    long i = jq_obj_find(o, key, len);
    return i < 0 ? NULL : o->items[i];
}

int jq_obj_set(jv *o, jv *key, jv *val)
{
    if (!key || !val || val->depth >= JQ_MAX_DEPTH) {
        jv_free(key);
        jv_free(val);
        return -1;
    }
    long i = jq_obj_find(o, key->str, key->len);
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

jv *jv_unshare(jv *v)
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

int jq_key_cmp(const void *x, const void *y)
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
        qsort(k, o->n, sizeof *k, jq_key_cmp);
    }
    return k;
}

int jv_cmp(const jv *a, const jv *b)
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
            r = jq_key_cmp(&ka[i], &kb[i]);
        if (!r)
            r = a->n < b->n ? -1 : a->n > b->n;
        for (size_t i = 0; !r && ka && i < a->n; i++)
            r = jv_cmp(jq_obj_get(a, ka[i]->str, ka[i]->len),
                       jq_obj_get(b, ka[i]->str, ka[i]->len));
        free(ka);
        free(kb);
        return r;
    }
    default:
        return 0;
    }
}

/* ---------------------------------------------------------------- UTF-8 */

size_t jq_utf8_decode(const unsigned char *s, size_t n, unsigned *cp)
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

int jq_utf8_encode(sh_buf *b, unsigned c)
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

size_t jq_utf8_count(const char *s, size_t n)
{
    size_t count = 0;
    unsigned cp;
    for (size_t i = 0; i < n; count++)
        i += jq_utf8_decode((const unsigned char *)s + i, n - i, &cp);
    return count;
}

size_t jq_utf8_offset(const char *s, size_t n, size_t idx)
{
    size_t i = 0;
    unsigned cp;
    while (idx-- > 0 && i < n)
        i += jq_utf8_decode((const unsigned char *)s + i, n - i, &cp);
    return i;
}

jv *jv_str_utf8(const char *s, size_t n)
{
    sh_buf b = { 0 };
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t k = jq_utf8_decode((const unsigned char *)s + i, n - i, &cp);
        if (cp == 0xfffd && k == 1 ? jq_utf8_encode(&b, cp) : sh_buf_add(&b, s + i, k)) {
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

void jq_fmt_num(char out[64], double d)
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
        size_t k = jq_utf8_decode((const unsigned char *)s + i, n - i, &cp);
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

int jq_dump(sh_buf *b, const jv *v, const dump_opts *o, int level)
{
    char num[64];
    switch (v->kind) {
    case JK_NULL: return sh_buf_adds(b, "null");
    case JK_FALSE: return sh_buf_adds(b, "false");
    case JK_TRUE: return sh_buf_adds(b, "true");
    case JK_NUM:
        jq_fmt_num(num, v->num);
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
                r = jq_dump(b, jq_obj_get(v, k->str, k->len), o, level + 1);
        } else if (r == 0)
            r = jq_dump(b, v->items[i], o, level + 1);
    }
    free(order);
    if (r == 0)
        r = dump_newline(b, o, level);
    return r ? r : sh_buf_addc(b, obj ? '}' : ']');
}

jv *jv_tojson(const jv *v)
{
    sh_buf b = { 0 };
    dump_opts o = { 0 };
    if (jq_dump(&b, v, &o, 0) < 0 || sh_buf_addc(&b, 0) < 0) {
        sh_buf_free(&b);
        return NULL;
    }
    b.len--;
    return jv_str_buf(&b);
}

jv *jv_tostring(jv *v)
{
    return v->kind == JK_STR ? jv_ref(v) : jv_tojson(v);
}

/* ---------------------------------------------------------------- JSON input */

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

int jq_hex4(const char *s, unsigned *out)
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
            } else if (c == 'u' && r->pos + 4 <= r->len && jq_hex4(r->s + r->pos, &cp) == 0) {
                r->pos += 4;
                unsigned lo;
                if (cp >= 0xd800 && cp < 0xdc00 && r->pos + 6 <= r->len &&
                    r->s[r->pos] == '\\' && r->s[r->pos + 1] == 'u' &&
                    jq_hex4(r->s + r->pos + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
                    r->pos += 6;
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                } else if (cp >= 0xd800 && cp < 0xe000) {
                    cp = 0xfffd;
                }
                fail = jq_utf8_encode(&b, cp);
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
        if (obj ? jq_obj_set(v, key, item) < 0 : jq_arr_push(v, item) < 0)
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

int jq_json_next(reader *r, jv **out)
{
    skip_space(r);
    if (r->pos >= r->len)
        return 0;
    *out = parse_json_value(r, 0);
    return *out ? 1 : -1;
}

jv *jq_parse_json_text(const char *s, size_t n, char *err, size_t errsize)
{
    reader r = { s, n, 0, { 0 } };
    jv *v = NULL;
    int st = jq_json_next(&r, &v);
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
