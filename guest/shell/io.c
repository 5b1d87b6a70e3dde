/* The shell's plumbing, under every other file: byte buffers, output streams (a
 * file descriptor or a bounded in-memory pipe), error messages, whole-file reads
 * and writes against the working directory, option parsing, and civil dates.
 * It calls nothing of the interpreter; it only reads the shell's working
 * directory (state.h) to resolve paths. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state.h"

int sh_buf_add(sh_buf *b, const void *p, size_t n)
{
    if (n == 0)
        return 0;
    if (b->len + n + 1 > b->cap) {
        if (n > SIZE_MAX / 4 - b->len)
            return -1;
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *d = realloc(b->data, cap);
        if (!d)
            return -1;
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

int sh_buf_addc(sh_buf *b, char c)
{
    return sh_buf_add(b, &c, 1);
}

int sh_buf_adds(sh_buf *b, const char *s)
{
    return sh_buf_add(b, s, strlen(s));
}

int sh_buf_vaddf(sh_buf *b, const char *fmt, va_list ap)
{
    char small[256];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof(small), fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return -1;
    if ((size_t)n < sizeof(small))
        return sh_buf_add(b, small, (size_t)n);
    char *big = malloc((size_t)n + 1);
    if (!big)
        return -1;
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    int r = sh_buf_add(b, big, (size_t)n);
    free(big);
    return r;
}

int sh_buf_addf(sh_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = sh_buf_vaddf(b, fmt, ap);
    va_end(ap);
    return r;
}

int sh_buf_add_squoted(sh_buf *b, const char *s, size_t n)
{
    int r = sh_buf_addc(b, '\'');
    for (size_t i = 0; i < n && r == 0; i++)
        r = s[i] == '\'' ? sh_buf_adds(b, "'\\''") : sh_buf_addc(b, s[i]);
    return r == 0 ? sh_buf_addc(b, '\'') : -1;
}

char *sh_buf_cstr(sh_buf *b)
{
    if (!b->data) {
        b->data = malloc(1);
        if (!b->data)
            return NULL;
        b->cap = 1;
    }
    b->data[b->len] = '\0';
    return b->data;
}

char *sh_buf_take(sh_buf *b, size_t *len)
{
    char *s = sh_buf_cstr(b);
    if (!s)
        return NULL;
    if (len)
        *len = b->len;
    b->data = NULL;
    b->len = b->cap = 0;
    return s;
}

void sh_buf_free(sh_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

int sh_write(sh_stream *s, const void *p, size_t n)
{
    if (s->broken)
        return -1;
    if (s->fd == SH_DISCARD)
        return 0;
    if (s->fd >= 0) {
        const char *c = p;
        while (n > 0) {
            ssize_t w = write(s->fd, c, n);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                s->broken = 1;
                return -1;
            }
            c += w;
            n -= (size_t)w;
        }
        return 0;
    }
    if (n > s->limit - (s->buf.len < s->limit ? s->buf.len : s->limit) ||
        sh_buf_add(&s->buf, p, n) < 0) {
        s->broken = 1;
        return -1;
    }
    return 0;
}

int sh_out(sh_proc *p, const void *data, size_t n)
{
    return sh_write(p->out, data, n);
}

int sh_outs(sh_proc *p, const char *s)
{
    return sh_write(p->out, s, strlen(s));
}

int sh_outc(sh_proc *p, char c)
{
    return sh_write(p->out, &c, 1);
}

/* Formats into a small buffer first: most lines fit. */
static int stream_vprintf(sh_stream *s, const char *fmt, va_list ap)
{
    sh_buf b = { 0 };
    int r = sh_buf_vaddf(&b, fmt, ap);
    if (r == 0)
        r = sh_write(s, b.data, b.len);
    else
        s->broken = 1;
    sh_buf_free(&b);
    return r;
}

int sh_printf(sh_proc *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = stream_vprintf(p->out, fmt, ap);
    va_end(ap);
    return r;
}

void sh_verr(sh_stream *err, const char *name, const char *fmt, va_list ap)
{
    sh_buf b = { 0 };
    sh_buf_adds(&b, name);
    sh_buf_adds(&b, ": ");
    sh_buf_vaddf(&b, fmt, ap);
    sh_buf_addc(&b, '\n');
    sh_write(err, b.data, b.len);
    sh_buf_free(&b);
}

void sh_err(sh_proc *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sh_verr(p->err, p->name, fmt, ap);
    va_end(ap);
}

/* WASI reports a path that leaves the sandbox as ENOTCAPABLE; people know the
 * message "Permission denied". */
static const char *path_error(int e)
{
#ifdef ENOTCAPABLE
    if (e == ENOTCAPABLE)
        return strerror(EACCES);
#endif
    return strerror(e);
}

void sh_err_path(sh_proc *p, const char *path)
{
    int e = errno;
    sh_err(p, "%s: %s", path, path_error(e));
}

const char *sh_cwd(sh_proc *p)
{
    return p->sh->cwd;
}

char *sh_path(sh_proc *p, const char *path)
{
    if (path[0] == '/')
        return strdup(path);
    const char *cwd = sh_cwd(p);
    size_t lc = strlen(cwd), lp = strlen(path);
    char *r = malloc(lc + lp + 2);
    if (!r)
        return NULL;
    memcpy(r, cwd, lc);
    size_t k = lc;
    if (k == 0 || r[k - 1] != '/')
        r[k++] = '/';
    memcpy(r + k, path, lp + 1);
    return r;
}

int sh_read_file(sh_proc *p, const char *path, char **data, size_t *len)
{
    if (strcmp(path, "-") == 0) {
        char *d = malloc(p->in_len + 1);
        if (!d) {
            errno = ENOMEM;
            return -1;
        }
        memcpy(d, p->in, p->in_len);
        d[p->in_len] = '\0';
        *data = d;
        *len = p->in_len;
        return 0;
    }
    char *full = sh_path(p, path);
    if (!full) {
        errno = ENOMEM;
        return -1;
    }
    int fd = open(full, O_RDONLY);
    free(full);
    if (fd < 0)
        return -1;
    /* WASI answers a read of a directory with EBADF: say what it is. */
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        errno = EISDIR;
        return -1;
    }
    sh_buf b = { 0 };
    char chunk[16384];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            sh_buf_free(&b);
            errno = e;
            return -1;
        }
        if (n == 0)
            break;
        if (sh_buf_add(&b, chunk, (size_t)n) < 0) {
            close(fd);
            sh_buf_free(&b);
            errno = ENOMEM;
            return -1;
        }
    }
    close(fd);
    *data = sh_buf_take(&b, len);
    if (!*data) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

int sh_load(sh_proc *p, const char *path, char **data, size_t *len)
{
    if (sh_read_file(p, path, data, len) == 0)
        return 0;
    if (errno == EISDIR)
        sh_err(p, "%s: Is a directory", path);
    else if (errno == ENOMEM)
        sh_err(p, "%s: out of memory", path);
    else
        sh_err_path(p, path);
    return -1;
}

int sh_save(sh_proc *p, const char *path, const void *data, size_t len, int append)
{
    char *full = sh_path(p, path);
    if (!full) {
        sh_err(p, "out of memory");
        return -1;
    }
    int fd = open(full, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0666);
    free(full);
    if (fd < 0) {
        sh_err_path(p, path);
        return -1;
    }
    sh_stream s = { .fd = fd };
    int r = sh_write(&s, data, len);
    if (r < 0)
        sh_err_path(p, path);
    if (close(fd) < 0 && r == 0) {
        sh_err_path(p, path);
        r = -1;
    }
    return r;
}

/* GNU-style permutation: moves the options (and their separate arguments) of
 * argv[1..argc) before the operands, keeping each group's order, up to "--". */
static void permute(int argc, char **argv, const char *spec, const sh_longopt *longs)
{
    char **opts = malloc(sizeof(char *) * (size_t)argc * 2);
    if (!opts)
        return; /* unpermuted: options after operands are then operands */
    char **ops = opts + argc;
    int no = 0, np = 0, i = 1;
    for (; i < argc; i++) {
        char *a = argv[i];
        if (strcmp(a, "--") == 0)
            break;
        if (a[0] != '-' || a[1] == '\0') {
            ops[np++] = a;
            continue;
        }
        opts[no++] = a;
        if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            for (const sh_longopt *l = longs; l && l->name; l++) {
                if (strncmp(l->name, a + 2, n) == 0 && l->has_arg == 1 && !eq && i + 1 < argc) {
                    opts[no++] = argv[++i];
                    break;
                }
                if (strncmp(l->name, a + 2, n) == 0)
                    break;
            }
            continue;
        }
        for (const char *c = a + 1; *c; c++) {
            const char *s = strchr(spec, *c);
            if (s && *c != ':' && s[1] == ':') {
                if (c[1] == '\0' && i + 1 < argc)
                    opts[no++] = argv[++i];
                break;
            }
        }
    }
    int k = 1;
    for (int j = 0; j < no; j++)
        argv[k++] = opts[j];
    if (i < argc) {
        argv[k++] = argv[i]; /* "--" */
        i++;
    }
    /* The operands before "--", then the rest after it. */
    char **rest = malloc(sizeof(char *) * (size_t)(argc - i + 1));
    if (rest) {
        for (int j = i; j < argc; j++)
            rest[j - i] = argv[j];
        for (int j = 0; j < np; j++)
            argv[k++] = ops[j];
        for (int j = 0; j < argc - i; j++)
            argv[k++] = rest[j];
        free(rest);
    }
    free(opts);
}

int sh_getopt(sh_proc *p, sh_opt *o, int argc, char **argv, const char *spec,
              const sh_longopt *longs)
{
    int posix = spec[0] == '+';
    if (posix)
        spec++;
    if (o->ind == 1 && o->pos == 0 && !posix)
        permute(argc, argv, spec, longs);
    o->arg = NULL;
    if (o->pos == 0) {
        if (o->ind >= argc)
            return -1;
        char *a = argv[o->ind];
        if (a[0] != '-' || a[1] == '\0')
            return -1;
        if (strcmp(a, "--") == 0) {
            o->ind++;
            return -1;
        }
        if (a[1] == '-') {
            o->ind++;
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t n = eq ? (size_t)(eq - name) : strlen(name);
            const sh_longopt *hit = NULL;
            int count = 0;
            for (const sh_longopt *l = longs; l && l->name; l++) {
                if (strncmp(l->name, name, n) != 0)
                    continue;
                if (strlen(l->name) == n) {
                    hit = l;
                    count = 1;
                    break;
                }
                hit = l;
                count++;
            }
            if (count == 0) {
                sh_err(p, "unrecognized option '%s'", a);
                return '?';
            }
            if (count > 1) {
                sh_err(p, "option '%s' is ambiguous", a);
                return '?';
            }
            if (hit->has_arg == 0 && eq) {
                sh_err(p, "option '--%s' doesn't allow an argument", hit->name);
                return '?';
            }
            if (eq) {
                o->arg = (char *)eq + 1;
            } else if (hit->has_arg == 1) {
                if (o->ind >= argc) {
                    sh_err(p, "option '--%s' requires an argument", hit->name);
                    return '?';
                }
                o->arg = argv[o->ind++];
            }
            return hit->val;
        }
        o->pos = 1;
    }
    char *a = argv[o->ind];
    int c = (unsigned char)a[o->pos++];
    const char *s = c == ':' ? NULL : strchr(spec, c);
    if (!s) {
        sh_err(p, "invalid option -- '%c'", c);
        if (a[o->pos] == '\0') {
            o->ind++;
            o->pos = 0;
        }
        return '?';
    }
    if (s[1] == ':') {
        if (a[o->pos] != '\0') {
            o->arg = a + o->pos;
        } else if (o->ind + 1 < argc) {
            o->arg = argv[++o->ind];
        } else {
            sh_err(p, "option requires an argument -- '%c'", c);
            o->ind++;
            o->pos = 0;
            return '?';
        }
        o->ind++;
        o->pos = 0;
        return c;
    }
    if (a[o->pos] == '\0') {
        o->ind++;
        o->pos = 0;
    }
    return c;
}

/* Days since 1970-01-01 of a proleptic Gregorian date; months outside 1..12
 * and days past the month's end carry over. */
long long sh_days_from_civil(long long y, long long m, long long d)
{
    y += (m - 1) / 12;
    m = (m - 1) % 12 + 1;
    if (m <= 0) {
        m += 12;
        y--;
    }
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}
