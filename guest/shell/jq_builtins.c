/* jq's builtins: the natives (C functions over values and generators over
 * filters), dates, regular expressions, the @formats, the table the evaluator
 * finds them in, and the prelude of builtins written in jq itself. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* for strptime */
#endif
#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jq.h"

static jv *nat_length(jq *q, jv *in, jv **args)
{
    (void)args;
    switch (in->kind) {
    case JK_NULL: return jq_checked(q, jv_num(0));
    case JK_NUM: return jq_checked(q, jv_num(fabs(in->num)));
    case JK_STR: return jq_checked(q, jv_num((double)jq_utf8_count(in->str, in->len)));
    case JK_ARR:
    case JK_OBJ: return jq_checked(q, jv_num((double)in->n));
    default: jq_fail_value(q, in, "has no length"); return NULL;
    }
}

static jv *nat_utf8bytelength(jq *q, jv *in, jv **args)
{
    (void)args;
    if (in->kind != JK_STR) {
        jq_fail_value(q, in, "only strings have UTF-8 byte length");
        return NULL;
    }
    return jq_checked(q, jv_num((double)in->len));
}

static jv *nat_not(jq *q, jv *in, jv **args)
{
    (void)args;
    return jq_checked(q, jv_bool(!jq_truthy(in)));
}

/* keys (sorted) and keys_unsorted. */
static jv *keys_of(jq *q, jv *in, int sorted)
{
    if (in->kind != JK_OBJ && in->kind != JK_ARR) {
        jq_fail_value(q, in, "has no keys");
        return NULL;
    }
    jv *r = jv_new(JK_ARR);
    for (size_t i = 0; r && i < in->n; i++)
        if (jq_arr_push(r, in->kind == JK_OBJ ? jv_ref(in->keys[i]) : jv_num((double)i)) < 0)
            r = NULL;
    if (r && sorted && in->kind == JK_OBJ)
        qsort(r->items, r->n, sizeof *r->items, jq_key_cmp);
    return jq_checked(q, r);
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
        return jq_checked(q, jv_bool(jq_obj_find(in, k->str, k->len) >= 0));
    if (in->kind == JK_ARR && k->kind == JK_NUM)
        return jq_checked(q, jv_bool(k->num >= 0 && k->num < (double)in->n));
    jq_fail(q, "Cannot check whether %s has a %s key", jq_kind_names[in->kind],
            jq_kind_names[k->kind]);
    return NULL;
}

/* jq's containment: substrings, sub-arrays (any order), sub-objects. */
static int contains(const jv *a, const jv *b)
{
    if (a->kind == JK_OBJ && b->kind == JK_OBJ) {
        for (size_t i = 0; i < b->n; i++) {
            jv *av = jq_obj_get(a, b->keys[i]->str, b->keys[i]->len);
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
        jq_fail(q, "%s (%s) and %s (%s) cannot have their containment checked",
                jq_kind_names[in->kind], jq_trunc_dump(b1, in), jq_kind_names[args[0]->kind],
                jq_trunc_dump(b2, args[0]));
        return NULL;
    }
    return jq_checked(q, jv_bool(contains(in, args[0])));
}

static jv *nat_add(jq *q, jv *in, jv **args)
{
    (void)args;
    if (in->kind == JK_OBJ || in->kind == JK_ARR) {
        jv *acc = jv_new(JK_NULL);
        for (size_t i = 0; acc && i < in->n; i++) {
            jv *next = jq_binop(q, '+', acc, in->items[i]);
            jv_free(acc);
            if (!next)
                return NULL;
            acc = next;
        }
        return jq_checked(q, acc);
    }
    if (in->kind == JK_NULL)
        return jq_checked(q, jv_new(JK_NULL));
    char b[32];
    jq_fail(q, "Cannot iterate over %s (%s)", jq_kind_names[in->kind], jq_trunc_dump(b, in));
    return NULL;
}

static jv *nat_tostring(jq *q, jv *in, jv **args)
{
    (void)args;
    return jq_checked(q, jv_tostring(in));
}

static jv *nat_tojson(jq *q, jv *in, jv **args)
{
    (void)args;
    return jq_checked(q, jv_tojson(in));
}

static jv *nat_fromjson(jq *q, jv *in, jv **args)
{
    (void)args;
    char err[200];
    if (in->kind != JK_STR) {
        jq_fail_value(q, in, "only strings can be parsed");
        return NULL;
    }
    jv *v = jq_parse_json_text(in->str, in->len, err, sizeof err);
    if (!v)
        jq_fail(q, "%s (while parsing '%s')", err, in->str);
    return v;
}

static jv *nat_tonumber(jq *q, jv *in, jv **args)
{
    (void)args;
    if (in->kind == JK_NUM)
        return jv_ref(in);
    if (in->kind == JK_STR) {
        char err[200];
        jv *v = jq_parse_json_text(in->str, in->len, err, sizeof err);
        if (v && v->kind == JK_NUM)
            return v;
        jv_free(v);
        jq_fail(q, "Invalid numeric literal at EOF at line 1, column %zu (while parsing '%s')",
                in->len, in->str);
        return NULL;
    }
    jq_fail_value(q, in, "cannot be parsed as a number");
    return NULL;
}

static jv *nat_type(jq *q, jv *in, jv **args)
{
    (void)args;
    return jq_checked(q, jv_str(jq_kind_names[in->kind]));
}

static jv *nat_infinite(jq *q, jv *in, jv **args)
{
    (void)in, (void)args;
    return jq_checked(q, jv_num(INFINITY));
}

static jv *nat_nan(jq *q, jv *in, jv **args)
{
    (void)in, (void)args;
    return jq_checked(q, jv_num(NAN));
}

/* The number classifiers: isnan, isinfinite, isnormal. */
static jv *classify(jq *q, jv *in, int which)
{
    if (in->kind != JK_NUM) {
        jq_fail_value(q, in, "number required");
        return NULL;
    }
    double d = in->num;
    int r = which == 0 ? d != d : which == 1 ? isinf(d) : isnormal(d);
    return jq_checked(q, jv_bool(r));
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
        jq_fail(q, "%s (%s) cannot be %s, as it is not an array", jq_kind_names[in->kind],
                jq_trunc_dump(b, in), what);
        return NULL;
    }
    if (keys && (keys->kind != JK_ARR || keys->n != in->n)) {
        jq_fail(q, "internal error: bad sort keys");
        return NULL;
    }
    keyed *k = malloc((in->n ? in->n : 1) * sizeof *k);
    if (!k) {
        jq_oom(q);
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
                if (!(group = jv_new(JK_ARR)) || jq_arr_push(r, group) < 0) {
                    jv_free(r);
                    r = NULL;
                    break;
                }
            }
            if (jq_arr_push(group, jv_ref(k[i].item)) < 0) {
                jv_free(r);
                r = NULL;
            }
            continue;
        }
        if (jq_arr_push(r, jv_ref(k[i].item)) < 0) {
            jv_free(r);
            r = NULL;
        }
    }
    free(k);
    return jq_checked(q, r);
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
        jq_fail(q, "%s (%s) cannot be searched for its %s, as it is not an array",
                jq_kind_names[in->kind], jq_trunc_dump(b, in), want_max ? "maximum" : "minimum");
        return NULL;
    }
    if (keys && (keys->kind != JK_ARR || keys->n != in->n)) {
        jq_fail(q, "internal error: bad keys");
        return NULL;
    }
    if (in->n == 0)
        return jq_checked(q, jv_new(JK_NULL));
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
        jq_fail(q, "%s() requires string inputs", end ? "endswith" : "startswith");
        return NULL;
    }
    int match = s->len <= in->len &&
                memcmp(in->str + (end ? in->len - s->len : 0), s->str, s->len) == 0;
    if (!trim)
        return jq_checked(q, jv_bool(match));
    if (!match)
        return jv_ref(in);
    return jq_checked(q, jv_strn(in->str + (end ? 0 : s->len), in->len - s->len));
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
        jq_fail_value(q, in, "cannot be exploded");
        return NULL;
    }
    jv *r = jv_new(JK_ARR);
    unsigned cp;
    for (size_t i = 0; r && i < in->len;) {
        i += jq_utf8_decode((const unsigned char *)in->str + i, in->len - i, &cp);
        if (jq_arr_push(r, jv_num(cp)) < 0)
            r = NULL;
    }
    return jq_checked(q, r);
}

static jv *nat_implode(jq *q, jv *in, jv **args)
{
    (void)args;
    if (in->kind != JK_ARR) {
        jq_fail_value(q, in, "cannot be imploded");
        return NULL;
    }
    sh_buf b = { 0 };
    for (size_t i = 0; i < in->n; i++) {
        jv *c = in->items[i];
        if (c->kind != JK_NUM) {
            sh_buf_free(&b);
            jq_fail(q, "Unicode codepoint must be numeric");
            return NULL;
        }
        double d = c->num;
        unsigned cp = d >= 0 && d <= 0x10ffff && !(d >= 0xd800 && d < 0xe000) ? (unsigned)d : 0xfffd;
        if (jq_utf8_encode(&b, cp) < 0) {
            sh_buf_free(&b);
            return jq_checked(q, NULL);
        }
    }
    return jq_checked(q, jv_str_buf(&b));
}

static jv *nat_split(jq *q, jv *in, jv **args)
{
    if (in->kind != JK_STR || args[0]->kind != JK_STR) {
        jq_fail(q, "split input and separator must be strings");
        return NULL;
    }
    return jq_checked(q, jq_split_str(in, args[0]));
}

static jv *nat_join(jq *q, jv *in, jv **args)
{
    jv *sep = args[0];
    if (in->kind != JK_ARR && in->kind != JK_OBJ) {
        char b[32];
        jq_fail(q, "Cannot iterate over %s (%s)", jq_kind_names[in->kind], jq_trunc_dump(b, in));
        return NULL;
    }
    if (in->n == 0)
        return jq_checked(q, jv_str(""));
    sh_buf b = { 0 };
    char num[64];
    for (size_t i = 0; i < in->n; i++) {
        jv *x = in->items[i];
        int st = 0;
        if (i) {
            if (sep->kind != JK_STR) {
                sh_buf_free(&b);
                char b1[32];
                jq_fail(q, "string (\"\") and %s (%s) cannot be added", jq_kind_names[sep->kind],
                        jq_trunc_dump(b1, sep));
                return NULL;
            }
            st = sh_buf_add(&b, sep->str, sep->len);
        }
        if (x->kind == JK_STR)
            st = st ? st : sh_buf_add(&b, x->str, x->len);
        else if (x->kind == JK_NUM)
            jq_fmt_num(num, x->num), st = st ? st : sh_buf_adds(&b, num);
        else if (x->kind == JK_TRUE || x->kind == JK_FALSE)
            st = st ? st : sh_buf_adds(&b, x->kind == JK_TRUE ? "true" : "false");
        else if (x->kind != JK_NULL) {
            sh_buf_free(&b);
            char b1[32];
            jq_fail(q, "string (\"\") and %s (%s) cannot be added", jq_kind_names[x->kind],
                    jq_trunc_dump(b1, x));
            return NULL;
        }
        if (st) {
            sh_buf_free(&b);
            return jq_checked(q, NULL);
        }
    }
    return jq_checked(q, jv_str_buf(&b));
}

/* ascii_downcase and ascii_upcase. */
static jv *change_case(jq *q, jv *in, int up)
{
    if (in->kind != JK_STR) {
        jq_fail_value(q, in, "cannot be case-converted");
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
    return jq_checked(q, r);
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
        jq_fail_value(q, in, "number required");
        return NULL;
    }
    for (int i = 0; math1[i].name; i++)
        if (strcmp(math1[i].name, name) == 0 && math1[i].fn)
            return jq_checked(q, jv_num(math1[i].fn(in->num)));
    return jq_checked(q, jv_num(in->num));
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
        jq_fail_value(q, in, "number required");
        return NULL;
    }
    return jq_checked(q, jv_num(pow(10, in->num)));
}

static jv *nat_pow(jq *q, jv *in, jv **args)
{
    (void)in;
    if (args[0]->kind != JK_NUM || args[1]->kind != JK_NUM) {
        jq_fail(q, "pow/2 requires numbers");
        return NULL;
    }
    return jq_checked(q, jv_num(pow(args[0]->num, args[1]->num)));
}

static jv *nat_atan2(jq *q, jv *in, jv **args)
{
    (void)in;
    if (args[0]->kind != JK_NUM || args[1]->kind != JK_NUM) {
        jq_fail(q, "atan2/2 requires numbers");
        return NULL;
    }
    return jq_checked(q, jv_num(atan2(args[0]->num, args[1]->num)));
}

static jv *nat_setpath(jq *q, jv *in, jv **args)
{
    if (args[0]->kind != JK_ARR) {
        jq_fail(q, "Path must be specified as an array");
        return NULL;
    }
    if (args[0]->n > JQ_MAX_DEPTH) {
        jq_fail(q, "Path too long");
        return NULL;
    }
    return jq_setpath(q, jv_ref(in), args[0], 0, args[1]);
}

static jv *nat_delpaths(jq *q, jv *in, jv **args)
{
    return jq_delpaths(q, in, args[0]);
}

jv *jq_indices_of(jq *q, jv *t, jv *k)
{
    jv *r = jv_new(JK_ARR);
    if (!r)
        return jq_checked(q, NULL);
    if (t->kind == JK_NULL) {
        jv_free(r);
        return jq_checked(q, jv_new(JK_NULL));
    }
    if (t->kind == JK_STR && k->kind == JK_STR) {
        for (size_t i = 0; k->len && i + k->len <= t->len; i++)
            if (memcmp(t->str + i, k->str, k->len) == 0 && jq_arr_push(r, jv_num((double)i)) < 0) {
                jv_free(r);
                return jq_checked(q, NULL);
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
            if (j == k->n && jq_arr_push(r, jv_num((double)i)) < 0) {
                jv_free(r);
                return jq_checked(q, NULL);
            }
        }
        return r;
    }
    jv_free(r);
    jq_fail(q, "Cannot determine indices of %s in %s", jq_kind_names[k->kind],
            jq_kind_names[t->kind]);
    return NULL;
}

static jv *nat_indices(jq *q, jv *in, jv **args)
{
    return jq_indices_of(q, in, args[0]);
}

/* flatten(depth): nested arrays spliced up to depth levels. */
static int flatten_into(jv *out, jv *a, double depth)
{
    for (size_t i = 0; i < a->n; i++) {
        jv *x = a->items[i];
        if (x->kind == JK_ARR && depth > 0) {
            if (flatten_into(out, x, depth - 1) < 0)
                return -1;
        } else if (jq_arr_push(out, jv_ref(x)) < 0) {
            return -1;
        }
    }
    return 0;
}

static jv *nat_flatten(jq *q, jv *in, jv **args)
{
    if (args[0]->kind != JK_NUM) {
        jq_fail(q, "flatten depth must not be negative");
        return NULL;
    }
    if (args[0]->num < 0) {
        jq_fail(q, "flatten depth must not be negative");
        return NULL;
    }
    if (in->kind != JK_ARR) {
        char b[32];
        jq_fail(q, "Cannot iterate over %s (%s)", jq_kind_names[in->kind], jq_trunc_dump(b, in));
        return NULL;
    }
    jv *r = jv_new(JK_ARR);
    if (r && flatten_into(r, in, args[0]->num) < 0) {
        jv_free(r);
        r = NULL;
    }
    return jq_checked(q, r);
}

jv *jq_nat_env(jq *q, jv *in, jv **args)
{
    (void)in, (void)args;
    jv *o = jv_new(JK_OBJ);
    char **envp = sh_environ(q->p);
    for (size_t i = 0; o && envp && envp[i]; i++) {
        const char *eq = strchr(envp[i], '=');
        if (!eq)
            continue;
        if (jq_obj_set(o, jv_strn(envp[i], (size_t)(eq - envp[i])), jv_str(eq + 1)) < 0) {
            jv_free(o);
            o = NULL;
        }
    }
    return jq_checked(q, o);
}

static jv *nat_format(jq *q, jv *in, jv **args)
{
    if (args[0]->kind != JK_STR) {
        jq_fail_value(q, args[0], "is not a valid format");
        return NULL;
    }
    return jq_apply_format(q, args[0]->str, in);
}

static jv *nat_now(jq *q, jv *in, jv **args)
{
    (void)in, (void)args;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return jq_checked(q, jv_num((double)ts.tv_sec + ts.tv_nsec / 1e9));
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
        if (jq_arr_push(r, jv_num(parts[i])) < 0)
            r = NULL;
    return r;
}

/* Reads jq's broken-down time array into tm: 0, or -1 with the error set. */
static int array_to_tm(jq *q, jv *a, struct tm *tm, const char *who)
{
    if (a->kind != JK_ARR || a->n < 6) {
        jq_fail(q, "%s requires array of 6 numbers", who);
        return -1;
    }
    int f[8] = { 0 };
    for (size_t i = 0; i < a->n && i < 8; i++) {
        if (a->items[i]->kind != JK_NUM) {
            jq_fail(q, "%s requires parsed datetime inputs", who);
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
        jq_fail(q, "gmtime() requires a number");
        return NULL;
    }
    struct tm tm;
    double t = in->num > 1e15 ? 1e15 : in->num < -1e15 ? -1e15 : in->num;
    to_tm(t, &tm);
    return jq_checked(q, tm_to_array(&tm, t - floor(t)));
}

static jv *nat_mktime(jq *q, jv *in, jv **args)
{
    (void)args;
    struct tm tm;
    if (in->kind != JK_ARR) {
        jq_fail(q, "mktime requires array of 6 numbers");
        return NULL;
    }
    if (array_to_tm(q, in, &tm, "mktime") < 0)
        return NULL;
    return jq_checked(q, jv_num(tm_to_secs(&tm)));
}

static jv *nat_strftime(jq *q, jv *in, jv **args)
{
    struct tm tm;
    if (in->kind == JK_NUM) {
        to_tm(in->num > 1e15 ? 1e15 : in->num < -1e15 ? -1e15 : in->num, &tm);
    } else if (in->kind != JK_ARR) {
        jq_fail(q, "strftime/1 requires parsed datetime inputs");
        return NULL;
    } else if (array_to_tm(q, in, &tm, "strftime/1") < 0) {
        return NULL;
    }
    if (args[0]->kind != JK_STR) {
        jq_fail(q, "strftime/1 requires a string format");
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
        jq_fail(q, "out of memory");
        return NULL;
    }
    char buf[512];
    size_t n = strftime(buf, sizeof buf, f, &tm);
    sh_buf_free(&fmt);
    if (n == 0 && args[0]->len) {
        jq_fail(q, "strftime/1: unknown system failure");
        return NULL;
    }
    return jq_checked(q, jv_strn(buf, n));
}

static jv *nat_strptime(jq *q, jv *in, jv **args)
{
    if (in->kind != JK_STR || args[0]->kind != JK_STR) {
        jq_fail(q, "strptime/1 requires string inputs and arguments");
        return NULL;
    }
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(in->str, args[0]->str, &tm);
    if (!end || *end) {
        jq_fail(q, "date \"%s\" does not match format \"%s\"", in->str, args[0]->str);
        return NULL;
    }
    /* Recompute the weekday and day of the year, as jq does. */
    struct tm norm;
    to_tm(tm_to_secs(&tm), &norm);
    tm.tm_wday = norm.tm_wday;
    tm.tm_yday = norm.tm_yday;
    return jq_checked(q, tm_to_array(&tm, 0));
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
                jq_fail(q, "%s is not a valid modifier string", flags->str);
                return -1;
            }
        }
    } else if (flags && flags->kind != JK_NULL) {
        jq_fail_value(q, flags, "is not a string");
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
        jq_oom(q);
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
        jq_fail(q, "%s (at offset 0) is not a valid regex: %s", re->str, msg);
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
            ok = jq_obj_set(c, jv_str("offset"), jv_num(-1)) == 0 &&
                 jq_obj_set(c, jv_str("string"), jv_new(JK_NULL)) == 0 &&
                 jq_obj_set(c, jv_str("length"), jv_num(0)) == 0;
        } else {
            size_t so = (size_t)m[g].rm_so, eo = (size_t)m[g].rm_eo;
            ok = jq_obj_set(c, jv_str("offset"), jv_num((double)jq_utf8_count(s, so))) == 0 &&
                 jq_obj_set(c, jv_str("length"),
                            jv_num((double)jq_utf8_count(s + so, eo - so))) == 0 &&
                 jq_obj_set(c, jv_str("string"), jv_strn(s + so, eo - so)) == 0;
        }
        if (ok && g)
            ok = jq_obj_set(c, jv_str("name"), name ? jv_str(name) : jv_new(JK_NULL)) == 0 &&
                 jq_arr_push(caps, c) == 0;
        else if (g && !ok)
            jv_free(c);
        if (!ok)
            goto fail;
    }
    if (jq_obj_set(o, jv_str("captures"), caps) < 0) {
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
        jq_fail_value(q, in, "cannot be matched, as it is not a string");
        return NULL;
    }
    if (args[0]->kind != JK_STR) {
        jq_fail_value(q, args[0], "is not a string");
        return NULL;
    }
    jq_regex r;
    if (regex_compile(q, &r, args[0], args[1]) < 0)
        return NULL;
    int test = jq_truthy(args[2]);
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
        if (jq_arr_push(res, match_object(in->str, m, &r)) < 0)
            failed = 1;
        if (!r.global)
            break;
        size_t next = (size_t)m[0].rm_eo;
        if (m[0].rm_eo == m[0].rm_so && next < in->len) {
            unsigned cp;
            next += jq_utf8_decode((const unsigned char *)in->str + next, in->len - next, &cp);
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
        return jq_checked(q, NULL);
    }
    return test ? jq_checked(q, jv_bool(found)) : res;
}

/* ---- formats */

static int format_csv_tsv(jq *q, sh_buf *b, jv *in, int tsv)
{
    char num[64], bv[32];
    int st = 0;
    if (in->kind != JK_ARR) {
        jq_fail_value(q, in, tsv ? "cannot be tsv-formatted, only an array can be"
                              : "cannot be csv-formatted, only an array can be");
        return -1;
    }
    for (size_t i = 0; i < in->n; i++) {
        jv *x = in->items[i];
        if (i)
            st |= sh_buf_addc(b, tsv ? '\t' : ',');
        switch (x->kind) {
        case JK_NUM:
            jq_fmt_num(num, x->num);
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
            jq_fail(q, "%s (%s) is not valid in a csv row", jq_kind_names[x->kind],
                    jq_trunc_dump(bv, x));
            return -1;
        }
    }
    return st ? jq_oom(q), -1 : 0;
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
            jq_fmt_num(num, x->num);
            st |= sh_buf_adds(b, num);
            break;
        case JK_OBJ:
        case JK_ARR:
            jq_fail(q, "%s (%s) can not be escaped for shell", jq_kind_names[x->kind],
                    jq_trunc_dump(bv, x));
            return -1;
        default:
            st |= sh_buf_adds(b, x->kind == JK_NULL ? "null" : x->kind == JK_TRUE ? "true" : "false");
            break;
        }
    }
    return st ? jq_oom(q), -1 : 0;
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

jv *jq_apply_format(jq *q, const char *fmt, jv *v)
{
    if (fmt[0] == '@')
        fmt++;
    if (strcmp(fmt, "json") == 0)
        return jq_checked(q, jv_tojson(v));
    if (strcmp(fmt, "text") == 0)
        return jq_checked(q, jv_tostring(v));
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
            return jq_checked(q, NULL);
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
            return jq_checked(q, NULL);
        }
    } else {
        sh_buf_free(&b);
        jq_fail(q, "%s is not a valid format", fmt);
        return NULL;
    }
    if (st < 0) {
        sh_buf_free(&b);
        return NULL;
    }
    jv *r = sh_buf_addc(&b, 0) == 0 ? (b.len--, jv_str_utf8(b.data, b.len)) : NULL;
    sh_buf_free(&b);
    return jq_checked(q, r);
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
        return jq_fail(q, "Range bounds must be numeric");
    double from = args[0]->num, upto = args[1]->num, inc = by->num;
    if (inc == 0 || inc != inc)
        return 0;
    int r = 0;
    for (double x = from; r == 0 && (inc > 0 ? x < upto : x > upto); x += inc) {
        jv *v = jv_num(x);
        if (!v)
            return jq_oom(q);
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

int jq_load_inputs(jq *q)
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
    return jq_oom(q);
}

int jq_next_input(jq *q, jv **out)
{
    reader *r = &q->in;
    if (!q->loaded && jq_load_inputs(q) != 0)
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
            jq_oom(q);
            return -1;
        }
        return 1;
    }
    int st = jq_json_next(r, out);
    if (st < 0) {
        q->input_error = 1;
        r->pos = r->len;
        jq_fail(q, "%s", r->err);
        return -1;
    }
    return st;
}

static int gen_input(jq *q, jv *in, jv **args, emit_fn k, void *kd)
{
    (void)in, (void)args;
    jv *v;
    int st = jq_next_input(q, &v);
    if (st == 0)
        return jq_fail(q, "No more inputs");
    if (st < 0)
        return J_ERR;
    return jq_emit_new(q, v, k, kd);
}

static int gen_inputs(jq *q, jv *in, jv **args, emit_fn k, void *kd)
{
    (void)in, (void)args;
    for (;;) {
        jv *v;
        int st = jq_next_input(q, &v);
        if (st <= 0)
            return st < 0 ? J_ERR : 0;
        if ((st = jq_emit_new(q, v, k, kd)) != 0)
            return st;
    }
}

/* debug and stderr: print the input to stderr, then pass it on. */
static int print_err(jq *q, jv *in, emit_fn k, void *kd, int debug)
{
    sh_buf b = { 0 };
    dump_opts o = { 0 };
    if ((debug && sh_buf_adds(&b, "[\"DEBUG:\",") < 0) || jq_dump(&b, in, &o, 0) < 0 ||
        sh_buf_adds(&b, debug ? "]\n" : "") < 0) {
        sh_buf_free(&b);
        return jq_oom(q);
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
    step s = { q, call, e, in, NULL, path ? jq_path_error_emit : k, kd, NULL, NULL };
    jv *root = jv_new(JK_ARR);
    if (!root)
        return jq_oom(q);
    int r = jq_eval(q, call->args[0], e, in, root, path_emit, &s);
    jv_free(root);
    return r;
}

static int getpath_emit(jq *q, jv *p, jv *path, void *data)
{
    step *s = data;
    (void)path;
    if (p->kind != JK_ARR)
        return jq_fail(q, "Path must be specified as an array");
    jv *v = jq_getpath(q, s->in, p);
    if (!v)
        return J_ERR;
    int r;
    if (s->path) {
        jv *full = jv_unshare(jv_ref(s->path));
        for (size_t i = 0; full && i < p->n; i++)
            if (jq_arr_push(full, jv_ref(p->items[i])) < 0)
                full = NULL;
        r = full ? s->k(q, v, full, s->kd) : jq_oom(q);
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
    return jq_eval(q, call->args[0], e, in, NULL, getpath_emit, &s);
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
        return jq_eval(q, f, e, in, path, k, kd);
    if (n == 0)
        n = 1;
    limiter l = { k, kd, n, q->next_label++ };
    int r = jq_eval(q, f, e, in, path, limit_emit, &l);
    return r == l.label ? 0 : r;
}

static int limit_count_emit(jq *q, jv *v, jv *path, void *data)
{
    step *s = data;
    (void)path;
    if (v->kind != JK_NUM)
        return jq_fail(q, "Invalid limit: not a number");
    return limit_run(q, s->n->args[1], s->e, s->in, s->path, jq_to_index(v->num), s->k, s->kd);
}

static int sp_limit(jq *q, const node *call, const env *e, jv *in, jv *path, emit_fn k, void *kd)
{
    step s = { q, call, e, in, path, k, kd, NULL, NULL };
    return jq_eval(q, call->args[0], e, in, NULL, limit_count_emit, &s);
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
    if (!todo || jq_arr_push(todo, jv_ref(in)) < 0) {
        jv_free(todo);
        return jq_oom(q);
    }
    int r = 0;
    (void)path;
    while (r == 0 && todo->n > 0) {
        jv *v = todo->items[--todo->n];
        jv *conds = jq_collect_all(q, call->args[0], e, v, 0);
        jv *next = conds ? jv_new(JK_ARR) : NULL;
        if (conds && !next)
            r = jq_oom(q);
        else if (!conds)
            r = J_ERR;
        for (size_t i = 0; r == 0 && i < conds->n; i++) {
            int c = jq_truthy(conds->items[i]);
            if (c)
                r = k(q, v, NULL, kd);
            if (r == 0 && c == is_while) {
                jv *outs = jq_collect_all(q, call->args[1], e, v, 0);
                if (!outs)
                    r = J_ERR;
                for (size_t j = 0; r == 0 && j < outs->n; j++)
                    if (jq_arr_push(next, jv_ref(outs->items[j])) < 0)
                        r = jq_oom(q);
                jv_free(outs);
            }
        }
        /* The first output of update is explored first. */
        for (size_t j = next ? next->n : 0; r == 0 && j-- > 0;)
            if (jq_arr_push(todo, jv_ref(next->items[j])) < 0)
                r = jq_oom(q);
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
        int r = jq_eval(q, call->args[0], e, in, NULL, k, kd);
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
    { "env", 0, jq_nat_env, NULL, NULL },
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

const native *jq_find_native(const char *name, size_t nargs)
{
    for (const native *n = natives; n->name; n++)
        if (n->nargs == nargs && strcmp(n->name, name) == 0)
            return n;
    return NULL;
}

const char jq_prelude[] =
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
