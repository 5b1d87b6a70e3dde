/* What the benchmark runners share: a monotonic clock, reading a script file, the
 * order statistics (median, p99) they print, and the process's memory. Header-only:
 * each runner is one C file plus this. */
#ifndef CAPSA_BENCH_H
#define CAPSA_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The clock of the in-process figures, chosen by BENCH_CLOCK: "cpu" (the default)
 * is the CPU time of the process, user and system, so that other processes taking
 * the cores of a busy machine do not count; "wall" is the monotonic clock. */
static clockid_t bench_clock = CLOCK_PROCESS_CPUTIME_ID;

/* Sets bench_clock from BENCH_CLOCK; returns -1 (and a message) if it is unknown. */
static inline int bench_clock_from_env(void)
{
    const char *c = getenv("BENCH_CLOCK");
    if (!c || !*c || strcmp(c, "cpu") == 0)
        bench_clock = CLOCK_PROCESS_CPUTIME_ID;
    else if (strcmp(c, "wall") == 0)
        bench_clock = CLOCK_MONOTONIC;
    else {
        fprintf(stderr, "bench: BENCH_CLOCK is cpu or wall, not %s\n", c);
        return -1;
    }
    return 0;
}

/* Microseconds on bench_clock. */
static inline double bench_now_us(void)
{
    struct timespec ts;
    clock_gettime(bench_clock, &ts);
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

/* This process's resident memory and its private dirty memory, in KiB, from
 * /proc/self/smaps_rollup (Rss, Private_Dirty). Pages that several mappings share,
 * such as an image every sandbox maps, count in Rss once per mapping but are not
 * private. Returns 0, or -1 (and a message on stderr) when it cannot be read. */
static inline int bench_memory_kib(double *rss, double *private_dirty)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (!f) {
        fprintf(stderr, "bench: cannot open /proc/self/smaps_rollup\n");
        return -1;
    }
    char line[256];
    int found = 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned long long kib;
        if (sscanf(line, "Rss: %llu kB", &kib) == 1)
            *rss = (double)kib, found |= 1;
        else if (sscanf(line, "Private_Dirty: %llu kB", &kib) == 1)
            *private_dirty = (double)kib, found |= 2;
    }
    fclose(f);
    if (found != 3) {
        fprintf(stderr, "bench: no Rss or Private_Dirty in /proc/self/smaps_rollup\n");
        return -1;
    }
    return 0;
}

/* Prints one memory figure per instance, taken between two readings for count
 * instances: "name KiB v v v v count". */
static inline void bench_print_per_instance(const char *name, double before, double after,
                                            int count)
{
    double v = count > 0 ? (after - before) / count : 0;
    printf("%s KiB %.1f %.1f %.1f %.1f %d\n", name, v, v, v, v, count);
}

/* Parses a positive count from the command line, or returns fallback. */
static inline int bench_count(const char *s, int fallback)
{
    int v = s ? atoi(s) : 0;
    return v > 0 ? v : fallback;
}

#endif /* CAPSA_BENCH_H */
