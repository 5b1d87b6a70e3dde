/* awk's data: errors and memory, numbers and strings as awk converts between
 * them, associative arrays, variables (globals, locals, the special ones), and
 * regular expressions (awk's EREs translated to POSIX, compiled and cached). */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "awk.h"

const char *const awk_special_names[] = {
    "NR", "NF", "FNR", "FS", "OFS", "ORS", "RS", "SUBSEP", "FILENAME", "CONVFMT", "OFMT",
    "RSTART", "RLENGTH", "ENVIRON", "ARGC", "ARGV",
};

/* ---------------------------------------------------------------- errors, memory */

void awk_oom(aw *I)
{
    if (!I->oom)
        sh_err(I->p, "fatal: out of memory");
    I->oom = 1;
    I->status = 2;
}

int awk_fatal(aw *I, int line, const char *fmt, ...)
{
    sh_buf b = { 0 };
    va_list ap;
    va_start(ap, fmt);
    int r = sh_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    if (r == 0 && sh_buf_cstr(&b)) {
        if (line > 0)
            sh_err(I->p, "cmd. line:%d: fatal: %s", line, b.data);
        else
            sh_err(I->p, "fatal: %s", b.data);
    }
    sh_buf_free(&b);
    I->status = 2;
    return C_ERROR;
}

void *awk_xcalloc(aw *I, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        awk_oom(I);
    return p;
}

char *awk_xstrndup(aw *I, const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d) {
        awk_oom(I);
        return NULL;
    }
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *awk_xstrdup(aw *I, const char *s)
{
    return awk_xstrndup(I, s, strlen(s));
}

int awk_grow(aw *I, void **arr, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return 0;
    int ncap = *cap ? *cap * 2 : 8;
    while (ncap < need)
        ncap *= 2;
    void *g = realloc(*arr, (size_t)ncap * size);
    if (!g) {
        awk_oom(I);
        return -1;
    }
    memset((char *)g + (size_t)*cap * size, 0, (size_t)(ncap - *cap) * size);
    *arr = g;
    *cap = ncap;
    return 0;
}

/* ---------------------------------------------------------------- numbers, strings */

/* The length of the longest prefix of s (after blanks) that is a decimal number
 * as awk reads one; 0 when there is none. */
static size_t number_prefix(const char *s)
{
    size_t i = 0, digits = 0;
    if (s[i] == '+' || s[i] == '-')
        i++;
    while (isdigit((unsigned char)s[i])) {
        i++;
        digits++;
    }
    if (s[i] == '.') {
        i++;
        while (isdigit((unsigned char)s[i])) {
            i++;
            digits++;
        }
    }
    if (!digits)
        return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1;
        if (s[j] == '+' || s[j] == '-')
            j++;
        if (isdigit((unsigned char)s[j])) {
            while (isdigit((unsigned char)s[j]))
                j++;
            i = j;
        }
    }
    return i;
}

static int is_blank_char(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

double awk_str_to_num(const char *s)
{
    while (is_blank_char((unsigned char)*s))
        s++;
    size_t n = number_prefix(s);
    if (!n)
        return 0;
    char small[128];
    if (n < sizeof(small)) {
        memcpy(small, s, n);
        small[n] = '\0';
        return strtod(small, NULL);
    }
    char *big = strndup(s, n);
    double d = big ? strtod(big, NULL) : 0;
    free(big);
    return d;
}

/* Whether the whole string (blanks around allowed) is a number: input that
 * looks numeric compares as a number. */
static int looks_numeric(const char *s)
{
    while (is_blank_char((unsigned char)*s))
        s++;
    size_t n = number_prefix(s);
    if (!n)
        return 0;
    s += n;
    while (is_blank_char((unsigned char)*s))
        s++;
    return *s == '\0';
}

void awk_val_set_input(aval *v, char *s)
{
    v->str = s;
    if (looks_numeric(s)) {
        v->type = T_STRNUM;
        v->num = awk_str_to_num(s);
    } else {
        v->type = T_STR;
        v->num = 0;
    }
}

int awk_num_append(sh_buf *b, double d, const char *fmt)
{
    if (d == floor(d) && fabs(d) < 9.2e18)
        return sh_buf_addf(b, "%lld", (long long)d);
    if (isnan(d))
        return sh_buf_adds(b, signbit(d) ? "-nan" : "+nan");
    if (isinf(d))
        return sh_buf_adds(b, d < 0 ? "-inf" : "+inf");
    if (d == floor(d))
        return sh_buf_addf(b, "%.0f", d);
    if (!sh_one_float_format(fmt, "-+ #0"))
        fmt = "%.6g";
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    return sh_buf_addf(b, fmt, d);
#pragma GCC diagnostic pop
}

const char *awk_str_of(aw *I, aval *v)
{
    if (v->str)
        return v->str;
    if (v->type == T_UNINIT)
        return "";
    sh_buf b = { 0 };
    if (awk_num_append(&b, v->num, awk_global_str(I, V_CONVFMT)) < 0 || !sh_buf_cstr(&b)) {
        sh_buf_free(&b);
        awk_oom(I);
        return NULL;
    }
    v->str = b.data;
    return v->str;
}

int awk_val_output(aw *I, sh_buf *b, aval *v)
{
    if (v->type == T_NUM)
        return awk_num_append(b, v->num, awk_global_str(I, V_OFMT));
    if (v->type == T_UNINIT)
        return 0;
    return sh_buf_adds(b, v->str);
}

int awk_val_copy(aw *I, aval *dst, const aval *src)
{
    *dst = *src;
    dst->str = NULL;
    if (src->type == T_STR || src->type == T_STRNUM) {
        dst->str = awk_xstrdup(I, src->str);
        if (!dst->str) {
            dst->type = T_UNINIT;
            return -1;
        }
    }
    return 0;
}

static int is_numeric(const aval *v)
{
    return v->type != T_STR;
}

int awk_compare(aw *I, aval *a, aval *b, int *err)
{
    if (is_numeric(a) && is_numeric(b)) {
        double x = awk_to_num(a), y = awk_to_num(b);
        if (isnan(x) || isnan(y))
            return 2;
        return x < y ? -1 : x > y;
    }
    const char *s = awk_str_of(I, a), *t = awk_str_of(I, b);
    if (!s || !t) {
        *err = 1;
        return 0;
    }
    int c = strcmp(s, t);
    return c < 0 ? -1 : c > 0;
}

/* ---------------------------------------------------------------- arrays */

static size_t hash_str(const char *s)
{
    size_t h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

static aarr *arr_new(aw *I)
{
    return awk_xcalloc(I, 1, sizeof(aarr));
}

aelem *awk_arr_find(aarr *a, const char *key)
{
    if (!a->nb)
        return NULL;
    for (aelem *e = a->b[hash_str(key) % a->nb]; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

aelem *awk_arr_get(aw *I, aarr *a, const char *key)
{
    aelem *e = awk_arr_find(a, key);
    if (e)
        return e;
    if (a->n >= a->nb) {
        size_t nb = a->nb ? a->nb * 2 : 16;
        aelem **nbk = calloc(nb, sizeof(*nbk));
        if (!nbk) {
            awk_oom(I);
            return NULL;
        }
        for (size_t i = 0; i < a->nb; i++)
            for (aelem *x = a->b[i], *nx; x; x = nx) {
                nx = x->next;
                size_t h = hash_str(x->key) % nb;
                x->next = nbk[h];
                nbk[h] = x;
            }
        free(a->b);
        a->b = nbk;
        a->nb = nb;
    }
    e = awk_xcalloc(I, 1, sizeof(*e));
    if (!e)
        return NULL;
    e->key = awk_xstrdup(I, key);
    if (!e->key) {
        free(e);
        return NULL;
    }
    size_t h = hash_str(key) % a->nb;
    e->next = a->b[h];
    a->b[h] = e;
    a->n++;
    return e;
}

void awk_arr_delete(aarr *a, const char *key)
{
    if (!a->nb)
        return;
    for (aelem **pp = &a->b[hash_str(key) % a->nb]; *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->key, key) == 0) {
            aelem *e = *pp;
            *pp = e->next;
            free(e->key);
            awk_val_free(&e->v);
            free(e);
            a->n--;
            return;
        }
    }
}

void awk_arr_clear(aarr *a)
{
    for (size_t i = 0; i < a->nb; i++)
        for (aelem *e = a->b[i], *nx; e; e = nx) {
            nx = e->next;
            free(e->key);
            awk_val_free(&e->v);
            free(e);
        }
    free(a->b);
    a->b = NULL;
    a->nb = a->n = 0;
}

static void arr_free(aarr *a)
{
    if (a) {
        awk_arr_clear(a);
        free(a);
    }
}

int awk_arr_set_input(aw *I, aarr *a, const char *key, const char *s, size_t n)
{
    aelem *e = awk_arr_get(I, a, key);
    char *d = e ? awk_xstrndup(I, s, n) : NULL;
    if (!d)
        return -1;
    awk_val_free(&e->v);
    awk_val_set_input(&e->v, d);
    return 0;
}

int awk_arr_set_index(aw *I, aarr *a, long i, const char *s, size_t n)
{
    char key[32];
    snprintf(key, sizeof(key), "%ld", i);
    return awk_arr_set_input(I, a, key, s, n);
}

/* ---------------------------------------------------------------- variables */

void awk_cell_free(acell *c)
{
    awk_val_free(&c->v);
    if (c->kind == K_ARRAY && !c->borrowed)
        arr_free(c->arr);
    c->arr = NULL;
    c->kind = K_NONE;
}

const char *awk_cell_name(aw *I, acell *c)
{
    if (c >= I->globals && c < I->globals + I->nglobals)
        return I->gnames[c - I->globals];
    return "parameter";
}

aarr *awk_cell_array(aw *I, acell *c, int line)
{
    if (c->kind == K_ARRAY)
        return c->arr;
    if (c->kind == K_REF) {
        aarr *a = awk_cell_array(I, c->ref, line);
        if (a) {
            c->kind = K_ARRAY;
            c->borrowed = 1;
            c->arr = a;
            c->ref = NULL;
        }
        return a;
    }
    if (c->kind == K_SCALAR || (c >= I->globals && c < I->globals + V_NSPECIAL &&
                                c != &I->globals[V_ENVIRON] && c != &I->globals[V_ARGV])) {
        awk_fatal(I, line, "attempt to use scalar `%s' as an array", awk_cell_name(I, c));
        return NULL;
    }
    c->arr = arr_new(I);
    if (!c->arr)
        return NULL;
    c->kind = K_ARRAY;
    c->borrowed = 0;
    return c->arr;
}

acell *awk_node_cell(aw *I, anode *n)
{
    acell *c = n->type == N_LOCAL ? &I->frame[n->idx] : &I->globals[n->idx];
    return c;
}

aarr *awk_node_array(aw *I, anode *n)
{
    return awk_cell_array(I, awk_node_cell(I, n), n->line);
}

const char *awk_global_str(aw *I, int idx)
{
    const char *s = awk_str_of(I, &I->globals[idx].v);
    return s ? s : "";
}

int awk_set_global_str(aw *I, int idx, const char *s)
{
    char *d = awk_xstrdup(I, s);
    if (!d)
        return -1;
    awk_val_str(&I->globals[idx].v, d);
    I->globals[idx].kind = K_SCALAR;
    return 0;
}

void awk_set_global_num(aw *I, int idx, double d)
{
    awk_val_num(&I->globals[idx].v, d);
    I->globals[idx].kind = K_SCALAR;
}

/* ---------------------------------------------------------------- regular expressions */

/* Rewrites an awk regular expression as a POSIX ERE: escape sequences become
 * their characters, \/ a slash, and gawk's \s \S \w \W bracket expressions. */
static char *regex_translate(aw *I, const char *s)
{
    sh_buf b = { 0 };
    int in_br = 0, r = 0;
    for (size_t i = 0; s[i] && r == 0; i++) {
        char c = s[i];
        if (in_br) {
            if (c == ']' && in_br > 1) {
                in_br = 0;
                r = sh_buf_addc(&b, c);
            } else if (c == '[' && (s[i + 1] == ':' || s[i + 1] == '.' || s[i + 1] == '=')) {
                char close = s[i + 1];
                size_t j = i + 2;
                while (s[j] && !(s[j] == close && s[j + 1] == ']'))
                    j++;
                if (!s[j])
                    j = strlen(s) - 2;
                r = sh_buf_add(&b, s + i, j + 2 - i);
                i = j + 1;
                in_br = 2;
            } else if (c == '\\' && s[i + 1]) {
                char d = s[++i];
                const char *map = strchr("n\nt\tr\rf\fv\va\a", d);
                r = sh_buf_addc(&b, map && (map - "n\nt\tr\rf\fv\va\a") % 2 == 0 ? map[1] : d);
                in_br = 2;
            } else {
                r = sh_buf_addc(&b, c);
                in_br = 2;
            }
            continue;
        }
        if (c == '[') {
            r = sh_buf_addc(&b, c);
            in_br = 1;
            if (s[i + 1] == '^')
                r |= sh_buf_addc(&b, s[++i]);
            if (s[i + 1] == ']') {
                r |= sh_buf_addc(&b, s[++i]);
                in_br = 2;
            }
            continue;
        }
        if (c != '\\') {
            r = sh_buf_addc(&b, c);
            continue;
        }
        char d = s[i + 1];
        if (!d) {
            r = sh_buf_adds(&b, "\\\\");
            continue;
        }
        i++;
        switch (d) {
        case 'n': r = sh_buf_addc(&b, '\n'); break;
        case 't': r = sh_buf_addc(&b, '\t'); break;
        case 'r': r = sh_buf_addc(&b, '\r'); break;
        case 'f': r = sh_buf_addc(&b, '\f'); break;
        case 'v': r = sh_buf_addc(&b, '\v'); break;
        case 'a': r = sh_buf_addc(&b, '\a'); break;
        case '/': r = sh_buf_addc(&b, '/'); break;
        case '"': r = sh_buf_addc(&b, '"'); break;
        case 's':
        case 'S':
        case 'w':
        case 'W': r = sh_rx_class(&b, d, 0) < 0; break;
        default:
            r = sh_buf_addc(&b, '\\');
            r |= sh_buf_addc(&b, d);
        }
    }
    if (r || !sh_buf_cstr(&b)) {
        sh_buf_free(&b);
        awk_oom(I);
        return NULL;
    }
    return b.data;
}

are *awk_regex_compile(aw *I, const char *src, int line)
{
    are *r = awk_xcalloc(I, 1, sizeof(*r));
    if (!r)
        return NULL;
    if (!*src) {
        r->empty = 1;
        return r;
    }
    char *ere = regex_translate(I, src);
    if (!ere) {
        free(r);
        return NULL;
    }
    int e = regcomp(&r->re, ere, REG_EXTENDED);
    free(ere);
    if (e) {
        char msg[128];
        regerror(e, &r->re, msg, sizeof(msg));
        awk_fatal(I, line, "invalid regexp: %s: /%s/", msg, src);
        free(r);
        return NULL;
    }
    return r;
}

void awk_regex_free(are *r)
{
    if (r) {
        if (!r->empty)
            regfree(&r->re);
        free(r);
    }
}

int awk_regex_exec(const are *r, const char *s, int notbol, regmatch_t *m, size_t nm)
{
    if (r->empty) {
        for (size_t i = 0; i < nm; i++)
            m[i].rm_so = m[i].rm_eo = i ? -1 : 0;
        return 1;
    }
    return regexec(&r->re, s, nm, m, notbol ? REG_NOTBOL : 0) == 0;
}

are *awk_regex_dynamic(aw *I, const char *src, int line)
{
    for (int i = 0; i < RE_CACHE; i++)
        if (I->recache[i].src && strcmp(I->recache[i].src, src) == 0)
            return I->recache[i].re;
    are *r = awk_regex_compile(I, src, line);
    if (!r)
        return NULL;
    char *copy = awk_xstrdup(I, src);
    if (!copy) {
        awk_regex_free(r);
        return NULL;
    }
    int k = I->recache_next;
    I->recache_next = (k + 1) % RE_CACHE;
    free(I->recache[k].src);
    awk_regex_free(I->recache[k].re);
    I->recache[k].src = copy;
    I->recache[k].re = r;
    return r;
}

are *awk_node_regex(aw *I, anode *n)
{
    if (n->type == N_REGEX)
        return n->re;
    aval v = { 0 };
    if (awk_eval(I, n, &v) != C_OK)
        return NULL;
    const char *s = awk_str_of(I, &v);
    are *r = s ? awk_regex_dynamic(I, s, n->line) : NULL;
    awk_val_free(&v);
    return r;
}
