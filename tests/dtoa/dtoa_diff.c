/* Differential test of Number.prototype.toFixed/toPrecision/toExponential: QuickJS's
   fesetround() tie detection (the reference) against CONFIG_EXACT_DTOA_TIES (wasm builds).
   Usage: build it twice against a patched QuickJS tree, without and with
   -DCONFIG_EXACT_DTOA_TIES, then run `dtoa_diff_ref | dtoa_diff_exact -` (see the end of
   this comment). Without arguments it prints one line per result; with "-" it reads the
   reference lines on stdin, shows the first 50 differences and counts them all. Both modes
   also check a table of known answers. "-n N" scales the number of generated values.

     Q=build/quickjs; SRC="$Q/quickjs.c $Q/libregexp.c $Q/libunicode.c $Q/cutils.c $Q/libbf.c"
     CF="-O2 -D_GNU_SOURCE -DCONFIG_VERSION=\"2021-03-27\" -DCONFIG_BIGNUM -I$Q"
     cc $CF -o dtoa_diff_ref tests/dtoa/dtoa_diff.c $SRC -lm -lpthread
     cc $CF -DCONFIG_EXACT_DTOA_TIES -o dtoa_diff_exact tests/dtoa/dtoa_diff.c $SRC -lm -lpthread
     ./dtoa_diff_ref | ./dtoa_diff_exact -
*/
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quickjs.h"

/* quickjs.c defines CONFIG_EXACT_DTOA_TIES itself for wasm32-wasi */
#if defined(CONFIG_EXACT_DTOA_TIES) || defined(__wasi__)
#define DTOA_MODE "exact"
#else
#define DTOA_MODE "fesetround"
#endif

/* The three methods under test, in the order of the output. */
enum { M_FIXED, M_PRECISION, M_EXPONENTIAL, M_COUNT };
static const char *const method_names[M_COUNT] = {
    "toFixed", "toPrecision", "toExponential",
};
static const int method_min_digits[M_COUNT] = { 0, 1, 0 };

/* Known answers, from the spec's round half away from zero on the exact value of the
   double (1.005 and 1.45 lie below the tie in binary, 8.345 above it). */
static const struct {
    double d;
    int method, digits;
    const char *want;
} known[] = {
    { 2.5, M_FIXED, 0, "3" },
    { 1.25, M_FIXED, 1, "1.3" },
    { 0.5, M_FIXED, 0, "1" },
    { -0.5, M_FIXED, 0, "-1" },
    { -2.5, M_FIXED, 0, "-3" },
    { 1.5, M_FIXED, 0, "2" },
    { 999.5, M_FIXED, 0, "1000" },
    { -999.5, M_FIXED, 0, "-1000" },
    { 9.75, M_FIXED, 1, "9.8" },
    { 0.0009765625, M_FIXED, 9, "0.000976563" },
    { 1.005, M_FIXED, 2, "1.00" },
    { 1.45, M_FIXED, 1, "1.4" },
    { 8.345, M_FIXED, 2, "8.35" },
    { -0.0001, M_FIXED, 2, "-0.00" },
    { -0.0, M_FIXED, 2, "0.00" },
    { 2.5, M_PRECISION, 1, "3" },
    { 125, M_PRECISION, 2, "1.3e+2" },
    { 0.125, M_PRECISION, 2, "0.13" },
    { -0.125, M_PRECISION, 2, "-0.13" },
    { 9.5, M_PRECISION, 1, "1e+1" },
    { 99.5, M_PRECISION, 2, "1.0e+2" },
    { 1.005, M_PRECISION, 3, "1.00" },
    { 2.5, M_EXPONENTIAL, 0, "3e+0" },
    { 1.25, M_EXPONENTIAL, 1, "1.3e+0" },
    { 12.5, M_EXPONENTIAL, 1, "1.3e+1" },
    { -9.5, M_EXPONENTIAL, 0, "-1e+1" },
    { 1.005, M_EXPONENTIAL, 2, "1.00e+0" },
};

/* Test state: the QuickJS context, the method functions and the generated values. */
typedef struct {
    JSContext *ctx;
    JSValue fn[M_COUNT];
    double *vals;
    size_t nvals, cap;
    FILE *ref;       /* reference lines, NULL when printing */
    unsigned long checked, diffs, line;
    uint64_t rng;
} dtoa_test;

static uint64_t rnd(dtoa_test *t)
{
    /* xorshift64*: the same fixed sequence in both builds */
    t->rng ^= t->rng >> 12;
    t->rng ^= t->rng << 25;
    t->rng ^= t->rng >> 27;
    return t->rng * 2685821657736338717ULL;
}

/* Append d and -d to the value list; exits on out of memory (a test program). */
static void add(dtoa_test *t, double d)
{
    if (t->nvals + 2 > t->cap) {
        t->cap = t->cap ? 2 * t->cap : 4096;
        t->vals = realloc(t->vals, t->cap * sizeof(double));
        if (!t->vals) {
            fprintf(stderr, "dtoa_diff: out of memory\n");
            exit(2);
        }
    }
    t->vals[t->nvals++] = d;
    t->vals[t->nvals++] = -d;
}

static double from_bits(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof(d));
    return d;
}

static uint64_t to_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof(u));
    return u;
}

/* Fill the value list: exact ties for each method, values just off a tie, extremes and
   random doubles. Each rnd() call is its own statement so that every compiler draws the
   same values (argument evaluation order is unspecified). */
static void gen_values(dtoa_test *t, int scale)
{
    static const double fixed_vals[] = {
        0.0, 0.5, 1.5, 2.5, 1.25, 1.005, 1.45, 8.345, 9.5, 99.5, 999.5, 0.95, 0.095,
        9.995, 4.35, 0.045, 5e-7, 1e-7, 123.456, 1e21, 999999999999999900000.0,
        1e20, 1e300, 1e-300, DBL_MAX, DBL_MIN, DBL_TRUE_MIN, DBL_MIN - DBL_TRUE_MIN,
        9007199254740992.0, 9007199254740994.0, 18446744073709551616.0,
        INFINITY, NAN,
    };
    char s[64];
    int i, k, n, p;
    uint64_t m, sh;
    double d, pow10;

    for (i = 0; i < (int)(sizeof(fixed_vals) / sizeof(fixed_vals[0])); i++)
        add(t, fixed_vals[i]);
    /* k + 1/2: toFixed(0) ties */
    for (k = 0; k <= 1000; k++)
        add(t, k + 0.5);
    /* odd k / 2^n: a toFixed(n - 1) tie for n <= 101 and a toPrecision tie when
       k * 5^n has at most 101 digits */
    for (n = 1; n <= 1074; n++) {
        for (k = 1; k <= (n <= 200 ? 9 : 3); k += 2)
            add(t, ldexp(k, -n));
        for (i = 0; i < scale; i++) {
            sh = 11 + rnd(t) % 53;
            m = (rnd(t) >> sh) | 1;
            add(t, ldexp((double)m, -n));
        }
    }
    /* powers of two up to the largest */
    for (n = 0; n <= 1023; n++)
        add(t, ldexp(1, n));
    /* D * 10^p with D ending in 5, exact while D * 5^p < 2^53: toPrecision ties */
    for (i = 0; i < 300 * scale; i++) {
        m = (rnd(t) % 100000000000000ULL) / 10 * 10 + 5;
        m >>= rnd(t) % 40;
        m = m / 10 * 10 + 5;
        for (p = 0, pow10 = 1; p <= 22; p++, pow10 *= 10) {
            d = (double)m * pow10;
            if (d >= 9007199254740992.0)
                break;
            add(t, d);
        }
    }
    /* short decimals ending in 5, rarely exact in binary, and their neighbours */
    for (i = 0; i < 1000 * scale; i++) {
        sh = rnd(t) % 50;
        m = rnd(t) % ((uint64_t)1 << sh);
        p = (int)(rnd(t) % 60) - 40;
        snprintf(s, sizeof(s), "%" PRIu64 "5e%d", m, p);
        d = strtod(s, NULL);
        add(t, d);
        add(t, nextafter(d, 0));
        add(t, nextafter(d, INFINITY));
    }
    /* random bit patterns over the whole range, and random values below 1e21 */
    for (i = 0; i < 1000 * scale; i++) {
        d = from_bits(rnd(t) & 0x7fffffffffffffffULL);
        if (isfinite(d))
            add(t, d);
        m = rnd(t) >> 11;
        p = (int)(rnd(t) % 140) - 120;
        d = ldexp((double)m, p);
        add(t, d);
    }
}

/* Compare (or print) one result line. */
static void report(dtoa_test *t, const char *line)
{
    char want[512];

    t->checked++;
    if (!t->ref) {
        fputs(line, stdout);
        return;
    }
    t->line++;
    if (!fgets(want, sizeof(want), t->ref)) {
        fprintf(stderr, "dtoa_diff: reference ended at line %lu, expected \"%s\"\n",
                t->line, line);
        exit(1);
    }
    if (strcmp(want, line) != 0) {
        if (t->diffs < 50)
            fprintf(stderr, "dtoa_diff: line %lu: reference %s          got %s",
                    t->line, want, line);
        t->diffs++;
    }
}

/* Call Number.prototype[method] on d with the digit count; the result is valid until
   the next call. Exits on an exception: none is expected for these arguments. */
static const char *call(dtoa_test *t, int method, double d, int digits, char *out,
                        size_t size)
{
    JSValue arg = JS_NewInt32(t->ctx, digits), r;
    const char *s;

    r = JS_Call(t->ctx, t->fn[method], JS_NewFloat64(t->ctx, d), 1, &arg);
    s = JS_ToCString(t->ctx, r);
    if (JS_IsException(r) || !s) {
        fprintf(stderr, "dtoa_diff: %s(%d) threw on %.17g\n", method_names[method],
                digits, d);
        exit(2);
    }
    snprintf(out, size, "%s", s);
    JS_FreeCString(t->ctx, s);
    JS_FreeValue(t->ctx, r);
    return out;
}

int main(int argc, char **argv)
{
    dtoa_test t;
    JSRuntime *rt;
    JSValue global, number, proto;
    char res[256], line[512];
    size_t v;
    int i, method, digits, scale = 1, bad = 0;

    memset(&t, 0, sizeof(t));
    t.rng = 0x9e3779b97f4a7c15ULL;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            scale = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-"))
            t.ref = stdin;
        else {
            fprintf(stderr, "usage: dtoa_diff [-n scale] [-]\n");
            return 2;
        }
    }
    if (scale < 1)
        scale = 1;

    rt = JS_NewRuntime();
    t.ctx = rt ? JS_NewContext(rt) : NULL;
    if (!t.ctx) {
        fprintf(stderr, "dtoa_diff: cannot create a QuickJS context\n");
        return 2;
    }
    global = JS_GetGlobalObject(t.ctx);
    number = JS_GetPropertyStr(t.ctx, global, "Number");
    proto = JS_GetPropertyStr(t.ctx, number, "prototype");
    for (method = 0; method < M_COUNT; method++)
        t.fn[method] = JS_GetPropertyStr(t.ctx, proto, method_names[method]);

    for (i = 0; i < (int)(sizeof(known) / sizeof(known[0])); i++) {
        call(&t, known[i].method, known[i].d, known[i].digits, res, sizeof(res));
        if (strcmp(res, known[i].want) != 0) {
            fprintf(stderr, "dtoa_diff (%s): (%.17g).%s(%d): expected \"%s\", got \"%s\"\n",
                    DTOA_MODE, known[i].d, method_names[known[i].method],
                    known[i].digits, known[i].want, res);
            bad = 1;
        }
    }

    gen_values(&t, scale);
    for (v = 0; v < t.nvals; v++) {
        for (method = 0; method < M_COUNT; method++) {
            for (digits = method_min_digits[method]; digits <= 100; digits++) {
                call(&t, method, t.vals[v], digits, res, sizeof(res));
                snprintf(line, sizeof(line), "%s %d %016" PRIx64 " %s\n",
                         method_names[method], digits, to_bits(t.vals[v]), res);
                report(&t, line);
            }
        }
    }
    if (t.ref && fgets(line, sizeof(line), t.ref)) {
        fprintf(stderr, "dtoa_diff: reference has more lines than the %lu computed\n",
                t.checked);
        bad = 1;
    }

    for (method = 0; method < M_COUNT; method++)
        JS_FreeValue(t.ctx, t.fn[method]);
    JS_FreeValue(t.ctx, proto);
    JS_FreeValue(t.ctx, number);
    JS_FreeValue(t.ctx, global);
    JS_FreeContext(t.ctx);
    JS_FreeRuntime(rt);
    free(t.vals);

    fprintf(stderr, "dtoa_diff (%s): %d known answers %s; %zu values, %lu results %s",
            DTOA_MODE, (int)(sizeof(known) / sizeof(known[0])), bad ? "FAILED" : "ok",
            t.nvals, t.checked, t.ref ? "compared" : "printed");
    if (t.ref)
        fprintf(stderr, ", %lu differences\n", t.diffs);
    else
        fprintf(stderr, "\n");
    return bad || t.diffs ? 1 : 0;
}
