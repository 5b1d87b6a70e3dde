/* awk's records and I/O: splitting records into fields and rebuilding $0, the
 * main input (files and assignments among the operands), output redirections
 * and commands (run through sh_run), and printf. */
#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "awk.h"

int awk_split_string(aw *I, const char *s, const char *fs, int paragraph, split_fn add,
                     void *ctx, int line)
{
    if (!*s)
        return 0;
    if (strcmp(fs, " ") == 0) {
        const char *sep = s;
        for (;;) {
            while (*s == ' ' || *s == '\t' || *s == '\n')
                s++;
            if (!*s)
                return 0;
            const char *f = s;
            while (*s && *s != ' ' && *s != '\t' && *s != '\n')
                s++;
            if (add(I, ctx, f, (size_t)(s - f), sep, (size_t)(f - sep)) < 0)
                return -1;
            sep = s;
        }
    }
    if (!*fs) {
        for (; *s; s++)
            if (add(I, ctx, s, 1, "", 0) < 0)
                return -1;
        return 0;
    }
    if (strlen(fs) == 1 && *fs != '\\') {
        const char *sep = "";
        size_t seplen = 0;
        for (;;) {
            const char *f = s;
            while (*s && *s != *fs && !(paragraph && *s == '\n'))
                s++;
            if (add(I, ctx, f, (size_t)(s - f), sep, seplen) < 0)
                return -1;
            if (!*s)
                return 0;
            sep = s;
            seplen = 1;
            s++;
        }
    }
    sh_buf pat = { 0 };
    if (paragraph ? sh_buf_addf(&pat, "(%s)|\n", fs) < 0 : sh_buf_adds(&pat, fs) < 0) {
        awk_oom(I);
        return -1;
    }
    are *re = sh_buf_cstr(&pat) ? awk_regex_dynamic(I, pat.data, line) : NULL;
    sh_buf_free(&pat);
    if (!re)
        return -1;
    const char *sep = "";
    size_t seplen = 0;
    int notbol = 0;
    for (;;) {
        regmatch_t m[1];
        if (!awk_regex_exec(re, s, notbol, m, 1) || m[0].rm_eo == m[0].rm_so) {
            return add(I, ctx, s, strlen(s), sep, seplen);
        }
        if (add(I, ctx, s, (size_t)m[0].rm_so, sep, seplen) < 0)
            return -1;
        sep = s + m[0].rm_so;
        seplen = (size_t)(m[0].rm_eo - m[0].rm_so);
        s += m[0].rm_eo;
        notbol = 1;
    }
}

/* split_string callback for $1..$NF (input-typed). */
static int add_field(aw *I, void *ctx, const char *s, size_t n, const char *sep, size_t seplen)
{
    if (I->nf >= MAX_FIELD) {
        awk_fatal(I, 0, "too many fields");
        return -1;
    }
    if (awk_grow(I, (void **)&I->fields, &I->fcap, I->nf + 2, sizeof(aval)) < 0)
        return -1;
    char *d = awk_xstrndup(I, s, n);
    if (!d)
        return -1;
    awk_val_set_input(&I->fields[++I->nf], d);
    return 0;
}

void awk_clear_fields(aw *I)
{
    for (int i = 1; i <= I->nf; i++)
        awk_val_free(&I->fields[i]);
    I->nf = 0;
}

int awk_set_record(aw *I, char *s)
{
    awk_val_free(&I->rec);
    awk_val_set_input(&I->rec, s);
    I->rec_stale = 0;
    awk_clear_fields(I);
    int r = awk_split_string(I, s, awk_global_str(I, V_FS), awk_global_str(I, V_RS)[0] == '\0',
                             add_field, NULL, 0);
    awk_set_global_num(I, V_NF, I->nf);
    return r < 0 ? C_ERROR : C_OK;
}

/* Rebuilds $0 from the fields with OFS after a field or NF changed (numbers
 * through CONVFMT). */
static int rebuild_record(aw *I)
{
    sh_buf b = { 0 };
    const char *ofs = awk_global_str(I, V_OFS);
    int r = 0;
    for (int i = 1; i <= I->nf && r == 0; i++) {
        if (i > 1)
            r = sh_buf_adds(&b, ofs);
        if (r == 0) {
            aval *f = &I->fields[i];
            r = f->type == T_NUM ? awk_num_append(&b, f->num, awk_global_str(I, V_CONVFMT))
                                 : awk_val_output(I, &b, f);
        }
    }
    char *s = r == 0 ? sh_buf_take(&b, NULL) : NULL;
    if (!s) {
        sh_buf_free(&b);
        awk_oom(I);
        return C_ERROR;
    }
    awk_val_free(&I->rec);
    awk_val_set_input(&I->rec, s);
    I->rec_stale = 0;
    return C_OK;
}

int awk_field_index(aw *I, double d, int line, long *out)
{
    if (d < 0 || isnan(d))
        return awk_fatal(I, line, "attempt to access field %lld", awk_to_ll(d));
    if (d > MAX_FIELD)
        return awk_fatal(I, line, "field index %.0f is too large", d);
    *out = (long)d;
    return C_OK;
}

int awk_get_field(aw *I, long i, aval *out)
{
    if (i == 0) {
        if (I->rec_stale && rebuild_record(I) != C_OK)
            return C_ERROR;
        return awk_val_copy(I, out, &I->rec) < 0 ? C_ERROR : C_OK;
    }
    if (i > I->nf) {
        awk_val_free(out);
        return C_OK;
    }
    return awk_val_copy(I, out, &I->fields[i]) < 0 ? C_ERROR : C_OK;
}

int awk_set_nf(aw *I, double d, int line)
{
    long n;
    if (awk_field_index(I, d, line, &n) != C_OK)
        return C_ERROR;
    if (awk_grow(I, (void **)&I->fields, &I->fcap, (int)n + 2, sizeof(aval)) < 0)
        return C_ERROR;
    while (I->nf > n)
        awk_val_free(&I->fields[I->nf--]);
    while (I->nf < n) {
        aval *f = &I->fields[++I->nf];
        f->type = T_UNINIT;
        f->str = NULL;
    }
    awk_set_global_num(I, V_NF, (double)n);
    I->rec_stale = 1;
    return C_OK;
}

int awk_set_field(aw *I, long i, aval *v, int line)
{
    if (i == 0) {
        const char *s = awk_str_of(I, v);
        char *d = s ? awk_xstrdup(I, s) : NULL;
        awk_val_free(v);
        return d ? awk_set_record(I, d) : C_ERROR;
    }
    if (i > I->nf && awk_set_nf(I, (double)i, line) != C_OK) {
        awk_val_free(v);
        return C_ERROR;
    }
    if (v->type == T_NUM) {
        free(v->str);
        v->str = NULL;
    }
    awk_val_free(&I->fields[i]);
    I->fields[i] = *v;
    memset(v, 0, sizeof(*v));
    I->rec_stale = 1;
    return C_OK;
}

/* ---------------------------------------------------------------- input */

int awk_load_quiet(aw *I, const char *name, char **data, size_t *len)
{
    return sh_read_file(I->p, strcmp(name, "/dev/stdin") == 0 ? "-" : name, data, len);
}

char *awk_read_record(aw *I, const char *data, size_t len, size_t *pos, int *err)
{
    const char *rs = awk_global_str(I, V_RS);
    size_t p = *pos, start, end, next;
    *err = 0;
    if (!*rs) {
        while (p < len && data[p] == '\n')
            p++;
        if (p >= len) {
            *pos = len;
            return NULL;
        }
        start = p;
        const char *hit = NULL;
        for (size_t i = p; i + 1 < len; i++)
            if (data[i] == '\n' && data[i + 1] == '\n') {
                hit = data + i;
                break;
            }
        if (hit) {
            end = (size_t)(hit - data);
            next = end;
            while (next < len && data[next] == '\n')
                next++;
        } else {
            end = len;
            while (end > start && data[end - 1] == '\n')
                end--;
            next = len;
        }
    } else if (p >= len) {
        return NULL;
    } else if (strlen(rs) == 1) {
        start = p;
        const char *hit = memchr(data + p, rs[0], len - p);
        end = hit ? (size_t)(hit - data) : len;
        next = hit ? end + 1 : len;
    } else {
        are *re = awk_regex_dynamic(I, rs, 0);
        if (!re) {
            *err = 1;
            return NULL;
        }
        start = p;
        regmatch_t m[1];
        if (awk_regex_exec(re, data + p, p > 0 && data[p - 1] != '\n', m, 1) &&
            m[0].rm_eo > m[0].rm_so) {
            end = p + (size_t)m[0].rm_so;
            next = p + (size_t)m[0].rm_eo;
        } else {
            end = next = len;
        }
    }
    *pos = next;
    char *rec = awk_xstrndup(I, data + start, end - start);
    if (!rec)
        *err = 1;
    return rec;
}

int awk_is_assignment_arg(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return 0;
    while (isalnum((unsigned char)*s) || *s == '_')
        s++;
    return *s == '=';
}

int awk_apply_assignment(aw *I, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char *name = awk_xstrndup(I, arg, (size_t)(eq - arg));
    if (!name)
        return C_ERROR;
    for (int i = 0; i < I->nfuncs; i++)
        if (strcmp(I->funcs[i].name, name) == 0) {
            awk_fatal(I, 0, "cannot use function `%s' as variable name", name);
            free(name);
            return C_ERROR;
        }
    int g = -1;
    for (int i = 0; i < I->nglobals; i++)
        if (strcmp(I->gnames[i], name) == 0)
            g = i;
    free(name);
    if (g < 0)
        return C_OK;
    char *v = awk_unescape(I, eq + 1);
    if (!v)
        return C_ERROR;
    acell *c = &I->globals[g];
    if (c->kind == K_ARRAY) {
        free(v);
        return awk_fatal(I, 0, "attempt to use array `%s' in a scalar context", I->gnames[g]);
    }
    aval nv = { 0 };
    awk_val_set_input(&nv, v);
    place pl = { .kind = P_CELL, .cell = c };
    return awk_place_set(I, &pl, &nv);
}

/* Opens the next main input file from ARGV (running assignments on the way);
 * 1 opened, 0 none left, C_ERROR. */
static int open_next_input(aw *I)
{
    acell *argv_cell = &I->globals[V_ARGV];
    for (;;) {
        int argc = (int)awk_to_num(&I->globals[V_ARGC].v);
        if (I->argi >= argc)
            break;
        char key[32];
        snprintf(key, sizeof(key), "%d", I->argi++);
        aelem *e = argv_cell->kind == K_ARRAY ? awk_arr_find(argv_cell->arr, key) : NULL;
        if (!e)
            continue;
        const char *arg = awk_str_of(I, &e->v);
        if (!arg)
            return C_ERROR;
        if (!*arg)
            continue;
        if (awk_is_assignment_arg(arg)) {
            char *copy = awk_xstrdup(I, arg);
            if (!copy)
                return C_ERROR;
            int r = awk_apply_assignment(I, copy);
            free(copy);
            if (r != C_OK)
                return r;
            continue;
        }
        char *name = awk_xstrdup(I, arg);
        if (!name)
            return C_ERROR;
        I->in_used = 1;
        errno = 0;
        if (awk_load_quiet(I, name, &I->in_data, &I->in_len) < 0) {
            if (errno == EISDIR) {
                sh_err(I->p, "warning: command line argument `%s' is a directory: skipped",
                       name);
                free(name);
                continue;
            }
            sh_err(I->p, "fatal: cannot open file `%s' for reading: %s", name,
                   strerror(errno ? errno : ENOMEM));
            free(name);
            I->status = 2;
            return C_ERROR;
        }
        int r = awk_set_global_str(I, V_FILENAME, name);
        free(name);
        if (r < 0)
            return C_ERROR;
        I->in_pos = 0;
        I->in_open = 1;
        awk_set_global_num(I, V_FNR, 0);
        return 1;
    }
    if (I->in_used)
        return 0;
    I->in_used = 1;
    if (awk_load_quiet(I, "-", &I->in_data, &I->in_len) < 0 ||
        awk_set_global_str(I, V_FILENAME, "-") < 0)
        return C_ERROR;
    I->in_pos = 0;
    I->in_open = 1;
    awk_set_global_num(I, V_FNR, 0);
    return 1;
}

void awk_close_main_input(aw *I)
{
    free(I->in_data);
    I->in_data = NULL;
    I->in_open = 0;
}

char *awk_next_main_record(aw *I, int *err)
{
    *err = 0;
    for (;;) {
        if (!I->in_open) {
            int r = open_next_input(I);
            if (r != 1) {
                *err = r == C_ERROR;
                return NULL;
            }
        }
        char *rec = awk_read_record(I, I->in_data, I->in_len, &I->in_pos, err);
        if (rec) {
            awk_set_global_num(I, V_NR, awk_to_num(&I->globals[V_NR].v) + 1);
            awk_set_global_num(I, V_FNR, awk_to_num(&I->globals[V_FNR].v) + 1);
            return rec;
        }
        if (*err)
            return NULL;
        awk_close_main_input(I);
    }
}

/* ---------------------------------------------------------------- commands, output */

/* Writes data to a file (created, truncated unless append); 0 or an errno,
 * for the caller to report as gawk does. */
static int write_quiet(aw *I, const char *name, const char *data, size_t len, int append)
{
    char *full = sh_path(I->p, name);
    if (!full)
        return ENOMEM;
    int fd = open(full, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0666);
    free(full);
    if (fd < 0)
        return errno;
    sh_stream st = { .fd = fd };
    int e = sh_write(&st, data, len) < 0 ? (errno ? errno : EIO) : 0;
    if (close(fd) < 0 && !e)
        e = errno;
    return e;
}

int awk_flush_stdout(aw *I)
{
    if (I->obuf.len == 0)
        return 0;
    int r = sh_out(I->p, I->obuf.data, I->obuf.len);
    I->obuf.len = 0;
    if (r < 0) {
        I->status = SH_STATUS_PIPE;
        return -1;
    }
    return 0;
}

int awk_run_command(aw *I, const char *cmd, const char *in, size_t in_len, sh_buf *out)
{
    char *argv[] = { "eval", (char *)cmd, NULL };
    sh_stream capture = { .fd = -1, .limit = SH_PIPE_LIMIT };
    sh_proc q = *I->p;
    if (out)
        q.out = &capture;
    int status = sh_run(&q, argv, NULL, in, in_len);
    if (out) {
        *out = capture.buf;
    } else if (I->p->out->broken) {
        I->status = SH_STATUS_PIPE;
        return -1;
    }
    return status;
}

int awk_flush_redirect(aw *I, aout *o, int closing)
{
    int status = 0;
    if (o->kind == TK_PIPE) {
        if (closing)
            status = awk_run_command(I, o->name, o->buf.data ? o->buf.data : "", o->buf.len, NULL);
        else
            return 0;
    } else if (o->buf.len) {
        int e = write_quiet(I, o->name, o->buf.data, o->buf.len, 1);
        if (e) {
            sh_err(I->p, "fatal: write to `%s' failed: %s", o->name, strerror(e));
            I->status = 2;
            status = -1;
        }
    }
    o->buf.len = 0;
    return status;
}

/* The output redirection for name, opened (a file truncated for '>') if new;
 * NULL after an error. */
static aout *get_output(aw *I, int kind, const char *name, int line)
{
    for (aout *o = I->outs; o; o = o->next)
        if (strcmp(o->name, name) == 0)
            return o;
    if (kind == TK_PIPE) {
        if (awk_flush_stdout(I) < 0)
            return NULL;
    } else {
        int e = write_quiet(I, name, "", 0, kind == TK_APPEND);
        if (e) {
            awk_fatal(I, line, "cannot redirect to `%s': %s", name, strerror(e));
            return NULL;
        }
    }
    aout *o = awk_xcalloc(I, 1, sizeof(*o));
    if (!o)
        return NULL;
    o->name = awk_xstrdup(I, name);
    if (!o->name) {
        free(o);
        return NULL;
    }
    o->kind = kind;
    aout **tail = &I->outs;
    while (*tail)
        tail = &(*tail)->next;
    *tail = o;
    return o;
}

int awk_emit(aw *I, int kind, anode *dest, const char *text, size_t len, int line)
{
    if (!dest) {
        if (sh_buf_add(&I->obuf, text, len) < 0) {
            awk_oom(I);
            return C_ERROR;
        }
        if (I->obuf.len >= OBUF_FLUSH && awk_flush_stdout(I) < 0)
            return C_ERROR;
        return C_OK;
    }
    aval d = { 0 };
    int r = awk_eval(I, dest, &d);
    if (r != C_OK)
        return r;
    const char *name = awk_str_of(I, &d);
    if (!name || !*name) {
        awk_val_free(&d);
        return name ? awk_fatal(I, line, "expression for `%s' redirection has null string value",
                                kind == TK_PIPE ? "|" : kind == TK_APPEND ? ">>" : ">")
                    : C_ERROR;
    }
    if (strcmp(name, "/dev/stdout") == 0 || strcmp(name, "/dev/fd/1") == 0 ||
        (strcmp(name, "-") == 0 && kind != TK_PIPE)) {
        awk_val_free(&d);
        return awk_emit(I, kind, NULL, text, len, line);
    }
    if (strcmp(name, "/dev/stderr") == 0 || strcmp(name, "/dev/fd/2") == 0) {
        awk_val_free(&d);
        if (awk_flush_stdout(I) < 0)
            return C_ERROR;
        sh_write(I->p->err, text, len);
        return C_OK;
    }
    aout *o = get_output(I, kind, name, line);
    awk_val_free(&d);
    if (!o)
        return C_ERROR;
    if (sh_buf_add(&o->buf, text, len) < 0) {
        awk_oom(I);
        return C_ERROR;
    }
    if (o->kind != TK_PIPE && o->buf.len >= OBUF_FLUSH && awk_flush_redirect(I, o, 0) < 0)
        return awk_fatal(I, line, "write to `%s' failed", o->name);
    return C_OK;
}

int awk_close_stream(aw *I, const char *name)
{
    for (aout **pp = &I->outs; *pp; pp = &(*pp)->next) {
        aout *o = *pp;
        if (strcmp(o->name, name) == 0) {
            *pp = o->next;
            if (o->kind == TK_PIPE && awk_flush_stdout(I) < 0) {
                sh_buf_free(&o->buf);
                free(o->name);
                free(o);
                return -1;
            }
            int status = awk_flush_redirect(I, o, 1);
            sh_buf_free(&o->buf);
            free(o->name);
            free(o);
            return status;
        }
    }
    for (ain **pp = &I->ins; *pp; pp = &(*pp)->next) {
        ain *in = *pp;
        if (strcmp(in->name, name) == 0) {
            *pp = in->next;
            int status = in->status;
            free(in->data);
            free(in->name);
            free(in);
            return status;
        }
    }
    return -1;
}

int awk_flush_all(aw *I)
{
    if (awk_flush_stdout(I) < 0)
        return -1;
    for (aout *o = I->outs; o; o = o->next)
        if (o->kind != TK_PIPE && awk_flush_redirect(I, o, 0) < 0)
            return -1;
    return 0;
}

/* ---------------------------------------------------------------- printf */

/* Appends s padded to width (left-justified with '-'). */
static int pad_append(sh_buf *b, const char *s, size_t n, long width, int left)
{
    int r = 0;
    long pad = width > (long)n ? width - (long)n : 0;
    for (long i = 0; !left && i < pad && r == 0; i++)
        r = sh_buf_addc(b, ' ');
    if (r == 0)
        r = sh_buf_add(b, s, n);
    for (long i = 0; left && i < pad && r == 0; i++)
        r = sh_buf_addc(b, ' ');
    return r;
}

/* Formats fmt with the values args[0..nargs) as printf does, appending to out. */
static int format_values(aw *I, sh_buf *out, const char *fmt, aval *args, int nargs, int line)
{
    int ai = 0, r = 0;
    for (const char *s = fmt; *s && r == 0;) {
        if (*s != '%') {
            const char *e = strchr(s, '%');
            size_t n = e ? (size_t)(e - s) : strlen(s);
            r = sh_buf_add(out, s, n);
            s += n;
            continue;
        }
        if (s[1] == '%') {
            r = sh_buf_addc(out, '%');
            s += 2;
            continue;
        }
        const char *start = s++;
        char flags[8];
        size_t nflags = 0;
        while (*s && strchr("-+ #0", *s)) {
            if (nflags < sizeof(flags) - 1)
                flags[nflags++] = *s;
            s++;
        }
        flags[nflags] = '\0';
        long width = -1, prec = -1;
        if (*s == '*') {
            s++;
            if (ai >= nargs)
                return awk_fatal(I, line, "not enough arguments to satisfy format string");
            double w = awk_to_num(&args[ai++]);
            width = (long)(fabs(w) > MAX_WIDTH ? MAX_WIDTH : fabs(w));
            if (w < 0 && nflags < sizeof(flags) - 1) {
                flags[nflags++] = '-';
                flags[nflags] = '\0';
            }
        } else if (isdigit((unsigned char)*s)) {
            width = 0;
            while (isdigit((unsigned char)*s)) {
                if (width < MAX_WIDTH)
                    width = width * 10 + (*s - '0');
                s++;
            }
        }
        if (*s == '.') {
            s++;
            prec = 0;
            if (*s == '*') {
                s++;
                if (ai >= nargs)
                    return awk_fatal(I, line, "not enough arguments to satisfy format string");
                double pr = awk_to_num(&args[ai++]);
                prec = pr < 0 ? -1 : (long)(pr > MAX_WIDTH ? MAX_WIDTH : pr);
            } else {
                while (isdigit((unsigned char)*s)) {
                    if (prec < MAX_WIDTH)
                        prec = prec * 10 + (*s - '0');
                    s++;
                }
            }
        }
        while (*s && strchr("hlLqjzt", *s))
            s++;
        char conv = *s;
        if (conv == '%') {
            r = sh_buf_addc(out, '%');
            s++;
            continue;
        }
        if (!conv || !strchr("diouxXcseEfFgGaA", conv)) {
            r = sh_buf_add(out, start, (size_t)(s - start));
            continue;
        }
        s++;
        if (ai >= nargs)
            return awk_fatal(I, line, "not enough arguments to satisfy format string");
        aval *v = &args[ai++];
        int left = strchr(flags, '-') != NULL;
        char spec[64];
        int sl = snprintf(spec, sizeof(spec), "%%%s", flags);
        if (width >= 0)
            sl += snprintf(spec + sl, sizeof(spec) - (size_t)sl, "%ld", width);
        if (prec >= 0)
            sl += snprintf(spec + sl, sizeof(spec) - (size_t)sl, ".%ld", prec);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        if (conv == 'c') {
            char ch[2] = { 0, 0 };
            size_t n = 1;
            if (v->type == T_NUM || v->type == T_STRNUM) {
                ch[0] = (char)(awk_to_ll(awk_to_num(v)) & 255);
            } else {
                const char *str = awk_str_of(I, v);
                if (!str)
                    return C_ERROR;
                ch[0] = str[0];
            }
            r = pad_append(out, ch, n, width, left);
        } else if (conv == 's') {
            const char *str = v->type == T_NUM ? NULL : awk_str_of(I, v);
            sh_buf tmp = { 0 };
            if (v->type == T_NUM) {
                if (awk_num_append(&tmp, v->num, awk_global_str(I, V_CONVFMT)) < 0 ||
                    !(str = sh_buf_cstr(&tmp))) {
                    sh_buf_free(&tmp);
                    awk_oom(I);
                    return C_ERROR;
                }
            }
            if (!str)
                return C_ERROR;
            size_t n = strlen(str);
            if (prec >= 0 && (size_t)prec < n)
                n = (size_t)prec;
            r = pad_append(out, str, n, width, left);
            sh_buf_free(&tmp);
        } else if (strchr("diouxX", conv)) {
            double d = awk_to_num(v);
            if (isnan(d) || isinf(d)) {
                sh_buf tmp = { 0 };
                r = awk_num_append(&tmp, d, "%.6g");
                if (r == 0)
                    r = pad_append(out, tmp.data, tmp.len, width, left);
                sh_buf_free(&tmp);
            } else if (conv == 'd' || conv == 'i') {
                if (fabs(d) < 9.2e18) {
                    strcat(spec, "lld");
                    r = sh_buf_addf(out, spec, (long long)d);
                } else {
                    sl = snprintf(spec, sizeof(spec), "%%%s", flags);
                    if (width >= 0)
                        snprintf(spec + sl, sizeof(spec) - (size_t)sl, "%ld", width);
                    strcat(spec, ".0f");
                    r = sh_buf_addf(out, spec, trunc(d));
                }
            } else {
                size_t l = strlen(spec);
                snprintf(spec + l, sizeof(spec) - l, "ll%c", conv);
                unsigned long long u =
                    d < 0 ? (unsigned long long)(long long)d
                          : (d >= 1.8e19 ? ~0ULL : (unsigned long long)d);
                r = sh_buf_addf(out, spec, u);
            }
        } else {
            size_t l = strlen(spec);
            snprintf(spec + l, sizeof(spec) - l, "%c", conv);
            r = sh_buf_addf(out, spec, awk_to_num(v));
        }
#pragma GCC diagnostic pop
    }
    if (r) {
        awk_oom(I);
        return C_ERROR;
    }
    return C_OK;
}

int awk_eval_list(aw *I, anode *list, int n, aval **out)
{
    *out = awk_xcalloc(I, (size_t)n, sizeof(aval));
    if (!*out)
        return C_ERROR;
    int i = 0;
    for (anode *x = list; x; x = x->next, i++) {
        int r = awk_eval(I, x, &(*out)[i]);
        if (r != C_OK)
            return r;
    }
    return C_OK;
}

void awk_free_values(aval *v, int n)
{
    if (!v)
        return;
    for (int i = 0; i < n; i++)
        awk_val_free(&v[i]);
    free(v);
}

int awk_do_sprintf(aw *I, anode *list, int n, sh_buf *out, int line)
{
    aval *vals = NULL;
    int r = awk_eval_list(I, list, n, &vals);
    if (r == C_OK) {
        const char *fmt = awk_str_of(I, &vals[0]);
        r = fmt ? format_values(I, out, fmt, vals + 1, n - 1, line) : C_ERROR;
    }
    awk_free_values(vals, n);
    return r;
}
