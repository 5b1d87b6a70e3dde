/* What the two benchmark runners share: a monotonic clock, reading a script file,
 * and the order statistics (median, p99) they print. Header-only: each runner is
 * one C file plus this. */
#ifndef CAPSA_BENCH_H
#define CAPSA_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Microseconds on the monotonic clock. */
static inline double bench_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Reads a whole file into a new NUL-terminated buffer the caller frees; *len gets
 * its length. NULL (and a message on stderr) when it cannot be read. */
static inline char *bench_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "bench: cannot open %s\n", path);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf)
            break;
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf || failed) {
        fprintf(stderr, "bench: cannot read %s\n", path);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* A script's name for the report: its file name without directory and ".js". */
static inline void bench_script_name(const char *path, char *out, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 3 && strcmp(base + n - 3, ".js") == 0)
        n -= 3;
    if (n >= size)
        n = size - 1;
    memcpy(out, base, n);
    out[n] = '\0';
}

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v[0..n) in place; the statistics below expect sorted samples. */
static inline void bench_sort(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), bench_cmp_double);
}

static inline double bench_median(const double *sorted, size_t n)
{
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/* The nearest-rank percentile p (0 < p <= 100) of sorted samples. */
static inline double bench_percentile(const double *sorted, size_t n, double p)
{
    size_t rank = (size_t)((p / 100.0) * (double)n + 0.999999);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return sorted[rank - 1];
}

/* Parses a positive count from the command line, or returns fallback. */
static inline int bench_count(const char *s, int fallback)
{
    int v = s ? atoi(s) : 0;
    return v > 0 ? v : fallback;
}

#endif /* CAPSA_BENCH_H */
