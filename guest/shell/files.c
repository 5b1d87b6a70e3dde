/* File applets: cat ls find mkdir rm rmdir touch truncate chmod cp mv ln stat
 * du realpath basename dirname tar. Every path goes through the shell's working
 * directory (sh_path); directory listings are sorted so that output is
 * reproducible. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <dirent.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sh.h"

/* ---- Common helpers ---------------------------------------------------- */

/* Prints GNU's hint after a usage error and returns the usage status. */
static int usage_error(sh_proc *p, int status)
{
    sh_err(p, "Try '%s --help' for more information.", p->name);
    return status;
}

/* The usage error of a command given no operand. */
static int missing_operand(sh_proc *p)
{
    sh_err(p, "missing operand");
    return usage_error(p, 1);
}

/* The path resolved against the shell's working directory, or NULL with errno
 * set: ENOMEM, or ENOENT for "" (which names no file, and must never become the
 * working directory itself). Caller frees. */
static char *resolve(sh_proc *p, const char *path)
{
    if (!*path) {
        errno = ENOENT;
        return NULL;
    }
    char *f = sh_path(p, path);
    if (!f)
        errno = ENOMEM;
    return f;
}

/* The guest's filesystem has no permission bits (WASI has none): its stat
 * gives the file type alone. Where all permission bits are 0 there, shows what
 * a user expects (and what ls, stat, find -perm, tar and cp -p then use): 0644
 * for files, 0755 for directories, 0777 for symbolic links. Natively a mode of
 * 0 is real (chmod 000) and is kept. */
static void default_permissions(struct stat *st)
{
#ifdef __wasi__
    if (st->st_mode & 07777)
        return;
    st->st_mode |= S_ISDIR(st->st_mode) ? 0755 : S_ISLNK(st->st_mode) ? 0777 : 0644;
#else
    (void)st;
#endif
}

/* sh_stat with the permissions a user expects (default_permissions). */
static int path_stat(sh_proc *p, const char *path, struct stat *st, int follow)
{
    int r = sh_stat(p, path, st, follow);
    if (r == 0)
        default_permissions(st);
    return r;
}

/* Runs a one-path system call (unlink, rmdir) on a path relative to the shell's
 * directory. */
static int path_call(sh_proc *p, const char *path, int (*fn)(const char *))
{
    char *f = resolve(p, path);
    if (!f)
        return -1;
    int r = fn(f);
    int e = errno;
    free(f);
    errno = e;
    return r;
}

static int path_mkdir(sh_proc *p, const char *path, mode_t mode)
{
    char *f = resolve(p, path);
    if (!f)
        return -1;
    int r = mkdir(f, mode);
    int e = errno;
    free(f);
    errno = e;
    return r;
}

/* Runs a two-path system call (rename, link) with both paths resolved. */
static int path_call2(sh_proc *p, const char *a, const char *b,
                      int (*fn)(const char *, const char *))
{
    char *fa = resolve(p, a), *fb = fa ? resolve(p, b) : NULL;
    int r = -1;
    if (fa && fb)
        r = fn(fa, fb);
    int e = errno;
    free(fa);
    free(fb);
    errno = e;
    return r;
}

/* Creates a symbolic link at linkpath whose text is target (kept as given). */
static int path_symlink(sh_proc *p, const char *target, const char *linkpath)
{
    char *f = resolve(p, linkpath);
    if (!f)
        return -1;
    int r = symlink(target, f);
    int e = errno;
    free(f);
    errno = e;
    return r;
}

/* The text of a symbolic link in a new string, or NULL (errno set). */
static char *path_readlink(sh_proc *p, const char *path)
{
    char *f = resolve(p, path);
    if (!f)
        return NULL;
    size_t cap = 256;
    for (;;) {
        char *buf = malloc(cap);
        if (!buf) {
            free(f);
            errno = ENOMEM;
            return NULL;
        }
        ssize_t n = readlink(f, buf, cap);
        if (n < 0) {
            int e = errno;
            free(buf);
            free(f);
            errno = e;
            return NULL;
        }
        if ((size_t)n < cap) {
            buf[n] = '\0';
            free(f);
            return buf;
        }
        free(buf);
        if (cap > 65536) {
            free(f);
            errno = ENAMETOOLONG;
            return NULL;
        }
        cap *= 2;
    }
}

/* Opens a path relative to the shell's directory. */
static int path_open(sh_proc *p, const char *path, int flags, mode_t mode)
{
    char *f = resolve(p, path);
    if (!f)
        return -1;
    int fd = open(f, flags, mode);
    int e = errno;
    free(f);
    errno = e;
    return fd;
}

/* Sets a path's access and modification times; symbolic links themselves
 * when nofollow. */
static int path_utimes(sh_proc *p, const char *path, const struct timespec ts[2], int nofollow)
{
    char *f = resolve(p, path);
    if (!f)
        return -1;
    int r = utimensat(AT_FDCWD, f, ts, nofollow ? AT_SYMLINK_NOFOLLOW : 0);
    int e = errno;
    free(f);
    errno = e;
    return r;
}

/* Sets permission bits where the platform has them: WASI has no chmod, so in
 * the guest modes are whatever the host filesystem gives. */
static int path_chmod(sh_proc *p, const char *path, mode_t mode)
{
#ifdef __wasi__
    (void)p;
    (void)path;
    (void)mode;
    return 0;
#else
    char *f = resolve(p, path);
    if (!f)
        return -1;
    int r = chmod(f, mode);
    int e = errno;
    free(f);
    errno = e;
    return r;
#endif
}

/* "dir/name" in a new string (no doubled slash), or NULL when out of memory. */
static char *path_join(const char *dir, const char *name)
{
    size_t ld = strlen(dir), ln = strlen(name);
    char *r = malloc(ld + ln + 2);
    if (!r)
        return NULL;
    memcpy(r, dir, ld);
    if (ld > 0 && dir[ld - 1] != '/')
        r[ld++] = '/';
    memcpy(r + ld, name, ln + 1);
    return r;
}

/* The last component of a path as basename(1) prints it, in a new string. */
static char *base_name(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t s = n;
    while (s > 0 && path[s - 1] != '/')
        s--;
    if (n == 1 && path[0] == '/')
        s = 0;
    char *r = malloc(n - s + 1);
    if (!r)
        return NULL;
    memcpy(r, path + s, n - s);
    r[n - s] = '\0';
    return r;
}

/* The directory part of a path as dirname(1) prints it, in a new string. */
static char *dir_name(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    while (n > 0 && path[n - 1] != '/')
        n--;
    while (n > 1 && path[n - 1] == '/')
        n--;
    if (n == 0)
        return strdup(".");
    char *r = malloc(n + 1);
    if (!r)
        return NULL;
    memcpy(r, path, n);
    r[n] = '\0';
    return r;
}

/* The names in a directory, sorted bytewise (as GNU in the C locale), without
 * "." and "..". */
typedef struct name_list {
    char **v;
    size_t n;
} name_list;

static void name_list_free(name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads a directory into a sorted name_list: 0, or -1 with errno set. */
static int read_dir(sh_proc *p, const char *path, name_list *out)
{
    out->v = NULL;
    out->n = 0;
    char *f = resolve(p, path);
    if (!f)
        return -1;
    DIR *d = opendir(f);
    int e = errno;
    free(f);
    if (!d) {
        errno = e;
        return -1;
    }
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (out->n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            char **nv = realloc(out->v, nc * sizeof(char *));
            if (!nv)
                goto nomem;
            out->v = nv;
            cap = nc;
        }
        if (!(out->v[out->n] = strdup(de->d_name)))
            goto nomem;
        out->n++;
    }
    closedir(d);
    if (out->n > 1)
        qsort(out->v, out->n, sizeof(char *), cmp_str);
    return 0;
nomem:
    closedir(d);
    name_list_free(out);
    errno = ENOMEM;
    return -1;
}

/* The directories above the one being walked, innermost first: walks that
 * follow symbolic links use them to stop at loops. */
typedef struct ancestor {
    dev_t dev;
    ino_t ino;
    const struct ancestor *up;
} ancestor;

static int in_ancestors(const ancestor *a, const struct stat *st)
{
    for (; a; a = a->up)
        if (a->dev == st->st_dev && a->ino == st->st_ino)
            return 1;
    return 0;
}

/* The file type as stat's %F names it. */
static const char *file_type_name(const struct stat *st)
{
    mode_t m = st->st_mode;
    if (S_ISREG(m))
        return st->st_size == 0 ? "regular empty file" : "regular file";
    if (S_ISDIR(m))
        return "directory";
    if (S_ISLNK(m))
        return "symbolic link";
    if (S_ISFIFO(m))
        return "fifo";
    if (S_ISSOCK(m))
        return "socket";
    if (S_ISCHR(m))
        return "character special file";
    if (S_ISBLK(m))
        return "block special file";
    return "weird file";
}

/* The ten-character mode string of ls -l ("drwxr-xr-x"). */
static void mode_string(mode_t m, char s[11])
{
    s[0] = S_ISDIR(m) ? 'd' : S_ISLNK(m) ? 'l' : S_ISCHR(m) ? 'c' : S_ISBLK(m) ? 'b'
         : S_ISFIFO(m) ? 'p' : S_ISSOCK(m) ? 's' : '-';
    const char *rwx = "rwxrwxrwx";
    for (int i = 0; i < 9; i++)
        s[1 + i] = (m & (0400 >> i)) ? rwx[i] : '-';
    if (m & S_ISUID)
        s[3] = (m & 0100) ? 's' : 'S';
    if (m & S_ISGID)
        s[6] = (m & 0010) ? 's' : 'S';
    if (m & S_ISVTX)
        s[9] = (m & 0001) ? 't' : 'T';
    s[10] = '\0';
}

/* The guest has no user database: uid 0 (what every file in the guest has) is
 * shown as "root", as in a container, and other ids as numbers, as GNU does for
 * ids without a name. */
static void owner_name(unsigned long id, char *buf, size_t n)
{
    if (id == 0)
        snprintf(buf, n, "root");
    else
        snprintf(buf, n, "%lu", id);
}

/* A size as GNU's -h shows it: "512", "1.5K", "12M" (rounded up). Integer
 * arithmetic only: the guest's printf has no long double. */
static void human_size(unsigned long long v, char *buf, size_t n)
{
    static const char units[] = "KMGTPE";
    if (v < 1024) {
        snprintf(buf, n, "%llu", v);
        return;
    }
    unsigned long long div = 1;
    int u = -1;
    while (v / div >= 1024 && u < 5) {
        div *= 1024;
        u++;
    }
    unsigned long long whole = v / div, rem = v % div;
    if (whole < 10) {
        /* rem * 10 + div - 1 < 11 * div <= 11 * 2^60: no overflow. */
        unsigned long long tenths = whole * 10 + (rem * 10 + div - 1) / div;
        if (tenths < 100) {
            snprintf(buf, n, "%llu.%llu%c", tenths / 10, tenths % 10, units[u]);
            return;
        }
    }
    unsigned long long r = whole + (rem != 0);
    if (r >= 1024 && u < 5)
        snprintf(buf, n, "1.0%c", units[u + 1]);
    else
        snprintf(buf, n, "%llu%c", r, units[u]);
}

/* Parses relative dates: "now", "today", "yesterday", "tomorrow", and
 * "[-]N UNIT[s] [ago]" with units from seconds to weeks. */
static int parse_relative_date(const char *s, struct timespec *ts)
{
    static const struct { const char *name; long long seconds; } units[] = {
        { "sec", 1 }, { "second", 1 }, { "min", 60 }, { "minute", 60 }, { "hour", 3600 },
        { "day", 86400 }, { "week", 604800 }, { "fortnight", 1209600 },
    };
    time_t now = time(NULL);
    ts->tv_sec = now;
    ts->tv_nsec = 0;
    if (strcmp(s, "now") == 0 || strcmp(s, "today") == 0)
        return 0;
    if (strcmp(s, "yesterday") == 0 || strcmp(s, "tomorrow") == 0) {
        ts->tv_sec += s[0] == 'y' ? -86400 : 86400;
        return 0;
    }
    char *end;
    errno = 0;
    long long n = strtoll(s, &end, 10);
    if (end == s || errno || n > 1000000000LL || n < -1000000000LL)
        return -1;
    while (*end == ' ')
        end++;
    size_t len = strcspn(end, " ");
    if (len > 1 && end[len - 1] == 's')
        len--;
    long long unit = 0;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (strlen(units[i].name) == len && strncmp(end, units[i].name, len) == 0)
            unit = units[i].seconds;
    end += strcspn(end, " ");
    while (*end == ' ')
        end++;
    if (!unit || (*end && strcmp(end, "ago") != 0))
        return -1;
    ts->tv_sec += (time_t)(*end ? -n * unit : n * unit);
    return 0;
}

/* Parses the dates people give touch -d: "@SECONDS", "YYYY-MM-DD", with
 * " HH:MM[:SS[.frac]]" or "THH:MM..." and an optional "Z"/" UTC" (all UTC: the
 * guest has no other zone), or a relative date. 0, or -1 when not understood. */
static int parse_date(const char *s, struct timespec *ts)
{
    char *end;
    ts->tv_nsec = 0;
    if (parse_relative_date(s, ts) == 0)
        return 0;
    if (s[0] == '@') {
        errno = 0;
        long long v = strtoll(s + 1, &end, 10);
        if (end == s + 1 || *end || errno)
            return -1;
        ts->tv_sec = (time_t)v;
        return 0;
    }
    int y, mo, d, h = 0, mi = 0, sec = 0, used = 0;
    if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &used) != 3)
        return -1;
    s += used;
    if (*s == ' ' || *s == 'T') {
        int u2 = 0;
        if (sscanf(s + 1, "%2d:%2d%n", &h, &mi, &u2) != 2)
            return -1;
        s += 1 + u2;
        if (*s == ':') {
            u2 = 0;
            if (sscanf(s + 1, "%2d%n", &sec, &u2) != 1)
                return -1;
            s += 1 + u2;
            if (*s == '.') {
                long ns = 0;
                int digits = 0;
                for (s++; *s >= '0' && *s <= '9'; s++, digits++)
                    if (digits < 9)
                        ns = ns * 10 + (*s - '0');
                for (; digits < 9; digits++)
                    ns *= 10;
                ts->tv_nsec = ns;
            }
        }
    }
    while (*s == ' ')
        s++;
    if (strcmp(s, "Z") == 0 || strcmp(s, "UTC") == 0 || strcmp(s, "+0000") == 0)
        s += strlen(s);
    if (*s || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
        return -1;
    ts->tv_sec = (time_t)(sh_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec);
    return 0;
}

/* Writes a buffer to a stream, flushing it when large; -1 when the reader is
 * gone. */
static int flush_buf(sh_proc *p, sh_buf *b, size_t threshold)
{
    if (b->len < threshold)
        return 0;
    int r = sh_out(p, b->data, b->len);
    b->len = 0;
    return r;
}

/* Asks a question for -i: the prompt goes to standard error and the answer is
 * the next line of standard input (*pos walks through it). Yes when the answer
 * starts with y or Y; no at the end of the input. */
static int ask(sh_proc *p, size_t *pos, const char *fmt, const char *a, const char *b)
{
    sh_buf q = { 0 };
    sh_buf_addf(&q, "%s: ", p->name);
    sh_buf_addf(&q, fmt, a, b);
    sh_write(p->err, q.data, q.len);
    sh_buf_free(&q);
    if (*pos >= p->in_len)
        return 0;
    int yes = p->in[*pos] == 'y' || p->in[*pos] == 'Y';
    const char *nl = memchr(p->in + *pos, '\n', p->in_len - *pos);
    *pos = nl ? (size_t)(nl - p->in) + 1 : p->in_len;
    return yes;
}

/* ---- cat --------------------------------------------------------------- */

typedef struct cat_opts {
    int number, nonblank, squeeze, ends, tabs, nonprint;
    /* State that carries over from one file to the next, as GNU's. */
    long long line;
    int at_start, blank_run;
} cat_opts;

/* Appends one input byte as cat -v shows it. */
static int cat_visible(sh_buf *b, unsigned char c)
{
    if (c >= 128) {
        if (sh_buf_adds(b, "M-") < 0)
            return -1;
        c -= 128;
    }
    if (c < 32) {
        if (sh_buf_addc(b, '^') < 0)
            return -1;
        return sh_buf_addc(b, (char)(c + 64));
    }
    if (c == 127)
        return sh_buf_adds(b, "^?");
    return sh_buf_addc(b, (char)c);
}

/* Copies one file's bytes to the output with cat's numbering and marking. */
static int cat_data(sh_proc *p, cat_opts *o, const char *d, size_t n)
{
    sh_buf b = { 0 };
    int r = 0;
    for (size_t i = 0; i < n && r == 0; i++) {
        unsigned char c = (unsigned char)d[i];
        if (o->at_start) {
            if (c == '\n') {
                o->blank_run++;
                if (o->squeeze && o->blank_run > 1)
                    continue;
            } else {
                o->blank_run = 0;
            }
            if ((o->number && !o->nonblank) || (o->nonblank && c != '\n'))
                r = sh_buf_addf(&b, "%6lld\t", ++o->line);
            o->at_start = 0;
        }
        if (c == '\n') {
            if (o->ends)
                r |= sh_buf_addc(&b, '$');
            r |= sh_buf_addc(&b, '\n');
            o->at_start = 1;
        } else if (c == '\t') {
            r |= o->tabs ? sh_buf_adds(&b, "^I") : sh_buf_addc(&b, '\t');
        } else if (o->nonprint) {
            r |= cat_visible(&b, c);
        } else {
            r |= sh_buf_addc(&b, (char)c);
        }
        if (r == 0 && flush_buf(p, &b, 65536) < 0) {
            sh_buf_free(&b);
            return SH_STATUS_PIPE;
        }
    }
    if (r != 0) {
        sh_buf_free(&b);
        return sh_oom(p);
    }
    r = sh_out(p, b.data, b.len) < 0 ? SH_STATUS_PIPE : 0;
    sh_buf_free(&b);
    return r;
}

static int cat_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "number", 0, 'n' }, { "number-nonblank", 0, 'b' }, { "squeeze-blank", 0, 's' },
        { "show-ends", 0, 'E' }, { "show-tabs", 0, 'T' }, { "show-nonprinting", 0, 'v' },
        { "show-all", 0, 'A' }, { NULL, 0, 0 },
    };
    cat_opts o = { .at_start = 1 };
    sh_opt g = { 1, 0, NULL };
    int c;
    while ((c = sh_getopt(p, &g, argc, argv, "nbsETvAetu", longs)) != -1) {
        switch (c) {
        case 'n': o.number = 1; break;
        case 'b': o.nonblank = 1; break;
        case 's': o.squeeze = 1; break;
        case 'E': o.ends = 1; break;
        case 'T': o.tabs = 1; break;
        case 'v': o.nonprint = 1; break;
        case 'A': o.nonprint = o.ends = o.tabs = 1; break;
        case 'e': o.nonprint = o.ends = 1; break;
        case 't': o.nonprint = o.tabs = 1; break;
        case 'u': break;
        default: return usage_error(p, 1);
        }
    }
    int plain = !o.number && !o.nonblank && !o.squeeze && !o.ends && !o.tabs && !o.nonprint;
    int status = 0;
    char *stdin_arg[] = { "-", NULL };
    char **files = g.ind < argc ? argv + g.ind : stdin_arg;
    int nfiles = g.ind < argc ? argc - g.ind : 1;
    for (int i = 0; i < nfiles; i++) {
        char *data;
        size_t len;
        if (strcmp(files[i], "-") == 0) {
            data = (char *)p->in;
            len = p->in_len;
        } else if (!*files[i]) {
            sh_err(p, ": %s", strerror(ENOENT));
            status = 1;
            continue;
        } else if (sh_load(p, files[i], &data, &len) < 0) {
            status = 1;
            continue;
        }
        int r = plain ? (sh_out(p, data, len) < 0 ? SH_STATUS_PIPE : 0)
                      : cat_data(p, &o, data, len);
        if (data != p->in)
            free(data);
        if (r == SH_STATUS_PIPE)
            return r;
        if (r)
            status = r;
    }
    return status;
}

/* ---- basename, dirname ------------------------------------------------- */

static int basename_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "multiple", 0, 'a' }, { "suffix", 1, 's' }, { "zero", 0, 'z' }, { NULL, 0, 0 },
    };
    sh_opt g = { 1, 0, NULL };
    int c, multiple = 0;
    char end = '\n';
    const char *suffix = NULL;
    while ((c = sh_getopt(p, &g, argc, argv, "as:z", longs)) != -1) {
        switch (c) {
        case 'a': multiple = 1; break;
        case 's': suffix = g.arg; multiple = 1; break;
        case 'z': end = '\0'; break;
        default: return usage_error(p, 1);
        }
    }
    int n = argc - g.ind;
    if (n < 1) {
        return missing_operand(p);
    }
    if (!multiple) {
        if (n > 2) {
            sh_err(p, "extra operand '%s'", argv[g.ind + 2]);
            return usage_error(p, 1);
        }
        if (n == 2)
            suffix = argv[g.ind + 1];
        n = 1;
    }
    for (int i = 0; i < n; i++) {
        char *b = base_name(argv[g.ind + i]);
        if (!b)
            return sh_oom(p);
        size_t lb = strlen(b), ls = suffix ? strlen(suffix) : 0;
        if (ls > 0 && lb > ls && strcmp(b + lb - ls, suffix) == 0)
            b[lb - ls] = '\0';
        int r = sh_outs(p, b) | sh_outc(p, end);
        free(b);
        if (r < 0)
            return SH_STATUS_PIPE;
    }
    return 0;
}

static int dirname_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = { { "zero", 0, 'z' }, { NULL, 0, 0 } };
    sh_opt g = { 1, 0, NULL };
    int c;
    char end = '\n';
    while ((c = sh_getopt(p, &g, argc, argv, "z", longs)) != -1) {
        if (c != 'z')
            return usage_error(p, 1);
        end = '\0';
    }
    if (g.ind >= argc) {
        return missing_operand(p);
    }
    for (int i = g.ind; i < argc; i++) {
        char *d = dir_name(argv[i]);
        if (!d)
            return sh_oom(p);
        int r = sh_outs(p, d) | sh_outc(p, end);
        free(d);
        if (r < 0)
            return SH_STATUS_PIPE;
    }
    return 0;
}

/* ---- mkdir, rmdir ------------------------------------------------------ */

/* Parses an octal mode ("755", "0644", "4755"): digits only, at most 07777. */
static int parse_octal_mode(const char *s, mode_t *mode)
{
    unsigned long v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '7' || (v = v * 8 + (unsigned long)(*s - '0')) > 07777)
            return -1;
    }
    *mode = (mode_t)v;
    return 0;
}

/* The file creation mask, which a symbolic mode without u, g, o or a leaves
 * alone. WASI has none: 022, the usual one. */
static mode_t creation_mask(void)
{
#ifdef __wasi__
    return 022;
#else
    mode_t m = umask(0);
    umask(m);
    return m;
#endif
}

/* The permission bits a symbolic mode's operator acts on at *s: r w x X s t,
 * or u g o to copy that class's current bits; advances *s past them. */
static mode_t mode_perms(const char **s, mode_t cur, int dir)
{
    mode_t perm = 0;
    if (**s == 'u' || **s == 'g' || **s == 'o') {
        int shift = **s == 'u' ? 6 : **s == 'g' ? 3 : 0;
        (*s)++;
        return ((cur >> shift) & 7) * 0111;
    }
    for (;; (*s)++) {
        switch (**s) {
        case 'r': perm |= 0444; break;
        case 'w': perm |= 0222; break;
        case 'x': perm |= 0111; break;
        case 'X': perm |= (dir || (cur & 0111)) ? 0111 : 0; break;
        case 's': perm |= S_ISUID | S_ISGID; break;
        case 't': perm |= S_ISVTX; break;
        default: return perm;
        }
    }
}

/* Applies a mode as chmod and mkdir -m take it, octal ("755") or symbolic
 * ("u+x,go-w", "a=r", "g=u", "+X": comma-separated clauses of who letters and
 * one or more operators), to the permission bits cur of a file (a directory
 * when dir). 0 with the new bits in *out, or -1 when the mode is invalid. */
static int apply_mode(const char *spec, mode_t cur, int dir, mode_t *out)
{
    if (*spec >= '0' && *spec <= '7')
        return parse_octal_mode(spec, out);
    mode_t mask = creation_mask();
    const char *s = spec;
    cur &= 07777;
    for (;;) {
        mode_t who = 0;
        for (;; s++) {
            if (*s == 'u')
                who |= S_ISUID | 0700;
            else if (*s == 'g')
                who |= S_ISGID | 0070;
            else if (*s == 'o')
                who |= S_ISVTX | 0007;
            else if (*s == 'a')
                who |= 07777;
            else
                break;
        }
        if (*s != '+' && *s != '-' && *s != '=')
            return -1;
        while (*s == '+' || *s == '-' || *s == '=') {
            char op = *s++;
            mode_t perm = mode_perms(&s, cur, dir) & (who ? who : 07777 & ~mask);
            if (op == '=')
                cur &= ~(who ? who : (mode_t)07777);
            if (op == '-')
                cur &= ~perm;
            else
                cur |= perm;
        }
        if (*s == '\0')
            break;
        if (*s++ != ',' || *s == '\0')
            return -1;
    }
    *out = cur;
    return 0;
}

/* Creates a directory and, with parents, the missing ones above it; verbose
 * prints each one made. 0, or -1 after the error. */
static int make_dir(sh_proc *p, const char *path, int parents, int verbose, mode_t mode,
                    int set_mode)
{
    if (parents) {
        char *tmp = strdup(path);
        if (!tmp) {
            sh_oom(p);
            return -1;
        }
        for (char *s = tmp; *s && s[1]; s++) {
            if (s == tmp || *s != '/' || s[-1] == '/')
                continue;
            *s = '\0';
            struct stat st;
            if (path_stat(p, tmp, &st, 1) < 0) {
                if (path_mkdir(p, tmp, 0777) < 0 && errno != EEXIST) {
                    sh_err(p, "cannot create directory '%s': %s", tmp, strerror(errno));
                    free(tmp);
                    return -1;
                }
                if (verbose && sh_printf(p, "%s: created directory '%s'\n", p->name, tmp) < 0) {
                    free(tmp);
                    return -1;
                }
            }
            *s = '/';
        }
        free(tmp);
    }
    if (path_mkdir(p, path, set_mode ? mode : 0777) < 0) {
        struct stat st;
        if (parents && errno == EEXIST && path_stat(p, path, &st, 1) == 0 && S_ISDIR(st.st_mode))
            return 0;
        sh_err(p, "cannot create directory '%s': %s", path, strerror(errno));
        return -1;
    }
    if (set_mode)
        path_chmod(p, path, mode);
    if (verbose && sh_printf(p, "%s: created directory '%s'\n", p->name, path) < 0)
        return -1;
    return 0;
}

static int mkdir_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "parents", 0, 'p' }, { "verbose", 0, 'v' }, { "mode", 1, 'm' }, { NULL, 0, 0 },
    };
    sh_opt g = { 1, 0, NULL };
    int c, parents = 0, verbose = 0, set_mode = 0;
    mode_t mode = 0777;
    while ((c = sh_getopt(p, &g, argc, argv, "pvm:", longs)) != -1) {
        switch (c) {
        case 'p': parents = 1; break;
        case 'v': verbose = 1; break;
        case 'm':
            if (apply_mode(g.arg, 0777, 1, &mode) < 0) {
                sh_err(p, "invalid mode '%s'", g.arg);
                return 1;
            }
            set_mode = 1;
            break;
        default: return usage_error(p, 1);
        }
    }
    if (g.ind >= argc) {
        return missing_operand(p);
    }
    int status = 0;
    for (int i = g.ind; i < argc; i++) {
        if (make_dir(p, argv[i], parents, verbose, mode, set_mode) < 0)
            status = 1;
        if (p->out->broken)
            return SH_STATUS_PIPE;
    }
    return status;
}

static int rmdir_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "parents", 0, 'p' }, { "verbose", 0, 'v' },
        { "ignore-fail-on-non-empty", 0, 'I' }, { NULL, 0, 0 },
    };
    sh_opt g = { 1, 0, NULL };
    int c, parents = 0, verbose = 0, ignore = 0;
    while ((c = sh_getopt(p, &g, argc, argv, "pv", longs)) != -1) {
        switch (c) {
        case 'p': parents = 1; break;
        case 'v': verbose = 1; break;
        case 'I': ignore = 1; break;
        default: return usage_error(p, 1);
        }
    }
    if (g.ind >= argc) {
        return missing_operand(p);
    }
    int status = 0;
    for (int i = g.ind; i < argc; i++) {
        char *path = strdup(argv[i]);
        if (!path)
            return sh_oom(p);
        for (;;) {
            if (verbose && sh_printf(p, "%s: removing directory, '%s'\n", p->name, path) < 0) {
                free(path);
                return SH_STATUS_PIPE;
            }
            if (path_call(p, path, rmdir) < 0) {
                if (!(ignore && (errno == ENOTEMPTY || errno == EEXIST))) {
                    sh_err(p, "failed to remove '%s': %s", path, strerror(errno));
                    status = 1;
                }
                break;
            }
            if (!parents)
                break;
            char *up = dir_name(path);
            free(path);
            path = up;
            if (!path)
                return sh_oom(p);
            if (strcmp(path, ".") == 0 || strcmp(path, "/") == 0)
                break;
        }
        free(path);
    }
    return status;
}

/* ---- chmod ------------------------------------------------------------- */

/* The sandbox's filesystem has no permission bits (WASI has none), so there
 * chmod checks its mode and files and changes nothing: stat and ls go on
 * showing the usual 0644/0755. Natively it changes modes as GNU's does. */

typedef struct chmod_opts {
    const char *mode;  /* the mode as given, or NULL with --reference */
    mode_t ref_mode;   /* --reference's permission bits */
    int recursive, verbose, changes, quiet;
} chmod_opts;

/* Prints -v/-c's report of one file's change. -1 when the reader is gone. */
static int chmod_report(sh_proc *p, const chmod_opts *o, const char *path, mode_t from,
                        mode_t to)
{
    char fs[11], ts[11];
    if (!(o->verbose || (o->changes && from != to)))
        return 0;
    mode_string(from, fs);
    mode_string(to, ts);
    if (from == to)
        return sh_printf(p, "mode of '%s' retained as %04o (%s)\n", path, (unsigned)to, ts + 1);
    return sh_printf(p, "mode of '%s' changed from %04o (%s) to %04o (%s)\n", path,
                     (unsigned)from, fs + 1, (unsigned)to, ts + 1);
}

/* Changes the mode of one file (following a symbolic link given as an
 * operand, skipping those met inside a tree) and, with -R, of what is under
 * it. 0, 1 after an error, or SH_STATUS_PIPE. */
static int chmod_path(sh_proc *p, const chmod_opts *o, const char *path, int top)
{
    struct stat st;
    if (path_stat(p, path, &st, 0) < 0) {
        if (!o->quiet)
            sh_err(p, "cannot access '%s': %s", path, strerror(errno));
        return 1;
    }
    if (S_ISLNK(st.st_mode)) {
        if (!top)
            return o->verbose && sh_printf(p, "neither symbolic link '%s' nor referent has "
                                           "been changed\n", path) < 0 ? SH_STATUS_PIPE : 0;
        if (path_stat(p, path, &st, 1) < 0) {
            if (!o->quiet)
                sh_err(p, "cannot operate on dangling symlink '%s'", path);
            return 1;
        }
    }
    mode_t to = o->ref_mode;
    if (o->mode && apply_mode(o->mode, st.st_mode, S_ISDIR(st.st_mode), &to) < 0)
        return 1;
    int status = 0;
    if (path_chmod(p, path, to) < 0) {
        if (!o->quiet)
            sh_err(p, "changing permissions of '%s': %s", path, strerror(errno));
        status = 1;
    } else if (chmod_report(p, o, path, st.st_mode & 07777, to) < 0) {
        return SH_STATUS_PIPE;
    }
    if (!o->recursive || !S_ISDIR(st.st_mode))
        return status;
    name_list l;
    if (read_dir(p, path, &l) < 0) {
        if (errno == ENOMEM)
            return sh_oom(p);
        sh_err(p, "cannot read directory '%s': %s", path, strerror(errno));
        return 1;
    }
    for (size_t i = 0; i < l.n && status != SH_STATUS_PIPE; i++) {
        char *sub = path_join(path, l.v[i]);
        if (!sub) {
            status = sh_oom(p);
            break;
        }
        int r = chmod_path(p, o, sub, 0);
        status = r == SH_STATUS_PIPE ? r : status | r;
        free(sub);
    }
    name_list_free(&l);
    return status;
}

/* Whether an argument starting with '-' is a mode ("-w", "-x,g+r") rather than
 * options: as in GNU's, it is as soon as it holds a mode character. */
static int dash_mode(const char *arg)
{
    return strpbrk(arg + 1, "rwxXstugoa01234567,+-=") != NULL;
}

/* chmod parses its own arguments: "-w" and "-x" are modes, not options. */
static int chmod_main(sh_proc *p, int argc, char **argv)
{
    chmod_opts o = { 0 };
    const char *ref = NULL;
    char **ops = calloc((size_t)argc + 1, sizeof(char *));
    sh_buf dmode = { 0 };
    int nops = 0, status = 0, dashdash = 0;
    if (!ops)
        return sh_oom(p);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (dashdash || a[0] != '-' || !a[1]) {
            ops[nops++] = argv[i];
        } else if (strcmp(a, "--") == 0) {
            dashdash = 1;
        } else if (a[1] == '-') {
            if (strcmp(a, "--recursive") == 0) {
                o.recursive = 1;
            } else if (strcmp(a, "--verbose") == 0) {
                o.verbose = 1;
            } else if (strcmp(a, "--changes") == 0) {
                o.changes = 1;
            } else if (strcmp(a, "--silent") == 0 || strcmp(a, "--quiet") == 0) {
                o.quiet = 1;
            } else if (strncmp(a, "--reference=", 12) == 0) {
                ref = a + 12;
            } else if (strcmp(a, "--reference") == 0) {
                if (i + 1 >= argc) {
                    sh_err(p, "option '--reference' requires an argument");
                    status = usage_error(p, 1);
                    goto done;
                }
                ref = argv[++i];
            } else if (strcmp(a, "--preserve-root") != 0 && strcmp(a, "--no-preserve-root") != 0) {
                sh_err(p, "unrecognized option '%s'", a);
                status = usage_error(p, 1);
                goto done;
            }
        } else if (dash_mode(a)) {
            if ((dmode.len && sh_buf_addc(&dmode, ',') < 0) || sh_buf_adds(&dmode, a) < 0 ||
                !sh_buf_cstr(&dmode)) {
                status = sh_oom(p);
                goto done;
            }
        } else {
            for (const char *c = a + 1; *c; c++) {
                if (*c == 'R') {
                    o.recursive = 1;
                } else if (*c == 'v') {
                    o.verbose = 1;
                } else if (*c == 'c') {
                    o.changes = 1;
                } else if (*c == 'f') {
                    o.quiet = 1;
                } else {
                    sh_err(p, "invalid option -- '%c'", *c);
                    status = usage_error(p, 1);
                    goto done;
                }
            }
        }
    }
    int first = 0;
    if (ref) {
        struct stat st;
        if (path_stat(p, ref, &st, 1) < 0) {
            sh_err(p, "failed to get attributes of '%s': %s", ref, strerror(errno));
            status = 1;
            goto done;
        }
        o.ref_mode = st.st_mode & 07777;
    } else if (dmode.len) {
        o.mode = dmode.data;
    } else if (nops > 0) {
        o.mode = ops[first++];
    }
    if (!ref && !o.mode) {
        sh_err(p, "missing operand");
        status = usage_error(p, 1);
        goto done;
    }
    mode_t check;
    if (o.mode && apply_mode(o.mode, 0, 0, &check) < 0) {
        sh_err(p, "invalid mode: '%s'", o.mode);
        status = usage_error(p, 1);
        goto done;
    }
    if (first >= nops) {
        if (o.mode && !dmode.len)
            sh_err(p, "missing operand after '%s'", o.mode);
        else
            sh_err(p, "missing operand");
        status = usage_error(p, 1);
        goto done;
    }
    for (int i = first; i < nops && status != SH_STATUS_PIPE; i++) {
        int r = chmod_path(p, &o, ops[i], 1);
        status = r == SH_STATUS_PIPE ? r : status | r;
    }
done:
    free(ops);
    sh_buf_free(&dmode);
    return status;
}

/* ---- rm ---------------------------------------------------------------- */

typedef struct rm_opts {
    int force, recursive, dir, verbose, interactive;
    size_t answer; /* how much of standard input -i answers used */
} rm_opts;

/* The kind of file in rm's questions. */
static const char *rm_kind(const struct stat *st)
{
    if (S_ISDIR(st->st_mode))
        return "directory";
    if (S_ISLNK(st->st_mode))
        return "symbolic link";
    return file_type_name(st);
}

/* Removes one path (a whole tree with -r). 0, or 1 after an error. */
static int rm_path(sh_proc *p, rm_opts *o, const char *path)
{
    struct stat st;
    if (path_stat(p, path, &st, 0) < 0) {
        if (o->force && errno == ENOENT)
            return 0;
        sh_err(p, "cannot remove '%s': %s", path, strerror(errno));
        return 1;
    }
    if (S_ISDIR(st.st_mode)) {
        int status = 0;
        if (o->recursive) {
            name_list l;
            if (o->interactive && !ask(p, &o->answer, "descend into directory '%s'?%s ", path, ""))
                return 0;
            if (read_dir(p, path, &l) < 0) {
                sh_err(p, "cannot remove '%s': %s", path, strerror(errno));
                return 1;
            }
            for (size_t i = 0; i < l.n && !p->out->broken; i++) {
                char *child = path_join(path, l.v[i]);
                if (!child) {
                    name_list_free(&l);
                    return sh_oom(p);
                }
                status |= rm_path(p, o, child);
                free(child);
            }
            name_list_free(&l);
        } else if (!o->dir) {
            sh_err(p, "cannot remove '%s': Is a directory", path);
            return 1;
        }
        if (o->interactive && !ask(p, &o->answer, "remove directory '%s'?%s ", path, ""))
            return status;
        if (path_call(p, path, rmdir) < 0) {
            if (status == 0)
                sh_err(p, "cannot remove '%s': %s", path, strerror(errno));
            return 1;
        }
        if (o->verbose)
            sh_printf(p, "removed directory '%s'\n", path);
        return status;
    }
    if (o->interactive && !ask(p, &o->answer, "remove %s '%s'? ", rm_kind(&st), path))
        return 0;
    if (path_call(p, path, unlink) < 0) {
        sh_err(p, "cannot remove '%s': %s", path, strerror(errno));
        return 1;
    }
    if (o->verbose)
        sh_printf(p, "removed '%s'\n", path);
    return 0;
}

static int rm_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "force", 0, 'f' }, { "recursive", 0, 'r' }, { "dir", 0, 'd' }, { "verbose", 0, 'v' },
        { "interactive", 0, 'i' }, { "no-preserve-root", 0, 'N' }, { "preserve-root", 0, 'P' },
        { NULL, 0, 0 },
    };
    rm_opts o = { 0 };
    sh_opt g = { 1, 0, NULL };
    int c;
    while ((c = sh_getopt(p, &g, argc, argv, "frRdvi", longs)) != -1) {
        switch (c) {
        case 'f': o.force = 1; o.interactive = 0; break;
        case 'r': case 'R': o.recursive = 1; break;
        case 'd': o.dir = 1; break;
        case 'v': o.verbose = 1; break;
        case 'i': o.interactive = 1; o.force = 0; break;
        case 'N': case 'P': break;
        default: return usage_error(p, 1);
        }
    }
    if (g.ind >= argc) {
        if (o.force)
            return 0;
        return missing_operand(p);
    }
    int status = 0;
    for (int i = g.ind; i < argc && !p->out->broken; i++) {
        char *b = base_name(argv[i]);
        if (!b)
            return sh_oom(p);
        int dots = strcmp(b, ".") == 0 || strcmp(b, "..") == 0;
        int root = strcmp(b, "/") == 0;
        free(b);
        if (dots) {
            sh_err(p, "refusing to remove '.' or '..' directory: skipping '%s'", argv[i]);
            status = 1;
        } else if (root && o.recursive) {
            sh_err(p, "it is dangerous to operate recursively on '/'");
            status = 1;
        } else {
            status |= rm_path(p, &o, argv[i]);
        }
    }
    return p->out->broken ? SH_STATUS_PIPE : status;
}

/* ---- touch ------------------------------------------------------------- */

/* Parses touch -t's [[CC]YY]MMDDhhmm[.ss]. */
static int parse_touch_stamp(const char *s, struct timespec *ts)
{
    size_t n = strlen(s);
    const char *dot = strchr(s, '.');
    size_t main_len = dot ? (size_t)(dot - s) : n;
    int sec = 0;
    if (dot && (strlen(dot) != 3 || sscanf(dot + 1, "%2d", &sec) != 1))
        return -1;
    for (size_t i = 0; i < main_len; i++)
        if (s[i] < '0' || s[i] > '9')
            return -1;
    int v[6] = { 0 }, k = 0;
    long long year;
    if (main_len == 12) {
        year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
        k = 4;
    } else if (main_len == 10) {
        year = (s[0] - '0') * 10 + (s[1] - '0');
        year += year < 69 ? 2000 : 1900;
        k = 2;
    } else if (main_len == 8) {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        year = tm.tm_year + 1900;
    } else {
        return -1;
    }
    for (int i = 0; i < 4; i++, k += 2)
        v[i] = (s[k] - '0') * 10 + (s[k + 1] - '0');
    if (v[0] < 1 || v[0] > 12 || v[1] < 1 || v[1] > 31 || v[2] > 23 || v[3] > 59 || sec > 60)
        return -1;
    ts->tv_sec = (time_t)(sh_days_from_civil(year, v[0], v[1]) * 86400 + v[2] * 3600 + v[3] * 60 +
                          sec);
    ts->tv_nsec = 0;
    return 0;
}

/* The times touch gives one file: ts[0] access, ts[1] modification, each the
 * time asked for (or now), except the one that -a or -m leaves alone, which
 * keeps the file's own. Always explicit times: wasi-libc's headers define
 * UTIME_NOW/UTIME_OMIT twice with different values, and the sandbox sets a
 * NULL "now" to 0. -1 (errno set) when the file's times cannot be read. */
static int touch_times(sh_proc *p, const char *path, const struct timespec asked[2],
                       int keep_a, int keep_m, int nofollow, struct timespec ts[2])
{
    ts[0] = asked[0];
    ts[1] = asked[1];
    if (!keep_a && !keep_m)
        return 0;
    struct stat st;
    if (path_stat(p, path, &st, !nofollow) < 0)
        return -1;
    if (keep_a)
        ts[0] = st.st_atim;
    if (keep_m)
        ts[1] = st.st_mtim;
    return 0;
}

static int touch_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "no-create", 0, 'c' }, { "date", 1, 'd' }, { "reference", 1, 'r' },
        { "no-dereference", 0, 'h' }, { NULL, 0, 0 },
    };
    sh_opt g = { 1, 0, NULL };
    int c, no_create = 0, only_a = 0, only_m = 0, nofollow = 0;
    struct timespec asked[2]; /* access, modification: now unless -d, -t or -r */
    clock_gettime(CLOCK_REALTIME, &asked[0]);
    asked[1] = asked[0];
    while ((c = sh_getopt(p, &g, argc, argv, "acmd:r:t:fh", longs)) != -1) {
        switch (c) {
        case 'a': only_a = 1; break;
        case 'm': only_m = 1; break;
        case 'c': no_create = 1; break;
        case 'f': break;
        case 'h': nofollow = 1; break;
        case 'd':
            if (parse_date(g.arg, &asked[0]) < 0) {
                sh_err(p, "invalid date format '%s'", g.arg);
                return 1;
            }
            asked[1] = asked[0];
            break;
        case 't':
            if (parse_touch_stamp(g.arg, &asked[0]) < 0) {
                sh_err(p, "invalid date format '%s'", g.arg);
                return 1;
            }
            asked[1] = asked[0];
            break;
        case 'r': {
            struct stat st;
            if (path_stat(p, g.arg, &st, 1) < 0) {
                sh_err(p, "failed to get attributes of '%s': %s", g.arg, strerror(errno));
                return 1;
            }
            asked[0] = st.st_atim;
            asked[1] = st.st_mtim;
            break;
        }
        default: return usage_error(p, 1);
        }
    }
    if (g.ind >= argc) {
        sh_err(p, "missing file operand");
        return usage_error(p, 1);
    }
    int keep_a = only_m && !only_a, keep_m = only_a && !only_m;
    int status = 0;
    for (int i = g.ind; i < argc; i++) {
        struct stat st;
        if (strcmp(argv[i], "-") == 0)
            continue;
        if (path_stat(p, argv[i], &st, !nofollow) < 0) {
            if (no_create)
                continue;
            int fd = path_open(p, argv[i], O_WRONLY | O_CREAT, 0666);
            if (fd < 0) {
                sh_err(p, "cannot touch '%s': %s", argv[i], strerror(errno));
                status = 1;
                continue;
            }
            close(fd);
        }
        struct timespec ts[2];
        if (touch_times(p, argv[i], asked, keep_a, keep_m, nofollow, ts) < 0 ||
            path_utimes(p, argv[i], ts, nofollow) < 0) {
            sh_err(p, "setting times of '%s': %s", argv[i], strerror(errno));
            status = 1;
        }
    }
    return status;
}

/* ---- truncate ---------------------------------------------------------- */

/* Parses a size with GNU's units: K or KiB = 1024, KB = 1000, and M G T P E
 * alike (k m g t too); a leading + or - is kept as the sign. 0, -1 when not a
 * number, -2 when too large. */
static int parse_size(const char *s, long long *out)
{
    int neg = *s == '-';
    if (*s == '+' || *s == '-')
        s++;
    if (*s < '0' || *s > '9')
        return -1;
    unsigned long long v = 0, limit = (unsigned long long)LLONG_MAX;
    int too_large = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (limit - d) / 10)
            too_large = 1;
        else
            v = v * 10 + d;
    }
    if (*s) {
        /* Z and up are past any file size (past LLONG_MAX even for 1). */
        if (strchr("ZYRQ", *s))
            return -2;
        uintmax_t mult;
        if (sh_size_suffix(s, "KMGTPEkmgt", &mult) < 0)
            return -1;
        if (v > limit / mult)
            too_large = 1;
        else
            v *= mult;
    }
    if (too_large)
        return -2;
    *out = neg ? -(long long)v : (long long)v;
    return 0;
}

/* The size truncate gives a file of size cur: op is 0 (set), '+' or '-'
 * (relative), '<' (at most), '>' (at least), '/' (round down to a multiple)
 * or '%' (round up). -1 when it would overflow. */
static long long truncate_target(char op, long long size, long long cur)
{
    switch (op) {
    case '+':
    case '-':
        if (size > 0 && cur > LLONG_MAX - size)
            return -1;
        return cur + size < 0 ? 0 : cur + size;
    case '<': return cur > size ? size : cur;
    case '>': return cur < size ? size : cur;
    case '/': return cur / size * size;
    case '%': {
        long long down = cur / size * size;
        if (down == cur)
            return cur;
        return down > LLONG_MAX - size ? -1 : down + size;
    }
    default: return size;
    }
}

/* Sets one file's size (creating it unless no_create). 0, or 1 after an
 * error. base is the size relative operators start from, or -1 for the
 * file's own. */
static int truncate_file(sh_proc *p, const char *path, char op, long long size, long long base,
                         int no_create)
{
    int fd = path_open(p, path, O_WRONLY | (no_create ? 0 : O_CREAT), 0666);
    if (fd < 0) {
        if (no_create && errno == ENOENT)
            return 0;
        sh_err(p, "cannot open '%s' for writing: %s", path, strerror(errno));
        return 1;
    }
    struct stat st;
    if (base < 0 && op) {
        if (fstat(fd, &st) < 0) {
            sh_err(p, "cannot fstat '%s': %s", path, strerror(errno));
            close(fd);
            return 1;
        }
        base = st.st_size;
    }
    long long target = truncate_target(op, size, base);
    int status = 0;
    if (target < 0) {
        sh_err(p, "overflow extending size of file '%s'", path);
        status = 1;
    } else if (ftruncate(fd, (off_t)target) < 0) {
        sh_err(p, "failed to truncate '%s' at %lld bytes: %s", path, target, strerror(errno));
        status = 1;
    }
    close(fd);
    return status;
}

static int truncate_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "no-create", 0, 'c' }, { "reference", 1, 'r' }, { "size", 1, 's' }, { NULL, 0, 0 },
    };
    sh_opt g = { 1, 0, NULL };
    int c, no_create = 0, got_size = 0;
    const char *ref = NULL;
    char op = 0;
    long long size = 0;
    while ((c = sh_getopt(p, &g, argc, argv, "cr:s:", longs)) != -1) {
        switch (c) {
        case 'c': no_create = 1; break;
        case 'r': ref = g.arg; break;
        case 's': {
            const char *s = g.arg;
            while (*s == ' ' || *s == '\t')
                s++;
            op = strchr("<>/%", *s) && *s ? *s++ : 0;
            while (*s == ' ' || *s == '\t')
                s++;
            if (*s == '+' || *s == '-') {
                if (op) {
                    sh_err(p, "multiple relative modifiers specified");
                    return usage_error(p, 1);
                }
                op = *s;
            }
            int r = parse_size(s, &size);
            if (r < 0) {
                sh_err(p, "Invalid number: '%s'%s", s,
                       r == -2 ? ": Value too large for defined data type" : "");
                return 1;
            }
            if ((op == '/' || op == '%') && size == 0) {
                sh_err(p, "division by zero");
                return 1;
            }
            got_size = 1;
            break;
        }
        default: return usage_error(p, 1);
        }
    }
    if (!ref && !got_size) {
        sh_err(p, "you must specify either '--size' or '--reference'");
        return usage_error(p, 1);
    }
    if (ref && got_size && !op) {
        sh_err(p, "you must specify a relative '--size' with '--reference'");
        return usage_error(p, 1);
    }
    if (g.ind >= argc) {
        sh_err(p, "missing file operand");
        return usage_error(p, 1);
    }
    long long base = -1;
    if (ref) {
        struct stat st;
        if (path_stat(p, ref, &st, 1) < 0) {
            sh_err(p, "cannot stat '%s': %s", ref, strerror(errno));
            return 1;
        }
        base = st.st_size;
        if (!got_size) {
            size = base;
            op = 0;
        }
    }
    int status = 0;
    for (int i = g.ind; i < argc; i++)
        status |= truncate_file(p, argv[i], op, size, base, no_create);
    return status;
}

/* ---- ln ---------------------------------------------------------------- */

/* Makes one link at dest; 0, or 1 after the error. */
static int ln_one(sh_proc *p, const char *target, const char *dest, int symbolic, int force,
                  int verbose)
{
    struct stat st;
    if (!symbolic && path_stat(p, target, &st, 0) < 0) {
        sh_err(p, "failed to access '%s': %s", target, strerror(errno));
        return 1;
    }
    if (force && path_stat(p, dest, &st, 0) == 0) {
        if (S_ISDIR(st.st_mode)) {
            sh_err(p, "%s: cannot overwrite directory", dest);
            return 1;
        }
        path_call(p, dest, unlink);
    }
    int r = symbolic ? path_symlink(p, target, dest) : path_call2(p, target, dest, link);
    if (r < 0) {
        sh_err(p, "failed to create %s link '%s': %s", symbolic ? "symbolic" : "hard", dest,
               strerror(errno));
        return 1;
    }
    if (verbose && sh_printf(p, "'%s' -> '%s'\n", dest, target) < 0)
        return SH_STATUS_PIPE;
    return 0;
}

static int ln_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "symbolic", 0, 's' }, { "force", 0, 'f' }, { "verbose", 0, 'v' },
        { "no-dereference", 0, 'n' }, { "no-target-directory", 0, 'T' },
        { "target-directory", 1, 't' }, { NULL, 0, 0 },
    };
    sh_opt g = { 1, 0, NULL };
    int c, symbolic = 0, force = 0, verbose = 0, noderef = 0, no_target = 0;
    const char *target_dir = NULL;
    while ((c = sh_getopt(p, &g, argc, argv, "sfvnTt:", longs)) != -1) {
        switch (c) {
        case 's': symbolic = 1; break;
        case 'f': force = 1; break;
        case 'v': verbose = 1; break;
        case 'n': noderef = 1; break;
        case 'T': no_target = 1; break;
        case 't': target_dir = g.arg; break;
        default: return usage_error(p, 1);
        }
    }
    int n = argc - g.ind;
    char **ops = argv + g.ind;
    if (n < 1) {
        sh_err(p, "missing file operand");
        return usage_error(p, 1);
    }
    struct stat st;
    if (!target_dir && !no_target && n >= 2) {
        const char *last = ops[n - 1];
        int isdir = path_stat(p, last, &st, 1) == 0 && S_ISDIR(st.st_mode);
        if (isdir && noderef && path_stat(p, last, &st, 0) == 0 && S_ISLNK(st.st_mode))
            isdir = 0;
        if (isdir) {
            target_dir = last;
            n--;
        } else if (n > 2) {
            sh_err(p, "target '%s' is not a directory", last);
            return 1;
        }
    }
    if (!target_dir && n == 2)
        return ln_one(p, ops[0], ops[1], symbolic, force, verbose);
    if (no_target && n != 2) {
        sh_err(p, n < 2 ? "missing destination file operand after '%s'" : "extra operand '%s'",
               ops[n < 2 ? 0 : 2]);
        return usage_error(p, 1);
    }
    int status = 0;
    for (int i = 0; i < n; i++) {
        char *b = base_name(ops[i]);
        char *dest = b ? (target_dir ? path_join(target_dir, b) : strdup(b)) : NULL;
        free(b);
        if (!dest)
            return sh_oom(p);
        int r = ln_one(p, ops[i], dest, symbolic, force, verbose);
        free(dest);
        if (r == SH_STATUS_PIPE)
            return r;
        status |= r;
    }
    return status;
}

/* ---- stat -------------------------------------------------------------- */

/* A time as stat prints it: "2026-01-02 03:04:05.123456789 +0000". */
static void stat_time(const struct timespec *t, char *buf, size_t n)
{
    struct tm tm;
    time_t s = t->tv_sec;
    gmtime_r(&s, &tm);
    char day[64];
    strftime(day, sizeof(day), "%Y-%m-%d %H:%M:%S", &tm);
    snprintf(buf, n, "%s.%09ld +0000", day, (long)t->tv_nsec);
}

/* Appends one %-directive of stat's format for the file at path. */
static int stat_directive(sh_proc *p, sh_buf *b, char d, const char *path,
                          const struct stat *st, const char *flags)
{
    char num[64], tb[96];
    char fmt[32];
    const struct timespec *t = NULL;
    unsigned long long u = 0;
    int is_number = 0;
    switch (d) {
    case 'n': return sh_buf_adds(b, path);
    case 'N':
        if (S_ISLNK(st->st_mode)) {
            char *target = path_readlink(p, path);
            int r = sh_buf_addf(b, "'%s' -> '%s'", path, target ? target : "");
            free(target);
            return r;
        }
        return sh_buf_addf(b, "'%s'", path);
    case 'F': return sh_buf_adds(b, file_type_name(st));
    case 'a': snprintf(num, sizeof(num), "%o", (unsigned)(st->st_mode & 07777)); break;
    case 'A': mode_string(st->st_mode, num); break;
    case 'f': snprintf(num, sizeof(num), "%x", (unsigned)st->st_mode); break;
    case 's': u = (unsigned long long)st->st_size; is_number = 1; break;
    case 'b': u = (unsigned long long)st->st_blocks; is_number = 1; break;
    case 'B': u = 512; is_number = 1; break;
    case 'o': u = (unsigned long long)st->st_blksize; is_number = 1; break;
    case 'h': u = (unsigned long long)st->st_nlink; is_number = 1; break;
    case 'i': u = (unsigned long long)st->st_ino; is_number = 1; break;
    case 'd': u = (unsigned long long)st->st_dev; is_number = 1; break;
    case 'u': u = (unsigned long long)st->st_uid; is_number = 1; break;
    case 'g': u = (unsigned long long)st->st_gid; is_number = 1; break;
    case 'D': snprintf(num, sizeof(num), "%llx", (unsigned long long)st->st_dev); break;
    case 'U': owner_name((unsigned long)st->st_uid, num, sizeof(num)); break;
    case 'G': owner_name((unsigned long)st->st_gid, num, sizeof(num)); break;
    case 'X': snprintf(num, sizeof(num), "%lld", (long long)st->st_atim.tv_sec); break;
    case 'Y': snprintf(num, sizeof(num), "%lld", (long long)st->st_mtim.tv_sec); break;
    case 'Z': snprintf(num, sizeof(num), "%lld", (long long)st->st_ctim.tv_sec); break;
    case 'W': snprintf(num, sizeof(num), "0"); break;
    case 'x': t = &st->st_atim; break;
    case 'y': t = &st->st_mtim; break;
    case 'z': t = &st->st_ctim; break;
    case 'w': snprintf(num, sizeof(num), "-"); break;
    case '%': return sh_buf_addc(b, '%');
    default: return sh_buf_addc(b, '?');
    }
    if (is_number)
        snprintf(num, sizeof(num), "%llu", u);
    if (t) {
        stat_time(t, tb, sizeof(tb));
        snprintf(fmt, sizeof(fmt), "%%%ss", flags);
        return sh_buf_addf(b, fmt, tb);
    }
    snprintf(fmt, sizeof(fmt), "%%%ss", flags);
    return sh_buf_addf(b, fmt, num);
}

/* Appends a backslash escape of stat --printf (\n \t \\ \" \a... \NNN). Returns
 * the number of format bytes consumed after the backslash. */
static size_t backslash_escape(const char *s, sh_buf *b, int *err)
{
    static const char from[] = "abefnrtv\\\"", to[] = "\a\b\033\f\n\r\t\v\\\"";
    const char *k = *s ? strchr(from, *s) : NULL;
    if (k) {
        *err |= sh_buf_addc(b, to[k - from]);
        return 1;
    }
    if (*s >= '0' && *s <= '7') {
        int v = 0;
        size_t i = 0;
        for (; i < 3 && s[i] >= '0' && s[i] <= '7'; i++)
            v = v * 8 + (s[i] - '0');
        *err |= sh_buf_addc(b, (char)v);
        return i;
    }
    *err |= sh_buf_addc(b, '\\');
    return 0;
}

/* The major and minor numbers of a device, in Linux's encoding (the guest's
 * files report the host's numbers). */
static unsigned long long dev_major(unsigned long long dev)
{
    return ((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfffULL);
}

static unsigned long long dev_minor(unsigned long long dev)
{
    return (dev & 0xff) | ((dev >> 12) & ~0xffULL);
}

/* Expands a stat format for one file; escapes are interpreted for --printf. */
static int stat_format(sh_proc *p, sh_buf *b, const char *fmt, const char *path,
                       const struct stat *st, int escapes)
{
    int err = 0;
    for (const char *s = fmt; *s && !err; s++) {
        if (*s == '\\' && escapes) {
            s += backslash_escape(s + 1, b, &err);
            continue;
        }
        if (*s != '%') {
            err |= sh_buf_addc(b, *s);
            continue;
        }
        char flags[16];
        size_t nf = 0;
        s++;
        while (*s && strchr("-+ #0123456789.", *s) && nf < sizeof(flags) - 1)
            flags[nf++] = *s++;
        flags[nf] = '\0';
        if (!*s) {
            err |= sh_buf_addc(b, '%');
            break;
        }
        if ((*s == 'H' || *s == 'L') && (s[1] == 'd' || s[1] == 'r')) {
            unsigned long long dev = s[1] == 'd' ? (unsigned long long)st->st_dev
                                                 : (unsigned long long)st->st_rdev;
            char fmt2[24];
            snprintf(fmt2, sizeof(fmt2), "%%%sllu", flags);
            err |= sh_buf_addf(b, fmt2, *s == 'H' ? dev_major(dev) : dev_minor(dev));
            s++;
            continue;
        }
        err |= stat_directive(p, b, *s, path, st, flags);
    }
    return err;
}

/* The layout of GNU stat without -c. */
static const char stat_default_format[] =
    "  File: %n\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n"
    "Device: %Hd,%Ld\tInode: %-11i Links: %h\n"
    "Access: (0%a/%A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n"
    "Access: %x\nModify: %y\nChange: %z\n Birth: -\n";

static int stat_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "format", 1, 'c' }, { "printf", 1, 'P' }, { "dereference", 0, 'L' },
        { "terse", 0, 't' }, { NULL, 0, 0 },
    };
    sh_opt g = { 1, 0, NULL };
    int c, follow = 0, escapes = 0, terse = 0;
    const char *fmt = NULL;
    while ((c = sh_getopt(p, &g, argc, argv, "c:Lt", longs)) != -1) {
        switch (c) {
        case 'c': fmt = g.arg; escapes = 0; break;
        case 'P': fmt = g.arg; escapes = 1; break;
        case 'L': follow = 1; break;
        case 't': terse = 1; break;
        default: return usage_error(p, 1);
        }
    }
    if (g.ind >= argc) {
        return missing_operand(p);
    }
    int status = 0;
    for (int i = g.ind; i < argc; i++) {
        struct stat st;
        if (path_stat(p, argv[i], &st, follow) < 0) {
            sh_err(p, "cannot stat '%s': %s", argv[i], strerror(errno));
            status = 1;
            continue;
        }
        sh_buf b = { 0 };
        int err;
        if (fmt) {
            err = stat_format(p, &b, fmt, argv[i], &st, escapes);
            if (!escapes)
                err |= sh_buf_addc(&b, '\n');
        } else if (terse) {
            err = stat_format(p, &b, "%n %s %b %f %u %g %D %i %h 0 0 %X %Y %Z %W %o\n", argv[i],
                              &st, 0);
        } else {
            const char *shown = argv[i];
            char *label = NULL;
            if (S_ISLNK(st.st_mode)) {
                char *target = path_readlink(p, argv[i]);
                sh_buf lb = { 0 };
                sh_buf_addf(&lb, "%s -> %s", argv[i], target ? target : "");
                free(target);
                label = sh_buf_take(&lb, NULL);
                if (label)
                    shown = label;
            }
            err = stat_format(p, &b, stat_default_format, shown, &st, 0);
            free(label);
        }
        if (err) {
            sh_buf_free(&b);
            return sh_oom(p);
        }
        int r = sh_out(p, b.data, b.len);
        sh_buf_free(&b);
        if (r < 0)
            return SH_STATUS_PIPE;
    }
    return status;
}

/* ---- ls ---------------------------------------------------------------- */

typedef struct ls_opts {
    int all, almost_all, longfmt, recursive, dirs_only, reverse;
    int human, classify, slash, follow, no_owner, no_group, unsorted, numeric, blocks, inode;
    int dirs_first;
    char sort; /* 'n' name, 't' time, 'S' size */
    time_t now;
} ls_opts;

/* One entry to show: its name as printed, its path for stat, and its stat. */
typedef struct ls_entry {
    char *name, *path;
    struct stat st;
    int ok; /* stat succeeded */
} ls_entry;

static void ls_entries_free(ls_entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(e[i].name);
        free(e[i].path);
    }
    free(e);
}

/* Orders two entries by the chosen key, ties by name, reversed with -r. */
static int ls_compare(const ls_entry *a, const ls_entry *b, const ls_opts *o)
{
    if (o->dirs_first) {
        int da = a->ok && S_ISDIR(a->st.st_mode), db = b->ok && S_ISDIR(b->st.st_mode);
        if (da != db)
            return da ? -1 : 1;
    }
    int r = 0;
    if (o->sort == 't') {
        if (a->st.st_mtim.tv_sec != b->st.st_mtim.tv_sec)
            r = a->st.st_mtim.tv_sec > b->st.st_mtim.tv_sec ? -1 : 1;
        else if (a->st.st_mtim.tv_nsec != b->st.st_mtim.tv_nsec)
            r = a->st.st_mtim.tv_nsec > b->st.st_mtim.tv_nsec ? -1 : 1;
    } else if (o->sort == 'S' && a->st.st_size != b->st.st_size) {
        r = a->st.st_size > b->st.st_size ? -1 : 1;
    }
    if (r == 0)
        r = strcmp(a->name, b->name);
    return o->reverse ? -r : r;
}

/* A stable merge sort of entries (qsort takes no context for the options). */
static void ls_sort(ls_entry *e, size_t n, const ls_opts *o, ls_entry *tmp)
{
    if (n < 2 || o->unsorted)
        return;
    size_t h = n / 2;
    ls_sort(e, h, o, tmp);
    ls_sort(e + h, n - h, o, tmp);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = ls_compare(&e[j], &e[i], o) < 0 ? e[j++] : e[i++];
    while (i < h)
        tmp[k++] = e[i++];
    while (j < n)
        tmp[k++] = e[j++];
    memcpy(e, tmp, n * sizeof(*e));
}

/* Sorts entries; 0, or -1 when out of memory. */
static int ls_sort_entries(ls_entry *e, size_t n, const ls_opts *o)
{
    if (n < 2)
        return 0;
    ls_entry *tmp = malloc(n * sizeof(*tmp));
    if (!tmp)
        return -1;
    ls_sort(e, n, o, tmp);
    free(tmp);
    return 0;
}

/* The indicator -F or -p adds after a name. */
static const char *ls_indicator(const ls_opts *o, const struct stat *st)
{
    mode_t m = st->st_mode;
    if (S_ISDIR(m))
        return (o->classify || o->slash) ? "/" : "";
    if (!o->classify)
        return "";
    if (S_ISLNK(m))
        return o->longfmt ? "" : "@";
    if (S_ISFIFO(m))
        return "|";
    if (S_ISSOCK(m))
        return "=";
    if (S_ISREG(m) && (m & 0111))
        return "*";
    return "";
}

/* The time column of ls -l: "Mon DD HH:MM", or "Mon DD  YYYY" when older than
 * six months or in the future, as GNU. */
static void ls_time(const ls_opts *o, time_t t, char *buf, size_t n)
{
    struct tm tm;
    gmtime_r(&t, &tm);
    int recent = t > o->now - 31556952 / 2 && t <= o->now;
    strftime(buf, n, recent ? "%b %e %H:%M" : "%b %e  %Y", &tm);
}

/* Formats the size column (bytes, or -h units). */
static void ls_size(const ls_opts *o, const struct stat *st, char *buf, size_t n)
{
    if (o->human)
        human_size((unsigned long long)st->st_size, buf, n);
    else
        snprintf(buf, n, "%lld", (long long)st->st_size);
}

/* An owner or group column: a name, or the number with -n. */
static void ls_owner(const ls_opts *o, unsigned long id, char *buf, size_t n)
{
    if (o->numeric)
        snprintf(buf, n, "%lu", id);
    else
        owner_name(id, buf, n);
}

/* The 512-byte blocks a file uses. The guest's filesystem reports none: the
 * apparent size rounded up to 4K blocks stands in for them then. */
static unsigned long long ls_blocks(const struct stat *st)
{
    if (st->st_blocks > 0 || S_ISLNK(st->st_mode))
        return (unsigned long long)st->st_blocks;
    return ((unsigned long long)st->st_size + 4095) / 4096 * 8;
}

/* The -s column: a file's blocks in 1K units, or -h units. */
static void ls_block_column(const ls_opts *o, const struct stat *st, char *buf, size_t n)
{
    if (o->human)
        human_size(ls_blocks(st) * 512, buf, n);
    else
        snprintf(buf, n, "%llu", (ls_blocks(st) + 1) / 2);
}

/* Prints entries, one per line (GNU's format when the output is no terminal),
 * or in the long format with aligned columns. */
static int ls_print(sh_proc *p, const ls_opts *o, ls_entry *e, size_t n, int total_line)
{
    sh_buf b = { 0 };
    int err = 0;
    int wl = 1, wu = 1, wg = 1, ws = 1, wb = 1, wi = 1;
    for (size_t i = 0; i < n && (o->blocks || o->inode); i++) {
        char t[64];
        if (!e[i].ok)
            continue;
        ls_block_column(o, &e[i].st, t, sizeof(t));
        wb = wb > (int)strlen(t) ? wb : (int)strlen(t);
        snprintf(t, sizeof(t), "%llu", (unsigned long long)e[i].st.st_ino);
        wi = wi > (int)strlen(t) ? wi : (int)strlen(t);
    }
    if (o->longfmt || (o->blocks && total_line)) {
        unsigned long long blocks = 0;
        for (size_t i = 0; i < n; i++) {
            char t[64];
            if (!e[i].ok)
                continue;
            snprintf(t, sizeof(t), "%lu", (unsigned long)e[i].st.st_nlink);
            wl = wl > (int)strlen(t) ? wl : (int)strlen(t);
            ls_owner(o, (unsigned long)e[i].st.st_uid, t, sizeof(t));
            wu = wu > (int)strlen(t) ? wu : (int)strlen(t);
            ls_owner(o, (unsigned long)e[i].st.st_gid, t, sizeof(t));
            wg = wg > (int)strlen(t) ? wg : (int)strlen(t);
            ls_size(o, &e[i].st, t, sizeof(t));
            ws = ws > (int)strlen(t) ? ws : (int)strlen(t);
            blocks += ls_blocks(&e[i].st);
        }
        if (total_line) {
            char t[32];
            if (o->human)
                human_size(blocks * 512, t, sizeof(t));
            else
                snprintf(t, sizeof(t), "%llu", blocks / 2);
            err |= sh_buf_addf(&b, "total %s\n", t);
        }
    }
    for (size_t i = 0; i < n && !err; i++) {
        if (!e[i].ok)
            continue;
        const struct stat *st = &e[i].st;
        if (o->inode)
            err |= sh_buf_addf(&b, "%*llu ", wi, (unsigned long long)st->st_ino);
        if (o->blocks) {
            char t[32];
            ls_block_column(o, st, t, sizeof(t));
            err |= sh_buf_addf(&b, "%*s ", wb, t);
        }
        if (o->longfmt) {
            char mode[11], user[32], group[32], size[32], when[64];
            mode_string(st->st_mode, mode);
            ls_owner(o, (unsigned long)st->st_uid, user, sizeof(user));
            ls_owner(o, (unsigned long)st->st_gid, group, sizeof(group));
            ls_size(o, st, size, sizeof(size));
            ls_time(o, st->st_mtim.tv_sec, when, sizeof(when));
            err |= sh_buf_addf(&b, "%s %*lu ", mode, wl, (unsigned long)st->st_nlink);
            if (!o->no_owner)
                err |= sh_buf_addf(&b, "%-*s ", wu, user);
            if (!o->no_group)
                err |= sh_buf_addf(&b, "%-*s ", wg, group);
            err |= sh_buf_addf(&b, "%*s %s ", ws, size, when);
        }
        err |= sh_buf_adds(&b, e[i].name);
        err |= sh_buf_adds(&b, ls_indicator(o, st));
        if (o->longfmt && S_ISLNK(st->st_mode)) {
            char *target = path_readlink(p, e[i].path);
            err |= sh_buf_addf(&b, " -> %s", target ? target : "");
            free(target);
        }
        err |= sh_buf_addc(&b, '\n');
        if (!err && flush_buf(p, &b, 65536) < 0) {
            sh_buf_free(&b);
            return SH_STATUS_PIPE;
        }
    }
    if (err) {
        sh_buf_free(&b);
        return sh_oom(p);
    }
    int r = sh_out(p, b.data, b.len) < 0 ? SH_STATUS_PIPE : 0;
    sh_buf_free(&b);
    return r;
}

/* Fills an entry for path (shown as name); stat follows symlinks with -L. */
static int ls_fill(sh_proc *p, const ls_opts *o, ls_entry *e, const char *name, const char *path)
{
    e->name = strdup(name);
    e->path = strdup(path);
    if (!e->name || !e->path)
        return -1;
    e->ok = path_stat(p, path, &e->st, o->follow) == 0;
    if (!e->ok && o->follow)
        e->ok = path_stat(p, path, &e->st, 0) == 0;
    return 0;
}

/* Lists one directory (with a "path:" header when asked) and, with -R, its
 * subdirectories after it. Returns 0, 1 on a minor error, 2 on a serious one. */
static int ls_dir(sh_proc *p, const ls_opts *o, const char *path, int header, int *first,
                  const ancestor *up)
{
    name_list l;
    if (read_dir(p, path, &l) < 0) {
        sh_err(p, "cannot open directory '%s': %s", path, strerror(errno));
        return up ? 1 : 2; /* only command-line operands are serious */
    }
    size_t cap = l.n + 2, n = 0;
    ls_entry *e = calloc(cap, sizeof(*e));
    int status = 0;
    if (!e) {
        name_list_free(&l);
        return sh_oom(p) + 1;
    }
    if (o->all) {
        if (ls_fill(p, o, &e[n++], ".", path) < 0)
            goto nomem;
        char *parent = path_join(path, "..");
        if (!parent || ls_fill(p, o, &e[n++], "..", parent) < 0) {
            free(parent);
            goto nomem;
        }
        free(parent);
    }
    for (size_t i = 0; i < l.n; i++) {
        if (l.v[i][0] == '.' && !o->all && !o->almost_all)
            continue;
        char *child = path_join(path, l.v[i]);
        if (!child || ls_fill(p, o, &e[n++], l.v[i], child) < 0) {
            free(child);
            goto nomem;
        }
        free(child);
        if (!e[n - 1].ok) {
            sh_err(p, "cannot access '%s': %s", e[n - 1].path, strerror(errno));
            status = 1;
        }
    }
    name_list_free(&l);
    if (ls_sort_entries(e, n, o) < 0)
        goto nomem;
    if (header && sh_printf(p, "%s%s:\n", *first ? "" : "\n", path) < 0) {
        ls_entries_free(e, n);
        return SH_STATUS_PIPE;
    }
    *first = 0;
    int r = ls_print(p, o, e, n, 1);
    if (r == SH_STATUS_PIPE) {
        ls_entries_free(e, n);
        return r;
    }
    status = r > status ? r : status;
    struct stat self;
    ancestor here = { 0, 0, up };
    if (o->recursive && path_stat(p, path, &self, 1) == 0) {
        here.dev = self.st_dev;
        here.ino = self.st_ino;
    }
    for (size_t i = 0; o->recursive && i < n; i++) {
        if (!e[i].ok || !S_ISDIR(e[i].st.st_mode) || strcmp(e[i].name, ".") == 0 ||
            strcmp(e[i].name, "..") == 0)
            continue;
        if (in_ancestors(&here, &e[i].st)) {
            sh_err(p, "%s: not listing already-listed directory", e[i].path);
            status = 2;
            continue;
        }
        r = ls_dir(p, o, e[i].path, 1, first, &here);
        if (r == SH_STATUS_PIPE) {
            ls_entries_free(e, n);
            return r;
        }
        if (r > status)
            status = r;
    }
    ls_entries_free(e, n);
    return status;
nomem:
    name_list_free(&l);
    ls_entries_free(e, n);
    return sh_oom(p) + 1;
}

static int ls_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "all", 0, 'a' }, { "almost-all", 0, 'A' }, { "recursive", 0, 'R' },
        { "directory", 0, 'd' }, { "reverse", 0, 'r' }, { "human-readable", 0, 'h' },
        { "classify", 0, 'F' }, { "dereference", 0, 'L' }, { "color", 2, 'C' },
        { "numeric-uid-gid", 0, 'n' }, { "size", 0, 's' }, { "inode", 0, 'i' },
        { "group-directories-first", 0, 'D' }, { NULL, 0, 0 },
    };
    ls_opts o = { .sort = 'n', .now = time(NULL) };
    sh_opt g = { 1, 0, NULL };
    int c;
    while ((c = sh_getopt(p, &g, argc, argv, "1aAlRdrtShFpLnogUCxsi", longs)) != -1) {
        switch (c) {
        case 'a': o.all = 1; o.almost_all = 0; break;
        case 'A': o.almost_all = 1; o.all = 0; break;
        case 'l': o.longfmt = 1; break;
        case 'n': o.longfmt = o.numeric = 1; break;
        case 's': o.blocks = 1; break;
        case 'i': o.inode = 1; break;
        case 'o': o.longfmt = 1; o.no_group = 1; break;
        case 'g': o.longfmt = 1; o.no_owner = 1; break;
        case 'R': o.recursive = 1; break;
        case 'd': o.dirs_only = 1; break;
        case 'r': o.reverse = 1; break;
        case 't': o.sort = 't'; break;
        case 'S': o.sort = 'S'; break;
        case 'U': o.unsorted = 1; break;
        case 'h': o.human = 1; break;
        case 'F': o.classify = 1; break;
        case 'p': o.slash = 1; break;
        case 'L': o.follow = 1; break;
        case 'D': o.dirs_first = 1; break;
        /* Output is never a terminal: one name per line, as GNU's default
         * then; -C and -x columns and colours are not drawn. */
        case '1': case 'x': case 'C': break;
        default: return usage_error(p, 2);
        }
    }
    char *dot[] = { ".", NULL };
    char **ops = g.ind < argc ? argv + g.ind : dot;
    size_t nops = g.ind < argc ? (size_t)(argc - g.ind) : 1;
    ls_entry *files = calloc(nops, sizeof(*files)), *dirs = calloc(nops, sizeof(*dirs));
    size_t nf = 0, nd = 0;
    int status = 0, first = 1;
    if (!files || !dirs) {
        free(files);
        free(dirs);
        return sh_oom(p) + 1;
    }
    /* Command-line symlinks to directories are followed unless -l, -F or -d. */
    int follow_args = o.follow || !(o.longfmt || o.classify || o.dirs_only);
    for (size_t i = 0; i < nops; i++) {
        struct stat st;
        if (path_stat(p, ops[i], &st, 0) < 0) {
            sh_err(p, "cannot access '%s': %s", ops[i], strerror(errno));
            status = 2;
            continue;
        }
        struct stat target;
        if (S_ISLNK(st.st_mode) && follow_args && path_stat(p, ops[i], &target, 1) == 0)
            st = target;
        ls_entry *e = (S_ISDIR(st.st_mode) && !o.dirs_only) ? &dirs[nd++] : &files[nf++];
        e->name = strdup(ops[i]);
        e->path = strdup(ops[i]);
        e->st = st;
        e->ok = 1;
        if (!e->name || !e->path) {
            status = sh_oom(p) + 1;
            goto done;
        }
    }
    if (ls_sort_entries(files, nf, &o) < 0 || ls_sort_entries(dirs, nd, &o) < 0) {
        status = sh_oom(p) + 1;
        goto done;
    }
    if (nf > 0) {
        int r = ls_print(p, &o, files, nf, 0);
        if (r) {
            status = r;
            goto done;
        }
        first = 0;
    }
    for (size_t i = 0; i < nd; i++) {
        int header = nops > 1 || o.recursive || status != 0;
        int r = ls_dir(p, &o, dirs[i].path, header, &first, NULL);
        if (r == SH_STATUS_PIPE) {
            status = r;
            goto done;
        }
        if (r > status)
            status = r;
    }
done:
    ls_entries_free(files, nf);
    ls_entries_free(dirs, nd);
    return status;
}

/* ---- du ---------------------------------------------------------------- */

/* Sizes are always apparent sizes (st_size), as with GNU's --apparent-size:
 * the guest's filesystem has no block counts to report. */
typedef struct du_opts {
    int all, summarize, total, human, null_end;
    long long max_depth; /* -1: no limit */
    unsigned long long unit;
} du_opts;

/* Prints one "SIZE<TAB>PATH" line. */
static int du_line(sh_proc *p, const du_opts *o, unsigned long long bytes, const char *path)
{
    char num[32];
    if (o->human)
        human_size(bytes, num, sizeof(num));
    else
        snprintf(num, sizeof(num), "%llu", (bytes + o->unit - 1) / o->unit);
    return sh_printf(p, "%s\t%s%c", num, path, o->null_end ? '\0' : '\n');
}

/* Adds up a tree, printing the lines du shows for it; *bytes gets its total.
 * Returns 0, 1 after an error, or SH_STATUS_PIPE. */
static int du_walk(sh_proc *p, const du_opts *o, const char *path, long long depth,
                   unsigned long long *bytes)
{
    struct stat st;
    *bytes = 0;
    if (path_stat(p, path, &st, 0) < 0) {
        sh_err(p, "cannot access '%s': %s", path, strerror(errno));
        return 1;
    }
    unsigned long long sum = (unsigned long long)st.st_size;
    int status = 0;
    int shown = o->max_depth < 0 || depth <= o->max_depth;
    if (S_ISDIR(st.st_mode)) {
        name_list l;
        if (read_dir(p, path, &l) < 0) {
            sh_err(p, "cannot read directory '%s': %s", path, strerror(errno));
            status = 1;
        } else {
            for (size_t i = 0; i < l.n; i++) {
                char *child = path_join(path, l.v[i]);
                unsigned long long sub;
                if (!child) {
                    name_list_free(&l);
                    return sh_oom(p);
                }
                int r = du_walk(p, o, child, depth + 1, &sub);
                free(child);
                if (r == SH_STATUS_PIPE) {
                    name_list_free(&l);
                    return r;
                }
                status |= r;
                sum += sub;
            }
            name_list_free(&l);
        }
        if (shown && (!o->summarize || depth == 0) && du_line(p, o, sum, path) < 0)
            return SH_STATUS_PIPE;
    } else if ((depth == 0 || (o->all && shown && !o->summarize)) &&
               du_line(p, o, sum, path) < 0) {
        return SH_STATUS_PIPE;
    }
    *bytes = sum;
    return status;
}

static int du_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "all", 0, 'a' }, { "summarize", 0, 's' }, { "total", 0, 'c' },
        { "human-readable", 0, 'h' }, { "bytes", 0, 'b' }, { "apparent-size", 0, 'A' },
        { "max-depth", 1, 'd' }, { "null", 0, '0' }, { "block-size", 1, 'B' }, { NULL, 0, 0 },
    };
    du_opts o = { .max_depth = -1, .unit = 1024 };
    sh_opt g = { 1, 0, NULL };
    int c;
    while ((c = sh_getopt(p, &g, argc, argv, "asch0bkmd:B:xlLHP", longs)) != -1) {
        switch (c) {
        case 'a': o.all = 1; break;
        case 's': o.summarize = 1; break;
        case 'c': o.total = 1; break;
        case 'h': o.human = 1; break;
        case 'b': o.unit = 1; o.human = 0; break;
        case 'k': o.unit = 1024; o.human = 0; break;
        case 'm': o.unit = 1024 * 1024; o.human = 0; break;
        case '0': o.null_end = 1; break;
        case 'A': case 'x': case 'l': case 'L': case 'H': case 'P': break;
        case 'B': {
            char *end;
            unsigned long long v = strtoull(g.arg, &end, 10);
            if (end == g.arg)
                v = 1;
            if (*end == 'K' || *end == 'k')
                v *= 1024, end++;
            else if (*end == 'M')
                v *= 1024 * 1024, end++;
            else if (*end == 'G')
                v *= 1024ULL * 1024 * 1024, end++;
            if (*end || v == 0) {
                sh_err(p, "invalid --block-size argument '%s'", g.arg);
                return 1;
            }
            o.unit = v;
            o.human = 0;
            break;
        }
        case 'd': {
            char *end;
            long long v = strtoll(g.arg, &end, 10);
            if (!*g.arg || *end || v < 0) {
                sh_err(p, "invalid maximum depth '%s'", g.arg);
                return 1;
            }
            o.max_depth = v;
            break;
        }
        default: return usage_error(p, 1);
        }
    }
    if (o.summarize && o.all) {
        sh_err(p, "cannot both summarize and show all entries");
        return usage_error(p, 1);
    }
    if (o.summarize)
        o.max_depth = 0;
    char *dot[] = { ".", NULL };
    char **ops = g.ind < argc ? argv + g.ind : dot;
    int nops = g.ind < argc ? argc - g.ind : 1;
    unsigned long long total = 0;
    int status = 0;
    for (int i = 0; i < nops; i++) {
        unsigned long long bytes;
        int r = du_walk(p, &o, ops[i], 0, &bytes);
        if (r == SH_STATUS_PIPE)
            return r;
        status |= r;
        total += bytes;
    }
    if (o.total && du_line(p, &o, total, "total") < 0)
        return SH_STATUS_PIPE;
    return status;
}

/* ---- realpath ---------------------------------------------------------- */

/* Appends one component to a canonical absolute path being built. */
static int canon_push(sh_buf *b, const char *comp, size_t n)
{
    if (n == 0 || (n == 1 && comp[0] == '.'))
        return 0;
    if (n == 2 && comp[0] == '.' && comp[1] == '.') {
        while (b->len > 1 && b->data[b->len - 1] != '/')
            b->len--;
        if (b->len > 1)
            b->len--;
        return 0;
    }
    if (b->len > 1 && sh_buf_addc(b, '/') < 0)
        return -1;
    return sh_buf_add(b, comp, n);
}

/* The canonical absolute form of path: symbolic links resolved unless
 * no_links; missing components are an error as `must` says (0: all but the
 * last must exist, 1: all, 2: none). A new string, or NULL with errno set. */
static char *canonicalize(sh_proc *p, const char *path, int must, int no_links)
{
    char *full = resolve(p, path);
    if (!full)
        return NULL;
    sh_buf out = { 0 }, rest = { 0 };
    int links = 0, err = 0, missing = 0;
    err |= sh_buf_addc(&out, '/');
    err |= sh_buf_adds(&rest, full);
    free(full);
    size_t pos = 0;
    while (!err && pos < rest.len) {
        char *r = sh_buf_cstr(&rest);
        while (r[pos] == '/')
            pos++;
        size_t start = pos;
        while (pos < rest.len && r[pos] != '/')
            pos++;
        if (pos == start)
            break;
        size_t keep = out.len;
        if (canon_push(&out, r + start, pos - start) < 0) {
            err = ENOMEM;
            break;
        }
        size_t clen = pos - start;
        int dots = r[start] == '.' && (clen == 1 || (clen == 2 && r[start + 1] == '.'));
        if (no_links || dots)
            continue;
        int last = 1;
        for (size_t k = pos; k < rest.len; k++)
            if (r[k] != '/')
                last = 0;
        struct stat st;
        const char *cur = sh_buf_cstr(&out);
        if (!cur) {
            err = ENOMEM;
            break;
        }
        if (missing || lstat(cur, &st) < 0) {
            if (!missing && errno != ENOENT) {
                err = errno;
                break;
            }
            if (must == 1 || (must == 0 && !last)) {
                err = ENOENT;
                break;
            }
            missing = 1;
            continue;
        }
        if (!S_ISLNK(st.st_mode)) {
            if (!last && !S_ISDIR(st.st_mode) && must != 2) {
                err = ENOTDIR;
                break;
            }
            continue;
        }
        if (++links > 40) {
            err = ELOOP;
            break;
        }
        char *target = path_readlink(p, cur);
        if (!target) {
            err = errno;
            break;
        }
        /* Replace the link by its text followed by the rest of the path. */
        sh_buf next = { 0 };
        err |= sh_buf_adds(&next, target) ? ENOMEM : 0;
        err |= sh_buf_addc(&next, '/') ? ENOMEM : 0;
        err |= sh_buf_add(&next, r + pos, rest.len - pos) ? ENOMEM : 0;
        if (target[0] == '/')
            out.len = 1;
        else
            out.len = keep > 1 ? keep : 1;
        free(target);
        sh_buf_free(&rest);
        rest = next;
        pos = 0;
    }
    sh_buf_free(&rest);
    if (err) {
        sh_buf_free(&out);
        errno = err;
        return NULL;
    }
    char *s = sh_buf_take(&out, NULL);
    if (!s)
        errno = ENOMEM;
    return s;
}

/* The path of `path` relative to the directory `base` (both canonical). */
static char *relative_path(const char *path, const char *base)
{
    size_t common = 0, i = 0;
    for (; path[i] && path[i] == base[i]; i++)
        if (path[i] == '/')
            common = i;
    if (!base[i] && (path[i] == '/' || !path[i]))
        common = i;
    else if (!path[i] && base[i] == '/')
        common = i;
    if (strcmp(base, "/") == 0)
        common = 0;
    sh_buf b = { 0 };
    int err = 0;
    for (const char *s = base + common; *s; s++)
        if (*s == '/')
            err |= sh_buf_adds(&b, b.len ? "/.." : "..");
    const char *tail = path + common;
    while (*tail == '/')
        tail++;
    if (*tail) {
        if (b.len)
            err |= sh_buf_addc(&b, '/');
        err |= sh_buf_adds(&b, tail);
    }
    if (!b.len)
        err |= sh_buf_addc(&b, '.');
    if (err) {
        sh_buf_free(&b);
        return NULL;
    }
    return sh_buf_take(&b, NULL);
}

static int realpath_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "canonicalize-existing", 0, 'e' }, { "canonicalize-missing", 0, 'm' },
        { "no-symlinks", 0, 's' }, { "strip", 0, 's' }, { "quiet", 0, 'q' }, { "zero", 0, 'z' },
        { "relative-to", 1, 'R' }, { "logical", 0, 'L' }, { "physical", 0, 'P' }, { NULL, 0, 0 },
    };
    sh_opt g = { 1, 0, NULL };
    int c, must = 0, no_links = 0, quiet = 0;
    char end = '\n';
    const char *rel = NULL;
    while ((c = sh_getopt(p, &g, argc, argv, "emsqzLP", longs)) != -1) {
        switch (c) {
        case 'e': must = 1; break;
        case 'm': must = 2; break;
        case 's': no_links = 1; break;
        case 'q': quiet = 1; break;
        case 'z': end = '\0'; break;
        case 'R': rel = g.arg; break;
        case 'L': case 'P': break;
        default: return usage_error(p, 1);
        }
    }
    if (g.ind >= argc) {
        return missing_operand(p);
    }
    char *base = NULL;
    if (rel && !(base = canonicalize(p, rel, must, no_links))) {
        sh_err(p, "%s: %s", rel, strerror(errno));
        return 1;
    }
    int status = 0;
    for (int i = g.ind; i < argc; i++) {
        char *r = canonicalize(p, argv[i], must, no_links);
        if (!r) {
            if (!quiet)
                sh_err(p, "%s: %s", argv[i], strerror(errno));
            status = 1;
            continue;
        }
        if (base) {
            char *rp = relative_path(r, base);
            free(r);
            if (!(r = rp)) {
                free(base);
                return sh_oom(p);
            }
        }
        int w = sh_outs(p, r) | sh_outc(p, end);
        free(r);
        if (w < 0) {
            free(base);
            return SH_STATUS_PIPE;
        }
    }
    free(base);
    return status;
}

/* ---- cp, mv ------------------------------------------------------------ */

typedef struct cp_opts {
    int recursive, links_as_links, preserve, force, no_clobber, verbose, update;
    int deref_all;   /* -L: every symbolic link is followed */
    size_t *answer;  /* -i: how much of standard input answers used; NULL without -i */
    int follow_args; /* -H or no -R: command-line symlinks are followed */
    const char *verb; /* "cp" wording or "mv" wording of -v lines */
} cp_opts;

/* Copies a regular file's bytes from src to dst (created or truncated). */
static int copy_bytes(sh_proc *p, const cp_opts *o, const char *src, const char *dst,
                      mode_t mode)
{
    int in = path_open(p, src, O_RDONLY, 0);
    if (in < 0) {
        sh_err(p, "cannot open '%s' for reading: %s", src, strerror(errno));
        return 1;
    }
    int out = path_open(p, dst, O_WRONLY | O_CREAT | O_TRUNC, mode & 0777);
    if (out < 0 && o->force && errno != ENOENT && path_call(p, dst, unlink) == 0)
        out = path_open(p, dst, O_WRONLY | O_CREAT | O_TRUNC, mode & 0777);
    if (out < 0) {
        sh_err(p, "cannot create regular file '%s': %s", dst, strerror(errno));
        close(in);
        return 1;
    }
    char buf[65536];
    int status = 0;
    for (;;) {
        ssize_t n = read(in, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            sh_err(p, "error reading '%s': %s", src, strerror(errno));
            status = 1;
            break;
        }
        if (n == 0)
            break;
        sh_stream s = { .fd = out };
        if (sh_write(&s, buf, (size_t)n) < 0) {
            sh_err(p, "error writing '%s': %s", dst, strerror(errno));
            status = 1;
            break;
        }
    }
    close(in);
    if (close(out) < 0 && status == 0) {
        sh_err(p, "error writing '%s': %s", dst, strerror(errno));
        status = 1;
    }
    return status;
}

/* Gives dst the times (and, where there are permissions, the mode) of src. */
static void copy_attributes(sh_proc *p, const struct stat *st, const char *dst)
{
    struct timespec ts[2] = { st->st_atim, st->st_mtim };
    path_utimes(p, dst, ts, S_ISLNK(st->st_mode));
    if (!S_ISLNK(st->st_mode))
        path_chmod(p, dst, st->st_mode & 07777);
}

/* Whether dst is src or lies inside it (both canonicalised). */
static int is_inside(sh_proc *p, const char *src, const char *dst)
{
    char *a = canonicalize(p, src, 2, 0), *b = canonicalize(p, dst, 2, 0);
    int r = 0;
    if (a && b) {
        size_t n = strlen(a);
        r = strncmp(a, b, n) == 0 && (b[n] == '/' || b[n] == '\0' || strcmp(a, "/") == 0);
    }
    free(a);
    free(b);
    return r;
}

/* Copies src to dst: files, symbolic links and (with -r) directory trees.
 * top is set for command-line operands. Returns 0, 1 after an error. */
static int copy_tree(sh_proc *p, const cp_opts *o, const char *src, const char *dst, int top,
                     const ancestor *up)
{
    struct stat st, dst_st;
    int follow = o->deref_all ||
                 (!o->links_as_links && (!o->recursive || (top && o->follow_args)));
    if (path_stat(p, src, &st, follow) < 0) {
        sh_err(p, "cannot stat '%s': %s", src, strerror(errno));
        return 1;
    }
    int dst_exists = path_stat(p, dst, &dst_st, 0) == 0;
    if (dst_exists && st.st_dev == dst_st.st_dev && st.st_ino == dst_st.st_ino) {
        sh_err(p, "'%s' and '%s' are the same file", src, dst);
        return 1;
    }
    if (S_ISDIR(st.st_mode)) {
        if (!o->recursive) {
            sh_err(p, "-r not specified; omitting directory '%s'", src);
            return 1;
        }
        if (in_ancestors(up, &st)) {
            sh_err(p, "%s: file system loop detected; not copied", src);
            return 1;
        }
        if (top && is_inside(p, src, dst)) {
            sh_err(p, "cannot copy a directory, '%s', into itself, '%s'", src, dst);
            return 1;
        }
        if (dst_exists && !S_ISDIR(dst_st.st_mode)) {
            sh_err(p, "cannot overwrite non-directory '%s' with directory '%s'", dst, src);
            return 1;
        }
        if (!dst_exists) {
            if (path_mkdir(p, dst, (st.st_mode & 0777) | 0700) < 0) {
                sh_err(p, "cannot create directory '%s': %s", dst, strerror(errno));
                return 1;
            }
            if (o->verbose && sh_printf(p, "'%s' -> '%s'\n", src, dst) < 0)
                return 1;
        }
        name_list l;
        if (read_dir(p, src, &l) < 0) {
            sh_err(p, "cannot access '%s': %s", src, strerror(errno));
            return 1;
        }
        int status = 0;
        for (size_t i = 0; i < l.n && !p->out->broken; i++) {
            char *s = path_join(src, l.v[i]), *d = s ? path_join(dst, l.v[i]) : NULL;
            if (!d) {
                free(s);
                name_list_free(&l);
                return sh_oom(p);
            }
            ancestor here = { st.st_dev, st.st_ino, up };
            status |= copy_tree(p, o, s, d, 0, &here);
            free(s);
            free(d);
        }
        name_list_free(&l);
        if (o->preserve)
            copy_attributes(p, &st, dst);
        else if (!dst_exists)
            path_chmod(p, dst, st.st_mode & 0777);
        return status;
    }
    if (dst_exists) {
        if (o->no_clobber)
            return 0;
        if (o->answer && !ask(p, o->answer, "overwrite '%s'?%s ", dst, ""))
            return 0;
        if (o->update && dst_st.st_mtim.tv_sec > st.st_mtim.tv_sec)
            return 0;
        if (S_ISDIR(dst_st.st_mode)) {
            sh_err(p, "cannot overwrite directory '%s' with non-directory", dst);
            return 1;
        }
    }
    int status;
    if (S_ISLNK(st.st_mode)) {
        char *target = path_readlink(p, src);
        if (!target) {
            sh_err(p, "cannot read symbolic link '%s': %s", src, strerror(errno));
            return 1;
        }
        if (dst_exists)
            path_call(p, dst, unlink);
        status = 0;
        if (path_symlink(p, target, dst) < 0) {
            sh_err(p, "cannot create symbolic link '%s': %s", dst, strerror(errno));
            status = 1;
        }
        free(target);
    } else if (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode)) {
        /* A character device (the sandbox's /dev/null) is copied as what
           reading it gives, as GNU cp does. */
        status = copy_bytes(p, o, src, dst, S_ISREG(st.st_mode) ? st.st_mode : S_IFREG | 0644);
    } else {
        sh_err(p, "cannot copy special file '%s'", src);
        return 1;
    }
    if (status == 0 && o->preserve)
        copy_attributes(p, &st, dst);
    if (status == 0 && o->verbose)
        sh_printf(p, "'%s' -> '%s'\n", src, dst);
    return status;
}

/* Splits cp/mv operands into sources and a destination: a directory target
 * (into which sources go by their last name) or a single target name. Returns
 * 0, or 1 after a usage error. */
static int target_operands(sh_proc *p, int n, char **ops, const char **target_dir,
                           int no_target, int *nsrc)
{
    if (*target_dir) {
        struct stat st;
        int r = path_stat(p, *target_dir, &st, 1);
        if (r < 0 || !S_ISDIR(st.st_mode)) {
            sh_err(p, "target directory '%s': %s", *target_dir, strerror(r < 0 ? errno : ENOTDIR));
            return 1;
        }
        if (n < 1) {
            sh_err(p, "missing file operand");
            return usage_error(p, 1);
        }
        *nsrc = n;
        return 0;
    }
    if (n < 1) {
        sh_err(p, "missing file operand");
        return usage_error(p, 1);
    }
    if (n == 1) {
        sh_err(p, "missing destination file operand after '%s'", ops[0]);
        return usage_error(p, 1);
    }
    struct stat st;
    int isdir = path_stat(p, ops[n - 1], &st, 1) == 0 && S_ISDIR(st.st_mode);
    if (no_target) {
        if (n > 2) {
            sh_err(p, "extra operand '%s'", ops[2]);
            return usage_error(p, 1);
        }
        *nsrc = 1;
        return 0;
    }
    if (isdir) {
        *target_dir = ops[n - 1];
    } else if (n > 2) {
        sh_err(p, "target '%s' is not a directory", ops[n - 1]);
        return 1;
    }
    *nsrc = n - 1;
    return 0;
}

/* The destination of one source: inside the target directory, or the target. */
static char *destination(const char *target_dir, const char *src, const char *target)
{
    if (!target_dir)
        return strdup(target);
    char *b = base_name(src);
    char *d = b ? path_join(target_dir, b) : NULL;
    free(b);
    return d;
}

static int cp_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "recursive", 0, 'r' }, { "archive", 0, 'a' }, { "force", 0, 'f' },
        { "no-clobber", 0, 'n' }, { "verbose", 0, 'v' }, { "update", 0, 'u' },
        { "no-dereference", 0, 'P' }, { "dereference", 0, 'L' },
        { "target-directory", 1, 't' }, { "no-target-directory", 0, 'T' },
        { "preserve", 2, 'p' }, { "interactive", 0, 'i' }, { NULL, 0, 0 },
    };
    cp_opts o = { .verb = "cp" };
    size_t answer = 0;
    sh_opt g = { 1, 0, NULL };
    int c, no_target = 0, deref = 0;
    const char *target_dir = NULL;
    while ((c = sh_getopt(p, &g, argc, argv, "rRafnvuPLdpt:THi", longs)) != -1) {
        switch (c) {
        case 'r': case 'R': o.recursive = 1; break;
        case 'a': o.recursive = o.links_as_links = o.preserve = 1; break;
        case 'd': case 'P': o.links_as_links = 1; break;
        case 'L': deref = 1; break;
        case 'H': o.follow_args = 1; break;
        case 'p': o.preserve = 1; break;
        case 'f': o.force = 1; o.no_clobber = 0; break;
        case 'n': o.no_clobber = 1; o.answer = NULL; break;
        case 'i': o.answer = &answer; o.no_clobber = 0; break;
        case 'v': o.verbose = 1; break;
        case 'u': o.update = 1; break;
        case 't': target_dir = g.arg; break;
        case 'T': no_target = 1; break;
        default: return usage_error(p, 1);
        }
    }
    if (deref) {
        o.links_as_links = 0;
        o.deref_all = 1;
    }
    int n = argc - g.ind, nsrc;
    char **ops = argv + g.ind;
    int r = target_operands(p, n, ops, &target_dir, no_target, &nsrc);
    if (r)
        return r;
    int status = 0;
    for (int i = 0; i < nsrc && !p->out->broken; i++) {
        char *dst = destination(target_dir, ops[i], ops[n - 1]);
        if (!dst)
            return sh_oom(p);
        status |= copy_tree(p, &o, ops[i], dst, 1, NULL);
        free(dst);
    }
    return p->out->broken ? SH_STATUS_PIPE : status;
}

/* Removes a tree after mv copied it across filesystems. */
static int remove_tree(sh_proc *p, const char *path)
{
    rm_opts o = { .force = 1, .recursive = 1 };
    return rm_path(p, &o, path);
}

static int mv_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "force", 0, 'f' }, { "no-clobber", 0, 'n' }, { "verbose", 0, 'v' },
        { "update", 0, 'u' }, { "target-directory", 1, 't' },
        { "no-target-directory", 0, 'T' }, { "interactive", 0, 'i' }, { NULL, 0, 0 },
    };
    sh_opt g = { 1, 0, NULL };
    int c, no_target = 0, no_clobber = 0, verbose = 0, update = 0, interactive = 0;
    size_t answer = 0;
    const char *target_dir = NULL;
    while ((c = sh_getopt(p, &g, argc, argv, "fnvut:Ti", longs)) != -1) {
        switch (c) {
        case 'f': no_clobber = interactive = 0; break;
        case 'i': interactive = 1; no_clobber = 0; break;
        case 'n': no_clobber = 1; interactive = 0; break;
        case 'v': verbose = 1; break;
        case 'u': update = 1; break;
        case 't': target_dir = g.arg; break;
        case 'T': no_target = 1; break;
        default: return usage_error(p, 1);
        }
    }
    int n = argc - g.ind, nsrc;
    char **ops = argv + g.ind;
    int r = target_operands(p, n, ops, &target_dir, no_target, &nsrc);
    if (r)
        return r;
    int status = 0;
    for (int i = 0; i < nsrc; i++) {
        struct stat st, dst_st;
        if (path_stat(p, ops[i], &st, 0) < 0) {
            sh_err(p, "cannot stat '%s': %s", ops[i], strerror(errno));
            status = 1;
            continue;
        }
        char *dst = destination(target_dir, ops[i], ops[n - 1]);
        if (!dst)
            return sh_oom(p);
        int exists = path_stat(p, dst, &dst_st, 0) == 0;
        if (exists && (no_clobber || (update && dst_st.st_mtim.tv_sec >= st.st_mtim.tv_sec) ||
                       (interactive && !ask(p, &answer, "overwrite '%s'?%s ", dst, "")))) {
            free(dst);
            continue;
        }
        if (exists && st.st_dev == dst_st.st_dev && st.st_ino == dst_st.st_ino) {
            sh_err(p, "'%s' and '%s' are the same file", ops[i], dst);
            status = 1;
        } else if (exists && S_ISDIR(dst_st.st_mode) && !S_ISDIR(st.st_mode)) {
            sh_err(p, "cannot overwrite directory '%s' with non-directory", dst);
            status = 1;
        } else if (S_ISDIR(st.st_mode) && is_inside(p, ops[i], dst)) {
            sh_err(p, "cannot move '%s' to a subdirectory of itself, '%s'", ops[i], dst);
            status = 1;
        } else if (path_call2(p, ops[i], dst, rename) == 0) {
            if (verbose && sh_printf(p, "renamed '%s' -> '%s'\n", ops[i], dst) < 0) {
                free(dst);
                return SH_STATUS_PIPE;
            }
        } else if (errno == EXDEV) {
            cp_opts co = { .recursive = 1, .links_as_links = 1, .preserve = 1, .force = 1 };
            if (copy_tree(p, &co, ops[i], dst, 1, NULL) == 0 && remove_tree(p, ops[i]) == 0) {
                if (verbose)
                    sh_printf(p, "renamed '%s' -> '%s'\n", ops[i], dst);
            } else {
                status = 1;
            }
        } else {
            sh_err(p, "cannot move '%s' to '%s': %s", ops[i], dst, strerror(errno));
            status = 1;
        }
        free(dst);
    }
    return p->out->broken ? SH_STATUS_PIPE : status;
}

/* ---- find -------------------------------------------------------------- */

enum find_kind {
    F_AND, F_OR, F_NOT, F_TRUE, F_FALSE, F_NAME, F_PATH, F_LNAME, F_REGEX, F_TYPE,
    F_SIZE, F_EMPTY, F_NEWER, F_AGE, F_PERM, F_LINKS, F_ACCESS, F_PRINT, F_PRINT0,
    F_PRINTF, F_DELETE, F_EXEC, F_PRUNE, F_QUIT,
};

/* One node of a find expression. Nodes are chained through `next` so that they
 * can all be freed; -exec ... + nodes keep their pending paths. */
typedef struct find_node {
    enum find_kind kind;
    struct find_node *a, *b, *next;
    const char *str;     /* pattern, type letters, printf format */
    int flags;           /* fnmatch flags; access mode; age unit in seconds */
    char cmp;            /* '+', '-' or '=' for numeric tests; '-'/'/' for -perm */
    char which;          /* 'a', 'c' or 'm' time for age tests */
    long long num;
    unsigned long long unit;
    struct timespec when;
    regex_t re;
    int has_re;
    char **cmd;          /* -exec: the command words before ";" or "+" */
    int ncmd, plus;
    char **pending;      /* -exec +: paths waiting to be run */
    size_t npending, pending_bytes;
} find_node;

typedef struct find_ctx {
    sh_proc *p;
    char **args;
    int nargs, pos;
    find_node *nodes;
    long long maxdepth, mindepth;
    int depth_first, follow, follow_args, has_action, regex_type;
    time_t now;
    int status, quit, prune, error;
    const char *start; /* the starting point being walked, for %P and %H */
} find_ctx;

/* One file as the expression sees it. */
typedef struct find_file {
    const char *path, *name;
    struct stat st;
    long long depth;
} find_file;

static find_node *find_new(find_ctx *c, enum find_kind kind)
{
    find_node *n = calloc(1, sizeof(*n));
    if (!n) {
        if (!c->error)
            sh_oom(c->p);
        c->error = 1;
        return NULL;
    }
    n->kind = kind;
    n->next = c->nodes;
    c->nodes = n;
    return n;
}

static void find_free(find_ctx *c)
{
    while (c->nodes) {
        find_node *n = c->nodes;
        c->nodes = n->next;
        if (n->has_re)
            regfree(&n->re);
        free(n->cmd);
        for (size_t i = 0; i < n->npending; i++)
            free(n->pending[i]);
        free(n->pending);
        free(n);
    }
}

/* Reports a parse error once. */
static find_node *find_fail(find_ctx *c, const char *fmt, const char *arg)
{
    if (!c->error)
        sh_err(c->p, fmt, arg);
    c->error = 1;
    return NULL;
}

/* Takes the argument of a primary, or reports it missing. */
static const char *find_arg(find_ctx *c, const char *primary)
{
    if (c->pos >= c->nargs) {
        find_fail(c, "missing argument to `%s'", primary);
        return NULL;
    }
    return c->args[c->pos++];
}

/* Parses "+N", "-N" or "N" with an optional unit letter for -size. */
static int find_number(find_node *n, const char *s, int size_units)
{
    n->cmp = '=';
    if (*s == '+' || *s == '-')
        n->cmp = *s++;
    if (*s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    n->num = strtoll(s, &end, 10);
    if (errno)
        return -1;
    n->unit = 1;
    if (size_units) {
        n->unit = 512;
        if (*end) {
            const char *units = "cwbkMG";
            static const unsigned long long mult[] = { 1, 2, 512, 1024, 1 << 20, 1 << 30 };
            const char *k = strchr(units, *end);
            if (!k)
                return -1;
            n->unit = mult[k - units];
            end++;
        }
    }
    return *end ? -1 : 0;
}

/* Rewrites an Emacs-syntax regex (find's default) as a POSIX ERE. */
static char *emacs_to_ere(const char *s)
{
    sh_buf b = { 0 };
    int err = 0;
    for (; *s && !err; s++) {
        if (*s == '[') {
            /* As in GNU find's default syntax, which knows no [:class:], the
               expression ends at the first ']' after its start ("[]" and "[^]"
               put a ']' in it): not sh_rx_bracket. */
            const char *e = s + 1;
            if (*e == '^')
                e++;
            if (*e == ']')
                e++;
            while (*e && *e != ']')
                e++;
            if (!*e) {
                err |= sh_buf_adds(&b, s);
                break;
            }
            err |= sh_buf_add(&b, s, (size_t)(e - s + 1));
            s = e;
        } else if (*s == '\\' && s[1] && strchr("()|{}", s[1])) {
            err |= sh_buf_addc(&b, *++s);
        } else if (*s == '\\' && s[1]) {
            err |= sh_buf_add(&b, s, 2);
            s++;
        } else if (strchr("()|{}", *s)) {
            err |= sh_buf_addc(&b, '\\') | sh_buf_addc(&b, *s);
        } else {
            err |= sh_buf_addc(&b, *s);
        }
    }
    if (err) {
        sh_buf_free(&b);
        return NULL;
    }
    return sh_buf_take(&b, NULL);
}

/* Compiles a -regex pattern so that it must match the whole path. */
static find_node *find_regex(find_ctx *c, find_node *n, const char *pat, int icase)
{
    char *ere = c->regex_type == 'e' ? emacs_to_ere(pat) : strdup(pat);
    sh_buf b = { 0 };
    int basic = c->regex_type == 'b';
    if (!ere || sh_buf_adds(&b, basic ? "^\\(" : "^(") || sh_buf_adds(&b, ere) ||
        sh_buf_adds(&b, basic ? "\\)$" : ")$")) {
        free(ere);
        sh_buf_free(&b);
        sh_oom(c->p);
        c->error = 1;
        return NULL;
    }
    free(ere);
    int flags = (basic ? 0 : REG_EXTENDED) | (icase ? REG_ICASE : 0) | REG_NOSUB;
    int r = regcomp(&n->re, sh_buf_cstr(&b), flags);
    sh_buf_free(&b);
    if (r != 0)
        return find_fail(c, "invalid regular expression '%s'", pat);
    n->has_re = 1;
    return n;
}

/* Collects the words of -exec up to ";" or "{} +". */
static find_node *find_exec(find_ctx *c, find_node *n, const char *primary)
{
    int start = c->pos;
    while (c->pos < c->nargs) {
        const char *a = c->args[c->pos];
        if (strcmp(a, ";") == 0)
            break;
        if (strcmp(a, "+") == 0 && c->pos > start && strcmp(c->args[c->pos - 1], "{}") == 0) {
            n->plus = 1;
            break;
        }
        c->pos++;
    }
    if (c->pos >= c->nargs || c->pos == start)
        return find_fail(c, "missing argument to `%s'", primary);
    n->ncmd = c->pos - start;
    n->cmd = malloc(sizeof(char *) * ((size_t)n->ncmd + 1));
    if (!n->cmd) {
        sh_oom(c->p);
        c->error = 1;
        return NULL;
    }
    for (int i = 0; i < n->ncmd; i++)
        n->cmd[i] = c->args[start + i];
    n->cmd[n->ncmd] = NULL;
    c->pos++;
    c->has_action = 1;
    return n;
}

static find_node *find_parse_or(find_ctx *c);

/* Parses one primary (a test, an action or an option). */
static find_node *find_primary(find_ctx *c)
{
    const char *t = c->args[c->pos++];
    const char *arg;
    find_node *n;
    if (t[0] != '-')
        return find_fail(c, "paths must precede expression: `%s'", t);
    static const char *const options[] = { "-depth", "-d", "-xdev", "-mount", "-noleaf",
                                           "-ignore_readdir_race", "-nowarn", "-warn",
                                           "-follow", NULL };
    for (int i = 0; options[i]; i++) {
        if (strcmp(t, options[i]) == 0) {
            if (t[1] == 'd')
                c->depth_first = 1;
            if (strcmp(t, "-follow") == 0)
                c->follow = 1;
            return find_new(c, F_TRUE);
        }
    }
    if (strcmp(t, "-maxdepth") == 0 || strcmp(t, "-mindepth") == 0) {
        if (!(arg = find_arg(c, t)))
            return NULL;
        char *end;
        long long v = strtoll(arg, &end, 10);
        if (!*arg || *end || v < 0)
            return find_fail(c, "Expected a positive decimal integer argument to %s", t);
        *(t[2] == 'a' ? &c->maxdepth : &c->mindepth) = v;
        return find_new(c, F_TRUE);
    }
    if (strcmp(t, "-regextype") == 0) {
        if (!(arg = find_arg(c, t)))
            return NULL;
        if (strcmp(arg, "emacs") == 0 || strcmp(arg, "findutils-default") == 0)
            c->regex_type = 'e';
        else if (strcmp(arg, "posix-basic") == 0 || strcmp(arg, "sed") == 0 ||
                 strcmp(arg, "grep") == 0 || strcmp(arg, "ed") == 0)
            c->regex_type = 'b';
        else if (strstr(arg, "extended") || strstr(arg, "egrep") || strcmp(arg, "awk") == 0)
            c->regex_type = 'x';
        else
            return find_fail(c, "Unknown regular expression type '%s'", arg);
        return find_new(c, F_TRUE);
    }
    if (strcmp(t, "-true") == 0 || strcmp(t, "-false") == 0)
        return find_new(c, t[1] == 't' ? F_TRUE : F_FALSE);
    if (strcmp(t, "-name") == 0 || strcmp(t, "-iname") == 0 || strcmp(t, "-path") == 0 ||
        strcmp(t, "-ipath") == 0 || strcmp(t, "-wholename") == 0 ||
        strcmp(t, "-iwholename") == 0 || strcmp(t, "-lname") == 0 || strcmp(t, "-ilname") == 0) {
        if (!(arg = find_arg(c, t)) || !(n = find_new(c, F_NAME)))
            return NULL;
        int icase = t[1] == 'i';
        const char *kind = t + 1 + icase;
        n->kind = kind[0] == 'n' ? F_NAME : kind[0] == 'l' ? F_LNAME : F_PATH;
        n->str = arg;
        n->flags = icase ? FNM_CASEFOLD : 0;
        return n;
    }
    if (strcmp(t, "-regex") == 0 || strcmp(t, "-iregex") == 0) {
        if (!(arg = find_arg(c, t)) || !(n = find_new(c, F_REGEX)))
            return NULL;
        return find_regex(c, n, arg, t[1] == 'i');
    }
    if (strcmp(t, "-type") == 0) {
        if (!(arg = find_arg(c, t)) || !(n = find_new(c, F_TYPE)))
            return NULL;
        for (const char *s = arg; *s; s++) {
            if (!strchr("fdlpsbc", *s) || (s[1] && s[1] != ','))
                return find_fail(c, "Unknown argument to -type: %s", arg);
            if (s[1] == ',')
                s++;
        }
        if (!*arg)
            return find_fail(c, "Arguments to -type should contain at least one letter%s", "");
        n->str = arg;
        return n;
    }
    if (strcmp(t, "-size") == 0 || strcmp(t, "-links") == 0) {
        int size = t[1] == 's';
        if (!(arg = find_arg(c, t)) || !(n = find_new(c, size ? F_SIZE : F_LINKS)))
            return NULL;
        if (find_number(n, arg, size) < 0)
            return find_fail(c, "invalid argument `%s' to `-size'", arg);
        return n;
    }
    if ((t[1] == 'a' || t[1] == 'c' || t[1] == 'm') &&
        (strcmp(t + 2, "time") == 0 || strcmp(t + 2, "min") == 0)) {
        if (!(arg = find_arg(c, t)) || !(n = find_new(c, F_AGE)))
            return NULL;
        if (find_number(n, arg, 0) < 0)
            return find_fail(c, "invalid argument `%s' to `-mtime'", arg);
        n->which = t[1];
        n->flags = t[2] == 't' ? 86400 : 60;
        return n;
    }
    if (strcmp(t, "-newer") == 0 || strcmp(t, "-newermt") == 0) {
        if (!(arg = find_arg(c, t)) || !(n = find_new(c, F_NEWER)))
            return NULL;
        struct stat st;
        if (t[6] == 'm') {
            if (parse_date(arg, &n->when) < 0)
                return find_fail(c, "Cannot obtain time from date '%s'", arg);
        } else if (path_stat(c->p, arg, &st, 1) < 0) {
            sh_err(c->p, "'%s': %s", arg, strerror(errno));
            c->error = 1;
            return NULL;
        } else {
            n->when = st.st_mtim;
        }
        return n;
    }
    if (strcmp(t, "-perm") == 0) {
        if (!(arg = find_arg(c, t)) || !(n = find_new(c, F_PERM)))
            return NULL;
        n->cmp = '=';
        const char *m = arg;
        if (*m == '-' || *m == '/')
            n->cmp = *m++;
        mode_t mode;
        if (parse_octal_mode(m, &mode) < 0)
            return find_fail(c, "invalid mode `%s'", arg);
        n->num = mode;
        return n;
    }
    if (strcmp(t, "-readable") == 0 || strcmp(t, "-writable") == 0 ||
        strcmp(t, "-executable") == 0) {
        if (!(n = find_new(c, F_ACCESS)))
            return NULL;
        n->flags = t[1] == 'r' ? R_OK : t[1] == 'w' ? W_OK : X_OK;
        return n;
    }
    if (strcmp(t, "-empty") == 0)
        return find_new(c, F_EMPTY);
    if (strcmp(t, "-prune") == 0)
        return find_new(c, F_PRUNE);
    if (strcmp(t, "-quit") == 0)
        return find_new(c, F_QUIT);
    if (strcmp(t, "-print") == 0 || strcmp(t, "-print0") == 0) {
        c->has_action = 1;
        return find_new(c, t[6] == '0' ? F_PRINT0 : F_PRINT);
    }
    if (strcmp(t, "-printf") == 0) {
        if (!(arg = find_arg(c, t)) || !(n = find_new(c, F_PRINTF)))
            return NULL;
        c->has_action = 1;
        n->str = arg;
        size_t len = strlen(arg), run = 0;
        while (run < len && arg[len - 1 - run] == '%')
            run++;
        if (run % 2)
            return find_fail(c, "error: %s at end of format string", "%");
        return n;
    }
    if (strcmp(t, "-delete") == 0) {
        c->has_action = 1;
        c->depth_first = 1;
        return find_new(c, F_DELETE);
    }
    if (strcmp(t, "-exec") == 0) {
        if (!(n = find_new(c, F_EXEC)))
            return NULL;
        return find_exec(c, n, t);
    }
    return find_fail(c, "unknown predicate `%s'", t);
}

/* Parses "! X", "( X )" or a primary. */
static find_node *find_parse_not(find_ctx *c)
{
    if (c->pos >= c->nargs)
        return find_fail(c, "invalid expression%s", "");
    const char *t = c->args[c->pos];
    if (strcmp(t, "!") == 0 || strcmp(t, "-not") == 0) {
        c->pos++;
        find_node *x = find_parse_not(c);
        find_node *n = x ? find_new(c, F_NOT) : NULL;
        if (n)
            n->a = x;
        return n;
    }
    if (strcmp(t, "(") == 0) {
        c->pos++;
        find_node *x = find_parse_or(c);
        if (!x)
            return NULL;
        if (c->pos >= c->nargs || strcmp(c->args[c->pos], ")") != 0)
            return find_fail(c, "invalid expression; I was expecting to find a ')' somewhere "
                                "but did not see one.%s", "");
        c->pos++;
        return x;
    }
    if (strcmp(t, ")") == 0 || strcmp(t, "-o") == 0 || strcmp(t, "-or") == 0 ||
        strcmp(t, "-a") == 0 || strcmp(t, "-and") == 0)
        return find_fail(c, "invalid expression; you have used a binary operator '%s' with "
                            "nothing before it.", t);
    return find_primary(c);
}

/* Parses a conjunction: primaries side by side or joined by -a. */
/* A node of the given kind over left and right; NULL when right is (a parse
 * error, already reported) or out of memory. */
static find_node *find_join(find_ctx *c, enum find_kind kind, find_node *left, find_node *right)
{
    find_node *n = right ? find_new(c, kind) : NULL;
    if (n) {
        n->a = left;
        n->b = right;
    }
    return n;
}

static find_node *find_parse_and(find_ctx *c)
{
    find_node *left = find_parse_not(c);
    while (left && c->pos < c->nargs) {
        const char *t = c->args[c->pos];
        if (strcmp(t, ")") == 0 || strcmp(t, "-o") == 0 || strcmp(t, "-or") == 0)
            break;
        if (strcmp(t, "-a") == 0 || strcmp(t, "-and") == 0)
            c->pos++;
        left = find_join(c, F_AND, left, find_parse_not(c));
    }
    return left;
}

static find_node *find_parse_or(find_ctx *c)
{
    find_node *left = find_parse_and(c);
    while (left && c->pos < c->nargs &&
           (strcmp(c->args[c->pos], "-o") == 0 || strcmp(c->args[c->pos], "-or") == 0)) {
        c->pos++;
        left = find_join(c, F_OR, left, find_parse_and(c));
    }
    return left;
}

/* The type letter of a file as -type and %y name it. */
static char find_type_letter(mode_t m)
{
    return S_ISDIR(m) ? 'd' : S_ISLNK(m) ? 'l' : S_ISFIFO(m) ? 'p' : S_ISSOCK(m) ? 's'
         : S_ISCHR(m) ? 'c' : S_ISBLK(m) ? 'b' : 'f';
}

/* Whether a file is empty: a zero-length regular file or a directory with no
 * entries. */
static int find_is_empty(find_ctx *c, const find_file *f)
{
    if (S_ISREG(f->st.st_mode))
        return f->st.st_size == 0;
    if (!S_ISDIR(f->st.st_mode))
        return 0;
    name_list l;
    if (read_dir(c->p, f->path, &l) < 0)
        return 0;
    int empty = l.n == 0;
    name_list_free(&l);
    return empty;
}

/* Compares a number with a test's "+N", "-N" or "N". */
static int find_compare(const find_node *n, long long v)
{
    return n->cmp == '+' ? v > n->num : n->cmp == '-' ? v < n->num : v == n->num;
}

/* Runs a -exec command with argv words; returns whether it succeeded. */
static int find_run(find_ctx *c, char **words)
{
    int r = sh_run(c->p, words, NULL, "", 0);
    if (c->p->out->broken) {
        c->quit = 1;
        c->status = SH_STATUS_PIPE;
    }
    return r == 0;
}

/* Runs a pending -exec ... + batch. */
static void find_flush(find_ctx *c, find_node *n)
{
    if (n->npending == 0)
        return;
    char **words = malloc(sizeof(char *) * ((size_t)n->ncmd + n->npending + 1));
    if (!words) {
        sh_oom(c->p);
        c->status = 1;
    } else {
        int k = 0;
        for (int i = 0; i < n->ncmd - 1; i++)
            words[k++] = n->cmd[i];
        for (size_t i = 0; i < n->npending; i++)
            words[k++] = n->pending[i];
        words[k] = NULL;
        if (!find_run(c, words) && c->status == 0)
            c->status = 1;
        free(words);
    }
    for (size_t i = 0; i < n->npending; i++)
        free(n->pending[i]);
    n->npending = n->pending_bytes = 0;
}

/* -exec: runs the command now (";"), or queues the path ("+"). */
static int find_do_exec(find_ctx *c, find_node *n, const find_file *f)
{
    if (n->plus) {
        char **np = realloc(n->pending, sizeof(char *) * (n->npending + 1));
        char *copy = strdup(f->path);
        if (np)
            n->pending = np;
        if (!np || !copy) {
            free(copy);
            sh_oom(c->p);
            c->status = 1;
            return 1;
        }
        n->pending[n->npending++] = copy;
        n->pending_bytes += strlen(copy) + 1;
        if (n->npending >= 4096 || n->pending_bytes >= 128 * 1024)
            find_flush(c, n);
        return 1;
    }
    char **words = calloc((size_t)n->ncmd + 1, sizeof(char *));
    int ok = 0, err = 0;
    if (!words) {
        sh_oom(c->p);
        c->status = 1;
        return 0;
    }
    for (int i = 0; i < n->ncmd && !err; i++) {
        sh_buf b = { 0 };
        for (const char *s = n->cmd[i]; *s && !err; s++) {
            if (s[0] == '{' && s[1] == '}') {
                err |= sh_buf_adds(&b, f->path);
                s++;
            } else {
                err |= sh_buf_addc(&b, *s);
            }
        }
        words[i] = sh_buf_take(&b, NULL);
        err |= !words[i];
    }
    if (err) {
        sh_oom(c->p);
        c->status = 1;
    } else {
        ok = find_run(c, words);
    }
    for (int i = 0; i < n->ncmd; i++)
        free(words[i]);
    free(words);
    return ok;
}

/* The part of a path after the starting point, for %P. */
static const char *find_relative(const find_ctx *c, const find_file *f)
{
    size_t n = strlen(c->start);
    if (f->depth == 0 || strncmp(f->path, c->start, n) != 0)
        return "";
    const char *r = f->path + n;
    while (*r == '/')
        r++;
    return r;
}

/* Appends one -printf directive (flags and width already taken) for a file. */
static int find_directive(find_ctx *c, sh_buf *b, const char *spec, const char **fmt,
                          const find_file *f)
{
    char num[128];
    const char *s = num;
    char *owned = NULL;
    const struct stat *st = &f->st;
    switch (**fmt) {
    case 'p': s = f->path; break;
    case 'f': s = f->name; break;
    case 'h': {
        owned = dir_name(f->path);
        s = owned ? owned : "";
        if (strchr(f->path, '/') == NULL)
            s = ".";
        break;
    }
    case 'P': s = find_relative(c, f); break;
    case 'H': s = c->start; break;
    case 's': snprintf(num, sizeof(num), "%lld", (long long)st->st_size); break;
    case 'd': snprintf(num, sizeof(num), "%lld", f->depth); break;
    case 'y': num[0] = find_type_letter(st->st_mode); num[1] = '\0'; break;
    case 'm': snprintf(num, sizeof(num), "%o", (unsigned)(st->st_mode & 07777)); break;
    case 'M': mode_string(st->st_mode, num); break;
    case 'n': snprintf(num, sizeof(num), "%lu", (unsigned long)st->st_nlink); break;
    case 'i': snprintf(num, sizeof(num), "%llu", (unsigned long long)st->st_ino); break;
    case 'k':
        snprintf(num, sizeof(num), "%llu", ((unsigned long long)st->st_blocks + 1) / 2);
        break;
    case 'b': snprintf(num, sizeof(num), "%llu", (unsigned long long)st->st_blocks); break;
    case 'U': snprintf(num, sizeof(num), "%lu", (unsigned long)st->st_uid); break;
    case 'G': snprintf(num, sizeof(num), "%lu", (unsigned long)st->st_gid); break;
    case 'u': owner_name((unsigned long)st->st_uid, num, sizeof(num)); break;
    case 'g': owner_name((unsigned long)st->st_gid, num, sizeof(num)); break;
    case 'l':
        owned = S_ISLNK(st->st_mode) ? path_readlink(c->p, f->path) : NULL;
        s = owned ? owned : "";
        break;
    case 't': case 'T': case 'A': case 'C': {
        char kind = **fmt;
        const struct timespec *t = kind == 'A' ? &st->st_atim : kind == 'C' ? &st->st_ctim
                                                                             : &st->st_mtim;
        struct tm tm;
        time_t sec = t->tv_sec;
        gmtime_r(&sec, &tm);
        if (kind == 't') {
            char day[32], year[16];
            strftime(day, sizeof(day), "%a %b %e %H:%M:%S", &tm);
            strftime(year, sizeof(year), "%Y", &tm);
            snprintf(num, sizeof(num), "%s.%09ld0 %s", day, (long)t->tv_nsec, year);
            break;
        }
        char k = (*fmt)[1];
        if (!k)
            return sh_buf_addc(b, '%') | sh_buf_addc(b, kind);
        (*fmt)++;
        if (k == '@') {
            snprintf(num, sizeof(num), "%lld.%09ld0", (long long)sec, (long)t->tv_nsec);
        } else {
            char f2[3] = { '%', k, '\0' };
            if (!strchr("aAbBcdDeFgGhHIjmMnpSTuUVwWxXyYzZ+", k))
                return sh_buf_addc(b, '%') | sh_buf_addc(b, kind) | sh_buf_addc(b, k);
            if (k == '+')
                strftime(num, sizeof(num), "%Y-%m-%d+%H:%M:%S", &tm);
            else
                strftime(num, sizeof(num), f2, &tm);
        }
        break;
    }
    case '%': return sh_buf_addc(b, '%');
    default: return sh_buf_addc(b, '%') | sh_buf_addc(b, **fmt);
    }
    char f3[32];
    snprintf(f3, sizeof(f3), "%%%ss", spec);
    int r = sh_buf_addf(b, f3, s);
    free(owned);
    return r;
}

/* -printf: expands the format for one file. */
static int find_printf(find_ctx *c, const char *fmt, const find_file *f)
{
    sh_buf b = { 0 };
    int err = 0;
    for (const char *s = fmt; *s && !err; s++) {
        if (*s == '\\') {
            if (s[1] == 'c')
                break;
            s += backslash_escape(s + 1, &b, &err);
            continue;
        }
        if (*s != '%' || !s[1]) {
            err |= sh_buf_addc(&b, *s);
            continue;
        }
        char spec[16];
        size_t n = 0;
        s++;
        while (*s && strchr("-+ #0123456789.", *s) && n < sizeof(spec) - 1)
            spec[n++] = *s++;
        spec[n] = '\0';
        if (!*s)
            break;
        err |= find_directive(c, &b, spec, &s, f);
    }
    if (err) {
        sh_buf_free(&b);
        sh_oom(c->p);
        c->status = 1;
        return 1;
    }
    if (sh_out(c->p, b.data, b.len) < 0) {
        c->quit = 1;
        c->status = SH_STATUS_PIPE;
    }
    sh_buf_free(&b);
    return 1;
}

/* Evaluates the expression for one file. */
static int find_eval(find_ctx *c, find_node *n, const find_file *f)
{
    if (c->quit)
        return 0;
    switch (n->kind) {
    case F_AND: return find_eval(c, n->a, f) && find_eval(c, n->b, f);
    case F_OR: return find_eval(c, n->a, f) || find_eval(c, n->b, f);
    case F_NOT: return !find_eval(c, n->a, f);
    case F_TRUE: return 1;
    case F_FALSE: return 0;
    case F_NAME: return fnmatch(n->str, f->name, n->flags) == 0;
    case F_PATH: return fnmatch(n->str, f->path, n->flags) == 0;
    case F_LNAME: {
        if (!S_ISLNK(f->st.st_mode))
            return 0;
        char *t = path_readlink(c->p, f->path);
        int r = t && fnmatch(n->str, t, n->flags) == 0;
        free(t);
        return r;
    }
    case F_REGEX: return regexec(&n->re, f->path, 0, NULL, 0) == 0;
    case F_TYPE: return strchr(n->str, find_type_letter(f->st.st_mode)) != NULL;
    case F_SIZE: {
        long long size = (long long)f->st.st_size;
        long long units = (long long)(((unsigned long long)size + n->unit - 1) / n->unit);
        return find_compare(n, units);
    }
    case F_LINKS: return find_compare(n, (long long)f->st.st_nlink);
    case F_EMPTY: return find_is_empty(c, f);
    case F_NEWER: {
        const struct timespec *t = &f->st.st_mtim;
        return t->tv_sec > n->when.tv_sec ||
               (t->tv_sec == n->when.tv_sec && t->tv_nsec > n->when.tv_nsec);
    }
    case F_AGE: {
        time_t t = n->which == 'a' ? f->st.st_atim.tv_sec : n->which == 'c'
                 ? f->st.st_ctim.tv_sec : f->st.st_mtim.tv_sec;
        long long age = (long long)(c->now - t);
        long long units = age >= 0 ? age / n->flags : -((-age + n->flags - 1) / n->flags);
        return find_compare(n, units);
    }
    case F_PERM: {
        long long m = (long long)(f->st.st_mode & 07777);
        return n->cmp == '-' ? (m & n->num) == n->num
             : n->cmp == '/' ? (n->num == 0 || (m & n->num) != 0) : m == n->num;
    }
    case F_ACCESS: {
        char *full = resolve(c->p, f->path);
        int r = full && access(full, n->flags) == 0;
        free(full);
        return r;
    }
    case F_PRINT:
    case F_PRINT0:
        if (sh_outs(c->p, f->path) < 0 || sh_outc(c->p, n->kind == F_PRINT ? '\n' : '\0') < 0) {
            c->quit = 1;
            c->status = SH_STATUS_PIPE;
        }
        return 1;
    case F_PRINTF: return find_printf(c, n->str, f);
    case F_DELETE: {
        if (strcmp(f->path, ".") == 0)
            return 1;
        int r = path_call(c->p, f->path, S_ISDIR(f->st.st_mode) ? rmdir : unlink);
        if (r < 0) {
            sh_err(c->p, "cannot delete '%s': %s", f->path, strerror(errno));
            c->status = 1;
            return 0;
        }
        return 1;
    }
    case F_EXEC: return find_do_exec(c, n, f);
    case F_PRUNE:
        c->prune = 1;
        return 1;
    case F_QUIT:
        c->quit = 1;
        return 1;
    }
    return 0;
}

/* Visits a file and, for a directory, what lies below it. */
static void find_walk(find_ctx *c, find_node *expr, const char *path, const char *name,
                      long long depth, const ancestor *up)
{
    find_file f = { path, name, { 0 }, depth };
    int follow = c->follow || (depth == 0 && c->follow_args);
    /* A dangling link is still visited (as the link); a loop is an error. */
    if (path_stat(c->p, path, &f.st, follow) < 0 &&
        (!follow || errno != ENOENT || path_stat(c->p, path, &f.st, 0) < 0)) {
        sh_err(c->p, "'%s': %s", path, strerror(errno));
        c->status = 1;
        return;
    }
    if (S_ISDIR(f.st.st_mode) && in_ancestors(up, &f.st)) {
        sh_err(c->p, "File system loop detected; '%s' is part of the same file system loop.",
               path);
        c->status = 1;
        return;
    }
    c->prune = 0;
    int visit = depth >= c->mindepth;
    if (!c->depth_first && visit)
        find_eval(c, expr, &f);
    int descend = S_ISDIR(f.st.st_mode) && !c->quit && (c->maxdepth < 0 || depth < c->maxdepth) &&
                  (c->depth_first || !c->prune);
    ancestor here = { f.st.st_dev, f.st.st_ino, up };
    if (descend) {
        name_list l;
        if (read_dir(c->p, path, &l) < 0) {
            sh_err(c->p, "'%s': %s", path, strerror(errno));
            c->status = 1;
        } else {
            for (size_t i = 0; i < l.n && !c->quit; i++) {
                char *child = path_join(path, l.v[i]);
                if (!child) {
                    sh_oom(c->p);
                    c->status = 1;
                    c->quit = 1;
                    break;
                }
                find_walk(c, expr, child, l.v[i], depth + 1, &here);
                free(child);
            }
            name_list_free(&l);
        }
    }
    if (c->depth_first && visit && !c->quit)
        find_eval(c, expr, &f);
}

static int find_main(sh_proc *p, int argc, char **argv)
{
    find_ctx c = { .p = p, .maxdepth = -1, .now = time(NULL), .regex_type = 'e' };
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "-L") == 0)
            c.follow = 1;
        else if (strcmp(argv[i], "-H") == 0)
            c.follow_args = 1;
        else if (strcmp(argv[i], "-P") == 0)
            c.follow = c.follow_args = 0;
        else
            break;
    }
    int first_path = i;
    while (i < argc && !(argv[i][0] == '-' && argv[i][1]) && strcmp(argv[i], "!") != 0 &&
           strcmp(argv[i], "(") != 0)
        i++;
    int npaths = i - first_path;
    c.args = argv + i;
    c.nargs = argc - i;
    find_node *expr = NULL;
    if (c.nargs > 0) {
        expr = find_parse_or(&c);
        if (expr && c.pos < c.nargs)
            find_fail(&c, "unexpected extra predicate '%s'", c.args[c.pos]);
    } else {
        expr = find_new(&c, F_TRUE);
    }
    if (!c.has_action && !c.error) {
        find_node *print = find_new(&c, F_PRINT), *and = find_new(&c, F_AND);
        if (and) {
            and->a = expr;
            and->b = print;
            expr = and;
        }
    }
    if (c.error || !expr) {
        find_free(&c);
        return 1;
    }
    for (int k = 0; k < (npaths ? npaths : 1) && !c.quit; k++) {
        const char *start = npaths ? argv[first_path + k] : ".";
        if (!*start) {
            sh_err(p, "'': No such file or directory");
            c.status = 1;
            continue;
        }
        char *name = base_name(start);
        if (!name) {
            c.status = sh_oom(p);
            break;
        }
        c.start = start;
        find_walk(&c, expr, start, name, 0, NULL);
        free(name);
    }
    for (find_node *n = c.nodes; n; n = n->next)
        if (n->kind == F_EXEC && n->plus && c.status != SH_STATUS_PIPE)
            find_flush(&c, n);
    find_free(&c);
    return c.status;
}

/* ---- tar --------------------------------------------------------------- */

/* tar writes POSIX ustar archives (GNU long-name records for names that do not
 * fit) and reads ustar, GNU and pax archives. There is no compression in the
 * shell: -z, -j and -J, and compressed input, are refused with a message. */
typedef struct tar_ctx {
    sh_proc *p;
    char mode;         /* 'c', 'x' or 't' */
    const char *file;  /* "-" is standard input or output */
    const char *dir;   /* -C */
    int verbose, to_stdout, keep_old, no_mtime, strip, errors, warned_slash;
    char **excludes;
    int nexcludes;
    char **members;    /* operands of -x and -t */
    int nmembers;
    char *found;       /* which members were seen */
    dev_t arch_dev;    /* the archive being written, not to be added to itself */
    ino_t arch_ino;
    int arch_known;
    int ugswidth;      /* width of the owner/size column of -tv, grown as GNU's */
    sh_buf dirs;       /* extracted directories: "path\0" + mtime, set at the end */
} tar_ctx;

#define TAR_BLOCK 512

/* Writes an octal number into a header field of n bytes (NUL-terminated). */
static void tar_octal(char *field, size_t n, unsigned long long v)
{
    char tmp[32];
    snprintf(tmp, sizeof(tmp), "%0*llo", (int)(n - 1), v);
    memcpy(field, tmp, n - 1);
    field[n - 1] = '\0';
}

/* Reads an octal (or GNU base-256) header field. */
static unsigned long long tar_number(const char *field, size_t n)
{
    const unsigned char *f = (const unsigned char *)field;
    unsigned long long v = 0;
    if (f[0] & 0x80) {
        for (size_t i = 1; i < n; i++)
            v = (v << 8) | f[i];
        return v;
    }
    size_t i = 0;
    while (i < n && (f[i] == ' ' || f[i] == '\0'))
        i++;
    for (; i < n && f[i] >= '0' && f[i] <= '7'; i++)
        v = v * 8 + (f[i] - '0');
    return v;
}

/* The header checksum: the bytes summed with the checksum field as spaces. */
static unsigned long tar_checksum(const unsigned char *h)
{
    unsigned long sum = 0;
    for (int i = 0; i < TAR_BLOCK; i++)
        sum += (i >= 148 && i < 156) ? ' ' : h[i];
    return sum;
}

/* Appends data padded with zeros to a whole number of blocks. */
static int tar_add_padded(sh_buf *a, const void *data, size_t n)
{
    static const char zeros[TAR_BLOCK];
    if (sh_buf_add(a, data, n) < 0)
        return -1;
    size_t pad = (TAR_BLOCK - n % TAR_BLOCK) % TAR_BLOCK;
    return sh_buf_add(a, zeros, pad);
}

/* Appends one header block. */
static int tar_put_header(sh_buf *a, const char *name, const char *prefix, const struct stat *st,
                          char type, const char *link, unsigned long long size)
{
    unsigned char h[TAR_BLOCK];
    memset(h, 0, sizeof(h));
    memcpy(h, name, strnlen(name, 100));
    tar_octal((char *)h + 100, 8, st->st_mode & 07777);
    tar_octal((char *)h + 108, 8, st->st_uid & 07777777);
    tar_octal((char *)h + 116, 8, st->st_gid & 07777777);
    tar_octal((char *)h + 124, 12, size);
    time_t mtime = st->st_mtim.tv_sec;
    tar_octal((char *)h + 136, 12, mtime > 0 ? (unsigned long long)mtime : 0);
    h[156] = (unsigned char)type;
    if (link)
        memcpy(h + 157, link, strnlen(link, 100));
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    char owner[32];
    if (st->st_uid == 0) {
        owner_name(0, owner, sizeof(owner));
        memcpy(h + 265, owner, strlen(owner));
    }
    if (st->st_gid == 0) {
        owner_name(0, owner, sizeof(owner));
        memcpy(h + 297, owner, strlen(owner));
    }
    if (prefix)
        memcpy(h + 345, prefix, strnlen(prefix, 155));
    char sum[8];
    snprintf(sum, sizeof(sum), "%06lo", tar_checksum(h) & 0777777);
    memcpy(h + 148, sum, 7);
    h[155] = ' ';
    return sh_buf_add(a, h, sizeof(h));
}

/* Appends a GNU long-name ('L') or long-link ('K') record. */
static int tar_put_long(sh_buf *a, const struct stat *st, char type, const char *s)
{
    size_t n = strlen(s) + 1;
    struct stat zero = *st;
    zero.st_mode = 0644;
    if (tar_put_header(a, "././@LongLink", NULL, &zero, type, NULL, n) < 0)
        return -1;
    return tar_add_padded(a, s, n);
}

/* Appends the header(s) for a member: the name split into ustar's prefix and
 * name when it is too long for one field, else preceded by a GNU record. */
static int tar_put_member(sh_buf *a, const char *name, const struct stat *st, char type,
                          const char *link, unsigned long long size)
{
    size_t n = strlen(name);
    char prefix[156] = "";
    const char *short_name = name;
    if (link && strlen(link) > 100 && tar_put_long(a, st, 'K', link) < 0)
        return -1;
    if (n > 100) {
        const char *split = NULL;
        for (const char *s = name + n - 1; s > name; s--)
            if (*s == '/' && s[1] && (size_t)(s - name) <= 155 && n - (size_t)(s - name) - 1 <= 100)
                split = s;
        if (split) {
            memcpy(prefix, name, (size_t)(split - name));
            prefix[split - name] = '\0';
            short_name = split + 1;
        } else if (tar_put_long(a, st, 'L', name) < 0) {
            return -1;
        }
    }
    return tar_put_header(a, short_name, prefix[0] ? prefix : NULL, st, type, link, size);
}

/* Reports an error and remembers that tar must fail. */
static void tar_error(tar_ctx *t, const char *name, const char *what, int e)
{
    sh_err(t->p, "%s: %s: %s", name, what, strerror(e));
    t->errors = 1;
}

/* Whether a member name is excluded by --exclude (the whole name or its last
 * component). */
static int tar_excluded(const tar_ctx *t, const char *name)
{
    for (int i = 0; i < t->nexcludes; i++) {
        char *b = base_name(name);
        int hit = fnmatch(t->excludes[i], name, 0) == 0 ||
                  (b && fnmatch(t->excludes[i], b, 0) == 0);
        free(b);
        if (hit)
            return 1;
    }
    return 0;
}

/* Adds a file or a whole tree to the archive being built. */
static int tar_add(tar_ctx *t, sh_buf *a, const char *fs_path, const char *name)
{
    struct stat st;
    if (tar_excluded(t, name))
        return 0;
    if (path_stat(t->p, fs_path, &st, 0) < 0) {
        tar_error(t, name, "Cannot stat", errno);
        return 0;
    }
    if (t->arch_known && st.st_dev == t->arch_dev && st.st_ino == t->arch_ino) {
        sh_err(t->p, "%s: file is the archive; not dumped", name);
        return 0;
    }
    int is_dir = S_ISDIR(st.st_mode);
    size_t nl = strlen(name);
    char *member = malloc(nl + 2);
    if (!member)
        return -1;
    memcpy(member, name, nl + 1);
    if (is_dir && (nl == 0 || name[nl - 1] != '/'))
        memcpy(member + nl, "/", 2);
    if (t->verbose) {
        sh_proc q = *t->p;
        if (strcmp(t->file, "-") == 0)
            q.out = q.err;
        sh_printf(&q, "%s\n", member);
    }
    int r = 0;
    if (is_dir) {
        r = tar_put_member(a, member, &st, '5', NULL, 0);
        name_list l;
        if (r == 0 && read_dir(t->p, fs_path, &l) < 0) {
            tar_error(t, name, "Cannot open", errno);
        } else if (r == 0) {
            for (size_t i = 0; i < l.n && r == 0; i++) {
                char *cf = path_join(fs_path, l.v[i]), *cn = cf ? path_join(member, l.v[i]) : NULL;
                r = cn ? tar_add(t, a, cf, cn) : -1;
                free(cf);
                free(cn);
            }
            name_list_free(&l);
        }
    } else if (S_ISLNK(st.st_mode)) {
        char *target = path_readlink(t->p, fs_path);
        if (!target)
            tar_error(t, name, "Cannot readlink", errno);
        else
            r = tar_put_member(a, member, &st, '2', target, 0);
        free(target);
    } else if (S_ISREG(st.st_mode)) {
        char *data;
        size_t len;
        /* Read with errors silenced: tar words its own message. */
        sh_proc q = *t->p;
        sh_stream quiet = { .fd = SH_DISCARD };
        q.err = &quiet;
        if (sh_load(&q, fs_path, &data, &len) < 0) {
            tar_error(t, name, "Cannot open", errno);
        } else {
            r = tar_put_member(a, member, &st, '0', NULL, len);
            if (r == 0)
                r = tar_add_padded(a, data, len);
            free(data);
        }
    } else {
        sh_err(t->p, "%s: %s ignored", name, S_ISSOCK(st.st_mode) ? "socket" : "special file");
    }
    free(member);
    return r;
}

/* tar -c: builds the archive in memory, then writes it out. */
static int tar_create(tar_ctx *t, int nops, char **ops)
{
    if (nops == 0) {
        sh_err(t->p, "Cowardly refusing to create an empty archive");
        return usage_error(t->p, 2);
    }
    if (strcmp(t->file, "-") != 0) {
        struct stat st;
        if (sh_save(t->p, t->file, "", 0, 0) < 0)
            return 2;
        if (path_stat(t->p, t->file, &st, 1) == 0) {
            t->arch_dev = st.st_dev;
            t->arch_ino = st.st_ino;
            t->arch_known = 1;
        }
    }
    sh_buf a = { 0 };
    int r = 0;
    for (int i = 0; i < nops && r == 0; i++) {
        const char *name = ops[i];
        while (name[0] == '/' && name[1]) {
            name++;
            if (!t->warned_slash++)
                sh_err(t->p, "Removing leading `/' from member names");
        }
        char *fs = ops[i][0] == '/' || !t->dir ? strdup(ops[i]) : path_join(t->dir, ops[i]);
        r = fs ? tar_add(t, &a, fs, name) : -1;
        free(fs);
    }
    static const char zeros[2 * TAR_BLOCK];
    if (r == 0)
        r = sh_buf_add(&a, zeros, sizeof(zeros));
    size_t record = 20 * TAR_BLOCK;
    while (r == 0 && a.len % record)
        r = sh_buf_add(&a, zeros, sizeof(zeros) < record - a.len % record
                                      ? sizeof(zeros) : record - a.len % record);
    if (r < 0) {
        sh_buf_free(&a);
        sh_oom(t->p);
        return 2;
    }
    int status = 0;
    if (strcmp(t->file, "-") == 0) {
        if (sh_out(t->p, a.data, a.len) < 0)
            status = SH_STATUS_PIPE;
    } else if (sh_save(t->p, t->file, a.data, a.len, 0) < 0) {
        status = 2;
    }
    sh_buf_free(&a);
    return status;
}

/* Whether a member is selected by the operands (a name or a directory above
 * it); marks the operand found. */
static int tar_selected(tar_ctx *t, const char *name)
{
    if (t->nmembers == 0)
        return 1;
    int hit = 0;
    for (int i = 0; i < t->nmembers; i++) {
        const char *m = t->members[i];
        size_t n = strlen(m);
        while (n > 1 && m[n - 1] == '/')
            n--;
        if (strncmp(name, m, n) == 0 && (name[n] == '\0' || name[n] == '/')) {
            t->found[i] = 1;
            hit = 1;
        }
    }
    return hit;
}

/* The -tv line of a member, as GNU tar prints it. */
static int tar_list_verbose(tar_ctx *t, const unsigned char *h, const char *name,
                            const char *link, unsigned long long size)
{
    char type = (char)h[156];
    char mode[11];
    mode_t m = (mode_t)tar_number((const char *)h + 100, 8) & 07777;
    mode_t kind = type == '5' ? S_IFDIR : type == '2' ? S_IFLNK : type == '3' ? S_IFCHR
                : type == '4' ? S_IFBLK : type == '6' ? S_IFIFO : S_IFREG;
    mode_string(m | kind, mode);
    if (type == '1')
        mode[0] = 'h';
    char user[40], group[40], sz[32], when[32];
    if (h[265])
        snprintf(user, sizeof(user), "%.32s", (const char *)h + 265);
    else
        snprintf(user, sizeof(user), "%llu", tar_number((const char *)h + 108, 8));
    if (h[297])
        snprintf(group, sizeof(group), "%.32s", (const char *)h + 297);
    else
        snprintf(group, sizeof(group), "%llu", tar_number((const char *)h + 116, 8));
    snprintf(sz, sizeof(sz), "%llu", size);
    time_t mt = (time_t)tar_number((const char *)h + 136, 12);
    struct tm tm;
    gmtime_r(&mt, &tm);
    strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
    int pad = (int)(strlen(user) + 1 + strlen(group) + strlen(sz));
    if (pad > t->ugswidth)
        t->ugswidth = pad;
    int r = sh_printf(t->p, "%s %s/%s %*s %s %s", mode, user, group,
                      t->ugswidth - pad + (int)strlen(sz), sz, when, name);
    if (type == '2')
        r |= sh_printf(t->p, " -> %s", link);
    else if (type == '1')
        r |= sh_printf(t->p, " link to %s", link);
    return r | sh_outc(t->p, '\n');
}

/* Creates the directories above path (silently, as tar does). */
static void tar_make_parents(tar_ctx *t, const char *path)
{
    char *d = dir_name(path);
    struct stat st;
    if (d && strcmp(d, ".") != 0 && strcmp(d, "/") != 0 && path_stat(t->p, d, &st, 1) < 0) {
        tar_make_parents(t, d);
        path_mkdir(t->p, d, 0777);
    }
    free(d);
}

/* The name a member is extracted as: leading slashes and --strip-components
 * taken off; NULL (after a message) for names with "..", "" when stripped
 * away. */
static const char *tar_safe_name(tar_ctx *t, const char *name)
{
    while (name[0] == '/') {
        name++;
        if (!t->warned_slash++)
            sh_err(t->p, "Removing leading `/' from member names");
    }
    for (const char *s = name; *s;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.') {
            sh_err(t->p, "%s: Member name contains '..'", name);
            t->errors = 1;
            return NULL;
        }
        s += n;
        while (*s == '/')
            s++;
    }
    for (int i = 0; i < t->strip && *name; i++) {
        const char *e = strchr(name, '/');
        name = e ? e + 1 : name + strlen(name);
        while (*name == '/')
            name++;
    }
    return name;
}

/* Extracts one member. */
static int tar_extract_member(tar_ctx *t, char type, const char *name, const char *link_text,
                              const char *data, size_t size, mode_t mode, time_t mtime)
{
    if (t->to_stdout) {
        if (type == '0' || type == '\0' || type == '7')
            return sh_out(t->p, data, size) < 0 ? SH_STATUS_PIPE : 0;
        return 0;
    }
    const char *safe = tar_safe_name(t, name);
    if (!safe || !*safe)
        return 0;
    char *dest = t->dir ? path_join(t->dir, safe) : strdup(safe);
    if (!dest)
        return -1;
    tar_make_parents(t, dest);
    struct stat st;
    int exists = path_stat(t->p, dest, &st, 0) == 0;
    struct timespec ts[2] = { { mtime, 0 }, { mtime, 0 } };
    if (type == '5') {
        if (!exists && path_mkdir(t->p, dest, 0700) < 0)
            tar_error(t, safe, "Cannot mkdir", errno);
        path_chmod(t->p, dest, mode);
        if (!t->no_mtime) {
            long long when = (long long)mtime;
            if (sh_buf_adds(&t->dirs, dest) < 0 || sh_buf_addc(&t->dirs, '\0') < 0 ||
                sh_buf_add(&t->dirs, &when, sizeof(when)) < 0) {
                free(dest);
                return -1;
            }
        }
        free(dest);
        return 0;
    }
    if (exists && t->keep_old) {
        sh_err(t->p, "%s: Cannot open: File exists", safe);
        t->errors = 1;
        free(dest);
        return 0;
    }
    if (exists && !S_ISDIR(st.st_mode))
        path_call(t->p, dest, unlink);
    if (type == '2') {
        if (path_symlink(t->p, link_text, dest) < 0)
            tar_error(t, safe, "Cannot create symlink", errno);
        else if (!t->no_mtime)
            path_utimes(t->p, dest, ts, 1);
    } else if (type == '1') {
        const char *target = tar_safe_name(t, link_text);
        char *tp = target ? (t->dir ? path_join(t->dir, target) : strdup(target)) : NULL;
        if (target && !tp) {
            free(dest);
            return -1;
        }
        if (tp && path_call2(t->p, tp, dest, link) < 0)
            tar_error(t, safe, "Cannot hard link", errno);
        free(tp);
    } else if (type == '0' || type == '\0' || type == '7') {
        int fd = path_open(t->p, dest, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0) {
            tar_error(t, safe, "Cannot open", errno);
        } else {
            sh_stream s = { .fd = fd };
            if (sh_write(&s, data, size) < 0)
                tar_error(t, safe, "Cannot write", errno);
            close(fd);
            path_chmod(t->p, dest, mode);
            if (!t->no_mtime)
                path_utimes(t->p, dest, ts, 0);
        }
    } else {
        sh_err(t->p, "%s: Unknown file type '%c', extracted as normal file", safe, type);
    }
    free(dest);
    return 0;
}

/* Sets the times of the extracted directories, deepest first, once their
 * contents no longer change them. */
static void tar_fix_dirs(tar_ctx *t)
{
    size_t off = t->dirs.len;
    /* Walk the records backwards: find each record's start from the end. */
    while (off > 0) {
        size_t end = off - sizeof(long long);
        size_t start = end - 1;
        while (start > 0 && t->dirs.data[start - 1] != '\0')
            start--;
        long long when;
        memcpy(&when, t->dirs.data + end, sizeof(when));
        struct timespec ts[2] = { { (time_t)when, 0 }, { (time_t)when, 0 } };
        path_utimes(t->p, t->dirs.data + start, ts, 0);
        off = start;
    }
}

/* Replaces *dst with a copy of n bytes of s. */
static int tar_set(char **dst, const char *s, size_t n)
{
    char *c = malloc(n + 1);
    if (!c)
        return -1;
    memcpy(c, s, n);
    c[n] = '\0';
    free(*dst);
    *dst = c;
    return 0;
}

/* Takes path= and linkpath= from a pax extended header: records of the form
 * "LENGTH key=value\n", read strictly within the n bytes. */
static int tar_pax(const char *d, size_t n, char **path, char **link_text)
{
    size_t off = 0;
    while (off < n) {
        size_t len = 0, i = off;
        while (i < n && d[i] >= '0' && d[i] <= '9' && len < n)
            len = len * 10 + (size_t)(d[i++] - '0');
        if (i >= n || d[i] != ' ' || len <= i - off + 1 || len > n - off)
            break;
        const char *kv = d + i + 1, *rec_end = d + off + len - 1; /* at the '\n' */
        const char *eq = memchr(kv, '=', (size_t)(rec_end - kv));
        if (eq) {
            size_t kl = (size_t)(eq - kv), vl = (size_t)(rec_end - eq - 1);
            if (kl == 4 && memcmp(kv, "path", 4) == 0 && tar_set(path, eq + 1, vl) < 0)
                return -1;
            if (kl == 8 && memcmp(kv, "linkpath", 8) == 0 && tar_set(link_text, eq + 1, vl) < 0)
                return -1;
        }
        off += len;
    }
    return 0;
}

/* tar -t and -x: walks the archive's headers. */
static int tar_read(tar_ctx *t, const char *data, size_t len)
{
    if (len >= 2 && (unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b) {
        sh_err(t->p, "this archive is compressed with gzip, and this shell has no gzip");
        return 2;
    }
    if (len >= 3 && memcmp(data, "BZh", 3) == 0) {
        sh_err(t->p, "this archive is compressed with bzip2, and this shell has no bzip2");
        return 2;
    }
    char *long_name = NULL, *long_link = NULL;
    size_t off = 0;
    int r = 0;
    if (len < TAR_BLOCK) {
        sh_err(t->p, "This does not look like a tar archive");
        t->errors = 1;
    }
    while (r == 0 && off + TAR_BLOCK <= len) {
        const unsigned char *h = (const unsigned char *)data + off;
        int zero = 1;
        for (int i = 0; i < TAR_BLOCK && zero; i++)
            zero = h[i] == 0;
        if (zero)
            break;
        if (tar_number((const char *)h + 148, 8) != tar_checksum(h)) {
            sh_err(t->p, off == 0 ? "This does not look like a tar archive"
                                  : "Skipping to next header");
            t->errors = 1;
            break;
        }
        unsigned long long size = tar_number((const char *)h + 124, 12);
        char type = (char)h[156];
        off += TAR_BLOCK;
        if (size > len - off) {
            sh_err(t->p, "Unexpected EOF in archive");
            t->errors = 1;
            size = len - off;
        }
        const char *body = data + off;
        off += (size_t)((size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK);
        if (off > len)
            off = len;
        if (type == 'L' || type == 'K') {
            size_t n = strnlen(body, (size_t)size);
            if (tar_set(type == 'L' ? &long_name : &long_link, body, n) < 0)
                r = -1;
            continue;
        }
        if (type == 'x') {
            if (tar_pax(body, (size_t)size, &long_name, &long_link) < 0)
                r = -1;
            continue;
        }
        if (type == 'g')
            continue;
        char name[257], link[101];
        if (memcmp(h + 257, "ustar", 5) == 0 && h[345] && memcmp(h + 257, "ustar  ", 7) != 0)
            snprintf(name, sizeof(name), "%.155s/%.100s", (const char *)h + 345, (const char *)h);
        else
            snprintf(name, sizeof(name), "%.100s", (const char *)h);
        snprintf(link, sizeof(link), "%.100s", (const char *)h + 157);
        const char *mname = long_name ? long_name : name;
        const char *mlink = long_link ? long_link : link;
        int dir_like = type == '5' || type == '1' || type == '2';
        if (tar_selected(t, mname) && !tar_excluded(t, mname)) {
            if (t->mode == 't' && t->verbose)
                r = tar_list_verbose(t, h, mname, mlink, dir_like ? 0 : size) < 0
                        ? SH_STATUS_PIPE : 0;
            else if (t->mode == 't' || t->verbose) {
                sh_proc q = *t->p;
                if (t->to_stdout)
                    q.out = q.err;
                r = sh_printf(&q, "%s\n", mname) < 0 && !t->to_stdout ? SH_STATUS_PIPE : 0;
            }
            if (r == 0 && t->mode == 'x')
                r = tar_extract_member(t, type, mname, mlink, body, dir_like ? 0 : (size_t)size,
                                       (mode_t)tar_number((const char *)h + 100, 8) & 07777,
                                       (time_t)tar_number((const char *)h + 136, 12));
        }
        free(long_name);
        free(long_link);
        long_name = long_link = NULL;
    }
    free(long_name);
    free(long_link);
    if (r < 0) {
        sh_oom(t->p);
        return 2;
    }
    if (t->mode == 'x')
        tar_fix_dirs(t);
    for (int i = 0; i < t->nmembers; i++) {
        if (!t->found[i]) {
            sh_err(t->p, "%s: Not found in archive", t->members[i]);
            t->errors = 1;
        }
    }
    return r;
}

/* Expands old-style bundled options ("tar cvf x.tar dir") into dashed ones;
 * the letters f, C, T and X take the following words as arguments. A new
 * array, NULL-terminated, or NULL when out of memory; *count gets its length. */
static char **tar_expand_bundle(int argc, char **argv, int *count, char **storage)
{
    const char *bundle = argv[1];
    size_t nb = strlen(bundle);
    char **v = malloc(sizeof(char *) * ((size_t)argc + nb * 2 + 1));
    char *letters = malloc(nb * 3 + 1);
    if (!v || !letters) {
        free(v);
        free(letters);
        return NULL;
    }
    int k = 0, next = 2;
    v[k++] = argv[0];
    for (size_t i = 0; i < nb; i++) {
        char *opt = letters + i * 3;
        opt[0] = '-';
        opt[1] = bundle[i];
        opt[2] = '\0';
        v[k++] = opt;
        if (strchr("fCTX", bundle[i]) && next < argc)
            v[k++] = argv[next++];
    }
    for (; next < argc; next++)
        v[k++] = argv[next];
    v[k] = NULL;
    *count = k;
    *storage = letters;
    return v;
}

static int tar_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "create", 0, 'c' }, { "extract", 0, 'x' }, { "get", 0, 'x' }, { "list", 0, 't' },
        { "file", 1, 'f' }, { "directory", 1, 'C' }, { "verbose", 0, 'v' },
        { "gzip", 0, 'z' }, { "bzip2", 0, 'j' }, { "xz", 0, 'J' }, { "auto-compress", 0, 'a' },
        { "to-stdout", 0, 'O' }, { "keep-old-files", 0, 'k' }, { "touch", 0, 'm' },
        { "strip-components", 1, 'S' }, { "exclude", 1, 'E' }, { "no-same-owner", 0, 'o' },
        { "same-owner", 0, 'N' }, { "preserve-permissions", 0, 'p' },
        { "no-same-permissions", 0, 'N' }, { "numeric-owner", 0, 'N' },
        { "overwrite", 0, 'N' }, { "absolute-names", 0, 'P' }, { NULL, 0, 0 },
    };
    char *storage = NULL;
    char **args = argv;
    int nargs = argc;
    if (argc > 1 && argv[1][0] != '-') {
        args = tar_expand_bundle(argc, argv, &nargs, &storage);
        if (!args)
            return sh_oom(p) + 1;
    }
    tar_ctx t = { .p = p, .file = "-", .ugswidth = 18 };
    int status = 0, compress = 0;
    sh_opt g = { 1, 0, NULL };
    char **excl = calloc((size_t)nargs + 1, sizeof(char *));
    if (!excl) {
        status = sh_oom(p) + 1;
        goto done;
    }
    t.excludes = excl;
    int c;
    while ((c = sh_getopt(p, &g, nargs, args, "cxtf:C:vzjJaOkmpPoNh", longs)) != -1) {
        switch (c) {
        case 'c': case 'x': case 't':
            if (t.mode && t.mode != c) {
                sh_err(p, "You may not specify more than one '-Acdtrux', '--delete' or  "
                          "'--test-label' option");
                status = usage_error(p, 2);
                goto done;
            }
            t.mode = (char)c;
            break;
        case 'f': t.file = g.arg; break;
        case 'C': t.dir = g.arg; break;
        case 'v': t.verbose = 1; break;
        case 'z': case 'j': case 'J': compress = c; break;
        case 'O': t.to_stdout = 1; break;
        case 'k': t.keep_old = 1; break;
        case 'm': t.no_mtime = 1; break;
        case 'E': excl[t.nexcludes++] = g.arg; break;
        case 'S': {
            char *end;
            long v = strtol(g.arg, &end, 10);
            if (!*g.arg || *end || v < 0 || v > 1000000) {
                sh_err(p, "Invalid number of elements: '%s'", g.arg);
                status = 2;
                goto done;
            }
            t.strip = (int)v;
            break;
        }
        case 'a': case 'p': case 'P': case 'o': case 'N': case 'h': break;
        default: status = usage_error(p, 2); goto done;
        }
    }
    if (!t.mode) {
        sh_err(p, "You must specify one of the '-Acdtrux', '--delete' or '--test-label' options");
        status = usage_error(p, 2);
        goto done;
    }
    if (compress) {
        sh_err(p, "%s compression is not available in this shell (no %s program)",
               compress == 'z' ? "gzip" : compress == 'j' ? "bzip2" : "xz",
               compress == 'z' ? "gzip" : compress == 'j' ? "bzip2" : "xz");
        status = 2;
        goto done;
    }
    if (t.dir && t.mode != 'c') {
        struct stat st;
        if (path_stat(p, t.dir, &st, 1) < 0) {
            sh_err(p, "%s: Cannot open: %s", t.dir, strerror(errno));
            status = 2;
            goto done;
        }
    }
    if (!*t.file) {
        sh_err(p, ": Cannot open: %s", strerror(ENOENT));
        status = 2;
    } else if (t.mode == 'c') {
        status = tar_create(&t, nargs - g.ind, args + g.ind);
    } else {
        t.members = args + g.ind;
        t.nmembers = nargs - g.ind;
        t.found = calloc((size_t)t.nmembers + 1, 1);
        char *data = NULL;
        size_t len = 0;
        if (!t.found) {
            status = sh_oom(p) + 1;
        } else if (strcmp(t.file, "-") == 0) {
            status = tar_read(&t, p->in, p->in_len);
        } else if (sh_load(p, t.file, &data, &len) < 0) {
            status = 2;
        } else {
            status = tar_read(&t, data, len);
        }
        free(data);
        free(t.found);
        sh_buf_free(&t.dirs);
    }
    if (status == 0 && t.errors) {
        sh_err(p, "Exiting with failure status due to previous errors");
        status = 2;
    }
done:
    free(excl);
    if (args != argv)
        free(args);
    free(storage);
    return status;
}

const sh_applet sh_applets_files[] = {
    { "basename", basename_main, "strip directory and suffix from file names" },
    { "cat", cat_main, "concatenate files and print them" },
    { "chmod", chmod_main, "check a mode and files (no effect: the sandbox has no permissions)" },
    { "cp", cp_main, "copy files and directories" },
    { "dirname", dirname_main, "strip the last component from file names" },
    { "du", du_main, "estimate file space usage (apparent sizes)" },
    { "find", find_main, "search for files in a directory hierarchy" },
    { "ln", ln_main, "make links between files" },
    { "ls", ls_main, "list directory contents" },
    { "mkdir", mkdir_main, "make directories" },
    { "mv", mv_main, "move or rename files" },
    { "realpath", realpath_main, "print the resolved path" },
    { "rm", rm_main, "remove files or directories" },
    { "rmdir", rmdir_main, "remove empty directories" },
    { "stat", stat_main, "display file status" },
    { "tar", tar_main, "create, list or extract tar archives (no compression)" },
    { "touch", touch_main, "change file timestamps, creating files" },
    { "truncate", truncate_main, "shrink or extend the size of files (-s SIZE, -r FILE, -c)" },
    { NULL, NULL, NULL },
};
