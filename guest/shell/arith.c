/* Shell arithmetic, $(( )) and (( )): C's integer operators on 64-bit values,
 * with variables by name (their values evaluated in turn) and assignments. In
 * the expansion layer (expand.h), on the base alone. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand.h"

#define MAX_DEPTH 64

typedef struct arith {
    sh_shell *sh;
    sh_io *io;
    const char *s;
    size_t pos;
    int error;
    int skip;  /* > 0: evaluating a branch that is not taken (no assignments) */
    int depth;
    const char *expr;
} arith;

static long long parse_assign(arith *a);

static void bad(arith *a, const char *why)
{
    if (!a->error)
        sh_report(a->io, "%.60s%s: %s (error token is \"%.40s%s\")", a->expr,
                  strlen(a->expr) > 60 ? "..." : "", why, a->s + a->pos,
                  strlen(a->s + a->pos) > 40 ? "..." : "");
    a->error = 1;
}

static void space(arith *a)
{
    while (isspace((unsigned char)a->s[a->pos]))
        a->pos++;
}

static int eat(arith *a, const char *op)
{
    space(a);
    size_t n = strlen(op);
    if (strncmp(a->s + a->pos, op, n) != 0)
        return 0;
    /* Do not take "<" out of "<<" or "<=", "&" out of "&&", and so on. */
    char next = a->s[a->pos + n];
    if (n == 1 && strchr("<>&|=!", op[0]) && (next == op[0] || next == '=') && op[0] != '!')
        return 0;
    if (n == 1 && op[0] == '!' && next == '=')
        return 0;
    if (n == 1 && strchr("+-*/%^", op[0]) && (next == '=' || (next == op[0] && op[0] != '/' && op[0] != '%' && op[0] != '^')))
        return 0;
    if (n == 2 && (strcmp(op, "<<") == 0 || strcmp(op, ">>") == 0 || strcmp(op, "**") == 0) && next == '=')
        return 0;
    a->pos += n;
    return 1;
}

/* The value of variable name: empty or unset is 0; otherwise its text as an
 * expression. */
static long long var_value(arith *a, const char *name)
{
    const char *v = sh_var_get(a->sh, name);
    if (!v || !*v) {
        if (!v && a->sh->opt_u) {
            sh_report(a->io, "%s: parameter not set", name);
            a->error = 1;
        }
        return 0;
    }
    char *end;
    long long n = strtoll(v, &end, 0);
    while (isspace((unsigned char)*end))
        end++;
    if (*end == '\0')
        return n;
    if (a->depth >= MAX_DEPTH) {
        bad(a, "expression recursion level exceeded");
        return 0;
    }
    long long r;
    arith sub = { a->sh, a->io, v, 0, 0, a->skip, a->depth + 1, v };
    r = parse_assign(&sub);
    space(&sub);
    if (sub.error || sub.s[sub.pos]) {
        if (!sub.error)
            bad(&sub, "syntax error in expression");
        a->error = 1;
    }
    return r;
}

static int set_var(arith *a, const char *name, long long v)
{
    if (a->skip)
        return 0;
    char num[32];
    snprintf(num, sizeof(num), "%lld", v);
    if (sh_setvar(a->sh, name, num, 0) < 0) {
        bad(a, "out of memory");
        return -1;
    }
    return 0;
}

static long long parse_unary(arith *a);

static long long parse_primary(arith *a)
{
    space(a);
    const char *s = a->s + a->pos;
    if (*s == '(') {
        a->pos++;
        if (++a->depth > MAX_DEPTH) {
            bad(a, "expression nested too deeply");
            return 0;
        }
        long long v = parse_assign(a);
        a->depth--;
        if (!eat(a, ")"))
            bad(a, "missing `)'");
        return v;
    }
    if (isdigit((unsigned char)*s)) {
        char *end;
        long long v;
        if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
            v = (long long)strtoull(s, &end, 16);
        else if (s[0] == '0')
            v = (long long)strtoull(s, &end, 8);
        else
            v = (long long)strtoull(s, &end, 10);
        if (*end == '#') {
            /* base#digits */
            long base = strtol(s, NULL, 10);
            if (base < 2 || base > 64) {
                bad(a, "invalid arithmetic base");
                return 0;
            }
            v = (long long)strtoull(end + 1, &end, (int)(base > 36 ? 36 : base));
        }
        if (isalnum((unsigned char)*end) || *end == '_') {
            a->pos = (size_t)(end - a->s);
            bad(a, "value too great for base");
            return 0;
        }
        a->pos = (size_t)(end - a->s);
        return v;
    }
    if (isalpha((unsigned char)*s) || *s == '_') {
        size_t n = 0;
        while (isalnum((unsigned char)s[n]) || s[n] == '_')
            n++;
        char name[256];
        if (n >= sizeof(name)) {
            bad(a, "name too long");
            return 0;
        }
        memcpy(name, s, n);
        name[n] = '\0';
        a->pos += n;
        static const char *const ops[] = { "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=",
                                           "|=", "^=", NULL };
        space(a);
        const char *t = a->s + a->pos;
        if (t[0] == '+' && t[1] == '+') {
            a->pos += 2;
            long long v = var_value(a, name);
            set_var(a, name, v + 1);
            return v;
        }
        if (t[0] == '-' && t[1] == '-') {
            a->pos += 2;
            long long v = var_value(a, name);
            set_var(a, name, v - 1);
            return v;
        }
        for (int i = 0; ops[i]; i++) {
            size_t ol = strlen(ops[i]);
            if (strncmp(t, ops[i], ol) != 0 || (ol == 1 && t[1] == '='))
                continue;
            a->pos += ol;
            long long rhs = parse_assign(a);
            long long v = i == 0 ? rhs : var_value(a, name);
            switch (i) {
            case 1: v += rhs; break;
            case 2: v -= rhs; break;
            case 3: v *= rhs; break;
            case 4:
            case 5:
                if (rhs == 0) {
                    bad(a, "division by 0");
                    return 0;
                }
                v = i == 4 ? (rhs == -1 ? -v : v / rhs) : (rhs == -1 ? 0 : v % rhs);
                break;
            case 6: v = (long long)((unsigned long long)v << (rhs & 63)); break;
            case 7: v >>= (rhs & 63); break;
            case 8: v &= rhs; break;
            case 9: v |= rhs; break;
            case 10: v ^= rhs; break;
            }
            set_var(a, name, v);
            return v;
        }
        return var_value(a, name);
    }
    bad(a, *s ? "syntax error: operand expected" : "syntax error: operand expected");
    return 0;
}

static long long parse_unary(arith *a)
{
    space(a);
    const char *s = a->s + a->pos;
    if ((s[0] == '+' && s[1] == '+') || (s[0] == '-' && s[1] == '-')) {
        a->pos += 2;
        space(a);
        size_t n = 0;
        const char *t = a->s + a->pos;
        while (isalnum((unsigned char)t[n]) || t[n] == '_')
            n++;
        if (n == 0 || n > 255 || isdigit((unsigned char)t[0])) {
            bad(a, "syntax error: a variable is needed");
            return 0;
        }
        char name[256];
        memcpy(name, t, n);
        name[n] = '\0';
        a->pos += n;
        long long v = var_value(a, name) + (s[0] == '+' ? 1 : -1);
        set_var(a, name, v);
        return v;
    }
    if (++a->depth > MAX_DEPTH * 4) {
        bad(a, "expression nested too deeply");
        return 0;
    }
    long long v;
    if (s[0] == '-') {
        a->pos++;
        v = (long long)(0ULL - (unsigned long long)parse_unary(a));
    } else if (s[0] == '+') {
        a->pos++;
        v = parse_unary(a);
    } else if (s[0] == '!') {
        a->pos++;
        v = !parse_unary(a);
    } else if (s[0] == '~') {
        a->pos++;
        v = ~parse_unary(a);
    } else {
        v = parse_primary(a);
    }
    a->depth--;
    return v;
}

static long long power(arith *a, long long b, long long e)
{
    if (e < 0) {
        bad(a, "exponent less than 0");
        return 0;
    }
    unsigned long long r = 1, base = (unsigned long long)b;
    while (e > 0) {
        if (e & 1)
            r *= base;
        base *= base;
        e >>= 1;
    }
    return (long long)r;
}

/* Binary operators by precedence level, lowest first (after ?: and assignment). */
static long long parse_binary(arith *a, int level)
{
    static const char *const levels[][4] = {
        { "||", NULL }, { "&&", NULL }, { "|", NULL }, { "^", NULL }, { "&", NULL },
        { "==", "!=", NULL }, { "<=", ">=", "<", ">" }, { "<<", ">>", NULL },
        { "+", "-", NULL }, { "*", "/", "%", NULL }, { "**", NULL },
    };
    const int n_levels = (int)(sizeof(levels) / sizeof(levels[0]));
    if (level == n_levels)
        return parse_unary(a);
    long long v = parse_binary(a, level + 1);
    for (;;) {
        if (a->error)
            return 0;
        int op = -1;
        for (int k = 0; k < 4 && levels[level][k]; k++)
            if (eat(a, levels[level][k])) {
                op = k;
                break;
            }
        if (op < 0)
            return v;
        const char *o = levels[level][op];
        if (strcmp(o, "&&") == 0 || strcmp(o, "||") == 0) {
            int taken = strcmp(o, "&&") == 0 ? v != 0 : v == 0;
            if (!taken)
                a->skip++;
            long long r = parse_binary(a, level + 1);
            if (!taken)
                a->skip--;
            v = taken ? r != 0 : strcmp(o, "||") == 0;
            continue;
        }
        long long r = strcmp(o, "**") == 0 ? parse_binary(a, level) : parse_binary(a, level + 1);
        if (strcmp(o, "|") == 0) v |= r;
        else if (strcmp(o, "^") == 0) v ^= r;
        else if (strcmp(o, "&") == 0) v &= r;
        else if (strcmp(o, "==") == 0) v = v == r;
        else if (strcmp(o, "!=") == 0) v = v != r;
        else if (strcmp(o, "<=") == 0) v = v <= r;
        else if (strcmp(o, ">=") == 0) v = v >= r;
        else if (strcmp(o, "<") == 0) v = v < r;
        else if (strcmp(o, ">") == 0) v = v > r;
        else if (strcmp(o, "<<") == 0) v = (long long)((unsigned long long)v << (r & 63));
        else if (strcmp(o, ">>") == 0) v >>= (r & 63);
        else if (strcmp(o, "+") == 0) v = (long long)((unsigned long long)v + (unsigned long long)r);
        else if (strcmp(o, "-") == 0) v = (long long)((unsigned long long)v - (unsigned long long)r);
        else if (strcmp(o, "*") == 0) v = (long long)((unsigned long long)v * (unsigned long long)r);
        else if (strcmp(o, "**") == 0) return power(a, v, r);
        else {
            if (r == 0) {
                if (!a->skip)
                    bad(a, "division by 0");
                return 0;
            }
            if (strcmp(o, "/") == 0)
                v = r == -1 ? (long long)(0ULL - (unsigned long long)v) : v / r;
            else
                v = r == -1 ? 0 : v % r;
        }
    }
}

static long long parse_cond(arith *a)
{
    long long c = parse_binary(a, 0);
    if (!eat(a, "?"))
        return c;
    if (!c)
        a->skip++;
    long long x = parse_assign(a);
    if (!c)
        a->skip--;
    if (!eat(a, ":")) {
        bad(a, "`:' expected for conditional expression");
        return 0;
    }
    if (c)
        a->skip++;
    long long y = parse_cond(a);
    if (c)
        a->skip--;
    return c ? x : y;
}

static long long parse_assign(arith *a)
{
    return parse_cond(a);
}

int sh_arith(sh_shell *sh, sh_io *io, const char *expr, long long *value)
{
    arith a = { sh, io, expr, 0, 0, 0, 0, expr };
    long long v = 0;
    space(&a);
    if (a.s[a.pos])
        v = parse_assign(&a);
    while (!a.error && eat(&a, ","))
        v = parse_assign(&a);
    space(&a);
    if (!a.error && a.s[a.pos])
        bad(&a, "syntax error in expression");
    if (a.error) {
        sh->status = 1;
        return -1;
    }
    *value = v;
    return 0;
}
