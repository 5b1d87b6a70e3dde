/* jq's evaluator: each filter hands each of its outputs (and, when asked, its
 * path) to a continuation; errors, operators, paths and assignment, patterns,
 * reduce and foreach, and calls of definitions, closures and natives. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jq.h"

/* Keeps a helper out of its caller's stack frame (see jq_eval). */
#define NOINLINE __attribute__((noinline))

/* How deep the evaluator may recurse, in bytes of C stack: about half of the
 * guest's 1 MiB. AddressSanitizer builds (native tests only) have frames
 * several times larger and a larger stack. */
#if defined(__SANITIZE_ADDRESS__)
#define JQ_STACK_LIMIT ((size_t)3 << 20)
#else
#define JQ_STACK_LIMIT ((size_t)480 << 10)
#endif

int jq_fail(jq *q, const char *fmt, ...)
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

int jq_oom(jq *q)
{
    jv_free(q->err);
    q->err = NULL;
    return J_ERR;
}

const char *jq_trunc_dump(char buf[32], const jv *v)
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

int jq_fail_value(jq *q, const jv *v, const char *what)
{
    char b[32];
    return jq_fail(q, "%s (%s) %s", jq_kind_names[v->kind], jq_trunc_dump(b, v), what);
}

jv *jq_checked(jq *q, jv *v)
{
    if (!v)
        jq_oom(q);
    return v;
}

/* A path with one more element, as a new array (NULL when out of memory). */
static jv *path_append(jv *path, jv *key)
{
    jv *p = jv_unshare(jv_ref(path));
    if (!p || jq_arr_push(p, jv_ref(key)) < 0) {
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
        return jq_oom(q);
    int r = k(q, v, p, kd);
    jv_free(p);
    return r;
}

long jq_to_index(double d)
{
    if (d != d)
        return 0;
    if (d > 1e15)
        return (long)1e15;
    if (d < -1e15)
        return (long)-1e15;
    return (long)floor(d);
}

/* t[k] as jq defines it, or NULL with the error set. */
static jv *index_value(jq *q, jv *t, jv *k)
{
    if (t->kind == JK_OBJ && k->kind == JK_STR) {
        jv *v = jq_obj_get(t, k->str, k->len);
        return jq_checked(q, v ? jv_ref(v) : jv_new(JK_NULL));
    }
    if (t->kind == JK_ARR && k->kind == JK_NUM) {
        long i = jq_to_index(k->num);
        if (i < 0)
            i += (long)t->n;
        if (i < 0 || (size_t)i >= t->n)
            return jq_checked(q, jv_new(JK_NULL));
        return jv_ref(t->items[i]);
    }
    if (t->kind == JK_NULL && (k->kind == JK_STR || k->kind == JK_NUM || k->kind == JK_OBJ ||
                               k->kind == JK_NULL))
        return jq_checked(q, jv_new(JK_NULL));
    if (t->kind == JK_ARR && k->kind == JK_ARR)
        return jq_indices_of(q, t, k);
    if (k->kind == JK_OBJ && (t->kind == JK_ARR || t->kind == JK_STR)) {
        jv *from = jq_obj_get(k, "start", 5), *to = jq_obj_get(k, "end", 3);
        if (from && to) {
            jv *sl = NULL;
            long len = (long)(t->kind == JK_STR ? jq_utf8_count(t->str, t->len) : t->n);
            double a = from->kind == JK_NUM ? from->num : 0;
            double b = to->kind == JK_NUM ? to->num : (double)len;
            long s = jq_to_index(a), en = (long)ceil(b > 1e15 ? 1e15 : b < -1e15 ? -1e15 : b);
            if (s < 0)
                s += len;
            if (en < 0)
                en += len;
            s = s < 0 ? 0 : s > len ? len : s;
            en = en < s ? s : en > len ? len : en;
            if (t->kind == JK_STR) {
                size_t bs = jq_utf8_offset(t->str, t->len, (size_t)s);
                size_t be = bs + jq_utf8_offset(t->str + bs, t->len - bs, (size_t)(en - s));
                sl = jv_strn(t->str + bs, be - bs);
            } else if ((sl = jv_new(JK_ARR))) {
                for (long i = s; i < en; i++)
                    if (jq_arr_push(sl, jv_ref(t->items[i])) < 0) {
                        jv_free(sl);
                        sl = NULL;
                        break;
                    }
            }
            return jq_checked(q, sl);
        }
    }
    if (k->kind == JK_STR) {
        jq_fail(q, "Cannot index %s with \"%s\"", jq_kind_names[t->kind], k->str);
        return NULL;
    }
    jq_fail(q, "Cannot index %s with %s", jq_kind_names[t->kind], jq_kind_names[k->kind]);
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
    if (g->truthy_only && !jq_truthy(v))
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
    if (jq_arr_push(c->arr, jv_ref(c->paths ? path : v)) < 0)
        return jq_oom(q);
    return 0;
}

jv *jq_collect_all(jq *q, const node *n, const env *e, jv *in, int paths)
{
    collect c = { jv_new(JK_ARR), paths };
    if (!c.arr)
        return jq_checked(q, NULL);
    jv *root = NULL;
    if (paths && !(root = jv_new(JK_ARR))) {
        jv_free(c.arr);
        return jq_checked(q, NULL);
    }
    int r = jq_eval(q, n, e, in, root, collect_emit, &c);
    jv_free(root);
    if (r) {
        jv_free(c.arr);
        if (r >= J_LABEL)
            jq_fail(q, "break");
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
    int r = jq_eval(q, n, e, in, NULL, first_emit, &f);
    *out = f.v;
    return r == f.label ? 0 : r;
}

int jq_path_error_emit(jq *q, jv *v, jv *path, void *data)
{
    (void)path, (void)data;
    char b[32];
    return jq_fail(q, "Invalid path expression with result %s", jq_trunc_dump(b, v));
}

/* ---------------------------------------------------------------- operators */

/* Deep-merges object b into a (both borrowed): jq's object '*'. */
static jv *merge_deep(jv *a, jv *b)
{
    jv *r = jv_unshare(jv_ref(a));
    for (size_t i = 0; r && i < b->n; i++) {
        jv *old = jq_obj_get(r, b->keys[i]->str, b->keys[i]->len);
        jv *val = old && old->kind == JK_OBJ && b->items[i]->kind == JK_OBJ
                      ? merge_deep(old, b->items[i])
                      : jv_ref(b->items[i]);
        if (jq_obj_set(r, jv_ref(b->keys[i]), val) < 0) {
            jv_free(r);
            r = NULL;
        }
    }
    return r;
}

jv *jq_split_str(const jv *s, const jv *sep)
{
    jv *arr = jv_new(JK_ARR);
    if (!arr || s->len == 0)
        return arr;
    size_t start = 0;
    for (size_t i = 0; sep->len && i + sep->len <= s->len;) {
        if (memcmp(s->str + i, sep->str, sep->len) == 0) {
            if (jq_arr_push(arr, jv_strn(s->str + start, i - start)) < 0)
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
            size_t k = jq_utf8_decode((const unsigned char *)s->str + i, s->len - i, &cp);
            if (jq_arr_push(arr, jv_strn(s->str + i, k)) < 0)
                goto fail;
            i += k;
        }
        return arr;
    }
    if (jq_arr_push(arr, jv_strn(s->str + start, s->len - start)) < 0)
        goto fail;
    return arr;
fail:
    jv_free(arr);
    return NULL;
}

jv *jq_binop(jq *q, int op, jv *a, jv *b)
{
    char ba[32], bb[32];
    const char *verb = "added";
    jv *r;
    switch (op) {
    case 'e': return jq_checked(q, jv_bool(jv_cmp(a, b) == 0));
    case 'n': return jq_checked(q, jv_bool(jv_cmp(a, b) != 0));
    case '<': return jq_checked(q, jv_bool(jv_cmp(a, b) < 0));
    case 'l': return jq_checked(q, jv_bool(jv_cmp(a, b) <= 0));
    case '>': return jq_checked(q, jv_bool(jv_cmp(a, b) > 0));
    case 'g': return jq_checked(q, jv_bool(jv_cmp(a, b) >= 0));
    case '+':
        if (a->kind == JK_NULL)
            return jv_ref(b);
        if (b->kind == JK_NULL)
            return jv_ref(a);
        if (a->kind != b->kind)
            break;
        if (a->kind == JK_NUM)
            return jq_checked(q, jv_num(a->num + b->num));
        if (a->kind == JK_STR) {
            sh_buf s = { 0 };
            if (sh_buf_add(&s, a->str, a->len) < 0 || sh_buf_add(&s, b->str, b->len) < 0 ||
                sh_buf_addc(&s, 0) < 0) {
                sh_buf_free(&s);
                return jq_checked(q, NULL);
            }
            s.len--;
            return jq_checked(q, jv_str_buf(&s));
        }
        if (a->kind == JK_ARR || a->kind == JK_OBJ) {
            r = jv_unshare(jv_ref(a));
            for (size_t i = 0; r && i < b->n; i++) {
                int st = a->kind == JK_ARR ? jq_arr_push(r, jv_ref(b->items[i]))
                                           : jq_obj_set(r, jv_ref(b->keys[i]), jv_ref(b->items[i]));
                if (st < 0) {
                    jv_free(r);
                    r = NULL;
                }
            }
            return jq_checked(q, r);
        }
        break;
    case '-':
        verb = "subtracted";
        if (a->kind == JK_NUM && b->kind == JK_NUM)
            return jq_checked(q, jv_num(a->num - b->num));
        if (a->kind == JK_ARR && b->kind == JK_ARR) {
            r = jv_new(JK_ARR);
            for (size_t i = 0; r && i < a->n; i++) {
                size_t j = 0;
                while (j < b->n && jv_cmp(a->items[i], b->items[j]) != 0)
                    j++;
                if (j == b->n && jq_arr_push(r, jv_ref(a->items[i])) < 0) {
                    jv_free(r);
                    r = NULL;
                }
            }
            return jq_checked(q, r);
        }
        break;
    case '*':
        verb = "multiplied";
        if (a->kind == JK_NUM && b->kind == JK_NUM)
            return jq_checked(q, jv_num(a->num * b->num));
        if ((a->kind == JK_STR && b->kind == JK_NUM) || (a->kind == JK_NUM && b->kind == JK_STR)) {
            jv *s = a->kind == JK_STR ? a : b;
            double times = a->kind == JK_NUM ? a->num : b->num;
            /* As jq 1.6: one copy plus (int)(times - 1) more; null when times <= 0. */
            if (times <= 0 || times != times)
                return jq_checked(q, jv_new(JK_NULL));
            long n = times > 1e9 ? (long)1e9 : 1 + (long)(times - 1);
            if (s->len && (size_t)n > ((size_t)64 << 20) / s->len) {
                jq_fail(q, "Repeat string result too long");
                return NULL;
            }
            sh_buf out = { 0 };
            for (long i = 0; i < n; i++)
                if (sh_buf_add(&out, s->str, s->len) < 0) {
                    sh_buf_free(&out);
                    return jq_checked(q, NULL);
                }
            if (sh_buf_addc(&out, 0) < 0) {
                sh_buf_free(&out);
                return jq_checked(q, NULL);
            }
            out.len--;
            return jq_checked(q, jv_str_buf(&out));
        }
        if (a->kind == JK_OBJ && b->kind == JK_OBJ)
            return jq_checked(q, merge_deep(a, b));
        break;
    case '/':
        verb = "divided";
        if (a->kind == JK_NUM && b->kind == JK_NUM) {
            if (b->num == 0) {
                jq_fail(q, "%s (%s) and %s (%s) cannot be divided because the divisor is zero",
                        jq_kind_names[a->kind], jq_trunc_dump(ba, a), jq_kind_names[b->kind], jq_trunc_dump(bb, b));
                return NULL;
            }
            return jq_checked(q, jv_num(a->num / b->num));
        }
        if (a->kind == JK_STR && b->kind == JK_STR)
            return jq_checked(q, jq_split_str(a, b));
        break;
    case '%':
        verb = "divided";
        if (a->kind == JK_NUM && b->kind == JK_NUM) {
            long long x = (long long)jq_to_index(a->num), y = (long long)jq_to_index(b->num);
            if (y == 0) {
                jq_fail(q, "%s (%s) and %s (%s) cannot be divided (remainder) because the divisor is zero",
                        jq_kind_names[a->kind], jq_trunc_dump(ba, a), jq_kind_names[b->kind], jq_trunc_dump(bb, b));
                return NULL;
            }
            if (y < 0)
                y = -y;
            return jq_checked(q, jv_num((double)(x % y)));
        }
        break;
    default:
        break;
    }
    jq_fail(q, "%s (%s) and %s (%s) cannot be %s", jq_kind_names[a->kind], jq_trunc_dump(ba, a),
            jq_kind_names[b->kind], jq_trunc_dump(bb, b), verb);
    return NULL;
}

/* ---------------------------------------------------------------- paths */

jv *jq_getpath(jq *q, jv *t, jv *path)
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
    jv *from = jq_obj_get(key, "start", 5), *to = jq_obj_get(key, "end", 3);
    long a = from && from->kind == JK_NUM ? jq_to_index(from->num) : 0;
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

jv *jq_setpath(jq *q, jv *t, jv *path, size_t i, jv *v)
{
    if (i == path->n) {
        jv_free(t);
        return jv_ref(v);
    }
    jv *key = path->items[i];
    if (t->kind == JK_NULL && (key->kind == JK_STR || key->kind == JK_NUM || key->kind == JK_OBJ)) {
        jv_free(t);
        if (!(t = jv_new(key->kind == JK_STR ? JK_OBJ : JK_ARR)))
            return jq_checked(q, NULL);
    }
    if (key->kind == JK_STR && t->kind == JK_OBJ) {
        jv *child = jq_obj_get(t, key->str, key->len);
        child = child ? jv_ref(child) : jv_new(JK_NULL);
        if (!(t = jv_unshare(t)) || !child) {
            jv_free(child);
            jv_free(t);
            return jq_checked(q, NULL);
        }
        jv *nc = jq_setpath(q, child, path, i + 1, v);
        if (!nc || jq_obj_set(t, jv_ref(key), nc) < 0) {
            jv_free(t);
            return nc ? jq_checked(q, NULL) : NULL;
        }
        return t;
    }
    if (key->kind == JK_NUM && t->kind == JK_ARR) {
        long idx = jq_to_index(key->num);
        if (idx < 0)
            idx += (long)t->n;
        if (idx < 0) {
            jv_free(t);
            jq_fail(q, "Out of bounds negative array index");
            return NULL;
        }
        if (idx > (long)(64 << 20)) {
            jv_free(t);
            jq_fail(q, "Array index too large");
            return NULL;
        }
        if (!(t = jv_unshare(t)))
            return jq_checked(q, NULL);
        while (t->n <= (size_t)idx)
            if (jq_arr_push(t, jv_new(JK_NULL)) < 0) {
                jv_free(t);
                return jq_checked(q, NULL);
            }
        jv *nc = jq_setpath(q, jv_ref(t->items[idx]), path, i + 1, v);
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
        jv *nc = old ? jq_setpath(q, old, path, i + 1, v) : NULL;
        if (!nc) {
            jv_free(t);
            return NULL;
        }
        if (nc->kind != JK_ARR) {
            jv_free(nc);
            jv_free(t);
            jq_fail(q, "A slice of an array can only be assigned another array");
            return NULL;
        }
        jv *r = jv_new(JK_ARR);
        for (long k = 0; r && k < s; k++)
            if (jq_arr_push(r, jv_ref(t->items[k])) < 0)
                r = NULL;
        for (size_t k = 0; r && k < nc->n; k++)
            if (jq_arr_push(r, jv_ref(nc->items[k])) < 0)
                r = NULL;
        for (long k = e; r && k < (long)t->n; k++)
            if (jq_arr_push(r, jv_ref(t->items[k])) < 0)
                r = NULL;
        jv_free(nc);
        jv_free(t);
        return jq_checked(q, r);
    }
    if (key->kind == JK_STR)
        jq_fail(q, "Cannot index %s with \"%s\"", jq_kind_names[t->kind], key->str);
    else
        jq_fail(q, "Cannot update field at object index of %s", jq_kind_names[t->kind]);
    jv_free(t);
    return NULL;
}

/* t (taken over) without the value at path[i..]; NULL with the error set. */
static jv *delpath(jq *q, jv *t, jv *path, size_t i)
{
    if (i == path->n) {
        jv_free(t);
        return jq_checked(q, jv_new(JK_NULL));
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
        jv *r = one && jq_arr_push(one, jv_ref(key)) == 0 ? jq_setpath(q, t, one, 0, nc)
                                                         : (jv_free(t), jq_checked(q, NULL));
        jv_free(one);
        jv_free(nc);
        return r;
    }
    if (key->kind == JK_STR && t->kind == JK_OBJ) {
        long at = jq_obj_find(t, key->str, key->len);
        if (at < 0)
            return t;
        if (!(t = jv_unshare(t)))
            return jq_checked(q, NULL);
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
            s = jq_to_index(key->num);
            if (s < 0)
                s += (long)t->n;
            if (s < 0) {
                jv_free(t);
                jq_fail(q, "Out of bounds negative array index");
                return NULL;
            }
            if (s >= (long)t->n)
                return t;
            e = s + 1;
        } else {
            slice_range(key, (long)t->n, &s, &e);
        }
        if (!(t = jv_unshare(t)))
            return jq_checked(q, NULL);
        for (long k = s; k < e; k++)
            jv_free(t->items[k]);
        memmove(t->items + s, t->items + e, (t->n - (size_t)e) * sizeof *t->items);
        t->n -= (size_t)(e - s);
        return t;
    }
    if (key->kind == JK_STR)
        jq_fail(q, "Cannot delete field at object index of %s", jq_kind_names[t->kind]);
    else
        jq_fail(q, "Cannot delete field at index of %s", jq_kind_names[t->kind]);
    jv_free(t);
    return NULL;
}

static int value_cmp(const void *x, const void *y)
{
    return jv_cmp(*(jv *const *)x, *(jv *const *)y);
}

jv *jq_delpaths(jq *q, jv *t, jv *paths)
{
    if (paths->kind != JK_ARR) {
        jq_fail(q, "Paths must be specified as an array");
        return NULL;
    }
    jv **sorted = malloc((paths->n ? paths->n : 1) * sizeof *sorted);
    if (!sorted)
        return jq_checked(q, NULL);
    memcpy(sorted, paths->items, paths->n * sizeof *sorted);
    qsort(sorted, paths->n, sizeof *sorted, value_cmp);
    jv *r = jv_ref(t);
    for (size_t i = paths->n; r && i-- > 0;) {
        if (i + 1 < paths->n && jv_cmp(sorted[i], sorted[i + 1]) == 0)
            continue;
        if (sorted[i]->kind != JK_ARR) {
            jv_free(r);
            r = NULL;
            jq_fail(q, "Path must be specified as an array");
        } else {
            r = delpath(q, r, sorted[i], 0);
        }
    }
    free(sorted);
    return r;
}

/* ---------------------------------------------------------------- the evaluator */

static int pipe_emit(jq *q, jv *v, jv *path, void *data)
{
    step *s = data;
    return jq_eval(q, s->n->b, s->e, v, path, s->k, s->kd);
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
    return jq_eval(q, s->n->a, s->e, s->in, s->path, index_term_emit, &t);
}

/* Slice: held is the {start, end} key. */
static int slice_term_emit(jq *q, jv *t, jv *path, void *data)
{
    step *s = data;
    if (t->kind == JK_NULL)
        return emit_at(q, t, path, s->held, s->k, s->kd);
    if (t->kind != JK_ARR && t->kind != JK_STR)
        return s->n->opt ? 0 : jq_fail(q, "Cannot index %s with object", jq_kind_names[t->kind]);
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
        return jq_fail(q, "Cannot iterate over %s%s%s%s", jq_kind_names[t->kind],
                       t->kind == JK_NULL ? "" : " (",
                       t->kind == JK_NULL ? "" : jq_trunc_dump(b, t),
                       t->kind == JK_NULL ? "" : ")");
    jv *hold = jv_ref(t);
    int r = 0;
    for (size_t i = 0; r == 0 && i < hold->n; i++) {
        jv *key = hold->kind == JK_OBJ ? jv_ref(hold->keys[i]) : (path ? jv_num((double)i) : NULL);
        if (path && !key) {
            r = jq_oom(q);
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
        return jq_fail_value(q, v, "cannot be negated");
    jv *r = jv_num(-v->num);
    if (!r)
        return jq_oom(q);
    int st = s->k(q, r, NULL, s->kd);
    jv_free(r);
    return st;
}

/* Arithmetic: the right operand (held) is computed first, as jq does. */
static int arith_left_emit(jq *q, jv *a, jv *path, void *data)
{
    step *s = data;
    (void)path;
    jv *r = jq_binop(q, s->n->binop, a, s->held);
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
        return jq_oom(q);
    int r = k(q, v, NULL, kd);
    jv_free(v);
    return r;
}

static int logic_right_emit(jq *q, jv *b, jv *path, void *data)
{
    step *s = data;
    (void)path;
    return emit_bool(q, jq_truthy(b), s->k, s->kd);
}

static int logic_left_emit(jq *q, jv *a, jv *path, void *data)
{
    step *s = data;
    (void)path;
    int is_and = s->n->op == N_AND;
    if (jq_truthy(a) != is_and)
        return emit_bool(q, !is_and, s->k, s->kd);
    return jq_eval(q, s->n->b, s->e, s->in, NULL, logic_right_emit, s);
}

static int if_emit(jq *q, jv *c, jv *path, void *data)
{
    step *s = data;
    (void)path;
    const node *branch = jq_truthy(c) ? s->n->b : s->n->c;
    if (!branch)
        return s->k(q, s->in, s->path, s->kd);
    return jq_eval(q, branch, s->e, s->in, s->path, s->k, s->kd);
}

/* ---- patterns */

size_t jq_pattern_vars(const node *p)
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
        n += jq_pattern_vars(p->args[i]);
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
                jq_fail(q, "Cannot index %s with number", jq_kind_names[v->kind]);
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
                jq_oom(q);
                return NULL;
            }
            if (key->kind != JK_STR) {
                jv_free(key);
                jq_fail(q, "Cannot index %s with %s", jq_kind_names[v->kind], "non-string key");
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
    size_t nvars = jq_pattern_vars(p);
    b->used = 0;
    b->frames = &b->one;
    if (nvars > 1 && !(b->frames = calloc(nvars, sizeof *b->frames))) {
        b->frames = &b->one;
        jq_oom(q);
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
    int r = inner ? jq_eval(q, body, inner, in, path, k, kd) : J_ERR;
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
        return jq_eval(q, s->n->e, s->inner, v, NULL, s->k, s->kd);
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
        return jq_oom(q);
    binding b;
    const env *saved = s->inner;
    int saved_consumed = q->consumed;
    s->inner = bind(q, s->n->d, s->e, v, &b);
    /* An update that is one assignment may modify the state in place (when
     * nothing else refers to it), instead of copying it for every element. */
    q->consumed = 0;
    q->consumable = s->n->c->op == N_ASSIGN && state->refs == 1 ? state : NULL;
    int r = s->inner ? jq_eval(q, s->n->c, s->inner, state, NULL, fold_update_emit, s) : J_ERR;
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
    int r = jq_eval(q, s->n->a, s->e, s->in, NULL, fold_item_emit, &t);
    if (r == 0 && s->n->op == N_REDUCE) {
        jv *null_v = t.held ? NULL : jv_new(JK_NULL);
        if (!t.held && !null_v)
            r = jq_oom(q);
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
    if (jq_arr_push(data, jv_ref(v)) < 0)
        return jq_oom(q);
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
    return jq_eval(q, s->n->args[2 * s->i], s->e, s->in, NULL, object_key_emit, &t);
}

static int object_value_emit(jq *q, jv *v, jv *path, void *data)
{
    const objstep *s = data;
    (void)path;
    jv *obj = jv_unshare(jv_ref(s->obj));
    if (!obj || jq_obj_set(obj, jv_ref(s->key), jv_ref(v)) < 0) {
        jv_free(obj);
        return jq_oom(q);
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
        return jq_fail(q, "Object keys must be strings%s%s", key->kind == JK_NULL ? "" : ": ",
                       key->kind == JK_NULL ? "" : jq_trunc_dump(b, key));
    objstep t = *s;
    t.key = key;
    return jq_eval(q, s->n->args[2 * s->i + 1], s->e, s->in, NULL, object_value_emit, &t);
}

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
        return jq_eval(q, s->n->args[s->idx], s->e, s->in, NULL, string_part_emit, &t);
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
        return jq_oom(q);
    st = s->k(q, r, NULL, s->kd);
    jv_free(r);
    return st;
}

static int string_part_emit(jq *q, jv *v, jv *path, void *data)
{
    const strstep *s = data;
    (void)path;
    jv *text = s->n->name ? jq_apply_format(q, s->n->name, v) : jq_checked(q, jv_tostring(v));
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
        return jq_oom(q);
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
        jv *old = jq_getpath(q, acc, p);
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
            nv = jv_ref(jq_truthy(old) ? old : rhs);
            break;
        default:
            nv = jq_binop(q, n->binop, old, rhs);
            r = nv ? 0 : J_ERR;
            break;
        }
        jv_free(old);
        if (r) {
            if (r >= J_LABEL)
                jq_fail(q, "break");
            jv_free(acc);
            return NULL;
        }
        if (!nv) {
            jv *one = jv_new(JK_ARR);
            if (!one || jq_arr_push(one, jv_ref(p)) < 0) {
                jv_free(one);
                jv_free(acc);
                return jq_checked(q, NULL);
            }
            jv *next = jq_delpaths(q, acc, one);
            jv_free(one);
            jv_free(acc);
            acc = next;
        } else {
            acc = jq_setpath(q, acc, p, 0, nv);
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
    jv *paths = jq_collect_all(q, n->a, e, in, 1);
    if (!paths)
        return J_ERR;
    jv *rhs = NULL;
    if (n->binop != '|' && !(rhs = jq_collect_all(q, n->b, e, in, 0))) {
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
            return jq_eval(q, s->call->args[s->i], s->caller, s->in, NULL, arg_value_emit, s);
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
        return jq_eval(q, s->call->args[s->i], s->caller, s->in, NULL, arg_value_emit, s);
    }
    const env *top = def->nparams ? &s->frames[2 * def->nparams - 1] : s->func;
    return jq_eval(q, def->a, top, s->in, s->path, s->k, s->kd);
}

static int call_bound(jq *q, const env *f, const node *n, const env *e, jv *in, jv *path,
                      emit_fn k, void *kd);

static int eval_call(jq *q, const node *n, const env *e, jv *in, jv *path, emit_fn k, void *kd)
{
    const env *f = lookup_func(e, n->name, n->nargs);
    if (f && f->kind == E_CLOSURE)
        return jq_eval(q, f->def, f->scope, in, path, k, kd);
    if (f && f->def->nparams == 0)
        return jq_eval(q, f->def->a, f, in, path, k, kd);
    return call_bound(q, f, n, e, in, path, k, kd);
}

/* Calls a function that takes arguments, or a native one. */
static NOINLINE int call_bound(jq *q, const env *f, const node *n, const env *e, jv *in,
                               jv *path, emit_fn k, void *kd)
{
    callstep s = { NULL, f, n, e, in, path, k, kd, 0, NULL, NULL };
    if (!f) {
        s.nat = jq_find_native(n->name, n->nargs);
        if (!s.nat)
            return jq_fail(q, "%s/%zu is not defined", n->name, n->nargs);
        if (s.nat->special)
            return s.nat->special(q, n, e, in, path, k, kd);
        if (path) {
            s.k = jq_path_error_emit;
            s.path = NULL;
        }
        jv *vals[4] = { NULL, NULL, NULL, NULL };
        s.vals = vals;
        return bind_args(q, &s);
    }
    if (f->def->nparams && !(s.frames = calloc(2 * f->def->nparams, sizeof *s.frames)))
        return jq_oom(q);
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
        return jq_oom(q);
    int outer = jq_eval(q, n->op == N_ARITH ? n->b : n->a, s->e, s->in, NULL, collect_emit, &c);
    jv *pending = q->err;
    q->err = NULL;
    int r = 0;
    for (size_t i = 0; r == 0 && i < c.arr->n; i++) {
        jv *v = c.arr->items[i];
        if (n->op == N_ARITH) {
            step t = *s;
            t.held = v;
            r = jq_eval(q, n->a, s->e, s->in, NULL, arith_left_emit, &t);
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

int jq_emit_new(jq *q, jv *v, emit_fn k, void *kd)
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
 * whose second part runs on each output of the first). Kept out of jq_eval so
 * that jq_eval's own stack frame, paid on every level of recursion, stays small. */
static NOINLINE int eval_via(jq *q, const node *n, const env *e, jv *in, jv *path, emit_fn k,
                             void *kd, const node *sub, jv *subpath, emit_fn via)
{
    step s = { q, n, e, in, path, k, kd, NULL, NULL };
    return jq_eval(q, sub, e, in, subpath, via, &s);
}

/* .[from:to]: the bounds are computed first (their first outputs). */
static NOINLINE int eval_slice(jq *q, const node *n, const env *e, jv *in, jv *path, emit_fn k,
                               void *kd)
{
    jv *from = NULL, *to = NULL, *key = jv_new(JK_OBJ);
    if (!key)
        return jq_oom(q);
    int r = n->b ? first_of(q, n->b, e, in, &from) : 0;
    if (r == 0 && n->c)
        r = first_of(q, n->c, e, in, &to);
    if (r == 0 && ((from && from->kind != JK_NUM && from->kind != JK_NULL) ||
                   (to && to->kind != JK_NUM && to->kind != JK_NULL)))
        r = jq_fail(q, "Start and end indices of an array slice must be numbers");
    if (r == 0 && (jq_obj_set(key, jv_str("start"), from ? jv_ref(from) : jv_new(JK_NULL)) < 0 ||
                   jq_obj_set(key, jv_str("end"), to ? jv_ref(to) : jv_new(JK_NULL)) < 0))
        r = jq_oom(q);
    jv_free(from);
    jv_free(to);
    step s = { q, n, e, in, path, k, kd, key, NULL };
    if (r == 0)
        r = jq_eval(q, n->a, e, in, path, slice_term_emit, &s);
    jv_free(key);
    return r;
}

/* a // b, and try a catch b (or a? when b is NULL). */
static NOINLINE int eval_alt_try(jq *q, const node *n, const env *e, jv *in, jv *path,
                                 emit_fn k, void *kd)
{
    guard g = { k, kd, 0, 0, n->op == N_ALT };
    int r = jq_eval(q, n->a, e, in, path, guard_emit, &g);
    if (n->op == N_ALT) /* jq 1.6 lets errors on the left through */
        return r || g.count ? r : jq_eval(q, n->b, e, in, path, k, kd);
    if (r != J_ERR || g.downstream)
        return r;
    jv *err = q->err;
    q->err = NULL;
    if (!n->b) {
        jv_free(err);
        return 0;
    }
    if (!err && !(err = jv_str("out of memory")))
        return jq_oom(q);
    r = jq_eval(q, n->b, e, err, NULL, k, kd);
    jv_free(err);
    return r;
}

/* Definitions and labels: a binding for the rest of the filter. */
static NOINLINE int eval_binding(jq *q, const node *n, const env *e, jv *in, jv *path,
                                 emit_fn k, void *kd)
{
    if (n->op == N_DEF) {
        env f = { .up = e, .kind = E_FUNC, .name = n->name, .arity = n->nparams, .def = n };
        return jq_eval(q, n->b, &f, in, path, k, kd);
    }
    env l = { .up = e, .kind = E_LABEL, .name = n->name, .label = q->next_label++ };
    int r = jq_eval(q, n->a, &l, in, path, k, kd);
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
            return jq_oom(q);
        r = object_from(q, &o);
        jv_free(o.obj);
        return r;
    }
    jv *arr = jv_new(JK_ARR);
    if (!arr)
        return jq_oom(q);
    r = n->a ? jq_eval(q, n->a, e, in, NULL, array_emit, arr) : 0;
    if (r == 0)
        r = k(q, arr, NULL, kd);
    jv_free(arr);
    return r;
}

int jq_eval(jq *q, const node *n, const env *e, jv *in, jv *path, emit_fn k, void *kd)
{
    char here;
    uintptr_t at = (uintptr_t)&here;
    if ((at < q->stack_base ? q->stack_base - at : at - q->stack_base) > JQ_STACK_LIMIT)
        return jq_fail(q, "Recursion too deep");
    if (path && !path_capable(n->op))
        return jq_eval(q, n, e, in, NULL, jq_path_error_emit, NULL);
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
        int r = jq_eval(q, n->a, e, in, path, k, kd);
        return r ? r : jq_eval(q, n->b, e, in, path, k, kd);
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
        return v ? k(q, v->val, NULL, kd) : jq_fail(q, "$%s is not defined", n->name);
    }
    case N_FORMAT:
        return jq_emit_new(q, jq_apply_format(q, n->name, in), k, kd);
    case N_STR:
        return eval_string(q, n, e, in, k, kd);
    case N_ARRAY:
    case N_OBJECT:
        return eval_construct(q, n, e, in, k, kd);
    case N_BREAK: {
        const env *l = lookup(e, E_LABEL, n->name);
        return l ? l->label : jq_fail(q, "$*label-%s is not defined", n->name);
    }
    default:
        return jq_fail(q, "internal error: bad node");
    }
}
