/* Helpers the applets share beyond io.c's plumbing: the out-of-memory report,
 * stat of a path against the working directory, GNU's size suffixes, the check
 * of a one-number printf format, and the pieces of regex translation that grep,
 * sed, awk, find and jq have in common (bracket expressions, the \d \s \w
 * class escapes). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sh.h"

int sh_oom(sh_proc *p)
{
    sh_err(p, "out of memory");
    return 1;
}

int sh_stat(sh_proc *p, const char *path, struct stat *st, int follow)
{
    if (path[0] == '\0') {
        errno = ENOENT;
        return -1;
    }
    char *full = sh_path(p, path);
    if (!full) {
        errno = ENOMEM;
        return -1;
    }
    int r = follow ? stat(full, st) : lstat(full, st);
    int e = errno;
    free(full);
    errno = e;
    return r;
}

int sh_size_suffix(const char *s, const char *letters, uintmax_t *mult)
{
    static const char units[] = "KMGTPEZYRQ";
    const char *u = *s && strchr(letters, *s) ? strchr(units, toupper((unsigned char)*s)) : NULL;
    if (!u)
        return -1;
    uintmax_t base = 1024;
    if (strcmp(s + 1, "B") == 0)
        base = 1000;
    else if (s[1] != '\0' && strcmp(s + 1, "iB") != 0)
        return -1;
    uintmax_t m = 1;
    for (const char *k = units; k <= u; k++)
        m = m > UINTMAX_MAX / base ? UINTMAX_MAX : m * base;
    *mult = m;
    return 0;
}

size_t sh_rx_bracket(const char *s, size_t n)
{
    size_t i = 1;
    if (i < n && s[i] == '^')
        i++;
    if (i < n && s[i] == ']')
        i++;
    while (i < n && s[i] != ']') {
        if (s[i] == '[' && i + 1 < n && (s[i + 1] == ':' || s[i + 1] == '.' || s[i + 1] == '=')) {
            char close = s[i + 1];
            size_t j = i + 2;
            while (j + 1 < n && !(s[j] == close && s[j + 1] == ']'))
                j++;
            if (j + 1 >= n)
                return 0;
            i = j + 2;
            continue;
        }
        i++;
    }
    return i < n ? i + 1 : 0;
}

int sh_rx_class(sh_buf *b, char c, int in_bracket)
{
    const char *cls = NULL;
    int neg = 0;
    switch (c) {
    case 'd': cls = "0-9"; break;
    case 'D': cls = "0-9", neg = 1; break;
    case 's': cls = "[:space:]"; break;
    case 'S': cls = "[:space:]", neg = 1; break;
    case 'w': cls = "[:alnum:]_"; break;
    case 'W': cls = "[:alnum:]_", neg = 1; break;
    default: return 0;
    }
    if (in_bracket && !neg)
        return sh_buf_adds(b, cls) < 0 ? -1 : 1;
    return sh_buf_addf(b, "[%s%s]", neg ? "^" : "", cls) < 0 ? -1 : 1;
}

int sh_one_float_format(const char *fmt, const char *flags)
{
    int convs = 0;
    for (const char *s = fmt; *s; s++) {
        if (*s != '%')
            continue;
        if (s[1] == '%') {
            s++;
            continue;
        }
        s++;
        s += strspn(s, flags);
        s += strspn(s, "0123456789");
        if (*s == '.') {
            s++;
            s += strspn(s, "0123456789");
        }
        if (!*s || !strchr("eEfFgGaA", *s))
            return 0;
        convs++;
    }
    return convs == 1;
}
