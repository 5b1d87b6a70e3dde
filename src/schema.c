/* JSON Schema validation (draft 2020-12 and draft-07): a schema document is
 * compiled once into a graph of nodes, one per subschema, with its keywords
 * checked and its references and patterns resolved; validation walks that graph
 * over a value without allocating, and reports the first failure with the
 * value's path. What is supported and what is refused: schema.h. */
#define _GNU_SOURCE /* REG_STARTEND, uselocale */
#include "schema.h"

#include <locale.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json.h"

/* ---- messages ------------------------------------------------------------------ */

/* A message written into a fixed buffer; once it does not fit it is cut at a
 * character boundary and ends with "...". len and cut can be saved and restored,
 * so that the text of an alternative that matched after all can be taken back. */
typedef struct msg {
    char *s;
    size_t cap, len;
    int cut;
} msg;

static void msg_init(msg *m, char *s, size_t cap)
{
    m->s = cap ? s : NULL;
    m->cap = cap;
    m->len = 0;
    m->cut = 0;
    if (cap)
        s[0] = '\0';
}

static void msg_put(msg *m, const char *s, size_t n)
{
    if (!m || m->cut || m->cap == 0)
        return;
    size_t room = m->cap - 1 - m->len;
    if (n <= room) {
        memcpy(m->s + m->len, s, n);
        m->len += n;
        m->s[m->len] = '\0';
        return;
    }
    /* Fill up to the last 3 bytes, back up to a character boundary, add "...". */
    memcpy(m->s + m->len, s, room);
    size_t end = m->cap > 4 ? m->cap - 4 : 0;
    while (end > 0 && ((unsigned char)m->s[end] & 0xC0) == 0x80)
        end--;
    m->len = end;
    msg_put(m, "...", m->cap - 1 - end < 3 ? m->cap - 1 - end : 3);
    m->cut = 1;
}

static void msg_str(msg *m, const char *s)
{
    msg_put(m, s, strlen(s));
}

static void msg_vprintf(msg *m, const char *fmt, va_list ap)
{
    if (!m || m->cut || m->cap == 0)
        return;
    char tmp[256];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    if (n > 0)
        msg_put(m, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void msg_printf(msg *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void msg_printf(msg *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    msg_vprintf(m, fmt, ap);
    va_end(ap);
}

/* Writes s[0..n) with control bytes, bytes that are not UTF-8, backslashes and
 * the quote character q (0: none) escaped, cut with "..." after max bytes: text
 * that comes from a value cannot forge the rest of a message. */
static void msg_escaped(msg *m, const char *s, size_t n, char q, size_t max)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        if (i >= max) {
            msg_str(m, "...");
            return;
        }
        size_t k = u[i] >= 0x80 ? capsa__utf8_len(u + i, n - i) : 1;
        if (u[i] >= 0x20 && u[i] != 0x7f && u[i] != '\\' && (q == 0 || u[i] != (unsigned char)q) && k) {
            msg_put(m, s + i, k);
            i += k;
            continue;
        }
        if (u[i] == '\\' || (q && u[i] == (unsigned char)q))
            msg_printf(m, "\\%c", u[i]);
        else
            msg_printf(m, "\\x%02x", u[i]);
        i++;
    }
}

static void msg_quoted(msg *m, const char *s, size_t n)
{
    msg_put(m, "'", 1);
    msg_escaped(m, s, n, '\'', 200);
    msg_put(m, "'", 1);
}

/* A number in its shortest form that reads back the same; an integral real
 * stays one ("5.0", not "5" or "5e+00"). buf has 40 bytes. */
static const char *num_text(const json_t *v, char *buf)
{
    if (json_is_integer(v)) {
        snprintf(buf, 40, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return buf;
    }
    double d = json_real_value(v);
    if (d == floor(d) && fabs(d) < 1e15) {
        snprintf(buf, 40, "%.1f", d);
        return buf;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, 40, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    if (!strpbrk(buf, ".eEni"))
        strcat(buf, ".0");
    return buf;
}

/* Writes v as compact JSON, cut with "..." after about 150 bytes. */
static void msg_json(msg *m, const json_t *v)
{
    char num[40], head[160];
    if (json_is_number(v)) {
        msg_str(m, num_text(v, num));
        return;
    }
    int cut = 0;
    long n = capsa__json_head(v, head, sizeof head, &cut);
    if (n < 0) {
        msg_str(m, "(a value)"); /* jansson ran out of memory */
        return;
    }
    msg_escaped(m, head, (size_t)n, 0, sizeof head);
    if (cut)
        msg_str(m, "...");
}

/* ---- paths ----------------------------------------------------------------------- */

/* One step of a path, in a chain from the innermost step up to the root (NULL).
 * A key of an object, an index of an array, or the name of a property as
 * propertyNames sees it; or (PATH_RAW, at the top of a chain) a location
 * written as it is, such as the target of a $ref. */
enum { PATH_KEY, PATH_INDEX, PATH_NAME, PATH_RAW };
typedef struct path {
    const struct path *up;
    int kind;
    const char *key;
    size_t len;
    size_t index;
} path;

/* Writes the steps of p below the root, each as "/" and the step, the keys as a
 * JSON Pointer escapes them ('~' as "~0", '/' as "~1") and with control bytes
 * escaped. The recursion is as deep as the path, which the validator bounds. */
static void msg_steps(msg *m, const path *p, const char *root)
{
    if (!p) {
        msg_str(m, root);
        return;
    }
    if (p->kind == PATH_RAW) {
        msg_escaped(m, p->key, p->len, 0, 200);
        return;
    }
    if (p->kind == PATH_NAME) {
        msg_steps(m, p->up, root);
        if (!p->up)
            msg_str(m, "/");
        msg_str(m, ": property name ");
        msg_quoted(m, p->key, p->len);
        return;
    }
    msg_steps(m, p->up, root);
    msg_put(m, "/", 1);
    if (p->kind == PATH_INDEX) {
        msg_printf(m, "%zu", p->index);
        return;
    }
    size_t start = 0;
    for (size_t i = 0; i <= p->len; i++) {
        char c = i < p->len ? p->key[i] : 0;
        if (i < p->len && c != '~' && c != '/')
            continue;
        msg_escaped(m, p->key + start, i - start, 0, 100);
        if (i < p->len)
            msg_str(m, c == '~' ? "~0" : "~1");
        start = i + 1;
    }
}

/* Writes a value's path: "/" for the value itself, "/a/0" below it. */
static void msg_path(msg *m, const path *p)
{
    msg_steps(m, p, "");
    if (!p)
        msg_put(m, "/", 1);
}

/* ---- the compiled form ---------------------------------------------------------- */

enum { T_NULL = 1, T_BOOLEAN = 2, T_OBJECT = 4, T_ARRAY = 8, T_NUMBER = 16, T_STRING = 32,
       T_INTEGER = 64 };
static const char *const type_names[] = { "null", "boolean", "object", "array", "number",
                                          "string", "integer" };

enum { NODE_TRUE, NODE_FALSE, NODE_OBJECT };

typedef struct node node;

typedef struct named {
    const char *key;
    size_t len;
    node *n;
} named;

typedef struct pattern {
    regex_t re;
    const char *src; /* the ECMA-262 source, in the document */
    size_t len;
    int compiled;
} pattern;

typedef struct pattern_prop {
    pattern pat;
    node *n;
} pattern_prop;

typedef struct dep_required {
    const char *key;
    size_t len;
    const json_t *names; /* array of strings */
} dep_required;

/* One subschema. Absent keywords are NULL pointers, zero counts, or for the
 * bounds 0 (minimum) and UINT64_MAX (maximum). */
struct node {
    const json_t *json;
    int kind;
    unsigned types; /* 0: no "type" */
    const json_t *enum_values, *const_value;
    const json_t *minimum, *maximum, *ex_minimum, *ex_maximum, *multiple_of;
    uint64_t min_length, max_length;
    pattern *pattern;
    uint64_t min_items, max_items;
    int unique_items;
    node **prefix;
    size_t nprefix;
    node *items;
    node *contains;
    uint64_t min_contains, max_contains;
    uint64_t min_props, max_props;
    named *props; /* sorted by (len, key) */
    size_t nprops;
    pattern_prop *pattern_props;
    size_t npattern_props;
    node *additional;
    const json_t *required;
    dep_required *dep_required;
    size_t ndep_required;
    named *dep_schemas;
    size_t ndep_schemas;
    node *property_names;
    node **all_of, **any_of, **one_of;
    size_t nall_of, nany_of, none_of;
    node *not_, *if_, *then_, *else_;
    node *ref;
    const char *ref_text;
    unsigned char mark; /* the cycle check's colour */
};

struct capsa__schema {
    capsa_allocator a;
    json_t *doc;
    node *root;
    node **nodes; /* every node, to free them */
    size_t nnodes, cap_nodes;
    node **map;   /* open addressing by node->json, cap_map a power of two */
    size_t cap_map;
    locale_t utf8; /* (locale_t)0 until a pattern needs it */
};

const json_t *capsa__schema_json(const capsa__schema *s)
{
    return s->doc;
}

static void pattern_free(pattern *p)
{
    if (p && p->compiled)
        regfree(&p->re);
}

static void node_free(const capsa_allocator *a, node *n)
{
    pattern_free(n->pattern);
    capsa__free(a, n->pattern);
    for (size_t i = 0; i < n->npattern_props; i++)
        pattern_free(&n->pattern_props[i].pat);
    capsa__free(a, n->pattern_props);
    capsa__free(a, n->prefix);
    capsa__free(a, n->props);
    capsa__free(a, n->dep_required);
    capsa__free(a, n->dep_schemas);
    capsa__free(a, n->all_of);
    capsa__free(a, n->any_of);
    capsa__free(a, n->one_of);
    capsa__free(a, n);
}

void capsa__schema_free(capsa__schema *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nnodes; i++)
        node_free(&s->a, s->nodes[i]);
    capsa__free(&s->a, s->nodes);
    capsa__free(&s->a, s->map);
    if (s->utf8)
        freelocale(s->utf8);
    json_decref(s->doc);
    capsa_allocator a = s->a;
    capsa__free(&a, s);
}

static size_t map_slot(const capsa__schema *s, const json_t *j)
{
    uintptr_t h = (uintptr_t)j;
    h ^= h >> 17;
    h *= 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 7) & (s->cap_map - 1);
    while (s->map[i] && s->map[i]->json != j)
        i = (i + 1) & (s->cap_map - 1);
    return i;
}

static node *map_get(const capsa__schema *s, const json_t *j)
{
    return s->cap_map ? s->map[map_slot(s, j)] : NULL;
}

/* Adds n to the list of nodes and to the map; -1 when out of memory. */
static int node_add(capsa__schema *s, node *n)
{
    if (s->nnodes == s->cap_nodes) {
        size_t cap = s->cap_nodes ? s->cap_nodes * 2 : 16;
        node **v = s->a.realloc_fn(s->a.ud, s->nodes, cap * sizeof *v);
        if (!v)
            return -1;
        s->nodes = v;
        s->cap_nodes = cap;
    }
    if ((s->nnodes + 1) * 2 > s->cap_map) {
        size_t cap = s->cap_map ? s->cap_map * 2 : 32;
        node **m = capsa__malloc(&s->a, cap * sizeof *m);
        if (!m)
            return -1;
        memset(m, 0, cap * sizeof *m);
        node **old = s->map;
        size_t old_cap = s->cap_map;
        s->map = m;
        s->cap_map = cap;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i])
                s->map[map_slot(s, old[i]->json)] = old[i];
        capsa__free(&s->a, old);
    }
    s->nodes[s->nnodes++] = n;
    s->map[map_slot(s, n->json)] = n;
    return 0;
}

/* ---- patterns: ECMA-262 to POSIX --------------------------------------------------- */

#define RX_MAX_BOUND 1000   /* the largest n or m in {n,m} */
#define RX_MAX_COST 20000   /* atoms after repetitions are expanded, roughly */
#define RX_MAX_GROUPS 64    /* nesting of groups */

/* The translator's state: the ECMA source s[0..n) read at i, the POSIX text
 * written to out, and per open group the cost of what it holds so far (a count of
 * atoms, with a counted repetition multiplying its operand). */
typedef struct rx {
    const unsigned char *s;
    size_t n, i;
    capsa__buf out;
    const capsa_allocator *a;
    const char *why; /* the first problem, static text */
    size_t cost[RX_MAX_GROUPS + 1];
    size_t last; /* the cost of the last atom or group */
    int top, have_atom;
} rx;

static const char rx_space_ascii[] = " \t\n\v\f\r";
/* The other white space of ECMA-262's \s, one by one: glibc refuses non-ASCII
 * ranges in brackets. */
static const char rx_space_wide[] =
    "\xc2\xa0\xe1\x9a\x80\xe2\x80\x80\xe2\x80\x81\xe2\x80\x82\xe2\x80\x83\xe2\x80\x84"
    "\xe2\x80\x85\xe2\x80\x86\xe2\x80\x87\xe2\x80\x88\xe2\x80\x89\xe2\x80\x8a\xe2\x80\xa8"
    "\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\x9f\xe3\x80\x80\xef\xbb\xbf";

static int rx_fail(rx *r, const char *why)
{
    if (!r->why)
        r->why = why;
    return -1;
}

static int rx_emit(rx *r, const char *s, size_t n)
{
    if (capsa__buf_append(&r->out, r->a, s, n) != 0)
        return rx_fail(r, "out of memory");
    return 0;
}

static int rx_emit_str(rx *r, const char *s)
{
    return rx_emit(r, s, strlen(s));
}

/* Encodes code point c as UTF-8 into b (4 bytes); returns the length. */
static size_t utf8_put(uint32_t c, char *b)
{
    if (c < 0x80) {
        b[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        b[0] = (char)(0xC0 | (c >> 6));
        b[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        b[0] = (char)(0xE0 | (c >> 12));
        b[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        b[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    b[0] = (char)(0xF0 | (c >> 18));
    b[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    b[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    b[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* Reads the code point at r->i; -1 at a byte that is not UTF-8. */
static int rx_read(rx *r, uint32_t *c)
{
    const unsigned char *u = r->s + r->i;
    size_t k = u[0] < 0x80 ? 1 : capsa__utf8_len(u, r->n - r->i);
    if (k == 0)
        return rx_fail(r, "the pattern is not UTF-8");
    uint32_t v = k == 1 ? u[0] : k == 2 ? (u[0] & 0x1Fu) : k == 3 ? (u[0] & 0x0Fu) : (u[0] & 0x07u);
    for (size_t j = 1; j < k; j++)
        v = (v << 6) | (u[j] & 0x3Fu);
    r->i += k;
    *c = v;
    return 0;
}

/* Reads h hex digits at r->i. */
static int rx_hex(rx *r, int h, uint32_t *c)
{
    uint32_t v = 0;
    for (int k = 0; k < h; k++) {
        if (r->i >= r->n)
            return rx_fail(r, "a \\x or \\u escape needs hex digits");
        unsigned char d = r->s[r->i];
        int x = d >= '0' && d <= '9' ? d - '0' : d >= 'a' && d <= 'f' ? d - 'a' + 10
              : d >= 'A' && d <= 'F' ? d - 'A' + 10 : -1;
        if (x < 0)
            return rx_fail(r, "a \\x or \\u escape needs hex digits");
        v = v * 16 + (uint32_t)x;
        r->i++;
    }
    *c = v;
    return 0;
}

enum { ESC_CHAR, ESC_CLASS, ESC_ASSERT };

/* Reads an escape after its backslash: a character (*c), a class (*c is one of
 * dDwWsS) or, outside a class, an assertion (*c is b or B). */
static int rx_escape(rx *r, int in_class, uint32_t *c)
{
    if (r->i >= r->n)
        return rx_fail(r, "the pattern ends with a backslash");
    unsigned char e = r->s[r->i];
    if (e >= 0x80) /* an escaped non-ASCII character is itself */
        return rx_read(r, c) == 0 ? ESC_CHAR : -1;
    r->i++;
    switch (e) {
    case 'd': case 'D': case 'w': case 'W': case 's': case 'S':
        *c = e;
        return ESC_CLASS;
    case 'b':
        if (in_class) {
            *c = '\b';
            return ESC_CHAR;
        }
        /* fall through */
    case 'B':
        if (in_class)
            return rx_fail(r, "\\B in a class is not supported");
        *c = e;
        return ESC_ASSERT;
    case 't': *c = '\t'; return ESC_CHAR;
    case 'n': *c = '\n'; return ESC_CHAR;
    case 'r': *c = '\r'; return ESC_CHAR;
    case 'f': *c = '\f'; return ESC_CHAR;
    case 'v': *c = '\v'; return ESC_CHAR;
    case 'x':
        if (rx_hex(r, 2, c) != 0)
            return -1;
        break;
    case 'u': {
        if (r->i < r->n && r->s[r->i] == '{')
            return rx_fail(r, "\\u{...} is not supported (it needs the u flag)");
        if (rx_hex(r, 4, c) != 0)
            return -1;
        if (*c >= 0xD800 && *c <= 0xDBFF && r->i + 6 <= r->n && r->s[r->i] == '\\' &&
            r->s[r->i + 1] == 'u') {
            size_t save = r->i;
            uint32_t lo;
            r->i += 2;
            if (rx_hex(r, 4, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF) {
                *c = 0x10000 + ((*c - 0xD800) << 10) + (lo - 0xDC00);
                return ESC_CHAR;
            }
            r->why = NULL;
            r->i = save;
        }
        if (*c >= 0xD800 && *c <= 0xDFFF)
            return rx_fail(r, "a lone surrogate (\\uD800-\\uDFFF) is not supported");
        break;
    }
    case '0':
        return rx_fail(r, "\\0 (a NUL character) is not supported");
    case 'c':
        return rx_fail(r, "\\c (control escapes) is not supported");
    case 'p': case 'P':
        return rx_fail(r, "Unicode property escapes (\\p{...}) are not supported");
    case 'k':
        return rx_fail(r, "back-references are not supported");
    default:
        if (e >= '1' && e <= '9')
            return rx_fail(r, "back-references are not supported");
        if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9'))
            return rx_fail(r, "an unknown escape (a backslash before a letter or digit)");
        *c = e; /* escaped punctuation is itself */
        return ESC_CHAR;
    }
    if (*c == 0)
        return rx_fail(r, "a NUL character is not supported");
    return ESC_CHAR;
}

/* One member of a class at r->i, escaped or not: ESC_CHAR with the character in
 * *c, ESC_CLASS with a class letter in *c, or -1 (r->why says why). */
static int rx_class_atom(rx *r, uint32_t *c)
{
    if (r->s[r->i] == '\\') {
        r->i++;
        return rx_escape(r, 1, c);
    }
    return rx_read(r, c) != 0 ? -1 : ESC_CHAR;
}

/* Writes a literal character outside a class. */
static int rx_literal(rx *r, uint32_t c)
{
    char b[5];
    if (c < 0x80 && strchr(".[]()*+?{}|^$\\", (int)c)) {
        b[0] = '\\';
        b[1] = (char)c;
        return rx_emit(r, b, 2);
    }
    return rx_emit(r, b, utf8_put(c, b));
}

/* Writes a class escape (d D w W s S) outside a class. */
static int rx_class_escape(rx *r, uint32_t e)
{
    switch (e) {
    case 'd': return rx_emit_str(r, "[0-9]");
    case 'D': return rx_emit_str(r, "[^0-9]");
    case 'w': return rx_emit_str(r, "[A-Za-z0-9_]");
    case 'W': return rx_emit_str(r, "[^A-Za-z0-9_]");
    default:
        return rx_emit_str(r, e == 's' ? "[" : "[^") || rx_emit_str(r, rx_space_ascii) ||
               rx_emit_str(r, rx_space_wide) || rx_emit_str(r, "]");
    }
}

static void bit_set(unsigned char *bits, unsigned lo, unsigned hi)
{
    for (unsigned c = lo; c <= hi; c++)
        bits[c >> 3] |= (unsigned char)(1u << (c & 7));
}

static int bit_get(const unsigned char *bits, unsigned c)
{
    return (bits[c >> 3] >> (c & 7)) & 1;
}

/* Translates a class from after its '[' to after its ']': its ASCII members
 * gather in a bitmap, written back as a POSIX bracket expression in an order
 * that keeps ']' '^' '-' '[' literal; non-ASCII members are written one by one. */
static int rx_class(rx *r)
{
    unsigned char bits[16] = { 0 };
    capsa__buf wide = { 0 };
    int negated = 0, rc = -1;
    if (r->i < r->n && r->s[r->i] == '^') {
        negated = 1;
        r->i++;
    }
    for (;;) {
        if (r->i >= r->n) {
            rx_fail(r, "an unclosed class ([ without ])");
            goto done;
        }
        if (r->s[r->i] == ']') {
            r->i++;
            break;
        }
        uint32_t lo, hi;
        int kind = rx_class_atom(r, &lo);
        if (kind < 0)
            goto done;
        if (kind == ESC_CLASS) {
            if (lo == 'D' || lo == 'W' || lo == 'S') {
                rx_fail(r, "\\D, \\W and \\S inside a class are not supported");
                goto done;
            }
            if (lo == 'd')
                bit_set(bits, '0', '9');
            if (lo == 'w') {
                bit_set(bits, '0', '9');
                bit_set(bits, 'A', 'Z');
                bit_set(bits, 'a', 'z');
                bit_set(bits, '_', '_');
            }
            if (lo == 's') {
                for (const char *p = rx_space_ascii; *p; p++)
                    bit_set(bits, (unsigned char)*p, (unsigned char)*p);
                if (capsa__buf_append_str(&wide, r->a, rx_space_wide) != 0) {
                    rx_fail(r, "out of memory");
                    goto done;
                }
            }
            continue;
        }
        hi = lo;
        /* A range: '-' between two characters, not before the closing ']'. */
        if (r->i + 1 < r->n && r->s[r->i] == '-' && r->s[r->i + 1] != ']') {
            r->i++;
            int k2 = rx_class_atom(r, &hi);
            if (k2 < 0)
                goto done;
            if (k2 == ESC_CLASS) {
                rx_fail(r, "a class escape cannot end a range");
                goto done;
            }
            if (hi < lo) {
                rx_fail(r, "a range out of order in a class");
                goto done;
            }
            if (hi >= 0x80) {
                rx_fail(r, "ranges of non-ASCII characters are not supported");
                goto done;
            }
        }
        if (lo < 0x80) {
            bit_set(bits, lo, hi);
        } else {
            char b[4];
            if (capsa__buf_append(&wide, r->a, b, utf8_put(lo, b)) != 0) {
                rx_fail(r, "out of memory");
                goto done;
            }
        }
    }
    int any = wide.len > 0;
    for (unsigned c = 1; c < 128 && !any; c++)
        any = bit_get(bits, c);
    if (!any) {
        /* [^] is any character; [] matches nothing, which is no use in a schema. */
        rc = negated ? rx_emit_str(r, ".") : rx_fail(r, "an empty class [] matches nothing");
        goto done;
    }
    /* '^' must not come first after "[": a class of '^' alone is the literal
     * \^, and one of '^' and '-' is written "[-^]". */
    int caret = bit_get(bits, '^'), dash = bit_get(bits, '-'), others = wide.len > 0;
    for (unsigned c = 1; c < 128 && !others; c++)
        others = c != '^' && c != '-' && bit_get(bits, c);
    if (caret && !others && !negated) {
        rc = rx_emit_str(r, dash ? "[-^]" : "\\^");
        goto done;
    }
    if (rx_emit_str(r, negated ? "[^" : "["))
        goto done;
    if (bit_get(bits, ']') && rx_emit_str(r, "]"))
        goto done;
    for (unsigned c = 1; c < 128; c++) {
        if (!bit_get(bits, c) || c == ']' || c == '^' || c == '-' || c == '[')
            continue;
        unsigned e = c;
        while (e + 1 < 128 && bit_get(bits, e + 1) && e + 1 != ']' && e + 1 != '^' &&
               e + 1 != '-' && e + 1 != '[')
            e++;
        char b[3] = { (char)c, '-', (char)e };
        if (rx_emit(r, b, e >= c + 2 ? 3 : 1))
            goto done;
        if (e == c + 1 && rx_emit(r, b + 2, 1))
            goto done;
        c = e;
    }
    if (wide.len && rx_emit(r, wide.data, wide.len))
        goto done;
    if (bit_get(bits, '[') && rx_emit_str(r, "["))
        goto done;
    if (caret && rx_emit_str(r, "^"))
        goto done;
    if (dash && rx_emit_str(r, "-"))
        goto done;
    rc = rx_emit_str(r, "]");
done:
    capsa__buf_free(&wide, r->a);
    return rc;
}

/* Adds the cost of an atom to the open group. */
static int rx_atom(rx *r, size_t cost)
{
    r->cost[r->top] += cost;
    r->last = cost;
    r->have_atom = 1;
    return r->cost[r->top] > RX_MAX_COST ? rx_fail(r, "the pattern repeats too much") : 0;
}

/* Reads a decimal bound at r->i; -1 when there is none. */
static long rx_bound(rx *r)
{
    long v = -1;
    while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9') {
        v = (v < 0 ? 0 : v) * 10 + (r->s[r->i] - '0');
        if (v > 100000)
            v = 100000;
        r->i++;
    }
    return v;
}

/* Translates a quantifier at r->i, if there is one: 1 when it was, 0 when not. */
static int rx_quantifier(rx *r)
{
    unsigned char q = r->s[r->i];
    long lo = 0, hi = 0;
    size_t start = r->i;
    if (q == '{') {
        r->i++;
        lo = rx_bound(r);
        hi = lo;
        if (lo >= 0 && r->i < r->n && r->s[r->i] == ',') {
            r->i++;
            hi = rx_bound(r); /* -1: no upper bound */
        }
        if (lo < 0 || r->i >= r->n || r->s[r->i] != '}') {
            r->i = start; /* not a quantifier: a literal '{' (Annex B) */
            return 0;
        }
        r->i++;
    } else if (q == '*' || q == '+' || q == '?') {
        r->i++;
    } else {
        return 0;
    }
    if (!r->have_atom)
        return rx_fail(r, "a quantifier with nothing to repeat");
    if (q == '{' && (lo > RX_MAX_BOUND || hi > RX_MAX_BOUND))
        return rx_fail(r, "a repetition bound over 1000");
    if (q == '{' && hi >= 0 && hi < lo)
        return rx_fail(r, "a repetition {n,m} with m < n");
    if (rx_emit(r, (const char *)r->s + start, r->i - start))
        return -1;
    if (r->i < r->n && r->s[r->i] == '?')
        r->i++; /* lazy: the same strings match */
    /* glibc expands {n,m} into copies of its operand. */
    size_t times = q == '{' ? (size_t)(hi < 0 ? lo + 1 : hi) + 1 : q == '+' ? 2 : 1;
    size_t grown = r->last * times;
    r->cost[r->top] += grown - r->last;
    r->last = grown;
    r->have_atom = 0;
    /* A quantifier right after this one finds nothing to repeat: ECMA-262
     * refuses "a**" and "a{2}{3}" too. */
    return r->cost[r->top] > RX_MAX_COST ? rx_fail(r, "the pattern repeats too much") : 1;
}

/* Translates the ECMA-262 pattern src[0..len) into POSIX ERE text in *out (owned
 * by the caller, freed with capsa__buf_free). Returns 0, or -1 with *why set. */
static int rx_translate(const capsa_allocator *a, const char *src, size_t len, capsa__buf *out,
                        const char **why)
{
    rx r = { .s = (const unsigned char *)src, .n = len, .a = a };
    while (r.i < r.n && !r.why) {
        unsigned char ch = r.s[r.i];
        if (ch == '*' || ch == '+' || ch == '?' || ch == '{') {
            if (rx_quantifier(&r) == 0 && !r.why) {
                r.i++;
                if (rx_literal(&r, '{') == 0)
                    rx_atom(&r, 1);
            }
            continue;
        }
        if (ch == '\0') {
            rx_fail(&r, "a NUL character is not supported");
            break;
        }
        if (ch == '(') {
            r.i++;
            if (r.i < r.n && r.s[r.i] == '?') {
                if (r.i + 1 < r.n && r.s[r.i + 1] == ':') {
                    r.i += 2;
                } else if (r.i + 1 < r.n && r.s[r.i + 1] == '<' && r.i + 2 < r.n &&
                           r.s[r.i + 2] != '=' && r.s[r.i + 2] != '!') {
                    const unsigned char *gt = memchr(r.s + r.i, '>', r.n - r.i);
                    if (!gt) {
                        rx_fail(&r, "a group name without '>'");
                        break;
                    }
                    r.i = (size_t)(gt - r.s) + 1;
                } else {
                    rx_fail(&r, "lookahead and lookbehind ((?=, (?!, (?<=, (?<!) are not supported");
                    break;
                }
            }
            if (r.top == RX_MAX_GROUPS) {
                rx_fail(&r, "groups nested more than 64 deep");
                break;
            }
            r.cost[++r.top] = 0;
            r.have_atom = 0;
            rx_emit_str(&r, "(");
            continue;
        }
        if (ch == ')') {
            if (r.top == 0) {
                rx_fail(&r, "an unmatched ')'");
                break;
            }
            r.i++;
            size_t g = r.cost[r.top--];
            if (rx_emit_str(&r, ")") == 0)
                rx_atom(&r, g ? g : 1);
            continue;
        }
        if (ch == '|' || ch == '^' || ch == '$') {
            r.i++;
            r.have_atom = 0;
            rx_emit(&r, (const char *)&ch, 1);
            continue;
        }
        if (ch == '.') {
            r.i++;
            /* Any character but ECMA-262's line terminators. */
            if (rx_emit_str(&r, "[^\n\r\xe2\x80\xa8\xe2\x80\xa9]") == 0)
                rx_atom(&r, 1);
            continue;
        }
        if (ch == '[') {
            r.i++;
            if (rx_class(&r) == 0)
                rx_atom(&r, 1);
            continue;
        }
        uint32_t c;
        int kind = ESC_CHAR;
        if (ch == '\\') {
            r.i++;
            kind = rx_escape(&r, 0, &c);
        } else {
            kind = rx_read(&r, &c) == 0 ? ESC_CHAR : -1;
        }
        if (kind < 0)
            break;
        if (kind == ESC_ASSERT) {
            r.have_atom = 0;
            rx_emit_str(&r, c == 'b' ? "\\b" : "\\B");
        } else if ((kind == ESC_CLASS ? rx_class_escape(&r, c) : rx_literal(&r, c)) == 0) {
            rx_atom(&r, 1);
        }
    }
    if (!r.why && r.top != 0)
        rx_fail(&r, "an unclosed '('");
    if (r.why) {
        capsa__buf_free(&r.out, a);
        *why = r.why;
        return -1;
    }
    if (!r.out.data && rx_emit_str(&r, "()") != 0) { /* the empty pattern */
        *why = r.why;
        return -1;
    }
    *out = r.out;
    return 0;
}

/* The C.UTF-8 locale of s, made when the first pattern needs it. */
static int schema_locale(capsa__schema *s)
{
    if (!s->utf8)
        s->utf8 = newlocale(LC_ALL_MASK, "C.UTF-8", (locale_t)0);
    return s->utf8 ? 0 : -1;
}

/* Compiles the ECMA-262 pattern src[0..len) into p. Returns 0, or -1 with *why
 * set to what is wrong (written into whybuf, whysize bytes, when it is
 * regcomp's text). */
static int pattern_compile(capsa__schema *s, pattern *p, const char *src, size_t len,
                           const char **why, char *whybuf, size_t whysize)
{
    capsa__buf ere = { 0 };
    p->src = src;
    p->len = len;
    if (rx_translate(&s->a, src, len, &ere, why) != 0)
        return -1;
    if (schema_locale(s) != 0) {
        capsa__buf_free(&ere, &s->a);
        *why = "patterns need the C.UTF-8 locale, which this system lacks";
        return -1;
    }
    locale_t old = uselocale(s->utf8);
    int rc = regcomp(&p->re, ere.data, REG_EXTENDED | REG_NOSUB);
    uselocale(old);
    capsa__buf_free(&ere, &s->a);
    if (rc != 0) {
        regerror(rc, &p->re, whybuf, whysize);
        *why = whybuf;
        return -1;
    }
    p->compiled = 1;
    return 0;
}

/* Whether the string str[0..len) has a match of p: 1, 0, or -1 when regexec
 * failed (out of memory). */
static int pattern_match(const capsa__schema *s, const pattern *p, const char *str, size_t len)
{
    regmatch_t m[1];
    m[0].rm_so = 0;
    m[0].rm_eo = (regoff_t)len;
    locale_t old = uselocale(s->utf8);
    int rc = regexec(&p->re, str, 1, m, REG_STARTEND);
    uselocale(old);
    return rc == 0 ? 1 : rc == REG_NOMATCH ? 0 : -1;
}

/* ---- compiling -------------------------------------------------------------------- */

/* A $ref to resolve once the document is compiled: where it is (written out, for
 * messages) and the resource its fragment is relative to. */
typedef struct ref_todo {
    node *n;
    const json_t *resource;
    const char *text;
    char *where;
} ref_todo;

/* A schema resource: the document, or a subschema with an $id. */
typedef struct resource {
    const json_t *root;
    const char *id;
    size_t len;
} resource;

typedef struct anchor {
    const json_t *resource;
    const char *name;
    size_t len;
    const json_t *target;
} anchor;

typedef struct compiler {
    capsa__schema *s;
    unsigned flags;
    int draft7;
    msg err;
    int rc;
    ref_todo *refs;
    size_t nrefs, cap_refs;
    resource *res;
    size_t nres, cap_res;
    anchor *anchors;
    size_t nanchors, cap_anchors;
    char whybuf[128];
} compiler;

static node *cfail(compiler *c, const path *p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static node *cfail(compiler *c, const path *p, const char *fmt, ...)
{
    if (c->rc)
        return NULL;
    c->rc = CAPSA_EINVAL;
    msg_steps(&c->err, p, "#");
    msg_str(&c->err, ": ");
    va_list ap;
    va_start(ap, fmt);
    msg_vprintf(&c->err, fmt, ap);
    va_end(ap);
    return NULL;
}

static node *coom(compiler *c)
{
    if (!c->rc) {
        c->rc = CAPSA_ENOMEM;
        msg_str(&c->err, "out of memory");
    }
    return NULL;
}

/* Makes room for one more element in the array *v of *cap elements of size
 * elem, n used; returns 0, or -1 (and the compile fails) when out of memory. */
static int grow(compiler *c, void **v, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 8;
    void *p = c->s->a.realloc_fn(c->s->a.ud, *v, ncap * elem);
    if (!p) {
        coom(c);
        return -1;
    }
    *v = p;
    *cap = ncap;
    return 0;
}

static void *calloc_n(compiler *c, size_t n, size_t elem)
{
    void *p = n > SIZE_MAX / elem ? NULL : capsa__malloc(&c->s->a, n * elem);
    if (!p) {
        coom(c);
        return NULL;
    }
    memset(p, 0, n * elem);
    return p;
}

/* Whether v nests at most left levels deep. */
static int nest_ok(const json_t *v, unsigned left)
{
    if (!json_is_object(v) && !json_is_array(v))
        return 1;
    if (left == 0)
        return 0;
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++)
            if (!nest_ok(json_array_get(v, i), left - 1))
                return 0;
        return 1;
    }
    for (void *it = json_object_iter((json_t *)v); it; it = json_object_iter_next((json_t *)v, it))
        if (!nest_ok(json_object_iter_value(it), left - 1))
            return 0;
    return 1;
}

/* How each keyword is treated: checked, ignored as an annotation, refused as an
 * assertion this validator does not make, or checked in draft-07 only. */
enum { KW_CHECKED, KW_NOTE, KW_REFUSED, KW_DRAFT7 };
static const struct keyword {
    const char *name;
    int kind;
} keywords[] = {
    { "type", KW_CHECKED }, { "enum", KW_CHECKED }, { "const", KW_CHECKED },
    { "multipleOf", KW_CHECKED }, { "maximum", KW_CHECKED }, { "exclusiveMaximum", KW_CHECKED },
    { "minimum", KW_CHECKED }, { "exclusiveMinimum", KW_CHECKED }, { "maxLength", KW_CHECKED },
    { "minLength", KW_CHECKED }, { "pattern", KW_CHECKED }, { "maxItems", KW_CHECKED },
    { "minItems", KW_CHECKED }, { "uniqueItems", KW_CHECKED }, { "maxContains", KW_CHECKED },
    { "minContains", KW_CHECKED }, { "maxProperties", KW_CHECKED },
    { "minProperties", KW_CHECKED }, { "required", KW_CHECKED },
    { "dependentRequired", KW_CHECKED }, { "prefixItems", KW_CHECKED }, { "items", KW_CHECKED },
    { "contains", KW_CHECKED }, { "properties", KW_CHECKED }, { "patternProperties", KW_CHECKED },
    { "additionalProperties", KW_CHECKED }, { "propertyNames", KW_CHECKED },
    { "dependentSchemas", KW_CHECKED }, { "allOf", KW_CHECKED }, { "anyOf", KW_CHECKED },
    { "oneOf", KW_CHECKED }, { "not", KW_CHECKED }, { "if", KW_CHECKED }, { "then", KW_CHECKED },
    { "else", KW_CHECKED }, { "$ref", KW_CHECKED }, { "$defs", KW_CHECKED },
    { "$anchor", KW_CHECKED }, { "$id", KW_CHECKED }, { "$schema", KW_CHECKED },
    { "title", KW_NOTE }, { "description", KW_NOTE }, { "default", KW_NOTE },
    { "examples", KW_NOTE }, { "deprecated", KW_NOTE }, { "readOnly", KW_NOTE },
    { "writeOnly", KW_NOTE }, { "$comment", KW_NOTE }, { "format", KW_NOTE },
    { "contentEncoding", KW_NOTE }, { "contentMediaType", KW_NOTE },
    { "contentSchema", KW_NOTE }, { "$vocabulary", KW_NOTE },
    { "unevaluatedProperties", KW_REFUSED }, { "unevaluatedItems", KW_REFUSED },
    { "$dynamicRef", KW_REFUSED }, { "$dynamicAnchor", KW_REFUSED },
    { "$recursiveRef", KW_REFUSED }, { "$recursiveAnchor", KW_REFUSED },
    { "additionalItems", KW_DRAFT7 }, { "dependencies", KW_DRAFT7 }, { "definitions", KW_DRAFT7 },
};

static int keyword_kind(const char *k, size_t len)
{
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strlen(keywords[i].name) == len && memcmp(keywords[i].name, k, len) == 0)
            return keywords[i].kind;
    return -1;
}

static node *compile(compiler *c, const json_t *j, const path *p, const json_t *res);

/* A path step for keyword k below p. */
#define KEY_STEP(var, parent, k) path var = { (parent), PATH_KEY, (k), strlen(k), 0 }

/* Compiles the schema under keyword k of j, if it is there: 0, or -1 on error. */
static int sub(compiler *c, const json_t *j, const char *k, const path *p, const json_t *res,
               node **out)
{
    const json_t *v = json_object_get(j, k);
    if (!v)
        return 0;
    KEY_STEP(kp, p, k);
    *out = compile(c, v, &kp, res);
    return *out ? 0 : -1;
}

/* Compiles the non-empty array of schemas under keyword k. */
static int sub_list(compiler *c, const json_t *j, const char *k, const path *p,
                    const json_t *res, node ***out, size_t *n)
{
    const json_t *v = json_object_get(j, k);
    if (!v)
        return 0;
    KEY_STEP(kp, p, k);
    if (!json_is_array(v) || json_array_size(v) == 0)
        return cfail(c, &kp, "%s must be a non-empty array of schemas", k), -1;
    if (!(*out = calloc_n(c, json_array_size(v), sizeof **out)))
        return -1;
    *n = json_array_size(v);
    for (size_t i = 0; i < *n; i++) {
        path ip = { &kp, PATH_INDEX, NULL, 0, i };
        if (!((*out)[i] = compile(c, json_array_get(v, i), &ip, res)))
            return -1;
    }
    return 0;
}

static int named_cmp(const void *x, const void *y)
{
    const named *a = x, *b = y;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return memcmp(a->key, b->key, a->len);
}

/* Compiles the object of schemas v (under keyword k) into *out, sorted by key. */
static int sub_map(compiler *c, const json_t *v, const char *k, const path *p, const json_t *res,
                   named **out, size_t *n)
{
    KEY_STEP(kp, p, k);
    if (!json_is_object(v))
        return cfail(c, &kp, "%s must be an object of schemas", k), -1;
    size_t count = json_object_size(v);
    if (!(*out = calloc_n(c, count ? count : 1, sizeof **out)))
        return -1;
    size_t i = 0;
    for (void *it = json_object_iter((json_t *)v); it; it = json_object_iter_next((json_t *)v, it)) {
        named *e = &(*out)[i++];
        e->key = json_object_iter_key(it);
        e->len = json_object_iter_key_len(it);
        path ep = { &kp, PATH_KEY, e->key, e->len, 0 };
        if (!(e->n = compile(c, json_object_iter_value(it), &ep, res)))
            return -1;
    }
    *n = i;
    qsort(*out, i, sizeof **out, named_cmp);
    return 0;
}

/* Reads a non-negative integer (1.0 counts as 1): 0, or -1 on error. */
static int nonneg(compiler *c, const json_t *j, const char *k, const path *p, uint64_t *out)
{
    const json_t *v = json_object_get(j, k);
    if (!v)
        return 0;
    KEY_STEP(kp, p, k);
    double d = json_is_integer(v) ? (double)json_integer_value(v) : json_is_real(v) ? json_real_value(v) : -1;
    if (!json_is_number(v) || d < 0 || d != floor(d))
        return cfail(c, &kp, "%s must be a non-negative integer", k), -1;
    *out = json_is_integer(v) ? (uint64_t)json_integer_value(v)
         : d >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)d;
    return 0;
}

static int number(compiler *c, const json_t *j, const char *k, const path *p, const json_t **out)
{
    const json_t *v = json_object_get(j, k);
    if (!v)
        return 0;
    KEY_STEP(kp, p, k);
    if (!json_is_number(v))
        return cfail(c, &kp, "%s must be a number, got %s", k, capsa__json_kind(v, 0)), -1;
    *out = v;
    return 0;
}

/* Checks an array of property names. */
static int names_ok(compiler *c, const json_t *v, const path *p, const char *what)
{
    if (!json_is_array(v))
        return cfail(c, p, "%s must be an array of strings", what), -1;
    for (size_t i = 0; i < json_array_size(v); i++)
        if (!json_is_string(json_array_get(v, i))) {
            path ip = { p, PATH_INDEX, NULL, 0, i };
            return cfail(c, &ip, "%s must be an array of strings", what), -1;
        }
    return 0;
}

static int compile_type(compiler *c, node *n, const json_t *t, const path *p)
{
    KEY_STEP(kp, p, "type");
    size_t count = json_is_array(t) ? json_array_size(t) : 1;
    if (!json_is_string(t) && !(json_is_array(t) && count > 0))
        return cfail(c, &kp, "type must be a type name or a non-empty array of them"), -1;
    for (size_t i = 0; i < count; i++) {
        const json_t *e = json_is_array(t) ? json_array_get(t, i) : t;
        path ip = { &kp, PATH_INDEX, NULL, 0, i };
        const path *ep = json_is_array(t) ? &ip : &kp;
        if (!json_is_string(e))
            return cfail(c, ep, "type must be a type name or a non-empty array of them"), -1;
        unsigned bit = 0;
        for (unsigned k = 0; k < sizeof type_names / sizeof type_names[0]; k++)
            if (strcmp(json_string_value(e), type_names[k]) == 0)
                bit = 1u << k;
        if (!bit) {
            cfail(c, ep, "unknown type ");
            msg_quoted(&c->err, json_string_value(e), json_string_length(e));
            return -1;
        }
        if (n->types & bit)
            return cfail(c, ep, "type '%s' is listed twice", json_string_value(e)), -1;
        n->types |= bit;
    }
    return 0;
}

static int compile_pattern(compiler *c, pattern *pat, const char *src, size_t len, const path *p)
{
    const char *why = NULL;
    if (pattern_compile(c->s, pat, src, len, &why, c->whybuf, sizeof c->whybuf) != 0) {
        if (strcmp(why, "out of memory") == 0)
            return coom(c), -1;
        cfail(c, p, "pattern ");
        msg_quoted(&c->err, src, len);
        msg_printf(&c->err, ": %s", why);
        return -1;
    }
    return 0;
}

static int add_resource(compiler *c, const json_t *root, const json_t *id)
{
    if (grow(c, (void **)&c->res, &c->cap_res, c->nres, sizeof *c->res))
        return -1;
    resource *r = &c->res[c->nres++];
    r->root = root;
    r->id = json_string_value(id);
    r->len = json_string_length(id);
    if (r->len && r->id[r->len - 1] == '#')
        r->len--;
    return 0;
}

static int add_anchor(compiler *c, const json_t *res, const char *name, size_t len,
                      const json_t *target, const path *p)
{
    if (len == 0 || !((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z') ||
                      name[0] == '_'))
        return cfail(c, p, "an anchor must start with a letter or '_'"), -1;
    for (size_t i = 0; i < c->nanchors; i++)
        if (c->anchors[i].resource == res && c->anchors[i].len == len &&
            memcmp(c->anchors[i].name, name, len) == 0)
            return cfail(c, p, "the anchor '%.*s' is defined twice", (int)(len > 100 ? 100 : len),
                         name), -1;
    if (grow(c, (void **)&c->anchors, &c->cap_anchors, c->nanchors, sizeof *c->anchors))
        return -1;
    c->anchors[c->nanchors++] = (anchor){ res, name, len, target };
    return 0;
}

/* Records the $ref of n for resolution after the whole document is compiled. */
static int add_ref(compiler *c, node *n, const json_t *ref, const path *p, const json_t *res)
{
    KEY_STEP(kp, p, "$ref");
    if (!json_is_string(ref))
        return cfail(c, &kp, "$ref must be a string"), -1;
    char where[256];
    msg w;
    msg_init(&w, where, sizeof where);
    msg_steps(&w, &kp, "#");
    if (grow(c, (void **)&c->refs, &c->cap_refs, c->nrefs, sizeof *c->refs))
        return -1;
    char *copy = capsa__strndup(&c->s->a, where, w.len);
    if (!copy)
        return coom(c), -1;
    c->refs[c->nrefs++] = (ref_todo){ n, res, json_string_value(ref), copy };
    n->ref_text = json_string_value(ref);
    return 0;
}

/* Checks the keys of j: refused keywords fail, and so do unknown ones when the
 * compile is strict. */
static int check_keywords(compiler *c, const json_t *j, const path *p)
{
    for (void *it = json_object_iter((json_t *)j); it; it = json_object_iter_next((json_t *)j, it)) {
        const char *k = json_object_iter_key(it);
        size_t len = json_object_iter_key_len(it);
        int kind = keyword_kind(k, len);
        path kp = { p, PATH_KEY, k, len, 0 };
        if (kind == KW_REFUSED)
            return cfail(c, &kp, "%s is not supported by this validator", k), -1;
        if (kind == KW_DRAFT7 && !c->draft7 && strcmp(k, "additionalItems") == 0)
            return cfail(c, &kp, "additionalItems is draft-07: in 2020-12 use prefixItems and "
                         "items (or declare \"$schema\" draft-07)"), -1;
        if (kind == KW_DRAFT7 && !c->draft7 && strcmp(k, "dependencies") == 0)
            return cfail(c, &kp, "dependencies is draft-07: in 2020-12 use dependentRequired or "
                         "dependentSchemas (or declare \"$schema\" draft-07)"), -1;
        if (kind < 0 && (c->flags & CAPSA__SCHEMA_STRICT)) {
            cfail(c, &kp, "unknown keyword ");
            msg_quoted(&c->err, k, len);
            return -1;
        }
    }
    return 0;
}

/* draft-07's dependencies: arrays go to dependentRequired, schemas to
 * dependentSchemas, after those that the 2020-12 keywords gave. */
static int compile_dependencies(compiler *c, node *n, const json_t *deps, const path *p,
                                const json_t *res)
{
    KEY_STEP(kp, p, "dependencies");
    if (!json_is_object(deps))
        return cfail(c, &kp, "dependencies must be an object"), -1;
    size_t total = json_object_size(deps);
    dep_required *dr = calloc_n(c, n->ndep_required + total + 1, sizeof *dr);
    named *ds = calloc_n(c, n->ndep_schemas + total + 1, sizeof *ds);
    if (!dr || !ds) {
        capsa__free(&c->s->a, dr);
        capsa__free(&c->s->a, ds);
        return -1;
    }
    if (n->ndep_required)
        memcpy(dr, n->dep_required, n->ndep_required * sizeof *dr);
    if (n->ndep_schemas)
        memcpy(ds, n->dep_schemas, n->ndep_schemas * sizeof *ds);
    capsa__free(&c->s->a, n->dep_required);
    capsa__free(&c->s->a, n->dep_schemas);
    n->dep_required = dr;
    n->dep_schemas = ds;
    for (void *it = json_object_iter((json_t *)deps); it; it = json_object_iter_next((json_t *)deps, it)) {
        const char *k = json_object_iter_key(it);
        size_t len = json_object_iter_key_len(it);
        const json_t *v = json_object_iter_value(it);
        path ep = { &kp, PATH_KEY, k, len, 0 };
        if (json_is_array(v)) {
            if (names_ok(c, v, &ep, "a dependency") != 0)
                return -1;
            n->dep_required[n->ndep_required++] = (dep_required){ k, len, v };
        } else {
            node *d = compile(c, v, &ep, res);
            if (!d)
                return -1;
            n->dep_schemas[n->ndep_schemas++] = (named){ k, len, d };
        }
    }
    return 0;
}

/* draft-07's items as an array: a tuple, with additionalItems for the rest. */
static int compile_tuple(compiler *c, node *n, const json_t *j, const path *p, const json_t *res)
{
    node *extra = NULL;
    if (sub_list(c, j, "items", p, res, &n->prefix, &n->nprefix) != 0 ||
        sub(c, j, "additionalItems", p, res, &extra) != 0)
        return -1;
    n->items = extra;
    return 0;
}

/* Compiles the subschemas kept for references ($defs; in draft-07 also
 * definitions) now, so that their errors show and their anchors are known. */
static int compile_defs(compiler *c, const json_t *j, const path *p, const json_t *res)
{
    const char *defs[] = { "$defs", c->draft7 ? "definitions" : NULL };
    for (int i = 0; i < 2 && defs[i]; i++) {
        named *tmp = NULL;
        size_t count = 0;
        const json_t *v = json_object_get(j, defs[i]);
        int rc = v ? sub_map(c, v, defs[i], p, res, &tmp, &count) : 0;
        capsa__free(&c->s->a, tmp);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Compiles the keywords of the schema object j into n. */
static int compile_keywords(compiler *c, node *n, const json_t *j, const path *p, const json_t *res)
{
    const json_t *v;
    if (c->draft7 && (v = json_object_get(j, "$ref"))) {
        /* draft-07: the siblings of $ref are ignored, but for the subschemas kept
         * for references (their anchors may be the target). */
        return add_ref(c, n, v, p, res) != 0 || compile_defs(c, j, p, res) != 0 ? -1 : 0;
    }
    if (check_keywords(c, j, p) != 0)
        return -1;
    if ((v = json_object_get(j, "$id"))) {
        KEY_STEP(kp, p, "$id");
        if (!json_is_string(v))
            return cfail(c, &kp, "$id must be a string"), -1;
        const char *id = json_string_value(v), *hash = strchr(id, '#');
        if (c->draft7 && id[0] == '#') {
            if (add_anchor(c, res, id + 1, json_string_length(v) - 1, j, &kp) != 0)
                return -1;
        } else if (hash && hash[1] != '\0') {
            return cfail(c, &kp, "$id must not have a fragment (name the place with $anchor)"), -1;
        } else {
            if (j != c->s->doc)
                res = j; /* an embedded resource: its own fragments */
            if (add_resource(c, res, v) != 0)
                return -1;
        }
    }
    if ((v = json_object_get(j, "$anchor"))) {
        KEY_STEP(kp, p, "$anchor");
        if (!json_is_string(v))
            return cfail(c, &kp, "$anchor must be a string"), -1;
        if (add_anchor(c, res, json_string_value(v), json_string_length(v), j, &kp) != 0)
            return -1;
    }
    if ((v = json_object_get(j, "$ref")) && add_ref(c, n, v, p, res) != 0)
        return -1;
    if ((v = json_object_get(j, "type")) && compile_type(c, n, v, p) != 0)
        return -1;
    if ((v = json_object_get(j, "enum"))) {
        KEY_STEP(kp, p, "enum");
        if (!json_is_array(v))
            return cfail(c, &kp, "enum must be an array"), -1;
        n->enum_values = v;
    }
    n->const_value = json_object_get(j, "const");
    if (number(c, j, "minimum", p, &n->minimum) || number(c, j, "maximum", p, &n->maximum) ||
        number(c, j, "exclusiveMinimum", p, &n->ex_minimum) ||
        number(c, j, "exclusiveMaximum", p, &n->ex_maximum) ||
        number(c, j, "multipleOf", p, &n->multiple_of))
        return -1;
    if (n->multiple_of && !(json_is_integer(n->multiple_of) ? json_integer_value(n->multiple_of) > 0
                                                             : json_real_value(n->multiple_of) > 0)) {
        KEY_STEP(kp, p, "multipleOf");
        return cfail(c, &kp, "multipleOf must be greater than 0"), -1;
    }
    if (nonneg(c, j, "minLength", p, &n->min_length) || nonneg(c, j, "maxLength", p, &n->max_length) ||
        nonneg(c, j, "minItems", p, &n->min_items) || nonneg(c, j, "maxItems", p, &n->max_items) ||
        nonneg(c, j, "minContains", p, &n->min_contains) ||
        nonneg(c, j, "maxContains", p, &n->max_contains) ||
        nonneg(c, j, "minProperties", p, &n->min_props) ||
        nonneg(c, j, "maxProperties", p, &n->max_props))
        return -1;
    if ((v = json_object_get(j, "pattern"))) {
        KEY_STEP(kp, p, "pattern");
        if (!json_is_string(v))
            return cfail(c, &kp, "pattern must be a string"), -1;
        if (!(n->pattern = calloc_n(c, 1, sizeof *n->pattern)) ||
            compile_pattern(c, n->pattern, json_string_value(v), json_string_length(v), &kp) != 0)
            return -1;
    }
    if ((v = json_object_get(j, "uniqueItems"))) {
        KEY_STEP(kp, p, "uniqueItems");
        if (!json_is_boolean(v))
            return cfail(c, &kp, "uniqueItems must be a boolean"), -1;
        n->unique_items = json_is_true(v);
    }
    if ((v = json_object_get(j, "required"))) {
        KEY_STEP(kp, p, "required");
        if (names_ok(c, v, &kp, "required") != 0)
            return -1;
        n->required = v;
    }
    if ((v = json_object_get(j, "dependentRequired"))) {
        KEY_STEP(kp, p, "dependentRequired");
        if (!json_is_object(v))
            return cfail(c, &kp, "dependentRequired must be an object of arrays of strings"), -1;
        if (!(n->dep_required = calloc_n(c, json_object_size(v) + 1, sizeof *n->dep_required)))
            return -1;
        for (void *it = json_object_iter((json_t *)v); it; it = json_object_iter_next((json_t *)v, it)) {
            dep_required *d = &n->dep_required[n->ndep_required++];
            d->key = json_object_iter_key(it);
            d->len = json_object_iter_key_len(it);
            d->names = json_object_iter_value(it);
            path ep = { &kp, PATH_KEY, d->key, d->len, 0 };
            if (names_ok(c, d->names, &ep, "a dependentRequired entry") != 0)
                return -1;
        }
    }
    if ((v = json_object_get(j, "dependentSchemas")) &&
        sub_map(c, v, "dependentSchemas", p, res, &n->dep_schemas, &n->ndep_schemas) != 0)
        return -1;
    if (c->draft7 && (v = json_object_get(j, "dependencies")) &&
        compile_dependencies(c, n, v, p, res) != 0)
        return -1;
    if (sub_list(c, j, "prefixItems", p, res, &n->prefix, &n->nprefix) != 0)
        return -1;
    if ((v = json_object_get(j, "items")) && json_is_array(v)) {
        KEY_STEP(kp, p, "items");
        if (!c->draft7)
            return cfail(c, &kp, "items must be a schema: in 2020-12 an array of schemas is "
                         "prefixItems (or declare \"$schema\" draft-07)"), -1;
        if (n->prefix)
            return cfail(c, &kp, "prefixItems and an array under items cannot be combined"), -1;
        if (compile_tuple(c, n, j, p, res) != 0)
            return -1;
    } else if (sub(c, j, "items", p, res, &n->items) != 0) {
        return -1;
    }
    if (sub(c, j, "contains", p, res, &n->contains) != 0)
        return -1;
    if ((v = json_object_get(j, "properties")) &&
        sub_map(c, v, "properties", p, res, &n->props, &n->nprops) != 0)
        return -1;
    if ((v = json_object_get(j, "patternProperties"))) {
        KEY_STEP(kp, p, "patternProperties");
        if (!json_is_object(v))
            return cfail(c, &kp, "patternProperties must be an object of schemas"), -1;
        if (!(n->pattern_props = calloc_n(c, json_object_size(v) + 1, sizeof *n->pattern_props)))
            return -1;
        for (void *it = json_object_iter((json_t *)v); it; it = json_object_iter_next((json_t *)v, it)) {
            pattern_prop *pp = &n->pattern_props[n->npattern_props++];
            path ep = { &kp, PATH_KEY, json_object_iter_key(it), json_object_iter_key_len(it), 0 };
            if (compile_pattern(c, &pp->pat, ep.key, ep.len, &ep) != 0 ||
                !(pp->n = compile(c, json_object_iter_value(it), &ep, res)))
                return -1;
        }
    }
    if (sub(c, j, "additionalProperties", p, res, &n->additional) != 0 ||
        sub(c, j, "propertyNames", p, res, &n->property_names) != 0 ||
        sub_list(c, j, "allOf", p, res, &n->all_of, &n->nall_of) != 0 ||
        sub_list(c, j, "anyOf", p, res, &n->any_of, &n->nany_of) != 0 ||
        sub_list(c, j, "oneOf", p, res, &n->one_of, &n->none_of) != 0 ||
        sub(c, j, "not", p, res, &n->not_) != 0 || sub(c, j, "if", p, res, &n->if_) != 0)
        return -1;
    if (n->if_ && (sub(c, j, "then", p, res, &n->then_) != 0 ||
                   sub(c, j, "else", p, res, &n->else_) != 0))
        return -1;
    return compile_defs(c, j, p, res);
}

static node *compile(compiler *c, const json_t *j, const path *p, const json_t *res)
{
    if (c->rc)
        return NULL;
    node *n = map_get(c->s, j);
    if (n)
        return n;
    if (!json_is_object(j) && !json_is_boolean(j))
        return cfail(c, p, "a schema must be an object or a boolean, got %s",
                     capsa__json_kind(j, 0));
    n = calloc_n(c, 1, sizeof *n);
    if (!n)
        return NULL;
    n->json = j;
    n->max_length = n->max_items = n->max_props = n->max_contains = UINT64_MAX;
    n->min_contains = 1;
    n->kind = json_is_true(j) ? NODE_TRUE : json_is_false(j) ? NODE_FALSE : NODE_OBJECT;
    if (node_add(c->s, n) != 0) {
        capsa__free(&c->s->a, n);
        return coom(c);
    }
    if (n->kind == NODE_OBJECT && compile_keywords(c, n, j, p, res) != 0)
        return NULL;
    return n;
}

/* ---- references -------------------------------------------------------------------- */

static int hexval(char h)
{
    return h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
         : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
}

/* Follows the JSON Pointer ptr[0..len) (already percent-decoded) from v; NULL
 * with *why set when it leads nowhere. */
static const json_t *pointer_get(const json_t *v, const char *ptr, size_t len, const char **why)
{
    char tok[512];
    size_t i = 0;
    while (v && i < len) {
        if (ptr[i] != '/') {
            *why = "a JSON Pointer starts with '/'";
            return NULL;
        }
        i++;
        size_t n = 0;
        while (i < len && ptr[i] != '/') {
            char ch = ptr[i++];
            if (ch == '~') {
                ch = i < len && ptr[i] == '0' ? '~' : i < len && ptr[i] == '1' ? '/' : 0;
                if (!ch) {
                    *why = "'~' in a JSON Pointer must be followed by 0 or 1";
                    return NULL;
                }
                i++;
            }
            if (n == sizeof tok) {
                *why = "a step of the pointer is too long";
                return NULL;
            }
            tok[n++] = ch;
        }
        if (json_is_object(v)) {
            v = json_object_getn(v, tok, n);
        } else if (json_is_array(v)) {
            size_t idx = 0;
            int ok = n > 0 && (n == 1 || tok[0] != '0');
            for (size_t k = 0; k < n && ok; k++) {
                ok = tok[k] >= '0' && tok[k] <= '9' && idx <= (SIZE_MAX - 9) / 10;
                idx = idx * 10 + (size_t)(tok[k] - '0');
            }
            v = ok ? json_array_get(v, idx) : NULL;
        } else {
            v = NULL;
        }
    }
    if (!v)
        *why = "there is nothing at that place";
    return v;
}

/* Resolves the reference text against the resource res; NULL with *why set. */
static const json_t *resolve(compiler *c, const char *text, const json_t *res, const char **why)
{
    const char *hash = strchr(text, '#');
    size_t ulen = hash ? (size_t)(hash - text) : strlen(text);
    if (ulen > 0) {
        const json_t *found = NULL;
        for (size_t i = 0; i < c->nres && !found; i++)
            if (c->res[i].len == ulen && memcmp(c->res[i].id, text, ulen) == 0)
                found = c->res[i].root;
        if (!found) {
            *why = "only references within this schema are supported (nothing is fetched, and "
                   "relative URIs are not resolved)";
            return NULL;
        }
        res = found;
    }
    if (!hash || hash[1] == '\0')
        return res;
    /* The fragment, percent-decoded. */
    const char *f = hash + 1;
    size_t flen = strlen(f), n = 0;
    char *dec = capsa__malloc(&c->s->a, flen + 1);
    if (!dec) {
        coom(c);
        *why = "out of memory";
        return NULL;
    }
    for (size_t i = 0; i < flen; i++) {
        if (f[i] == '%' && i + 2 < flen + 1 && hexval(f[i + 1]) >= 0 && hexval(f[i + 2]) >= 0) {
            dec[n++] = (char)(hexval(f[i + 1]) * 16 + hexval(f[i + 2]));
            i += 2;
        } else {
            dec[n++] = f[i];
        }
    }
    const json_t *target = NULL;
    if (dec[0] == '/') {
        target = pointer_get(res, dec, n, why);
    } else {
        for (size_t i = 0; i < c->nanchors && !target; i++)
            if (c->anchors[i].resource == res && c->anchors[i].len == n &&
                memcmp(c->anchors[i].name, dec, n) == 0)
                target = c->anchors[i].target;
        if (!target)
            *why = "no $anchor of that name in its schema resource";
    }
    capsa__free(&c->s->a, dec);
    return target;
}

/* Resolves every recorded $ref, compiling targets that no keyword reached (a
 * pointer into "definitions", say); those may hold references in turn. */
static int resolve_refs(compiler *c)
{
    for (size_t i = 0; i < c->nrefs && !c->rc; i++) {
        ref_todo t = c->refs[i];
        const char *why = NULL;
        const json_t *target = resolve(c, t.text, t.resource, &why);
        if (!target) {
            if (!c->rc) {
                path wp = { NULL, PATH_RAW, t.where, strlen(t.where), 0 };
                cfail(c, &wp, "cannot resolve ");
                msg_quoted(&c->err, t.text, strlen(t.text));
                msg_printf(&c->err, ": %s", why);
            }
            return -1;
        }
        path tp = { NULL, PATH_RAW, t.text, strlen(t.text), 0 };
        if (!(t.n->ref = compile(c, target, &tp, t.resource)))
            return -1;
    }
    return c->rc ? -1 : 0;
}

/* The k-th schema that n applies to the same value (not to a part of it), or
 * NULL when that one is absent; k < in_place_count(n). These are the edges along
 * which a validation can recur without descending into the value. */
static size_t in_place_count(const node *n)
{
    return 5 + n->nall_of + n->nany_of + n->none_of + n->ndep_schemas;
}

static node *in_place(const node *n, size_t k)
{
    node *fixed[] = { n->ref, n->not_, n->if_, n->then_, n->else_ };
    if (k < 5)
        return fixed[k];
    k -= 5;
    if (k < n->nall_of)
        return n->all_of[k];
    k -= n->nall_of;
    if (k < n->nany_of)
        return n->any_of[k];
    k -= n->nany_of;
    if (k < n->none_of)
        return n->one_of[k];
    return n->dep_schemas[k - n->none_of].n;
}

/* Refuses a cycle of in-place edges (it would recur forever on some value): a
 * depth-first search with an explicit stack, so that a long chain of references
 * does not use the C stack. */
static int check_cycles(compiler *c)
{
    capsa__schema *s = c->s;
    struct frame {
        node *n;
        size_t next;
    } *stack = calloc_n(c, s->nnodes, sizeof *stack);
    if (!stack)
        return -1;
    int rc = 0;
    for (size_t r = 0; r < s->nnodes && rc == 0; r++) {
        if (s->nodes[r]->mark)
            continue;
        size_t top = 0;
        stack[top++] = (struct frame){ s->nodes[r], 0 };
        s->nodes[r]->mark = 1;
        while (top && rc == 0) {
            struct frame *f = &stack[top - 1];
            if (f->next == in_place_count(f->n)) {
                f->n->mark = 2;
                top--;
                continue;
            }
            node *next = in_place(f->n, f->next++);
            if (!next)
                continue;
            if (next->mark == 1) {
                const char *ref = NULL;
                for (size_t i = top; i-- > 0 && !ref;) {
                    ref = stack[i].n->ref_text;
                    if (stack[i].n == next)
                        break;
                }
                cfail(c, NULL, "the $ref ");
                msg_quoted(&c->err, ref ? ref : "?", ref ? strlen(ref) : 1);
                msg_str(&c->err, " leads back to itself without descending into the value");
                rc = -1;
            } else if (next->mark == 0) {
                next->mark = 1;
                stack[top++] = (struct frame){ next, 0 };
            }
        }
    }
    capsa__free(&s->a, stack);
    return rc;
}

/* ---- the compile entry points ------------------------------------------------------- */

static int dialect(compiler *c, const json_t *doc)
{
    const json_t *v = json_is_object(doc) ? json_object_get(doc, "$schema") : NULL;
    c->draft7 = (c->flags & CAPSA__SCHEMA_DRAFT7) != 0;
    if (!v)
        return 0;
    path kp = { NULL, PATH_KEY, "$schema", 7, 0 };
    const char *u = json_is_string(v) ? json_string_value(v) : "";
    if (strcmp(u, "https://json-schema.org/draft/2020-12/schema") == 0 ||
        strcmp(u, "https://json-schema.org/draft/2020-12/schema#") == 0) {
        c->draft7 = 0;
        return 0;
    }
    if (strcmp(u, "http://json-schema.org/draft-07/schema") == 0 ||
        strcmp(u, "http://json-schema.org/draft-07/schema#") == 0) {
        c->draft7 = 1;
        return 0;
    }
    cfail(c, &kp, "unsupported $schema ");
    msg_quoted(&c->err, u, strlen(u));
    msg_str(&c->err, " (2020-12 and draft-07 are)");
    return -1;
}

int capsa__schema_compile(const capsa_allocator *a, const json_t *doc, unsigned flags,
                          capsa__schema **out, char *err, size_t errsize)
{
    compiler c = { .flags = flags };
    msg_init(&c.err, err, errsize);
    if (out)
        *out = NULL;
    if (!out || !doc) {
        msg_str(&c.err, "no schema");
        return CAPSA_EINVAL;
    }
    if (!a)
        a = &capsa__default_allocator;
    if (!nest_ok(doc, CAPSA__SCHEMA_MAX_NEST)) {
        msg_printf(&c.err, "#: the schema nests deeper than %d levels", CAPSA__SCHEMA_MAX_NEST);
        return CAPSA_EINVAL;
    }
    capsa__schema *s = capsa__malloc(a, sizeof *s);
    if (!s) {
        msg_str(&c.err, "out of memory");
        return CAPSA_ENOMEM;
    }
    memset(s, 0, sizeof *s);
    s->a = *a;
    c.s = s;
    if (!(s->doc = json_deep_copy(doc))) {
        coom(&c);
    } else if (dialect(&c, s->doc) == 0) {
        s->root = compile(&c, s->doc, NULL, s->doc);
        if (s->root)
            resolve_refs(&c);
        if (!c.rc)
            check_cycles(&c);
    }
    for (size_t i = 0; i < c.nrefs; i++)
        capsa__free(&s->a, c.refs[i].where);
    capsa__free(&s->a, c.refs);
    capsa__free(&s->a, c.res);
    capsa__free(&s->a, c.anchors);
    if (c.rc) {
        capsa__schema_free(s);
        return c.rc;
    }
    *out = s;
    return CAPSA_OK;
}

int capsa__schema_parse(const capsa_allocator *a, const char *text, size_t len, unsigned flags,
                        capsa__schema **out, char *err, size_t errsize)
{
    json_error_t je;
    if (out)
        *out = NULL;
    json_t *doc = text ? capsa__json_load_strict(text, len, JSON_DECODE_ANY, &je) : NULL;
    if (!doc) {
        msg m;
        msg_init(&m, err, errsize);
        if (text)
            msg_printf(&m, "line %d column %d: %s", je.line, je.column, je.text);
        else
            msg_str(&m, "no schema");
        return text && json_error_code(&je) == json_error_out_of_memory ? CAPSA_ENOMEM : CAPSA_EINVAL;
    }
    int rc = capsa__schema_compile(a, doc, flags, out, err, errsize);
    json_decref(doc);
    return rc;
}

/* ---- validation -------------------------------------------------------------------- */

/* One validation: the message being written (NULL while a result is only
 * tested, as under not or contains), the steps taken, and a stop (status, with
 * its own message) when a bound is reached or memory runs out. */
typedef struct vctx {
    const capsa__schema *s;
    msg *m;
    size_t steps;
    int status;
    char stop_text[CAPSA__SCHEMA_MSG_MAX];
} vctx;

static int apply(vctx *c, const node *n, const json_t *v, const path *p, unsigned depth);

/* Writes "path: rule" (when a message is being written); returns 0, the result
 * of a failed check. */
static int vfail(vctx *c, const path *p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int vfail(vctx *c, const path *p, const char *fmt, ...)
{
    if (!c->m || c->m->cut)
        return 0;
    msg_path(c->m, p);
    msg_str(c->m, ": ");
    va_list ap;
    va_start(ap, fmt);
    msg_vprintf(c->m, fmt, ap);
    va_end(ap);
    return 0;
}

/* Stops the validation with code and a message of its own; returns 0. */
static int vstop(vctx *c, int code, const path *p, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int vstop(vctx *c, int code, const path *p, const char *fmt, ...)
{
    if (c->status)
        return 0;
    c->status = code;
    msg m;
    msg_init(&m, c->stop_text, sizeof c->stop_text);
    msg_path(&m, p);
    msg_str(&m, ": ");
    va_list ap;
    va_start(ap, fmt);
    msg_vprintf(&m, fmt, ap);
    va_end(ap);
    return 0;
}

static void rewind_to(msg *m, size_t len, int cut)
{
    if (!m || !m->cap)
        return;
    m->len = len;
    m->cut = cut;
    m->s[len] = '\0';
}

/* Matches pat against str[0..len) as one step of the validation: 1, 0, or -1
 * when the validation stops (steps spent, or regexec out of memory). */
static int vmatch(vctx *c, const pattern *pat, const char *str, size_t len, const path *p)
{
    if (++c->steps > CAPSA__SCHEMA_MAX_STEPS)
        return vstop(c, CAPSA_ETOOBIG, p, "checking this value takes more than %u steps",
                     CAPSA__SCHEMA_MAX_STEPS), -1;
    int r = pattern_match(c->s, pat, str, len);
    if (r < 0)
        vstop(c, CAPSA_ENOMEM, p, "out of memory matching a pattern");
    return r;
}

/* Applies n to v without writing a message: 1, 0, or 0 with c->status set. */
static int test(vctx *c, const node *n, const json_t *v, const path *p, unsigned depth)
{
    msg *m = c->m;
    c->m = NULL;
    int ok = apply(c, n, v, p, depth);
    c->m = m;
    return ok && !c->status;
}

static int integral(const json_t *v)
{
    if (json_is_integer(v))
        return 1;
    double d = json_real_value(v);
    return isfinite(d) && d == floor(d);
}

static int check_type(vctx *c, const node *n, const json_t *v, const path *p)
{
    unsigned t;
    switch (json_typeof(v)) {
    case JSON_NULL: t = T_NULL; break;
    case JSON_TRUE: case JSON_FALSE: t = T_BOOLEAN; break;
    case JSON_OBJECT: t = T_OBJECT; break;
    case JSON_ARRAY: t = T_ARRAY; break;
    case JSON_STRING: t = T_STRING; break;
    default: t = T_NUMBER | (integral(v) ? T_INTEGER : 0); break;
    }
    if (n->types & t)
        return 1;
    if (!c->m)
        return 0;
    msg_path(c->m, p);
    msg_str(c->m, ": expected ");
    unsigned count = 0, total = (unsigned)__builtin_popcount(n->types);
    for (unsigned k = 0; k < sizeof type_names / sizeof type_names[0]; k++) {
        if (!(n->types & (1u << k)))
            continue;
        if (count)
            msg_str(c->m, count + 1 == total ? " or " : ", ");
        msg_str(c->m, type_names[k]);
        count++;
    }
    msg_printf(c->m, ", got %s", capsa__json_kind(v, 0));
    return 0;
}

/* A number's magnitude as digits * 10^exp, from its shortest decimal form. */
typedef struct decimal {
    uint64_t digits;
    int exp;
} decimal;

static void to_decimal(const json_t *v, decimal *d)
{
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        d->digits = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
        d->exp = 0;
    } else {
        double x = fabs(json_real_value(v));
        char buf[40];
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(buf, sizeof buf, "%.*e", prec - 1, x);
            if (strtod(buf, NULL) == x)
                break;
        }
        uint64_t m = 0;
        int ndigits = 0, e = 0;
        for (const char *q = buf; *q; q++) {
            if (*q >= '0' && *q <= '9') {
                m = m * 10 + (uint64_t)(*q - '0');
                ndigits++;
            } else if (*q == 'e') {
                e = atoi(q + 1);
                break;
            }
        }
        d->digits = m;
        d->exp = e - (ndigits - 1);
    }
    while (d->digits && d->digits % 10 == 0) {
        d->digits /= 10;
        d->exp++;
    }
}

/* Whether v is an integer multiple of m (> 0), decided exactly on their decimal
 * forms: the number a schema's author wrote, not its nearest binary double. */
static int is_multiple(const json_t *v, const json_t *m)
{
    decimal x, y;
    to_decimal(v, &x);
    to_decimal(m, &y);
    if (x.digits == 0)
        return 1;
    if (y.digits == 0)
        return 0;
    long k = (long)x.exp - y.exp;
    if (k >= 0) {
        uint64_t r = x.digits % y.digits;
        for (long i = 0; i < k && r; i++)
            r = (uint64_t)(((unsigned __int128)r * 10) % y.digits);
        return r == 0;
    }
    uint64_t d = y.digits;
    for (long i = 0; i < -k; i++) {
        if (d > x.digits / 10)
            return 0;
        d *= 10;
    }
    return x.digits % d == 0;
}

static int check_number(vctx *c, const node *n, const json_t *v, const path *p)
{
    char a[40], b[40];
    if (n->minimum && capsa__json_num_cmp(v, n->minimum) < 0)
        return vfail(c, p, "expected a number >= %s, got %s", num_text(n->minimum, a), num_text(v, b));
    if (n->ex_minimum && capsa__json_num_cmp(v, n->ex_minimum) <= 0)
        return vfail(c, p, "expected a number > %s, got %s", num_text(n->ex_minimum, a), num_text(v, b));
    if (n->maximum && capsa__json_num_cmp(v, n->maximum) > 0)
        return vfail(c, p, "expected a number <= %s, got %s", num_text(n->maximum, a), num_text(v, b));
    if (n->ex_maximum && capsa__json_num_cmp(v, n->ex_maximum) >= 0)
        return vfail(c, p, "expected a number < %s, got %s", num_text(n->ex_maximum, a), num_text(v, b));
    if (n->multiple_of && !is_multiple(v, n->multiple_of))
        return vfail(c, p, "expected a multiple of %s, got %s", num_text(n->multiple_of, a),
                     num_text(v, b));
    return 1;
}

static int check_string(vctx *c, const node *n, const json_t *v, const path *p)
{
    const char *s = json_string_value(v);
    size_t len = json_string_length(v), chars = 0;
    for (size_t i = 0; i < len; i++)
        chars += ((unsigned char)s[i] & 0xC0) != 0x80;
    if (chars < n->min_length)
        return vfail(c, p, "expected at least %llu character%s, got %zu",
                     (unsigned long long)n->min_length, n->min_length == 1 ? "" : "s", chars);
    if (chars > n->max_length)
        return vfail(c, p, "expected at most %llu character%s, got %zu",
                     (unsigned long long)n->max_length, n->max_length == 1 ? "" : "s", chars);
    if (n->pattern) {
        int r = vmatch(c, n->pattern, s, len, p);
        if (r < 0)
            return 0;
        if (r == 0) {
            vfail(c, p, "does not match the pattern ");
            msg_quoted(c->m, n->pattern->src, n->pattern->len);
            return 0;
        }
    }
    return 1;
}

/* ---- uniqueItems ---- */

/* The canonical form of values: equal values (numbers by value, objects whatever
 * their key order) have the same bytes, different values different ones. */
typedef struct canon {
    capsa__buf b;
    vctx *c;
} canon;

typedef struct entry {
    const char *key;
    size_t len;
    const json_t *v;
} entry;

static int entry_cmp(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    size_t n = a->len < b->len ? a->len : b->len;
    int r = memcmp(a->key, b->key, n);
    return r ? r : a->len < b->len ? -1 : a->len > b->len;
}

static int canon_put(canon *k, const json_t *v, const path *p, unsigned depth)
{
    vctx *c = k->c;
    const capsa_allocator *a = &c->s->a;
    char tmp[48];
    if (depth > CAPSA__SCHEMA_MAX_DEPTH)
        return vstop(c, CAPSA_ETOOBIG, p, "uniqueItems: an item nests deeper than %d levels",
                     CAPSA__SCHEMA_MAX_DEPTH), -1;
    if (++c->steps > CAPSA__SCHEMA_MAX_STEPS)
        return vstop(c, CAPSA_ETOOBIG, p, "checking this value takes more than %u steps",
                     CAPSA__SCHEMA_MAX_STEPS), -1;
    if (k->b.len > CAPSA__SCHEMA_MAX_UNIQUE)
        return vstop(c, CAPSA_ETOOBIG, p, "uniqueItems: the items are too large to compare "
                     "(over %u bytes)", CAPSA__SCHEMA_MAX_UNIQUE), -1;
    /* The buffer remembers a failed append: the end checks once. */
    int rc = 0;
    switch (json_typeof(v)) {
    case JSON_NULL: capsa__buf_append(&k->b, a, "n", 1); break;
    case JSON_TRUE: capsa__buf_append(&k->b, a, "t", 1); break;
    case JSON_FALSE: capsa__buf_append(&k->b, a, "f", 1); break;
    case JSON_INTEGER:
        snprintf(tmp, sizeof tmp, "d%" JSON_INTEGER_FORMAT ";", json_integer_value(v));
        capsa__buf_append_str(&k->b, a, tmp);
        break;
    case JSON_REAL: {
        double d = json_real_value(v);
        if (d == floor(d) && fabs(d) < 9223372036854775808.0)
            snprintf(tmp, sizeof tmp, "d%lld;", (long long)d);
        else
            snprintf(tmp, sizeof tmp, "d%.17g;", d);
        capsa__buf_append_str(&k->b, a, tmp);
        break;
    }
    case JSON_STRING:
        snprintf(tmp, sizeof tmp, "s%zu:", json_string_length(v));
        capsa__buf_append_str(&k->b, a, tmp);
        capsa__buf_append(&k->b, a, json_string_value(v), json_string_length(v));
        break;
    case JSON_ARRAY:
        capsa__buf_append(&k->b, a, "[", 1);
        for (size_t i = 0; i < json_array_size(v) && rc == 0 && !k->b.failed; i++) {
            path ip = { p, PATH_INDEX, NULL, 0, i };
            rc = canon_put(k, json_array_get(v, i), &ip, depth + 1);
        }
        capsa__buf_append(&k->b, a, "]", 1);
        break;
    case JSON_OBJECT: {
        size_t n = json_object_size(v), i = 0;
        entry *e = capsa__malloc(a, (n ? n : 1) * sizeof *e);
        if (!e)
            return vstop(c, CAPSA_ENOMEM, p, "out of memory checking uniqueItems"), -1;
        for (void *it = json_object_iter((json_t *)v); it && i < n; it = json_object_iter_next((json_t *)v, it))
            e[i++] = (entry){ json_object_iter_key(it), json_object_iter_key_len(it),
                              json_object_iter_value(it) };
        qsort(e, i, sizeof *e, entry_cmp);
        capsa__buf_append(&k->b, a, "{", 1);
        for (size_t j = 0; j < i && rc == 0 && !k->b.failed; j++) {
            path kp = { p, PATH_KEY, e[j].key, e[j].len, 0 };
            snprintf(tmp, sizeof tmp, "s%zu:", e[j].len);
            capsa__buf_append_str(&k->b, a, tmp);
            capsa__buf_append(&k->b, a, e[j].key, e[j].len);
            rc = canon_put(k, e[j].v, &kp, depth + 1);
        }
        capsa__buf_append(&k->b, a, "}", 1);
        capsa__free(a, e);
        break;
    }
    default:
        break;
    }
    if (k->b.failed)
        rc = -1;
    if (rc && !c->status)
        vstop(c, CAPSA_ENOMEM, p, "out of memory checking uniqueItems");
    return rc ? -1 : 0;
}

typedef struct item_form {
    const char *s;
    size_t len, index;
} item_form;

static int item_cmp(const void *x, const void *y)
{
    const item_form *a = x, *b = y;
    size_t n = a->len < b->len ? a->len : b->len;
    int r = memcmp(a->s, b->s, n);
    if (r == 0 && a->len != b->len)
        r = a->len < b->len ? -1 : 1;
    return r ? r : a->index < b->index ? -1 : 1;
}

/* uniqueItems: the items' canonical forms, sorted, have no two alike. The first
 * pair reported is the one whose later item comes first. */
static int check_unique(vctx *c, const json_t *v, const path *p, unsigned depth)
{
    size_t n = json_array_size(v);
    if (n < 2)
        return 1;
    const capsa_allocator *a = &c->s->a;
    canon k = { .c = c };
    item_form *forms = n > SIZE_MAX / sizeof *forms ? NULL : capsa__malloc(a, n * sizeof *forms);
    if (!forms)
        return vstop(c, CAPSA_ENOMEM, p, "out of memory checking uniqueItems");
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        path ip = { p, PATH_INDEX, NULL, 0, i };
        forms[i].len = k.b.len; /* the start, until the buffer stops moving */
        forms[i].index = i;
        ok = canon_put(&k, json_array_get(v, i), &ip, depth + 1) == 0;
    }
    if (ok) {
        for (size_t i = 0; i < n; i++) {
            size_t end = i + 1 < n ? forms[i + 1].len : k.b.len;
            forms[i].s = k.b.data + forms[i].len;
            forms[i].len = end - forms[i].len;
        }
        qsort(forms, n, sizeof *forms, item_cmp);
        size_t first = 0, second = SIZE_MAX;
        for (size_t i = 1; i < n; i++)
            if (forms[i].len == forms[i - 1].len && memcmp(forms[i].s, forms[i - 1].s, forms[i].len) == 0 &&
                forms[i].index < second) {
                first = forms[i - 1].index;
                second = forms[i].index;
            }
        if (second != SIZE_MAX)
            ok = vfail(c, p, "items %zu and %zu are equal, expected unique items", first, second);
    }
    capsa__free(a, forms);
    capsa__buf_free(&k.b, a);
    return ok;
}

static int check_array(vctx *c, const node *n, const json_t *v, const path *p, unsigned depth)
{
    size_t size = json_array_size(v);
    if (size < n->min_items)
        return vfail(c, p, "expected at least %llu item%s, got %zu", (unsigned long long)n->min_items,
                     n->min_items == 1 ? "" : "s", size);
    if (size > n->max_items)
        return vfail(c, p, "expected at most %llu item%s, got %zu", (unsigned long long)n->max_items,
                     n->max_items == 1 ? "" : "s", size);
    for (size_t i = 0; i < size; i++) {
        const node *e = i < n->nprefix ? n->prefix[i] : n->items;
        if (!e)
            break;
        if (e->kind == NODE_FALSE && i >= n->nprefix)
            return vfail(c, p, "expected at most %zu item%s (no more are allowed), got %zu", n->nprefix,
                         n->nprefix == 1 ? "" : "s", size);
        path ip = { p, PATH_INDEX, NULL, 0, i };
        if (!apply(c, e, json_array_get(v, i), &ip, depth + 1))
            return 0;
    }
    if (n->contains) {
        size_t matched = 0;
        for (size_t i = 0; i < size; i++) {
            path ip = { p, PATH_INDEX, NULL, 0, i };
            matched += (size_t)test(c, n->contains, json_array_get(v, i), &ip, depth + 1);
            if (c->status)
                return 0;
            if (matched >= n->min_contains && n->max_contains == UINT64_MAX)
                break;
        }
        if (matched < n->min_contains && n->min_contains == 1)
            return vfail(c, p, "no item matches the schema of contains");
        if (matched < n->min_contains)
            return vfail(c, p, "expected at least %llu items matching contains, got %zu",
                         (unsigned long long)n->min_contains, matched);
        if (matched > n->max_contains)
            return vfail(c, p, "expected at most %llu item%s matching contains, got %zu",
                         (unsigned long long)n->max_contains, n->max_contains == 1 ? "" : "s", matched);
    }
    return !n->unique_items || check_unique(c, v, p, depth);
}

/* The property named key[0..len) of the object v (NULL: absent). */
static const json_t *member(const json_t *v, const char *key, size_t len)
{
    return json_object_getn(v, key, len);
}

/* The checks of one property: properties, patternProperties, and
 * additionalProperties when neither named it; then propertyNames. */
static int check_property(vctx *c, const node *n, const char *key, size_t len, const json_t *w,
                          const path *p, unsigned depth)
{
    path kp = { p, PATH_KEY, key, len, 0 };
    int seen = 0;
    if (n->nprops) {
        named probe = { key, len, NULL };
        const named *hit = bsearch(&probe, n->props, n->nprops, sizeof probe, named_cmp);
        if (hit && !apply(c, hit->n, w, &kp, depth + 1))
            return 0;
        seen = hit != NULL;
    }
    for (size_t i = 0; i < n->npattern_props; i++) {
        int r = vmatch(c, &n->pattern_props[i].pat, key, len, &kp);
        if (r < 0)
            return 0;
        if (r && !apply(c, n->pattern_props[i].n, w, &kp, depth + 1))
            return 0;
        seen |= r;
    }
    if (!seen && n->additional) {
        if (n->additional->kind == NODE_FALSE) {
            vfail(c, p, "property ");
            msg_quoted(c->m, key, len);
            msg_str(c->m, " is not allowed");
            return 0;
        }
        if (!apply(c, n->additional, w, &kp, depth + 1))
            return 0;
    }
    if (n->property_names) {
        path np = { p, PATH_NAME, key, len, 0 };
        json_t *name = json_stringn_nocheck(key, len);
        if (!name)
            return vstop(c, CAPSA_ENOMEM, p, "out of memory checking propertyNames");
        int ok = apply(c, n->property_names, name, &np, depth + 1);
        json_decref(name);
        return ok;
    }
    return 1;
}

static int check_object(vctx *c, const node *n, const json_t *v, const path *p, unsigned depth)
{
    size_t size = json_object_size(v);
    if (size < n->min_props)
        return vfail(c, p, "expected at least %llu propert%s, got %zu", (unsigned long long)n->min_props,
                     n->min_props == 1 ? "y" : "ies", size);
    if (size > n->max_props)
        return vfail(c, p, "expected at most %llu propert%s, got %zu", (unsigned long long)n->max_props,
                     n->max_props == 1 ? "y" : "ies", size);
    for (size_t i = 0; i < json_array_size(n->required); i++) {
        const json_t *r = json_array_get(n->required, i);
        if (!member(v, json_string_value(r), json_string_length(r))) {
            vfail(c, p, "missing required property ");
            msg_quoted(c->m, json_string_value(r), json_string_length(r));
            return 0;
        }
    }
    for (size_t i = 0; i < n->ndep_required; i++) {
        const dep_required *d = &n->dep_required[i];
        if (!member(v, d->key, d->len))
            continue;
        for (size_t k = 0; k < json_array_size(d->names); k++) {
            const json_t *r = json_array_get(d->names, k);
            if (member(v, json_string_value(r), json_string_length(r)))
                continue;
            vfail(c, p, "property ");
            msg_quoted(c->m, json_string_value(r), json_string_length(r));
            msg_str(c->m, " is required when ");
            msg_quoted(c->m, d->key, d->len);
            msg_str(c->m, " is present");
            return 0;
        }
    }
    if (n->nprops || n->npattern_props || n->additional || n->property_names) {
        for (void *it = json_object_iter((json_t *)v); it; it = json_object_iter_next((json_t *)v, it))
            if (!check_property(c, n, json_object_iter_key(it), json_object_iter_key_len(it),
                                json_object_iter_value(it), p, depth))
                return 0;
    }
    for (size_t i = 0; i < n->ndep_schemas; i++)
        if (member(v, n->dep_schemas[i].key, n->dep_schemas[i].len) &&
            !apply(c, n->dep_schemas[i].n, v, p, depth + 1))
            return 0;
    return 1;
}

/* anyOf and oneOf. While a message is written, each alternative's failure is
 * added to it ("... of anyOf: [0] /x: expected string, got number; [1] ..."),
 * and taken back when the keyword holds after all. */
static int check_alternatives(vctx *c, node *const *alts, size_t count, int one, const json_t *v,
                              const path *p, unsigned depth)
{
    msg *m = c->m;
    size_t mark = m ? m->len : 0;
    int mark_cut = m ? m->cut : 0;
    vfail(c, p, "matches none of the %zu schemas of %s:", count, one ? "oneOf" : "anyOf");
    size_t body = m ? m->len : 0, matched = 0, first = 0;
    for (size_t i = 0; i < count; i++) {
        size_t before = m ? m->len : 0;
        int before_cut = m ? m->cut : 0;
        if (m && m->len > body)
            msg_str(m, ";");
        msg_printf(m, " [%zu] ", i);
        int ok = apply(c, alts[i], v, p, depth + 1);
        if (c->status)
            return 0;
        if (!ok)
            continue;
        rewind_to(m, before, before_cut);
        if (!one) {
            rewind_to(m, mark, mark_cut);
            return 1;
        }
        if (matched++ == 0) {
            first = i;
            continue;
        }
        rewind_to(m, mark, mark_cut);
        return vfail(c, p, "matches both schema %zu and schema %zu of oneOf, expected exactly one",
                     first, i);
    }
    if (matched == 1) {
        rewind_to(m, mark, mark_cut);
        return 1;
    }
    return 0;
}

static int apply(vctx *c, const node *n, const json_t *v, const path *p, unsigned depth)
{
    if (c->status)
        return 0;
    if (depth > CAPSA__SCHEMA_MAX_DEPTH)
        return vstop(c, CAPSA_ETOOBIG, p, "the schema goes deeper than %d levels here",
                     CAPSA__SCHEMA_MAX_DEPTH);
    if (++c->steps > CAPSA__SCHEMA_MAX_STEPS)
        return vstop(c, CAPSA_ETOOBIG, p, "checking this value takes more than %u steps",
                     CAPSA__SCHEMA_MAX_STEPS);
    if (n->kind == NODE_TRUE)
        return 1;
    if (n->kind == NODE_FALSE)
        return vfail(c, p, "no value is allowed here");
    if (n->ref && !apply(c, n->ref, v, p, depth + 1))
        return 0;
    if (n->types && !check_type(c, n, v, p))
        return 0;
    if (n->const_value && !capsa__json_equal(v, n->const_value, CAPSA__SCHEMA_MAX_NEST + 1)) {
        vfail(c, p, "expected the value ");
        msg_json(c->m, n->const_value);
        return 0;
    }
    if (n->enum_values) {
        size_t i, count = json_array_size(n->enum_values);
        for (i = 0; i < count; i++)
            if (capsa__json_equal(v, json_array_get(n->enum_values, i), CAPSA__SCHEMA_MAX_NEST + 1))
                break;
        if (i == count) {
            vfail(c, p, "expected one of ");
            msg_json(c->m, n->enum_values);
            return 0;
        }
    }
    int ok = 1;
    switch (json_typeof(v)) {
    case JSON_INTEGER: case JSON_REAL: ok = check_number(c, n, v, p); break;
    case JSON_STRING: ok = check_string(c, n, v, p); break;
    case JSON_ARRAY: ok = check_array(c, n, v, p, depth); break;
    case JSON_OBJECT: ok = check_object(c, n, v, p, depth); break;
    default: break;
    }
    if (!ok)
        return 0;
    for (size_t i = 0; i < n->nall_of; i++)
        if (!apply(c, n->all_of[i], v, p, depth + 1))
            return 0;
    if (n->nany_of && !check_alternatives(c, n->any_of, n->nany_of, 0, v, p, depth))
        return 0;
    if (n->none_of && !check_alternatives(c, n->one_of, n->none_of, 1, v, p, depth))
        return 0;
    if (n->not_) {
        int hit = test(c, n->not_, v, p, depth + 1);
        if (c->status)
            return 0;
        if (hit)
            return vfail(c, p, "must not match the schema of not");
    }
    if (n->if_) {
        int hit = test(c, n->if_, v, p, depth + 1);
        if (c->status)
            return 0;
        const node *branch = hit ? n->then_ : n->else_;
        if (branch && !apply(c, branch, v, p, depth + 1))
            return 0;
    }
    return 1;
}

int capsa__schema_validate(const capsa__schema *s, const json_t *value, char *msgbuf, size_t msgsize)
{
    msg m;
    msg_init(&m, msgbuf, msgsize);
    if (!s || !value) {
        msg_str(&m, "no schema or no value");
        return CAPSA_EINVAL;
    }
    vctx c = { .s = s, .m = msgsize ? &m : NULL };
    int ok = apply(&c, s->root, value, NULL, 0);
    if (c.status) {
        msg_init(&m, msgbuf, msgsize);
        msg_str(&m, c.stop_text);
        return c.status;
    }
    if (ok) {
        msg_init(&m, msgbuf, msgsize);
        return CAPSA_OK;
    }
    return CAPSA_EINVAL;
}
