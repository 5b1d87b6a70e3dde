/* Utility applets: test/[, expr, true, false, xargs, diff, base64, the checksum
 * commands, date, sleep, env, printenv, mktemp and the small system-information
 * commands (whoami, hostname, uname, nproc). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sh.h"

/* ---- shared helpers ---- */

/* How deeply test and expr expressions may nest: deeper ones are refused
 * rather than risk the guest's small stack. */
#define NEST_MAX 256

/* Parses a whole decimal argument in [min, max] into *v: 0, or -1 when it is
 * not a number or is out of range. */
static int parse_long(const char *s, long min, long max, long *v)
{
    char *end;
    errno = 0;
    long n = strtol(s, &end, 10);
    if (s[0] == '\0' || *end != '\0' || errno || n < min || n > max)
        return -1;
    *v = n;
    return 0;
}

/* qsort's comparison of two strings. */
static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- true, false, whoami, hostname, nproc, uname ---- */

static int true_main(sh_proc *p, int argc, char **argv)
{
    (void)p, (void)argc, (void)argv;
    return 0;
}

static int false_main(sh_proc *p, int argc, char **argv)
{
    (void)p, (void)argc, (void)argv;
    return 1;
}

/* Prints one fixed line for the commands that take no operand, after their
 * options, which change nothing in the sandbox (hostname -s, nproc --all). */
static int fixed_line(sh_proc *p, int argc, char **argv, const char *spec,
                      const sh_longopt *longs, const char *line)
{
    sh_opt o = { .ind = 1 };
    int c;
    while ((c = sh_getopt(p, &o, argc, argv, spec, longs)) != -1)
        if (c == '?')
            return 1;
    if (o.ind < argc) {
        sh_err(p, "extra operand '%s'", argv[o.ind]);
        return 1;
    }
    if (sh_outs(p, line) < 0 || sh_outc(p, '\n') < 0)
        return SH_STATUS_PIPE;
    return 0;
}

static int whoami_main(sh_proc *p, int argc, char **argv)
{
    return fixed_line(p, argc, argv, "", NULL, "user");
}

static int hostname_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "short", 0, 's' }, { "fqdn", 0, 'f' }, { "long", 0, 'f' }, { NULL, 0, 0 },
    };
    return fixed_line(p, argc, argv, "sf", longs, "sandbox");
}

static int nproc_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = { { "all", 0, 'a' }, { "ignore", 1, 'i' }, { NULL, 0, 0 } };
    /* One processor: ignoring some still leaves one. */
    return fixed_line(p, argc, argv, "", longs, "1");
}

/* The fields uname prints, in the order of -a. Processor and hardware platform
 * are unknown and -a leaves them out, as GNU's does. */
static const struct uname_field {
    char opt;
    const char *value;
} uname_fields[] = {
    { 's', "capsa" }, { 'n', "sandbox" }, { 'r', "1.0" },     { 'v', "wasi" },
    { 'm', "wasm32" }, { 'p', "unknown" }, { 'i', "unknown" }, { 'o', "capsa" },
};

static int uname_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "all", 0, 'a' },           { "kernel-name", 0, 's' },       { "nodename", 0, 'n' },
        { "kernel-release", 0, 'r' }, { "kernel-version", 0, 'v' },   { "machine", 0, 'm' },
        { "processor", 0, 'p' },     { "hardware-platform", 0, 'i' }, { "operating-system", 0, 'o' },
        { NULL, 0, 0 },
    };
    enum { N = sizeof(uname_fields) / sizeof(uname_fields[0]) };
    int want[N] = { 0 }, all = 0, any = 0, c;
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "asnrvmpio", longs)) != -1) {
        if (c == '?')
            return 1;
        if (c == 'a')
            all = 1;
        for (int i = 0; i < N; i++)
            if (uname_fields[i].opt == c)
                want[i] = any = 1;
    }
    if (o.ind < argc) {
        sh_err(p, "extra operand '%s'", argv[o.ind]);
        return 1;
    }
    if (!any && !all)
        want[0] = 1;
    sh_buf b = { 0 };
    int r = 0;
    for (int i = 0; i < N; i++) {
        int unknown = strcmp(uname_fields[i].value, "unknown") == 0;
        if (want[i] || (all && !unknown)) {
            if (b.len)
                r |= sh_buf_addc(&b, ' ');
            r |= sh_buf_adds(&b, uname_fields[i].value);
        }
    }
    r |= sh_buf_addc(&b, '\n');
    if (r == 0)
        r = sh_out(p, b.data, b.len) < 0 ? SH_STATUS_PIPE : 0;
    else
        r = sh_oom(p);
    sh_buf_free(&b);
    return r;
}

/* ---- env, printenv ---- */

/* Whether the environment entry "NAME=value" is for name. */
static int env_is(const char *entry, const char *name)
{
    size_t n = strlen(name);
    return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

/* Prints the shell's exported variables, minus the unset names and without
 * them all after -i, then the assignments, each ended by end. */
static int env_print(sh_proc *p, char **unset, int n_unset, int ignore, char **assigns,
                     int n_assigns, char end)
{
    char **env = ignore ? NULL : sh_environ(p);
    if (!ignore && !env)
        return sh_oom(p);
    for (char **e = env; e && *e; e++) {
        int skip = 0;
        for (int i = 0; i < n_unset && !skip; i++)
            skip = env_is(*e, unset[i]);
        for (int i = 0; i < n_assigns && !skip; i++) {
            size_t n = (size_t)(strchr(assigns[i], '=') - assigns[i]);
            skip = strncmp(*e, assigns[i], n + 1) == 0;
        }
        if (!skip && (sh_outs(p, *e) < 0 || sh_outc(p, end) < 0))
            return SH_STATUS_PIPE;
    }
    for (int i = 0; i < n_assigns; i++) {
        /* A later assignment of the same name wins. */
        size_t n = (size_t)(strchr(assigns[i], '=') - assigns[i]);
        int later = 0;
        for (int j = i + 1; j < n_assigns && !later; j++)
            later = strncmp(assigns[j], assigns[i], n + 1) == 0;
        if (!later && (sh_outs(p, assigns[i]) < 0 || sh_outc(p, end) < 0))
            return SH_STATUS_PIPE;
    }
    return 0;
}

static int env_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "ignore-environment", 0, 'i' }, { "unset", 1, 'u' }, { "null", 0, '0' }, { NULL, 0, 0 },
    };
    char **unset = calloc((size_t)argc + 1, sizeof(char *));
    if (!unset)
        return sh_oom(p);
    int n_unset = 0, ignore = 0, c;
    char end = '\n';
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "+iu:0", longs)) != -1) {
        if (c == '?') {
            free(unset);
            return 125;
        }
        if (c == 'i')
            ignore = 1;
        else if (c == 'u')
            unset[n_unset++] = o.arg;
        else if (c == '0')
            end = '\0';
    }
    int i = o.ind;
    if (i < argc && strcmp(argv[i], "-") == 0) {
        ignore = 1;
        i++;
    }
    int first_assign = i;
    while (i < argc && strchr(argv[i], '=') && argv[i][0] != '=')
        i++;
    int r;
    if (i == argc) {
        r = env_print(p, unset, n_unset, ignore, argv + first_assign, i - first_assign, end);
    } else if (end == '\0') {
        sh_err(p, "cannot specify --null (-0) with command");
        r = 125;
    } else {
        /* The command sees the assignments; the shell's interface has no way
         * to run it with an emptied environment, so -i and -u only affect
         * the listing. */
        char **assigns = calloc((size_t)(i - first_assign) + 1, sizeof(char *));
        if (!assigns) {
            free(unset);
            return sh_oom(p);
        }
        for (int k = first_assign; k < i; k++)
            assigns[k - first_assign] = argv[k];
        r = sh_run(p, argv + i, assigns, p->in, p->in_len);
        free(assigns);
    }
    free(unset);
    return r;
}

static int printenv_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = { { "null", 0, '0' }, { NULL, 0, 0 } };
    char end = '\n';
    int c;
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "0", longs)) != -1) {
        if (c == '?')
            return 2;
        end = '\0';
    }
    if (o.ind == argc)
        return env_print(p, NULL, 0, 0, NULL, 0, end);
    int status = 0;
    char **env = sh_environ(p);
    if (!env)
        return sh_oom(p);
    for (int i = o.ind; i < argc; i++) {
        const char *value = NULL;
        for (char **e = env; e && *e && !value && !strchr(argv[i], '='); e++)
            if (env_is(*e, argv[i]))
                value = *e + strlen(argv[i]) + 1;
        if (!value) {
            status = 1;
            continue;
        }
        if (sh_outs(p, value) < 0 || sh_outc(p, end) < 0)
            return SH_STATUS_PIPE;
    }
    return status;
}

/* ---- sleep ---- */

/* Parses a sleep interval: a non-negative number with an optional unit
 * suffix s, m, h or d. 0 and *seconds, or -1. */
static int parse_interval(const char *s, double *seconds)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || v < 0 || v != v)
        return -1;
    double unit = 1;
    if (*end) {
        switch (*end) {
        case 's': unit = 1; break;
        case 'm': unit = 60; break;
        case 'h': unit = 3600; break;
        case 'd': unit = 86400; break;
        default: return -1;
        }
        if (end[1] != '\0')
            return -1;
    }
    *seconds = v * unit;
    return 0;
}

static int sleep_main(sh_proc *p, int argc, char **argv)
{
    sh_opt o = { .ind = 1 };
    /* Negative numbers are not options here, but they are invalid anyway. */
    if (sh_getopt(p, &o, argc, argv, "", NULL) != -1)
        return 1;
    if (o.ind == argc) {
        sh_err(p, "missing operand");
        return 1;
    }
    double total = 0;
    int bad = 0;
    for (int i = o.ind; i < argc; i++) {
        double s;
        if (parse_interval(argv[i], &s) < 0) {
            sh_err(p, "invalid time interval '%s'", argv[i]);
            bad = 1;
        } else {
            total += s;
        }
    }
    if (bad)
        return 1;
    if (total > 1e9)
        total = 1e9;
    struct timespec ts = { (time_t)total, (long)((total - (double)(time_t)total) * 1e9) };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
    return 0;
}

/* ---- test, [ ---- */

/* test follows bash's builtin (what scripts run): POSIX's rules by argument
 * count, then a recursive-descent parser for longer expressions. */
typedef struct test_state {
    sh_proc *p;
    char **argv;
    int argc, pos, error;
    int depth; /* of parentheses */
} test_state;

static int test_expr(test_state *t);

/* Reports a syntax error (status 2) once: the message, after the argument
 * when there is one. */
static void test_syntax(test_state *t, const char *arg, const char *msg)
{
    if (!t->error) {
        if (arg)
            sh_err(t->p, "%s: %s", arg, msg);
        else
            sh_err(t->p, "%s", msg);
    }
    t->error = 1;
}

/* Moves past one argument; when need is set, another must follow. */
static void test_advance(test_state *t, int need)
{
    t->pos++;
    if (need && t->pos >= t->argc)
        test_syntax(t, NULL, "argument expected");
}

/* Parses an integer argument (blanks around it allowed): 0, or -1 after the
 * error. */
static int test_int(test_state *t, const char *s, long long *v)
{
    char *end;
    errno = 0;
    *v = strtoll(s, &end, 10);
    while (*end == ' ' || *end == '\t' || *end == '\n')
        end++;
    const char *c = s;
    while (*c == ' ' || *c == '\t' || *c == '\n')
        c++;
    if (*c == '\0' || *end != '\0' || errno || !isdigit((unsigned char)c[*c == '-' || *c == '+'])) {
        test_syntax(t, s, "integer expression expected");
        return -1;
    }
    return 0;
}

/* Whether s is a binary operator. */
static int test_is_binop(const char *s)
{
    static const char *const ops[] = { "=",   "==",  "!=",  "<",   ">",   "-eq", "-ne", "-lt",
                                       "-le", "-gt", "-ge", "-nt", "-ot", "-ef", NULL };
    for (int i = 0; ops[i]; i++)
        if (strcmp(s, ops[i]) == 0)
            return 1;
    return 0;
}

/* Whether s is a unary operator (a dash and one letter). */
static int test_is_unop(const char *s)
{
    return s[0] == '-' && s[1] && s[2] == '\0' && strchr("abcdefghknoprstuvwxzGLOSNR", s[1]);
}

/* Orders two files by modification time, nanoseconds included. */
static int mtime_compare(const struct stat *a, const struct stat *b)
{
    if (a->st_mtim.tv_sec != b->st_mtim.tv_sec)
        return a->st_mtim.tv_sec < b->st_mtim.tv_sec ? -1 : 1;
    if (a->st_mtim.tv_nsec != b->st_mtim.tv_nsec)
        return a->st_mtim.tv_nsec < b->st_mtim.tv_nsec ? -1 : 1;
    return 0;
}

/* Evaluates argv[pos] OP argv[pos+2] and moves past the three. */
static int test_binary(test_state *t)
{
    const char *l = t->argv[t->pos], *op = t->argv[t->pos + 1], *r = t->argv[t->pos + 2];
    t->pos += 3;
    if (op[0] != '-') {
        int c = strcmp(l, r);
        if (op[0] == '=')
            return c == 0;
        if (op[0] == '!')
            return c != 0;
        return op[0] == '<' ? c < 0 : c > 0;
    }
    if (strcmp(op, "-nt") == 0 || strcmp(op, "-ot") == 0 || strcmp(op, "-ef") == 0) {
        struct stat sl, sr;
        int el = sh_stat(t->p, l, &sl, 1) == 0, er = sh_stat(t->p, r, &sr, 1) == 0;
        if (op[1] == 'n')
            return el && (!er || mtime_compare(&sl, &sr) > 0);
        if (op[1] == 'o')
            return er && (!el || mtime_compare(&sl, &sr) < 0);
        return el && er && sl.st_dev == sr.st_dev && sl.st_ino == sr.st_ino;
    }
    long long a, b;
    if (test_int(t, l, &a) < 0 || test_int(t, r, &b) < 0)
        return 0;
    if (strcmp(op, "-eq") == 0)
        return a == b;
    if (strcmp(op, "-ne") == 0)
        return a != b;
    if (strcmp(op, "-lt") == 0)
        return a < b;
    if (strcmp(op, "-le") == 0)
        return a <= b;
    if (strcmp(op, "-gt") == 0)
        return a > b;
    return a >= b;
}

/* Evaluates the unary operator at argv[pos] and its operand. */
static int test_unary(test_state *t)
{
    char op = t->argv[t->pos][1];
    test_advance(t, 1);
    if (t->error)
        return 0;
    const char *arg = t->argv[t->pos++];
    switch (op) {
    case 'n': return arg[0] != '\0';
    case 'z': return arg[0] == '\0';
    case 'v': return sh_getenv(t->p, arg) != NULL;
    case 't': /* no terminals in the sandbox */
    case 'o': /* no shell options are visible to a command */
    case 'R': return 0;
    }
    struct stat st;
    if (sh_stat(t->p, arg, &st, op != 'h' && op != 'L') < 0)
        return 0;
    switch (op) {
    case 'a':
    case 'e': return 1;
    case 'f': return S_ISREG(st.st_mode);
    case 'd': return S_ISDIR(st.st_mode);
    case 'b': return S_ISBLK(st.st_mode);
    case 'c': return S_ISCHR(st.st_mode);
    case 'p': return S_ISFIFO(st.st_mode);
    case 'S': return S_ISSOCK(st.st_mode);
    case 'h':
    case 'L': return S_ISLNK(st.st_mode);
    case 's': return st.st_size > 0;
    case 'g': return (st.st_mode & S_ISGID) != 0;
    case 'u': return (st.st_mode & S_ISUID) != 0;
    case 'k': return (st.st_mode & S_ISVTX) != 0;
    case 'N': return st.st_mtim.tv_sec >= st.st_atim.tv_sec;
    case 'O':
    case 'G': return 1; /* everything belongs to the one user */
    default: {
        /* The sandbox's files have no permission bits (all zero): there a
           directory can be entered and a file is not executable. */
        if (op == 'x' && (st.st_mode & 07777) == 0)
            return S_ISDIR(st.st_mode);
        char *full = sh_path(t->p, arg);
        int mode = op == 'r' ? R_OK : op == 'w' ? W_OK : X_OK;
        int ok = full && access(full, mode) == 0;
        free(full);
        return ok;
    }
    }
}

/* A primary: negations, a parenthesised expression, a binary or unary test,
 * or a string. */
static int test_term(test_state *t)
{
    if (t->pos >= t->argc) {
        test_syntax(t, NULL, "argument expected");
        return 0;
    }
    const char *a = t->argv[t->pos];
    if (strcmp(a, "!") == 0) {
        int invert = 0;
        while (!t->error && t->pos < t->argc && strcmp(t->argv[t->pos], "!") == 0) {
            test_advance(t, 1);
            invert = !invert;
        }
        int v = t->error ? 0 : test_term(t);
        return invert ? !v : v;
    }
    if (strcmp(a, "(") == 0) {
        if (++t->depth > NEST_MAX) {
            test_syntax(t, NULL, "expression nested too deeply");
            return 0;
        }
        test_advance(t, 1);
        int v = t->error ? 0 : test_expr(t);
        t->depth--;
        if (t->error)
            return 0;
        if (t->pos >= t->argc)
            test_syntax(t, NULL, "`)' expected");
        else if (strcmp(t->argv[t->pos], ")") != 0)
            test_syntax(t, t->argv[t->pos], "`)' expected");
        test_advance(t, 0);
        return v;
    }
    if (t->pos + 3 <= t->argc && test_is_binop(t->argv[t->pos + 1]))
        return test_binary(t);
    if (test_is_unop(a))
        return test_unary(t);
    t->pos++;
    return a[0] != '\0';
}

/* Conjunctions and disjunctions; every term is evaluated, as in bash. */
static int test_and(test_state *t)
{
    int v = test_term(t);
    while (!t->error && t->pos < t->argc && strcmp(t->argv[t->pos], "-a") == 0) {
        test_advance(t, 0);
        v = test_term(t) && v;
    }
    return v;
}

static int test_expr(test_state *t)
{
    int v = test_and(t);
    while (!t->error && t->pos < t->argc && strcmp(t->argv[t->pos], "-o") == 0) {
        test_advance(t, 0);
        v = test_and(t) || v;
    }
    return v;
}

/* The two-argument form: "! X" or a unary operator. */
static int test_two(test_state *t)
{
    const char *a = t->argv[t->pos];
    if (strcmp(a, "!") == 0) {
        t->pos += 2;
        return t->argv[t->pos - 1][0] == '\0';
    }
    if (test_is_unop(a))
        return test_unary(t);
    test_syntax(t, a, "unary operator expected");
    return 0;
}

/* The three-argument form, by POSIX's rules. */
static int test_three(test_state *t)
{
    char **a = t->argv + t->pos;
    if (test_is_binop(a[1]))
        return test_binary(t);
    if (strcmp(a[1], "-a") == 0 || strcmp(a[1], "-o") == 0) {
        t->pos += 3;
        return a[1][1] == 'a' ? a[0][0] && a[2][0] : a[0][0] || a[2][0];
    }
    if (strcmp(a[0], "!") == 0) {
        t->pos++;
        return !test_two(t);
    }
    if (strcmp(a[0], "(") == 0 && strcmp(a[2], ")") == 0) {
        t->pos += 3;
        return a[1][0] != '\0';
    }
    test_syntax(t, a[1], "binary operator expected");
    return 0;
}

static int test_main(sh_proc *p, int argc, char **argv)
{
    if (strcmp(argv[0], "[") == 0) {
        if (argc < 2 || strcmp(argv[argc - 1], "]") != 0) {
            sh_err(p, "missing `]'");
            return 2;
        }
        argc--;
    }
    test_state t = { p, argv, argc, 1, 0, 0 };
    int v;
    switch (argc - 1) {
    case 0: return 1;
    case 1: return argv[1][0] == '\0';
    case 2: v = test_two(&t); break;
    case 3: v = test_three(&t); break;
    case 4:
        if (strcmp(argv[1], "!") == 0) {
            t.pos++;
            v = !test_three(&t);
            break;
        }
        if (strcmp(argv[1], "(") == 0 && strcmp(argv[4], ")") == 0) {
            t.pos++;
            v = test_two(&t);
            t.pos = argc;
            break;
        }
        v = test_expr(&t);
        break;
    default: v = test_expr(&t); break;
    }
    if (!t.error && t.pos < argc)
        test_syntax(&t, argv[t.pos][0] == '-' ? argv[t.pos] : NULL,
                    argv[t.pos][0] == '-' ? "syntax error: unexpected" : "too many arguments");
    return t.error ? 2 : !v;
}

/* ---- expr ---- */

/* One expr evaluation: the arguments left, and the status of the first error.
 * Values are strings (owned by the caller) that may look like integers. */
typedef struct expr_state {
    sh_proc *p;
    char **args;
    int error; /* 0, or 2 after an error */
    int depth; /* nesting of parentheses and prefix keywords */
} expr_state;

/* Reports an error (status 2) once: the message, with one optional quoted
 * argument. */
static void expr_fail(expr_state *e, const char *msg, const char *arg)
{
    if (!e->error) {
        if (arg)
            sh_err(e->p, "%s '%s'", msg, arg);
        else
            sh_err(e->p, "%s", msg);
    }
    e->error = 2;
}

/* A new value: the first n bytes of s, or NULL after reporting running out
 * of memory. */
static char *expr_strn(expr_state *e, const char *s, size_t n)
{
    char *r = strndup(s, n);
    if (!r && !e->error) {
        sh_oom(e->p);
        e->error = 2;
    }
    return r;
}

static char *expr_str(expr_state *e, const char *s)
{
    return expr_strn(e, s, strlen(s));
}

static char *expr_int(expr_state *e, long long v)
{
    char tmp[32];
    snprintf(tmp, sizeof(tmp), "%lld", v);
    return expr_str(e, tmp);
}

/* Whether s is an optional '-' and one or more digits. */
static int looks_like_integer(const char *s)
{
    s += *s == '-';
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

/* Whether a value counts as false: empty, or an integer zero. */
static int expr_null(const char *s)
{
    if (!s || !*s)
        return 1;
    s += *s == '-';
    for (; *s; s++)
        if (*s != '0')
            return 0;
    return 1;
}

/* Takes the next argument when it is the given token. */
static int expr_next(expr_state *e, const char *tok)
{
    if (e->args[0] && strcmp(e->args[0], tok) == 0) {
        e->args++;
        return 1;
    }
    return 0;
}

/* Converts both operands to integers: 0, or -1 after the error. */
static int expr_arith(expr_state *e, const char *a, const char *b, long long *x, long long *y)
{
    if (!looks_like_integer(a) || !looks_like_integer(b)) {
        expr_fail(e, "non-integer argument", NULL);
        return -1;
    }
    errno = 0;
    *x = strtoll(a, NULL, 10);
    *y = strtoll(b, NULL, 10);
    if (errno) {
        expr_fail(e, "integer is too large", NULL);
        return -1;
    }
    return 0;
}

/* Compares two integers written in decimal (an optional '-' and digits) of
 * any length: negative, zero or positive. */
static int int_compare(const char *a, const char *b)
{
    int neg_a = *a == '-', neg_b = *b == '-';
    a += neg_a;
    b += neg_b;
    while (*a == '0')
        a++;
    while (*b == '0')
        b++;
    size_t la = strlen(a), lb = strlen(b);
    if (la == 0)
        neg_a = 0;
    if (lb == 0)
        neg_b = 0;
    if (neg_a != neg_b)
        return neg_a ? -1 : 1;
    int mag = la != lb ? (la < lb ? -1 : 1) : memcmp(a, b, la);
    mag = mag < 0 ? -1 : mag > 0;
    return neg_a ? -mag : mag;
}

static char *expr_or(expr_state *e, int evaluate);
static char *expr_unary(expr_state *e, int evaluate);
static char *expr_keyword(expr_state *e, int evaluate);

/* STRING : REGEX, anchored at the start: the first group's text when the
 * pattern has one, the length of the match otherwise. */
static char *expr_match(expr_state *e, const char *s, const char *pattern)
{
    regex_t re;
    int rc = regcomp(&re, pattern, 0);
    if (rc != 0) {
        char msg[256];
        regerror(rc, &re, msg, sizeof(msg));
        expr_fail(e, msg, NULL);
        return NULL;
    }
    regmatch_t m[2];
    char *r;
    int groups = re.re_nsub > 0;
    if (regexec(&re, s, 2, m, 0) == 0 && m[0].rm_so == 0) {
        if (!groups) {
            r = expr_int(e, (long long)m[0].rm_eo);
        } else if (m[1].rm_so < 0) {
            r = expr_str(e, "");
        } else {
            r = expr_strn(e, s + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so));
        }
    } else {
        r = groups ? expr_str(e, "") : expr_int(e, 0);
    }
    regfree(&re);
    return r;
}

static char *expr_primary(expr_state *e, int evaluate)
{
    if (!e->args[0]) {
        expr_fail(e, "syntax error: missing argument after", e->args[-1]);
        return NULL;
    }
    if (expr_next(e, "(")) {
        char *v = expr_or(e, evaluate);
        if (e->error) {
            free(v);
            return NULL;
        }
        if (!e->args[0]) {
            expr_fail(e, "syntax error: expecting ')' after", e->args[-1]);
        } else if (!expr_next(e, ")")) {
            expr_fail(e, "syntax error: expecting ')' instead of", e->args[0]);
        }
        if (e->error) {
            free(v);
            return NULL;
        }
        return v;
    }
    if (strcmp(e->args[0], ")") == 0) {
        expr_fail(e, "syntax error: unexpected ')'", NULL);
        return NULL;
    }
    return expr_str(e, *e->args++);
}

/* The prefix keywords (match, substr, index, length, "+ TOKEN") and
 * primaries. */
static char *expr_unary(expr_state *e, int evaluate)
{
    if (e->depth >= NEST_MAX) {
        expr_fail(e, "expression nested too deeply", NULL);
        return NULL;
    }
    e->depth++;
    char *r = expr_keyword(e, evaluate);
    e->depth--;
    return r;
}

static char *expr_keyword(expr_state *e, int evaluate)
{
    if (expr_next(e, "+")) {
        if (!e->args[0]) {
            expr_fail(e, "syntax error: missing argument after", e->args[-1]);
            return NULL;
        }
        return expr_str(e, *e->args++);
    }
    static const struct {
        const char *name;
        int nargs;
    } words[] = { { "length", 1 }, { "match", 2 }, { "index", 2 }, { "substr", 3 } };
    int kind = -1;
    for (int i = 0; i < 4 && kind < 0; i++)
        if (expr_next(e, words[i].name))
            kind = i;
    if (kind < 0)
        return expr_primary(e, evaluate);
    char *v[3] = { NULL, NULL, NULL }, *r = NULL;
    for (int i = 0; i < words[kind].nargs && !e->error; i++)
        v[i] = expr_unary(e, evaluate);
    if (e->error)
        goto done;
    if (kind == 0) {
        r = expr_int(e, (long long)strlen(v[0]));
    } else if (kind == 1) {
        r = evaluate ? expr_match(e, v[0], v[1]) : expr_str(e, v[0]);
    } else if (kind == 2) {
        size_t at = strcspn(v[0], v[1]);
        r = expr_int(e, v[0][at] ? (long long)at + 1 : 0);
    } else {
        size_t len = strlen(v[0]);
        long long pos = 0, n = 0;
        if (looks_like_integer(v[1]) && looks_like_integer(v[2])) {
            pos = strtoll(v[1], NULL, 10);
            n = strtoll(v[2], NULL, 10);
        }
        if (pos < 1 || n < 1 || (unsigned long long)pos > len) {
            r = expr_str(e, "");
        } else {
            size_t start = (size_t)pos - 1, count = len - start;
            if ((unsigned long long)n < count)
                count = (size_t)n;
            r = expr_strn(e, v[0] + start, count);
        }
    }
done:
    for (int i = 0; i < 3; i++)
        free(v[i]);
    return r;
}

/* STRING : REGEX, left-associative. */
static char *expr_colon(expr_state *e, int evaluate)
{
    char *l = expr_unary(e, evaluate);
    while (!e->error && expr_next(e, ":")) {
        char *r = expr_unary(e, evaluate);
        char *v = NULL;
        if (!e->error)
            v = evaluate ? expr_match(e, l, r) : expr_str(e, l);
        free(l);
        free(r);
        l = v;
    }
    if (e->error) {
        free(l);
        return NULL;
    }
    return l;
}

/* One level of left-associative arithmetic: level 0 is * / %, 1 is + -. */
static char *expr_arith_level(expr_state *e, int evaluate, int level)
{
    char *l = level == 0 ? expr_colon(e, evaluate) : expr_arith_level(e, evaluate, 0);
    for (;;) {
        if (e->error || !e->args[0])
            break;
        const char *op = e->args[0];
        int ok = level == 0 ? (strcmp(op, "*") == 0 || strcmp(op, "/") == 0 || strcmp(op, "%") == 0)
                            : (strcmp(op, "+") == 0 || strcmp(op, "-") == 0);
        if (!ok)
            break;
        e->args++;
        char *r = level == 0 ? expr_colon(e, evaluate) : expr_arith_level(e, evaluate, 0);
        char *v = NULL;
        long long x, y, z = 0;
        if (!e->error && !evaluate) {
            v = expr_str(e, l);
        } else if (!e->error && expr_arith(e, l, r, &x, &y) == 0) {
            int overflow = 0;
            if (op[0] == '+')
                overflow = __builtin_add_overflow(x, y, &z);
            else if (op[0] == '-')
                overflow = __builtin_sub_overflow(x, y, &z);
            else if (op[0] == '*')
                overflow = __builtin_mul_overflow(x, y, &z);
            else if (y == 0)
                expr_fail(e, "division by zero", NULL);
            else if (x == LLONG_MIN && y == -1)
                overflow = 1;
            else
                z = op[0] == '/' ? x / y : x % y;
            if (overflow)
                expr_fail(e, "integer is too large", NULL);
            if (!e->error)
                v = expr_int(e, z);
        }
        free(l);
        free(r);
        l = v;
    }
    if (e->error) {
        free(l);
        return NULL;
    }
    return l;
}

/* Comparisons: numeric when both sides are integers, by bytes otherwise. */
static char *expr_compare(expr_state *e, int evaluate)
{
    static const char *const ops[] = { "<", "<=", "=", "==", "!=", ">=", ">", NULL };
    char *l = expr_arith_level(e, evaluate, 1);
    for (;;) {
        if (e->error || !e->args[0])
            break;
        int op = -1;
        for (int i = 0; ops[i]; i++)
            if (strcmp(e->args[0], ops[i]) == 0)
                op = i;
        if (op < 0)
            break;
        e->args++;
        char *r = expr_arith_level(e, evaluate, 1);
        char *v = NULL;
        if (!e->error) {
            int c = looks_like_integer(l) && looks_like_integer(r) ? int_compare(l, r) : strcmp(l, r);
            int t = op == 0 ? c < 0 : op == 1 ? c <= 0 : op <= 3 ? c == 0 : op == 4 ? c != 0
                  : op == 5 ? c >= 0 : c > 0;
            v = expr_int(e, evaluate ? t : 0);
        }
        free(l);
        free(r);
        l = v;
    }
    if (e->error) {
        free(l);
        return NULL;
    }
    return l;
}

/* A & B: A when neither is null, else 0; B is not evaluated after a null A. */
static char *expr_and(expr_state *e, int evaluate)
{
    char *l = expr_compare(e, evaluate);
    while (!e->error && expr_next(e, "&")) {
        int lnull = expr_null(l);
        char *r = expr_compare(e, evaluate && !lnull);
        if (!e->error && (lnull || expr_null(r))) {
            free(l);
            l = expr_int(e, 0);
        }
        free(r);
    }
    if (e->error) {
        free(l);
        return NULL;
    }
    return l;
}

/* A | B: A unless it is null, then B unless it is null, then 0. */
static char *expr_or(expr_state *e, int evaluate)
{
    char *l = expr_and(e, evaluate);
    while (!e->error && expr_next(e, "|")) {
        int lnull = expr_null(l);
        char *r = expr_and(e, evaluate && lnull);
        if (!e->error && lnull) {
            free(l);
            if (expr_null(r)) {
                free(r);
                r = expr_int(e, 0);
            }
            l = r;
            r = NULL;
        }
        free(r);
    }
    if (e->error) {
        free(l);
        return NULL;
    }
    return l;
}

static int expr_main(sh_proc *p, int argc, char **argv)
{
    char **args = argv + 1;
    if (argc > 1 && strcmp(argv[1], "--") == 0)
        args++;
    if (!*args) {
        sh_err(p, "missing operand");
        return 2;
    }
    expr_state e = { p, args, 0, 0 };
    char *v = expr_or(&e, 1);
    if (!e.error && e.args[0])
        expr_fail(&e, "syntax error: unexpected argument", e.args[0]);
    if (e.error) {
        free(v);
        return e.error;
    }
    int r = expr_null(v);
    if (sh_outs(p, v) < 0 || sh_outc(p, '\n') < 0)
        r = SH_STATUS_PIPE;
    free(v);
    return r;
}

/* ---- xargs ---- */

/* How xargs splits its input and builds command lines. */
typedef struct xargs_opts {
    long max_args;       /* -n: 0 for no limit */
    long max_lines;      /* -L: 0 for no limit */
    long max_chars;      /* -s */
    const char *replace; /* -I */
    int delim;           /* -0 / -d: the item separator, or -1 for blanks and quotes */
    int trace, no_run_empty;
} xargs_opts;

/* The input being split into items. */
typedef struct xargs_input {
    const char *s;
    size_t len, pos;
} xargs_input;

/* Reports a quote left open at the end of a line or of the input. */
static int xargs_quote_error(sh_proc *p, char quote)
{
    sh_err(p, "unmatched %s quote; by default quotes are special to xargs unless you use "
              "the -0 option",
           quote == '"' ? "double" : "single");
    return -1;
}

/* Reads the next item into item (NUL-terminated): 1 for an item, 0 at the end
 * of the input, -1 after a quoting error, -2 when out of memory. *eol is set
 * when the item ended a line (for -L), a trailing blank continuing the line as
 * in GNU's xargs. */
static int xargs_item(sh_proc *p, const xargs_opts *o, xargs_input *in, sh_buf *item, int *eol)
{
    item->len = 0;
    *eol = 0;
    if (o->delim >= 0) {
        if (in->pos >= in->len)
            return 0;
        const char *start = in->s + in->pos;
        const char *end = memchr(start, o->delim, in->len - in->pos);
        size_t n = end ? (size_t)(end - start) : in->len - in->pos;
        in->pos += n + (end != NULL);
        *eol = 1;
        return sh_buf_add(item, start, n) < 0 || !sh_buf_cstr(item) ? -2 : 1;
    }
    int lines = o->replace != NULL;
    /* Skip the blanks (and with -I only the leading blanks and empty lines). */
    while (in->pos < in->len && (in->s[in->pos] == ' ' || in->s[in->pos] == '\t' ||
                                 in->s[in->pos] == '\n'))
        in->pos++;
    if (in->pos >= in->len)
        return 0;
    char quote = 0;
    while (in->pos < in->len) {
        char c = in->s[in->pos++];
        if (quote) {
            if (c == quote) {
                quote = 0;
            } else if (c == '\n') {
                return xargs_quote_error(p, quote);
            } else if (sh_buf_addc(item, c) < 0) {
                return -2;
            }
            continue;
        }
        if (c == '\n') {
            *eol = 1;
            break;
        }
        if ((c == ' ' || c == '\t') && !lines) {
            /* A blank ends the item; blanks up to the newline make the line
             * continue on the next one. */
            size_t k = in->pos;
            while (k < in->len && (in->s[k] == ' ' || in->s[k] == '\t'))
                k++;
            if (k < in->len && in->s[k] == '\n') {
                in->pos = k + 1;
                *eol = 0;
            }
            break;
        }
        if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '\\' && in->pos < in->len) {
            if (sh_buf_addc(item, in->s[in->pos++]) < 0)
                return -2;
        } else if (sh_buf_addc(item, c) < 0) {
            return -2;
        }
    }
    if (quote)
        return xargs_quote_error(p, quote);
    if (in->pos >= in->len)
        *eol = 1;
    return sh_buf_cstr(item) ? 1 : -2;
}

/* Replaces every occurrence of rep in arg with item: a new string or NULL. */
static char *replace_all(const char *arg, const char *rep, const char *item)
{
    sh_buf b = { 0 };
    size_t rl = strlen(rep);
    const char *hit;
    int failed = 0;
    while (rl && (hit = strstr(arg, rep))) {
        failed |= sh_buf_add(&b, arg, (size_t)(hit - arg)) | sh_buf_adds(&b, item);
        arg = hit + rl;
    }
    failed |= sh_buf_adds(&b, arg);
    char *r = failed ? NULL : sh_buf_take(&b, NULL);
    sh_buf_free(&b);
    return r;
}

/* Runs one command line and folds its status into GNU's: 0 when all ran
 * well, 123 when one failed; -1 means stop now with *stop as the status. */
static int xargs_exec(sh_proc *p, const xargs_opts *o, char **argv, int *stop)
{
    if (o->trace) {
        sh_buf b = { 0 };
        int failed = 0;
        for (int i = 0; argv[i]; i++)
            failed |= sh_buf_adds(&b, argv[i]) | sh_buf_addc(&b, argv[i + 1] ? ' ' : '\n');
        if (failed) {
            sh_buf_free(&b);
            *stop = sh_oom(p);
            return -1;
        }
        sh_write(p->err, b.data, b.len);
        sh_buf_free(&b);
    }
    int st = sh_run(p, argv, NULL, "", 0);
    if (p->out->broken) {
        *stop = SH_STATUS_PIPE;
        return -1;
    }
    if (st == 255) {
        sh_err(p, "%s: exited with status 255; aborting", argv[0]);
        *stop = 124;
        return -1;
    }
    if (st == 126 || st == 127) {
        *stop = st;
        return -1;
    }
    return st != 0 ? 123 : 0;
}

/* The byte an -d argument names: one character, or an escape such as \n;
 * -1 when it is neither. */
static int xargs_delimiter(const char *d)
{
    if (d[0] && d[1] == '\0')
        return (unsigned char)d[0];
    if (d[0] != '\\' || !d[1] || d[2])
        return -1;
    switch (d[1]) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case 'a': return '\a';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'v': return '\v';
    case '0': return '\0';
    case '\\': return '\\';
    default: return -1;
    }
}

/* Parses xargs's options into o: the index of the command, or -1 after an
 * error. *input is set to -a's file. */
static int xargs_options(sh_proc *p, int argc, char **argv, xargs_opts *o, const char **input)
{
    static const sh_longopt longs[] = {
        { "null", 0, '0' },       { "delimiter", 1, 'd' },        { "replace", 1, 'I' },
        { "max-args", 1, 'n' },   { "max-lines", 1, 'L' },        { "max-chars", 1, 's' },
        { "verbose", 0, 't' },    { "no-run-if-empty", 0, 'r' },  { "max-procs", 1, 'P' },
        { "arg-file", 1, 'a' },   { "exit", 0, 'x' },             { "open-tty", 0, 'o' },
        { NULL, 0, 0 },
    };
    int c;
    sh_opt g = { .ind = 1 };
    while ((c = sh_getopt(p, &g, argc, argv, "+0d:I:n:L:s:trP:a:xo", longs)) != -1) {
        long v;
        switch (c) {
        case '0': o->delim = '\0'; break;
        case 'd':
            if ((o->delim = xargs_delimiter(g.arg)) < 0) {
                sh_err(p, "invalid input delimiter specification %s: the delimiter must be "
                          "either a single character or an escape sequence starting with \\.",
                       g.arg);
                return -1;
            }
            break;
        case 'I': o->replace = g.arg; o->max_lines = 1; o->max_args = 0; break;
        case 'n':
        case 'L':
        case 's':
        case 'P':
            if (parse_long(g.arg, c == 'P' ? 0 : 1, LONG_MAX, &v) < 0) {
                sh_err(p, "invalid number \"%s\" for -%c option", g.arg, c);
                return -1;
            }
            if (c == 'n')
                o->max_args = v, o->max_lines = 0;
            else if (c == 'L')
                o->max_lines = v, o->max_args = 0;
            else if (c == 's')
                o->max_chars = v;
            break;
        case 't': o->trace = 1; break;
        case 'r': o->no_run_empty = 1; break;
        case 'a': *input = g.arg; break;
        case 'x':
        case 'o': break;
        default: return -1;
        }
    }
    return g.ind;
}

/* Splits the whole input into items (owned strings, with a flag for the
 * items that end a line): 0, 1 after a quoting error (the items before it
 * are kept and run, as GNU's xargs does), or -1 when out of memory. */
static int xargs_split(sh_proc *p, const xargs_opts *o, xargs_input *in, char ***items,
                       char **eols, size_t *count)
{
    sh_buf item = { 0 };
    size_t n = 0, cap = 0;
    int got, eol, r = 0;
    while ((got = xargs_item(p, o, in, &item, &eol)) == 1) {
        if (n == cap) {
            size_t c = cap ? cap * 2 : 64;
            char **gi = realloc(*items, c * sizeof(char *));
            if (gi)
                *items = gi;
            char *ge = gi ? realloc(*eols, c) : NULL;
            if (!ge) {
                got = -2;
                break;
            }
            *eols = ge;
            cap = c;
        }
        (*items)[n] = sh_buf_take(&item, NULL);
        if (!(*items)[n]) {
            got = -2;
            break;
        }
        (*eols)[n++] = (char)eol;
    }
    if (got == -1)
        r = 1;
    else if (got == -2)
        r = -1;
    sh_buf_free(&item);
    *count = n;
    return r;
}

/* Runs cmd followed by items[0..n): as xargs_exec. */
static int xargs_batch(sh_proc *p, const xargs_opts *o, char **cmd, int ncmd, char **items,
                       size_t n, int *stop)
{
    char **full = malloc(((size_t)ncmd + n + 1) * sizeof(char *));
    if (!full) {
        *stop = sh_oom(p);
        return -1;
    }
    memcpy(full, cmd, (size_t)ncmd * sizeof(char *));
    if (n)
        memcpy(full + ncmd, items, n * sizeof(char *));
    full[(size_t)ncmd + n] = NULL;
    int r = xargs_exec(p, o, full, stop);
    free(full);
    return r;
}

/* Runs cmd once per item with every -I string in its arguments replaced. */
static int xargs_replace(sh_proc *p, const xargs_opts *o, char **cmd, int ncmd, const char *item,
                         int *stop)
{
    char **full = calloc((size_t)ncmd + 1, sizeof(char *));
    int r = -1;
    if (!full) {
        *stop = sh_oom(p);
        return -1;
    }
    int i;
    for (i = 0; i < ncmd; i++) {
        full[i] = i == 0 ? strdup(cmd[0]) : replace_all(cmd[i], o->replace, item);
        if (!full[i])
            break;
    }
    if (i < ncmd)
        *stop = sh_oom(p);
    else
        r = xargs_exec(p, o, full, stop);
    for (i = 0; i < ncmd; i++)
        free(full[i]);
    free(full);
    return r;
}

static int xargs_main(sh_proc *p, int argc, char **argv)
{
    xargs_opts o = { 0, 0, 131072, NULL, -1, 0, 0 };
    const char *input = NULL;
    int first = xargs_options(p, argc, argv, &o, &input);
    if (first < 0)
        return 1;
    static char *const default_cmd[] = { "echo", NULL };
    char **cmd = first < argc ? argv + first : (char **)default_cmd;
    int ncmd = first < argc ? argc - first : 1;
    size_t cmd_chars = 0;
    for (int i = 0; i < ncmd; i++)
        cmd_chars += strlen(cmd[i]) + 1;

    char *file_data = NULL;
    size_t file_len = 0;
    if (input && sh_load(p, input, &file_data, &file_len) < 0)
        return 1;
    xargs_input in = { file_data ? file_data : p->in, file_data ? file_len : p->in_len, 0 };
    char **items = NULL, *eols = NULL;
    size_t count = 0;
    int split = xargs_split(p, &o, &in, &items, &eols, &count);
    int status = 0, stop = 0, r = 0;
    if (split < 0)
        stop = sh_oom(p);
    if (o.replace) {
        for (size_t i = 0; i < count && !stop && r >= 0; i++) {
            r = xargs_replace(p, &o, cmd, ncmd, items[i], &stop);
            status |= r > 0 ? r : 0;
        }
    } else if (count == 0 && !stop && !o.no_run_empty && split == 0) {
        r = xargs_batch(p, &o, cmd, ncmd, NULL, 0, &stop);
        status |= r > 0 ? r : 0;
    }
    /* Items are added to a command line until one of the limits is hit. */
    for (size_t i = 0; !o.replace && i < count && !stop && r >= 0;) {
        size_t start = i, chars = cmd_chars;
        long lines = 0;
        while (i < count) {
            size_t len = strlen(items[i]) + 1;
            if (i > start && chars + len > (size_t)o.max_chars)
                break;
            chars += len;
            lines += eols[i++];
            if ((o.max_args && (long)(i - start) >= o.max_args) ||
                (o.max_lines && lines >= o.max_lines))
                break;
        }
        r = xargs_batch(p, &o, cmd, ncmd, items + start, i - start, &stop);
        status |= r > 0 ? r : 0;
    }
    for (size_t i = 0; i < count; i++)
        free(items[i]);
    free(items);
    free(eols);
    free(file_data);
    if (stop)
        return stop;
    return split > 0 ? 1 : status;
}

/* ---- base64 ---- */

static const char b64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Encodes data, a newline every wrap characters (none when 0) and at the
 * end. */
static int b64_encode(sh_proc *p, const unsigned char *d, size_t n, long wrap)
{
    sh_buf b = { 0 };
    long col = 0;
    int failed = 0;
    for (size_t i = 0; i < n && !failed; i += 3) {
        unsigned v = (unsigned)d[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)d[i + 1] << 8;
        if (i + 2 < n)
            v |= d[i + 2];
        char q[4] = { b64_alphabet[v >> 18], b64_alphabet[(v >> 12) & 63],
                      i + 1 < n ? b64_alphabet[(v >> 6) & 63] : '=',
                      i + 2 < n ? b64_alphabet[v & 63] : '=' };
        for (int k = 0; k < 4; k++) {
            failed |= sh_buf_addc(&b, q[k]);
            if (wrap && ++col == wrap) {
                failed |= sh_buf_addc(&b, '\n');
                col = 0;
            }
        }
        /* Flush now and then so that huge inputs need no second copy. */
        if (b.len >= 65536) {
            if (sh_out(p, b.data, b.len) < 0) {
                sh_buf_free(&b);
                return SH_STATUS_PIPE;
            }
            b.len = 0;
        }
    }
    if (wrap && col)
        failed |= sh_buf_addc(&b, '\n');
    int r = failed ? sh_oom(p) : sh_out(p, b.data, b.len) < 0 ? SH_STATUS_PIPE : 0;
    sh_buf_free(&b);
    return r;
}

/* Decodes data (newlines ignored, other bytes outside the alphabet too with
 * ignore_garbage). What decodes before an error is written, as GNU's does. */
static int b64_decode(sh_proc *p, const char *d, size_t n, int ignore_garbage)
{
    sh_buf b = { 0 };
    unsigned acc = 0;
    int bits = 0, quad = 0, pads = 0, bad = 0, failed = 0;
    for (size_t i = 0; i < n && !bad; i++) {
        char c = d[i];
        const char *at = c ? strchr(b64_alphabet, c) : NULL;
        if (c == '\n')
            continue;
        if (c == '=') {
            /* Padding ends a quad after two or three characters. */
            if (quad < 2 || (pads == 0 && quad == 2 && (i + 1 >= n || d[i + 1] != '=')))
                bad = 1;
            pads++;
            if (++quad == 4) {
                quad = pads = bits = 0;
                acc = 0;
            }
            continue;
        }
        if (!at) {
            if (!ignore_garbage)
                bad = 1;
            continue;
        }
        if (pads) {
            bad = 1;
            continue;
        }
        acc = (acc << 6) | (unsigned)(at - b64_alphabet);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            failed |= sh_buf_addc(&b, (char)((acc >> bits) & 0xff));
        }
        if (++quad == 4) {
            quad = bits = 0;
            acc = 0;
        }
    }
    if (quad != 0)
        bad = 1;
    int r = failed ? sh_oom(p) : sh_out(p, b.data, b.len) < 0 ? SH_STATUS_PIPE : 0;
    if (r == 0 && bad) {
        sh_err(p, "invalid input");
        r = 1;
    }
    sh_buf_free(&b);
    return r;
}

static int base64_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "decode", 0, 'd' }, { "ignore-garbage", 0, 'i' }, { "wrap", 1, 'w' }, { NULL, 0, 0 },
    };
    int decode = 0, ignore = 0, c;
    long wrap = 76;
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "diw:", longs)) != -1) {
        if (c == '?')
            return 1;
        if (c == 'd')
            decode = 1;
        else if (c == 'i')
            ignore = 1;
        else if (parse_long(o.arg, 0, LONG_MAX, &wrap) < 0) {
            sh_err(p, "invalid wrap size: '%s'", o.arg);
            return 1;
        }
    }
    if (argc - o.ind > 1) {
        sh_err(p, "extra operand '%s'", argv[o.ind + 1]);
        return 1;
    }
    char *data;
    size_t len;
    if (sh_load(p, o.ind < argc ? argv[o.ind] : "-", &data, &len) < 0)
        return 1;
    int r = decode ? b64_decode(p, data, len, ignore)
                   : b64_encode(p, (const unsigned char *)data, len, wrap);
    free(data);
    return r;
}

/* ---- md5sum, sha1sum, sha256sum ---- */

/* A Merkle-Damgard hash over 64-byte blocks: its state, block function and
 * the byte order of its length field and digest. */
typedef struct hash_algo {
    const char *name;   /* "SHA256", for messages */
    size_t digest_len;  /* bytes */
    int big_endian;
    void (*init)(uint32_t *state);
    void (*block)(uint32_t *state, const unsigned char *block);
} hash_algo;

static uint32_t rol32(uint32_t x, int n)
{
    return (x << n) | (x >> (32 - n));
}

static uint32_t ror32(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

static uint32_t load_be32(const unsigned char *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static uint32_t load_le32(const unsigned char *b)
{
    return (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

static void md5_init(uint32_t *s)
{
    s[0] = 0x67452301;
    s[1] = 0xefcdab89;
    s[2] = 0x98badcfe;
    s[3] = 0x10325476;
}

static void md5_block(uint32_t *s, const unsigned char *blk)
{
    static const uint32_t k[64] = {
        0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
        0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
        0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
        0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
        0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
        0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
        0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
        0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
        0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
        0xeb86d391,
    };
    static const int r[16] = { 7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21 };
    uint32_t m[16], a = s[0], b = s[1], c = s[2], d = s[3];
    for (int i = 0; i < 16; i++)
        m[i] = load_le32(blk + 4 * i);
    for (int i = 0; i < 64; i++) {
        uint32_t f;
        int g;
        if (i < 16)
            f = (b & c) | (~b & d), g = i;
        else if (i < 32)
            f = (d & b) | (~d & c), g = (5 * i + 1) % 16;
        else if (i < 48)
            f = b ^ c ^ d, g = (3 * i + 5) % 16;
        else
            f = c ^ (b | ~d), g = (7 * i) % 16;
        uint32_t t = d;
        d = c;
        c = b;
        b = b + rol32(a + f + k[i] + m[g], r[(i / 16) * 4 + i % 4]);
        a = t;
    }
    s[0] += a;
    s[1] += b;
    s[2] += c;
    s[3] += d;
}

static void sha1_init(uint32_t *s)
{
    md5_init(s);
    s[4] = 0xc3d2e1f0;
}

static void sha1_block(uint32_t *s, const unsigned char *blk)
{
    uint32_t w[80], a = s[0], b = s[1], c = s[2], d = s[3], e = s[4];
    for (int i = 0; i < 16; i++)
        w[i] = load_be32(blk + 4 * i);
    for (int i = 16; i < 80; i++)
        w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20)
            f = (b & c) | (~b & d), k = 0x5a827999;
        else if (i < 40)
            f = b ^ c ^ d, k = 0x6ed9eba1;
        else if (i < 60)
            f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdc;
        else
            f = b ^ c ^ d, k = 0xca62c1d6;
        uint32_t t = rol32(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = rol32(b, 30);
        b = a;
        a = t;
    }
    s[0] += a;
    s[1] += b;
    s[2] += c;
    s[3] += d;
    s[4] += e;
}

static void sha256_init(uint32_t *s)
{
    static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
    memcpy(s, iv, sizeof(iv));
}

static void sha256_block(uint32_t *s, const unsigned char *blk)
{
    static const uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    };
    uint32_t w[64], v[8];
    for (int i = 0; i < 16; i++)
        w[i] = load_be32(blk + 4 * i);
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    memcpy(v, s, sizeof(v));
    for (int i = 0; i < 64; i++) {
        uint32_t s1 = ror32(v[4], 6) ^ ror32(v[4], 11) ^ ror32(v[4], 25);
        uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
        uint32_t t1 = v[7] + s1 + ch + k[i] + w[i];
        uint32_t s0 = ror32(v[0], 2) ^ ror32(v[0], 13) ^ ror32(v[0], 22);
        uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
        memmove(v + 1, v, 7 * sizeof(uint32_t));
        v[4] += t1;
        v[0] = t1 + s0 + maj;
    }
    for (int i = 0; i < 8; i++)
        s[i] += v[i];
}

static const hash_algo hash_md5 = { "MD5", 16, 0, md5_init, md5_block };
static const hash_algo hash_sha1 = { "SHA1", 20, 1, sha1_init, sha1_block };
static const hash_algo hash_sha256 = { "SHA256", 32, 1, sha256_init, sha256_block };

/* Hashes n bytes into hex (2 * digest_len characters and a NUL). */
static void hash_hex(const hash_algo *h, const unsigned char *d, size_t n, char *hex)
{
    uint32_t s[8];
    unsigned char tail[128] = { 0 };
    h->init(s);
    size_t full = n - n % 64;
    for (size_t i = 0; i < full; i += 64)
        h->block(s, d + i);
    size_t rest = n - full, tail_len = rest + 9 <= 64 ? 64 : 128;
    if (rest)
        memcpy(tail, d + full, rest);
    tail[rest] = 0x80;
    uint64_t bits = (uint64_t)n * 8;
    for (int k = 0; k < 8; k++)
        tail[h->big_endian ? tail_len - 1 - (size_t)k : tail_len - 8 + (size_t)k] =
            (unsigned char)(bits >> (8 * k));
    h->block(s, tail);
    if (tail_len == 128)
        h->block(s, tail + 64);
    for (size_t i = 0; i < h->digest_len; i++) {
        uint32_t word = s[i / 4];
        int shift = h->big_endian ? 24 - 8 * (int)(i % 4) : 8 * (int)(i % 4);
        snprintf(hex + 2 * i, 3, "%02x", (word >> shift) & 0xff);
    }
}

/* Hashes a file ("-" for standard input) into hex: 0, or -1 after the error. */
static int hash_file(sh_proc *p, const hash_algo *h, const char *path, char *hex)
{
    char *data;
    size_t len;
    if (sh_load(p, path, &data, &len) < 0)
        return -1;
    hash_hex(h, (const unsigned char *)data, len, hex);
    free(data);
    return 0;
}

/* Options of the checksum commands' check mode. */
typedef struct hash_check_opts {
    int quiet, status, warn, strict, ignore_missing;
} hash_check_opts;

/* Parses one line of a checksum list ("HEX  NAME" or "HEX *NAME", a leading
 * backslash meaning an escaped name) into a new name: 0, or -1 when the line
 * is not in that shape. */
static int hash_parse_line(const hash_algo *h, char *line, char **hex, char **name)
{
    int escaped = line[0] == '\\';
    char *c = line + escaped;
    size_t hl = 2 * h->digest_len;
    for (size_t i = 0; i < hl; i++)
        if (!isxdigit((unsigned char)c[i]))
            return -1;
    if (c[hl] != ' ' || (c[hl + 1] != ' ' && c[hl + 1] != '*') || c[hl + 2] == '\0')
        return -1;
    c[hl] = '\0';
    *hex = c;
    char *n = c + hl + 2, *w = n;
    for (char *r = n; *r; r++) {
        if (escaped && *r == '\\' && (r[1] == '\\' || r[1] == 'n')) {
            *w++ = r[1] == 'n' ? '\n' : '\\';
            r++;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
    *name = n;
    return 0;
}

/* Checks every line of a checksum list: 0 when all matched. */
static int hash_check(sh_proc *p, const hash_algo *h, const char *list, const hash_check_opts *o)
{
    char *data;
    size_t len;
    if (sh_load(p, list, &data, &len) < 0)
        return 1;
    const char *shown = strcmp(list, "-") == 0 ? "standard input" : list;
    long bad_lines = 0, failed = 0, unreadable = 0, good = 0, verified = 0, lineno = 0;
    char hex[65];
    int r = 0;
    for (char *line = data; line < data + len && r == 0;) {
        char *nl = memchr(line, '\n', (size_t)(data + len - line));
        char *next = nl ? nl + 1 : data + len;
        if (nl)
            *nl = '\0';
        if (nl && nl > line && nl[-1] == '\r')
            nl[-1] = '\0';
        lineno++;
        char *want, *name;
        if (strlen(line) != (size_t)((nl ? nl : data + len) - line) ||
            hash_parse_line(h, line, &want, &name) < 0) {
            bad_lines++;
            if (o->warn)
                sh_err(p, "%s: %ld: improperly formatted %s checksum line", shown, lineno,
                       h->name);
            line = next;
            continue;
        }
        good++;
        const char *verdict;
        struct stat st;
        if (o->ignore_missing && strcmp(name, "-") != 0 && sh_stat(p, name, &st, 1) < 0 &&
            errno == ENOENT) {
            line = next;
            continue;
        }
        verified++;
        if (hash_file(p, h, name, hex) < 0) {
            unreadable++;
            verdict = "FAILED open or read";
        } else if (strncasecmp(hex, want, 2 * h->digest_len) != 0) {
            failed++;
            verdict = "FAILED";
        } else {
            verdict = o->quiet ? NULL : "OK";
        }
        if (verdict && !o->status && sh_printf(p, "%s: %s\n", name, verdict) < 0)
            r = SH_STATUS_PIPE;
        line = next;
    }
    free(data);
    if (r)
        return r;
    if (good == 0) {
        sh_err(p, "%s: no properly formatted checksum lines found", shown);
        return 1;
    }
    if (verified == 0) {
        sh_err(p, "%s: no file was verified", shown);
        return 1;
    }
    if (!o->status) {
        if (bad_lines)
            sh_err(p, "WARNING: %ld line%s improperly formatted", bad_lines,
                   bad_lines == 1 ? " is" : "s are");
        if (unreadable)
            sh_err(p, "WARNING: %ld listed file%s could not be read", unreadable,
                   unreadable == 1 ? "" : "s");
        if (failed)
            sh_err(p, "WARNING: %ld computed checksum%s did NOT match", failed,
                   failed == 1 ? "" : "s");
    }
    return failed || unreadable || (o->strict && bad_lines) ? 1 : 0;
}

/* md5sum, sha1sum and sha256sum: print or check checksums. */
static int hash_main(sh_proc *p, int argc, char **argv, const hash_algo *h)
{
    static const sh_longopt longs[] = {
        { "check", 0, 'c' },  { "binary", 0, 'b' }, { "text", 0, 't' },
        { "quiet", 0, 'q' },  { "status", 0, 's' }, { "warn", 0, 'w' },
        { "strict", 0, 'S' }, { "tag", 0, 'T' },    { "ignore-missing", 0, 'i' },
        { "zero", 0, 'z' },   { NULL, 0, 0 },
    };
    hash_check_opts co = { 0 };
    int check = 0, binary = 0, tag = 0, zero = 0, c;
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "cbtwz", longs)) != -1) {
        switch (c) {
        case 'c': check = 1; break;
        case 'b': binary = 1; break;
        case 't': binary = 0; break;
        case 'q': co.quiet = 1; break;
        case 's': co.status = 1; break;
        case 'w': co.warn = 1; break;
        case 'S': co.strict = 1; break;
        case 'i': co.ignore_missing = 1; break;
        case 'T': tag = 1; break;
        case 'z': zero = 1; break;
        default: return 1;
        }
    }
    if (check && tag) {
        sh_err(p, "the --tag option is meaningless when verifying checksums");
        return 1;
    }
    static char *const stdin_only[] = { "-", NULL };
    char *const *files = o.ind < argc ? argv + o.ind : stdin_only;
    int status = 0;
    for (; *files; files++) {
        if (check) {
            int r = hash_check(p, h, *files, &co);
            if (r == SH_STATUS_PIPE)
                return r;
            status |= r;
            continue;
        }
        char hex[65];
        if (hash_file(p, h, *files, hex) < 0) {
            status = 1;
            continue;
        }
        /* GNU escapes names with a backslash or newline and marks the line. */
        const char *name = *files;
        int escape = !zero && !tag && strpbrk(name, "\\\n") != NULL;
        sh_buf b = { 0 };
        int failed = 0;
        if (tag)
            failed |= sh_buf_addf(&b, "%s (%s) = %s", h->name, name, hex);
        else {
            failed |= sh_buf_addf(&b, "%s%s %c", escape ? "\\" : "", hex, binary ? '*' : ' ');
            for (const char *n = name; *n; n++)
                failed |= escape && *n == '\\'   ? sh_buf_adds(&b, "\\\\")
                          : escape && *n == '\n' ? sh_buf_adds(&b, "\\n")
                                                 : sh_buf_addc(&b, *n);
        }
        failed |= sh_buf_addc(&b, zero ? '\0' : '\n');
        int r = failed ? sh_oom(p) : sh_out(p, b.data, b.len) < 0 ? SH_STATUS_PIPE : 0;
        sh_buf_free(&b);
        if (r)
            return r;
    }
    return status;
}

static int md5sum_main(sh_proc *p, int argc, char **argv)
{
    return hash_main(p, argc, argv, &hash_md5);
}

static int sha1sum_main(sh_proc *p, int argc, char **argv)
{
    return hash_main(p, argc, argv, &hash_sha1);
}

static int sha256sum_main(sh_proc *p, int argc, char **argv)
{
    return hash_main(p, argc, argv, &hash_sha256);
}

/* ---- date ---- */

static int days_in_month(long long y, int m)
{
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return days[m - 1] + (m == 2 && leap);
}

/* A time being parsed by date -d: absolute parts as given, and relative
 * amounts to add. */
typedef struct date_spec {
    int have_date, have_time, have_zone, have_epoch;
    int out_of_range; /* a relative amount too large to compute with */
    long long year, month, day, hour, minute, second, epoch;
    long nsec;
    long long zone; /* seconds east of UTC */
    long long rel_month, rel_day, rel_sec;
    long long *last_rel; /* the amount the last relative item added to, for "ago" */
    long long last_amount;
} date_spec;

/* Reads digits at *s into *v (at most max of them): how many were read. */
static int read_digits(const char **s, long long *v, int max)
{
    int n = 0;
    *v = 0;
    while (isdigit((unsigned char)**s) && n < max) {
        *v = *v * 10 + (**s - '0');
        (*s)++;
        n++;
    }
    return n;
}

/* Reads a fraction of a second (".123"): nanoseconds. */
static long read_fraction(const char **s)
{
    long ns = 0;
    int digits = 0;
    if ((**s == '.' || **s == ',') && isdigit((unsigned char)(*s)[1])) {
        (*s)++;
        for (; isdigit((unsigned char)**s); (*s)++, digits++)
            if (digits < 9)
                ns = ns * 10 + (**s - '0');
        for (; digits < 9; digits++)
            ns *= 10;
    }
    return ns;
}

/* Reads a zone offset "+HH", "+HHMM" or "+HH:MM" into d->zone: 0, or -1. */
static int read_zone(const char **s, date_spec *d)
{
    const char *c = *s;
    int sign = *c == '-' ? -1 : 1;
    long long h, m = 0;
    c++;
    int n = read_digits(&c, &h, 4);
    if (n == 4) {
        m = h % 100;
        h /= 100;
    } else if (n == 0 || n == 3) {
        return -1;
    } else if (*c == ':') {
        c++;
        if (read_digits(&c, &m, 2) != 2)
            return -1;
    }
    if (h > 24 || m > 59)
        return -1;
    d->zone = sign * (h * 3600 + m * 60);
    d->have_zone = 1;
    *s = c;
    return 0;
}

/* The unit of a relative item: the amount field and its multiplier. */
static long long *date_unit(date_spec *d, const char *w, size_t n, long long *mult)
{
    static const struct {
        const char *name;
        int field; /* 0 months, 1 days, 2 seconds */
        long long mult;
    } units[] = {
        { "year", 0, 12 }, { "month", 0, 1 },   { "fortnight", 1, 14 }, { "week", 1, 7 },
        { "day", 1, 1 },   { "hour", 2, 3600 }, { "minute", 2, 60 },    { "min", 2, 60 },
        { "second", 2, 1 }, { "sec", 2, 1 },
    };
    if (n > 1 && w[n - 1] == 's')
        n--;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strlen(units[i].name) == n && strncasecmp(units[i].name, w, n) == 0) {
            *mult = units[i].mult;
            return units[i].field == 0 ? &d->rel_month : units[i].field == 1 ? &d->rel_day
                                                                             : &d->rel_sec;
        }
    }
    return NULL;
}

/* Adds amount units to the relative part. */
static void date_add_rel(date_spec *d, long long *field, long long amount, long long mult)
{
    if (amount > 1000000000 || amount < -1000000000 || *field > 100000000000LL ||
        *field < -100000000000LL) {
        d->out_of_range = 1;
        return;
    }
    d->last_amount = amount * mult;
    d->last_rel = field;
    *field += d->last_amount;
}

/* The month (1-12) a name or its three-letter abbreviation means, or 0. */
static int month_number(const char *w, size_t n)
{
    static const char *const names[] = { "january", "february", "march",     "april",
                                         "may",     "june",     "july",      "august",
                                         "september", "october", "november", "december" };
    for (int i = 0; i < 12; i++)
        if ((n == 3 || (n == 4 && i == 8) || n == strlen(names[i])) &&
            strncasecmp(names[i], w, n) == 0)
            return i + 1;
    return 0;
}

/* Parses a time "HH:MM[:SS[.frac]]" at *s. */
static int date_read_time(const char **s, date_spec *d)
{
    const char *c = *s;
    long long h, m, sec = 0;
    if (read_digits(&c, &h, 2) == 0 || *c != ':')
        return -1;
    c++;
    if (read_digits(&c, &m, 2) != 2)
        return -1;
    if (*c == ':') {
        c++;
        if (read_digits(&c, &sec, 2) != 2)
            return -1;
        d->nsec = read_fraction(&c);
    }
    if (h > 24 || m > 59 || sec > 60 || d->have_time)
        return -1;
    d->hour = h, d->minute = m, d->second = sec;
    d->have_time = 1;
    /* A zone may follow at once: "12:00Z", "12:00+02:00". */
    if ((*c == '+' || *c == '-') && isdigit((unsigned char)c[1]) && read_zone(&c, d) < 0)
        return -1;
    *s = c;
    return 0;
}

/* Parses the words of a date string GNU-style (a subset: ISO dates and times,
 * "@SECONDS", month names, zones, relative items, now/today/yesterday/
 * tomorrow): 0, or -1 when it is not understood. */
static int date_parse(const char *s, date_spec *d)
{
    while (*s) {
        if (isspace((unsigned char)*s) || *s == ',') {
            s++;
            continue;
        }
        if (*s == '@') {
            s++;
            int neg = *s == '-';
            s += *s == '-' || *s == '+';
            long long v;
            if (d->have_epoch || !read_digits(&s, &v, 18))
                return -1;
            long ns = read_fraction(&s);
            d->epoch = neg ? -v : v;
            d->nsec = ns;
            if (neg && ns) {
                d->epoch--;
                d->nsec = 1000000000L - ns;
            }
            d->have_epoch = 1;
            continue;
        }
        if (isdigit((unsigned char)*s)) {
            const char *start = s;
            long long v;
            int n = read_digits(&s, &v, 18);
            if (*s == '-' && isdigit((unsigned char)s[1])) {
                long long m, day;
                s++;
                if (d->have_date || !read_digits(&s, &m, 2) || *s++ != '-' ||
                    !read_digits(&s, &day, 2))
                    return -1;
                d->year = v, d->month = m, d->day = day;
                d->have_date = 1;
                if (*s == 'T' && isdigit((unsigned char)s[1])) {
                    s++;
                    if (date_read_time(&s, d) < 0)
                        return -1;
                }
                continue;
            }
            if (*s == ':') {
                s = start;
                if (date_read_time(&s, d) < 0)
                    return -1;
                continue;
            }
            if (n == 8 && !d->have_date && !isalpha((unsigned char)*s)) {
                d->year = v / 10000, d->month = v / 100 % 100, d->day = v % 100;
                d->have_date = 1;
                continue;
            }
            /* A number: a relative amount, a day of a month, or a year. */
            const char *w = s;
            while (*w == ' ')
                w++;
            const char *we = w;
            while (isalpha((unsigned char)*we))
                we++;
            long long mult;
            long long *field = date_unit(d, w, (size_t)(we - w), &mult);
            if (field) {
                date_add_rel(d, field, v, mult);
                s = we;
                continue;
            }
            int mon = month_number(w, (size_t)(we - w));
            if (mon && !d->have_date && n <= 2) {
                /* "2 Jan [2024]" */
                d->day = v, d->month = mon, d->have_date = 1;
                d->year = -1;
                s = we;
                continue;
            }
            if (d->have_date && d->year == -1 && n == 4) {
                d->year = v;
                continue;
            }
            return -1;
        }
        if ((*s == '+' || *s == '-') && isdigit((unsigned char)s[1])) {
            /* After a time, a signed number is its zone, as in GNU's date. */
            if (d->have_time && !d->have_zone) {
                if (read_zone(&s, d) < 0)
                    return -1;
                continue;
            }
            int neg = *s == '-';
            s++;
            long long v, mult;
            read_digits(&s, &v, 18);
            while (*s == ' ')
                s++;
            const char *we = s;
            while (isalpha((unsigned char)*we))
                we++;
            long long *field = date_unit(d, s, (size_t)(we - s), &mult);
            if (!field)
                return -1;
            date_add_rel(d, field, neg ? -v : v, mult);
            s = we;
            continue;
        }
        if (isalpha((unsigned char)*s)) {
            const char *w = s;
            while (isalpha((unsigned char)*s))
                s++;
            size_t n = (size_t)(s - w);
            long long mult, *field;
#define WORD(x) (n == strlen(x) && strncasecmp(w, x, n) == 0)
            if (WORD("now") || WORD("today")) {
                continue;
            } else if (WORD("yesterday") || WORD("tomorrow")) {
                date_add_rel(d, &d->rel_day, w[0] == 'y' || w[0] == 'Y' ? -1 : 1, 1);
            } else if (WORD("ago")) {
                if (!d->last_rel)
                    return -1;
                *d->last_rel -= 2 * d->last_amount;
                d->last_amount = -d->last_amount;
            } else if (WORD("utc") || WORD("gmt") || WORD("ut") || WORD("z")) {
                if (d->have_zone)
                    return -1;
                d->zone = 0;
                d->have_zone = 1;
            } else if (WORD("next") || WORD("last") || WORD("this")) {
                const char *u = s;
                while (*u == ' ')
                    u++;
                const char *ue = u;
                while (isalpha((unsigned char)*ue))
                    ue++;
                field = date_unit(d, u, (size_t)(ue - u), &mult);
                if (!field)
                    return -1;
                date_add_rel(d, field, w[0] == 'n' || w[0] == 'N' ? 1 : w[0] == 't' || w[0] == 'T' ? 0 : -1, mult);
                s = ue;
            } else if ((field = date_unit(d, w, n, &mult))) {
                date_add_rel(d, field, 1, mult);
            } else if (month_number(w, n) && !d->have_date) {
                /* "Jan 2 [2024]" */
                long long day, year;
                while (*s == ' ')
                    s++;
                if (!read_digits(&s, &day, 2))
                    return -1;
                d->month = month_number(w, n), d->day = day, d->year = -1;
                d->have_date = 1;
                const char *y = s;
                while (*y == ' ' || *y == ',')
                    y++;
                if (read_digits(&y, &year, 4) == 4 && *y != ':') {
                    d->year = year;
                    s = y;
                }
            } else {
                return -1;
            }
#undef WORD
            continue;
        }
        return -1;
    }
    return 0;
}

/* Resolves a parsed date against now: seconds since the epoch and
 * nanoseconds. 0, or -1 for an impossible date. */
static int date_resolve(date_spec *d, const struct timespec *now, long long *secs, long *nsec)
{
    if (d->out_of_range || d->year > 100000000 || d->epoch > 100000000000000000LL ||
        d->epoch < -100000000000000000LL)
        return -1;
    if (d->have_epoch) {
        if (d->have_date || d->have_time)
            return -1;
        *secs = d->epoch + d->rel_day * 86400 + d->rel_sec;
        *nsec = d->nsec;
        if (d->rel_month)
            return -1;
        return 0;
    }
    long long now_days = (long long)now->tv_sec / 86400 - ((long long)now->tv_sec % 86400 < 0);
    long long now_secs = (long long)now->tv_sec - now_days * 86400;
    if (!d->have_date && !d->have_time && !d->last_rel && !d->have_zone) {
        /* An empty string is the start of today. */
        d->have_time = 1;
    }
    if (!d->have_date) {
        /* Today's date, from the civil date of now. */
        time_t t = now->tv_sec;
        struct tm tm;
        gmtime_r(&t, &tm);
        d->year = tm.tm_year + 1900LL, d->month = tm.tm_mon + 1, d->day = tm.tm_mday;
    } else if (d->year == -1) {
        time_t t = now->tv_sec;
        struct tm tm;
        gmtime_r(&t, &tm);
        d->year = tm.tm_year + 1900LL;
    }
    if (d->month < 1 || d->month > 12 || d->day < 1 || d->day > days_in_month(d->year, (int)d->month))
        return -1;
    long long tod;
    if (d->have_time) {
        tod = d->hour * 3600 + d->minute * 60 + d->second;
        *nsec = d->nsec;
    } else if (d->have_date) {
        tod = 0;
        *nsec = 0;
    } else {
        tod = now_secs;
        *nsec = now->tv_nsec;
    }
    long long days = sh_days_from_civil(d->year, d->month + d->rel_month, 1) + d->day - 1;
    *secs = days * 86400 + tod + d->rel_day * 86400 + d->rel_sec - (d->have_zone ? d->zone : 0);
    return 0;
}

/* Appends n with at least width digits, padded with pad (none when 0). */
static int date_number(sh_buf *b, long long n, int width, char pad)
{
    char digits[32];
    int len = snprintf(digits, sizeof(digits), "%lld", n < 0 ? -n : n);
    int failed = n < 0 ? sh_buf_addc(b, '-') : 0;
    if (n < 0)
        width--;
    for (int i = len; pad && i < width; i++)
        failed |= sh_buf_addc(b, pad);
    return failed | sh_buf_add(b, digits, (size_t)len);
}

/* ISO 8601 week-numbering: the week (1-53) and its year. */
static int iso_week(const struct tm *tm, long long *year)
{
    long long y = tm->tm_year + 1900LL;
    int wday = (tm->tm_wday + 6) % 7; /* Monday 0 */
    int week = (tm->tm_yday - wday + 10) / 7;
    /* A year has 53 weeks when it starts on a Thursday, or a Wednesday in a leap year. */
    long long jan1 = sh_days_from_civil(y, 1, 1), next = sh_days_from_civil(y + 1, 1, 1);
    int jan1_wday = (int)(((jan1 + 3) % 7 + 7) % 7); /* 1970-01-01 was a Thursday: Monday 0 */
    int weeks = jan1_wday == 3 || (jan1_wday == 2 && next - jan1 == 366) ? 53 : 52;
    if (week < 1) {
        long long prev = sh_days_from_civil(y - 1, 1, 1);
        int pw = (int)(((prev + 3) % 7 + 7) % 7);
        week = pw == 3 || (pw == 2 && jan1 - prev == 366) ? 53 : 52;
        y--;
    } else if (week > weeks) {
        week = 1;
        y++;
    }
    *year = y;
    return week;
}

/* Formats a time as date's +FORMAT does (strftime's conversions with GNU's
 * flags - _ 0 ^ #, widths, %N, %s, %:z and %P), always in UTC. */
static int date_format(sh_buf *b, const char *fmt, long long secs, long nsec)
{
    static const char *const days[] = { "Sunday",   "Monday", "Tuesday", "Wednesday",
                                        "Thursday", "Friday", "Saturday" };
    static const char *const months[] = { "January", "February", "March",     "April",
                                          "May",     "June",     "July",      "August",
                                          "September", "October", "November", "December" };
    time_t t = (time_t)secs;
    struct tm tm;
    if (!gmtime_r(&t, &tm))
        return -1;
    int failed = 0;
    for (const char *c = fmt; *c && !failed; c++) {
        if (*c != '%' || c[1] == '\0') {
            failed |= sh_buf_addc(b, *c);
            continue;
        }
        /* Flags: the last of - _ 0 picks the padding; ^ and # change case. */
        const char *spec = c++;
        char pad_flag = 0;
        int upper = 0, swap = 0;
        for (; *c && strchr("-_0^#", *c); c++) {
            if (*c == '^')
                upper = 1;
            else if (*c == '#')
                swap = 1;
            else
                pad_flag = *c;
        }
        int width = -1;
        if (isdigit((unsigned char)*c)) {
            width = 0;
            while (isdigit((unsigned char)*c) && width < 1000)
                width = width * 10 + (*c++ - '0');
            while (isdigit((unsigned char)*c))
                c++;
        }
        if (*c == 'E' || *c == 'O')
            c++;
        int colons = 0;
        while (*c == ':' && colons < 3)
            colons++, c++;
        if (*c == '\0') {
            failed |= sh_buf_add(b, spec, (size_t)(c - spec));
            break;
        }
        long long num = 0;
        int num_width = 2, known = 1, abbreviate = 0;
        char num_pad = '0';
        const char *str = NULL, *sub = NULL;
        char small[16];
        long long iso_year;
        int hour12 = tm.tm_hour % 12 ? tm.tm_hour % 12 : 12;
        switch (colons ? (*c == 'z' ? 'z' : '?') : *c) {
        case 'a': str = days[tm.tm_wday], abbreviate = 1; break;
        case 'A': str = days[tm.tm_wday]; break;
        case 'b':
        case 'h': str = months[tm.tm_mon], abbreviate = 1; break;
        case 'B': str = months[tm.tm_mon]; break;
        case 'c': sub = "%a %b %e %H:%M:%S %Y"; break;
        case 'C': num = (tm.tm_year + 1900LL) / 100; break;
        case 'd': num = tm.tm_mday; break;
        case 'D': sub = "%m/%d/%y"; break;
        case 'e': num = tm.tm_mday, num_pad = ' '; break;
        case 'F': sub = "%Y-%m-%d"; break;
        case 'g': iso_week(&tm, &iso_year), num = (iso_year % 100 + 100) % 100; break;
        case 'G': iso_week(&tm, &iso_year), num = iso_year, num_width = 1; break;
        case 'H': num = tm.tm_hour; break;
        case 'I': num = hour12; break;
        case 'j': num = tm.tm_yday + 1, num_width = 3; break;
        case 'k': num = tm.tm_hour, num_pad = ' '; break;
        case 'l': num = hour12, num_pad = ' '; break;
        case 'm': num = tm.tm_mon + 1; break;
        case 'M': num = tm.tm_min; break;
        case 'n': str = "\n"; break;
        case 'N': {
            snprintf(small, sizeof(small), "%09ld", nsec);
            if (width > 0 && width < 9)
                small[width] = '\0';
            str = small;
            width = -1;
            break;
        }
        case 'p': str = tm.tm_hour < 12 ? "AM" : "PM"; if (swap) swap = 2; break;
        case 'P': str = tm.tm_hour < 12 ? "am" : "pm"; break;
        case 'q': num = tm.tm_mon / 3 + 1, num_width = 1; break;
        case 'r': sub = "%I:%M:%S %p"; break;
        case 'R': sub = "%H:%M"; break;
        case 's': num = secs, num_width = 1; break;
        case 'S': num = tm.tm_sec; break;
        case 't': str = "\t"; break;
        case 'T': sub = "%H:%M:%S"; break;
        case 'u': num = (tm.tm_wday + 6) % 7 + 1, num_width = 1; break;
        case 'U': num = (tm.tm_yday + 7 - tm.tm_wday) / 7; break;
        case 'V': num = iso_week(&tm, &iso_year); break;
        case 'w': num = tm.tm_wday, num_width = 1; break;
        case 'W': num = (tm.tm_yday + 7 - (tm.tm_wday + 6) % 7) / 7; break;
        case 'x': sub = "%m/%d/%y"; break;
        case 'X': sub = "%H:%M:%S"; break;
        case 'y': num = ((tm.tm_year + 1900LL) % 100 + 100) % 100; break;
        case 'Y': num = tm.tm_year + 1900LL, num_width = 1; break;
        case 'z': str = colons == 0 ? "+0000" : colons == 1 ? "+00:00" : colons == 2 ? "+00:00:00" : "+00"; break;
        case 'Z': str = "UTC"; if (swap) swap = 2; break;
        case '%': str = "%"; break;
        default: known = 0; break;
        }
        if (abbreviate) {
            /* In the C locale, abbreviated names are their first three letters. */
            snprintf(small, sizeof(small), "%.3s", str);
            str = small;
        }
        if (!known) {
            failed |= sh_buf_add(b, spec, (size_t)(c - spec + 1));
            continue;
        }
        if (!str && !sub) {
            char pad = pad_flag == '-' ? 0 : pad_flag == '_' ? ' ' : pad_flag == '0' ? '0' : num_pad;
            failed |= date_number(b, num, width >= 0 ? width : num_width, pad);
            continue;
        }
        sh_buf text = { 0 };
        if (sub)
            failed |= date_format(&text, sub, secs, nsec) < 0;
        else
            failed |= sh_buf_adds(&text, str);
        for (size_t i = 0; i < text.len; i++) {
            if (upper || swap == 1)
                text.data[i] = (char)toupper((unsigned char)text.data[i]);
            else if (swap == 2)
                text.data[i] = (char)tolower((unsigned char)text.data[i]);
        }
        for (int i = (int)text.len; pad_flag != '-' && i < width; i++)
            failed |= sh_buf_addc(b, pad_flag == '0' ? '0' : ' ');
        failed |= sh_buf_add(b, text.data, text.len);
        sh_buf_free(&text);
    }
    return failed ? -1 : 0;
}

/* Prints one time in the given format and a newline. */
static int date_print(sh_proc *p, const char *fmt, long long secs, long nsec)
{
    time_t t = (time_t)secs;
    struct tm tm;
    if ((long long)t != secs || !gmtime_r(&t, &tm)) {
        sh_err(p, "time %lld is out of range", secs);
        return 1;
    }
    sh_buf b = { 0 };
    int r = 0;
    if (date_format(&b, fmt, secs, nsec) < 0 || sh_buf_addc(&b, '\n') < 0)
        r = sh_oom(p);
    else if (sh_out(p, b.data, b.len) < 0)
        r = SH_STATUS_PIPE;
    sh_buf_free(&b);
    return r;
}

/* Parses one -d string and prints it: 0, or 1 after "invalid date". */
static int date_show(sh_proc *p, const char *fmt, const char *text, const struct timespec *now)
{
    date_spec d = { 0 };
    long long secs;
    long nsec;
    if (strlen(text) > 1000 || date_parse(text, &d) < 0 || date_resolve(&d, now, &secs, &nsec) < 0) {
        sh_err(p, "invalid date '%s'", text);
        return 1;
    }
    return date_print(p, fmt, secs, nsec);
}

/* The format an -I or --rfc-3339 precision names, or NULL. */
static const char *date_iso_format(const char *prec, int rfc3339)
{
    static const char *const names[] = { "date", "hours", "minutes", "seconds", "ns" };
    static const char *const iso[] = { "%Y-%m-%d", "%Y-%m-%dT%H%:z", "%Y-%m-%dT%H:%M%:z",
                                       "%Y-%m-%dT%H:%M:%S%:z", "%Y-%m-%dT%H:%M:%S,%N%:z" };
    static const char *const rfc[] = { "%Y-%m-%d", NULL, NULL, "%Y-%m-%d %H:%M:%S%:z",
                                       "%Y-%m-%d %H:%M:%S.%N%:z" };
    size_t n = strlen(prec);
    for (int i = 0; i < 5; i++)
        if (n > 0 && strncmp(names[i], prec, n) == 0)
            return rfc3339 ? rfc[i] : iso[i];
    return NULL;
}

static int date_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "date", 1, 'd' },       { "utc", 0, 'u' },       { "universal", 0, 'u' },
        { "rfc-email", 0, 'R' },  { "rfc-3339", 1, 'T' },  { "iso-8601", 2, 'I' },
        { "reference", 1, 'r' },  { "file", 1, 'f' },      { "set", 1, 's' },
        { NULL, 0, 0 },
    };
    const char *fmt = NULL, *date = NULL, *ref = NULL, *file = NULL;
    int c;
    /* -I takes an optional argument attached to it ("-Iseconds"), which the
     * option parser cannot express: such words are taken out first. */
    char **args = malloc(((size_t)argc + 1) * sizeof(char *));
    if (!args)
        return sh_oom(p);
    int n = 0;
    for (int i = 0; i < argc; i++) {
        if (i > 0 && strncmp(argv[i], "-I", 2) == 0) {
            fmt = date_iso_format(argv[i][2] ? argv[i] + 2 : "date", 0);
            if (!fmt) {
                sh_err(p, "invalid argument '%s' for '--iso-8601'", argv[i] + 2);
                free(args);
                return 1;
            }
            continue;
        }
        args[n++] = argv[i];
        if (strcmp(argv[i], "--") == 0) {
            while (++i < argc)
                args[n++] = argv[i];
        }
    }
    args[n] = NULL;
    sh_opt o = { .ind = 1 };
    int status = 0;
    while (status == 0 && (c = sh_getopt(p, &o, n, args, "d:uRr:f:s:", longs)) != -1) {
        switch (c) {
        case 'd': date = o.arg; break;
        case 'u': break; /* the sandbox's clock is always UTC */
        case 'R': fmt = "%a, %d %b %Y %H:%M:%S %z"; break;
        case 'r': ref = o.arg; break;
        case 'f': file = o.arg; break;
        case 'T':
        case 'I':
            fmt = date_iso_format(o.arg ? o.arg : "date", c == 'T');
            if (!fmt) {
                sh_err(p, "invalid argument '%s' for '--%s'", o.arg ? o.arg : "",
                       c == 'T' ? "rfc-3339" : "iso-8601");
                status = 1;
            }
            break;
        case 's':
            sh_err(p, "cannot set date: Operation not permitted");
            status = 1;
            break;
        default: status = 1; break;
        }
    }
    for (int i = o.ind; status == 0 && i < n; i++) {
        if (args[i][0] == '+' && !fmt && i == o.ind) {
            fmt = args[i] + 1;
        } else if (args[i][0] == '+' || i > o.ind) {
            sh_err(p, "extra operand '%s'", args[i]);
            status = 1;
        } else {
            sh_err(p, "invalid date '%s'", args[i]);
            status = 1;
        }
    }
    if (status == 0 && (date != NULL) + (ref != NULL) + (file != NULL) > 1) {
        sh_err(p, "the options to specify dates for printing are mutually exclusive");
        status = 1;
    }
    if (status) {
        free(args);
        return status;
    }
    if (!fmt)
        fmt = "%a %b %e %H:%M:%S %Z %Y";
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (date) {
        status = date_show(p, fmt, date, &now);
    } else if (ref) {
        struct stat st;
        if (sh_stat(p, ref, &st, 1) < 0) {
            sh_err_path(p, ref);
            status = 1;
        } else {
            status = date_print(p, fmt, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
        }
    } else if (file) {
        char *data;
        size_t len;
        if (sh_load(p, file, &data, &len) < 0) {
            status = 1;
        } else {
            for (char *line = data; line < data + len && status != SH_STATUS_PIPE;) {
                char *nl = memchr(line, '\n', (size_t)(data + len - line));
                if (nl)
                    *nl = '\0';
                int r = date_show(p, fmt, line, &now);
                status = r ? r : status;
                line = nl ? nl + 1 : data + len;
            }
            free(data);
        }
    } else {
        status = date_print(p, fmt, (long long)now.tv_sec, now.tv_nsec);
    }
    free(args);
    return status;
}

/* ---- diff ---- */

/* The line comparison diff uses (-i, -b, -w) and its output format. */
typedef struct diff_opts {
    int ignore_case, ignore_space_change, ignore_all_space;
    int unified;  /* -u / -U */
    long context; /* lines of context for -u */
    int brief, report_same, text, recursive;
    const char *label[2];
} diff_opts;

/* One file being compared: its bytes, its lines (each with its newline, the
 * last perhaps without), their equivalence classes and which changed. */
typedef struct diff_file {
    const char *name;
    char *data;
    size_t len;
    const char **line;
    size_t *line_len;
    long n;
    long *equiv;
    char *changed; /* n + 2 flags: changed[-1] and changed[n] are always 0 */
    char *changed_mem;
} diff_file;

/* One change: `deleted` lines from line0 of the first file replaced by
 * `inserted` lines from line1 of the second. */
typedef struct diff_change {
    long line0, line1, deleted, inserted;
} diff_change;

/* The working arrays of the Myers comparison (GNU diff's diag/compareseq). */
typedef struct diff_ctx {
    const long *xv, *yv;   /* equivalence classes of the compared lines */
    const long *xidx, *yidx; /* their real line numbers */
    char *xchanged, *ychanged;
    long *fdiag, *bdiag;   /* indexed by diagonal, offset already applied */
} diff_ctx;

/* Whether a byte is white space for -b and -w. */
static int diff_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Hashes a line the way diff_equal compares it. */
static uint64_t diff_hash(const diff_opts *o, const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((o->ignore_all_space || o->ignore_space_change) && diff_space((char)c)) {
            size_t j = i;
            while (j < n && diff_space(s[j]))
                j++;
            if (o->ignore_space_change && !o->ignore_all_space && j < n)
                h = (h ^ ' ') * 1099511628211ULL;
            i = j - 1;
            continue;
        }
        if (o->ignore_case)
            c = (unsigned char)tolower(c);
        h = (h ^ c) * 1099511628211ULL;
    }
    return h;
}

/* Whether two lines are the same under the options. */
static int diff_equal(const diff_opts *o, const char *a, size_t na, const char *b, size_t nb)
{
    if (!o->ignore_case && !o->ignore_space_change && !o->ignore_all_space)
        return na == nb && memcmp(a, b, na) == 0;
    size_t i = 0, j = 0;
    for (;;) {
        if (o->ignore_all_space || o->ignore_space_change) {
            size_t si = i, sj = j;
            while (i < na && diff_space(a[i]))
                i++;
            while (j < nb && diff_space(b[j]))
                j++;
            /* -b: a run of blanks matches another run, but not none, except
             * at the end of the line. */
            if (o->ignore_space_change && !o->ignore_all_space && (i < na && j < nb) &&
                ((i > si) != (j > sj)))
                return 0;
        }
        if (i == na || j == nb)
            return i == na && j == nb;
        char ca = a[i++], cb = b[j++];
        if (o->ignore_case) {
            ca = (char)tolower((unsigned char)ca);
            cb = (char)tolower((unsigned char)cb);
        }
        if (ca != cb)
            return 0;
    }
}

/* Splits a file into lines: 0, or -1 when out of memory. */
static int diff_split(diff_file *f)
{
    long n = 0;
    for (size_t i = 0; i < f->len; i++)
        n += f->data[i] == '\n';
    if (f->len && f->data[f->len - 1] != '\n')
        n++;
    f->line = malloc(((size_t)n + 1) * sizeof(char *));
    f->line_len = malloc(((size_t)n + 1) * sizeof(size_t));
    f->equiv = malloc(((size_t)n + 1) * sizeof(long));
    f->changed_mem = calloc((size_t)n + 2, 1);
    if (!f->line || !f->line_len || !f->equiv || !f->changed_mem)
        return -1;
    f->changed = f->changed_mem + 1;
    f->n = n;
    size_t start = 0;
    for (long k = 0; k < n; k++) {
        const char *nl = memchr(f->data + start, '\n', f->len - start);
        size_t end = nl ? (size_t)(nl - f->data) + 1 : f->len;
        f->line[k] = f->data + start;
        f->line_len[k] = end - start;
        start = end;
    }
    return 0;
}

/* Numbers the distinct lines of both files (equal lines, equal numbers,
 * starting at 1): the count of classes plus one, or -1 when out of memory. */
static long diff_classes(const diff_opts *o, diff_file *f)
{
    size_t total = (size_t)f[0].n + (size_t)f[1].n, cap = 16;
    while (cap < total * 2)
        cap *= 2;
    long *slot = malloc(cap * sizeof(long)); /* index into a combined line list, or -1 */
    if (!slot)
        return -1;
    memset(slot, 0xff, cap * sizeof(long));
    long classes = 1;
    for (int k = 0; k < 2; k++) {
        for (long i = 0; i < f[k].n; i++) {
            size_t h = (size_t)diff_hash(o, f[k].line[i], f[k].line_len[i]) & (cap - 1);
            for (;;) {
                if (slot[h] < 0) {
                    slot[h] = (long)k * f[0].n + i;
                    f[k].equiv[i] = classes++;
                    break;
                }
                long s = slot[h];
                const diff_file *g = s < f[0].n ? &f[0] : &f[1];
                long gi = s < f[0].n ? s : s - f[0].n;
                if (diff_equal(o, g->line[gi], g->line_len[gi], f[k].line[i], f[k].line_len[i])) {
                    f[k].equiv[i] = g->equiv[gi];
                    break;
                }
                h = (h + 1) & (cap - 1);
            }
        }
    }
    free(slot);
    return classes;
}

/* Finds the middle snake of the shortest edit script between x[xoff, xlim)
 * and y[yoff, ylim), searching from both ends at once: where it crosses. */
static void diff_diag(diff_ctx *c, long xoff, long xlim, long yoff, long ylim, long *xmid, long *ymid)
{
    long *fd = c->fdiag, *bd = c->bdiag;
    const long *xv = c->xv, *yv = c->yv;
    long dmin = xoff - ylim, dmax = xlim - yoff;
    long fmid = xoff - yoff, bmid = xlim - ylim;
    long fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid;
    int odd = (fmid - bmid) & 1;
    fd[fmid] = xoff;
    bd[bmid] = xlim;
    for (;;) {
        long d;
        if (fmin > dmin)
            fd[--fmin - 1] = -1;
        else
            ++fmin;
        if (fmax < dmax)
            fd[++fmax + 1] = -1;
        else
            --fmax;
        for (d = fmax; d >= fmin; d -= 2) {
            long tlo = fd[d - 1], thi = fd[d + 1];
            long x = tlo >= thi ? tlo + 1 : thi, y = x - d;
            while (x < xlim && y < ylim && xv[x] == yv[y])
                x++, y++;
            fd[d] = x;
            if (odd && bmin <= d && d <= bmax && bd[d] <= x) {
                *xmid = x;
                *ymid = y;
                return;
            }
        }
        if (bmin > dmin)
            bd[--bmin - 1] = LONG_MAX;
        else
            ++bmin;
        if (bmax < dmax)
            bd[++bmax + 1] = LONG_MAX;
        else
            --bmax;
        for (d = bmax; d >= bmin; d -= 2) {
            long tlo = bd[d - 1], thi = bd[d + 1];
            long x = tlo < thi ? tlo : thi - 1, y = x - d;
            while (x > xoff && y > yoff && xv[x - 1] == yv[y - 1])
                x--, y--;
            bd[d] = x;
            if (!odd && fmin <= d && d <= fmax && x <= fd[d]) {
                *xmid = x;
                *ymid = y;
                return;
            }
        }
    }
}

/* Marks the lines of x[xoff, xlim) and y[yoff, ylim) that are not in a
 * longest common subsequence, dividing at middle snakes. */
static void diff_compare(diff_ctx *c, long xoff, long xlim, long yoff, long ylim)
{
    while (xoff < xlim && yoff < ylim && c->xv[xoff] == c->yv[yoff])
        xoff++, yoff++;
    while (xoff < xlim && yoff < ylim && c->xv[xlim - 1] == c->yv[ylim - 1])
        xlim--, ylim--;
    if (xoff == xlim) {
        for (; yoff < ylim; yoff++)
            c->ychanged[c->yidx[yoff]] = 1;
    } else if (yoff == ylim) {
        for (; xoff < xlim; xoff++)
            c->xchanged[c->xidx[xoff]] = 1;
    } else {
        long xmid, ymid;
        diff_diag(c, xoff, xlim, yoff, ylim, &xmid, &ymid);
        diff_compare(c, xoff, xmid, yoff, ymid);
        diff_compare(c, xmid, xlim, ymid, ylim);
    }
}

/* GNU diff's discard_confusing_lines: lines with no match in the other file
 * are changed for certain and left out of the comparison, and so are runs of
 * lines with very many matches among them. Fills the compared classes and
 * their real indexes of [lo, hi) of each file: their counts. */
static int diff_discard(diff_file *f, const long *lo, const long *hi, long classes, long **vec,
                        long **idx, long *count)
{
    long *counts = calloc((size_t)classes * 2, sizeof(long));
    char *discard = calloc((size_t)(hi[0] - lo[0]) + (size_t)(hi[1] - lo[1]) + 1, 1);
    if (!counts || !discard) {
        free(counts);
        free(discard);
        return -1;
    }
    for (int k = 0; k < 2; k++)
        for (long i = lo[k]; i < hi[k]; i++)
            counts[k * classes + f[k].equiv[i]]++;
    char *dk[2] = { discard, discard + (hi[0] - lo[0]) };
    for (int k = 0; k < 2; k++) {
        long end = hi[k] - lo[k], many = 5;
        for (long tem = end / 64; (tem >>= 2) > 0;)
            many *= 2;
        for (long i = 0; i < end; i++) {
            long nmatch = counts[(1 - k) * classes + f[k].equiv[lo[k] + i]];
            dk[k][i] = nmatch == 0 ? 1 : nmatch > many ? 2 : 0;
        }
    }
    for (int k = 0; k < 2; k++) {
        char *d = dk[k];
        long end = hi[k] - lo[k];
        for (long i = 0; i < end; i++) {
            if (d[i] == 2) {
                d[i] = 0;
            } else if (d[i] != 0) {
                long j, provisional = 0, length;
                for (j = i; j < end && d[j] != 0; j++)
                    provisional += d[j] == 2;
                while (j > i && d[j - 1] == 2)
                    d[--j] = 0, provisional--;
                length = j - i;
                if (provisional * 4 > length) {
                    while (j > i)
                        if (d[--j] == 2)
                            d[j] = 0;
                } else {
                    long minimum = 1, consec;
                    for (long tem = length >> 2; (tem >>= 2) > 0;)
                        minimum <<= 1;
                    minimum++;
                    for (j = 0, consec = 0; j < length; j++) {
                        if (d[i + j] != 2)
                            consec = 0;
                        else if (minimum == ++consec)
                            j -= consec;
                        else if (minimum < consec)
                            d[i + j] = 0;
                    }
                    for (j = 0, consec = 0; j < length; j++) {
                        if (j >= 8 && d[i + j] == 1)
                            break;
                        if (d[i + j] == 2)
                            consec = 0, d[i + j] = 0;
                        else if (d[i + j] == 0)
                            consec = 0;
                        else
                            consec++;
                        if (consec == 3)
                            break;
                    }
                    i += length - 1;
                    for (j = 0, consec = 0; j < length; j++) {
                        if (j >= 8 && d[i - j] == 1)
                            break;
                        if (d[i - j] == 2)
                            consec = 0, d[i - j] = 0;
                        else if (d[i - j] == 0)
                            consec = 0;
                        else
                            consec++;
                        if (consec == 3)
                            break;
                    }
                }
            }
        }
    }
    for (int k = 0; k < 2; k++) {
        long j = 0;
        for (long i = lo[k]; i < hi[k]; i++) {
            if (dk[k][i - lo[k]] == 0) {
                vec[k][j] = f[k].equiv[i];
                idx[k][j++] = i;
            } else {
                f[k].changed[i] = 1;
            }
        }
        count[k] = j;
    }
    free(counts);
    free(discard);
    return 0;
}

/* GNU diff's shift_boundaries: slides each run of changed lines (within
 * [lo, hi)) to merge it with neighbouring runs, then as far down as it goes,
 * then back up to line up with a run in the other file. */
static void diff_shift(diff_file *f, const long *lo, const long *hi)
{
    for (int k = 0; k < 2; k++) {
        char *changed = f[k].changed + lo[k], *other = f[1 - k].changed + lo[1 - k];
        const long *equivs = f[k].equiv + lo[k];
        long i = 0, j = 0, i_end = hi[k] - lo[k];
        for (;;) {
            long runlength, start, corresponding;
            while (i < i_end && !changed[i]) {
                while (other[j++])
                    continue;
                i++;
            }
            if (i == i_end)
                break;
            start = i;
            while (changed[++i])
                continue;
            while (other[j])
                j++;
            do {
                runlength = i - start;
                while (start && equivs[start - 1] == equivs[i - 1]) {
                    changed[--start] = 1;
                    changed[--i] = 0;
                    while (changed[start - 1])
                        start--;
                    while (other[--j])
                        continue;
                }
                corresponding = other[j - 1] ? i : i_end;
                while (i != i_end && equivs[start] == equivs[i]) {
                    changed[start++] = 0;
                    changed[i++] = 1;
                    while (changed[i])
                        i++;
                    while (other[++j])
                        corresponding = i;
                }
            } while (runlength != i - start);
            while (corresponding < i) {
                changed[--start] = 1;
                changed[--i] = 0;
                while (other[--j])
                    continue;
            }
        }
    }
}

/* Compares the two files' lines: the list of changes (caller frees) and its
 * length, or -1 when out of memory. */
static long diff_run(const diff_opts *o, diff_file *f, diff_change **out)
{
    long classes = diff_classes(o, f);
    if (classes < 0)
        return -1;
    /* The common prefix and suffix are left out, but for as many lines as the
     * context, which the shifting of changes may use (as GNU's diff does). */
    long pre = 0, suf = 0, horizon = o->unified ? o->context : 0;
    while (pre < f[0].n && pre < f[1].n && f[0].line_len[pre] == f[1].line_len[pre] &&
           memcmp(f[0].line[pre], f[1].line[pre], f[0].line_len[pre]) == 0)
        pre++;
    while (suf < f[0].n - pre && suf < f[1].n - pre) {
        long a = f[0].n - 1 - suf, b = f[1].n - 1 - suf;
        if (f[0].line_len[a] != f[1].line_len[b] ||
            memcmp(f[0].line[a], f[1].line[b], f[0].line_len[a]) != 0)
            break;
        suf++;
    }
    pre = pre > horizon ? pre - horizon : 0;
    suf = suf > horizon ? suf - horizon : 0;
    long lo[2] = { pre, pre }, hi[2] = { f[0].n - suf, f[1].n - suf };
    long n0 = hi[0] - lo[0], n1 = hi[1] - lo[1];
    long *mem = malloc(((size_t)n0 * 2 + (size_t)n1 * 2 + 2 * ((size_t)n0 + (size_t)n1 + 3)) * sizeof(long));
    if (!mem)
        return -1;
    long *vec[2] = { mem, mem + n0 }, *idx[2] = { mem + n0 + n1, mem + 2 * n0 + n1 };
    long count[2];
    if (diff_discard(f, lo, hi, classes, vec, idx, count) < 0) {
        free(mem);
        return -1;
    }
    long *diags = mem + 2 * (n0 + n1);
    diff_ctx c = { vec[0], vec[1], idx[0], idx[1], f[0].changed, f[1].changed,
                   diags + count[1] + 1, diags + (n0 + n1 + 3) + count[1] + 1 };
    diff_compare(&c, 0, count[0], 0, count[1]);
    free(mem);
    diff_shift(f, lo, hi);

    long n = 0, cap = 16;
    diff_change *list = malloc((size_t)cap * sizeof(*list));
    if (!list)
        return -1;
    for (long i0 = 0, i1 = 0; i0 < f[0].n || i1 < f[1].n; i0++, i1++) {
        if (!f[0].changed[i0] && !f[1].changed[i1])
            continue;
        long l0 = i0, l1 = i1;
        while (f[0].changed[i0])
            i0++;
        while (f[1].changed[i1])
            i1++;
        if (n == cap) {
            diff_change *g = realloc(list, (size_t)cap * 2 * sizeof(*list));
            if (!g) {
                free(list);
                return -1;
            }
            list = g;
            cap *= 2;
        }
        list[n++] = (diff_change){ l0, l1, i0 - l0, i1 - l1 };
    }
    *out = list;
    return n;
}

/* Appends lines [from, to) of a file, each after the prefix, with GNU's
 * marker after a last line that has no newline. */
static int diff_lines(sh_buf *b, const diff_file *f, long from, long to, const char *prefix)
{
    int failed = 0;
    for (long i = from; i < to; i++) {
        failed |= sh_buf_adds(b, prefix) | sh_buf_add(b, f->line[i], f->line_len[i]);
        if (f->line_len[i] == 0 || f->line[i][f->line_len[i] - 1] != '\n')
            failed |= sh_buf_adds(b, "\n\\ No newline at end of file\n");
    }
    return failed;
}

/* A range in the normal format: "a" or "a,b" (1-based), or the line before
 * an empty range. */
static int diff_range(sh_buf *b, long start, long count)
{
    if (count == 0)
        return sh_buf_addf(b, "%ld", start);
    if (count == 1)
        return sh_buf_addf(b, "%ld", start + 1);
    return sh_buf_addf(b, "%ld,%ld", start + 1, start + count);
}

/* The normal output format: "2,3c2", "< old", "---", "> new". */
static int diff_normal(sh_buf *b, const diff_file *f, const diff_change *ch, long n)
{
    int failed = 0;
    for (long k = 0; k < n; k++) {
        const diff_change *c = &ch[k];
        char op = c->deleted && c->inserted ? 'c' : c->deleted ? 'd' : 'a';
        failed |= diff_range(b, c->line0, c->deleted) | sh_buf_addc(b, op) |
                  diff_range(b, c->line1, c->inserted) | sh_buf_addc(b, '\n');
        failed |= diff_lines(b, &f[0], c->line0, c->line0 + c->deleted, "< ");
        if (c->deleted && c->inserted)
            failed |= sh_buf_adds(b, "---\n");
        failed |= diff_lines(b, &f[1], c->line1, c->line1 + c->inserted, "> ");
    }
    return failed;
}

/* A range in a unified hunk header: "start,count", "start" when one line. */
static int diff_unified_range(sh_buf *b, long start, long count)
{
    if (count == 0)
        return sh_buf_addf(b, "%ld,0", start);
    if (count == 1)
        return sh_buf_addf(b, "%ld", start + 1);
    return sh_buf_addf(b, "%ld,%ld", start + 1, count);
}

/* The unified format's hunks, changes closer than twice the context merged. */
static int diff_unified(sh_buf *b, const diff_file *f, const diff_change *ch, long n, long ctx)
{
    int failed = 0;
    for (long k = 0; k < n;) {
        long last = k;
        while (last + 1 < n && ch[last + 1].line0 - (ch[last].line0 + ch[last].deleted) <= 2 * ctx)
            last++;
        long s0 = ch[k].line0 - ctx, s1 = ch[k].line1 - ctx;
        s0 = s0 < 0 ? 0 : s0;
        s1 = s1 < 0 ? 0 : s1;
        long e0 = ch[last].line0 + ch[last].deleted + ctx, e1 = ch[last].line1 + ch[last].inserted + ctx;
        e0 = e0 > f[0].n ? f[0].n : e0;
        e1 = e1 > f[1].n ? f[1].n : e1;
        failed |= sh_buf_adds(b, "@@ -") | diff_unified_range(b, s0, e0 - s0) | sh_buf_adds(b, " +") |
                  diff_unified_range(b, s1, e1 - s1) | sh_buf_adds(b, " @@\n");
        long i = s0;
        for (long j = k; j <= last; j++) {
            failed |= diff_lines(b, &f[0], i, ch[j].line0, " ");
            failed |= diff_lines(b, &f[0], ch[j].line0, ch[j].line0 + ch[j].deleted, "-");
            failed |= diff_lines(b, &f[1], ch[j].line1, ch[j].line1 + ch[j].inserted, "+");
            i = ch[j].line0 + ch[j].deleted;
        }
        failed |= diff_lines(b, &f[0], i, e0, " ");
        k = last + 1;
    }
    return failed;
}

/* The "--- name\ttime" line of the unified format's header. */
static int diff_header_line(sh_proc *p, sh_buf *b, const char *mark, const char *name,
                            const char *label)
{
    if (label)
        return sh_buf_addf(b, "%s %s\n", mark, label);
    struct stat st;
    struct timespec ts;
    if (strcmp(name, "-") != 0 && sh_stat(p, name, &st, 1) == 0)
        ts = st.st_mtim;
    else
        clock_gettime(CLOCK_REALTIME, &ts);
    sh_buf when = { 0 };
    int failed = date_format(&when, "%Y-%m-%d %H:%M:%S.%N %z", (long long)ts.tv_sec, ts.tv_nsec);
    failed |= sh_buf_addf(b, "%s %s\t%s\n", mark, name, failed ? "" : sh_buf_cstr(&when));
    sh_buf_free(&when);
    return failed;
}

static void diff_file_free(diff_file *f)
{
    free(f->data);
    free(f->line);
    free(f->line_len);
    free(f->equiv);
    free(f->changed_mem);
}

/* Compares two files and prints their differences: 0 when the same, 1 when
 * different, 2 on trouble. switches is set when comparing directories: the
 * options as given, for the "diff OPTIONS A B" line before differences. */
static int diff_files(sh_proc *p, const diff_opts *o, const char *name0, const char *name1,
                      const char *switches)
{
    diff_file f[2] = { { .name = name0 }, { .name = name1 } };
    int status = 2;
    diff_change *ch = NULL;
    sh_buf b = { 0 };
    if (sh_load(p, name0, &f[0].data, &f[0].len) < 0 || sh_load(p, name1, &f[1].data, &f[1].len) < 0)
        goto done;
    if (f[0].len == f[1].len && memcmp(f[0].data, f[1].data, f[0].len) == 0) {
        status = 0;
        if (o->report_same && sh_printf(p, "Files %s and %s are identical\n", name0, name1) < 0)
            status = SH_STATUS_PIPE;
        goto done;
    }
    int binary = !o->text && (memchr(f[0].data, '\0', f[0].len < 32768 ? f[0].len : 32768) ||
                              memchr(f[1].data, '\0', f[1].len < 32768 ? f[1].len : 32768));
    if (binary || (o->brief && !o->ignore_case && !o->ignore_space_change && !o->ignore_all_space)) {
        status = sh_printf(p, binary && !o->brief ? "Binary files %s and %s differ\n"
                                                  : "Files %s and %s differ\n",
                           name0, name1) < 0 ? SH_STATUS_PIPE : 1;
        goto done;
    }
    if (diff_split(&f[0]) < 0 || diff_split(&f[1]) < 0) {
        sh_oom(p);
        goto done;
    }
    long n = diff_run(o, f, &ch);
    if (n < 0) {
        sh_oom(p);
        goto done;
    }
    status = n > 0;
    int failed = 0;
    /* In a directory comparison, each difference shows its command line. */
    if (n > 0 && switches && !o->brief)
        failed |= sh_buf_addf(&b, "diff%s %s %s\n", switches, name0, name1);
    if (n == 0) {
        if (o->report_same)
            failed |= sh_buf_addf(&b, "Files %s and %s are identical\n", name0, name1);
    } else if (o->brief) {
        failed |= sh_buf_addf(&b, "Files %s and %s differ\n", name0, name1);
    } else if (o->unified) {
        failed |= diff_header_line(p, &b, "---", name0, o->label[0]);
        failed |= diff_header_line(p, &b, "+++", name1, o->label[1]);
        failed |= diff_unified(&b, f, ch, n, o->context);
    } else {
        failed |= diff_normal(&b, f, ch, n);
    }
    if (failed) {
        status = sh_oom(p) + 1;
    } else if (sh_out(p, b.data, b.len) < 0) {
        status = SH_STATUS_PIPE;
    }
done:
    free(ch);
    sh_buf_free(&b);
    diff_file_free(&f[0]);
    diff_file_free(&f[1]);
    return status;
}

/* The second name when one operand is a directory: DIR/basename(FILE). Caller
 * frees; NULL when out of memory. */
static char *diff_in_dir(const char *dir, const char *file)
{
    const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    sh_buf b = { 0 };
    if (sh_buf_adds(&b, dir) < 0 || (b.len && b.data[b.len - 1] != '/' && sh_buf_addc(&b, '/') < 0) ||
        sh_buf_adds(&b, base) < 0) {
        sh_buf_free(&b);
        return NULL;
    }
    return sh_buf_take(&b, NULL);
}

/* The sorted names in a directory (without . and ..): a NULL-terminated
 * array the caller frees with free_names, or NULL after the error. */
static char **dir_names(sh_proc *p, const char *dir)
{
    char *full = sh_path(p, dir);
    DIR *d = full ? opendir(full) : NULL;
    free(full);
    if (!d) {
        sh_err_path(p, dir);
        return NULL;
    }
    size_t n = 0, cap = 16;
    char **names = malloc(cap * sizeof(char *));
    struct dirent *e;
    while (names && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n + 1 == cap) {
            char **g = realloc(names, cap * 2 * sizeof(char *));
            if (!g)
                break;
            names = g;
            cap *= 2;
        }
        if (!(names[n] = strdup(e->d_name)))
            break;
        n++;
    }
    closedir(d);
    if (!names || e) {
        for (size_t i = 0; names && i < n; i++)
            free(names[i]);
        free(names);
        sh_oom(p);
        return NULL;
    }
    names[n] = NULL;
    qsort(names, n, sizeof(char *), compare_names);
    return names;
}

static void free_names(char **names)
{
    for (size_t i = 0; names && names[i]; i++)
        free(names[i]);
    free(names);
}

/* Compares two directories entry by entry, into subdirectories with -r; each
 * pair of differing files is introduced by the diff command line for it. */
static int diff_dirs(sh_proc *p, const diff_opts *o, const char *switches, const char *d0,
                     const char *d1)
{
    char **names[2] = { dir_names(p, d0), names[0] ? dir_names(p, d1) : NULL };
    if (!names[0] || !names[1]) {
        free_names(names[0]);
        return 2;
    }
    int status = 0;
    size_t i = 0, j = 0;
    while ((names[0][i] || names[1][j]) && status != SH_STATUS_PIPE) {
        int c = !names[0][i] ? 1 : !names[1][j] ? -1 : strcmp(names[0][i], names[1][j]);
        if (c != 0) {
            const char *dir = c < 0 ? d0 : d1, *name = c < 0 ? names[0][i++] : names[1][j++];
            if (sh_printf(p, "Only in %s: %s\n", dir, name) < 0)
                status = SH_STATUS_PIPE;
            else
                status = status > 1 ? status : 1;
            continue;
        }
        const char *name = names[0][i++];
        j++;
        char *a = diff_in_dir(d0, name), *b = diff_in_dir(d1, name);
        struct stat sa, sb;
        int r;
        if (!a || !b) {
            r = sh_oom(p) + 1;
        } else if (sh_stat(p, a, &sa, 1) < 0 || sh_stat(p, b, &sb, 1) < 0) {
            sh_err_path(p, sh_stat(p, a, &sa, 1) < 0 ? a : b);
            r = 2;
        } else if (S_ISDIR(sa.st_mode) && S_ISDIR(sb.st_mode)) {
            r = o->recursive ? diff_dirs(p, o, switches, a, b)
                : sh_printf(p, "Common subdirectories: %s and %s\n", a, b) < 0 ? SH_STATUS_PIPE : 0;
        } else if (S_ISDIR(sa.st_mode) != S_ISDIR(sb.st_mode)) {
            r = sh_printf(p, "File %s is a %s while file %s is a %s\n", a,
                          S_ISDIR(sa.st_mode) ? "directory" : "regular file", b,
                          S_ISDIR(sb.st_mode) ? "directory" : "regular file") < 0 ? SH_STATUS_PIPE : 1;
        } else {
            r = diff_files(p, o, a, b, switches);
        }
        free(a);
        free(b);
        status = r == SH_STATUS_PIPE || r > status ? r : status;
    }
    free_names(names[0]);
    free_names(names[1]);
    return status;
}

static int diff_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "unified", 2, 'U' },  { "brief", 0, 'q' },         { "report-identical-files", 0, 's' },
        { "text", 0, 'a' },     { "ignore-case", 0, 'i' },   { "ignore-space-change", 0, 'b' },
        { "ignore-all-space", 0, 'w' }, { "label", 1, 'L' }, { "normal", 0, 'n' },
        { "recursive", 0, 'r' }, { NULL, 0, 0 },
    };
    diff_opts o = { 0 };
    o.context = 3;
    int c, labels = 0;
    sh_opt g = { .ind = 1 };
    while ((c = sh_getopt(p, &g, argc, argv, "uU:qsaibwL:r", longs)) != -1) {
        switch (c) {
        case 'u': o.unified = 1; break;
        case 'U':
            o.unified = 1;
            if (g.arg && parse_long(g.arg, 0, 1000000000L, &o.context) < 0) {
                sh_err(p, "invalid context length '%s'", g.arg);
                return 2;
            }
            break;
        case 'q': o.brief = 1; break;
        case 's': o.report_same = 1; break;
        case 'a': o.text = 1; break;
        case 'i': o.ignore_case = 1; break;
        case 'b': o.ignore_space_change = 1; break;
        case 'w': o.ignore_all_space = 1; break;
        case 'n': o.unified = 0; break;
        case 'r': o.recursive = 1; break;
        case 'L':
            if (labels == 2) {
                sh_err(p, "too many file label options");
                return 2;
            }
            o.label[labels++] = g.arg;
            break;
        default: return 2;
        }
    }
    if (argc - g.ind != 2) {
        if (argc - g.ind < 2)
            sh_err(p, "missing operand after '%s'", argv[argc - 1]);
        else
            sh_err(p, "extra operand '%s'", argv[g.ind + 2]);
        return 2;
    }
    const char *names[2] = { argv[g.ind], argv[g.ind + 1] };
    int isdir[2], exists[2];
    struct stat st[2];
    for (int k = 0; k < 2; k++) {
        exists[k] = strcmp(names[k], "-") != 0 && sh_stat(p, names[k], &st[k], 1) == 0;
        isdir[k] = exists[k] && S_ISDIR(st[k].st_mode);
    }
    /* A file is the same as itself, whatever its contents. */
    if (exists[0] && exists[1] && st[0].st_dev == st[1].st_dev && st[0].st_ino == st[1].st_ino) {
        if (o.report_same && !isdir[0])
            return sh_printf(p, "Files %s and %s are identical\n", names[0], names[1]) < 0
                       ? SH_STATUS_PIPE : 0;
        return 0;
    }
    if (isdir[0] && isdir[1]) {
        /* The options as given, for the "diff OPTIONS A B" lines. */
        sh_buf sw = { 0 };
        int failed = 0;
        for (int i = 1; i < g.ind; i++)
            if (strcmp(argv[i], "--") != 0)
                failed |= sh_buf_addc(&sw, ' ') | sh_buf_adds(&sw, argv[i]);
        int r = failed || !sh_buf_cstr(&sw) ? sh_oom(p) + 1
                                            : diff_dirs(p, &o, sw.data, names[0], names[1]);
        sh_buf_free(&sw);
        return r;
    }
    if (isdir[0] || isdir[1]) {
        int d = isdir[0] ? 0 : 1;
        if (strcmp(names[1 - d], "-") == 0) {
            sh_err(p, "cannot compare '-' to a directory");
            return 2;
        }
        char *joined = diff_in_dir(names[d], names[1 - d]);
        if (!joined) {
            sh_oom(p);
            return 2;
        }
        names[d] = joined;
        int r = diff_files(p, &o, names[0], names[1], NULL);
        free(joined);
        return r;
    }
    return diff_files(p, &o, names[0], names[1], NULL);
}

/* ---- mktemp ---- */

/* Fills n bytes with letters and digits from the system's entropy. */
static int random_name(char *s, size_t n)
{
    static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char bytes[256];
    while (n > 0) {
        size_t k = n < sizeof(bytes) ? n : sizeof(bytes);
        if (getentropy(bytes, k) < 0)
            return -1;
        for (size_t i = 0; i < k; i++) {
            /* 248 is the largest multiple of 62 below 256: no bias. */
            if (bytes[i] >= 248) {
                if (getentropy(&bytes[i], 1) < 0)
                    return -1;
                i--;
                continue;
            }
            *s++ = chars[bytes[i] % 62];
        }
        n -= k;
    }
    return 0;
}

static int mktemp_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "directory", 0, 'd' }, { "dry-run", 0, 'u' }, { "quiet", 0, 'q' },
        { "suffix", 1, 'S' },    { "tmpdir", 2, 'T' },  { NULL, 0, 0 },
    };
    int dir = 0, dry = 0, quiet = 0, in_tmpdir = 0, c;
    const char *suffix = NULL, *tmpdir = NULL;
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "duqp:t", longs)) != -1) {
        switch (c) {
        case 'd': dir = 1; break;
        case 'u': dry = 1; break;
        case 'q': quiet = 1; break;
        case 'S': suffix = o.arg; break;
        case 'p':
        case 'T': in_tmpdir = 1; tmpdir = o.arg; break;
        case 't': in_tmpdir = 1; break;
        default: return 1;
        }
    }
    if (argc - o.ind > 1) {
        sh_err(p, "too many templates");
        return 1;
    }
    const char *tmpl = o.ind < argc ? argv[o.ind] : NULL;
    if (!tmpl) {
        tmpl = "tmp.XXXXXXXXXX";
        in_tmpdir = 1;
    }
    if (in_tmpdir && (!tmpdir || !*tmpdir)) {
        tmpdir = sh_getenv(p, "TMPDIR");
        if (!tmpdir || !*tmpdir)
            tmpdir = "/tmp";
    }
    if (in_tmpdir && strchr(tmpl, '/')) {
        sh_err(p, "invalid template, '%s', contains directory separator", tmpl);
        return 1;
    }
    /* The X's replaced are the last run of them; what follows is a suffix. */
    size_t tl = strlen(tmpl), end = tl;
    if (!suffix)
        while (end > 0 && tmpl[end - 1] != 'X')
            end--;
    size_t start = end;
    while (start > 0 && tmpl[start - 1] == 'X')
        start--;
    if (end - start < 3) {
        if (!quiet)
            sh_err(p, "too few X's in template '%s'", tmpl);
        return 1;
    }
    if (suffix && strchr(suffix, '/')) {
        sh_err(p, "invalid suffix '%s', contains directory separator", suffix);
        return 1;
    }
    sh_buf name = { 0 };
    int failed = 0;
    if (in_tmpdir) {
        failed |= sh_buf_adds(&name, tmpdir);
        if (name.len && name.data[name.len - 1] != '/')
            failed |= sh_buf_addc(&name, '/');
    }
    size_t x_at = name.len + start;
    failed |= sh_buf_adds(&name, tmpl) | sh_buf_adds(&name, suffix ? suffix : "");
    if (failed || !sh_buf_cstr(&name)) {
        sh_buf_free(&name);
        return sh_oom(p);
    }
    int status = 1, e = EEXIST;
    for (int tries = 0; tries < 1000 && e == EEXIST; tries++) {
        if (random_name(name.data + x_at, end - start) < 0) {
            e = errno;
            break;
        }
        char *full = sh_path(p, name.data);
        if (!full) {
            e = ENOMEM;
            break;
        }
        struct stat st;
        if (dry) {
            e = lstat(full, &st) == 0 ? EEXIST : 0;
        } else if (dir) {
            e = mkdir(full, 0700) == 0 ? 0 : errno;
        } else {
            int fd = open(full, O_WRONLY | O_CREAT | O_EXCL, 0600);
            e = fd >= 0 ? 0 : errno;
            if (fd >= 0)
                close(fd);
        }
        free(full);
    }
    if (e == 0) {
        status = sh_outs(p, name.data) < 0 || sh_outc(p, '\n') < 0 ? SH_STATUS_PIPE : 0;
    } else if (!quiet) {
        memcpy(name.data + x_at, tmpl + start, end - start);
        sh_err(p, "failed to create %s via template '%s': %s", dir ? "directory" : "file",
               name.data, strerror(e));
    }
    sh_buf_free(&name);
    return status;
}

/* ---- the table ---- */

const sh_applet sh_applets_util[] = {
    { "test", test_main, "evaluate a conditional expression" },
    { "[", test_main, "evaluate a conditional expression" },
    { "expr", expr_main, "evaluate an expression" },
    { "true", true_main, "do nothing, successfully" },
    { "false", false_main, "do nothing, unsuccessfully" },
    { "env", env_main, "print the environment or run a command in it" },
    { "printenv", printenv_main, "print environment variables" },
    { "xargs", xargs_main, "build and run command lines from standard input" },
    { "base64", base64_main, "base64 encode or decode" },
    { "md5sum", md5sum_main, "print or check MD5 checksums" },
    { "sha1sum", sha1sum_main, "print or check SHA-1 checksums" },
    { "sha256sum", sha256sum_main, "print or check SHA-256 checksums" },
    { "date", date_main, "print the date and time" },
    { "diff", diff_main, "compare files line by line" },
    { "mktemp", mktemp_main, "create a temporary file or directory" },
    { "sleep", sleep_main, "wait for a number of seconds" },
    { "whoami", whoami_main, "print the user name" },
    { "hostname", hostname_main, "print the host name" },
    { "uname", uname_main, "print system information" },
    { "nproc", nproc_main, "print the number of processors" },
    { NULL, NULL, NULL },
};
