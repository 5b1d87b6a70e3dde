/* Text applets: echo, printf, grep, head, tail, sort, uniq, wc, cut, tr, tee,
 * seq and the other line- and byte-oriented filters of coreutils, written to
 * match the GNU tools' output and exit statuses. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sh.h"

/* ---------------------------------------------------------------- helpers */

/* A line of a loaded buffer: its bytes, without the terminator. */
typedef struct text_line {
    const char *s;
    size_t len;
} text_line;

/* Reports an allocation failure and returns the failing status. */
static int oom(sh_proc *p)
{
    sh_err(p, "memory exhausted");
    return 1;
}

/* Takes the next line of [*pos, end), split at delim: 1, or 0 at the end. */
static int next_line(const char **pos, const char *end, char delim, text_line *line)
{
    if (*pos >= end)
        return 0;
    const char *nl = memchr(*pos, delim, (size_t)(end - *pos));
    line->s = *pos;
    line->len = (size_t)((nl ? nl : end) - *pos);
    *pos = nl ? nl + 1 : end;
    return 1;
}

/* Appends the lines of data to *lines (a growable array of *n, capacity *cap).
 * 0, or -1 when out of memory. */
static int add_lines(const char *data, size_t len, char delim, text_line **lines, size_t *n,
                     size_t *cap)
{
    const char *pos = data, *end = data + len;
    text_line l;
    while (next_line(&pos, end, delim, &l)) {
        if (*n == *cap) {
            size_t c = *cap ? *cap * 2 : 64;
            text_line *g = realloc(*lines, c * sizeof(*g));
            if (!g)
                return -1;
            *lines = g;
            *cap = c;
        }
        (*lines)[(*n)++] = l;
    }
    return 0;
}

/* Parses a non-negative decimal count with GNU's optional multiplier suffixes
 * (b, K, KB, KiB, M, MB, ...). 0, or -1 when malformed; huge values saturate. */
static int parse_size(const char *s, uintmax_t *v)
{
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    uintmax_t n = strtoumax(s, &end, 10);
    if (errno == ERANGE)
        n = UINTMAX_MAX;
    if (*end) {
        uintmax_t mult = 512;
        if (!(*end == 'b' && end[1] == '\0') && sh_size_suffix(end, "KMGTPEZYkmgtpezy", &mult) < 0)
            return -1;
        n = n > UINTMAX_MAX / mult ? UINTMAX_MAX : n * mult;
    }
    *v = n;
    return 0;
}

/* The operands of a file-reading applet: argv[ind..argc), or "-" when none. */
typedef struct file_args {
    char *const *names;
    int count;
} file_args;

/* The operands from argv[ind]: standard input when there are none. */
static file_args operands(int argc, char **argv, int ind)
{
    static char *const stdin_only[] = { "-", NULL };
    file_args f = { argv + ind, argc - ind };
    if (f.count <= 0) {
        f.names = stdin_only;
        f.count = 1;
    }
    return f;
}

/* Checks that argv[ind..argc) are two operands (comm, join): 0, or -1 after
 * GNU's message. */
static int two_operands(sh_proc *p, int argc, char **argv, int ind)
{
    if (argc - ind == 2)
        return 0;
    if (argc - ind < 2)
        sh_err(p, argc - ind ? "missing operand after '%s'" : "missing operand", argv[argc - 1]);
    else
        sh_err(p, "extra operand '%s'", argv[ind + 2]);
    return -1;
}

/* Loads a whole input into *data (caller frees). A directory is an error as
 * GNU's readers report it. 0, or -1 after the message. */
static int load_input(sh_proc *p, const char *path, char **data, size_t *len)
{
    struct stat st;
    int r = strcmp(path, "-") == 0 ? 1 : sh_stat(p, path, &st, 1);
    if (r == 0 && S_ISDIR(st.st_mode)) {
        sh_err(p, "%s: Is a directory", path);
        return -1;
    }
    if (r < 0 && errno == ENOMEM) {
        oom(p);
        return -1;
    }
    return sh_load(p, path, data, len);
}

/* An output buffer that remembers an allocation failure, so that building
 * output needs one check at the end instead of one per byte. */
typedef struct obuf {
    sh_buf b;
    int failed;
} obuf;

static void ob_add(obuf *o, const void *s, size_t n)
{
    if (!o->failed && sh_buf_add(&o->b, s, n) < 0)
        o->failed = 1;
}

static void ob_c(obuf *o, char c)
{
    ob_add(o, &c, 1);
}

static void ob_s(obuf *o, const char *s)
{
    ob_add(o, s, strlen(s));
}

/* Sends the buffer to stdout and frees it: 0, SH_STATUS_PIPE when the reader
 * is gone, or 1 after a failed allocation. */
static int ob_flush(sh_proc *p, obuf *o)
{
    int r = 0;
    if (o->failed)
        r = oom(p);
    else if (o->b.len && sh_out(p, o->b.data, o->b.len) < 0)
        r = SH_STATUS_PIPE;
    sh_buf_free(&o->b);
    return r;
}

/* The three escape dialects: echo -e, printf's format, printf's %b. */
enum esc_mode { ESC_ECHO, ESC_FORMAT, ESC_ARG };

static unsigned hex_value(char c)
{
    return isdigit((unsigned char)c) ? (unsigned)(c - '0')
                                     : (unsigned)(tolower((unsigned char)c) - 'a' + 10);
}

/* Decodes the backslash escape at s (just after the backslash) as bash does
 * in the given dialect, appending the result to o. Returns how many bytes of s
 * it used; sets *stop for \c (echo, %b). An unknown escape keeps its
 * backslash. */
static size_t decode_escape(const char *s, obuf *o, enum esc_mode mode, int *stop)
{
    static const char from[] = "abeEfnrtv\\\"'?", to[] = "\a\b\033\033\f\n\r\t\v\\\"'?";
    const char *k = *s ? strchr(from, *s) : NULL;
    /* The quotes and '?' (the last three) are escapes of the format only. */
    if (k && (k - from < (ptrdiff_t)sizeof(from) - 4 || mode == ESC_FORMAT)) {
        ob_c(o, to[k - from]);
        return 1;
    }
    if (*s == 'c' && mode != ESC_FORMAT) {
        *stop = 1;
        return 1;
    }
    if (*s >= '0' && *s <= '7' && (*s == '0' || mode != ESC_ECHO)) {
        size_t i = (*s == '0' && mode != ESC_FORMAT) ? 1 : 0, max = i + 3;
        unsigned v = 0;
        for (; i < max && s[i] >= '0' && s[i] <= '7'; i++)
            v = v * 8 + (unsigned)(s[i] - '0');
        ob_c(o, (char)v);
        return i;
    }
    if (*s == 'x' && isxdigit((unsigned char)s[1])) {
        size_t i = 1;
        unsigned v = 0;
        for (; i < 3 && isxdigit((unsigned char)s[i]); i++)
            v = v * 16 + hex_value(s[i]);
        ob_c(o, (char)v);
        return i;
    }
    if ((*s == 'u' || *s == 'U') && isxdigit((unsigned char)s[1])) {
        size_t i = 1, max = *s == 'u' ? 5 : 9;
        uint32_t v = 0;
        for (; i < max && isxdigit((unsigned char)s[i]); i++)
            v = v * 16 + hex_value(s[i]);
        /* The C locale has no encoding for other characters: bash keeps
         * the escape then, with the digits in upper case. */
        if (v < 0x80) {
            ob_c(o, (char)v);
        } else {
            char kept[16];
            snprintf(kept, sizeof(kept), *s == 'u' ? "\\u%04" PRIX32 : "\\U%08" PRIX32, v);
            ob_s(o, kept);
        }
        return i;
    }
    ob_c(o, '\\');
    return 0;
}

/* Expands the escapes of s into o: 1 if \c ended the output. */
static int expand_escapes(const char *s, obuf *o, enum esc_mode mode)
{
    int stop = 0;
    while (*s && !stop) {
        if (*s == '\\' && s[1]) {
            s++;
            s += decode_escape(s, o, mode, &stop);
        } else {
            ob_c(o, *s++);
        }
    }
    return stop;
}

/* ---------------------------------------------------------------- echo */

/* echo as bash's builtin: -n, -e, -E (clustered), all else is text. */
static int echo_main(sh_proc *p, int argc, char **argv)
{
    int newline = 1, escapes = 0, i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0' || strspn(a + 1, "neE") != strlen(a + 1))
            break;
        for (a++; *a; a++) {
            if (*a == 'n')
                newline = 0;
            else
                escapes = *a == 'e';
        }
    }
    obuf o = { 0 };
    int stop = 0;
    for (; i < argc && !stop; i++) {
        if (escapes)
            stop = expand_escapes(argv[i], &o, ESC_ECHO);
        else
            ob_s(&o, argv[i]);
        if (i + 1 < argc && !stop)
            ob_c(&o, ' ');
    }
    if (newline && !stop)
        ob_c(&o, '\n');
    return ob_flush(p, &o);
}

/* ---------------------------------------------------------------- printf */

/* The state of one printf run: its arguments and whether one was malformed. */
typedef struct printf_state {
    sh_proc *p;
    char **args;
    int nargs, next;
    int status;
} printf_state;

/* The next argument, or NULL when they are used up. */
static const char *printf_arg(printf_state *st)
{
    return st->next < st->nargs ? st->args[st->next++] : NULL;
}

/* Converts an argument to an integer as bash does: 'c gives the byte's code,
 * else strtoimax with base prefixes; trailing junk is an error (status 1). */
static intmax_t printf_int(printf_state *st, const char *a)
{
    if (!a || !*a)
        return 0;
    if (a[0] == '\'' || a[0] == '"')
        return (unsigned char)a[1];
    char *end;
    errno = 0;
    intmax_t v;
    if (a[strspn(a, " \t")] == '-') {
        v = strtoimax(a, &end, 0);
    } else {
        /* Unsigned, so that %u and %x take values up to 2^64 - 1. */
        uintmax_t u = strtoumax(a, &end, 0);
        v = errno == ERANGE ? INTMAX_MAX : (intmax_t)u;
    }
    if (end == a || *end) {
        sh_err(st->p, "%s: invalid number", a);
        st->status = 1;
    } else if (errno == ERANGE) {
        sh_err(st->p, "warning: %s: Numerical result out of range", a);
    }
    return v;
}

/* Converts an argument to a floating-point number (status 1 when malformed). */
static double printf_float(printf_state *st, const char *a)
{
    if (!a || !*a)
        return 0;
    if (a[0] == '\'' || a[0] == '"')
        return (unsigned char)a[1];
    char *end;
    double v = strtod(a, &end);
    if (end == a || *end) {
        sh_err(st->p, "%s: invalid number", a);
        st->status = 1;
    }
    return v;
}

/* Appends n bytes of s padded with spaces to width (left-justified when
 * left), after cutting them to prec when prec >= 0. */
static void pad_string(obuf *o, const char *s, size_t n, int width, int prec, int left)
{
    if (prec >= 0 && (size_t)prec < n)
        n = (size_t)prec;
    size_t pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;
    for (size_t i = 0; !left && i < pad; i++)
        ob_c(o, ' ');
    ob_add(o, s, n);
    for (size_t i = 0; left && i < pad; i++)
        ob_c(o, ' ');
}

/* Appends s quoted for the shell with backslashes, as bash's %q does. */
static void shell_quote(obuf *o, const char *s)
{
    if (!*s) {
        ob_s(o, "''");
        return;
    }
    for (; *s; s++) {
        if (!isalnum((unsigned char)*s) && !strchr("_./-+,:=@%^", *s) && !((unsigned char)*s & 0x80))
            ob_c(o, '\\');
        ob_c(o, *s);
    }
}

/* Reads a field width or precision: digits, or '*' taking an argument. The
 * largest accepted value keeps one conversion's output reasonable. */
static int printf_number(printf_state *st, const char **f, int *value)
{
    if (**f == '*') {
        (*f)++;
        intmax_t v = printf_int(st, printf_arg(st));
        if (v > (1 << 24) || v < -(1 << 24))
            return -1;
        *value = (int)v;
        return 0;
    }
    long v = 0;
    while (isdigit((unsigned char)**f)) {
        v = v * 10 + (**f - '0');
        if (v > (1 << 24))
            return -1;
        (*f)++;
    }
    *value = (int)v;
    return 0;
}

/* Formats one conversion starting at f (just after '%'); returns the position
 * after it, or NULL after an error that ends printf. */
static const char *printf_conversion(printf_state *st, const char *f, obuf *o, int *stop)
{
    char flags[8];
    size_t nf = 0;
    while (*f && strchr("-+ #0'", *f)) {
        if (nf < sizeof(flags) - 1)
            flags[nf++] = *f;
        f++;
    }
    flags[nf] = '\0';
    int width = 0, prec = -1, has_prec = 0;
    if (printf_number(st, &f, &width) < 0) {
        sh_err(st->p, "invalid field width");
        return NULL;
    }
    if (*f == '.') {
        f++;
        has_prec = 1;
        if (printf_number(st, &f, &prec) < 0) {
            sh_err(st->p, "invalid precision");
            return NULL;
        }
    }
    while (*f && strchr("hlLjzt", *f))
        f++;
    char conv = *f;
    if (!conv || !strchr("diouxXcsbqfFeEgGaA", conv)) {
        sh_err(st->p, "`%c': invalid format character", conv ? conv : '%');
        st->status = 1;
        return NULL;
    }
    int left = strchr(flags, '-') != NULL;
    if (width < 0) {
        left = 1;
        width = -width;
    }
    if (!has_prec)
        prec = -1;
    const char *a = printf_arg(st);
    char spec[32];
    switch (conv) {
    case 's':
        pad_string(o, a ? a : "", a ? strlen(a) : 0, width, prec, left);
        break;
    case 'c':
        /* An empty or missing argument prints a NUL byte, as bash does. */
        pad_string(o, a ? a : "", 1, width, -1, left);
        break;
    case 'b': {
        obuf e = { 0 };
        *stop = expand_escapes(a ? a : "", &e, ESC_ARG);
        if (e.failed)
            o->failed = 1;
        pad_string(o, e.b.data ? e.b.data : "", e.b.len, width, prec, left);
        sh_buf_free(&e.b);
        break;
    }
    case 'q': {
        obuf e = { 0 };
        shell_quote(&e, a ? a : "");
        if (e.failed)
            o->failed = 1;
        pad_string(o, e.b.data ? e.b.data : "", e.b.len, width, prec, left);
        sh_buf_free(&e.b);
        break;
    }
    case 'd':
    case 'i':
    case 'o':
    case 'u':
    case 'x':
    case 'X': {
        intmax_t v = printf_int(st, a);
        snprintf(spec, sizeof(spec), "%%%s*.*j%c", flags, conv);
        if (!o->failed && sh_buf_addf(&o->b, spec, width, prec, v) < 0)
            o->failed = 1;
        break;
    }
    default: {
        /* double, not long double: wasi-libc's printf formats long double
         * only when linked with its separate long double library. */
        double v = printf_float(st, a);
        snprintf(spec, sizeof(spec), "%%%s*.*%c", flags, conv);
        if (!o->failed && sh_buf_addf(&o->b, spec, width, prec, v) < 0)
            o->failed = 1;
        break;
    }
    }
    return f + 1;
}

/* printf as bash's builtin: the format is reused while arguments remain. */
static int printf_main(sh_proc *p, int argc, char **argv)
{
    int i = 1;
    if (i < argc && strcmp(argv[i], "--") == 0)
        i++;
    if (i >= argc) {
        sh_err(p, "usage: printf [-v var] format [arguments]");
        return 2;
    }
    if (argv[i][0] == '-' && argv[i][1] && strcmp(argv[i], "-") != 0) {
        sh_err(p, "%s: invalid option", argv[i]);
        return 2;
    }
    printf_state st = { p, argv + i + 1, argc - i - 1, 0, 0 };
    const char *fmt = argv[i];
    obuf o = { 0 };
    int stop = 0;
    for (;;) {
        int before = st.next;
        for (const char *f = fmt; *f && !stop && !o.failed;) {
            if (*f == '\\' && f[1]) {
                f++;
                f += decode_escape(f, &o, ESC_FORMAT, &stop);
            } else if (*f == '%' && f[1] == '%') {
                ob_c(&o, '%');
                f += 2;
            } else if (*f == '%') {
                f = printf_conversion(&st, f + 1, &o, &stop);
                if (!f) {
                    stop = 1;
                    st.status = 1;
                    break;
                }
            } else {
                ob_c(&o, *f++);
            }
        }
        if (stop || o.failed || st.next >= st.nargs || st.next == before)
            break;
    }
    int r = ob_flush(p, &o);
    return r ? r : st.status;
}

/* ---------------------------------------------------------------- head, tail */

/* Copies argv without a leading "-NUM" (the obsolete count option of head and
 * tail), which it stores in *count. Caller frees the copy; NULL when out of
 * memory. */
static char **strip_legacy_count(int *argc, char **argv, const char **count)
{
    char **av = malloc(sizeof(char *) * (size_t)(*argc + 1));
    if (!av)
        return NULL;
    int n = 0;
    *count = NULL;
    for (int i = 0; i < *argc; i++) {
        const char *a = argv[i];
        if (i == 1 && a[0] == '-' && a[1] && strspn(a + 1, "0123456789") == strlen(a + 1)) {
            *count = a + 1;
            continue;
        }
        av[n++] = argv[i];
    }
    av[n] = NULL;
    *argc = n;
    return av;
}

/* The last occurrence of byte c in s[0..n), or NULL. */
static const char *last_byte(const char *s, size_t n, char c)
{
    while (n > 0)
        if (s[--n] == c)
            return s + n;
    return NULL;
}

/* The part of data that head or tail keeps: [*from, *to). lines selects
 * lines (ending in delim) rather than bytes; from_start counts from the
 * beginning (head N, tail +N), else from the end (head -N, tail N). */
static void select_part(const char *data, size_t len, uintmax_t n, int lines, int tail,
                        int from_start, char delim, size_t *from, size_t *to)
{
    *from = 0;
    *to = len;
    if (!lines) {
        size_t k = n > len ? len : (size_t)n;
        if (!tail)
            *to = from_start ? k : len - k;
        else if (from_start)
            *from = n == 0 ? 0 : (n - 1 > len ? len : (size_t)(n - 1));
        else
            *from = len - k;
        return;
    }
    if (from_start) {
        /* The offset just past the first m lines. */
        uintmax_t m = tail ? (n ? n - 1 : 0) : n;
        size_t off = 0;
        for (uintmax_t i = 0; i < m && off < len; i++) {
            const char *nl = memchr(data + off, delim, len - off);
            off = nl ? (size_t)(nl - data) + 1 : len;
        }
        if (tail)
            *from = off;
        else
            *to = off;
        return;
    }
    /* The offset where the last n lines begin; an unterminated last line
     * counts as a line. */
    size_t off = n == 0 ? len : 0, end = len;
    if (end > 0 && data[end - 1] == delim)
        end--;
    for (uintmax_t seen = 0; n > 0;) {
        const char *nl = last_byte(data, end, delim);
        if (!nl)
            break;
        if (++seen == n) {
            off = (size_t)(nl - data) + 1;
            break;
        }
        end = (size_t)(nl - data);
    }
    if (tail)
        *from = off;
    else
        *to = off;
}

/* head and tail: -n/-c with GNU's count forms, -q/-v headers, -z. */
static int head_tail_main(sh_proc *p, int argc, char **argv, int tail)
{
    static const sh_longopt longs[] = {
        { "lines", 1, 'n' },   { "bytes", 1, 'c' },          { "quiet", 0, 'q' },
        { "silent", 0, 'q' },  { "verbose", 0, 'v' },        { "zero-terminated", 0, 'z' },
        { "follow", 2, 'f' },  { NULL, 0, 0 },
    };
    const char *legacy;
    char **av = strip_legacy_count(&argc, argv, &legacy);
    if (!av)
        return oom(p);
    const char *count = legacy ? legacy : "10";
    int lines = 1, headers = -1, status = 0;
    char delim = '\n';
    sh_opt o = { .ind = 1 };
    int c;
    while ((c = sh_getopt(p, &o, argc, av, tail ? "n:c:qvzfF" : "n:c:qvz", longs)) != -1) {
        switch (c) {
        case 'n':
        case 'c':
            lines = c == 'n';
            count = o.arg;
            break;
        case 'q':
            headers = 0;
            break;
        case 'v':
            headers = 1;
            break;
        case 'z':
            delim = '\0';
            break;
        case 'f':
        case 'F':
            sh_err(p, "following files (-f) is not supported: input is read once, whole");
            free(av);
            return 1;
        default:
            free(av);
            return 1;
        }
    }
    int from_start = !tail;
    const char *num = count;
    if (*num == '+' && tail) {
        from_start = 1;
        num++;
    } else if (*num == '-') {
        if (!tail)
            from_start = 0;
        num++;
    } else if (*num == '+') {
        num++;
    }
    uintmax_t n;
    if (parse_size(num, &n) < 0) {
        sh_err(p, "invalid number of %s: '%s'", lines ? "lines" : "bytes", count);
        free(av);
        return 1;
    }
    file_args f = operands(argc, av, o.ind);
    if (headers < 0)
        headers = f.count > 1;
    int printed = 0;
    for (int i = 0; i < f.count; i++) {
        char *data;
        size_t len;
        if (load_input(p, f.names[i], &data, &len) < 0) {
            status = 1;
            continue;
        }
        int r = 0;
        if (headers) {
            const char *name = strcmp(f.names[i], "-") == 0 ? "standard input" : f.names[i];
            r = sh_printf(p, "%s==> %s <==\n", printed ? "\n" : "", name);
        }
        printed = 1;
        size_t from, to;
        select_part(data, len, n, lines, tail, from_start, delim, &from, &to);
        if (r == 0 && to > from)
            r = sh_out(p, data + from, to - from);
        free(data);
        if (r < 0) {
            free(av);
            return SH_STATUS_PIPE;
        }
    }
    free(av);
    return status;
}

static int head_main(sh_proc *p, int argc, char **argv)
{
    return head_tail_main(p, argc, argv, 0);
}

static int tail_main(sh_proc *p, int argc, char **argv)
{
    return head_tail_main(p, argc, argv, 1);
}

/* ---------------------------------------------------------------- wc */

/* The counts wc reports for one input. */
typedef struct wc_counts {
    uintmax_t lines, words, chars, bytes, maxlen;
} wc_counts;

/* Counts as GNU wc does in the C locale: a word is a run of non-space bytes
 * holding at least one printable byte; the line length expands tabs. */
static void wc_count(const char *s, size_t n, wc_counts *c)
{
    int in_word = 0;
    uintmax_t pos = 0;
    c->bytes += n;
    c->chars += n;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '\n' || ch == '\r' || ch == '\f') {
            if (ch == '\n')
                c->lines++;
            if (pos > c->maxlen)
                c->maxlen = pos;
            pos = 0;
        } else if (ch == '\t') {
            pos += 8 - pos % 8;
        } else if (isprint(ch)) {
            pos++;
        }
        if (isspace(ch))
            in_word = 0;
        else if (isprint(ch) && !in_word) {
            in_word = 1;
            c->words++;
        }
    }
    if (pos > c->maxlen)
        c->maxlen = pos;
}

/* Prints one row of counts (the selected columns) and the name, if any. */
static int wc_print(sh_proc *p, const wc_counts *c, const int *show, int width, const char *name)
{
    const uintmax_t v[5] = { c->lines, c->words, c->chars, c->bytes, c->maxlen };
    obuf o = { 0 };
    int first = 1;
    for (int k = 0; k < 5; k++) {
        if (!show[k])
            continue;
        if (!o.failed && sh_buf_addf(&o.b, "%s%*ju", first ? "" : " ", width, v[k]) < 0)
            o.failed = 1;
        first = 0;
    }
    if (name) {
        ob_c(&o, ' ');
        ob_s(&o, name);
    }
    ob_c(&o, '\n');
    return ob_flush(p, &o);
}

/* wc: -l -w -m -c -L, a total line for several files, GNU's column width
 * (the digits of the files' total size, at least 7 when reading a pipe). */
static int wc_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "lines", 0, 'l' }, { "words", 0, 'w' }, { "chars", 0, 'm' },
        { "bytes", 0, 'c' }, { "max-line-length", 0, 'L' }, { NULL, 0, 0 },
    };
    int show[5] = { 0 }, any = 0, c;
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "lwmcL", longs)) != -1) {
        const char *k = strchr("lwmcL", c);
        if (c == '?' || !k)
            return 1;
        show[k - "lwmcL"] = 1;
        any = 1;
    }
    if (!any)
        show[0] = show[1] = show[3] = 1;
    file_args f = operands(argc, argv, o.ind);
    int shown = show[0] + show[1] + show[2] + show[3] + show[4];
    /* The width, from what stat says of the inputs as GNU computes it. */
    int width = 1;
    if (!(f.count == 1 && shown == 1)) {
        int min_width = 1;
        uintmax_t total = 0;
        for (int i = 0; i < f.count; i++) {
            struct stat st;
            char *full = strcmp(f.names[i], "-") == 0 ? NULL : sh_path(p, f.names[i]);
            if (full && stat(full, &st) == 0) {
                if (S_ISREG(st.st_mode))
                    total += (uintmax_t)st.st_size;
                else
                    min_width = 7;
            } else if (!full) {
                min_width = 7;
            }
            free(full);
        }
        for (; total >= 10; total /= 10)
            width++;
        if (width < min_width)
            width = min_width;
    }
    wc_counts sum = { 0 };
    int status = 0;
    for (int i = 0; i < f.count; i++) {
        char *data;
        size_t len;
        if (load_input(p, f.names[i], &data, &len) < 0) {
            status = 1;
            continue;
        }
        wc_counts one = { 0 };
        wc_count(data, len, &one);
        free(data);
        sum.lines += one.lines;
        sum.words += one.words;
        sum.chars += one.chars;
        sum.bytes += one.bytes;
        if (one.maxlen > sum.maxlen)
            sum.maxlen = one.maxlen;
        const char *name = strcmp(f.names[i], "-") == 0 && o.ind >= argc ? NULL : f.names[i];
        int r = wc_print(p, &one, show, width, name);
        if (r)
            return r;
    }
    if (f.count > 1) {
        int r = wc_print(p, &sum, show, width, "total");
        if (r)
            return r;
    }
    return status;
}

/* ---------------------------------------------------------------- cut */

/* A closed range of 1-based positions; hi == SIZE_MAX is open-ended. */
typedef struct cut_range {
    size_t lo, hi;
} cut_range;

static int cut_range_cmp(const void *a, const void *b)
{
    const cut_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Parses a list like "1,3-5,7-" into sorted, merged ranges (caller frees).
 * NULL after printing GNU's message. */
static cut_range *cut_parse_list(sh_proc *p, const char *list, int fields, size_t *n)
{
    size_t cap = strlen(list) / 2 + 1, count = 0;
    cut_range *r = malloc(cap * sizeof(*r));
    if (!r) {
        oom(p);
        return NULL;
    }
    const char *s = list;
    for (;;) {
        size_t lo = 1, hi;
        int has_lo = 0, has_hi = 0, dash = 0;
        char *end;
        if (isdigit((unsigned char)*s)) {
            errno = 0;
            unsigned long long v = strtoull(s, &end, 10);
            lo = errno == ERANGE || v > SIZE_MAX - 1 ? SIZE_MAX - 1 : (size_t)v;
            s = end;
            has_lo = 1;
        }
        hi = lo;
        if (*s == '-') {
            dash = 1;
            s++;
            hi = SIZE_MAX;
            if (isdigit((unsigned char)*s)) {
                errno = 0;
                unsigned long long v = strtoull(s, &end, 10);
                hi = errno == ERANGE || v > SIZE_MAX - 1 ? SIZE_MAX - 1 : (size_t)v;
                s = end;
                has_hi = 1;
            }
        }
        if ((*s && *s != ',' && *s != ' ') || (!has_lo && !has_hi)) {
            if (!has_lo && !has_hi && dash)
                sh_err(p, "invalid range with no endpoint: -");
            else
                sh_err(p, "invalid %s list", fields ? "field" : "byte/character position");
            free(r);
            return NULL;
        }
        if ((has_lo && lo == 0) || (has_hi && hi == 0)) {
            sh_err(p, "%s are numbered from 1", fields ? "fields" : "byte/character positions");
            free(r);
            return NULL;
        }
        if (hi < lo) {
            sh_err(p, "invalid decreasing range");
            free(r);
            return NULL;
        }
        r[count].lo = lo;
        r[count].hi = hi;
        count++;
        if (!*s)
            break;
        s++;
        if (count == cap) {
            cut_range *g = realloc(r, 2 * cap * sizeof(*r));
            if (!g) {
                free(r);
                oom(p);
                return NULL;
            }
            r = g;
            cap *= 2;
        }
    }
    qsort(r, count, sizeof(*r), cut_range_cmp);
    size_t m = 0;
    for (size_t i = 0; i < count; i++) {
        if (m > 0 && (r[m - 1].hi == SIZE_MAX || r[i].lo <= r[m - 1].hi + 1)) {
            if (r[i].hi > r[m - 1].hi)
                r[m - 1].hi = r[i].hi;
        } else {
            r[m++] = r[i];
        }
    }
    *n = m;
    return r;
}

/* Complements merged ranges (for --complement): caller frees; NULL on OOM. */
static cut_range *cut_complement(const cut_range *r, size_t n, size_t *out_n)
{
    cut_range *c = malloc((n + 1) * sizeof(*c));
    if (!c)
        return NULL;
    size_t m = 0, next = 1;
    for (size_t i = 0; i < n; i++) {
        if (r[i].lo > next)
            c[m++] = (cut_range){ next, r[i].lo - 1 };
        next = r[i].hi == SIZE_MAX ? SIZE_MAX : r[i].hi + 1;
    }
    if (next != SIZE_MAX)
        c[m++] = (cut_range){ next, SIZE_MAX };
    *out_n = m;
    return c;
}

/* Cuts one line into o: bytes/characters by position, or fields. */
static void cut_line(obuf *o, text_line l, const cut_range *r, size_t n, int fields, char delim,
                     const char *out_delim, int only_delimited, char term)
{
    if (!fields) {
        for (size_t i = 0; i < n && r[i].lo <= l.len; i++) {
            size_t hi = r[i].hi > l.len ? l.len : r[i].hi;
            if (i > 0 && out_delim)
                ob_s(o, out_delim);
            ob_add(o, l.s + r[i].lo - 1, hi - r[i].lo + 1);
        }
        ob_c(o, term);
        return;
    }
    if (!memchr(l.s, delim, l.len)) {
        if (!only_delimited) {
            ob_add(o, l.s, l.len);
            ob_c(o, term);
        }
        return;
    }
    size_t field = 1, k = 0, start = 0;
    int first = 1;
    char d[2] = { delim, '\0' };
    for (size_t i = 0; i <= l.len; i++) {
        if (i < l.len && l.s[i] != delim)
            continue;
        while (k < n && r[k].hi < field)
            k++;
        if (k < n && r[k].lo <= field) {
            if (!first)
                ob_s(o, out_delim ? out_delim : d);
            ob_add(o, l.s + start, i - start);
            first = 0;
        }
        field++;
        start = i + 1;
    }
    ob_c(o, term);
}

/* cut: -b/-c/-f lists, -d, -s, --complement, --output-delimiter, -z. */
static int cut_main(sh_proc *p, int argc, char **argv)
{
    enum { OPT_COMPLEMENT = 256, OPT_OUTDELIM };
    static const sh_longopt longs[] = {
        { "bytes", 1, 'b' },           { "characters", 1, 'c' },
        { "fields", 1, 'f' },          { "delimiter", 1, 'd' },
        { "only-delimited", 0, 's' },  { "complement", 0, OPT_COMPLEMENT },
        { "output-delimiter", 1, OPT_OUTDELIM }, { "zero-terminated", 0, 'z' },
        { NULL, 0, 0 },
    };
    const char *list = NULL, *out_delim = NULL;
    int mode = 0, only_delimited = 0, complement = 0, c, has_delim = 0;
    char delim = '\t', term = '\n';
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "b:c:f:d:snz", longs)) != -1) {
        switch (c) {
        case 'b':
        case 'c':
        case 'f':
            if (mode) {
                sh_err(p, "only one type of list may be specified");
                return 1;
            }
            mode = c;
            list = o.arg;
            break;
        case 'd':
            if (strlen(o.arg) > 1) {
                sh_err(p, "the delimiter must be a single character");
                return 1;
            }
            delim = o.arg[0];
            has_delim = 1;
            break;
        case 's':
            only_delimited = 1;
            break;
        case 'n':
            break;
        case 'z':
            term = '\0';
            break;
        case OPT_COMPLEMENT:
            complement = 1;
            break;
        case OPT_OUTDELIM:
            out_delim = o.arg;
            break;
        default:
            return 1;
        }
    }
    if (!mode) {
        sh_err(p, "you must specify a list of bytes, characters, or fields");
        return 1;
    }
    if (mode != 'f' && (has_delim || only_delimited)) {
        sh_err(p, has_delim ? "an input delimiter may be specified only when operating on fields"
                            : "suppressing non-delimited lines makes sense\n"
                              "\tonly when operating on fields");
        return 1;
    }
    size_t n;
    cut_range *r = cut_parse_list(p, list, mode == 'f', &n);
    if (!r)
        return 1;
    if (complement) {
        size_t m;
        cut_range *cr = cut_complement(r, n, &m);
        free(r);
        if (!cr)
            return oom(p);
        r = cr;
        n = m;
    }
    file_args f = operands(argc, argv, o.ind);
    int status = 0;
    for (int i = 0; i < f.count; i++) {
        char *data;
        size_t len;
        if (load_input(p, f.names[i], &data, &len) < 0) {
            status = 1;
            continue;
        }
        obuf out = { 0 };
        const char *pos = data;
        text_line l;
        while (next_line(&pos, data + len, term, &l) && !out.failed)
            cut_line(&out, l, r, n, mode == 'f', delim, out_delim, only_delimited, term);
        free(data);
        int e = ob_flush(p, &out);
        if (e) {
            free(r);
            return e;
        }
    }
    free(r);
    return status;
}

/* ---------------------------------------------------------------- grep */

/* What one grep run was asked for. */
typedef struct grep_cfg {
    sh_proc *p;
    char mode; /* 'G' basic, 'E' extended, 'F' fixed strings */
    int icase, invert, count, list, list_none, number, with_name, only, quiet, silent;
    int word, whole_line, text;
    int recursive; /* 0, 1 for -r, 2 for -R (symbolic links followed) */
    int null_names; /* -Z: a NUL, not ':' or a newline, after file names */
    intmax_t max_count; /* -1: no limit */
    size_t before, after;
    const char **include, **exclude, **exclude_dir;
    size_t n_include, n_exclude, n_exclude_dir;
    char **pats; /* owned copies */
    size_t n_pats;
    regex_t *res;   /* one per pattern unless fixed strings */
    sh_buf scratch; /* NUL-terminated copies of lines for regexec */
    sh_buf part;    /* the same for the shorter matches -w tries */
    int nomem;      /* an allocation failed while matching */
    int bare_top; /* -r without operands: "." is searched, shown without "./" */
    int matched_any, error, printed_any;
} grep_cfg;

static int is_word_byte(unsigned char c)
{
    return isalnum(c) || c == '_';
}

/* Rewrites GNU's \w \W \s \S and Perl's \d \D (outside brackets) into
 * bracket expressions, which every POSIX regcomp knows. Caller frees; NULL when out of memory. */
static char *grep_translate(const char *pat)
{
    obuf o = { 0 };
    for (const char *s = pat; *s; s++) {
        if (*s == '[') {
            /* The bracket expression as it is (the rest, when it is not closed). */
            size_t n = sh_rx_bracket(s, strlen(s));
            n = n ? n : strlen(s);
            ob_add(&o, s, n);
            s += n - 1;
            continue;
        }
        if (*s == '\\' && s[1] && strchr("wWsSdD", s[1])) {
            if (!o.failed && sh_rx_class(&o.b, s[1], 0) < 0)
                o.failed = 1;
            s++;
            continue;
        }
        if (*s == '\\' && s[1]) {
            ob_add(&o, s, 2);
            s++;
            continue;
        }
        ob_c(&o, *s);
    }
    ob_c(&o, '\0');
    if (o.failed) {
        sh_buf_free(&o.b);
        return NULL;
    }
    return o.b.data;
}

/* Finds needle in hay[0..n) from position start, optionally ignoring case. */
static int find_fixed(const char *hay, size_t n, size_t start, const char *needle, size_t m,
                      int icase, size_t *at)
{
    if (m > n)
        return 0;
    for (size_t i = start; i + m <= n; i++) {
        size_t k = 0;
        if (icase)
            while (k < m && tolower((unsigned char)hay[i + k]) == tolower((unsigned char)needle[k]))
                k++;
        else
            while (k < m && hay[i + k] == needle[k])
                k++;
        if (k == m) {
            *at = i;
            return 1;
        }
    }
    return 0;
}

/* Runs pattern k on line[0..len) (a NUL-terminated copy) from start: the
 * leftmost match, 1 if found. */
static int grep_raw(grep_cfg *g, size_t k, const char *line, size_t len, size_t start,
                    size_t *so, size_t *eo)
{
    if (g->mode == 'F') {
        size_t m = strlen(g->pats[k]), at;
        if (!find_fixed(line, len, start, g->pats[k], m, g->icase, &at))
            return 0;
        *so = at;
        *eo = at + m;
        return 1;
    }
    regmatch_t rm;
    if (start > len)
        return 0;
#ifdef REG_STARTEND
    /* The bounds are given, so a long line is not measured again for every
     * match that -o or -w asks for. */
    rm.rm_so = (regoff_t)start;
    rm.rm_eo = (regoff_t)len;
    if (regexec(&g->res[k], line, 1, &rm, REG_STARTEND) != 0)
        return 0;
    *so = (size_t)rm.rm_so;
    *eo = (size_t)rm.rm_eo;
#else
    if (regexec(&g->res[k], line + start, 1, &rm, start ? REG_NOTBOL : 0) != 0)
        return 0;
    *so = start + (size_t)rm.rm_so;
    *eo = start + (size_t)rm.rm_eo;
#endif
    return 1;
}

/* Whether pattern k matches exactly line[so..e), as -w retries a shorter
 * match. */
static int grep_exact(grep_cfg *g, size_t k, const char *line, size_t so, size_t e, size_t len)
{
    g->part.len = 0;
    if (sh_buf_add(&g->part, line + so, e - so) < 0 || !sh_buf_cstr(&g->part)) {
        g->nomem = 1;
        return 0;
    }
    regmatch_t rm;
    int flags = (so ? REG_NOTBOL : 0) | (e < len ? REG_NOTEOL : 0);
    return regexec(&g->res[k], g->part.data, 1, &rm, flags) == 0 && rm.rm_so == 0 &&
           (size_t)rm.rm_eo == e - so;
}

/* The leftmost match of pattern k at or after start that satisfies -w and
 * -x. */
static int grep_one(grep_cfg *g, size_t k, const char *line, size_t len, size_t start,
                    size_t *so, size_t *eo)
{
    if (g->whole_line)
        return start == 0 && grep_raw(g, k, line, len, 0, so, eo) && *so == 0 && *eo == len;
    while (start <= len && grep_raw(g, k, line, len, start, so, eo)) {
        if (!g->word)
            return 1;
        int left = *so == 0 || !is_word_byte((unsigned char)line[*so - 1]);
        if (left) {
            for (size_t e = *eo; e > *so; e--) {
                if (e < len && is_word_byte((unsigned char)line[e]))
                    continue;
                if (e == *eo || (g->mode != 'F' && grep_exact(g, k, line, *so, e, len))) {
                    *eo = e;
                    return 1;
                }
            }
            /* An empty match between two non-word bytes counts as a word. */
            if (*eo == *so && (*eo == len || !is_word_byte((unsigned char)line[*eo])))
                return 1;
        }
        start = *so + 1;
    }
    return 0;
}

/* The leftmost (then longest) match of any pattern at or after start. */
static int grep_find(grep_cfg *g, const char *line, size_t len, size_t start, size_t *so,
                     size_t *eo)
{
    int found = 0;
    for (size_t k = 0; k < g->n_pats; k++) {
        size_t s, e;
        if (grep_one(g, k, line, len, start, &s, &e) &&
            (!found || s < *so || (s == *so && e > *eo))) {
            *so = s;
            *eo = e;
            found = 1;
        }
    }
    return found;
}

/* Prints one output line with its prefixes: name, number, then sep. */
static int grep_emit(grep_cfg *g, const char *name, size_t lineno, char sep, const char *s,
                     size_t n)
{
    obuf o = { 0 };
    if (name) {
        ob_s(&o, name);
        ob_c(&o, g->null_names ? '\0' : sep);
    }
    if (g->number && !o.failed && sh_buf_addf(&o.b, "%zu%c", lineno, sep) < 0)
        o.failed = 1;
    ob_add(&o, s, n);
    ob_c(&o, '\n');
    g->printed_any = 1;
    return ob_flush(g->p, &o);
}

/* Searches one loaded input. Returns 0, or SH_STATUS_PIPE / 1 (out of
 * memory) to stop everything; g->matched_any records matches. */
static int grep_buffer(grep_cfg *g, const char *name, const char *data, size_t len)
{
    int binary = !g->text && memchr(data, '\0', len) != NULL;
    text_line *lines = NULL;
    size_t n = 0, cap = 0;
    if (add_lines(data, len, '\n', &lines, &n, &cap) < 0)
        return oom(g->p);
    const char *shown = g->with_name ? name : NULL;
    /* With -o context lines are not shown, but they still join groups. */
    size_t before = g->before, after = g->after;
    intmax_t count = 0;
    size_t next_unprinted = 0, after_left = 0;
    int group = 0, r = 0;
    for (size_t i = 0; i < n && r == 0; i++) {
        text_line l = lines[i];
        if (sh_buf_add(&g->scratch, l.s, l.len) < 0 || !sh_buf_cstr(&g->scratch)) {
            r = oom(g->p);
            break;
        }
        const char *line = g->scratch.data;
        g->scratch.len = 0;
        size_t so, eo;
        int hit = grep_find(g, line, l.len, 0, &so, &eo) != g->invert;
        if (g->nomem) {
            r = oom(g->p);
            break;
        }
        if (g->max_count >= 0 && count >= g->max_count) {
            /* Past the last counted match only its trailing context shows. */
            if (after_left > 0 && !g->count && !g->list && !g->list_none && !g->quiet) {
                r = g->only ? 0 : grep_emit(g, shown, i + 1, '-', l.s, l.len);
                after_left--;
                continue;
            }
            break;
        }
        if (!hit) {
            if (after_left > 0 && !g->count && !g->list && !g->list_none && !g->quiet &&
                !binary) {
                r = g->only ? 0 : grep_emit(g, shown, i + 1, '-', l.s, l.len);
                next_unprinted = i + 1;
                after_left--;
            }
            continue;
        }
        count++;
        g->matched_any = 1;
        if (g->quiet || g->list || g->list_none)
            break;
        if (g->count)
            continue;
        if (binary) {
            sh_err(g->p, "%s: binary file matches", name);
            break;
        }
        size_t from = i > before ? i - before : 0;
        if (from < next_unprinted)
            from = next_unprinted;
        if ((before || after) && g->printed_any && (from > next_unprinted || !group))
            r = sh_outs(g->p, "--\n") < 0 ? SH_STATUS_PIPE : 0;
        group = 1;
        for (size_t j = from; j < i && r == 0 && !g->only; j++)
            r = grep_emit(g, shown, j + 1, '-', lines[j].s, lines[j].len);
        if (r)
            break;
        if (g->only) {
            /* Every non-empty match of the line, each on its own line. */
            size_t start = 0;
            while (!g->invert && r == 0 && start <= l.len &&
                   grep_find(g, line, l.len, start, &so, &eo)) {
                if (eo > so)
                    r = grep_emit(g, shown, i + 1, ':', l.s + so, eo - so);
                start = eo > so ? eo : so + 1;
            }
        } else {
            r = grep_emit(g, shown, i + 1, ':', l.s, l.len);
        }
        next_unprinted = i + 1;
        after_left = after;
    }
    free(lines);
    if (r)
        return r;
    /* As GNU's: -q overrides -l and -L, which override -c. */
    char after_name = g->null_names ? '\0' : ':';
    if (g->quiet)
        return 0;
    if (g->list || g->list_none) {
        if ((g->list && count > 0) || (g->list_none && count == 0))
            r = sh_printf(g->p, "%s%c", name, g->null_names ? '\0' : '\n');
    } else if (g->count) {
        if (shown)
            r = sh_printf(g->p, "%s%c%jd\n", shown, after_name, count);
        else
            r = sh_printf(g->p, "%jd\n", count);
    }
    return r < 0 ? SH_STATUS_PIPE : 0;
}

/* Whether base matches any of the globs. */
static int grep_globbed(const char **globs, size_t n, const char *base)
{
    for (size_t i = 0; i < n; i++)
        if (fnmatch(globs[i], base, 0) == 0)
            return 1;
    return 0;
}

/* qsort's comparison of C strings. */
static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int grep_path(grep_cfg *g, const char *path, int top, int depth);

/* Searches a directory's entries, in name order so output is stable. */
static int grep_dir(grep_cfg *g, const char *path, int depth)
{
    char *full = sh_path(g->p, path);
    if (!full)
        return oom(g->p);
    DIR *d = opendir(full);
    free(full);
    if (!d) {
        if (!g->silent)
            sh_err_path(g->p, path);
        g->error = 1;
        return 0;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int r = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n == cap) {
            size_t c = cap ? cap * 2 : 16;
            char **gr = realloc(names, c * sizeof(*gr));
            if (!gr) {
                r = 1;
                break;
            }
            names = gr;
            cap = c;
        }
        /* "." given implicitly by -r shows names without a "./" prefix. */
        size_t lp = strlen(path), ln = strlen(e->d_name);
        int bare = depth == 0 && g->bare_top;
        char *child = malloc(lp + ln + 2);
        if (!child) {
            r = 1;
            break;
        }
        if (bare) {
            memcpy(child, e->d_name, ln + 1);
        } else {
            memcpy(child, path, lp);
            size_t k = lp;
            if (k == 0 || child[k - 1] != '/')
                child[k++] = '/';
            memcpy(child + k, e->d_name, ln + 1);
        }
        names[n++] = child;
    }
    closedir(d);
    if (r)
        oom(g->p);
    else
        qsort(names, n, sizeof(*names), str_cmp);
    for (size_t i = 0; i < n; i++) {
        if (r == 0)
            r = grep_path(g, names[i], 0, depth + 1);
        free(names[i]);
    }
    free(names);
    return r;
}

/* Searches a file operand or a file found by -r: directories are walked
 * under -r, skipped with a message otherwise. */
static int grep_path(grep_cfg *g, const char *path, int top, int depth)
{
    if (strcmp(path, "-") == 0)
        return grep_buffer(g, "(standard input)", g->p->in, g->p->in_len);
    struct stat st;
    int ok = sh_stat(g->p, path, &st, top || g->recursive == 2) == 0;
    if (!ok && errno == ENOMEM)
        return oom(g->p);
    const char *base = strrchr(path, '/');
    base = base && base[1] ? base + 1 : path;
    if (ok && S_ISDIR(st.st_mode)) {
        if (!g->recursive) {
            sh_err(g->p, "%s: Is a directory", path);
            g->error = 1;
            return 0;
        }
        if (!top && grep_globbed(g->exclude_dir, g->n_exclude_dir, base))
            return 0;
        if (depth > 256)
            return 0;
        return grep_dir(g, path, depth);
    }
    if (ok && !top && !S_ISREG(st.st_mode))
        return 0;
    if ((g->n_include && !grep_globbed(g->include, g->n_include, base)) ||
        grep_globbed(g->exclude, g->n_exclude, base))
        return 0;
    char *data;
    size_t len;
    if (!ok) {
        if (!g->silent)
            sh_err_path(g->p, path);
        g->error = 1;
        return 0;
    }
    /* -s: the load's message goes to a stream that discards it. */
    sh_stream quiet = { .fd = SH_DISCARD };
    sh_stream *err = g->p->err;
    if (g->silent)
        g->p->err = &quiet;
    int loaded = sh_load(g->p, path, &data, &len);
    g->p->err = err;
    if (loaded < 0) {
        g->error = 1;
        return 0;
    }
    int r = grep_buffer(g, path, data, len);
    free(data);
    return r;
}

/* Adds the newline-separated patterns of text to g->pats; a pattern file's
 * last newline ends its last pattern rather than starting an empty one.
 * 0, or -1 when out of memory. */
static int grep_add_patterns(grep_cfg *g, const char *text, size_t len, int from_file)
{
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && text[i] != '\n')
            continue;
        if (i == len && from_file && start == len)
            break;
        char **gr = realloc(g->pats, (g->n_pats + 1) * sizeof(*gr));
        if (!gr)
            return -1;
        g->pats = gr;
        char *pat = malloc(i - start + 1);
        if (!pat)
            return -1;
        memcpy(pat, text + start, i - start);
        pat[i - start] = '\0';
        g->pats[g->n_pats++] = pat;
        start = i + 1;
    }
    return 0;
}

/* Adds a glob to one of the include/exclude lists. */
static int grep_add_glob(const char ***list, size_t *n, const char *glob)
{
    const char **gr = realloc(*list, (*n + 1) * sizeof(*gr));
    if (!gr)
        return -1;
    gr[(*n)++] = glob;
    *list = gr;
    return 0;
}

/* Parses a context length for -A/-B/-C. */
static int grep_context(sh_proc *p, const char *s, size_t *v)
{
    uintmax_t n;
    if (!isdigit((unsigned char)*s) || parse_size(s, &n) < 0 || strspn(s, "0123456789") != strlen(s)) {
        sh_err(p, "%s: invalid context length argument", s);
        return -1;
    }
    *v = n > SIZE_MAX ? SIZE_MAX : (size_t)n;
    return 0;
}

/* Releases everything a grep run allocated. */
static void grep_free(grep_cfg *g, size_t n_compiled)
{
    for (size_t i = 0; i < n_compiled; i++)
        regfree(&g->res[i]);
    free(g->res);
    for (size_t i = 0; i < g->n_pats; i++)
        free(g->pats[i]);
    free(g->pats);
    free(g->include);
    free(g->exclude);
    free(g->exclude_dir);
    sh_buf_free(&g->scratch);
    sh_buf_free(&g->part);
}

/* grep, egrep, fgrep: GNU grep's common options; exit 0 when a line was
 * selected, 1 when none, 2 on errors. */
static int grep_run(sh_proc *p, int argc, char **argv, char mode)
{
    enum { OPT_INCLUDE = 256, OPT_EXCLUDE, OPT_EXCLUDE_DIR, OPT_COLOR, OPT_LABEL, OPT_NOOP };
    static const sh_longopt longs[] = {
        { "extended-regexp", 0, 'E' },  { "fixed-strings", 0, 'F' },
        { "basic-regexp", 0, 'G' },     { "perl-regexp", 0, 'P' },
        { "ignore-case", 0, 'i' },      { "no-ignore-case", 0, OPT_NOOP },
        { "invert-match", 0, 'v' },     { "count", 0, 'c' },
        { "files-with-matches", 0, 'l' }, { "files-without-match", 0, 'L' },
        { "line-number", 0, 'n' },      { "no-filename", 0, 'h' },
        { "with-filename", 0, 'H' },    { "only-matching", 0, 'o' },
        { "quiet", 0, 'q' },            { "silent", 0, 'q' },
        { "no-messages", 0, 's' },      { "word-regexp", 0, 'w' },
        { "line-regexp", 0, 'x' },      { "recursive", 0, 'r' },
        { "dereference-recursive", 0, 'R' }, { "regexp", 1, 'e' },
        { "file", 1, 'f' },             { "after-context", 1, 'A' },
        { "before-context", 1, 'B' },   { "context", 1, 'C' },
        { "max-count", 1, 'm' },        { "text", 0, 'a' },
        { "include", 1, OPT_INCLUDE },  { "exclude", 1, OPT_EXCLUDE },
        { "exclude-dir", 1, OPT_EXCLUDE_DIR }, { "color", 2, OPT_COLOR },
        { "colour", 2, OPT_COLOR },     { "null", 0, 'Z' },
        { NULL, 0, 0 },
    };
    grep_cfg g = { 0 };
    g.p = p;
    g.mode = mode;
    g.with_name = -1;
    g.max_count = -1;
    int have_pats = 0, c, status = 2, matcher = 0;
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "EFGPiyvclLnhHoqswxrRe:f:A:B:C:m:aIUZ", longs)) != -1) {
        switch (c) {
        case 'E':
        case 'F':
        case 'G':
            if (matcher && matcher != c) {
                sh_err(p, "conflicting matchers specified");
                goto done;
            }
            matcher = c;
            g.mode = (char)c;
            break;
        case 'P':
            /* Perl syntax is approximated by ERE with \d, \w, \s known. */
            if (matcher && matcher != c) {
                sh_err(p, "conflicting matchers specified");
                goto done;
            }
            matcher = c;
            g.mode = 'E';
            break;
        case 'i':
        case 'y':
            g.icase = 1;
            break;
        case 'v':
            g.invert = 1;
            break;
        case 'c':
            g.count = 1;
            break;
        case 'l':
            g.list = 1;
            g.list_none = 0;
            break;
        case 'L':
            g.list_none = 1;
            g.list = 0;
            break;
        case 'n':
            g.number = 1;
            break;
        case 'h':
            g.with_name = 0;
            break;
        case 'H':
            g.with_name = 1;
            break;
        case 'o':
            g.only = 1;
            break;
        case 'q':
            g.quiet = 1;
            break;
        case 's':
            g.silent = 1;
            break;
        case 'w':
            g.word = 1;
            break;
        case 'x':
            g.whole_line = 1;
            break;
        case 'r':
            g.recursive = g.recursive ? g.recursive : 1;
            break;
        case 'R':
            g.recursive = 2;
            break;
        case 'e':
            if (grep_add_patterns(&g, o.arg, strlen(o.arg), 0) < 0)
                goto nomem;
            have_pats = 1;
            break;
        case 'f': {
            char *data;
            size_t len;
            if (sh_load(p, o.arg, &data, &len) < 0)
                goto done;
            int e = grep_add_patterns(&g, data, len, 1);
            free(data);
            if (e < 0)
                goto nomem;
            have_pats = 1;
            break;
        }
        case 'A':
        case 'B':
        case 'C':
            if (grep_context(p, o.arg, c == 'B' ? &g.before : &g.after) < 0)
                goto done;
            if (c == 'C')
                g.before = g.after;
            break;
        case 'm': {
            char *end;
            errno = 0;
            intmax_t v = strtoimax(o.arg, &end, 10);
            if (end == o.arg || *end) {
                sh_err(p, "invalid max count");
                goto done;
            }
            g.max_count = v < 0 ? -1 : v;
            break;
        }
        case 'a':
            g.text = 1;
            break;
        case 'Z':
            g.null_names = 1;
            break;
        case 'I':
        case 'U':
        case OPT_NOOP:
            break;
        case OPT_INCLUDE:
            if (grep_add_glob(&g.include, &g.n_include, o.arg) < 0)
                goto nomem;
            break;
        case OPT_EXCLUDE:
            if (grep_add_glob(&g.exclude, &g.n_exclude, o.arg) < 0)
                goto nomem;
            break;
        case OPT_EXCLUDE_DIR:
            if (grep_add_glob(&g.exclude_dir, &g.n_exclude_dir, o.arg) < 0)
                goto nomem;
            break;
        case OPT_COLOR:
            if (o.arg && strcmp(o.arg, "never") && strcmp(o.arg, "always") &&
                strcmp(o.arg, "auto")) {
                sh_err(p, "invalid argument '%s' for '--color'", o.arg);
                goto done;
            }
            break;
        default:
            goto done;
        }
    }
    if (!have_pats) {
        if (o.ind >= argc) {
            sh_err(p, "usage: %s [OPTION]... PATTERNS [FILE]...", p->name);
            goto done;
        }
        const char *pat = argv[o.ind++];
        if (grep_add_patterns(&g, pat, strlen(pat), 0) < 0)
            goto nomem;
    }
    /* What GNU sees cannot match ends at once, output and all: -m 0, or
     * -v with one empty pattern. */
    if ((g.max_count == 0 || (g.n_pats == 1 && !g.pats[0][0] && g.invert && !g.whole_line &&
                              !g.word)) &&
        !g.list_none) {
        grep_free(&g, 0);
        return 1;
    }
    size_t compiled = 0;
    if (g.mode != 'F') {
        g.res = calloc(g.n_pats ? g.n_pats : 1, sizeof(*g.res));
        if (!g.res)
            goto nomem;
        int flags = (g.mode == 'E' ? REG_EXTENDED : 0) | (g.icase ? REG_ICASE : 0);
        for (; compiled < g.n_pats; compiled++) {
            char *pat = grep_translate(g.pats[compiled]);
            if (!pat) {
                grep_free(&g, compiled);
                return oom(p) + 1;
            }
            int e = regcomp(&g.res[compiled], pat, flags);
            free(pat);
            if (e != 0) {
                char msg[256];
                regerror(e, &g.res[compiled], msg, sizeof(msg));
                sh_err(p, "%s", msg);
                grep_free(&g, compiled);
                return 2;
            }
        }
    }
    int n_files = argc - o.ind;
    if (g.with_name < 0) {
        g.with_name = n_files > 1 || (g.recursive && n_files == 0);
        if (g.recursive && n_files == 1 && strcmp(argv[o.ind], "-") != 0) {
            /* One operand shows names only when it is a directory. */
            struct stat st;
            g.with_name = sh_stat(p, argv[o.ind], &st, 1) == 0 && S_ISDIR(st.st_mode);
        }
    }
    int r = 0;
    if (n_files == 0 && g.recursive) {
        g.bare_top = 1;
        r = grep_dir(&g, ".", 0);
    } else if (n_files == 0) {
        r = grep_path(&g, "-", 1, 0);
    }
    for (int i = o.ind; i < argc && r == 0; i++) {
        if (g.quiet && g.matched_any)
            break;
        r = grep_path(&g, argv[i], 1, 0);
    }
    grep_free(&g, compiled);
    if (r == SH_STATUS_PIPE)
        return r;
    if (r)
        return 2;
    if (g.quiet && g.matched_any)
        return 0;
    return g.error ? 2 : g.matched_any ? 0 : 1;
nomem:
    oom(p);
done:
    grep_free(&g, 0);
    return status;
}

static int grep_main(sh_proc *p, int argc, char **argv)
{
    return grep_run(p, argc, argv, 'G');
}

static int egrep_main(sh_proc *p, int argc, char **argv)
{
    return grep_run(p, argc, argv, 'E');
}

static int fgrep_main(sh_proc *p, int argc, char **argv)
{
    return grep_run(p, argc, argv, 'F');
}

/* ---------------------------------------------------------------- sort */

/* One sort key (-k), or the whole line with the global options. Fields and
 * characters are 0-based here; eword SIZE_MAX means "to the end of line". */
typedef struct sort_key {
    size_t sword, schar, eword, echar;
    int skip_sblanks, skip_eblanks;
    int numeric, general, human, month, version, fold, dict, printable, reverse;
} sort_key;

/* The settings of one sort run, passed to the comparison. */
typedef struct sort_cfg {
    sort_key *keys;
    size_t n_keys;
    int tab; /* the -t byte, or -1 for runs of blanks */
    int reverse, unique, stable;
} sort_cfg;

static int is_blank_byte(unsigned char c)
{
    return c == ' ' || c == '\t';
}

/* Where a key starts in the line (GNU's begfield). */
static const char *sort_key_start(const sort_cfg *cfg, const sort_key *k, text_line l)
{
    const char *ptr = l.s, *lim = l.s + l.len;
    size_t sword = k->sword;
    if (cfg->tab >= 0) {
        while (ptr < lim && sword--) {
            while (ptr < lim && *ptr != (char)cfg->tab)
                ++ptr;
            if (ptr < lim)
                ++ptr;
        }
    } else {
        while (ptr < lim && sword--) {
            while (ptr < lim && is_blank_byte((unsigned char)*ptr))
                ++ptr;
            while (ptr < lim && !is_blank_byte((unsigned char)*ptr))
                ++ptr;
        }
    }
    if (k->skip_sblanks)
        while (ptr < lim && is_blank_byte((unsigned char)*ptr))
            ++ptr;
    return (size_t)(lim - ptr) < k->schar ? lim : ptr + k->schar;
}

/* Where a key ends in the line (GNU's limfield). */
static const char *sort_key_end(const sort_cfg *cfg, const sort_key *k, text_line l)
{
    const char *ptr = l.s, *lim = l.s + l.len;
    if (k->eword == SIZE_MAX)
        return lim;
    size_t eword = k->eword, echar = k->echar;
    if (echar == 0)
        eword++;
    if (cfg->tab >= 0) {
        while (ptr < lim && eword--) {
            while (ptr < lim && *ptr != (char)cfg->tab)
                ++ptr;
            if (ptr < lim && (eword || echar))
                ++ptr;
        }
    } else {
        while (ptr < lim && eword--) {
            while (ptr < lim && is_blank_byte((unsigned char)*ptr))
                ++ptr;
            while (ptr < lim && !is_blank_byte((unsigned char)*ptr))
                ++ptr;
        }
    }
    if (echar != 0) {
        if (k->skip_eblanks)
            while (ptr < lim && is_blank_byte((unsigned char)*ptr))
                ++ptr;
        ptr = (size_t)(lim - ptr) < echar ? lim : ptr + echar;
    }
    return ptr;
}

/* Compares two decimal numbers as GNU's -n does (leading blanks, an optional
 * minus sign, digits, a fraction; anything else ends the number, and no
 * number is zero), exactly, without converting them. */
static int sort_numcmp(const char *a, const char *ae, const char *b, const char *be)
{
    while (a < ae && is_blank_byte((unsigned char)*a))
        a++;
    while (b < be && is_blank_byte((unsigned char)*b))
        b++;
    int na = a < ae && *a == '-', nb = b < be && *b == '-';
    a += na;
    b += nb;
    const char *ai = a, *bi = b;
    while (ai < ae && isdigit((unsigned char)*ai))
        ai++;
    while (bi < be && isdigit((unsigned char)*bi))
        bi++;
    /* The fractions: digits after a '.', trailing zeros dropped. */
    const char *af = ai, *afe = ai, *bf = bi, *bfe = bi;
    if (af < ae && *af == '.') {
        afe = ++af;
        while (afe < ae && isdigit((unsigned char)*afe))
            afe++;
        while (afe > af && afe[-1] == '0')
            afe--;
    }
    if (bf < be && *bf == '.') {
        bfe = ++bf;
        while (bfe < be && isdigit((unsigned char)*bfe))
            bfe++;
        while (bfe > bf && bfe[-1] == '0')
            bfe--;
    }
    while (a < ai && *a == '0')
        a++;
    while (b < bi && *b == '0')
        b++;
    int zero_a = a == ai && af == afe, zero_b = b == bi && bf == bfe;
    if (zero_a)
        na = 0;
    if (zero_b)
        nb = 0;
    if (na != nb)
        return na ? -1 : 1;
    int sign = na ? -1 : 1, diff = 0;
    size_t la = (size_t)(ai - a), lb = (size_t)(bi - b);
    if (la != lb) {
        diff = la < lb ? -1 : 1;
    } else {
        int m = memcmp(a, b, la);
        if (m) {
            diff = m < 0 ? -1 : 1;
        } else {
            size_t fa = (size_t)(afe - af), fb = (size_t)(bfe - bf), n = fa < fb ? fa : fb;
            m = memcmp(af, bf, n);
            diff = m ? (m < 0 ? -1 : 1) : (fa > fb) - (fa < fb);
        }
    }
    return sign * diff;
}

/* The -h unit rank of a number: 0 none, 1 K, 2 M ... negated for negative
 * numbers, as GNU orders them. */
static int sort_unit_rank(const char *s, const char *e)
{
    static const char units[] = "KMGTPEZYRQ";
    while (s < e && is_blank_byte((unsigned char)*s))
        s++;
    int neg = s < e && *s == '-', nonzero = 0;
    s += neg;
    for (; s < e && (isdigit((unsigned char)*s) || *s == '.'); s++)
        nonzero |= *s > '0' && *s <= '9';
    /* A number that is zero, or no number, has no unit. */
    if (!nonzero)
        return 0;
    const char *u = s < e && *s ? strchr(units, *s == 'k' ? 'K' : *s) : NULL;
    int rank = u ? (int)(u - units) + 1 : 0;
    return neg ? -rank : rank;
}

/* -g: strtod on the key; what is not a number sorts first, then NaNs. */
static int sort_general(const char *a, const char *ae, const char *b, const char *be)
{
    char bufa[128], bufb[128];
    size_t la = (size_t)(ae - a) < sizeof(bufa) - 1 ? (size_t)(ae - a) : sizeof(bufa) - 1;
    size_t lb = (size_t)(be - b) < sizeof(bufb) - 1 ? (size_t)(be - b) : sizeof(bufb) - 1;
    memcpy(bufa, a, la);
    bufa[la] = '\0';
    memcpy(bufb, b, lb);
    bufb[lb] = '\0';
    char *ea, *eb;
    double x = strtod(bufa, &ea), y = strtod(bufb, &eb);
    if (ea == bufa)
        return eb == bufb ? 0 : -1;
    if (eb == bufb)
        return 1;
    if (x < y)
        return -1;
    if (x > y)
        return 1;
    if (x == y)
        return 0;
    return (y == y) ? -1 : (x == x) ? 1 : 0;
}

/* -M: 1..12 for a leading month abbreviation, else 0. */
static int sort_month(const char *s, const char *e)
{
    static const char months[] = "JANFEBMARAPRMAYJUNJULAUGSEPOCTNOVDEC";
    while (s < e && is_blank_byte((unsigned char)*s))
        s++;
    if (e - s < 3)
        return 0;
    for (int m = 0; m < 12; m++)
        if (toupper((unsigned char)s[0]) == months[3 * m] &&
            toupper((unsigned char)s[1]) == months[3 * m + 1] &&
            toupper((unsigned char)s[2]) == months[3 * m + 2])
            return m + 1;
    return 0;
}

/* The rank of a byte in Debian version comparison. */
static int version_order(unsigned char c)
{
    if (isdigit(c))
        return 0;
    if (isalpha(c))
        return c;
    if (c == '~')
        return -1;
    return (int)c + UCHAR_MAX + 1;
}

/* Debian's version comparison of two strings (gnulib's verrevcmp). */
static int version_cmp(const char *s1, size_t n1, const char *s2, size_t n2)
{
    size_t i = 0, j = 0;
    while (i < n1 || j < n2) {
        int first_diff = 0;
        while ((i < n1 && !isdigit((unsigned char)s1[i])) || (j < n2 && !isdigit((unsigned char)s2[j]))) {
            int c1 = i == n1 ? 0 : version_order((unsigned char)s1[i]);
            int c2 = j == n2 ? 0 : version_order((unsigned char)s2[j]);
            if (c1 != c2)
                return c1 - c2;
            i++;
            j++;
        }
        while (i < n1 && s1[i] == '0')
            i++;
        while (j < n2 && s2[j] == '0')
            j++;
        while (i < n1 && j < n2 && isdigit((unsigned char)s1[i]) && isdigit((unsigned char)s2[j])) {
            if (!first_diff)
                first_diff = s1[i] - s2[j];
            i++;
            j++;
        }
        if (i < n1 && isdigit((unsigned char)s1[i]))
            return 1;
        if (j < n2 && isdigit((unsigned char)s2[j]))
            return -1;
        if (first_diff)
            return first_diff;
    }
    return 0;
}

/* The length of s without its file suffixes ((\.[A-Za-z~][A-Za-z0-9~]*)*$). */
static size_t version_prefix(const char *s, size_t n)
{
    size_t prefix = 0;
    for (size_t i = 0;;) {
        if (i == n)
            return prefix;
        i++;
        prefix = i;
        while (i + 1 < n && s[i] == '.' && (isalpha((unsigned char)s[i + 1]) || s[i + 1] == '~'))
            for (i += 2; i < n && (isalnum((unsigned char)s[i]) || s[i] == '~'); i++)
                continue;
    }
}

/* gnulib's filevercmp: version order with file suffixes compared last. */
static int filevercmp_n(const char *a, size_t na, const char *b, size_t nb)
{
    if (!na)
        return -(nb != 0);
    if (!nb)
        return 1;
    if (a[0] == '.' || b[0] == '.') {
        if (b[0] != '.')
            return -1;
        if (a[0] != '.')
            return 1;
        int adot = na == 1, bdot = nb == 1;
        int adotdot = na == 2 && a[1] == '.', bdotdot = nb == 2 && b[1] == '.';
        if (adot)
            return -!bdot;
        if (bdot)
            return 1;
        if (adotdot)
            return -!bdotdot;
        if (bdotdot)
            return 1;
    }
    size_t pa = version_prefix(a, na), pb = version_prefix(b, nb);
    int one_pass = pa == na && pb == nb;
    int r = version_cmp(a, pa, b, pb);
    return r || one_pass ? r : version_cmp(a, na, b, nb);
}

/* Compares two lines by the keys (GNU's keycompare). */
static int sort_keycmp(const sort_cfg *cfg, text_line x, text_line y)
{
    for (size_t i = 0; i < cfg->n_keys; i++) {
        const sort_key *k = &cfg->keys[i];
        const char *a = sort_key_start(cfg, k, x), *ae = sort_key_end(cfg, k, x);
        const char *b = sort_key_start(cfg, k, y), *be = sort_key_end(cfg, k, y);
        if (ae < a)
            ae = a;
        if (be < b)
            be = b;
        int diff;
        if (k->numeric) {
            diff = sort_numcmp(a, ae, b, be);
        } else if (k->human) {
            int ra = sort_unit_rank(a, ae), rb = sort_unit_rank(b, be);
            diff = ra != rb ? (ra < rb ? -1 : 1) : sort_numcmp(a, ae, b, be);
        } else if (k->general) {
            diff = sort_general(a, ae, b, be);
        } else if (k->month) {
            diff = sort_month(a, ae) - sort_month(b, be);
        } else if (k->version) {
            diff = filevercmp_n(a, (size_t)(ae - a), b, (size_t)(be - b));
        } else if (k->fold || k->dict || k->printable) {
            diff = 0;
            for (;;) {
                while (a < ae && ((k->dict && !isalnum((unsigned char)*a) && !is_blank_byte((unsigned char)*a)) ||
                                  (k->printable && !isprint((unsigned char)*a))))
                    a++;
                while (b < be && ((k->dict && !isalnum((unsigned char)*b) && !is_blank_byte((unsigned char)*b)) ||
                                  (k->printable && !isprint((unsigned char)*b))))
                    b++;
                if (a >= ae || b >= be) {
                    diff = (a < ae) - (b < be);
                    break;
                }
                int ca = (unsigned char)*a, cb = (unsigned char)*b;
                if (k->fold) {
                    ca = toupper(ca);
                    cb = toupper(cb);
                }
                if (ca != cb) {
                    diff = ca - cb;
                    break;
                }
                a++;
                b++;
            }
        } else {
            size_t la = (size_t)(ae - a), lb = (size_t)(be - b);
            diff = memcmp(a, b, la < lb ? la : lb);
            if (!diff)
                diff = (la > lb) - (la < lb);
        }
        if (diff)
            return k->reverse ? (diff < 0 ? 1 : -1) : diff;
    }
    return 0;
}

/* The full comparison: keys, then (unless -s or -u) the whole line. */
static int sort_cmp(const sort_cfg *cfg, text_line x, text_line y)
{
    if (cfg->n_keys) {
        int diff = sort_keycmp(cfg, x, y);
        if (diff || cfg->unique || cfg->stable)
            return diff;
    }
    size_t n = x.len < y.len ? x.len : y.len;
    int diff = memcmp(x.s, y.s, n);
    if (!diff)
        diff = (x.len > y.len) - (x.len < y.len);
    return cfg->reverse ? -diff : diff;
}

/* A stable merge sort of lines[0..n) using tmp (n entries) as scratch. */
static void sort_lines(const sort_cfg *cfg, text_line *lines, text_line *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t half = n / 2;
    sort_lines(cfg, lines, tmp, half);
    sort_lines(cfg, lines + half, tmp, n - half);
    size_t i = 0, j = half, k = 0;
    while (i < half && j < n)
        tmp[k++] = sort_cmp(cfg, lines[j], lines[i]) < 0 ? lines[j++] : lines[i++];
    while (i < half)
        tmp[k++] = lines[i++];
    while (j < n)
        tmp[k++] = lines[j++];
    memcpy(lines, tmp, n * sizeof(*lines));
}

/* -m: merges inputs that are each sorted already into dst. The inputs are
 * lines[ends[i-1]..ends[i]); on equal lines the earlier input goes first. */
static void sort_merge_inputs(const sort_cfg *cfg, const text_line *lines, const size_t *ends,
                              size_t *heads, int n_inputs, text_line *dst)
{
    size_t k = 0;
    for (int i = 0; i < n_inputs; i++)
        heads[i] = i ? ends[i - 1] : 0;
    for (;;) {
        int best = -1;
        for (int i = 0; i < n_inputs; i++)
            if (heads[i] < ends[i] &&
                (best < 0 || sort_cmp(cfg, lines[heads[i]], lines[heads[best]]) < 0))
                best = i;
        if (best < 0)
            break;
        dst[k++] = lines[heads[best]++];
    }
}

/* Reads a field or character count of a -k spec. */
static const char *sort_count(const char *s, size_t *v)
{
    if (!isdigit((unsigned char)*s))
        return NULL;
    errno = 0;
    char *end;
    unsigned long long n = strtoull(s, &end, 10);
    *v = errno == ERANGE || n > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)n;
    return end;
}

/* Reads ordering letters into a key: 1 when any was given, -1 for an unknown
 * one. */
static int sort_flags(const char **s, sort_key *k, int end_pos)
{
    int any = 0;
    for (; **s; (*s)++) {
        switch (**s) {
        case 'b':
            if (end_pos)
                k->skip_eblanks = 1;
            else
                k->skip_sblanks = 1;
            break;
        case 'd':
            k->dict = 1;
            break;
        case 'f':
            k->fold = 1;
            break;
        case 'g':
            k->general = 1;
            break;
        case 'h':
            k->human = 1;
            break;
        case 'i':
            k->printable = 1;
            break;
        case 'M':
            k->month = 1;
            break;
        case 'n':
            k->numeric = 1;
            break;
        case 'r':
            k->reverse = 1;
            break;
        case 'V':
            k->version = 1;
            break;
        default:
            return ',' == **s ? any : -1;
        }
        any = 1;
    }
    return any;
}

/* Parses a -k spec into k: 0, or -1 after the message. */
static int sort_parse_key(sh_proc *p, const char *spec, sort_key *k, int *has_opts)
{
    const char *s = sort_count(spec, &k->sword);
    if (!s || k->sword == 0) {
        sh_err(p, s ? "field number is zero: invalid field specification '%s'"
                    : "invalid number at field start: invalid count at start of '%s'", spec);
        return -1;
    }
    k->sword--;
    if (*s == '.') {
        s = sort_count(s + 1, &k->schar);
        if (!s || k->schar == 0) {
            sh_err(p, "character offset is zero: invalid field specification '%s'", spec);
            return -1;
        }
        k->schar--;
    }
    int f1 = sort_flags(&s, k, 0);
    k->eword = SIZE_MAX;
    int f2 = 0;
    if (f1 >= 0 && *s == ',') {
        s = sort_count(s + 1, &k->eword);
        if (!s || k->eword == 0) {
            sh_err(p, "invalid number after ',': invalid count at start of '%s'", spec);
            return -1;
        }
        k->eword--;
        if (*s == '.') {
            s = sort_count(s + 1, &k->echar);
            if (!s) {
                sh_err(p, "invalid number after '.': invalid count at start of '%s'", spec);
                return -1;
            }
        }
        f2 = sort_flags(&s, k, 1);
    }
    if (f1 < 0 || f2 < 0 || *s) {
        sh_err(p, "stray character in field spec: invalid field specification '%s'", spec);
        return -1;
    }
    *has_opts = f1 || f2;
    return 0;
}

/* Whether a key has an ordering option of its own. */
static int sort_key_plain(const sort_key *k)
{
    return !(k->skip_sblanks || k->skip_eblanks || k->dict || k->fold || k->general ||
             k->human || k->printable || k->month || k->numeric || k->reverse || k->version);
}

/* Whether a key asks for two orderings at once (GNU refuses -n with -g, -d
 * with -n, and so on). */
static int sort_key_conflicts(const sort_key *k)
{
    return k->numeric + k->general + k->human + k->month + (k->version || k->dict || k->printable) > 1;
}

/* sort: -n -g -h -V -M -f -d -i -r -b -u -s -c/-C -k -t -o -z -m. */
static int sort_main(sh_proc *p, int argc, char **argv)
{
    enum { OPT_DEBUG = 256, OPT_IGNORED };
    static const sh_longopt longs[] = {
        { "numeric-sort", 0, 'n' },       { "general-numeric-sort", 0, 'g' },
        { "human-numeric-sort", 0, 'h' }, { "version-sort", 0, 'V' },
        { "month-sort", 0, 'M' },         { "ignore-case", 0, 'f' },
        { "dictionary-order", 0, 'd' },   { "ignore-nonprinting", 0, 'i' },
        { "reverse", 0, 'r' },            { "ignore-leading-blanks", 0, 'b' },
        { "unique", 0, 'u' },             { "stable", 0, 's' },
        { "check", 2, 'c' },              { "key", 1, 'k' },
        { "field-separator", 1, 't' },    { "output", 1, 'o' },
        { "zero-terminated", 0, 'z' },    { "merge", 0, 'm' },
        { "parallel", 1, OPT_IGNORED },   { "buffer-size", 1, 'S' },
        { "temporary-directory", 1, 'T' }, { NULL, 0, 0 },
    };
    sort_key global = { 0 };
    global.eword = SIZE_MAX;
    sort_cfg cfg = { NULL, 0, -1, 0, 0, 0 };
    int check = 0, merge = 0, status = 2, c;
    size_t *ends = NULL, *heads = NULL;
    const char *output = NULL;
    char delim = '\n';
    text_line *lines = NULL, *tmp = NULL;
    size_t n = 0, cap = 0;
    char **bufs = NULL;
    int n_bufs = 0;
    sh_opt o = { .ind = 1 };
    int *key_plain = NULL;
    while ((c = sh_getopt(p, &o, argc, argv, "ngVhMfdirbusCck:t:o:zmS:T:", longs)) != -1) {
        const char letters[2] = { (char)c, '\0' }, *letter = letters;
        switch (c) {
        case 'n':
        case 'g':
        case 'h':
        case 'V':
        case 'M':
        case 'f':
        case 'd':
        case 'i':
        case 'r':
            sort_flags(&letter, &global, 0);
            break;
        case 'b':
            global.skip_sblanks = global.skip_eblanks = 1;
            break;
        case 'u':
            cfg.unique = 1;
            break;
        case 's':
            cfg.stable = 1;
            break;
        case 'c':
            check = o.arg && (strcmp(o.arg, "quiet") == 0 || strcmp(o.arg, "silent") == 0) ? 2 : 1;
            break;
        case 'C':
            check = 2;
            break;
        case 'k': {
            sort_key *gk = realloc(cfg.keys, (cfg.n_keys + 1) * sizeof(*gk));
            int *gp = realloc(key_plain, (cfg.n_keys + 1) * sizeof(*gp));
            if (gk)
                cfg.keys = gk;
            if (gp)
                key_plain = gp;
            if (!gk || !gp) {
                oom(p);
                goto done;
            }
            sort_key *k = &cfg.keys[cfg.n_keys];
            memset(k, 0, sizeof(*k));
            int has_opts;
            if (sort_parse_key(p, o.arg, k, &has_opts) < 0)
                goto done;
            key_plain[cfg.n_keys++] = !has_opts;
            break;
        }
        case 't':
            if (strlen(o.arg) != 1 && strcmp(o.arg, "\\0") != 0) {
                sh_err(p, o.arg[0] ? "multi-character tab '%s'" : "empty tab", o.arg);
                goto done;
            }
            cfg.tab = strlen(o.arg) == 1 ? (unsigned char)o.arg[0] : 0;
            break;
        case 'o':
            output = o.arg;
            break;
        case 'z':
            delim = '\0';
            break;
        case 'm':
            merge = 1;
            break;
        case 'S':
        case 'T':
        case OPT_IGNORED:
            break;
        default:
            goto done;
        }
    }
    cfg.reverse = global.reverse;
    /* Keys without options of their own take the global ones; with none
     * given, the global options make one key of the whole line. */
    for (size_t i = 0; i < cfg.n_keys; i++) {
        if (!key_plain[i] && !sort_key_plain(&cfg.keys[i]))
            continue;
        sort_key *k = &cfg.keys[i];
        k->skip_sblanks = global.skip_sblanks;
        k->skip_eblanks = global.skip_eblanks;
        k->dict = global.dict;
        k->fold = global.fold;
        k->general = global.general;
        k->human = global.human;
        k->printable = global.printable;
        k->month = global.month;
        k->numeric = global.numeric;
        k->reverse = global.reverse;
        k->version = global.version;
    }
    for (size_t i = 0; i < cfg.n_keys; i++)
        if (sort_key_conflicts(&cfg.keys[i])) {
            sh_err(p, "options for key %zu are incompatible", i + 1);
            goto done;
        }
    if (sort_key_conflicts(&global)) {
        sh_err(p, "options are incompatible");
        goto done;
    }
    if (cfg.n_keys == 0 && !sort_key_plain(&global)) {
        cfg.keys = malloc(sizeof(*cfg.keys));
        if (!cfg.keys) {
            oom(p);
            goto done;
        }
        cfg.keys[0] = global;
        cfg.n_keys = 1;
    }
    file_args f = operands(argc, argv, o.ind);
    if (check && f.count > 1) {
        sh_err(p, "extra operand '%s' not allowed with -c", f.names[1]);
        goto done;
    }
    bufs = calloc((size_t)f.count, sizeof(*bufs));
    ends = calloc((size_t)f.count, sizeof(*ends));
    heads = calloc((size_t)f.count, sizeof(*heads));
    if (!bufs || !ends || !heads) {
        oom(p);
        goto done;
    }
    for (int i = 0; i < f.count; i++) {
        size_t len;
        if (load_input(p, f.names[i], &bufs[i], &len) < 0)
            goto done;
        n_bufs = i + 1;
        if (add_lines(bufs[i], len, delim, &lines, &n, &cap) < 0) {
            oom(p);
            goto done;
        }
        ends[i] = n;
    }
    if (check) {
        for (size_t i = 1; i < n; i++) {
            int d = sort_cmp(&cfg, lines[i - 1], lines[i]);
            if (d > 0 || (d == 0 && cfg.unique)) {
                if (check == 1)
                    sh_err(p, "%s:%zu: disorder: %.*s", f.names[0], i + 1, (int)lines[i].len,
                           lines[i].s);
                status = 1;
                goto done;
            }
        }
        status = 0;
        goto done;
    }
    tmp = malloc((n ? n : 1) * sizeof(*tmp));
    if (!tmp) {
        oom(p);
        goto done;
    }
    if (merge) {
        sort_merge_inputs(&cfg, lines, ends, heads, f.count, tmp);
        text_line *t = lines;
        lines = tmp;
        tmp = t;
    } else {
        sort_lines(&cfg, lines, tmp, n);
    }
    obuf out = { 0 };
    for (size_t i = 0; i < n && !out.failed; i++) {
        if (cfg.unique && i > 0 && sort_cmp(&cfg, lines[i - 1], lines[i]) == 0)
            continue;
        ob_add(&out, lines[i].s, lines[i].len);
        ob_c(&out, delim);
    }
    if (output) {
        if (out.failed) {
            status = oom(p) + 1;
        } else {
            status = sh_save(p, output, out.b.data ? out.b.data : "", out.b.len, 0) < 0 ? 2 : 0;
        }
        sh_buf_free(&out.b);
    } else {
        status = ob_flush(p, &out);
        if (status == 1)
            status = 2;
    }
done:
    for (int i = 0; i < n_bufs; i++)
        free(bufs[i]);
    free(bufs);
    free(ends);
    free(heads);
    free(lines);
    free(tmp);
    free(cfg.keys);
    free(key_plain);
    return status;
}

/* ---------------------------------------------------------------- uniq */

/* The part of a line uniq compares: after -f fields and -s chars, at most -w
 * chars. */
static text_line uniq_key(text_line l, size_t skip_fields, size_t skip_chars, size_t width)
{
    const char *s = l.s, *e = l.s + l.len;
    for (size_t i = 0; i < skip_fields && s < e; i++) {
        while (s < e && isblank((unsigned char)*s))
            s++;
        while (s < e && !isblank((unsigned char)*s))
            s++;
    }
    s = (size_t)(e - s) < skip_chars ? e : s + skip_chars;
    size_t n = (size_t)(e - s);
    return (text_line){ s, n < width ? n : width };
}

/* Whether two keys are equal, ignoring case with -i. */
static int uniq_equal(text_line a, text_line b, int icase)
{
    if (a.len != b.len)
        return 0;
    if (!icase)
        return memcmp(a.s, b.s, a.len) == 0;
    for (size_t i = 0; i < a.len; i++)
        if (tolower((unsigned char)a.s[i]) != tolower((unsigned char)b.s[i]))
            return 0;
    return 1;
}

/* Reads a count argument of uniq's -f, -s, -w. */
static int uniq_number(sh_proc *p, const char *s, size_t *v, const char *what)
{
    uintmax_t n;
    if (strspn(s, "0123456789") != strlen(s) || parse_size(s, &n) < 0) {
        sh_err(p, "%s: invalid number of %s", s, what);
        return -1;
    }
    *v = n > SIZE_MAX ? SIZE_MAX : (size_t)n;
    return 0;
}

/* uniq: -c -d -D -u -i -f -s -w -z, [INPUT [OUTPUT]]. */
static int uniq_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "count", 0, 'c' },       { "repeated", 0, 'd' },      { "all-repeated", 2, 'D' },
        { "unique", 0, 'u' },      { "ignore-case", 0, 'i' },   { "skip-fields", 1, 'f' },
        { "skip-chars", 1, 's' },  { "check-chars", 1, 'w' },   { "zero-terminated", 0, 'z' },
        { NULL, 0, 0 },
    };
    int count = 0, repeated = 0, all_repeated = 0, unique = 0, icase = 0, c;
    size_t skip_fields = 0, skip_chars = 0, width = SIZE_MAX;
    char delim = '\n';
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "cdDuif:s:w:z", longs)) != -1) {
        switch (c) {
        case 'c':
            count = 1;
            break;
        case 'd':
            repeated = 1;
            break;
        case 'D':
            all_repeated = 1;
            break;
        case 'u':
            unique = 1;
            break;
        case 'i':
            icase = 1;
            break;
        case 'f':
            if (uniq_number(p, o.arg, &skip_fields, "fields to skip") < 0)
                return 1;
            break;
        case 's':
            if (uniq_number(p, o.arg, &skip_chars, "bytes to skip") < 0)
                return 1;
            break;
        case 'w':
            if (uniq_number(p, o.arg, &width, "bytes to compare") < 0)
                return 1;
            break;
        case 'z':
            delim = '\0';
            break;
        default:
            return 1;
        }
    }
    if (argc - o.ind > 2) {
        sh_err(p, "extra operand '%s'", argv[o.ind + 2]);
        return 1;
    }
    if (count && all_repeated) {
        sh_err(p, "printing all duplicated lines and repeat counts is meaningless");
        return 1;
    }
    const char *input = o.ind < argc ? argv[o.ind] : "-";
    const char *output = o.ind + 1 < argc ? argv[o.ind + 1] : NULL;
    char *data;
    size_t len;
    if (load_input(p, input, &data, &len) < 0)
        return 1;
    obuf out = { 0 };
    const char *pos = data, *end = data + len;
    text_line l, first;
    int have = next_line(&pos, end, delim, &first);
    while (have && !out.failed) {
        /* A run of equal lines: first, and how many. */
        uintmax_t n = 1;
        text_line key = uniq_key(first, skip_fields, skip_chars, width);
        const char *run_start = first.s;
        have = 0;
        while (next_line(&pos, end, delim, &l)) {
            if (!uniq_equal(key, uniq_key(l, skip_fields, skip_chars, width), icase)) {
                have = 1;
                break;
            }
            n++;
        }
        if (all_repeated) {
            if (n > 1) {
                const char *q = run_start;
                text_line r;
                for (uintmax_t i = 0; i < n && next_line(&q, end, delim, &r); i++) {
                    ob_add(&out, r.s, r.len);
                    ob_c(&out, delim);
                }
            }
        } else if ((!repeated || n > 1) && (!unique || n == 1)) {
            if (count && !out.failed && sh_buf_addf(&out.b, "%7ju ", n) < 0)
                out.failed = 1;
            ob_add(&out, first.s, first.len);
            ob_c(&out, delim);
        }
        first = l;
    }
    free(data);
    if (output) {
        int r = out.failed ? oom(p) : sh_save(p, output, out.b.data ? out.b.data : "", out.b.len, 0) < 0;
        sh_buf_free(&out.b);
        return r ? 1 : 0;
    }
    return ob_flush(p, &out);
}

/* ---------------------------------------------------------------- tr */

/* A parsed tr set: its bytes in order (ranges and classes expanded), and
 * where a "[c*]" fill, if any, is to be stretched. */
typedef struct tr_set {
    unsigned char *bytes;
    size_t n, cap;
    ptrdiff_t fill_at; /* index of the [c*] byte, -1 if none */
    int classes;       /* a class other than [:upper:]/[:lower:] was used */
    int equiv;         /* a [=c=] was used */
} tr_set;

/* Appends count copies of c to a set: 0, or -1 when out of memory or past
 * a sane size. */
static int tr_push(tr_set *s, unsigned char c, size_t count)
{
    if (count > (1u << 24) || s->n + count > (1u << 26))
        return -1;
    if (s->n + count > s->cap) {
        size_t cap = (s->n + count) * 2 + 16;
        unsigned char *g = realloc(s->bytes, cap);
        if (!g)
            return -1;
        s->bytes = g;
        s->cap = cap;
    }
    memset(s->bytes + s->n, c, count);
    s->n += count;
    return 0;
}

/* Reads one possibly escaped byte of a set at *s. */
static unsigned char tr_byte(const char **s)
{
    const char *c = *s;
    if (*c != '\\' || !c[1]) {
        (*s)++;
        return (unsigned char)*c;
    }
    c++;
    static const char from[] = "abfnrtv\\", to[] = "\a\b\f\n\r\t\v\\";
    const char *k = strchr(from, *c);
    if (k && *c) {
        *s = c + 1;
        return (unsigned char)to[k - from];
    }
    if (*c >= '0' && *c <= '7') {
        unsigned v = 0;
        int i = 0;
        for (; i < 3 && c[i] >= '0' && c[i] <= '7' && v * 8 + (unsigned)(c[i] - '0') < 256; i++)
            v = v * 8 + (unsigned)(c[i] - '0');
        *s = c + i;
        return (unsigned char)v;
    }
    *s = c + 1;
    return (unsigned char)*c;
}

/* Parses a set (GNU tr's syntax: escapes, ranges, [:class:], [=c=],
 * [c*n]). 0, or -1 after the message. */
static int tr_parse(sh_proc *p, const char *spec, tr_set *set, int second)
{
    static const char *const names[] = { "alnum", "alpha", "blank", "cntrl", "digit", "graph",
                                         "lower", "print", "punct", "space", "upper", "xdigit" };
    int (*const tests[])(int) = { isalnum, isalpha, isblank, iscntrl, isdigit, isgraph,
                                  islower, isprint, ispunct, isspace, isupper, isxdigit };
    set->fill_at = -1;
    const char *s = spec;
    while (*s) {
        if (s[0] == '[' && s[1] == ':') {
            const char *close = strstr(s + 2, ":]");
            size_t k = 0, len = close ? (size_t)(close - s - 2) : 0;
            for (; close && k < 12; k++)
                if (strlen(names[k]) == len && strncmp(names[k], s + 2, len) == 0)
                    break;
            if (close && k < 12) {
                if (k != 6 && k != 10)
                    set->classes = 1;
                for (int c = 0; c < 256; c++)
                    if (tests[k](c) && tr_push(set, (unsigned char)c, 1) < 0)
                        goto nomem;
                s = close + 2;
                continue;
            }
            if (close) {
                sh_err(p, "invalid character class '%.*s'", (int)len, s + 2);
                return -1;
            }
        }
        if (s[0] == '[' && s[1] == '=' && s[2] && s[3] == '=' && s[4] == ']') {
            set->equiv = 1;
            if (tr_push(set, (unsigned char)s[2], 1) < 0)
                goto nomem;
            s += 5;
            continue;
        }
        if (s[0] == '[' && s[1] && s[1] != ']') {
            /* [c*n] or [c*]: only meaningful in the second set. */
            const char *q = s + 1;
            unsigned char c = tr_byte(&q);
            if (*q == '*') {
                const char *num = q + 1, *end = strchr(num, ']');
                if (end && (size_t)(end - num) == strspn(num, "0123456789")) {
                    if (!second) {
                        sh_err(p, "the [c*] repeat construct may not appear in string1");
                        return -1;
                    }
                    unsigned long long count = end > num ? strtoull(num, NULL, *num == '0' ? 8 : 10) : 0;
                    if (count == 0) {
                        set->fill_at = (ptrdiff_t)set->n;
                        count = 1;
                    }
                    if (tr_push(set, c, (size_t)(count > (1u << 24) ? (1u << 24) + 1 : count)) < 0)
                        goto nomem;
                    s = end + 1;
                    continue;
                }
            }
        }
        unsigned char lo = tr_byte(&s);
        if (*s == '-' && s[1]) {
            const char *q = s + 1;
            unsigned char hi = tr_byte(&q);
            if (hi < lo) {
                sh_err(p, "range-endpoints of '%c-%c' are in reverse collating sequence order",
                       lo, hi);
                return -1;
            }
            for (unsigned c = lo; c <= hi; c++)
                if (tr_push(set, (unsigned char)c, 1) < 0)
                    goto nomem;
            s = q;
            continue;
        }
        if (tr_push(set, lo, 1) < 0)
            goto nomem;
    }
    return 0;
nomem:
    oom(p);
    return -1;
}

/* tr: translate, -d delete, -s squeeze, -c/-C complement, -t truncate. */
static int tr_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "complement", 0, 'c' }, { "delete", 0, 'd' }, { "squeeze-repeats", 0, 's' },
        { "truncate-set1", 0, 't' }, { NULL, 0, 0 },
    };
    int complement = 0, del = 0, squeeze = 0, truncate = 0, c;
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "cCdst", longs)) != -1) {
        switch (c) {
        case 'c':
        case 'C':
            complement = 1;
            break;
        case 'd':
            del = 1;
            break;
        case 's':
            squeeze = 1;
            break;
        case 't':
            truncate = 1;
            break;
        default:
            return 1;
        }
    }
    int nsets = argc - o.ind;
    int need = del && !squeeze ? 1 : (del || !squeeze) ? 2 : 1;
    if (nsets < need || nsets < 1) {
        sh_err(p, nsets ? "missing operand after '%s'" : "missing operand", nsets ? argv[argc - 1] : "");
        return 1;
    }
    if (nsets > 2 || (nsets == 2 && del && !squeeze)) {
        sh_err(p, "extra operand '%s'", argv[o.ind + (del && !squeeze ? 1 : 2)]);
        return 1;
    }
    tr_set s1 = { 0 }, s2 = { 0 };
    int status = 1;
    unsigned char in1[256] = { 0 }, in2[256] = { 0 }, map[256];
    if (tr_parse(p, argv[o.ind], &s1, 0) < 0 || (nsets == 2 && tr_parse(p, argv[o.ind + 1], &s2, 1) < 0))
        goto done;
    for (size_t i = 0; i < s1.n; i++)
        in1[s1.bytes[i]] = 1;
    if (complement) {
        /* The complement, in byte order, replaces set 1. */
        s1.n = 0;
        for (int b = 0; b < 256; b++)
            if (!in1[b] && tr_push(&s1, (unsigned char)b, 1) < 0) {
                oom(p);
                goto done;
            }
        for (int b = 0; b < 256; b++)
            in1[b] = !in1[b];
    }
    int translate = nsets == 2 && !del;
    for (int b = 0; b < 256; b++)
        map[b] = (unsigned char)b;
    if (translate) {
        if (s2.classes) {
            sh_err(p, "when translating, the only character classes that may appear in\n"
                      "string2 are 'upper' and 'lower'");
            goto done;
        }
        if (s2.equiv) {
            sh_err(p, "[=c=] expressions may not appear in string2 when translating");
            goto done;
        }
        if (s2.n == 0) {
            sh_err(p, "when not truncating set1, string2 must be non-empty");
            goto done;
        }
        if (s2.fill_at >= 0 && s2.n < s1.n) {
            size_t extra = s1.n - s2.n;
            if (tr_push(&s2, 0, extra) < 0) {
                oom(p);
                goto done;
            }
            memmove(s2.bytes + s2.fill_at + 1 + extra, s2.bytes + s2.fill_at + 1,
                    s2.n - extra - (size_t)s2.fill_at - 1);
            memset(s2.bytes + s2.fill_at + 1, s2.bytes[s2.fill_at], extra);
        }
        size_t n = s1.n;
        if (truncate && s2.n < n)
            n = s2.n;
        for (size_t i = 0; i < n; i++)
            map[s1.bytes[i]] = s2.bytes[i < s2.n ? i : s2.n - 1];
    }
    const tr_set *sq = nsets == 2 ? &s2 : &s1;
    for (size_t i = 0; i < sq->n; i++)
        in2[sq->bytes[i]] = 1;
    if (nsets == 1 && complement)
        memcpy(in2, in1, sizeof(in2));
    obuf out = { 0 };
    int last = -1;
    for (size_t i = 0; i < p->in_len && !out.failed; i++) {
        unsigned char b = (unsigned char)p->in[i];
        if (del && in1[b])
            continue;
        b = map[b];
        if (squeeze && in2[b] && last == b)
            continue;
        ob_c(&out, (char)b);
        last = b;
    }
    status = ob_flush(p, &out);
done:
    free(s1.bytes);
    free(s2.bytes);
    return status;
}

/* ---------------------------------------------------------------- tee */

/* tee: copies standard input to standard output and to each file (-a
 * appends). */
static int tee_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "append", 0, 'a' }, { "ignore-interrupts", 0, 'i' }, { "output-error", 2, 'p' },
        { NULL, 0, 0 },
    };
    int append = 0, status = 0, c;
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "aip", longs)) != -1) {
        if (c == 'a')
            append = 1;
        else if (c == '?')
            return 1;
    }
    for (int i = o.ind; i < argc; i++)
        if (sh_save(p, argv[i], p->in, p->in_len, append) < 0)
            status = 1;
    if (p->in_len && sh_out(p, p->in, p->in_len) < 0)
        return SH_STATUS_PIPE;
    return status;
}

/* ---------------------------------------------------------------- seq */

/* Parses a seq operand; *prec gets the digits after its point (less its
 * exponent), as GNU uses them to choose the output precision. */
static int seq_operand(sh_proc *p, const char *s, double *v, int *prec)
{
    char *end;
    *v = strtod(s, &end);
    if (end == s || *end || isnan(*v)) {
        sh_err(p, "invalid floating point argument: '%s'", s);
        return -1;
    }
    const char *dot = strchr(s, '.'), *e = strpbrk(s, "eE");
    long digits = 0;
    if (dot)
        digits = (long)((e ? e : s + strlen(s)) - dot - 1);
    if (e)
        digits -= strtol(e + 1, NULL, 10);
    *prec = digits < 0 ? 0 : digits > 60 ? 60 : (int)digits;
    return 0;
}

/* Formats one value of the sequence. */
static int seq_format(sh_buf *b, const char *fmt, int width, int prec, double x)
{
    b->len = 0;
    if (fmt) /* checked by sh_one_float_format: one floating-point conversion */
        return sh_buf_addf(b, fmt, x);
    return sh_buf_addf(b, "%0*.*f", width, prec, x);
}

/* seq: [FIRST [INCREMENT]] LAST, -s -w -f, with GNU's precision rules. */
static int seq_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "separator", 1, 's' }, { "equal-width", 0, 'w' }, { "format", 1, 'f' }, { NULL, 0, 0 },
    };
    const char *sep = "\n", *fmt = NULL;
    int equal = 0, c;
    sh_opt o = { .ind = 1 };
    /* Negative numbers are operands, not options. */
    int first_neg = 0;
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '-' && (isdigit((unsigned char)argv[i][1]) || argv[i][1] == '.')) {
            first_neg = i;
            break;
        }
    int opt_argc = first_neg ? first_neg : argc;
    while ((c = sh_getopt(p, &o, opt_argc, argv, "+s:wf:", longs)) != -1) {
        switch (c) {
        case 's':
            sep = o.arg;
            break;
        case 'w':
            equal = 1;
            break;
        case 'f':
            fmt = o.arg;
            break;
        default:
            return 1;
        }
    }
    int n = argc - o.ind;
    if (n < 1 || n > 3) {
        if (n < 1)
            sh_err(p, "missing operand");
        else
            sh_err(p, "extra operand '%s'", argv[o.ind + 3]);
        return 1;
    }
    if (fmt && equal) {
        sh_err(p, "format string may not be specified when printing equal width strings");
        return 1;
    }
    if (fmt && !sh_one_float_format(fmt, "-+ #0'")) {
        sh_err(p, "invalid format string: '%s'", fmt);
        return 1;
    }
    double first = 1, step = 1, last;
    int pf = 0, ps = 0, pl = 0;
    char **a = argv + o.ind;
    if (seq_operand(p, a[n - 1], &last, &pl) < 0 ||
        (n >= 2 && seq_operand(p, a[0], &first, &pf) < 0) ||
        (n == 3 && seq_operand(p, a[1], &step, &ps) < 0))
        return 1;
    if (step == 0) {
        sh_err(p, "invalid Zero increment value: '%s'", a[1]);
        return 1;
    }
    int prec = pf > ps ? pf : ps, width = 0;
    sh_buf cur = { 0 }, lastb = { 0 };
    obuf out = { 0 };
    int status = 0;
    if (equal) {
        if (seq_format(&cur, NULL, 0, prec, first) < 0 || seq_format(&lastb, NULL, 0, prec, last) < 0)
            out.failed = 1;
        width = (int)(cur.len > lastb.len ? cur.len : lastb.len);
    }
    int done = step > 0 ? first > last : first < last;
    /* As GNU: each value is first + i * step, so errors do not add up; a
     * value just past LAST that prints as LAST is still printed. */
    for (uintmax_t i = 1; !done && !out.failed; i++) {
        double x = first + (double)(i - 1) * step;
        if (seq_format(&cur, fmt, width, prec, x) < 0) {
            out.failed = 1;
            break;
        }
        if (i > 1)
            ob_s(&out, sep);
        ob_add(&out, cur.data, cur.len);
        if (out.b.len > 65536) {
            int r = sh_out(p, out.b.data, out.b.len);
            out.b.len = 0;
            if (r < 0) {
                status = SH_STATUS_PIPE;
                break;
            }
        }
        double next = first + (double)i * step;
        /* A step too small to change the value would repeat it forever. */
        done = (step > 0 ? next > last : next < last) || next == x;
        if (done && !fmt) {
            sh_buf nb = { 0 };
            if (seq_format(&nb, NULL, width, prec, next) == 0 &&
                seq_format(&lastb, NULL, width, prec, last) == 0 && nb.len == lastb.len &&
                memcmp(nb.data, lastb.data, nb.len) == 0 &&
                !(nb.len == cur.len && memcmp(nb.data, cur.data, nb.len) == 0))
                done = 0;
            sh_buf_free(&nb);
        }
    }
    int printed = !(step > 0 ? first > last : first < last);
    if (printed)
        ob_c(&out, '\n');
    sh_buf_free(&cur);
    sh_buf_free(&lastb);
    if (status) {
        sh_buf_free(&out.b);
        return status;
    }
    return ob_flush(p, &out);
}

/* ---------------------------------------------------------------- nl */

/* nl: -b a/t/n/pREGEX, -n ln/rn/rz, -w, -s, -v, -i. */
static int nl_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "body-numbering", 1, 'b' }, { "number-format", 1, 'n' },   { "number-width", 1, 'w' },
        { "number-separator", 1, 's' }, { "starting-line-number", 1, 'v' },
        { "line-increment", 1, 'i' }, { NULL, 0, 0 },
    };
    const char *style = "t", *format = "rn", *sep = "\t";
    long width = 6;
    intmax_t number = 1, incr = 1;
    int c;
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "b:n:w:s:v:i:h:f:d:l:p", longs)) != -1) {
        char *end;
        switch (c) {
        case 'b':
            style = o.arg;
            if (strcmp(style, "a") && strcmp(style, "t") && strcmp(style, "n") && style[0] != 'p') {
                sh_err(p, "invalid body numbering style: '%s'", style);
                return 1;
            }
            break;
        case 'n':
            format = o.arg;
            if (strcmp(format, "ln") && strcmp(format, "rn") && strcmp(format, "rz")) {
                sh_err(p, "invalid line numbering format: '%s'", format);
                return 1;
            }
            break;
        case 'w':
            width = strtol(o.arg, &end, 10);
            if (end == o.arg || *end || width < 1 || width > 1000) {
                sh_err(p, "invalid line number field width: '%s'", o.arg);
                return 1;
            }
            break;
        case 's':
            sep = o.arg;
            break;
        case 'v':
        case 'i':
            *(c == 'v' ? &number : &incr) = strtoimax(o.arg, &end, 10);
            if (end == o.arg || *end) {
                sh_err(p, "invalid %s: '%s'", c == 'v' ? "starting line number" : "line number increment", o.arg);
                return 1;
            }
            break;
        case 'h':
        case 'f':
        case 'd':
        case 'l':
        case 'p':
            break;
        default:
            return 1;
        }
    }
    regex_t re;
    int have_re = style[0] == 'p';
    if (have_re && regcomp(&re, style + 1, REG_NOSUB) != 0) {
        sh_err(p, "invalid regular expression");
        return 1;
    }
    file_args f = operands(argc, argv, o.ind);
    int status = 0, overflow = 0;
    obuf out = { 0 };
    sh_buf scratch = { 0 };
    for (int i = 0; i < f.count && !out.failed; i++) {
        char *data;
        size_t len;
        if (load_input(p, f.names[i], &data, &len) < 0) {
            status = 1;
            continue;
        }
        const char *pos = data;
        text_line l;
        while (next_line(&pos, data + len, '\n', &l) && !out.failed) {
            int numbered;
            if (have_re) {
                scratch.len = 0;
                if (sh_buf_add(&scratch, l.s, l.len) < 0 || !sh_buf_cstr(&scratch)) {
                    out.failed = 1;
                    break;
                }
                numbered = regexec(&re, scratch.data, 0, NULL, 0) == 0;
            } else {
                numbered = style[0] == 'a' || (style[0] == 't' && l.len > 0);
            }
            if (numbered && overflow) {
                sh_err(p, "line number overflow");
                status = 1;
                break;
            }
            if (numbered) {
                const char *nf = format[0] == 'l' ? "%-*jd%s" : format[1] == 'z' ? "%0*jd%s" : "%*jd%s";
                if (!out.failed && sh_buf_addf(&out.b, nf, (int)width, number, sep) < 0)
                    out.failed = 1;
                overflow = incr > 0 ? number > INTMAX_MAX - incr : number < INTMAX_MIN - incr;
                if (!overflow)
                    number += incr;
            } else {
                for (size_t k = 0; k < (size_t)width + strlen(sep); k++)
                    ob_c(&out, ' ');
            }
            ob_add(&out, l.s, l.len);
            ob_c(&out, '\n');
        }
        free(data);
    }
    if (have_re)
        regfree(&re);
    sh_buf_free(&scratch);
    int r = ob_flush(p, &out);
    return r ? r : status;
}

/* ---------------------------------------------------------------- rev */

/* rev: reverses the bytes of each line. */
static int rev_main(sh_proc *p, int argc, char **argv)
{
    sh_opt o = { .ind = 1 };
    if (sh_getopt(p, &o, argc, argv, "", NULL) != -1)
        return 1;
    file_args f = operands(argc, argv, o.ind);
    int status = 0;
    for (int i = 0; i < f.count; i++) {
        char *data;
        size_t len;
        if (load_input(p, f.names[i], &data, &len) < 0) {
            status = 1;
            continue;
        }
        const char *pos = data, *end = data + len;
        text_line l;
        while (next_line(&pos, end, '\n', &l)) {
            char *s = (char *)l.s;
            for (size_t a = 0, b = l.len; a + 1 < b; a++, b--) {
                char t = s[a];
                s[a] = s[b - 1];
                s[b - 1] = t;
            }
        }
        int r = len ? sh_out(p, data, len) : 0;
        free(data);
        if (r < 0)
            return SH_STATUS_PIPE;
    }
    return status;
}

/* ---------------------------------------------------------------- paste */

/* Expands paste's -d list: \n \t \\ and \0 (no delimiter). Each delimiter is
 * one byte, or none (stored as -1). Caller frees; NULL when out of memory. */
static int *paste_delims(const char *list, size_t *n)
{
    int *d = malloc((strlen(list) + 1) * sizeof(*d));
    if (!d)
        return NULL;
    size_t k = 0;
    for (const char *s = list; *s; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            d[k++] = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s == '0' ? -1 : (unsigned char)*s;
        } else {
            d[k++] = (unsigned char)*s;
        }
    }
    *n = k;
    return d;
}

/* paste: merges lines of files side by side, or each file's lines (-s). */
static int paste_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "delimiters", 1, 'd' }, { "serial", 0, 's' }, { "zero-terminated", 0, 'z' },
        { NULL, 0, 0 },
    };
    const char *list = "\t";
    int serial = 0, c;
    char term = '\n';
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "d:sz", longs)) != -1) {
        if (c == 'd')
            list = o.arg;
        else if (c == 's')
            serial = 1;
        else if (c == 'z')
            term = '\0';
        else
            return 1;
    }
    size_t nd;
    int *delims = paste_delims(list, &nd);
    if (!delims)
        return oom(p);
    if (nd == 0) {
        delims[0] = -1;
        nd = 1;
    }
    file_args f = operands(argc, argv, o.ind);
    char **data = calloc((size_t)f.count, sizeof(*data));
    size_t *len = calloc((size_t)f.count, sizeof(*len));
    const char **pos = calloc((size_t)f.count, sizeof(*pos));
    int status = 0;
    obuf out = { 0 };
    if (!data || !len || !pos) {
        status = oom(p);
        goto done;
    }
    /* Every "-" reads from the same standard input, line by line in turn. */
    const char *stdin_pos = p->in;
    for (int i = 0; i < f.count; i++) {
        if (strcmp(f.names[i], "-") == 0)
            continue;
        if (load_input(p, f.names[i], &data[i], &len[i]) < 0) {
            status = 1;
            goto done;
        }
        pos[i] = data[i];
    }
    text_line l;
    if (serial) {
        for (int i = 0; i < f.count; i++) {
            int is_stdin = strcmp(f.names[i], "-") == 0;
            const char *s = is_stdin ? stdin_pos : data[i];
            const char *end = is_stdin ? p->in + p->in_len : data[i] + len[i];
            size_t k = 0;
            for (int first = 1; next_line(&s, end, term, &l); first = 0) {
                if (!first && delims[k % nd] >= 0)
                    ob_c(&out, (char)delims[k % nd]);
                if (!first)
                    k++;
                ob_add(&out, l.s, l.len);
            }
            if (is_stdin)
                stdin_pos = s;
            ob_c(&out, term);
        }
    } else {
        for (;;) {
            int any = 0;
            obuf row = { 0 };
            for (int i = 0; i < f.count; i++) {
                int is_stdin = strcmp(f.names[i], "-") == 0;
                const char **s = is_stdin ? &stdin_pos : &pos[i];
                const char *end = is_stdin ? p->in + p->in_len : data[i] + len[i];
                if (next_line(s, end, term, &l)) {
                    ob_add(&row, l.s, l.len);
                    any = 1;
                }
                if (i + 1 < f.count && delims[i % nd] >= 0)
                    ob_c(&row, (char)delims[i % nd]);
            }
            if (any) {
                ob_add(&out, row.b.data, row.b.len);
                ob_c(&out, term);
            }
            if (row.failed)
                out.failed = 1;
            sh_buf_free(&row.b);
            if (!any || out.failed)
                break;
        }
    }
    status = ob_flush(p, &out);
done:
    for (int i = 0; data && i < f.count; i++)
        free(data[i]);
    sh_buf_free(&out.b);
    free(data);
    free(len);
    free(pos);
    free(delims);
    return status;
}

/* ---------------------------------------------------------------- fold */

/* The column after printing c at column col (GNU fold's adjust_column). */
static size_t fold_column(size_t col, unsigned char c, int bytes)
{
    if (bytes)
        return col + 1;
    if (c == '\b')
        return col > 0 ? col - 1 : 0;
    if (c == '\r')
        return 0;
    if (c == '\t')
        return col + 8 - col % 8;
    return col + 1;
}

/* fold: wraps lines at -w columns (80), at blanks with -s, bytes with -b. */
static int fold_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "width", 1, 'w' }, { "spaces", 0, 's' }, { "bytes", 0, 'b' }, { NULL, 0, 0 },
    };
    const char *legacy;
    char **av = strip_legacy_count(&argc, argv, &legacy);
    if (!av)
        return oom(p);
    size_t width = 80;
    int spaces = 0, bytes = 0, c, status = 0;
    sh_opt o = { .ind = 1 };
    const char *w = legacy;
    while ((c = sh_getopt(p, &o, argc, av, "w:sb", longs)) != -1) {
        if (c == 'w')
            w = o.arg;
        else if (c == 's')
            spaces = 1;
        else if (c == 'b')
            bytes = 1;
        else {
            free(av);
            return 1;
        }
    }
    uintmax_t wv;
    if (w && (parse_size(w, &wv) < 0 || wv == 0 || strspn(w, "0123456789") != strlen(w))) {
        sh_err(p, "invalid number of columns: '%s'", w);
        free(av);
        return 1;
    }
    if (w)
        width = wv > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)wv;
    file_args f = operands(argc, av, o.ind);
    obuf out = { 0 };
    sh_buf line = { 0 };
    for (int i = 0; i < f.count && !out.failed; i++) {
        char *data;
        size_t len;
        if (load_input(p, f.names[i], &data, &len) < 0) {
            status = 1;
            continue;
        }
        size_t col = 0;
        line.len = 0;
        for (size_t k = 0; k < len && !out.failed; k++) {
            unsigned char ch = (unsigned char)data[k];
            if (ch == '\n') {
                ob_add(&out, line.data, line.len);
                ob_c(&out, '\n');
                line.len = col = 0;
                continue;
            }
            for (;;) {
                col = fold_column(col, ch, bytes);
                if (col <= width)
                    break;
                if (spaces) {
                    size_t b = line.len;
                    while (b > 0 && !isblank((unsigned char)line.data[b - 1]))
                        b--;
                    if (b > 0) {
                        ob_add(&out, line.data, b);
                        ob_c(&out, '\n');
                        memmove(line.data, line.data + b, line.len - b);
                        line.len -= b;
                        col = 0;
                        for (size_t j = 0; j < line.len; j++)
                            col = fold_column(col, (unsigned char)line.data[j], bytes);
                        continue;
                    }
                }
                if (line.len == 0)
                    break;
                ob_add(&out, line.data, line.len);
                ob_c(&out, '\n');
                line.len = col = 0;
            }
            if (sh_buf_addc(&line, (char)ch) < 0)
                out.failed = 1;
        }
        ob_add(&out, line.data, line.len);
        free(data);
    }
    free(av);
    sh_buf_free(&line);
    int r = ob_flush(p, &out);
    return r ? r : status;
}

/* ---------------------------------------------------------------- expand */

/* expand: tabs to spaces; -t N or a list of stops, -i leading tabs only. */
static int expand_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "tabs", 1, 't' }, { "initial", 0, 'i' }, { NULL, 0, 0 },
    };
    size_t stops[64], n_stops = 0;
    int initial = 0, c, status = 0;
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "t:i", longs)) != -1) {
        if (c == 'i') {
            initial = 1;
            continue;
        }
        if (c != 't')
            return 1;
        for (const char *s = o.arg; *s;) {
            char *end;
            if (!isdigit((unsigned char)*s)) {
                sh_err(p, "tab size contains invalid character(s): '%s'", s);
                return 1;
            }
            unsigned long v = strtoul(s, &end, 10);
            if (v == 0 || v > (1u << 20) || n_stops == 64 ||
                (n_stops && v <= stops[n_stops - 1])) {
                sh_err(p, v == 0 ? "tab size cannot be 0" : "tab sizes must be ascending");
                return 1;
            }
            stops[n_stops++] = v;
            s = end;
            if (*s == ',' || *s == ' ')
                s++;
        }
    }
    size_t every = n_stops == 1 ? stops[0] : n_stops == 0 ? 8 : 0;
    file_args f = operands(argc, argv, o.ind);
    obuf out = { 0 };
    for (int i = 0; i < f.count && !out.failed; i++) {
        char *data;
        size_t len;
        if (load_input(p, f.names[i], &data, &len) < 0) {
            status = 1;
            continue;
        }
        size_t col = 0;
        int leading = 1;
        for (size_t k = 0; k < len && !out.failed; k++) {
            char ch = data[k];
            if (ch == '\t' && (!initial || leading)) {
                size_t next = col + 1;
                if (every) {
                    next = col + every - col % every;
                } else {
                    for (size_t s = 0; s < n_stops; s++)
                        if (stops[s] > col) {
                            next = stops[s];
                            break;
                        }
                }
                for (; col < next; col++)
                    ob_c(&out, ' ');
                continue;
            }
            if (ch != ' ' && ch != '\t')
                leading = 0;
            ob_c(&out, ch);
            if (ch == '\n') {
                col = 0;
                leading = 1;
            } else if (ch == '\b') {
                col = col ? col - 1 : 0;
            } else {
                col++;
            }
        }
        free(data);
    }
    int r = ob_flush(p, &out);
    return r ? r : status;
}

/* ---------------------------------------------------------------- join */

/* Splits a line into fields for join: at each tab byte, or at runs of blanks
 * with leading blanks ignored (tab < 0). Caller frees; NULL on OOM. */
static text_line *join_fields(text_line l, int tab, size_t *n)
{
    size_t cap = 8, k = 0;
    text_line *f = malloc(cap * sizeof(*f));
    if (!f)
        return NULL;
    const char *s = l.s, *e = l.s + l.len;
    if (tab < 0)
        while (s < e && is_blank_byte((unsigned char)*s))
            s++;
    while (tab >= 0 || s < e) {
        const char *start = s;
        if (tab >= 0)
            while (s < e && *s != (char)tab)
                s++;
        else
            while (s < e && !is_blank_byte((unsigned char)*s))
                s++;
        if (k == cap) {
            text_line *g = realloc(f, 2 * cap * sizeof(*f));
            if (!g) {
                free(f);
                return NULL;
            }
            f = g;
            cap *= 2;
        }
        f[k++] = (text_line){ start, (size_t)(s - start) };
        if (s >= e)
            break;
        if (tab >= 0)
            s++;
        else
            while (s < e && is_blank_byte((unsigned char)*s))
                s++;
    }
    *n = k;
    return f;
}

/* One output field of -o: file 0 for the join field, else file 1 or 2. */
typedef struct join_spec {
    int file;
    size_t field;
} join_spec;

/* The settings of one join run. */
typedef struct join_cfg {
    int tab, icase;
    size_t key[2];
    const char *empty;
    join_spec *specs;
    size_t n_specs;
    obuf out;
} join_cfg;

/* Compares two join fields byte by byte (ignoring case with -i). */
static int join_cmp(const join_cfg *j, text_line a, text_line b)
{
    size_t n = a.len < b.len ? a.len : b.len;
    for (size_t i = 0; i < n; i++) {
        int x = (unsigned char)a.s[i], y = (unsigned char)b.s[i];
        if (j->icase) {
            x = tolower(x);
            y = tolower(y);
        }
        if (x != y)
            return x - y;
    }
    return (a.len > b.len) - (a.len < b.len);
}

/* The join field of a line's fields (empty when missing). */
static text_line join_key(const join_cfg *j, int file, const text_line *f, size_t n)
{
    return j->key[file] < n ? f[j->key[file]] : (text_line){ "", 0 };
}

/* Prints one output line from fields of file 1 and/or file 2 (NULL for an
 * unpaired line's missing side). */
static void join_print(join_cfg *j, const text_line *f1, size_t n1, const text_line *f2, size_t n2)
{
    char sep = j->tab >= 0 ? (char)j->tab : ' ';
    if (j->n_specs) {
        for (size_t i = 0; i < j->n_specs; i++) {
            if (i)
                ob_c(&j->out, sep);
            const join_spec *s = &j->specs[i];
            const text_line *f = s->file == 1 ? f1 : f2;
            size_t n = s->file == 1 ? n1 : n2, field = s->field;
            if (s->file == 0) {
                f = f1 ? f1 : f2;
                n = f1 ? n1 : n2;
                field = j->key[f1 ? 0 : 1];
            }
            if (f && field < n)
                ob_add(&j->out, f[field].s, f[field].len);
            else
                ob_s(&j->out, j->empty);
        }
        ob_c(&j->out, '\n');
        return;
    }
    text_line key = f1 ? join_key(j, 0, f1, n1) : join_key(j, 1, f2, n2);
    ob_add(&j->out, key.s, key.len);
    for (size_t i = 0; f1 && i < n1; i++) {
        if (i == j->key[0])
            continue;
        ob_c(&j->out, sep);
        ob_add(&j->out, f1[i].s, f1[i].len);
    }
    for (size_t i = 0; f2 && i < n2; i++) {
        if (i == j->key[1])
            continue;
        ob_c(&j->out, sep);
        ob_add(&j->out, f2[i].s, f2[i].len);
    }
    ob_c(&j->out, '\n');
}

/* Parses -o's list ("0,1.2 2.1"): 0, or -1 after the message. */
static int join_parse_format(sh_proc *p, join_cfg *j, const char *list)
{
    for (const char *s = list; *s;) {
        join_spec spec;
        if (*s == '0') {
            spec = (join_spec){ 0, 0 };
            s++;
        } else if ((*s == '1' || *s == '2') && s[1] == '.' && isdigit((unsigned char)s[2])) {
            char *end;
            unsigned long v = strtoul(s + 2, &end, 10);
            if (v == 0) {
                sh_err(p, "invalid field number: '%s'", s + 2);
                return -1;
            }
            spec = (join_spec){ *s - '0', v - 1 };
            s = end;
        } else {
            sh_err(p, "invalid file number in field spec: '%s'", s);
            return -1;
        }
        join_spec *g = realloc(j->specs, (j->n_specs + 1) * sizeof(*g));
        if (!g) {
            oom(p);
            return -1;
        }
        j->specs = g;
        j->specs[j->n_specs++] = spec;
        if (*s == ',' || *s == ' ')
            s++;
        else if (*s) {
            sh_err(p, "invalid field specifier: '%s'", s);
            return -1;
        }
    }
    return 0;
}

/* Reads a join field number of -1, -2 or -j. */
static int join_field_arg(sh_proc *p, const char *s, size_t *v)
{
    char *end;
    unsigned long n = strtoul(s, &end, 10);
    if (!isdigit((unsigned char)*s) || *end || n == 0) {
        sh_err(p, "invalid field number: '%s'", s);
        return -1;
    }
    *v = n - 1;
    return 0;
}

/* join: joins two sorted files on a field: -1 -2 -j -t -a -v -o -e -i. */
static int join_main(sh_proc *p, int argc, char **argv)
{
    enum { OPT_NOCHECK = 256 };
    static const sh_longopt longs[] = {
        { "ignore-case", 0, 'i' },    { "check-order", 0, OPT_NOCHECK },
        { "nocheck-order", 0, OPT_NOCHECK }, { NULL, 0, 0 },
    };
    join_cfg j = { .tab = -1, .empty = "" };
    int show_unpaired[2] = { 0, 0 }, only_unpaired = 0, c, status = 1;
    char *data[2] = { NULL, NULL };
    text_line *lines[2] = { NULL, NULL };
    size_t n[2] = { 0, 0 };
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "1:2:j:t:a:v:o:e:i", longs)) != -1) {
        switch (c) {
        case '1':
        case '2':
            if (join_field_arg(p, o.arg, &j.key[c - '1']) < 0)
                goto done;
            break;
        case 'j':
            if (join_field_arg(p, o.arg, &j.key[0]) < 0)
                goto done;
            j.key[1] = j.key[0];
            break;
        case 't':
            if (strlen(o.arg) > 1) {
                sh_err(p, "multi-character tab '%s'", o.arg);
                goto done;
            }
            j.tab = (unsigned char)o.arg[0];
            break;
        case 'a':
        case 'v':
            if (strcmp(o.arg, "1") != 0 && strcmp(o.arg, "2") != 0) {
                sh_err(p, "invalid field number: '%s'", o.arg);
                goto done;
            }
            show_unpaired[o.arg[0] - '1'] = 1;
            if (c == 'v')
                only_unpaired = 1;
            break;
        case 'o':
            if (join_parse_format(p, &j, o.arg) < 0)
                goto done;
            break;
        case 'e':
            j.empty = o.arg;
            break;
        case 'i':
            j.icase = 1;
            break;
        case OPT_NOCHECK:
            break;
        default:
            goto done;
        }
    }
    if (two_operands(p, argc, argv, o.ind) < 0)
        goto done;
    size_t cap[2] = { 0, 0 };
    for (int k = 0; k < 2; k++) {
        size_t len;
        if (load_input(p, argv[o.ind + k], &data[k], &len) < 0)
            goto done;
        if (add_lines(data[k], len, '\n', &lines[k], &n[k], &cap[k]) < 0) {
            oom(p);
            goto done;
        }
    }
    size_t i = 0, k = 0;
    text_line *f1 = NULL, *f2 = NULL;
    size_t n1 = 0, n2 = 0;
    while (!j.out.failed && (i < n[0] || k < n[1])) {
        free(f1);
        free(f2);
        f1 = i < n[0] ? join_fields(lines[0][i], j.tab, &n1) : NULL;
        f2 = k < n[1] ? join_fields(lines[1][k], j.tab, &n2) : NULL;
        if ((i < n[0] && !f1) || (k < n[1] && !f2)) {
            j.out.failed = 1;
            break;
        }
        int d = !f1 ? 1 : !f2 ? -1 : join_cmp(&j, join_key(&j, 0, f1, n1), join_key(&j, 1, f2, n2));
        if (d < 0) {
            if (show_unpaired[0])
                join_print(&j, f1, n1, NULL, 0);
            i++;
            continue;
        }
        if (d > 0) {
            if (show_unpaired[1])
                join_print(&j, NULL, 0, f2, n2);
            k++;
            continue;
        }
        /* Equal keys: every pairing of the two runs. */
        text_line key = join_key(&j, 0, f1, n1);
        size_t i_end = i, k_end = k;
        while (i_end < n[0]) {
            size_t m;
            text_line *g = join_fields(lines[0][i_end], j.tab, &m);
            int same = g && join_cmp(&j, join_key(&j, 0, g, m), key) == 0;
            free(g);
            if (!same)
                break;
            i_end++;
        }
        while (k_end < n[1]) {
            size_t m;
            text_line *g = join_fields(lines[1][k_end], j.tab, &m);
            int same = g && join_cmp(&j, join_key(&j, 1, g, m), key) == 0;
            free(g);
            if (!same)
                break;
            k_end++;
        }
        for (size_t a = i; a < i_end && !only_unpaired; a++) {
            size_t m1, m2;
            text_line *g1 = join_fields(lines[0][a], j.tab, &m1);
            for (size_t b = k; g1 && b < k_end; b++) {
                text_line *g2 = join_fields(lines[1][b], j.tab, &m2);
                if (!g2) {
                    j.out.failed = 1;
                    break;
                }
                join_print(&j, g1, m1, g2, m2);
                free(g2);
            }
            if (!g1)
                j.out.failed = 1;
            free(g1);
        }
        i = i_end;
        k = k_end;
    }
    free(f1);
    free(f2);
    status = ob_flush(p, &j.out);
done:
    sh_buf_free(&j.out.b);
    free(j.specs);
    for (int m = 0; m < 2; m++) {
        free(data[m]);
        free(lines[m]);
    }
    return status;
}

/* ---------------------------------------------------------------- comm */

/* comm: three columns (only in 1, only in 2, in both) of two sorted files;
 * -1 -2 -3 hide them; unsorted input is diagnosed as GNU does. */
static int comm_main(sh_proc *p, int argc, char **argv)
{
    enum { OPT_DELIM = 256, OPT_TOTAL, OPT_CHECK };
    static const sh_longopt longs[] = {
        { "output-delimiter", 1, OPT_DELIM }, { "total", 0, OPT_TOTAL },
        { "check-order", 0, OPT_CHECK },      { "nocheck-order", 0, OPT_CHECK },
        { "zero-terminated", 0, 'z' },        { NULL, 0, 0 },
    };
    int hide[3] = { 0, 0, 0 }, total = 0, c, status = 0;
    const char *delim = "\t";
    char term = '\n';
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "123z", longs)) != -1) {
        if (c >= '1' && c <= '3')
            hide[c - '1'] = 1;
        else if (c == OPT_DELIM)
            delim = o.arg[0] ? o.arg : "";
        else if (c == OPT_TOTAL)
            total = 1;
        else if (c == 'z')
            term = '\0';
        else if (c != OPT_CHECK)
            return 1;
    }
    if (two_operands(p, argc, argv, o.ind) < 0)
        return 1;
    char *data[2] = { NULL, NULL };
    size_t len[2];
    for (int k = 0; k < 2; k++)
        if (load_input(p, argv[o.ind + k], &data[k], &len[k]) < 0) {
            free(data[0]);
            return 1;
        }
    const char *pos[2] = { data[0], data[1] };
    text_line cur[2], prev[2];
    int have[2], had[2] = { 0, 0 }, warned[2] = { 0, 0 };
    uintmax_t counts[3] = { 0, 0, 0 };
    obuf out = { 0 };
    for (int k = 0; k < 2; k++)
        have[k] = next_line(&pos[k], data[k] + len[k], term, &cur[k]);
    while ((have[0] || have[1]) && !out.failed) {
        int d;
        if (!have[0])
            d = 1;
        else if (!have[1])
            d = -1;
        else {
            size_t m = cur[0].len < cur[1].len ? cur[0].len : cur[1].len;
            d = memcmp(cur[0].s, cur[1].s, m);
            if (!d)
                d = (cur[0].len > cur[1].len) - (cur[0].len < cur[1].len);
        }
        int col = d < 0 ? 0 : d > 0 ? 1 : 2;
        counts[col]++;
        if (!hide[col]) {
            for (int k = 0; k < col; k++)
                if (!hide[k])
                    ob_s(&out, delim);
            text_line l = cur[d > 0 ? 1 : 0];
            ob_add(&out, l.s, l.len);
            ob_c(&out, term);
        }
        /* Advance the file(s) the line came from, checking their order. */
        for (int k = 0; k < 2; k++) {
            if ((k == 0 && d > 0) || (k == 1 && d < 0))
                continue;
            prev[k] = cur[k];
            had[k] = 1;
            have[k] = next_line(&pos[k], data[k] + len[k], term, &cur[k]);
            if (have[k] && had[k] && !warned[k]) {
                size_t m = prev[k].len < cur[k].len ? prev[k].len : cur[k].len;
                int e = memcmp(prev[k].s, cur[k].s, m);
                if (e > 0 || (e == 0 && prev[k].len > cur[k].len)) {
                    if (sh_out(p, out.b.data, out.b.len) < 0)
                        out.failed = 1;
                    out.b.len = 0;
                    sh_err(p, "file %d is not in sorted order", k + 1);
                    warned[k] = 1;
                    status = 1;
                }
            }
        }
    }
    if (total && !out.failed &&
        sh_buf_addf(&out.b, "%ju%s%ju%s%ju%stotal%c", counts[0], delim, counts[1], delim,
                    counts[2], delim, term) < 0)
        out.failed = 1;
    free(data[0]);
    free(data[1]);
    int r = ob_flush(p, &out);
    if (r)
        return r;
    if (status)
        sh_err(p, "input is not in sorted order");
    return status;
}

/* ---------------------------------------------------------------- split */

/* Writes the name of output file number idx: prefix, suffix, extra suffix.
 * 0, or -1 when the suffixes are used up. */
static int split_name(sh_buf *name, const char *prefix, uintmax_t idx, size_t width,
                      const char *alphabet, const char *extra)
{
    char suffix[64];
    unsigned base = (unsigned)strlen(alphabet);
    if (width >= sizeof(suffix))
        return -1;
    for (size_t i = width; i > 0; i--) {
        suffix[i - 1] = alphabet[idx % base];
        idx /= base;
    }
    if (idx)
        return -1;
    suffix[width] = '\0';
    name->len = 0;
    if (sh_buf_adds(name, prefix) < 0 || sh_buf_adds(name, suffix) < 0 ||
        sh_buf_adds(name, extra) < 0 || !sh_buf_cstr(name))
        return -2;
    return 0;
}

/* split: -l lines, -b bytes, -n chunks; -d/-x (decimal/hex suffixes), -a,
 * --additional-suffix; files are PREFIXaa, PREFIXab, ... */
static int split_main(sh_proc *p, int argc, char **argv)
{
    enum { OPT_SUFFIX = 256 };
    static const sh_longopt longs[] = {
        { "lines", 1, 'l' },      { "bytes", 1, 'b' },        { "number", 1, 'n' },
        { "suffix-length", 1, 'a' }, { "numeric-suffixes", 2, 'd' }, { "hex-suffixes", 2, 'x' },
        { "additional-suffix", 1, OPT_SUFFIX }, { NULL, 0, 0 },
    };
    uintmax_t amount = 1000;
    int mode = 'l', c;
    const char *alphabet = "abcdefghijklmnopqrstuvwxyz";
    size_t width = 2;
    const char *extra = "";
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "l:b:n:a:dx", longs)) != -1) {
        switch (c) {
        case 'l':
        case 'b':
        case 'n':
            mode = c;
            if (parse_size(o.arg, &amount) < 0 || amount == 0) {
                sh_err(p, "invalid number of %s: '%s'",
                       c == 'l' ? "lines" : c == 'b' ? "bytes" : "chunks", o.arg);
                return 1;
            }
            break;
        case 'a': {
            uintmax_t v;
            if (parse_size(o.arg, &v) < 0 || v == 0 || v > 32) {
                sh_err(p, "invalid suffix length: '%s'", o.arg);
                return 1;
            }
            width = (size_t)v;
            break;
        }
        case 'd':
            alphabet = "0123456789";
            break;
        case 'x':
            alphabet = "0123456789abcdef";
            break;
        case OPT_SUFFIX:
            if (strchr(o.arg, '/')) {
                sh_err(p, "invalid suffix '%s', contains directory separator", o.arg);
                return 1;
            }
            extra = o.arg;
            break;
        default:
            return 1;
        }
    }
    if (argc - o.ind > 2) {
        sh_err(p, "extra operand '%s'", argv[o.ind + 2]);
        return 1;
    }
    const char *input = o.ind < argc ? argv[o.ind] : "-";
    const char *prefix = o.ind + 1 < argc ? argv[o.ind + 1] : "x";
    char *data;
    size_t len;
    if (load_input(p, input, &data, &len) < 0)
        return 1;
    sh_buf name = { 0 };
    int status = 0;
    size_t off = 0;
    uintmax_t chunks = mode == 'n' ? amount : 0;
    for (uintmax_t idx = 0; (mode == 'n' ? idx < chunks : off < len); idx++) {
        size_t end;
        if (mode == 'l') {
            end = off;
            for (uintmax_t k = 0; k < amount && end < len; k++) {
                const char *nl = memchr(data + end, '\n', len - end);
                end = nl ? (size_t)(nl - data) + 1 : len;
            }
        } else if (mode == 'b') {
            end = len - off < amount ? len : off + (size_t)amount;
        } else {
            /* -n: equal chunks, the last one taking the remainder. */
            size_t size = (size_t)(len / chunks);
            end = idx + 1 == chunks ? len : off + size;
        }
        int e = split_name(&name, prefix, idx, width, alphabet, extra);
        if (e < 0) {
            if (e == -1)
                sh_err(p, "output file suffixes exhausted");
            else
                oom(p);
            status = 1;
            break;
        }
        if (sh_save(p, name.data, data + off, end - off, 0) < 0) {
            status = 1;
            break;
        }
        off = end;
    }
    sh_buf_free(&name);
    free(data);
    return status;
}

/* ---------------------------------------------------------------- od */

/* One od output type: a conversion letter and its size in bytes. */
typedef struct od_type {
    char kind; /* o x d u c a */
    int size;
    int width; /* digits of the widest value */
    int pad;   /* spaces to spread over a block's fields (GNU's pad_width) */
} od_type;

/* Parses a -t spec such as "x1", "d", "uS", "c" into types. 0, or -1 after
 * the message. */
static int od_parse_type(sh_proc *p, const char *spec, od_type *types, int *n)
{
    for (const char *s = spec; *s;) {
        if (*n >= 16) {
            sh_err(p, "too many output types");
            return -1;
        }
        od_type t = { *s, 1, 3, 0 };
        s++;
        if (t.kind == 'd' || t.kind == 'o' || t.kind == 'u' || t.kind == 'x') {
            t.size = 4;
            if (*s && strchr("CSIL", *s)) {
                t.size = *s == 'C' ? 1 : *s == 'S' ? 2 : *s == 'I' ? 4 : 8;
                s++;
            } else if (isdigit((unsigned char)*s)) {
                char *end;
                long v = strtol(s, &end, 10);
                if (v != 1 && v != 2 && v != 4 && v != 8) {
                    sh_err(p, "invalid type string '%s';\nthis system doesn't provide a %ld-byte integral type", spec, v);
                    return -1;
                }
                t.size = (int)v;
                s = end;
            }
            static const int widths[4][4] = {
                /* sizes 1 2 4 8 */
                { 3, 6, 11, 22 }, /* o */
                { 2, 4, 8, 16 },  /* x */
                { 4, 6, 11, 20 }, /* d */
                { 3, 5, 10, 20 }, /* u */
            };
            int row = t.kind == 'o' ? 0 : t.kind == 'x' ? 1 : t.kind == 'd' ? 2 : 3;
            int col = t.size == 1 ? 0 : t.size == 2 ? 1 : t.size == 4 ? 2 : 3;
            t.width = widths[row][col];
        } else if (t.kind != 'c' && t.kind != 'a') {
            sh_err(p, "invalid character '%c' in type string '%s'", t.kind, spec);
            return -1;
        }
        types[(*n)++] = t;
    }
    return 0;
}

/* Appends one field of type t for the value at b (little-endian, zero
 * filled past the data), right-aligned in w columns. */
static void od_field(obuf *o, const od_type *t, const unsigned char *b, int w)
{
    static const char *const names[] = {
        "nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht",  "nl",
        "vt",  "ff",  "cr",  "so",  "si",  "dle", "dc1", "dc2", "dc3", "dc4", "nak",
        "syn", "etb", "can", "em",  "sub", "esc", "fs",  "gs",  "rs",  "us",
    };
    char text[32];
    if (t->kind == 'c' || t->kind == 'a') {
        unsigned c = b[0];
        if (t->kind == 'a') {
            c &= 0x7f;
            if (c < 32)
                snprintf(text, sizeof(text), "%s", names[c]);
            else if (c == ' ' || c == 127)
                snprintf(text, sizeof(text), "%s", c == ' ' ? "sp" : "del");
            else
                snprintf(text, sizeof(text), "%c", (char)c);
        } else if (c && strchr("\a\b\f\n\r\t\v", (int)c)) {
            static const char esc[] = "\a\b\f\n\r\t\v", let[] = "abfnrtv";
            snprintf(text, sizeof(text), "\\%c", let[strchr(esc, (int)c) - esc]);
        } else if (c == 0) {
            snprintf(text, sizeof(text), "\\0");
        } else if (isprint((int)c)) {
            snprintf(text, sizeof(text), "%c", (char)c);
        } else {
            snprintf(text, sizeof(text), "%03o", c);
        }
    } else {
        uint64_t v = 0;
        for (int i = t->size - 1; i >= 0; i--)
            v = (v << 8) | b[i];
        int64_t sv = (int64_t)v;
        if (t->size < 8 && (v >> (8 * t->size - 1)) & 1)
            sv = (int64_t)(v | (~(uint64_t)0 << (8 * t->size)));
        switch (t->kind) {
        case 'o':
            snprintf(text, sizeof(text), "%0*" PRIo64, t->width, v);
            break;
        case 'x':
            snprintf(text, sizeof(text), "%0*" PRIx64, t->width, v);
            break;
        case 'd':
            snprintf(text, sizeof(text), "%" PRId64, sv);
            break;
        default:
            snprintf(text, sizeof(text), "%" PRIu64, v);
            break;
        }
    }
    if (!o->failed && sh_buf_addf(&o->b, "%*s", w, text) < 0)
        o->failed = 1;
}

/* od: dumps bytes as -t types (o2 by default), with -A address radix, -j
 * skip, -N limit, -w line width, -v; the classic -b -c -d -o -x -s -i -l
 * -a -h options. */
static int od_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "address-radix", 1, 'A' }, { "skip-bytes", 1, 'j' }, { "read-bytes", 1, 'N' },
        { "format", 1, 't' },        { "output-duplicates", 0, 'v' }, { "width", 2, 'w' },
        { NULL, 0, 0 },
    };
    od_type types[16];
    int n_types = 0, c, verbose = 0;
    char radix = 'o';
    uintmax_t skip = 0, limit = UINTMAX_MAX, width = 16;
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "A:j:N:t:vw::bcdoxsilah", longs)) != -1) {
        const char *legacy = NULL;
        switch (c) {
        case 'A':
            if (strlen(o.arg) != 1 || !strchr("oxdn", o.arg[0])) {
                sh_err(p, "invalid output address radix '%s'; it must be one character from [doxn]", o.arg);
                return 1;
            }
            radix = o.arg[0];
            break;
        case 'j':
        case 'N':
            if (parse_size(o.arg, c == 'j' ? &skip : &limit) < 0) {
                sh_err(p, "invalid %s argument '%s'", c == 'j' ? "-j" : "-N", o.arg);
                return 1;
            }
            break;
        case 't':
            if (od_parse_type(p, o.arg, types, &n_types) < 0)
                return 1;
            break;
        case 'v':
            verbose = 1;
            break;
        case 'w':
            width = 32;
            if (o.arg && (parse_size(o.arg, &width) < 0 || width == 0 || width > 4096)) {
                sh_err(p, "invalid -w argument '%s'", o.arg);
                return 1;
            }
            break;
        case 'b':
            legacy = "o1";
            break;
        case 'c':
            legacy = "c";
            break;
        case 'd':
            legacy = "u2";
            break;
        case 'o':
            legacy = "o2";
            break;
        case 'x':
        case 'h':
            legacy = "x2";
            break;
        case 's':
            legacy = "d2";
            break;
        case 'i':
            legacy = "d4";
            break;
        case 'l':
            legacy = "d8";
            break;
        case 'a':
            legacy = "a";
            break;
        default:
            return 1;
        }
        if (legacy && od_parse_type(p, legacy, types, &n_types) < 0)
            return 1;
    }
    if (n_types == 0)
        od_parse_type(p, "o2", types, &n_types);
    /* Every type must divide the line width. */
    for (int i = 0; i < n_types; i++)
        if (width % (uintmax_t)types[i].size) {
            sh_err(p, "invalid -w argument '%ju'", width);
            return 1;
        }
    int block_width = 0;
    for (int i = 0; i < n_types; i++) {
        int w = (types[i].width + 1) * (int)(width / (uintmax_t)types[i].size);
        if (w > block_width)
            block_width = w;
    }
    for (int i = 0; i < n_types; i++)
        types[i].pad = block_width - types[i].width * (int)(width / (uintmax_t)types[i].size);
    /* The input: all operands concatenated. */
    file_args f = operands(argc, argv, o.ind);
    sh_buf all = { 0 };
    int status = 0;
    for (int i = 0; i < f.count; i++) {
        char *data;
        size_t len;
        if (load_input(p, f.names[i], &data, &len) < 0) {
            status = 1;
            continue;
        }
        int e = sh_buf_add(&all, data, len);
        free(data);
        if (e < 0) {
            sh_buf_free(&all);
            return oom(p);
        }
    }
    if (status && all.len == 0) {
        sh_buf_free(&all);
        return status;
    }
    if (skip > all.len) {
        sh_err(p, "cannot skip past end of combined input");
        sh_buf_free(&all);
        return 1;
    }
    const unsigned char *data = (const unsigned char *)all.data + skip;
    size_t len = all.len - (size_t)skip;
    if (limit < len)
        len = (size_t)limit;
    const char *addr_fmt = radix == 'o' ? "%07jo" : radix == 'x' ? "%06jx" : "%07ju";
    int addr_width = radix == 'n' ? 0 : radix == 'x' ? 6 : 7;
    obuf out = { 0 };
    unsigned char block[4096 + 8];
    int starred = 0;
    for (size_t off = 0; off < len && !out.failed; off += (size_t)width) {
        size_t n = len - off < width ? len - off : (size_t)width;
        if (!verbose && off > 0 && n == width && memcmp(data + off, data + off - width, n) == 0) {
            if (!starred)
                ob_s(&out, "*\n");
            starred = 1;
            continue;
        }
        starred = 0;
        memset(block, 0, sizeof(block));
        memcpy(block, data + off, n);
        for (int i = 0; i < n_types; i++) {
            const od_type *t = &types[i];
            if (i == 0 && radix != 'n') {
                if (!out.failed && sh_buf_addf(&out.b, addr_fmt, (uintmax_t)(skip + off)) < 0)
                    out.failed = 1;
            } else {
                for (int k = 0; k < addr_width; k++)
                    ob_c(&out, ' ');
            }
            int fields = (int)(width / (uintmax_t)t->size);
            int present = (int)((n + (size_t)t->size - 1) / (size_t)t->size);
            int pad_remaining = t->pad;
            for (int k = fields; k > fields - present; k--) {
                int next_pad = t->pad * (k - 1) / fields;
                od_field(&out, t, block + (size_t)(fields - k) * (size_t)t->size,
                         pad_remaining - next_pad + t->width);
                pad_remaining = next_pad;
            }
            ob_c(&out, '\n');
        }
    }
    if (radix != 'n' && !out.failed && sh_buf_addf(&out.b, addr_fmt, (uintmax_t)(skip + len)) < 0)
        out.failed = 1;
    if (radix != 'n')
        ob_c(&out, '\n');
    sh_buf_free(&all);
    int r = ob_flush(p, &out);
    return r ? r : status;
}

/* ---------------------------------------------------------------- xxd */

/* Reverses a dump: plain hex (-p), or xxd's own lines (offset, hex, text). */
static int xxd_reverse(sh_proc *p, const char *data, size_t len, int plain)
{
    obuf out = { 0 };
    const char *pos = data, *end = data + len;
    text_line l;
    while (next_line(&pos, end, '\n', &l) && !out.failed) {
        const char *s = l.s, *e = l.s + l.len;
        if (!plain) {
            const char *colon = memchr(s, ':', l.len);
            if (!colon)
                continue;
            s = colon + 1;
        }
        int half = -1;
        for (; s < e; s++) {
            if (isxdigit((unsigned char)*s)) {
                unsigned v = hex_value(*s);
                if (half < 0) {
                    half = (int)v;
                } else {
                    ob_c(&out, (char)(half * 16 + (int)v));
                    half = -1;
                }
            } else if (!plain && s + 1 < e && s[0] == ' ' && s[1] == ' ') {
                break; /* the text column */
            } else if (!plain && *s != ' ') {
                break;
            }
        }
    }
    return ob_flush(p, &out);
}

/* Appends a C identifier made from a file name, as xxd -i names arrays. */
static void xxd_c_name(obuf *o, const char *name)
{
    if (isdigit((unsigned char)*name))
        ob_s(o, "__");
    for (const char *s = name; *s; s++)
        ob_c(o, isalnum((unsigned char)*s) ? *s : '_');
}

/* xxd: hex dump (-c cols, -g group, -l len, -s seek, -u), plain -p, C
 * include -i, and -r / -r -p to turn a dump back into bytes. */
static int xxd_main(sh_proc *p, int argc, char **argv)
{
    int plain = 0, reverse = 0, upper = 0, include = 0, c;
    long cols = -1, group = -1;
    intmax_t seek = 0;
    uintmax_t limit = UINTMAX_MAX;
    sh_opt o = { .ind = 1 };
    while ((c = sh_getopt(p, &o, argc, argv, "pPriuc:g:l:s:", NULL)) != -1) {
        char *end;
        switch (c) {
        case 'p':
        case 'P':
            plain = 1;
            break;
        case 'r':
            reverse = 1;
            break;
        case 'i':
            include = 1;
            break;
        case 'u':
            upper = 1;
            break;
        case 'c':
        case 'g':
            *(c == 'c' ? &cols : &group) = strtol(o.arg, &end, 0);
            if (end == o.arg || *end || (c == 'c' ? cols : group) < 0 || (c == 'c' ? cols : group) > 256) {
                sh_err(p, "invalid number: %s", o.arg);
                return 1;
            }
            break;
        case 'l': {
            intmax_t v = strtoimax(o.arg, &end, 0);
            if (end == o.arg || *end || v < 0) {
                sh_err(p, "invalid length: %s", o.arg);
                return 1;
            }
            limit = (uintmax_t)v;
            break;
        }
        case 's':
            seek = strtoimax(o.arg + (o.arg[0] == '+'), &end, 0);
            if (end == o.arg || *end) {
                sh_err(p, "invalid seek: %s", o.arg);
                return 1;
            }
            break;
        default:
            return 1;
        }
    }
    if (argc - o.ind > 2) {
        sh_err(p, "too many arguments");
        return 1;
    }
    const char *input = o.ind < argc ? argv[o.ind] : "-";
    char *data;
    size_t len;
    if (load_input(p, input, &data, &len) < 0)
        return 2;
    int r;
    if (reverse) {
        r = xxd_reverse(p, data, len, plain);
        free(data);
        return r;
    }
    if (strcmp(input, "-") == 0 && seek > 0 && (uintmax_t)seek > len) {
        /* xxd reads a pipe to skip it, and fails when it ends first. */
        sh_err(p, "Sorry, cannot seek.");
        free(data);
        return 4;
    }
    if (cols <= 0)
        cols = plain ? 30 : include ? 12 : 16;
    if (group < 0)
        group = 2;
    if (group == 0 || plain)
        group = cols;
    uintmax_t back = (uintmax_t)0 - (uintmax_t)seek; /* -seek, without overflow */
    size_t start = seek < 0 ? (back > len ? 0 : len - (size_t)back)
                            : ((uintmax_t)seek > len ? len : (size_t)seek);
    size_t n = len - start;
    if (limit < n)
        n = (size_t)limit;
    const unsigned char *b = (const unsigned char *)data + start;
    const char *hex = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    obuf out = { 0 };
    int from_stdin = strcmp(input, "-") == 0;
    if (include) {
        if (!from_stdin) {
            ob_s(&out, "unsigned char ");
            xxd_c_name(&out, input);
            ob_s(&out, "[] = {\n");
        }
        for (size_t i = 0; i < n; i++) {
            ob_s(&out, i % (size_t)cols ? ", " : i ? ",\n  " : "  ");
            char item[8] = { '0', upper ? 'X' : 'x', hex[b[i] >> 4], hex[b[i] & 15], 0 };
            ob_s(&out, item);
        }
        if (n)
            ob_c(&out, '\n');
        if (!from_stdin) {
            ob_s(&out, "};\nunsigned int ");
            xxd_c_name(&out, input);
            if (!out.failed && sh_buf_addf(&out.b, "_len = %zu;\n", n) < 0)
                out.failed = 1;
        }
    } else if (plain) {
        for (size_t i = 0; i < n; i++) {
            ob_c(&out, hex[b[i] >> 4]);
            ob_c(&out, hex[b[i] & 15]);
            if ((i + 1) % (size_t)cols == 0 || i + 1 == n)
                ob_c(&out, '\n');
        }
    } else {
        size_t hex_width = (size_t)cols * 2 + ((size_t)cols + (size_t)group - 1) / (size_t)group;
        for (size_t off = 0; off < n && !out.failed; off += (size_t)cols) {
            size_t m = n - off < (size_t)cols ? n - off : (size_t)cols, used = 0;
            if (sh_buf_addf(&out.b, "%08zx: ", start + off) < 0)
                out.failed = 1;
            for (size_t i = 0; i < m; i++) {
                ob_c(&out, hex[b[off + i] >> 4]);
                ob_c(&out, hex[b[off + i] & 15]);
                used += 2;
                if ((i + 1) % (size_t)group == 0 || i + 1 == (size_t)cols) {
                    ob_c(&out, ' ');
                    used++;
                }
            }
            for (; used < hex_width; used++)
                ob_c(&out, ' ');
            ob_c(&out, ' ');
            for (size_t i = 0; i < m; i++)
                ob_c(&out, isprint(b[off + i]) ? (char)b[off + i] : '.');
            ob_c(&out, '\n');
        }
    }
    free(data);
    return ob_flush(p, &out);
}

/* ---------------------------------------------------------------- yes */

/* yes: repeats its arguments (or "y") until the reader is gone. A reader
 * that never leaves gets SH_PIPE_LIMIT bytes, so that a pipeline whose next
 * command reads all of its input still ends. */
static int yes_main(sh_proc *p, int argc, char **argv)
{
    int i = 1;
    if (i < argc && strcmp(argv[i], "--") == 0)
        i++;
    obuf line = { 0 };
    if (i >= argc)
        ob_s(&line, "y");
    for (int k = i; k < argc; k++) {
        if (k > i)
            ob_c(&line, ' ');
        ob_s(&line, argv[k]);
    }
    ob_c(&line, '\n');
    /* Write in chunks of whole lines, about 8 KiB each. */
    obuf chunk = { 0 };
    size_t unit = line.b.len, copies = unit < 8192 ? 8192 / unit : 1;
    for (size_t k = 0; k < copies && !line.failed; k++)
        ob_add(&chunk, line.b.data, unit);
    int failed = line.failed || chunk.failed;
    sh_buf_free(&line.b);
    if (failed) {
        sh_buf_free(&chunk.b);
        return oom(p);
    }
    line = chunk;
    for (size_t total = 0; total < SH_PIPE_LIMIT; total += line.b.len)
        if (sh_out(p, line.b.data, line.b.len) < 0)
            break;
    sh_buf_free(&line.b);
    return SH_STATUS_PIPE;
}

/* ---------------------------------------------------------------- table */

const sh_applet sh_applets_text[] = {
    { "echo", echo_main, "write arguments to standard output" },
    { "printf", printf_main, "format and print data" },
    { "head", head_main, "output the first part of files" },
    { "tail", tail_main, "output the last part of files" },
    { "wc", wc_main, "print newline, word, and byte counts" },
    { "cut", cut_main, "remove sections from each line of files" },
    { "grep", grep_main, "print lines that match patterns" },
    { "egrep", egrep_main, "grep -E" },
    { "fgrep", fgrep_main, "grep -F" },
    { "sort", sort_main, "sort lines of text files" },
    { "uniq", uniq_main, "report or omit repeated lines" },
    { "tr", tr_main, "translate, squeeze, or delete characters" },
    { "tee", tee_main, "copy standard input to files and standard output" },
    { "seq", seq_main, "print a sequence of numbers" },
    { "nl", nl_main, "number lines of files" },
    { "rev", rev_main, "reverse lines characterwise" },
    { "paste", paste_main, "merge lines of files" },
    { "fold", fold_main, "wrap each input line to fit in specified width" },
    { "expand", expand_main, "convert tabs to spaces" },
    { "join", join_main, "join lines of two files on a common field" },
    { "comm", comm_main, "compare two sorted files line by line" },
    { "split", split_main, "split a file into pieces" },
    { "od", od_main, "dump files in octal and other formats" },
    { "xxd", xxd_main, "make a hex dump or do the reverse" },
    { "yes", yes_main, "output a string repeatedly until killed" },
    { NULL, NULL, NULL },
};
