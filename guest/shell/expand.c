/* Word expansion: parameters (with the POSIX and common bash operators),
 * command substitution, arithmetic, field splitting on IFS, pathname globbing
 * and quote removal, in POSIX's order. Above the parser (whose scanners it
 * shares); a command substitution runs through the capture hook (state.h),
 * since the executor is the layer above. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "expand.h"

/* Each expanded character carries where it came from. */
enum { C_LIT = 0, C_QUOTED = 1, C_EXP = 2 /* unquoted expansion: split, globbed */ };

/* A field being built: text and one flag per byte. forced: it exists even when
 * empty (it had quotes). */
typedef struct field {
    sh_buf text, flags;
    int forced;
} field;

typedef struct fields {
    field *v;
    int n, cap;
    int nomem;
} fields;

typedef struct xctx {
    sh_shell *sh;
    sh_io *io;
    fields f;
    int error; /* an expansion failed (reported) */
    int heredoc;
} xctx;

static field *cur(xctx *x)
{
    return &x->f.v[x->f.n - 1];
}

static int new_field(xctx *x)
{
    if (x->f.n == x->f.cap) {
        int cap = x->f.cap ? x->f.cap * 2 : 4;
        field *g = realloc(x->f.v, sizeof(field) * (size_t)cap);
        if (!g) {
            x->f.nomem = 1;
            return -1;
        }
        x->f.v = g;
        x->f.cap = cap;
    }
    memset(&x->f.v[x->f.n++], 0, sizeof(field));
    return 0;
}

static void put(xctx *x, const char *s, size_t n, int flag)
{
    field *f = cur(x);
    for (size_t i = 0; i < n; i++)
        if (sh_buf_addc(&f->text, s[i]) < 0 || sh_buf_addc(&f->flags, (char)flag) < 0) {
            x->f.nomem = 1;
            return;
        }
    if (flag == C_QUOTED)
        f->forced = 1;
}

static void free_fields(fields *f)
{
    for (int i = 0; i < f->n; i++) {
        sh_buf_free(&f->v[i].text);
        sh_buf_free(&f->v[i].flags);
    }
    free(f->v);
    memset(f, 0, sizeof(*f));
}

/* The value of parameter name (a name, a digit string or one special
 * character), or NULL when unset. May point into scratch. */
static const char *param(xctx *x, const char *name, sh_buf *scratch)
{
    sh_shell *sh = x->sh;
    if (isdigit((unsigned char)name[0])) {
        long i = strtol(name, NULL, 10);
        if (i == 0)
            return sh->arg0;
        return i <= sh->n_params ? sh->params[i - 1] : NULL;
    }
    if (name[1] == '\0') {
        switch (name[0]) {
        case '?':
            sh_buf_addf(scratch, "%d", sh->status);
            return sh_buf_cstr(scratch);
        case '#':
            sh_buf_addf(scratch, "%d", sh->n_params);
            return sh_buf_cstr(scratch);
        case '$':
            return "1";
        case '!':
            return "";
        case '-':
            sh_buf_addf(scratch, "%s%s%s%s", sh->opt_e ? "e" : "", sh->opt_f ? "f" : "",
                        sh->opt_u ? "u" : "", sh->opt_x ? "x" : "");
            return sh_buf_cstr(scratch);
        case '*':
        case '@': {
            const char *ifs = sh_var_get(sh, "IFS");
            char sep = ifs ? ifs[0] : ' ';
            for (int i = 0; i < sh->n_params; i++) {
                if (i > 0 && sep)
                    sh_buf_addc(scratch, sep);
                sh_buf_adds(scratch, sh->params[i]);
            }
            return sh_buf_cstr(scratch);
        }
        }
    }
    return sh_var_get(sh, name);
}

static int expand_part(xctx *x, const char *s, size_t len, int quoted);

/* Appends a value: quoted, or as an unquoted expansion (split and globbed). */
static void put_value(xctx *x, const char *v, int quoted)
{
    put(x, v, strlen(v), quoted ? C_QUOTED : C_EXP);
}

/* Puts the result r of an operator (taken; NULL when it ran out of memory). */
static void put_result(xctx *x, char *r, int quoted)
{
    if (r)
        put_value(x, r, quoted);
    else
        x->f.nomem = 1;
    free(r);
}

/* Expands the word w[0..n) (a ${...} operand) into a string: quotes removed, or,
 * as_pattern, quoted pattern characters escaped. NULL after an error. */
static char *operand(xctx *x, const char *w, size_t n, int as_pattern)
{
    char *copy = malloc(n + 1);
    if (!copy) {
        x->f.nomem = 1;
        return NULL;
    }
    memcpy(copy, w, n);
    copy[n] = '\0';
    char *r = as_pattern ? sh_expand_pattern(x->sh, x->io, copy)
                         : sh_expand_string(x->sh, x->io, copy);
    free(copy);
    if (!r)
        x->error = 1;
    return r;
}

static char *operand_string(xctx *x, const char *w, size_t n)
{
    return operand(x, w, n, 0);
}

static char *operand_pattern(xctx *x, const char *w, size_t n)
{
    return operand(x, w, n, 1);
}

/* Removes the shortest/longest prefix/suffix of v matching pattern. */
static char *trim(const char *v, const char *pat, int suffix, int longest)
{
    size_t n = strlen(v);
    char *buf = strdup(v);
    if (!buf)
        return NULL;
    if (!suffix) {
        for (size_t k = 0; k <= n; k++) {
            size_t i = longest ? n - k : k;
            char save = buf[i];
            buf[i] = '\0';
            int m = fnmatch(pat, buf, 0) == 0;
            buf[i] = save;
            if (m) {
                memmove(buf, buf + i, n - i + 1);
                return buf;
            }
        }
    } else {
        for (size_t k = 0; k <= n; k++) {
            size_t i = longest ? k : n - k;
            if (fnmatch(pat, v + i, 0) == 0) {
                buf[i] = '\0';
                return buf;
            }
        }
    }
    return buf;
}

/* ${v/pat/rep} and its forms: mode '1' the first match, '/' every match, '#'
 * a match at the start, '%' a match at the end. Matches are the longest. */
static char *replace(const char *v, const char *pat, const char *rep, char mode)
{
    size_t n = strlen(v);
    char *tmp = strdup(v);
    if (!tmp)
        return NULL;
    sh_buf out = { 0 };
    int replaced = 0, bad = 0;
    size_t i = 0;
    while (i <= n) {
        size_t end = (size_t)-1;
        if ((!replaced || mode == '/') && (mode != '#' || i == 0)) {
            for (size_t j = n; j >= i; j--) {
                char save = tmp[j];
                tmp[j] = '\0';
                int m = fnmatch(pat, tmp + i, 0) == 0;
                tmp[j] = save;
                if (m) {
                    end = j;
                    break;
                }
                if (j == i || mode == '%')
                    break;
            }
        }
        if (end != (size_t)-1 && (end > i || mode == '#' || mode == '%')) {
            bad |= sh_buf_adds(&out, rep);
            replaced = 1;
            if (end > i) {
                i = end;
                continue;
            }
        }
        if (i < n)
            bad |= sh_buf_addc(&out, v[i]);
        i++;
    }
    free(tmp);
    char *r = bad ? NULL : sh_buf_take(&out, NULL);
    if (!r)
        sh_buf_free(&out);
    return r;
}

/* Expands ${...} whose inside is s[0..n). */
static void expand_brace(xctx *x, const char *s, size_t n, int quoted)
{
    sh_buf scratch = { 0 };
    int length = 0;
    size_t i = 0;
    if (n > 1 && s[0] == '#' && s[1] != '}' ) {
        length = 1;
        i = 1;
    }
    size_t name_start = i;
    if (i < n && (isalpha((unsigned char)s[i]) || s[i] == '_')) {
        while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_'))
            i++;
    } else if (i < n && isdigit((unsigned char)s[i])) {
        while (i < n && isdigit((unsigned char)s[i]))
            i++;
    } else if (i < n && strchr("?#$!-*@0", s[i])) {
        i++;
    } else if (length && i == n) {
        /* ${#} is $# */
        length = 0;
        i = 1;
        name_start = 0;
    } else {
        sh_report(x->io, "${%.*s}: bad substitution", (int)n, s);
        x->error = 1;
        return;
    }
    char name[256];
    size_t nl = i - name_start;
    if (nl >= sizeof(name)) {
        sh_report(x->io, "${%.*s}: bad substitution", (int)n, s);
        x->error = 1;
        return;
    }
    memcpy(name, s + name_start, nl);
    name[nl] = '\0';
    const char *v = param(x, name, &scratch);
    int is_at = strcmp(name, "@") == 0 || strcmp(name, "*") == 0;
    if (length) {
        if (i != n) {
            sh_report(x->io, "${%.*s}: bad substitution", (int)n, s);
            x->error = 1;
        } else {
            char num[32];
            snprintf(num, sizeof(num), "%zu", is_at ? (size_t)x->sh->n_params : v ? strlen(v) : 0);
            put_value(x, num, quoted);
        }
        sh_buf_free(&scratch);
        return;
    }
    const char *op = s + i;
    size_t opn = n - i;
    if (opn == 0) {
        if (!v && x->sh->opt_u && !is_at) {
            sh_report(x->io, "%s: parameter not set", name);
            x->error = 1;
        } else if (strcmp(name, "@") == 0 && quoted) {
            /* "${@}" is "$@": handled by the caller for $@; here, fields. */
            for (int k = 0; k < x->sh->n_params; k++) {
                if (k > 0 && new_field(x) == 0)
                    cur(x)->forced = 1;
                put(x, x->sh->params[k], strlen(x->sh->params[k]), C_QUOTED);
            }
        } else if (v) {
            put_value(x, v, quoted);
        }
        sh_buf_free(&scratch);
        return;
    }
    int colon = op[0] == ':' && opn > 1 && strchr("-=?+", op[1]);
    char o = colon ? op[1] : op[0];
    const char *w = op + (colon ? 2 : 1);
    size_t wn = opn - (size_t)(colon ? 2 : 1);
    int unset = !v || (colon && v[0] == '\0');
    switch (o) {
    case '-':
    case '=':
        if (unset) {
            if (o == '=') {
                char *val = operand_string(x, w, wn);
                if (val) {
                    if (!sh_is_name(name, strlen(name))) {
                        sh_report(x->io, "$%s: cannot assign in this way", name);
                        x->error = 1;
                    } else {
                        sh_setvar(x->sh, name, val, 0);
                        put_value(x, val, quoted);
                    }
                    free(val);
                }
            } else {
                expand_part(x, w, wn, quoted);
            }
        } else {
            put_value(x, v, quoted);
        }
        break;
    case '+':
        if (!unset)
            expand_part(x, w, wn, quoted);
        break;
    case '?':
        if (unset) {
            char *msg = operand_string(x, w, wn);
            sh_report(x->io, "%s: %s", name, msg && *msg ? msg : "parameter null or not set");
            free(msg);
            x->error = 1;
        } else {
            put_value(x, v, quoted);
        }
        break;
    case '#':
    case '%': {
        int longest = wn > 0 && w[0] == o;
        if (longest) {
            w++;
            wn--;
        }
        char *pat = operand_pattern(x, w, wn);
        if (pat) {
            char *r = trim(v ? v : "", pat, o == '%', longest);
            put_result(x, r, quoted);
            free(pat);
        }
        break;
    }
    case '/': {
        char mode = '1';
        if (wn > 0 && (w[0] == '/' || w[0] == '#' || w[0] == '%')) {
            mode = w[0];
            w++;
            wn--;
        }
        /* The pattern ends at the first unquoted, unescaped '/'. */
        size_t k = 0;
        while (k < wn && w[k] != '/') {
            if (w[k] == '\\' && k + 1 < wn)
                k++;
            k++;
        }
        char *pat = operand_pattern(x, w, k);
        char *rep = k < wn ? operand_string(x, w + k + 1, wn - k - 1) : strdup("");
        if (pat && rep) {
            char *r = replace(v ? v : "", pat, rep, mode);
            put_result(x, r, quoted);
        }
        free(pat);
        free(rep);
        break;
    }
    case ':': {
        /* ${v:offset[:length]} (bash) */
        char *spec = operand_string(x, w - 0, wn);
        if (!spec)
            break;
        char *colon2 = NULL;
        int depth = 0;
        for (char *c = spec; *c; c++) {
            if (*c == '(')
                depth++;
            else if (*c == ')')
                depth--;
            else if (*c == ':' && depth == 0) {
                colon2 = c;
                break;
            }
        }
        if (colon2)
            *colon2 = '\0';
        long long off = 0, cnt = -1;
        if (sh_arith(x->sh, x->io, spec, &off) < 0 ||
            (colon2 && sh_arith(x->sh, x->io, colon2 + 1, &cnt) < 0)) {
            x->error = 1;
            free(spec);
            break;
        }
        free(spec);
        const char *val = v ? v : "";
        long long len = (long long)strlen(val);
        if (off < 0)
            off = len + off < 0 ? 0 : len + off;
        if (off > len)
            off = len;
        long long end = cnt < 0 ? (colon2 ? len + cnt : len) : off + cnt;
        if (end > len)
            end = len;
        if (end < off) {
            if (colon2 && cnt < 0 && len + cnt < off) {
                sh_report(x->io, "%lld: substring expression < 0", cnt);
                x->error = 1;
                break;
            }
            end = off;
        }
        put(x, val + off, (size_t)(end - off), quoted ? C_QUOTED : C_EXP);
        break;
    }
    case '^':
    case ',': {
        int all = wn > 0 && w[0] == o;
        char *r = strdup(v ? v : "");
        if (!r) {
            x->f.nomem = 1;
            break;
        }
        for (char *c = r; *c; c++) {
            *c = (char)(o == '^' ? toupper((unsigned char)*c) : tolower((unsigned char)*c));
            if (!all)
                break;
        }
        put_value(x, r, quoted);
        free(r);
        break;
    }
    default:
        sh_report(x->io, "${%.*s}: bad substitution", (int)n, s);
        x->error = 1;
    }
    sh_buf_free(&scratch);
}

/* Command substitution of src[0..n). */
static void expand_command(xctx *x, const char *src, size_t n, int quoted)
{
    char *code = malloc(n + 1);
    if (!code) {
        x->f.nomem = 1;
        return;
    }
    memcpy(code, src, n);
    code[n] = '\0';
    char *out = x->sh->hooks.capture(x->sh, x->io, code);
    free(code);
    if (!out) {
        x->f.nomem = 1;
        return;
    }
    put_value(x, out, quoted);
    free(out);
}

/* Expands s[0..len) into the current fields. quoted: inside double quotes. */
static int expand_part(xctx *x, const char *s, size_t len, int quoted)
{
    size_t i = 0;
    while (i < len && !x->error && !x->f.nomem) {
        char c = s[i];
        if (c == '\'' && !quoted && !x->heredoc) {
            const char *e = memchr(s + i + 1, '\'', len - i - 1);
            size_t end = e ? (size_t)(e - s) : len;
            put(x, s + i + 1, end - i - 1, C_QUOTED);
            cur(x)->forced = 1;
            i = end + 1;
        } else if (c == '"' && !quoted && !x->heredoc) {
            /* The end of the double-quoted part: skip nested parts. */
            size_t j = i + 1;
            while (j < len && s[j] != '"') {
                if (s[j] == '\\' && j + 1 < len) {
                    j += 2;
                } else if (s[j] == '`') {
                    long k = sh_scan_backquote(s + j + 1);
                    j = k < 0 ? len : j + 1 + (size_t)k + 1;
                } else if (s[j] == '$' && j + 1 < len && (s[j + 1] == '(' || s[j + 1] == '{')) {
                    long k = sh_scan_close(s + j + 2, s[j + 1], s[j + 1] == '(' ? ')' : '}');
                    j = k < 0 ? len : j + 2 + (size_t)k + 1;
                } else {
                    j++;
                }
            }
            cur(x)->forced = 1;
            expand_part(x, s + i + 1, (j < len ? j : len) - i - 1, 1);
            i = j + 1;
        } else if (c == '\\') {
            if (i + 1 >= len) {
                put(x, "\\", 1, quoted ? C_QUOTED : C_LIT);
                i++;
            } else if (!quoted && !x->heredoc) {
                if (s[i + 1] != '\n')
                    put(x, s + i + 1, 1, C_QUOTED);
                i += 2;
            } else if (strchr("$`\"\\\n", s[i + 1]) && !(x->heredoc && s[i + 1] == '"')) {
                if (s[i + 1] != '\n')
                    put(x, s + i + 1, 1, C_QUOTED);
                i += 2;
            } else {
                put(x, s + i, 2, C_QUOTED);
                i += 2;
            }
        } else if (c == '`') {
            long k = sh_scan_backquote(s + i + 1);
            size_t end = k < 0 ? len : i + 1 + (size_t)k;
            /* Inside backquotes, \$ \` \\ lose their backslash. */
            sh_buf code = { 0 };
            for (size_t j = i + 1; j < end; j++) {
                if (s[j] == '\\' && j + 1 < end && strchr("$`\\", s[j + 1]))
                    j++;
                sh_buf_addc(&code, s[j]);
            }
            expand_command(x, code.data ? code.data : "", code.len, quoted);
            sh_buf_free(&code);
            i = end + 1;
        } else if (c == '$' && i + 1 < len) {
            char d = s[i + 1];
            if (d == '(' && i + 2 < len && s[i + 2] == '(') {
                long k = sh_scan_close(s + i + 2, '(', ')');
                /* $(( expr )): the closing is "))" */
                if (k >= 1 && s[i + 2 + (size_t)k - 1] == ')') {
                    size_t start = i + 3, end = i + 2 + (size_t)k - 1;
                    char *expr = malloc(end - start + 1);
                    if (!expr) {
                        x->f.nomem = 1;
                        break;
                    }
                    memcpy(expr, s + start, end - start);
                    expr[end - start] = '\0';
                    char *e = sh_expand_string(x->sh, x->io, expr);
                    free(expr);
                    long long v;
                    if (!e || sh_arith(x->sh, x->io, e, &v) < 0) {
                        x->error = 1;
                    } else {
                        char num[32];
                        snprintf(num, sizeof(num), "%lld", v);
                        put_value(x, num, quoted);
                    }
                    free(e);
                    i = i + 2 + (size_t)k + 1;
                    continue;
                }
            }
            if (d == '(') {
                long k = sh_scan_close(s + i + 2, '(', ')');
                size_t end = k < 0 ? len : i + 2 + (size_t)k;
                expand_command(x, s + i + 2, end - i - 2, quoted);
                i = end + 1;
            } else if (d == '{') {
                long k = sh_scan_close(s + i + 2, '{', '}');
                size_t end = k < 0 ? len : i + 2 + (size_t)k;
                expand_brace(x, s + i + 2, end - i - 2, quoted);
                i = end + 1;
            } else if (d == '@' && quoted) {
                for (int k = 0; k < x->sh->n_params; k++) {
                    if (k > 0 && new_field(x) == 0)
                        cur(x)->forced = 1;
                    put(x, x->sh->params[k], strlen(x->sh->params[k]), C_QUOTED);
                }
                i += 2;
            } else if ((d == '@' || d == '*') && !quoted) {
                /* Unquoted: each parameter split again; fields between them. */
                for (int k = 0; k < x->sh->n_params; k++) {
                    if (k > 0)
                        put(x, " ", 1, C_EXP);
                    put(x, x->sh->params[k], strlen(x->sh->params[k]), C_EXP);
                }
                i += 2;
            } else if (isalpha((unsigned char)d) || d == '_' || isdigit((unsigned char)d) ||
                       strchr("?#$!-*@", d)) {
                size_t j = i + 1;
                if (isalpha((unsigned char)d) || d == '_')
                    while (j < len && (isalnum((unsigned char)s[j]) || s[j] == '_'))
                        j++;
                else
                    j++;
                char name[256];
                size_t nl = j - i - 1 < sizeof(name) - 1 ? j - i - 1 : sizeof(name) - 1;
                memcpy(name, s + i + 1, nl);
                name[nl] = '\0';
                sh_buf scratch = { 0 };
                const char *v = param(x, name, &scratch);
                if (!v && x->sh->opt_u && d != '@' && d != '*') {
                    sh_report(x->io, "%s: parameter not set", name);
                    x->error = 1;
                } else if (v) {
                    put_value(x, v, quoted);
                }
                sh_buf_free(&scratch);
                i = j;
            } else {
                put(x, "$", 1, quoted ? C_QUOTED : C_LIT);
                i++;
            }
        } else if (c == '~' && i == 0 && !quoted && !x->heredoc) {
            const char *home = sh_var_get(x->sh, "HOME");
            if (home && (len == 1 || s[1] == '/')) {
                put(x, home, strlen(home), C_QUOTED);
                i++;
            } else {
                put(x, "~", 1, C_LIT);
                i++;
            }
        } else {
            put(x, s + i, 1, quoted ? C_QUOTED : C_LIT);
            i++;
        }
    }
    return x->error || x->f.nomem ? -1 : 0;
}

static int is_ifs_space(char c, const char *ifs)
{
    return (c == ' ' || c == '\t' || c == '\n') && strchr(ifs, c);
}

/* --- globbing ------------------------------------------------------------- */

typedef struct names {
    char **v;
    int n, cap;
} names;

static int add_name(names *l, const char *s)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 16;
        char **g = realloc(l->v, sizeof(char *) * (size_t)cap);
        if (!g)
            return -1;
        l->v = g;
        l->cap = cap;
    }
    l->v[l->n] = strdup(s);
    return l->v[l->n] ? (l->n++, 0) : -1;
}

static int has_glob(const char *pat)
{
    for (const char *c = pat; *c; c++) {
        if (*c == '\\' && c[1])
            c++;
        else if (*c == '*' || *c == '?' || *c == '[')
            return 1;
    }
    return 0;
}

/* Removes the backslashes of an escaped pattern component. */
static void unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (*s == '\\' && s[1])
            s++;
        *o++ = *s;
    }
    *o = '\0';
}

/* Matches the components of pat (escaped pattern) from index comp on, below the
 * directory prefix (as written, "" for the working directory). */
static int glob_walk(sh_shell *sh, const char *prefix, char **comps, int n, int comp, names *out)
{
    if (comp == n)
        return add_name(out, prefix);
    char *c = comps[comp];
    sh_buf path = { 0 };
    if (!has_glob(c)) {
        char *lit = strdup(c);
        if (!lit)
            return -1;
        unescape(lit);
        sh_buf_adds(&path, prefix);
        if (path.len && path.data[path.len - 1] != '/')
            sh_buf_addc(&path, '/');
        sh_buf_adds(&path, lit);
        free(lit);
        char *full = NULL;
        const char *p = sh_buf_cstr(&path);
        struct stat st;
        int ok = 0;
        if (p) {
            if (p[0] == '/') {
                ok = lstat(p, &st) == 0;
            } else {
                sh_buf b = { 0 };
                sh_buf_addf(&b, "%s/%s", sh->cwd, p);
                full = sh_buf_cstr(&b);
                ok = full && lstat(full, &st) == 0;
                sh_buf_free(&b);
            }
        }
        int r = ok ? glob_walk(sh, p, comps, n, comp + 1, out) : 0;
        sh_buf_free(&path);
        return r;
    }
    sh_buf dir = { 0 };
    if (prefix[0] == '/')
        sh_buf_adds(&dir, prefix);
    else {
        sh_buf_adds(&dir, sh->cwd);
        if (prefix[0]) {
            sh_buf_addc(&dir, '/');
            sh_buf_adds(&dir, prefix);
        }
    }
    const char *d = sh_buf_cstr(&dir);
    DIR *dp = d ? opendir(d[0] ? d : "/") : NULL;
    sh_buf_free(&dir);
    if (!dp)
        return 0;
    names found = { 0 };
    struct dirent *e;
    int r = 0;
    while ((e = readdir(dp))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (fnmatch(c, e->d_name, FNM_PERIOD) == 0 && add_name(&found, e->d_name) < 0) {
            r = -1;
            break;
        }
    }
    closedir(dp);
    for (int i = 0; i < found.n && r == 0; i++) {
        sh_buf_free(&path);
        sh_buf_adds(&path, prefix);
        if (path.len && path.data[path.len - 1] != '/')
            sh_buf_addc(&path, '/');
        sh_buf_adds(&path, found.v[i]);
        const char *p = sh_buf_cstr(&path);
        if (comp + 1 < n) {
            /* Only directories lead on. */
            sh_buf b = { 0 };
            if (p[0] == '/')
                sh_buf_adds(&b, p);
            else
                sh_buf_addf(&b, "%s/%s", sh->cwd, p);
            struct stat st;
            const char *full = sh_buf_cstr(&b);
            int isdir = full && stat(full, &st) == 0 && S_ISDIR(st.st_mode);
            sh_buf_free(&b);
            if (!isdir)
                continue;
        }
        r = glob_walk(sh, p, comps, n, comp + 1, out);
    }
    for (int i = 0; i < found.n; i++)
        free(found.v[i]);
    free(found.v);
    sh_buf_free(&path);
    return r;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Expands the escaped pattern pat into out (sorted). 0 with out->n == 0 when
 * nothing matches; -1 when out of memory. */
static int glob_pattern(sh_shell *sh, const char *pat, names *out)
{
    char *copy = strdup(pat);
    if (!copy)
        return -1;
    char *comps[256];
    int n = 0;
    char *s = copy;
    int absolute = *s == '/';
    while (*s == '/')
        s++;
    while (*s && n < 256) {
        comps[n++] = s;
        char *slash = strchr(s, '/');
        if (!slash)
            break;
        *slash = '\0';
        s = slash + 1;
        while (*s == '/')
            s++;
    }
    size_t before = (size_t)out->n;
    int r = glob_walk(sh, absolute ? "/" : "", comps, n, 0, out);
    free(copy);
    if (r == 0 && (size_t)out->n > before)
        qsort(out->v + before, (size_t)out->n - before, sizeof(char *), cmp_names);
    return r;
}

/* --- the entry points ---------------------------------------------------- */

typedef struct argv_list {
    char **v;
    int n, cap;
} argv_list;

static int push_arg(argv_list *l, char *s)
{
    if (!s)
        return -1;
    if (l->n + 1 >= l->cap) {
        int cap = l->cap ? l->cap * 2 : 16;
        char **g = realloc(l->v, sizeof(char *) * (size_t)cap);
        if (!g) {
            free(s);
            return -1;
        }
        l->v = g;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    l->v[l->n] = NULL;
    return 0;
}

void sh_free_argv(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}

/* One split field: text and flags; globbed into l. */
static int emit(sh_shell *sh, argv_list *l, const char *t, const char *fl, size_t n)
{
    int glob = 0;
    for (size_t i = 0; i < n && !sh->opt_f; i++)
        if (fl[i] != C_QUOTED && (t[i] == '*' || t[i] == '?' || t[i] == '['))
            glob = 1;
    if (glob) {
        sh_buf pat = { 0 };
        for (size_t i = 0; i < n; i++) {
            if (fl[i] == C_QUOTED && strchr("*?[]\\", t[i]))
                sh_buf_addc(&pat, '\\');
            sh_buf_addc(&pat, t[i]);
        }
        names found = { 0 };
        const char *ps = sh_buf_cstr(&pat);
        int r = ps ? glob_pattern(sh, ps, &found) : -1;
        sh_buf_free(&pat);
        if (r < 0) {
            for (int i = 0; i < found.n; i++)
                free(found.v[i]);
            free(found.v);
            return -1;
        }
        if (found.n > 0) {
            for (int i = 0; i < found.n; i++)
                if (push_arg(l, found.v[i]) < 0) {
                    for (int j = i + 1; j < found.n; j++)
                        free(found.v[j]);
                    free(found.v);
                    return -1;
                }
            free(found.v);
            return 0;
        }
        free(found.v);
    }
    char *s = malloc(n + 1);
    if (!s)
        return -1;
    memcpy(s, t, n);
    s[n] = '\0';
    return push_arg(l, s);
}

/* Splits field f on IFS (only its expanded characters) and globs the pieces. */
static int split_field(sh_shell *sh, argv_list *l, field *f)
{
    const char *ifs = sh_var_get(sh, "IFS");
    if (!ifs)
        ifs = " \t\n";
    const char *t = f->text.data ? f->text.data : "";
    const char *fl = f->flags.data ? f->flags.data : "";
    size_t n = f->text.len, i = 0;
    int have = f->forced;
    /* Quoted text makes the field exist; an expansion of only IFS does not. */
    for (size_t k = 0; k < n; k++)
        if (fl[k] != C_EXP)
            have = 1;
    sh_buf piece = { 0 }, pflags = { 0 };
    int in_piece = 0;
    while (i < n) {
        if (fl[i] == C_EXP && *ifs && strchr(ifs, t[i])) {
            int ws = is_ifs_space(t[i], ifs);
            if (in_piece || !ws) {
                if (emit(sh, l, piece.data ? piece.data : "", pflags.data ? pflags.data : "", piece.len) < 0)
                    goto nomem;
                piece.len = pflags.len = 0;
                in_piece = 0;
            }
            i++;
            /* IFS white space around a separator belongs to it. */
            while (i < n && fl[i] == C_EXP && is_ifs_space(t[i], ifs))
                i++;
            if (!ws)
                continue;
            if (i < n && fl[i] == C_EXP && strchr(ifs, t[i]) && !is_ifs_space(t[i], ifs))
                i++;
            continue;
        }
        if (sh_buf_addc(&piece, t[i]) < 0 || sh_buf_addc(&pflags, fl[i]) < 0)
            goto nomem;
        in_piece = 1;
        i++;
    }
    if (in_piece || (have && l->n == 0 && n == 0) || (f->forced && n == 0)) {
        if (emit(sh, l, piece.data ? piece.data : "", pflags.data ? pflags.data : "", piece.len) < 0)
            goto nomem;
    }
    sh_buf_free(&piece);
    sh_buf_free(&pflags);
    return 0;
nomem:
    sh_buf_free(&piece);
    sh_buf_free(&pflags);
    return -1;
}

static void nomem_report(sh_shell *sh, sh_io *io)
{
    sh_report(io, "out of memory");
    sh->status = 1;
}

int sh_expand_words(sh_shell *sh, sh_io *io, sh_word *words, char ***argv, int *argc)
{
    argv_list l = { 0 };
    *argv = NULL;
    *argc = 0;
    for (sh_word *w = words; w; w = w->next) {
        xctx x = { .sh = sh, .io = io };
        if (new_field(&x) < 0 || expand_part(&x, w->text, strlen(w->text), 0) < 0) {
            if (x.f.nomem)
                nomem_report(sh, io);
            else
                sh->expand_failed = 1;
            free_fields(&x.f);
            sh_free_argv(l.v);
            return -1;
        }
        for (int k = 0; k < x.f.n; k++) {
            if (split_field(sh, &l, &x.f.v[k]) < 0) {
                free_fields(&x.f);
                sh_free_argv(l.v);
                nomem_report(sh, io);
                return -1;
            }
        }
        free_fields(&x.f);
    }
    if (!l.v) {
        l.v = calloc(1, sizeof(char *));
        if (!l.v) {
            nomem_report(sh, io);
            return -1;
        }
    }
    *argv = l.v;
    *argc = l.n;
    return 0;
}

/* Expands word into one string: mode 0 plain (quotes removed), 1 here-document,
 * 2 pattern (quoted pattern characters escaped). */
static char *expand_one(sh_shell *sh, sh_io *io, const char *word, int mode)
{
    xctx x = { .sh = sh, .io = io, .heredoc = mode == 1 };
    if (new_field(&x) < 0 || expand_part(&x, word, strlen(word), 0) < 0) {
        if (x.f.nomem)
            nomem_report(sh, io);
        else
            sh->expand_failed = 1;
        free_fields(&x.f);
        return NULL;
    }
    sh_buf out = { 0 };
    int bad = 0;
    for (int k = 0; k < x.f.n; k++) {
        field *f = &x.f.v[k];
        if (k > 0)
            bad |= sh_buf_addc(&out, ' ');
        for (size_t i = 0; i < f->text.len; i++) {
            if (mode == 2 && f->flags.data[i] == C_QUOTED && strchr("*?[]\\", f->text.data[i]))
                bad |= sh_buf_addc(&out, '\\');
            bad |= sh_buf_addc(&out, f->text.data[i]);
        }
    }
    free_fields(&x.f);
    char *r = bad ? NULL : sh_buf_take(&out, NULL);
    if (!r) {
        sh_buf_free(&out);
        nomem_report(sh, io);
    }
    return r;
}

char *sh_expand_string(sh_shell *sh, sh_io *io, const char *word)
{
    return expand_one(sh, io, word, 0);
}

char *sh_expand_heredoc(sh_shell *sh, sh_io *io, const char *body)
{
    return expand_one(sh, io, body, 1);
}

char *sh_expand_pattern(sh_shell *sh, sh_io *io, const char *word)
{
    return expand_one(sh, io, word, 2);
}
