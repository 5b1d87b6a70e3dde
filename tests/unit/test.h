/* A small test harness: CHECK macros that say what they checked, and a summary
 * line "N passed, N failed" that tests/run.sh adds up. Each test program defines
 * its tests with TEST(name) and lists them in main with RUN(name). */
#ifndef CAPSA_TEST_H
#define CAPSA_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_passed, test_failed;
static const char *test_current;

#define TEST(name) static void test_##name(void)
#define RUN(name)                    \
    do {                             \
        test_current = #name;        \
        test_##name();               \
    } while (0)

#define TEST_REPORT(ok, ...)                                                \
    do {                                                                    \
        if (ok) {                                                           \
            test_passed++;                                                  \
        } else {                                                            \
            test_failed++;                                                  \
            fprintf(stderr, "FAIL %s (%s:%d): ", test_current, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
        }                                                                   \
    } while (0)

/* CHECK(cond, what): cond must hold; `what` says what was checked. */
#define CHECK(cond, what) TEST_REPORT((cond), "%s: expected %s", (what), #cond)

#define CHECK_INT(got, want, what)                                              \
    do {                                                                        \
        long long g_ = (long long)(got), w_ = (long long)(want);                \
        TEST_REPORT(g_ == w_, "%s: expected %lld, got %lld", (what), w_, g_);   \
    } while (0)

#define CHECK_STR(got, want, what)                                              \
    do {                                                                        \
        const char *g_ = (got), *w_ = (want);                                   \
        TEST_REPORT((g_ == NULL && w_ == NULL) ||                               \
                        (g_ && w_ && strcmp(g_, w_) == 0),                      \
                    "%s: expected \"%s\", got \"%s\"", (what), w_ ? w_ : "(null)", \
                    g_ ? g_ : "(null)");                                        \
    } while (0)

/* CHECK_CONTAINS(haystack, needle, what): needle occurs in haystack. */
#define CHECK_CONTAINS(got, needle, what)                                       \
    do {                                                                        \
        const char *g_ = (got), *n_ = (needle);                                 \
        TEST_REPORT(g_ && strstr(g_, n_) != NULL,                               \
                    "%s: expected to contain \"%s\", got \"%s\"", (what), n_,   \
                    g_ ? g_ : "(null)");                                        \
    } while (0)

/* An allocator (the hooks of a capsa_allocator, ud a test_fail_alloc) for
 * allocation-failure tests: after `countdown` allocations have succeeded, every
 * further one fails (countdown < 0: none does); `live` counts the blocks not yet
 * freed. Atomic, as tool worker threads allocate too. */
typedef struct test_fail_alloc {
    long countdown;
    long live;
} test_fail_alloc;

static inline void *test_fail_realloc(void *ud, void *p, size_t n)
{
    test_fail_alloc *f = ud;
    long left = __atomic_load_n(&f->countdown, __ATOMIC_RELAXED);
    for (;;) {
        if (left == 0)
            return NULL;
        if (left < 0 || __atomic_compare_exchange_n(&f->countdown, &left, left - 1, 0,
                                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            break;
    }
    void *q = realloc(p, n);
    if (q && !p)
        __atomic_add_fetch(&f->live, 1, __ATOMIC_RELAXED);
    return q;
}

static inline void test_fail_free(void *ud, void *p)
{
    test_fail_alloc *f = ud;
    if (p)
        __atomic_sub_fetch(&f->live, 1, __ATOMIC_RELAXED);
    free(p);
}

/* Prints the summary and gives the exit status. */
#ifdef CAPSA_H
/* For tests of the API (capsa.h included first): runs code in sb and returns its
 * value (or "ERR name: message", or "FAILED code: message"), in a static buffer. */
static inline const char *js_value(capsa_sandbox *sb, const char *code)
{
    static char out[65536];
    const capsa_result *r = NULL;
    int rc = capsa_run(sb, code, strlen(code), NULL, &r);
    if (!r)
        snprintf(out, sizeof(out), "FAILED %s: %s", capsa_errname(rc), capsa_errmsg(sb));
    else if (rc == CAPSA_OK)
        snprintf(out, sizeof(out), "%s", capsa_result_value(r) ? capsa_result_value(r) : "undefined");
    else
        snprintf(out, sizeof(out), "ERR %s: %s", capsa_result_error_name(r) ? capsa_result_error_name(r) : "?",
                 capsa_result_error_message(r) ? capsa_result_error_message(r) : "?");
    return out;
}
#endif

static inline int test_summary(const char *suite)
{
    printf("%s: %d passed, %d failed\n", suite, test_passed, test_failed);
    return test_failed ? 1 : 0;
}

#endif
