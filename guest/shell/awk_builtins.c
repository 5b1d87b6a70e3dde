/* awk's builtin functions (strings, sub/gsub/gensub, split, arithmetic, time,
 * asort, system and close) and getline in its forms. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "awk.h"

/* Appends the replacement text for one match: & is the match and \& a
 * literal &; with backrefs (gensub), \0 to \9 are the match and its groups.
 * base is where the match offsets m count from. */
static int expand_replacement(sh_buf *b, const char *repl, const char *base,
                              const regmatch_t *m, int backrefs)
{
    int r = 0;
    for (const char *x = repl; *x && r == 0; x++) {
        if (*x == '\\' && backrefs && isdigit((unsigned char)x[1])) {
            int g = *++x - '0';
            if (m[g].rm_so >= 0)
                r = sh_buf_add(b, base + m[g].rm_so, (size_t)(m[g].rm_eo - m[g].rm_so));
        } else if (*x == '\\' && (x[1] == '&' || x[1] == '\\')) {
            r = sh_buf_addc(b, *++x);
        } else if (*x == '&') {
            r = sh_buf_add(b, base + m[0].rm_so, (size_t)(m[0].rm_eo - m[0].rm_so));
        } else {
            r = sh_buf_addc(b, *x);
        }
    }
    return r;
}

/* Replaces matches of re in s by repl: every match when which is 0, else only
 * the which-th (sub is which 1). An empty match right after a match is not
 * one, as in gawk. *count gets the number of replacements; the result is new. */
static char *substitute(aw *I, are *re, const char *repl, const char *s, long which,
                        int backrefs, int *count)
{
    sh_buf b = { 0 };
    size_t len = strlen(s), pos = 0;
    long last_end = -1, k = 0;
    int r = 0;
    *count = 0;
    while (pos <= len && r == 0) {
        regmatch_t m[10];
        if (!awk_regex_exec(re, s + pos, pos > 0, m, 10)) {
            r = sh_buf_add(&b, s + pos, len - pos);
            break;
        }
        size_t ms = pos + (size_t)m[0].rm_so, me = pos + (size_t)m[0].rm_eo;
        if (ms == me && (long)ms == last_end) {
            if (ms >= len)
                break;
            r = sh_buf_add(&b, s + pos, ms + 1 - pos);
            pos = ms + 1;
            continue;
        }
        r = sh_buf_add(&b, s + pos, ms - pos);
        k++;
        if (r == 0 && (which == 0 || k == which)) {
            r = expand_replacement(&b, repl, s + pos, m, backrefs);
            (*count)++;
        } else if (r == 0) {
            r = sh_buf_add(&b, s + ms, me - ms);
        }
        last_end = (long)me;
        if (ms == me) {
            if (ms < len && r == 0)
                r = sh_buf_addc(&b, s[ms]);
            pos = ms + 1;
        } else {
            pos = me;
        }
        if (which && k == which) {
            if (pos <= len && r == 0)
                r = sh_buf_add(&b, s + pos, len - pos);
            break;
        }
    }
    char *out = r == 0 ? sh_buf_take(&b, NULL) : NULL;
    if (!out) {
        sh_buf_free(&b);
        awk_oom(I);
    }
    return out;
}

/* gensub(re, repl, how [, target]): the substituted string, target unchanged;
 * how is "g" for every match, else the number of the match to replace. */
static int builtin_gensub(aw *I, anode *n, aval *out)
{
    aval *args = NULL;
    int nvals = 3;
    int r = awk_eval_list(I, n->a->next, nvals, &args);
    if (r == C_OK && n->nargs == 3)
        r = awk_get_field(I, 0, &args[2]);
    const char *repl = r == C_OK ? awk_str_of(I, &args[0]) : NULL;
    const char *how = repl ? awk_str_of(I, &args[1]) : NULL;
    const char *target = how ? awk_str_of(I, &args[2]) : NULL;
    are *re = target ? awk_node_regex(I, n->a) : NULL;
    if (!re) {
        r = C_ERROR;
    } else {
        long which = 0;
        if (how[0] != 'g' && how[0] != 'G') {
            double d = awk_to_num(&args[1]);
            which = d < 1 ? 1 : (long)(d > 1e9 ? 1e9 : d);
        }
        int count;
        char *res = substitute(I, re, repl, target, which, 1, &count);
        if (res)
            awk_val_str(out, res);
        else
            r = C_ERROR;
    }
    awk_free_values(args, nvals);
    return r;
}

/* asort/asorti ordering: numbers first (numerically), then strings. */
static int cmp_sort_values(const void *pa, const void *pb)
{
    const aval *a = pa, *b = pb;
    int an = a->type != T_STR, bn = b->type != T_STR;
    if (an && bn) {
        double x = awk_to_num(a), y = awk_to_num(b);
        return x < y ? -1 : x > y;
    }
    if (an != bn)
        return an ? -1 : 1;
    return strcmp(a->str, b->str);
}

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* asort(src [, dest]) sorts the values, asorti the indexes; the result is
 * indexed 1..n in dest (src when alone). Returns n. */
static int builtin_asort(aw *I, anode *n, aval *out)
{
    aarr *src = awk_node_array(I, n->a);
    aarr *dest = src && n->nargs == 2 ? awk_node_array(I, n->a->next) : src;
    if (!dest)
        return C_ERROR;
    size_t count = src->n, k = 0;
    aval *vals = awk_xcalloc(I, count, sizeof(aval));
    char **keys = vals ? awk_xcalloc(I, count, sizeof(char *)) : NULL;
    int r = keys ? C_OK : C_ERROR;
    for (size_t i = 0; i < src->nb && r == C_OK; i++)
        for (aelem *e = src->b[i]; e && r == C_OK; e = e->next, k++) {
            if (n->op == B_ASORT ? awk_val_copy(I, &vals[k], &e->v) < 0
                                 : !(keys[k] = awk_xstrdup(I, e->key)))
                r = C_ERROR;
        }
    if (r == C_OK) {
        if (n->op == B_ASORT)
            qsort(vals, count, sizeof(aval), cmp_sort_values);
        else
            qsort(keys, count, sizeof(char *), cmp_keys);
        awk_arr_clear(dest);
        for (size_t i = 0; i < count && r == C_OK; i++) {
            char key[32];
            snprintf(key, sizeof(key), "%zu", i + 1);
            aelem *e = awk_arr_get(I, dest, key);
            if (!e) {
                r = C_ERROR;
            } else if (n->op == B_ASORT) {
                e->v = vals[i];
                memset(&vals[i], 0, sizeof(aval));
            } else {
                awk_val_set_input(&e->v, keys[i]);
                keys[i] = NULL;
            }
        }
    }
    for (size_t i = 0; i < count && vals && keys; i++) {
        awk_val_free(&vals[i]);
        free(keys[i]);
    }
    free(vals);
    free(keys);
    if (r == C_OK)
        awk_val_num(out, (double)count);
    return r;
}

/* Seconds since the epoch of a UTC civil date (any field may overflow). */
static double civil_seconds(long long y, long long mo, long long d, long long h, long long mi,
                            long long s)
{
    mo -= 1;
    y += mo / 12;
    mo %= 12;
    if (mo < 0) {
        mo += 12;
        y--;
    }
    mo += 1;
    y -= mo <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    long long days = era * 146097 + doe - 719468;
    return (double)days * 86400 + (double)h * 3600 + (double)mi * 60 + (double)s;
}

/* mktime("YYYY MM DD HH MM SS"): seconds since the epoch (the guest's time
 * is UTC), or -1 for a malformed date. */
static double awk_mktime(const char *s)
{
    long long f[6];
    for (int i = 0; i < 6; i++) {
        char *end;
        f[i] = strtoll(s, &end, 10);
        if (end == s || llabs(f[i]) > 100000000)
            return -1;
        s = end;
    }
    return civil_seconds(f[0], f[1], f[2], f[3], f[4], f[5]);
}

/* strftime([format [, time [, utc]]]): the formatted time in out. */
static int awk_strftime(aw *I, aval *args, int nargs, aval *out)
{
    const char *fmt = nargs ? awk_str_of(I, &args[0]) : "%a %b %e %H:%M:%S %Z %Y";
    if (!fmt)
        return C_ERROR;
    time_t t = nargs >= 2 ? (time_t)awk_to_ll(awk_to_num(&args[1])) : time(NULL);
    struct tm tm;
    struct tm *ok = nargs == 3 && awk_truth(&args[2]) ? gmtime_r(&t, &tm) : localtime_r(&t, &tm);
    size_t cap = strlen(fmt) * 8 + 256;
    char *buf = awk_xcalloc(I, cap, 1);
    if (!buf)
        return C_ERROR;
    if (ok && *fmt && strftime(buf, cap, fmt, &tm) == 0)
        buf[0] = '\0';
    awk_val_str(out, buf);
    return C_OK;
}

/* sub/gsub(re, repl [, target]): target ($0 by default) is assigned only
 * when something was replaced; the value is the number of replacements. */
static int builtin_sub(aw *I, anode *n, aval *out)
{
    anode *re_node = n->a, *repl_node = n->a->next, *target = n->nargs == 3 ? repl_node->next : NULL;
    aval repl = { 0 }, cur = { 0 };
    place pl;
    int r = awk_eval(I, repl_node, &repl);
    if (r != C_OK)
        return r;
    if (target) {
        r = awk_resolve_place(I, target, &pl);
    } else {
        memset(&pl, 0, sizeof(pl));
        pl.kind = P_FIELD;
        pl.line = n->line;
    }
    if (r == C_OK)
        r = awk_place_get(I, &pl, &cur);
    const char *rs = r == C_OK ? awk_str_of(I, &repl) : NULL;
    const char *cs = rs ? awk_str_of(I, &cur) : NULL;
    are *re = cs ? awk_node_regex(I, re_node) : NULL;
    if (!re) {
        r = C_ERROR;
    } else {
        int count;
        char *res = substitute(I, re, rs, cs, n->op == B_GSUB ? 0 : 1, 0, &count);
        if (!res) {
            r = C_ERROR;
        } else if (count) {
            aval nv = { 0 };
            awk_val_str(&nv, res);
            r = awk_place_set(I, &pl, &nv);
        } else {
            free(res);
        }
        awk_val_num(out, count);
    }
    free(pl.key);
    awk_val_free(&repl);
    awk_val_free(&cur);
    return r;
}

typedef struct split_ctx {
    aarr *arr, *seps;
    long n;
} split_ctx;

static int add_split(aw *I, void *vctx, const char *s, size_t n, const char *sep,
                     size_t seplen)
{
    split_ctx *ctx = vctx;
    ctx->n++;
    if (ctx->seps && ctx->n > 1 && awk_arr_set_index(I, ctx->seps, ctx->n - 1, sep, seplen) < 0)
        return -1;
    return awk_arr_set_index(I, ctx->arr, ctx->n, s, n);
}

/* split(s, a [, sep [, seps]]): a gets the pieces 1..n, seps the separators;
 * the value is n. */
static int builtin_split(aw *I, anode *n, aval *out)
{
    aval s = { 0 }, sep = { 0 };
    int r = awk_eval(I, n->a, &s);
    anode *sepn = n->nargs >= 3 ? n->a->next->next : NULL;
    split_ctx ctx = { 0 };
    if (r == C_OK)
        ctx.arr = awk_node_array(I, n->a->next);
    if (ctx.arr && n->nargs == 4)
        ctx.seps = awk_node_array(I, sepn->next);
    if (!ctx.arr || (n->nargs == 4 && !ctx.seps)) {
        awk_val_free(&s);
        return C_ERROR;
    }
    const char *str = awk_str_of(I, &s);
    char *copy = str ? awk_xstrdup(I, str) : NULL;
    if (!copy) {
        awk_val_free(&s);
        return C_ERROR;
    }
    awk_arr_clear(ctx.arr);
    if (ctx.seps)
        awk_arr_clear(ctx.seps);
    if (sepn && sepn->type == N_REGEX) {
        /* A regex literal separator: split with it even if it is one character. */
        const char *sep_s = "";
        are *re = sepn->re;
        const char *p = copy;
        int notbol = 0;
        size_t seplen = 0;
        r = C_OK;
        while (*copy && r == C_OK) {
            regmatch_t m[1];
            if (!awk_regex_exec(re, p, notbol, m, 1) || m[0].rm_eo == m[0].rm_so) {
                r = add_split(I, &ctx, p, strlen(p), sep_s, seplen) < 0 ? C_ERROR : C_OK;
                break;
            }
            if (add_split(I, &ctx, p, (size_t)m[0].rm_so, sep_s, seplen) < 0)
                r = C_ERROR;
            sep_s = p + m[0].rm_so;
            seplen = (size_t)(m[0].rm_eo - m[0].rm_so);
            p += m[0].rm_eo;
            notbol = 1;
        }
    } else {
        const char *fs;
        if (sepn) {
            r = awk_eval(I, sepn, &sep);
            fs = r == C_OK ? awk_str_of(I, &sep) : NULL;
        } else {
            fs = awk_global_str(I, V_FS);
        }
        char *fs_copy = fs ? awk_xstrdup(I, fs) : NULL;
        r = fs_copy && awk_split_string(I, copy, fs_copy, 0, add_split, &ctx, n->line) == 0
                ? C_OK
                : C_ERROR;
        free(fs_copy);
    }
    free(copy);
    awk_val_free(&s);
    awk_val_free(&sep);
    if (r == C_OK)
        awk_val_num(out, (double)ctx.n);
    return r;
}

/* match(s, re [, groups]): sets RSTART and RLENGTH; the value is RSTART. */
static int builtin_match(aw *I, anode *n, aval *out)
{
    aval s = { 0 };
    int r = awk_eval(I, n->a, &s);
    if (r != C_OK)
        return r;
    aarr *arr = NULL;
    if (n->nargs == 3 && !(arr = awk_node_array(I, n->a->next->next))) {
        awk_val_free(&s);
        return C_ERROR;
    }
    const char *str = awk_str_of(I, &s);
    are *re = str ? awk_node_regex(I, n->a->next) : NULL;
    if (!re) {
        awk_val_free(&s);
        return C_ERROR;
    }
    regmatch_t m[10];
    double start = 0, len = -1;
    if (arr)
        awk_arr_clear(arr);
    if (awk_regex_exec(re, str, 0, m, 10)) {
        start = m[0].rm_so + 1;
        len = m[0].rm_eo - m[0].rm_so;
        for (int i = 0; arr && i < 10 && r == C_OK; i++)
            if (m[i].rm_so >= 0 && awk_arr_set_index(I, arr, i, str + m[i].rm_so,
                                                     (size_t)(m[i].rm_eo - m[i].rm_so)) < 0)
                r = C_ERROR;
    }
    awk_val_free(&s);
    awk_set_global_num(I, V_RSTART, start);
    awk_set_global_num(I, V_RLENGTH, len);
    awk_val_num(out, start);
    return r;
}

void awk_rand_seed(aw *I, uint32_t seed)
{
    int32_t x = (int32_t)(seed ? seed : 1);
    I->rstate[0] = (uint32_t)x;
    for (int i = 1; i < 63; i++) {
        int32_t hi = x / 127773, lo = x % 127773;
        x = 16807 * lo - 2836 * hi;
        if (x < 0)
            x += 2147483647;
        I->rstate[i] = (uint32_t)x;
    }
    I->rf = 1;
    I->rr = 0;
    for (int i = 0; i < 630; i++) {
        I->rstate[I->rf] += I->rstate[I->rr];
        I->rf = (I->rf + 1) % 63;
        I->rr = (I->rr + 1) % 63;
    }
}

static long rand_next(aw *I)
{
    I->rstate[I->rf] += I->rstate[I->rr];
    long v = (long)((I->rstate[I->rf] >> 1) & 0x7fffffff);
    I->rf = (I->rf + 1) % 63;
    I->rr = (I->rr + 1) % 63;
    return v;
}

static double rand_double(aw *I)
{
    double d;
    do {
        long a = rand_next(I);
        long b = rand_next(I);
        d = 0.5 + (((double)a / 2147483648.0 + (double)b) / 2147483648.0);
        d -= 0.5;
    } while (d == 1.0);
    return d;
}

/* The single-string and numeric builtins, after their arguments are evaluated. */
static int builtin_simple(aw *I, anode *n, aval *args, aval *out)
{
    double x = n->nargs ? awk_to_num(&args[0]) : 0;
    const char *s;
    switch (n->op) {
    case B_LENGTH:
    case B_TOLOWER:
    case B_TOUPPER:
    case B_INDEX:
    case B_SUBSTR: {
        s = awk_str_of(I, &args[0]);
        if (!s)
            return C_ERROR;
        size_t len = strlen(s);
        if (n->op == B_LENGTH) {
            awk_val_num(out, (double)len);
        } else if (n->op == B_INDEX) {
            const char *t = awk_str_of(I, &args[1]);
            if (!t)
                return C_ERROR;
            const char *hit = strstr(s, t);
            awk_val_num(out, hit ? (double)(hit - s + 1) : 0);
        } else if (n->op == B_SUBSTR) {
            /* As gawk: the start is truncated, and one before the string
             * counts as 1 without shortening the length. */
            double m = awk_to_num(&args[1]);
            double start = isnan(m) || m < 1 ? 1 : trunc(m);
            double end = (double)len + 1;
            if (n->nargs == 3) {
                double l = awk_to_num(&args[2]);
                end = isnan(l) ? start : start + trunc(l);
            }
            if (end > (double)len + 1)
                end = (double)len + 1;
            char *d = end > start ? awk_xstrndup(I, s + (size_t)start - 1, (size_t)(end - start))
                                  : awk_xstrdup(I, "");
            if (!d)
                return C_ERROR;
            awk_val_str(out, d);
        } else {
            char *d = awk_xstrdup(I, s);
            if (!d)
                return C_ERROR;
            for (char *c = d; *c; c++)
                *c = (char)(n->op == B_TOLOWER ? tolower((unsigned char)*c)
                                               : toupper((unsigned char)*c));
            awk_val_str(out, d);
        }
        return C_OK;
    }
    case B_INT: awk_val_num(out, trunc(x)); return C_OK;
    case B_SQRT: awk_val_num(out, sqrt(x)); return C_OK;
    case B_EXP: awk_val_num(out, exp(x)); return C_OK;
    case B_LOG: awk_val_num(out, log(x)); return C_OK;
    case B_SIN: awk_val_num(out, sin(x)); return C_OK;
    case B_COS: awk_val_num(out, cos(x)); return C_OK;
    case B_ATAN2: awk_val_num(out, atan2(x, awk_to_num(&args[1]))); return C_OK;
    case B_RAND: awk_val_num(out, rand_double(I)); return C_OK;
    case B_SRAND: {
        double prev = I->seed;
        I->seed = n->nargs ? trunc(x) : (double)time(NULL);
        awk_rand_seed(I, (uint32_t)awk_to_ll(I->seed));
        awk_val_num(out, prev);
        return C_OK;
    }
    case B_SYSTEM: {
        s = awk_str_of(I, &args[0]);
        if (!s || awk_flush_all(I) < 0)
            return C_ERROR;
        int st = awk_run_command(I, s, "", 0, NULL);
        if (st < 0)
            return C_ERROR;
        awk_val_num(out, st);
        return C_OK;
    }
    case B_CLOSE:
        s = awk_str_of(I, &args[0]);
        if (!s)
            return C_ERROR;
        awk_val_num(out, awk_close_stream(I, s));
        return I->status == SH_STATUS_PIPE ? C_ERROR : C_OK;
    case B_FFLUSH:
        if (awk_flush_all(I) < 0)
            return C_ERROR;
        awk_val_num(out, 0);
        return C_OK;
    case B_SYSTIME:
        awk_val_num(out, (double)time(NULL));
        return C_OK;
    case B_MKTIME:
        s = awk_str_of(I, &args[0]);
        if (!s)
            return C_ERROR;
        awk_val_num(out, awk_mktime(s));
        return C_OK;
    case B_STRFTIME:
        return awk_strftime(I, args, n->nargs, out);
    default:
        return awk_fatal(I, n->line, "unknown builtin");
    }
}

int awk_call_builtin(aw *I, anode *n, aval *out)
{
    switch (n->op) {
    case B_SUB:
    case B_GSUB:
        return builtin_sub(I, n, out);
    case B_SPLIT:
        return builtin_split(I, n, out);
    case B_MATCH:
        return builtin_match(I, n, out);
    case B_GENSUB:
        return builtin_gensub(I, n, out);
    case B_ASORT:
    case B_ASORTI:
        return builtin_asort(I, n, out);
    case B_SPRINTF: {
        sh_buf b = { 0 };
        int r = awk_do_sprintf(I, n->a, n->nargs, &b, n->line);
        char *s = r == C_OK ? sh_buf_take(&b, NULL) : NULL;
        sh_buf_free(&b);
        if (r == C_OK && !s) {
            awk_oom(I);
            r = C_ERROR;
        }
        if (s)
            awk_val_str(out, s);
        return r;
    }
    case B_LENGTH:
        if (n->nargs == 1 && (n->a->type == N_VAR || n->a->type == N_LOCAL)) {
            acell *c = awk_node_cell(I, n->a);
            while (c->kind == K_REF)
                c = c->ref;
            if (c->kind == K_ARRAY) {
                awk_val_num(out, (double)c->arr->n);
                return C_OK;
            }
        }
        if (n->nargs == 0) {
            aval rec = { 0 };
            int r = awk_get_field(I, 0, &rec);
            if (r == C_OK)
                r = builtin_simple(I, n, &rec, out);
            awk_val_free(&rec);
            return r;
        }
        break;
    default:
        break;
    }
    aval *args = NULL;
    int r = awk_eval_list(I, n->a, n->nargs, &args);
    if (r == C_OK)
        r = builtin_simple(I, n, args, out);
    awk_free_values(args, n->nargs);
    return r;
}

/* ---------------------------------------------------------------- getline */

/* The getline source for a file or command, opened (read whole, or run to
 * completion) if new. NULL for a file that cannot be read (*err stays 0) or
 * after an error (*err set). */
static ain *get_input(aw *I, const char *name, int is_cmd, int *err)
{
    *err = 0;
    for (ain *in = I->ins; in; in = in->next)
        if (in->is_cmd == is_cmd && strcmp(in->name, name) == 0)
            return in;
    ain *in = awk_xcalloc(I, 1, sizeof(*in));
    if (!in || !(in->name = awk_xstrdup(I, name))) {
        free(in);
        *err = 1;
        return NULL;
    }
    in->is_cmd = is_cmd;
    if (is_cmd) {
        if (awk_flush_all(I) < 0) {
            *err = 1;
        } else {
            sh_buf out = { 0 };
            in->status = awk_run_command(I, name, "", 0, &out);
            if (in->status < 0) {
                sh_buf_free(&out);
                *err = 1;
            } else {
                in->data = sh_buf_take(&out, &in->len);
                if (!in->data) {
                    in->data = awk_xstrdup(I, "");
                    in->len = 0;
                    *err = !in->data;
                }
            }
        }
    } else if (awk_load_quiet(I, name, &in->data, &in->len) < 0) {
        free(in->name);
        free(in);
        return NULL;
    }
    if (*err) {
        free(in->data);
        free(in->name);
        free(in);
        return NULL;
    }
    in->next = I->ins;
    I->ins = in;
    return in;
}

int awk_eval_getline(aw *I, anode *n, aval *out)
{
    char *rec = NULL;
    int err = 0;
    if (n->op == G_PLAIN) {
        rec = awk_next_main_record(I, &err);
    } else {
        aval name = { 0 };
        int r = awk_eval(I, n->b, &name);
        if (r != C_OK)
            return r;
        const char *s = awk_str_of(I, &name);
        if (s && !*s) {
            awk_val_free(&name);
            return awk_fatal(I, n->line, "expression for `%s' redirection has null string value",
                             n->op == G_CMD ? "|" : "<");
        }
        ain *in = s ? get_input(I, s, n->op == G_CMD, &err) : NULL;
        awk_val_free(&name);
        if (!s || err)
            return C_ERROR;
        if (!in) {
            awk_val_num(out, -1);
            return C_OK;
        }
        rec = awk_read_record(I, in->data, in->len, &in->pos, &err);
        if (rec && n->op == G_CMD) {
            awk_set_global_num(I, V_NR, awk_to_num(&I->globals[V_NR].v) + 1);
            if (!n->a)
                awk_set_global_num(I, V_FNR, awk_to_num(&I->globals[V_FNR].v) + 1);
        }
    }
    if (err)
        return C_ERROR;
    if (!rec) {
        awk_val_num(out, 0);
        return C_OK;
    }
    int r;
    if (n->a) {
        r = awk_assign_input(I, n->a, rec);
        free(rec);
    } else {
        r = awk_set_record(I, rec);
    }
    awk_val_num(out, 1);
    return r;
}
