/* The capability checker for tool calls: loading policies (from a file or piece by
 * piece), matching methods against patterns, evaluating constraints on arguments,
 * spending call budgets, and the messages that tell the model why a call was refused;
 * and the capsa_policy_* functions of capsa.h over a sandbox's policy (which its
 * tools hold, since every call is checked there). The semantics are in policy.h. */
#define _GNU_SOURCE /* memmem */
#include "policy.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json.h"
#include "sandbox.h"

/* ---- the policy in memory ------------------------------------------------------- */

enum {
    OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE, OP_IN, OP_NOT_IN, OP_STARTS_WITH,
    OP_ENDS_WITH, OP_CONTAINS, OP_EXISTS, OP_NOT_EXISTS, OP_AND, OP_OR, OP_COUNT
};

static const char *const op_names[OP_COUNT] = {
    "<", "<=", ">", ">=", "==", "!=", "in", "not_in", "starts_with",
    "ends_with", "contains", "exists", "not_exists", "and", "or",
};

/* One constraint: a leaf (param, op, value) or an and/or of kids. */
typedef struct cons {
    int op;
    char *param;       /* owned, as written; NULL for and/or */
    char *keys;        /* owned: param's segments unescaped, each ended by a NUL */
    size_t nkeys;
    json_t *value;     /* an owned reference; NULL for exists/not_exists and and/or */
    struct cons *kids; /* owned array of nkids, for and/or */
    size_t nkids;
} cons;

typedef struct cap {
    char *pattern;  /* owned */
    cons *cons;     /* owned array of ncons, all of which must hold */
    size_t ncons;
    uint64_t max_calls; /* 0: unlimited */
    uint64_t used;
} cap;

struct capsa__policy {
    capsa_allocator a; /* a copy of the caller's */
    cap *caps;
    size_t n, size;
};

static void cons_free(const capsa_allocator *a, cons *c)
{
    for (size_t i = 0; i < c->nkids; i++)
        cons_free(a, &c->kids[i]);
    capsa__free(a, c->kids);
    capsa__free(a, c->param);
    capsa__free(a, c->keys);
    json_decref(c->value);
}

static void cons_list_free(const capsa_allocator *a, cons *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cons_free(a, &list[i]);
    capsa__free(a, list);
}

/* A zeroed array of n constraints from a, or NULL (n == 0 gives NULL too, which
 * is not a failure: the caller tells by n). */
static cons *cons_array(const capsa_allocator *a, size_t n)
{
    if (n == 0 || n > SIZE_MAX / sizeof(cons))
        return NULL;
    cons *c = capsa__malloc(a, n * sizeof(cons));
    if (c)
        memset(c, 0, n * sizeof(cons));
    return c;
}

/* ---- loading ------------------------------------------------------------------- */

/* What a load is doing: where errors go, and the path of the field being read
 * ("capabilities[1].constraints[0]"), kept as a stack in one buffer. */
typedef struct loader {
    const capsa_allocator *a;
    char *err;
    size_t errsize;
    char path[512];
    size_t pathlen;
} loader;

/* Appends to the field path and returns the previous length, to which the
 * caller sets pathlen back when done. A path too long for the buffer is cut. */
static size_t path_push(loader *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t path_push(loader *L, const char *fmt, ...)
{
    size_t mark = L->pathlen, room = sizeof L->path - L->pathlen;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(L->path + L->pathlen, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        L->pathlen += (size_t)n < room ? (size_t)n : room - 1;
    return mark;
}

static void path_pop(loader *L, size_t mark)
{
    L->pathlen = mark;
    L->path[mark] = '\0';
}

/* Writes "path: message" to the error buffer and returns CAPSA_EINVAL. */
static int fail(loader *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(loader *L, const char *fmt, ...)
{
    if (!L->err || L->errsize == 0)
        return CAPSA_EINVAL;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (L->pathlen)
        snprintf(L->err, L->errsize, "%s: %s", L->path, msg);
    else
        snprintf(L->err, L->errsize, "%s", msg);
    return CAPSA_EINVAL;
}

static int oom(loader *L)
{
    if (L->err && L->errsize)
        snprintf(L->err, L->errsize, "out of memory");
    return CAPSA_ENOMEM;
}

/* Reports a jansson parse error, keeping out-of-memory apart. */
static int json_fail(loader *L, const json_error_t *je)
{
    if (json_error_code(je) == json_error_out_of_memory)
        return oom(L);
    return fail(L, "line %d column %d: %s", je->line, je->column, je->text);
}

/* Fails unless every key of object o is one of the NULL-terminated list. */
static int check_fields(loader *L, const json_t *o, const char *const *allowed)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)o, key, v) {
        size_t i = 0;
        while (allowed[i] && strcmp(allowed[i], key) != 0)
            i++;
        if (!allowed[i])
            return fail(L, "unknown field '%.64s'", key);
    }
    return CAPSA_OK;
}

/* A string field's text, or NULL after failing (as missing, or not a string). */
static const char *string_field(loader *L, const json_t *o, const char *name, int *rc)
{
    const json_t *v = json_object_get(o, name);
    if (!v) {
        *rc = fail(L, "missing field '%s'", name);
        return NULL;
    }
    size_t mark = path_push(L, "%s%s", L->pathlen ? "." : "", name);
    const char *s = NULL;
    if (!json_is_string(v))
        *rc = fail(L, "must be a string, not %s", capsa__json_kind(v, 1));
    else if (strlen(json_string_value(v)) != json_string_length(v))
        *rc = fail(L, "must not contain a NUL character");
    else
        s = json_string_value(v);
    path_pop(L, mark);
    return s;
}

/* Checks a parameter path (segments split on '/') or a pattern (split on '.' and
 * '/'): not empty, no empty segment, and, for a pattern, '*' only as a whole
 * segment "*" or "**". */
static int check_segments(loader *L, const char *s, int pattern)
{
    if (*s == '\0')
        return fail(L, "must not be empty");
    for (const char *seg = s;;) {
        size_t n = strcspn(seg, pattern ? "./" : "/");
        if (n == 0)
            return fail(L, "empty segment in '%.200s'", s);
        if (pattern && memchr(seg, '*', n) && !(n == 1 || (n == 2 && seg[0] == '*' && seg[1] == '*')))
            return fail(L, "'*' must be a whole segment (\"*\" or \"**\") in '%.200s'", s);
        if (seg[n] == '\0')
            return CAPSA_OK;
        seg += n + 1;
    }
}

static int load_cons_list(loader *L, const json_t *arr, int depth, cons **out, size_t *n);

/* Reads a parameter path into c->keys: its segments with the escapes of a JSON
 * Pointer undone ("~1" is '/', "~0" is '~'), so that every key, one holding '/'
 * included, has exactly one path. Any other '~' is an error. */
static int load_param_keys(loader *L, const char *param, cons *c)
{
    size_t len = strlen(param);
    char *keys = capsa__malloc(L->a, len + 1);
    if (!keys)
        return oom(L);
    size_t k = 0, nkeys = 1;
    for (size_t i = 0; i < len; i++) {
        char ch = param[i];
        if (ch == '~') {
            if (param[i + 1] != '0' && param[i + 1] != '1') {
                capsa__free(L->a, keys);
                return fail(L, "'~' must be followed by 0 ('~') or 1 ('/') in '%.200s'", param);
            }
            ch = param[++i] == '0' ? '~' : '/';
        } else if (ch == '/') {
            ch = '\0';
            nkeys++;
        }
        keys[k++] = ch;
    }
    keys[k] = '\0';
    c->keys = keys;
    c->nkeys = nkeys;
    return CAPSA_OK;
}

/* Loads one constraint object j into *c (zeroed by the caller; on failure the
 * caller frees what it holds). depth is the number of enclosing and/or. */
static int load_cons(loader *L, const json_t *j, int depth, cons *c)
{
    if (!json_is_object(j))
        return fail(L, "a constraint must be an object, not %s", capsa__json_kind(j, 1));
    const json_t *j_and = json_object_get(j, "and"), *j_or = json_object_get(j, "or");
    int rc;
    if (j_and || j_or) {
        static const char *const and_fields[] = { "and", NULL };
        static const char *const or_fields[] = { "or", NULL };
        if ((rc = check_fields(L, j, j_and ? and_fields : or_fields)) != CAPSA_OK)
            return rc;
        if (depth >= CAPSA__POLICY_MAX_DEPTH)
            return fail(L, "and/or nested deeper than %d levels", CAPSA__POLICY_MAX_DEPTH);
        c->op = j_and ? OP_AND : OP_OR;
        size_t mark = path_push(L, ".%s", j_and ? "and" : "or");
        const json_t *list = j_and ? j_and : j_or;
        if (!json_is_array(list))
            rc = fail(L, "must be an array, not %s", capsa__json_kind(list, 1));
        else if (json_array_size(list) == 0)
            rc = fail(L, "must hold at least one constraint");
        else
            rc = load_cons_list(L, list, depth + 1, &c->kids, &c->nkids);
        path_pop(L, mark);
        return rc;
    }

    static const char *const leaf_fields[] = { "param", "op", "value", NULL };
    if ((rc = check_fields(L, j, leaf_fields)) != CAPSA_OK)
        return rc;
    const char *param = string_field(L, j, "param", &rc);
    if (!param)
        return rc;
    size_t mark = path_push(L, ".param");
    rc = check_segments(L, param, 0);
    if (rc == CAPSA_OK)
        rc = load_param_keys(L, param, c);
    path_pop(L, mark);
    if (rc != CAPSA_OK)
        return rc;
    const char *op = string_field(L, j, "op", &rc);
    if (!op)
        return rc;
    c->op = 0;
    while (c->op < OP_AND && strcmp(op_names[c->op], op) != 0)
        c->op++;
    if (c->op >= OP_AND) {
        mark = path_push(L, ".op");
        rc = fail(L, "unknown operator '%.64s'", op);
        path_pop(L, mark);
        return rc;
    }

    const json_t *v = json_object_get(j, "value");
    if (c->op == OP_EXISTS || c->op == OP_NOT_EXISTS) {
        if (v) {
            mark = path_push(L, ".value");
            rc = fail(L, "not allowed with '%s'", op_names[c->op]);
            path_pop(L, mark);
            return rc;
        }
    } else {
        if (!v)
            return fail(L, "missing field 'value' (required by '%s')", op_names[c->op]);
        mark = path_push(L, ".value");
        rc = CAPSA_OK;
        switch (c->op) {
        case OP_LT: case OP_LE: case OP_GT: case OP_GE:
            if (!json_is_number(v))
                rc = fail(L, "'%s' needs a number, not %s", op_names[c->op],
                          capsa__json_kind(v, 1));
            break;
        case OP_STARTS_WITH: case OP_ENDS_WITH:
            if (!json_is_string(v))
                rc = fail(L, "'%s' needs a string, not %s", op_names[c->op],
                          capsa__json_kind(v, 1));
            break;
        case OP_IN: case OP_NOT_IN:
            if (!json_is_array(v))
                rc = fail(L, "'%s' needs an array, not %s", op_names[c->op],
                          capsa__json_kind(v, 1));
            else if (json_array_size(v) == 0)
                rc = fail(L, "'%s' needs at least one value", op_names[c->op]);
            for (size_t i = 0; rc == CAPSA_OK && i < json_array_size(v); i++)
                if (json_is_null(json_array_get(v, i))) {
                    size_t m2 = path_push(L, "[%zu]", i);
                    rc = fail(L, "null never matches (a null parameter is missing: use "
                                 "'not_exists')");
                    path_pop(L, m2);
                }
            break;
        default: /* == != contains: any value but null */
            if (json_is_null(v))
                rc = fail(L, "null never matches (a null parameter is missing: use "
                             "'exists' or 'not_exists')");
            break;
        }
        path_pop(L, mark);
        if (rc != CAPSA_OK)
            return rc;
        c->value = json_incref((json_t *)v);
    }
    if (!(c->param = capsa__strndup(L->a, param, strlen(param))))
        return oom(L);
    return CAPSA_OK;
}

/* Loads the constraint array arr into a new array *out of *n constraints (NULL and
 * 0 for an empty list). On failure nothing is left allocated. */
static int load_cons_list(loader *L, const json_t *arr, int depth, cons **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t count = json_array_size(arr);
    if (count == 0)
        return CAPSA_OK;
    cons *list = cons_array(L->a, count);
    if (!list)
        return oom(L);
    for (size_t i = 0; i < count; i++) {
        size_t mark = path_push(L, "[%zu]", i);
        int rc = load_cons(L, json_array_get(arr, i), depth, &list[i]);
        path_pop(L, mark);
        if (rc != CAPSA_OK) {
            cons_list_free(L->a, list, count);
            return rc;
        }
    }
    *out = list;
    *n = count;
    return CAPSA_OK;
}

/* Appends a capability, taking ownership of pattern and list (freed on failure). */
static int append_cap(loader *L, capsa__policy *p, char *pattern, cons *list, size_t n,
                      uint64_t max_calls)
{
    int rc = CAPSA_OK;
    if (p->n >= INT_MAX) /* a decision names capabilities by int */
        rc = fail(L, "too many capabilities");
    else if (p->n == p->size) {
        size_t size = p->size ? p->size * 2 : 8;
        cap *caps = NULL;
        if (size <= SIZE_MAX / sizeof(cap))
            caps = p->a.realloc_fn(p->a.ud, p->caps, size * sizeof(cap));
        if (caps) {
            p->caps = caps;
            p->size = size;
        } else {
            rc = oom(L);
        }
    }
    if (rc != CAPSA_OK) {
        capsa__free(&p->a, pattern);
        cons_list_free(&p->a, list, n);
        return rc;
    }
    p->caps[p->n++] = (cap){ pattern, list, n, max_calls, 0 };
    return CAPSA_OK;
}

/* Loads capability object j of a policy file and appends it to p. */
static int load_cap(loader *L, capsa__policy *p, const json_t *j)
{
    static const char *const fields[] = { "pattern", "constraints", "max_calls", NULL };
    if (!json_is_object(j))
        return fail(L, "a capability must be an object, not %s", capsa__json_kind(j, 1));
    int rc = check_fields(L, j, fields);
    if (rc != CAPSA_OK)
        return rc;
    const char *pattern = string_field(L, j, "pattern", &rc);
    if (!pattern)
        return rc;
    size_t mark = path_push(L, ".pattern");
    rc = check_segments(L, pattern, 1);
    path_pop(L, mark);
    if (rc != CAPSA_OK)
        return rc;

    uint64_t max_calls = 0;
    const json_t *mc = json_object_get(j, "max_calls");
    if (mc) {
        mark = path_push(L, ".max_calls");
        if (!json_is_integer(mc) || json_integer_value(mc) <= 0)
            rc = fail(L, "must be a positive integer (omit it for no limit), not %s",
                      json_is_integer(mc) ? "zero or less" : capsa__json_kind(mc, 1));
        path_pop(L, mark);
        if (rc != CAPSA_OK)
            return rc;
        max_calls = (uint64_t)json_integer_value(mc);
    }

    cons *list = NULL;
    size_t n = 0;
    const json_t *cl = json_object_get(j, "constraints");
    if (cl) {
        mark = path_push(L, ".constraints");
        if (!json_is_array(cl))
            rc = fail(L, "must be an array, not %s", capsa__json_kind(cl, 1));
        else
            rc = load_cons_list(L, cl, 0, &list, &n);
        path_pop(L, mark);
        if (rc != CAPSA_OK)
            return rc;
    }
    char *pat = capsa__strndup(L->a, pattern, strlen(pattern));
    if (!pat) {
        cons_list_free(L->a, list, n);
        return oom(L);
    }
    capsa__name_canon(pat, strlen(pat));
    return append_cap(L, p, pat, list, n, max_calls);
}

int capsa__policy_new(const capsa_allocator *a, capsa__policy **out)
{
    if (!out)
        return CAPSA_EINVAL;
    *out = NULL;
    if (!a)
        a = &capsa__default_allocator;
    capsa__policy *p = capsa__malloc(a, sizeof *p);
    if (!p)
        return CAPSA_ENOMEM;
    memset(p, 0, sizeof *p);
    p->a = *a;
    *out = p;
    return CAPSA_OK;
}

int capsa__policy_parse(const capsa_allocator *a, const char *json, size_t len,
                        capsa__policy **out, char *err, size_t errsize)
{
    loader L = { .err = err, .errsize = errsize };
    if (err && errsize)
        err[0] = '\0';
    if (out)
        *out = NULL;
    if (!out || (!json && len))
        return fail(&L, "no policy text");
    json_error_t je;
    json_t *root = capsa__json_load_strict(json ? json : "", len, JSON_DECODE_ANY, &je);
    if (!root)
        return json_fail(&L, &je);
    capsa__policy *p = NULL;
    int rc = capsa__policy_new(a, &p);
    if (rc != CAPSA_OK) {
        json_decref(root);
        return oom(&L);
    }
    L.a = &p->a;
    static const char *const fields[] = { "capabilities", NULL };
    const json_t *caps = json_object_get(root, "capabilities");
    if (!json_is_object(root))
        rc = fail(&L, "the policy must be a JSON object, not %s", capsa__json_kind(root, 1));
    else if ((rc = check_fields(&L, root, fields)) != CAPSA_OK)
        ;
    else if (!caps)
        rc = fail(&L, "missing field 'capabilities'");
    else if (!json_is_array(caps)) {
        size_t mark = path_push(&L, "capabilities");
        rc = fail(&L, "must be an array, not %s", capsa__json_kind(caps, 1));
        path_pop(&L, mark);
    } else {
        for (size_t i = 0; rc == CAPSA_OK && i < json_array_size(caps); i++) {
            size_t mark = path_push(&L, "capabilities[%zu]", i);
            rc = load_cap(&L, p, json_array_get(caps, i));
            path_pop(&L, mark);
        }
    }
    json_decref(root);
    if (rc != CAPSA_OK) {
        capsa__policy_free(p);
        return rc;
    }
    *out = p;
    return CAPSA_OK;
}

int capsa__policy_add(capsa__policy *p, const char *pattern, const char *constraints_json,
                      uint64_t max_calls, char *err, size_t errsize)
{
    loader L = { .err = err, .errsize = errsize };
    if (err && errsize)
        err[0] = '\0';
    if (!p || !pattern)
        return fail(&L, "no policy or no pattern");
    L.a = &p->a;
    if (max_calls > (uint64_t)INT64_MAX)
        return fail(&L, "max_calls: too large");
    size_t mark = path_push(&L, "pattern");
    int rc = check_segments(&L, pattern, 1);
    path_pop(&L, mark);
    if (rc != CAPSA_OK)
        return rc;

    cons *list = NULL;
    size_t n = 0;
    if (constraints_json) {
        mark = path_push(&L, "constraints");
        json_error_t je;
        json_t *cl = capsa__json_load_strict(constraints_json, strlen(constraints_json),
                                             JSON_DECODE_ANY, &je);
        if (!cl)
            rc = json_fail(&L, &je);
        else if (!json_is_array(cl))
            rc = fail(&L, "must be an array, not %s", capsa__json_kind(cl, 1));
        else
            rc = load_cons_list(&L, cl, 0, &list, &n);
        json_decref(cl);
        path_pop(&L, mark);
        if (rc != CAPSA_OK)
            return rc;
    }
    char *pat = capsa__strndup(&p->a, pattern, strlen(pattern));
    if (!pat) {
        cons_list_free(&p->a, list, n);
        return oom(&L);
    }
    capsa__name_canon(pat, strlen(pat));
    return append_cap(&L, p, pat, list, n, max_calls);
}

void capsa__policy_free(capsa__policy *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++) {
        capsa__free(&p->a, p->caps[i].pattern);
        cons_list_free(&p->a, p->caps[i].cons, p->caps[i].ncons);
    }
    capsa__free(&p->a, p->caps);
    capsa_allocator a = p->a;
    capsa__free(&a, p);
}

/* ---- matching methods ----------------------------------------------------------- */

void capsa__name_canon(char *name, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (name[i] == '/')
            name[i] = '.';
}

int capsa__name_equal(const char *a, size_t alen, const char *b, size_t blen)
{
    if (alen != blen)
        return 0;
    for (size_t i = 0; i < alen; i++)
        if (a[i] != b[i] && !(capsa__name_sep(a[i]) && capsa__name_sep(b[i])))
            return 0;
    return 1;
}

/* Segments are walked in place: a segment is the text up to the next separator
 * ('.' or '/') or the end, and an iterator of NULL means "no more segments". */
static size_t seg_len(const char *s)
{
    return strcspn(s, "./");
}

static const char *seg_next(const char *s)
{
    s += seg_len(s);
    return *s ? s + 1 : NULL;
}

static int seg_is_dstar(const char *s)
{
    return s[0] == '*' && s[1] == '*' && (capsa__name_sep(s[2]) || s[2] == '\0');
}

/* A method is well formed when it is not empty and has no empty segment. */
static int method_valid(const char *m)
{
    if (*m == '\0')
        return 0;
    for (;;) {
        size_t n = seg_len(m);
        if (n == 0)
            return 0;
        if (m[n] == '\0')
            return 1;
        m += n + 1;
    }
}

/* Whether pattern pat matches method m, segment by segment. "**" is the "*" of a
 * classic wildcard match and "*" its "?": the greedy match that backtracks to the
 * last "**" only is exact for such patterns and takes no more than
 * O(segments(pat) x segments(m)) steps, with no recursion and no allocation. */
static int pattern_match(const char *pat, const char *m)
{
    const char *p = pat, *star_p = NULL, *star_m = NULL;
    while (m) {
        if (p && seg_is_dstar(p)) {
            star_p = seg_next(p);
            star_m = m;
            p = star_p;
            continue;
        }
        if (p) {
            size_t pl = seg_len(p), ml = seg_len(m);
            if ((pl == 1 && p[0] == '*') || (pl == ml && memcmp(p, m, pl) == 0)) {
                p = seg_next(p);
                m = seg_next(m);
                continue;
            }
        }
        if (!star_m)
            return 0;
        star_m = seg_next(star_m); /* the last "**" takes one more segment */
        m = star_m;
        p = star_p;
    }
    while (p && seg_is_dstar(p))
        p = seg_next(p);
    return p == NULL;
}

/* ---- evaluating constraints ----------------------------------------------------- */

enum { T_NULL, T_NUM, T_STR, T_BOOL, T_OBJ, T_ARR };

static int type_class(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_INTEGER: case JSON_REAL: return T_NUM;
    case JSON_STRING: return T_STR;
    case JSON_TRUE: case JSON_FALSE: return T_BOOL;
    case JSON_OBJECT: return T_OBJ;
    case JSON_ARRAY: return T_ARR;
    default: return T_NULL;
    }
}

/* Deep equality by value (capsa__json_equal). No bound of its own: both values
 * come from a strict parse, whose nesting jansson limits. */
static int values_equal(const json_t *x, const json_t *y)
{
    return capsa__json_equal(x, y, UINT_MAX);
}

/* Reads a canonical decimal index (no sign, no leading zeros) of n bytes. */
static int parse_index(const char *s, size_t n, size_t *out)
{
    if (n == 0 || (n > 1 && s[0] == '0'))
        return 0;
    size_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (SIZE_MAX - 9) / 10)
            return 0;
        v = v * 10 + (size_t)(s[i] - '0');
    }
    *out = v;
    return 1;
}

/* The value at constraint c's parameter in args, or NULL when it is missing. */
static const json_t *lookup(const json_t *args, const cons *c)
{
    const json_t *v = args;
    const char *key = c->keys;
    for (size_t k = 0; v && k < c->nkeys; k++) {
        size_t n = strlen(key), i;
        if (json_is_object(v))
            v = json_object_getn(v, key, n);
        else if (json_is_array(v) && parse_index(key, n, &i))
            v = json_array_get(v, i);
        else
            return NULL;
        key += n + 1;
    }
    return v;
}

static int ends_with(const json_t *s, const json_t *suffix, int at_end)
{
    size_t n = json_string_length(s), k = json_string_length(suffix);
    return k <= n && memcmp(json_string_value(s) + (at_end ? n - k : 0),
                            json_string_value(suffix), k) == 0;
}

/* Whether leaf constraint c holds for the parameter value v (NULL: missing). */
static int eval_leaf(const cons *c, const json_t *v)
{
    int present = v && !json_is_null(v);
    if (c->op == OP_NOT_EXISTS)
        return !present;
    if (!present)
        return 0;
    int r, t = type_class(v);
    switch (c->op) {
    case OP_EXISTS:
        return 1;
    case OP_LT: case OP_LE: case OP_GT: case OP_GE:
        if (t != T_NUM)
            return 0;
        r = capsa__json_num_cmp(v, c->value);
        if (r == 2)
            return 0;
        return c->op == OP_LT ? r < 0 : c->op == OP_LE ? r <= 0 : c->op == OP_GT ? r > 0 : r >= 0;
    case OP_EQ:
        return values_equal(v, c->value);
    case OP_NE:
        return t == type_class(c->value) && !values_equal(v, c->value);
    case OP_IN: case OP_NOT_IN: {
        int same_type = 0;
        for (size_t i = 0; i < json_array_size(c->value); i++) {
            const json_t *m = json_array_get(c->value, i);
            if (type_class(m) != t)
                continue;
            same_type = 1;
            if (values_equal(v, m))
                return c->op == OP_IN;
        }
        return c->op == OP_NOT_IN && same_type;
    }
    case OP_STARTS_WITH: case OP_ENDS_WITH:
        return t == T_STR && ends_with(v, c->value, c->op == OP_ENDS_WITH);
    case OP_CONTAINS:
        if (t == T_STR) {
            if (!json_is_string(c->value))
                return 0;
            size_t k = json_string_length(c->value);
            return k == 0 || memmem(json_string_value(v), json_string_length(v),
                                    json_string_value(c->value), k) != NULL;
        }
        if (t == T_ARR) {
            for (size_t i = 0; i < json_array_size(v); i++)
                if (values_equal(json_array_get(v, i), c->value))
                    return 1;
        }
        return 0;
    default:
        return 0;
    }
}

/* Whether constraint c holds for the arguments; recursion is bounded by
 * CAPSA__POLICY_MAX_DEPTH. */
static int eval(const cons *c, const json_t *args)
{
    if (c->op == OP_AND || c->op == OP_OR) {
        for (size_t i = 0; i < c->nkids; i++)
            if (eval(&c->kids[i], args) == (c->op == OP_OR))
                return c->op == OP_OR;
        return c->op == OP_AND;
    }
    return eval_leaf(c, lookup(args, c));
}

/* The first of the capability's constraints that fails, or NULL if all hold. */
static const cons *first_failure(const cap *k, const json_t *args)
{
    for (size_t i = 0; i < k->ncons; i++)
        if (!eval(&k->cons[i], args))
            return &k->cons[i];
    return NULL;
}

/* ---- messages ------------------------------------------------------------------- */

/* A message being written into a fixed buffer; once it does not fit, it is cut at
 * a character boundary and ends with "...". */
typedef struct msg {
    char *s;
    size_t cap, len;
    int full;
} msg;

static void put(msg *m, const char *s, size_t n)
{
    if (m->full)
        return;
    if (n <= m->cap - 1 - m->len) {
        memcpy(m->s + m->len, s, n);
        m->len += n;
        m->s[m->len] = '\0';
        return;
    }
    size_t limit = m->cap - 4;
    unsigned char next;
    if (m->len < limit) {
        size_t k = limit - m->len;
        memcpy(m->s + m->len, s, k);
        m->len = limit;
        next = (unsigned char)s[k];
    } else {
        m->len = limit;
        next = (unsigned char)m->s[limit];
    }
    while (m->len > 0 && (next & 0xC0) == 0x80)
        next = (unsigned char)m->s[--m->len];
    memcpy(m->s + m->len, "...", 4);
    m->len += 3;
    m->full = 1;
}

static void put_str(msg *m, const char *s)
{
    put(m, s, strlen(s));
}

/* Writes the name or pattern s in single quotes, in its canonical form ('/' as
 * '.'), escaping quotes, backslashes, control characters and bytes that are not
 * UTF-8, so that a method name cannot forge the message's text. Names longer than
 * 200 bytes are cut with "...". */
static void put_quoted(msg *m, const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s), i = 0;
    put(m, "'", 1);
    while (i < n && !m->full) {
        if (i >= 200) {
            put(m, "...", 3);
            break;
        }
        unsigned c = u[i];
        size_t k;
        char esc[8];
        if (c == '\'' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            put(m, esc, 2);
            i++;
        } else if (c >= 0x20 && c < 0x7f) {
            put(m, c == '/' ? "." : s + i, 1);
            i++;
        } else if (c >= 0x80 && (k = capsa__utf8_len(u + i, n - i)) > 0) {
            put(m, s + i, k);
            i += k;
        } else {
            snprintf(esc, sizeof esc, "\\x%02x", c);
            put(m, esc, 4);
            i++;
        }
    }
    put(m, "'", 1);
}

/* Writes v as compact JSON (NULL: "missing"), cut with "..." after 200 bytes.
 * A real is written in its shortest form that reads back the same. */
static void put_json(msg *m, const json_t *v)
{
    if (!v) {
        put_str(m, "missing");
        return;
    }
    if (json_is_real(v)) {
        char tmp[64];
        if (capsa__json_real_text(json_real_value(v), tmp, sizeof tmp - 2) != 0)
            snprintf(tmp, sizeof tmp, "?");
        else if (!strpbrk(tmp, ".eE")) /* keep it a real: 5.0, not 5 */
            strcat(tmp, ".0");
        put_str(m, tmp);
        return;
    }
    /* Only the first bytes are dumped: a huge argument costs no more than them. */
    char head[201];
    int cut;
    long n = capsa__json_head(v, head, sizeof head, &cut);
    if (n < 0) {
        put_str(m, "?"); /* jansson ran out of memory */
        return;
    }
    put(m, head, (size_t)n);
    if (cut)
        put(m, "...", 3);
}

/* Describes why constraint c failed for args: a leaf as "amount <= 1000 (got 5000)",
 * an "and" by its first failing part, an "or" by all its parts joined with "or". */
static void describe_failure(msg *m, const cons *c, const json_t *args)
{
    if (c->op == OP_AND) {
        for (size_t i = 0; i < c->nkids; i++)
            if (!eval(&c->kids[i], args)) {
                describe_failure(m, &c->kids[i], args);
                return;
            }
        return;
    }
    if (c->op == OP_OR) {
        for (size_t i = 0; i < c->nkids; i++) {
            if (i)
                put_str(m, " or ");
            describe_failure(m, &c->kids[i], args);
        }
        return;
    }
    const json_t *v = lookup(args, c);
    put_str(m, c->param);
    put_str(m, " ");
    put_str(m, op_names[c->op]);
    if (c->value) {
        put_str(m, " ");
        put_json(m, c->value);
    }
    put_str(m, " (got ");
    put_json(m, v);
    put_str(m, ")");
}

/* "No capability authorizes 'm'. Granted: ['a', 'b']", each pattern listed once. */
static void deny_unmatched(msg *m, const capsa__policy *p, const char *method)
{
    put_str(m, "No capability authorizes ");
    put_quoted(m, method ? method : "");
    put_str(m, ". Granted: [");
    size_t shown = 0;
    for (size_t i = 0; p && i < p->n && !m->full; i++) {
        size_t j = 0;
        while (j < i && strcmp(p->caps[j].pattern, p->caps[i].pattern) != 0)
            j++;
        if (j < i)
            continue;
        if (shown++)
            put_str(m, ", ");
        put_quoted(m, p->caps[i].pattern);
    }
    put_str(m, "]");
}

/* The decision on a call, spending nothing (the caller spends the unit of an
 * allowed call); an allowed call's message only when explain (a tool call needs
 * none: the audit line names the capability). */
static void decide(const capsa__policy *p, const char *method, const json_t *args, int explain,
                   capsa__decision *d)
{
    msg m = { d->message, sizeof d->message, 0, 0 };
    d->message[0] = '\0';
    d->allowed = 0;
    d->capability = -1;
    if (!p || !method || !method_valid(method)) {
        deny_unmatched(&m, p, method);
        return;
    }
    size_t failed = SIZE_MAX, spent = SIZE_MAX;
    const cons *why = NULL;
    for (size_t i = 0; i < p->n; i++) {
        const cap *k = &p->caps[i];
        if (!pattern_match(k->pattern, method))
            continue;
        const cons *bad = first_failure(k, args);
        if (bad) {
            if (failed == SIZE_MAX) {
                failed = i;
                why = bad;
            }
            continue;
        }
        if (k->max_calls && k->used >= k->max_calls) {
            if (spent == SIZE_MAX)
                spent = i;
            continue;
        }
        d->allowed = 1;
        d->capability = (int)i;
        if (explain) {
            put_quoted(&m, method);
            put_str(&m, " allowed by ");
            put_quoted(&m, k->pattern);
        }
        return;
    }
    /* A spent budget is the better explanation: the call would pass otherwise. */
    if (spent != SIZE_MAX) {
        char num[64];
        d->capability = (int)spent;
        put_str(&m, "Call limit reached for ");
        put_quoted(&m, p->caps[spent].pattern);
        snprintf(num, sizeof num, ": %llu of %llu used",
                 (unsigned long long)p->caps[spent].used,
                 (unsigned long long)p->caps[spent].max_calls);
        put_str(&m, num);
    } else if (failed != SIZE_MAX) {
        d->capability = (int)failed;
        put_quoted(&m, method);
        put_str(&m, " matched ");
        put_quoted(&m, p->caps[failed].pattern);
        put_str(&m, " but failed: ");
        describe_failure(&m, why, args);
    } else {
        deny_unmatched(&m, p, method);
    }
}

void capsa__policy_check(capsa__policy *p, const char *method, const json_t *args,
                         capsa__decision *d)
{
    decide(p, method, args, 0, d);
    if (d->allowed && p->caps[d->capability].used < UINT64_MAX)
        p->caps[d->capability].used++;
}

void capsa__policy_peek(const capsa__policy *p, const char *method, const json_t *args,
                        capsa__decision *d)
{
    decide(p, method, args, 1, d);
}

/* ---- counters and description --------------------------------------------------- */

size_t capsa__policy_count(const capsa__policy *p)
{
    return p ? p->n : 0;
}

const char *capsa__policy_pattern(const capsa__policy *p, size_t i)
{
    return p && i < p->n ? p->caps[i].pattern : NULL;
}

long capsa__policy_index(const capsa__policy *p, const char *pattern)
{
    for (size_t i = 0; p && pattern && i < p->n; i++)
        if (capsa__name_equal(p->caps[i].pattern, strlen(p->caps[i].pattern), pattern,
                              strlen(pattern)))
            return (long)i;
    return -1;
}

uint64_t capsa__policy_max_calls(const capsa__policy *p, size_t i)
{
    return p && i < p->n ? p->caps[i].max_calls : 0;
}

uint64_t capsa__policy_used(const capsa__policy *p, size_t i)
{
    return p && i < p->n ? p->caps[i].used : 0;
}

uint64_t capsa__policy_remaining(const capsa__policy *p, size_t i)
{
    if (!p || i >= p->n)
        return 0;
    const cap *k = &p->caps[i];
    if (!k->max_calls)
        return UINT64_MAX;
    return k->used >= k->max_calls ? 0 : k->max_calls - k->used;
}

int capsa__policy_set_used(capsa__policy *p, size_t i, uint64_t used)
{
    if (!p || i >= p->n || (p->caps[i].max_calls && used > p->caps[i].max_calls))
        return -1;
    p->caps[i].used = used;
    return 0;
}

void capsa__policy_reset_budgets(capsa__policy *p)
{
    for (size_t i = 0; p && i < p->n; i++)
        p->caps[i].used = 0;
}

static json_t *cons_list_to_json(const cons *list, size_t n);

/* Constraint c as a new JSON object of the file format, or NULL when out of memory. */
static json_t *cons_to_json(const cons *c)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    int bad;
    if (c->op == OP_AND || c->op == OP_OR)
        bad = json_object_set_new(o, op_names[c->op], cons_list_to_json(c->kids, c->nkids));
    else
        bad = json_object_set_new(o, "param", json_string(c->param)) ||
              json_object_set_new(o, "op", json_string(op_names[c->op])) ||
              (c->value && json_object_set(o, "value", c->value));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *cons_list_to_json(const cons *list, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, cons_to_json(&list[i]))) {
            json_decref(a);
            return NULL;
        }
    return a;
}

char *capsa__policy_to_json(const capsa__policy *p)
{
    if (!p)
        return NULL;
    json_t *caps = json_array(), *root = json_object();
    if (!root || json_object_set_new(root, "capabilities", caps)) {
        json_decref(root);
        return NULL;
    }
    for (size_t i = 0; i < p->n; i++) {
        const cap *k = &p->caps[i];
        json_t *o = json_object();
        if (json_array_append_new(caps, o) ||
            json_object_set_new(o, "pattern", json_string(k->pattern)) ||
            (k->ncons && json_object_set_new(o, "constraints", cons_list_to_json(k->cons, k->ncons))) ||
            (k->max_calls && json_object_set_new(o, "max_calls", json_integer((json_int_t)k->max_calls)))) {
            json_decref(root);
            return NULL;
        }
    }
    /* Its reals in their shortest form, so that the text loads again (strictly). */
    char *text = capsa__json_dumps(root, JSON_COMPACT), *s = NULL;
    json_decref(root);
    size_t n = text ? strlen(text) : 0;
    if (text && (s = capsa__malloc(&p->a, n + 1)) != NULL)
        memcpy(s, text, n + 1);
    free(text);
    return s;
}

void capsa__policy_free_string(const capsa__policy *p, char *s)
{
    if (p && s)
        capsa__free(&p->a, s);
}

/* ---- the public API: a sandbox's policy (capsa_policy_* of capsa.h) ------------------- */

CAPSA_API int capsa_policy_set(capsa_sandbox *sb, const char *json, size_t len)
{
    if (!sb || (!json && len) || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    capsa__policy *p = NULL;
    char err[512];
    int rc = capsa__policy_parse(sb->alloc, json ? json : "", len, &p, err, sizeof(err));
    if (rc != CAPSA_OK) {
        capsa__sandbox_errorf(sb, "invalid policy: %s", rc == CAPSA_ENOMEM ? "out of memory" : err);
        return rc;
    }
    capsa__tools_set_policy(sb->tools, p);
    return CAPSA_OK;
}

CAPSA_API int capsa_policy_add(capsa_sandbox *sb, const char *pattern, const char *constraints_json,
                               uint64_t max_calls)
{
    if (!sb || !pattern || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    char err[512];
    int rc = capsa__policy_add(capsa__tools_policy(sb->tools), pattern, constraints_json, max_calls, err,
                               sizeof(err));
    if (rc != CAPSA_OK)
        capsa__sandbox_errorf(sb, "capability '%.200s': %s", pattern,
                              rc == CAPSA_ENOMEM ? "out of memory" : err);
    return rc;
}

CAPSA_API int capsa_policy_calls(capsa_sandbox *sb, const char *pattern, uint64_t *used,
                                 uint64_t *remaining)
{
    if (!sb || !pattern)
        return CAPSA_EINVAL;
    long i = capsa__policy_index(capsa__tools_policy(sb->tools), pattern);
    if (i < 0) {
        capsa__sandbox_errorf(sb, "no capability has the pattern '%.200s'", pattern);
        return CAPSA_ENOENT;
    }
    if (used)
        *used = capsa__policy_used(capsa__tools_policy(sb->tools), (size_t)i);
    if (remaining)
        *remaining = capsa__policy_remaining(capsa__tools_policy(sb->tools), (size_t)i);
    return CAPSA_OK;
}

CAPSA_API char *capsa_policy_json(capsa_sandbox *sb)
{
    if (!sb)
        return NULL;
    const capsa__policy *p = capsa__tools_policy(sb->tools);
    char *text = capsa__policy_to_json(p);
    /* The caller's copy comes from the C library: capsa_free releases it. */
    char *copy = text ? capsa__strndup(&capsa__default_allocator, text, strlen(text)) : NULL;
    capsa__policy_free_string(p, text);
    return copy;
}

CAPSA_API char *capsa_policy_counts_json(capsa_sandbox *sb)
{
    if (!sb)
        return NULL;
    const capsa__policy *p = capsa__tools_policy(sb->tools);
    capsa__buf b = { 0 };
    const capsa_allocator *a = &capsa__default_allocator; /* freed by capsa_free */
    capsa__buf_append_str(&b, a, "[");
    for (size_t i = 0; i < capsa__policy_count(p) && !b.failed; i++) {
        const char *pat = capsa__policy_pattern(p, i);
        char nums[160];
        uint64_t max = capsa__policy_max_calls(p, i);
        if (max)
            snprintf(nums, sizeof(nums), ",\"max_calls\":%llu,\"used\":%llu,\"remaining\":%llu}",
                     (unsigned long long)max, (unsigned long long)capsa__policy_used(p, i),
                     (unsigned long long)capsa__policy_remaining(p, i));
        else
            snprintf(nums, sizeof(nums), ",\"max_calls\":null,\"used\":%llu,\"remaining\":null}",
                     (unsigned long long)capsa__policy_used(p, i));
        capsa__buf_append_str(&b, a, i ? ",{\"pattern\":" : "{\"pattern\":");
        capsa__json_quote(&b, a, pat, strlen(pat));
        capsa__buf_append_str(&b, a, nums);
    }
    capsa__buf_append_str(&b, a, "]");
    if (b.failed) {
        capsa__buf_free(&b, a);
        return NULL;
    }
    return b.data;
}

CAPSA_API int capsa_policy_reset_counts(capsa_sandbox *sb)
{
    if (!sb || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    capsa__policy_reset_budgets(capsa__tools_policy(sb->tools));
    return CAPSA_OK;
}

CAPSA_API int capsa_policy_check(capsa_sandbox *sb, const char *name, const char *args_json,
                                 size_t len, int *allowed, char *message, size_t message_size)
{
    if (allowed)
        *allowed = 0;
    if (message && message_size)
        message[0] = '\0';
    if (!sb || !name || (!args_json && len))
        return CAPSA_EINVAL;
    json_error_t jerr;
    json_t *args = NULL;
    if (args_json) {
        args = capsa__json_load_strict(args_json, len, 0, &jerr);
        if (!args) {
            capsa__sandbox_errorf(sb, "the arguments are not strict JSON: %s (line %d, column %d)",
                                  jerr.text, jerr.line, jerr.column);
            return CAPSA_EINVAL;
        }
    }
    /* A tool is checked under its registered name, as a call would be. */
    const char *registered = capsa__tools_find(sb->tools, name);
    capsa__decision d;
    capsa__policy_peek(capsa__tools_policy(sb->tools), registered ? registered : name, args, &d);
    if (allowed)
        *allowed = d.allowed;
    if (message && message_size)
        snprintf(message, message_size, "%s", d.message);
    json_decref(args);
    return CAPSA_OK;
}
