/* awk: a POSIX awk interpreter (lexer, recursive-descent parser, tree-walking
 * evaluator) following gawk's behaviour for the common language. Regular
 * expressions are regex.h EREs; output pipes and commands run through sh_run. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sh.h"

/* Bounds on nesting, so that hostile programs cannot exhaust the C stack. */
#define MAX_PARSE_DEPTH 300
#define MAX_EVAL_DEPTH 4000
#define MAX_CALL_DEPTH 1000
#define MAX_FIELD 1000000
#define MAX_WIDTH 1000000
#define OBUF_FLUSH 65536
#define RE_CACHE 16

/* ---------------------------------------------------------------- values */

enum { T_UNINIT, T_NUM, T_STR, T_STRNUM };

/* A value: T_STR and T_STRNUM own str; T_STRNUM (input that looks numeric)
 * also has num. A T_NUM may carry its CONVFMT text cached in str. */
typedef struct aval {
    int type;
    double num;
    char *str;
} aval;

typedef struct aelem {
    char *key;
    aval v;
    struct aelem *next;
} aelem;

/* An associative array: a chained hash table. */
typedef struct aarr {
    aelem **b;
    size_t nb, n;
} aarr;

enum { K_NONE, K_SCALAR, K_ARRAY, K_REF };

/* A variable: untyped until first use; K_REF is an untyped function argument
 * that becomes the caller's array if the callee uses it as one. */
typedef struct acell {
    int kind;
    int borrowed; /* arr belongs to a caller */
    aval v;
    aarr *arr;
    struct acell *ref;
} acell;

/* ---------------------------------------------------------------- tokens */

enum {
    TK_EOF, TK_NEWLINE, TK_NUMBER, TK_STRING, TK_ERE, TK_NAME, TK_FUNC_NAME, TK_BUILTIN,
    TK_BEGIN, TK_END, TK_FUNCTION, TK_IF, TK_ELSE, TK_WHILE, TK_FOR, TK_DO, TK_BREAK,
    TK_CONTINUE, TK_NEXT, TK_NEXTFILE, TK_EXIT, TK_RETURN, TK_DELETE, TK_GETLINE, TK_PRINT,
    TK_PRINTF, TK_IN, TK_LBRACE, TK_RBRACE, TK_LPAREN, TK_RPAREN, TK_LBRACKET, TK_RBRACKET,
    TK_SEMI, TK_COMMA, TK_PLUS, TK_MINUS, TK_STAR, TK_SLASH, TK_PERCENT, TK_POW, TK_NOT,
    TK_GT, TK_LT, TK_PIPE, TK_QUESTION, TK_COLON, TK_MATCH, TK_NOMATCH, TK_DOLLAR, TK_ASSIGN,
    TK_ADD_ASSIGN, TK_SUB_ASSIGN, TK_MUL_ASSIGN, TK_DIV_ASSIGN, TK_MOD_ASSIGN, TK_POW_ASSIGN,
    TK_EQ, TK_LE, TK_GE, TK_NE, TK_INCR, TK_DECR, TK_AND, TK_OR, TK_APPEND
};

typedef struct token {
    int type, line, id;
    double num;
    char *str;
} token;

static const struct {
    const char *name;
    int tok;
} keywords[] = {
    { "BEGIN", TK_BEGIN },     { "END", TK_END },       { "function", TK_FUNCTION },
    { "func", TK_FUNCTION },   { "if", TK_IF },         { "else", TK_ELSE },
    { "while", TK_WHILE },     { "for", TK_FOR },       { "do", TK_DO },
    { "break", TK_BREAK },     { "continue", TK_CONTINUE }, { "next", TK_NEXT },
    { "nextfile", TK_NEXTFILE }, { "exit", TK_EXIT },   { "return", TK_RETURN },
    { "delete", TK_DELETE },   { "getline", TK_GETLINE }, { "print", TK_PRINT },
    { "printf", TK_PRINTF },   { "in", TK_IN },         { NULL, 0 },
};

enum {
    B_LENGTH, B_SUBSTR, B_INDEX, B_SPLIT, B_SUB, B_GSUB, B_MATCH, B_TOLOWER, B_TOUPPER,
    B_SPRINTF, B_INT, B_SQRT, B_EXP, B_LOG, B_SIN, B_COS, B_ATAN2, B_RAND, B_SRAND,
    B_SYSTEM, B_CLOSE, B_FFLUSH, B_GENSUB, B_ASORT, B_ASORTI, B_SYSTIME, B_STRFTIME,
    B_MKTIME
};

static const struct {
    const char *name;
    int min, max;
} builtins[] = {
    { "length", 0, 1 }, { "substr", 2, 3 }, { "index", 2, 2 },   { "split", 2, 4 },
    { "sub", 2, 3 },    { "gsub", 2, 3 },   { "match", 2, 3 },   { "tolower", 1, 1 },
    { "toupper", 1, 1 }, { "sprintf", 1, 255 }, { "int", 1, 1 }, { "sqrt", 1, 1 },
    { "exp", 1, 1 },    { "log", 1, 1 },    { "sin", 1, 1 },     { "cos", 1, 1 },
    { "atan2", 2, 2 },  { "rand", 0, 0 },   { "srand", 0, 1 },   { "system", 1, 1 },
    { "close", 1, 2 },  { "fflush", 0, 1 }, { "gensub", 3, 4 },  { "asort", 1, 2 },
    { "asorti", 1, 2 }, { "systime", 0, 0 }, { "strftime", 0, 3 }, { "mktime", 1, 1 },
    { NULL, 0, 0 },
};

/* Punctuation, longest first. */
static const struct {
    const char *text;
    int tok;
} puncts[] = {
    { "**=", TK_POW_ASSIGN }, { "**", TK_POW },     { "+=", TK_ADD_ASSIGN },
    { "-=", TK_SUB_ASSIGN },  { "*=", TK_MUL_ASSIGN }, { "/=", TK_DIV_ASSIGN },
    { "%=", TK_MOD_ASSIGN },  { "^=", TK_POW_ASSIGN }, { "==", TK_EQ },
    { "<=", TK_LE },          { ">=", TK_GE },      { "!=", TK_NE },
    { "++", TK_INCR },        { "--", TK_DECR },    { "&&", TK_AND },
    { "||", TK_OR },          { ">>", TK_APPEND },  { "!~", TK_NOMATCH },
    { "{", TK_LBRACE },       { "}", TK_RBRACE },   { "(", TK_LPAREN },
    { ")", TK_RPAREN },       { "[", TK_LBRACKET }, { "]", TK_RBRACKET },
    { ";", TK_SEMI },         { ",", TK_COMMA },    { "+", TK_PLUS },
    { "-", TK_MINUS },        { "*", TK_STAR },     { "/", TK_SLASH },
    { "%", TK_PERCENT },      { "^", TK_POW },      { "!", TK_NOT },
    { ">", TK_GT },           { "<", TK_LT },       { "|", TK_PIPE },
    { "?", TK_QUESTION },     { ":", TK_COLON },    { "~", TK_MATCH },
    { "$", TK_DOLLAR },       { "=", TK_ASSIGN },   { NULL, 0 },
};

/* ---------------------------------------------------------------- syntax tree */

enum {
    N_NUM, N_STR, N_REGEX, N_VAR, N_LOCAL, N_FIELD, N_INDEX, N_GROUP, N_ASSIGN, N_COND,
    N_AND, N_OR, N_NOT, N_NEG, N_UPLUS, N_BINARY, N_CONCAT, N_CMP, N_MATCH, N_IN,
    N_PREINC, N_PREDEC, N_POSTINC, N_POSTDEC, N_BUILTIN, N_CALL, N_GETLINE,
    S_PRINT, S_PRINTF, S_EXPR, S_IF, S_WHILE, S_DO, S_FOR, S_FORIN, S_BLOCK, S_NEXT,
    S_NEXTFILE, S_EXIT, S_RETURN, S_BREAK, S_CONTINUE, S_DELETE
};

enum { G_PLAIN, G_FILE, G_CMD };

/* A compiled regular expression; empty patterns match everywhere. */
typedef struct are {
    regex_t re;
    int empty;
} are;

/* One node: a, b, c, d are children by role, next links lists (arguments,
 * statements), chain links every node for freeing. */
typedef struct anode {
    int type, op, line, idx, nargs;
    struct anode *a, *b, *c, *d, *next, *chain;
    double num;
    char *str;
    are *re;
} anode;

typedef struct afunc {
    char *name;
    char **params;
    int nparams, defined;
    anode *body;
} afunc;

enum { R_BEGIN, R_MAIN, R_END };

typedef struct arule {
    int kind, in_range;
    anode *pat1, *pat2, *action;
} arule;

/* An output redirection, collected and written when flushed or closed. */
typedef struct aout {
    char *name;
    int kind; /* TK_GT, TK_APPEND, TK_PIPE */
    sh_buf buf;
    struct aout *next;
} aout;

/* An input source for getline: a file or a command's output, read whole. */
typedef struct ain {
    char *name;
    int is_cmd, status;
    char *data;
    size_t len, pos;
    struct ain *next;
} ain;

/* Indexes of the special variables among the globals. */
enum {
    V_NR, V_NF, V_FNR, V_FS, V_OFS, V_ORS, V_RS, V_SUBSEP, V_FILENAME, V_CONVFMT, V_OFMT,
    V_RSTART, V_RLENGTH, V_ENVIRON, V_ARGC, V_ARGV, V_NSPECIAL
};
static const char *const special_names[] = {
    "NR", "NF", "FNR", "FS", "OFS", "ORS", "RS", "SUBSEP", "FILENAME", "CONVFMT", "OFMT",
    "RSTART", "RLENGTH", "ENVIRON", "ARGC", "ARGV",
};

/* Control results of executing statements and evaluating expressions. */
enum { C_OK, C_BREAK, C_CONTINUE, C_NEXT, C_NEXTFILE, C_EXIT, C_RETURN, C_ERROR };

/* The whole interpreter: one per invocation, so the applet stays reentrant. */
typedef struct aw {
    sh_proc *p;
    /* parsing */
    token *toks;
    int ntok, captok, tpos, perr, pdepth, no_gt;
    int cur_func; /* index of the function being parsed, or -1 */
    char **gnames;
    int nglobals, capglobals;
    afunc *funcs;
    int nfuncs, capfuncs;
    arule *rules;
    int nrules, caprules;
    anode *nodes;
    /* running */
    acell *globals, *frame;
    aval rec;
    aval *fields; /* fields[1..nf] */
    int nf, fcap, rec_stale;
    int argi, in_open, in_used;
    char *in_data;
    size_t in_len, in_pos;
    aout *outs;
    ain *ins;
    struct {
        char *src;
        are *re;
    } recache[RE_CACHE];
    int recache_next;
    sh_buf obuf;
    int depth, call_depth, exit_code, status, oom;
    aval retval;
    uint32_t rstate[63];
    int rf, rr;
    double seed;
} aw;

static int eval(aw *I, anode *n, aval *out);
static int exec(aw *I, anode *s);
static anode *parse_expr(aw *I);
static anode *parse_primary(aw *I);
static anode *parse_concat(aw *I);

/* ---------------------------------------------------------------- errors, memory */

static void oom(aw *I)
{
    if (!I->oom)
        sh_err(I->p, "fatal: out of memory");
    I->oom = 1;
    I->status = 2;
}

/* Reports a runtime error (gawk's "fatal:" shape) and makes the status 2. */
static int fatal(aw *I, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fatal(aw *I, int line, const char *fmt, ...)
{
    sh_buf b = { 0 };
    va_list ap;
    va_start(ap, fmt);
    int r = sh_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    if (r == 0 && sh_buf_cstr(&b)) {
        if (line > 0)
            sh_err(I->p, "cmd. line:%d: fatal: %s", line, b.data);
        else
            sh_err(I->p, "fatal: %s", b.data);
    }
    sh_buf_free(&b);
    I->status = 2;
    return C_ERROR;
}

static void *xcalloc(aw *I, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(I);
    return p;
}

static char *xstrndup(aw *I, const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d) {
        oom(I);
        return NULL;
    }
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static char *xstrdup(aw *I, const char *s)
{
    return xstrndup(I, s, strlen(s));
}

/* Grows *arr (of *cap elements of size) to hold at least need; 0 or -1. */
static int grow(aw *I, void **arr, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return 0;
    int ncap = *cap ? *cap * 2 : 8;
    while (ncap < need)
        ncap *= 2;
    void *g = realloc(*arr, (size_t)ncap * size);
    if (!g) {
        oom(I);
        return -1;
    }
    memset((char *)g + (size_t)*cap * size, 0, (size_t)(ncap - *cap) * size);
    *arr = g;
    *cap = ncap;
    return 0;
}

static void val_free(aval *v)
{
    free(v->str);
    v->str = NULL;
    v->type = T_UNINIT;
    v->num = 0;
}

/* ---------------------------------------------------------------- numbers, strings */

/* The length of the longest prefix of s (after blanks) that is a decimal number
 * as awk reads one; 0 when there is none. */
static size_t number_prefix(const char *s)
{
    size_t i = 0, digits = 0;
    if (s[i] == '+' || s[i] == '-')
        i++;
    while (isdigit((unsigned char)s[i])) {
        i++;
        digits++;
    }
    if (s[i] == '.') {
        i++;
        while (isdigit((unsigned char)s[i])) {
            i++;
            digits++;
        }
    }
    if (!digits)
        return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1;
        if (s[j] == '+' || s[j] == '-')
            j++;
        if (isdigit((unsigned char)s[j])) {
            while (isdigit((unsigned char)s[j]))
                j++;
            i = j;
        }
    }
    return i;
}

static int is_blank_char(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The numeric value of a string: its leading number, or 0. */
static double str_to_num(const char *s)
{
    while (is_blank_char((unsigned char)*s))
        s++;
    size_t n = number_prefix(s);
    if (!n)
        return 0;
    char small[128];
    if (n < sizeof(small)) {
        memcpy(small, s, n);
        small[n] = '\0';
        return strtod(small, NULL);
    }
    char *big = strndup(s, n);
    double d = big ? strtod(big, NULL) : 0;
    free(big);
    return d;
}

/* Whether the whole string (blanks around allowed) is a number: input that
 * looks numeric compares as a number. */
static int looks_numeric(const char *s)
{
    while (is_blank_char((unsigned char)*s))
        s++;
    size_t n = number_prefix(s);
    if (!n)
        return 0;
    s += n;
    while (is_blank_char((unsigned char)*s))
        s++;
    return *s == '\0';
}

/* Makes v a string from input: T_STRNUM when it looks numeric. Takes s. */
static void val_set_input(aval *v, char *s)
{
    v->str = s;
    if (looks_numeric(s)) {
        v->type = T_STRNUM;
        v->num = str_to_num(s);
    } else {
        v->type = T_STR;
        v->num = 0;
    }
}

/* d as an integer, saturated to the long long range (0 for NaN). */
static long long to_ll(double d)
{
    if (isnan(d))
        return 0;
    if (d >= 9.2e18)
        return LLONG_MAX;
    if (d <= -9.2e18)
        return LLONG_MIN;
    return (long long)d;
}

static double to_num(const aval *v)
{
    switch (v->type) {
    case T_NUM:
    case T_STRNUM:
        return v->num;
    case T_STR:
        return str_to_num(v->str);
    default:
        return 0;
    }
}

/* Appends the text of number d: integers as integers, others through fmt. */
static int num_append(sh_buf *b, double d, const char *fmt)
{
    if (d == floor(d) && fabs(d) < 9.2e18)
        return sh_buf_addf(b, "%lld", (long long)d);
    if (isnan(d))
        return sh_buf_adds(b, signbit(d) ? "-nan" : "+nan");
    if (isinf(d))
        return sh_buf_adds(b, d < 0 ? "-inf" : "+inf");
    if (d == floor(d))
        return sh_buf_addf(b, "%.0f", d);
    if (!sh_one_float_format(fmt, "-+ #0"))
        fmt = "%.6g";
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    return sh_buf_addf(b, fmt, d);
#pragma GCC diagnostic pop
}

static const char *global_str(aw *I, int idx);

/* The string value of v (numbers through CONVFMT, cached in v); NULL when out
 * of memory. Valid while v is. */
static const char *str_of(aw *I, aval *v)
{
    if (v->str)
        return v->str;
    if (v->type == T_UNINIT)
        return "";
    sh_buf b = { 0 };
    if (num_append(&b, v->num, global_str(I, V_CONVFMT)) < 0 || !sh_buf_cstr(&b)) {
        sh_buf_free(&b);
        oom(I);
        return NULL;
    }
    v->str = b.data;
    return v->str;
}

/* Appends v as print writes it: numbers through OFMT. */
static int val_output(aw *I, sh_buf *b, aval *v)
{
    if (v->type == T_NUM)
        return num_append(b, v->num, global_str(I, V_OFMT));
    if (v->type == T_UNINIT)
        return 0;
    return sh_buf_adds(b, v->str);
}

static int val_copy(aw *I, aval *dst, const aval *src)
{
    *dst = *src;
    dst->str = NULL;
    if (src->type == T_STR || src->type == T_STRNUM) {
        dst->str = xstrdup(I, src->str);
        if (!dst->str) {
            dst->type = T_UNINIT;
            return -1;
        }
    }
    return 0;
}

static void val_num(aval *v, double d)
{
    val_free(v);
    v->type = T_NUM;
    v->num = d;
}

/* Makes v the string s (taken). */
static void val_str(aval *v, char *s)
{
    val_free(v);
    v->type = T_STR;
    v->str = s;
}

static int truth(const aval *v)
{
    switch (v->type) {
    case T_NUM:
    case T_STRNUM:
        return v->num != 0;
    case T_STR:
        return v->str[0] != '\0';
    default:
        return 0;
    }
}

static int is_numeric(const aval *v)
{
    return v->type != T_STR;
}

/* awk's comparison: numeric when both sides are numbers (or numeric input),
 * else as strings. Returns <0, 0, >0; 2 for unordered (NaN). */
static int compare(aw *I, aval *a, aval *b, int *err)
{
    if (is_numeric(a) && is_numeric(b)) {
        double x = to_num(a), y = to_num(b);
        if (isnan(x) || isnan(y))
            return 2;
        return x < y ? -1 : x > y;
    }
    const char *s = str_of(I, a), *t = str_of(I, b);
    if (!s || !t) {
        *err = 1;
        return 0;
    }
    int c = strcmp(s, t);
    return c < 0 ? -1 : c > 0;
}

/* ---------------------------------------------------------------- arrays */

static size_t hash_str(const char *s)
{
    size_t h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

static aarr *arr_new(aw *I)
{
    return xcalloc(I, 1, sizeof(aarr));
}

static aelem *arr_find(aarr *a, const char *key)
{
    if (!a->nb)
        return NULL;
    for (aelem *e = a->b[hash_str(key) % a->nb]; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

/* The element key of a, created (uninitialised) if missing; NULL when out of
 * memory. */
static aelem *arr_get(aw *I, aarr *a, const char *key)
{
    aelem *e = arr_find(a, key);
    if (e)
        return e;
    if (a->n >= a->nb) {
        size_t nb = a->nb ? a->nb * 2 : 16;
        aelem **nbk = calloc(nb, sizeof(*nbk));
        if (!nbk) {
            oom(I);
            return NULL;
        }
        for (size_t i = 0; i < a->nb; i++)
            for (aelem *x = a->b[i], *nx; x; x = nx) {
                nx = x->next;
                size_t h = hash_str(x->key) % nb;
                x->next = nbk[h];
                nbk[h] = x;
            }
        free(a->b);
        a->b = nbk;
        a->nb = nb;
    }
    e = xcalloc(I, 1, sizeof(*e));
    if (!e)
        return NULL;
    e->key = xstrdup(I, key);
    if (!e->key) {
        free(e);
        return NULL;
    }
    size_t h = hash_str(key) % a->nb;
    e->next = a->b[h];
    a->b[h] = e;
    a->n++;
    return e;
}

/* Removes a[key] if present. */
static void arr_delete(aarr *a, const char *key)
{
    if (!a->nb)
        return;
    for (aelem **pp = &a->b[hash_str(key) % a->nb]; *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->key, key) == 0) {
            aelem *e = *pp;
            *pp = e->next;
            free(e->key);
            val_free(&e->v);
            free(e);
            a->n--;
            return;
        }
    }
}

static void arr_clear(aarr *a)
{
    for (size_t i = 0; i < a->nb; i++)
        for (aelem *e = a->b[i], *nx; e; e = nx) {
            nx = e->next;
            free(e->key);
            val_free(&e->v);
            free(e);
        }
    free(a->b);
    a->b = NULL;
    a->nb = a->n = 0;
}

static void arr_free(aarr *a)
{
    if (a) {
        arr_clear(a);
        free(a);
    }
}

/* Sets a[key] to the string s (input-typed), for ENVIRON, ARGV, split(). */
static int arr_set_input(aw *I, aarr *a, const char *key, const char *s, size_t n)
{
    aelem *e = arr_get(I, a, key);
    char *d = e ? xstrndup(I, s, n) : NULL;
    if (!d)
        return -1;
    val_free(&e->v);
    val_set_input(&e->v, d);
    return 0;
}

static int arr_set_index(aw *I, aarr *a, long i, const char *s, size_t n)
{
    char key[32];
    snprintf(key, sizeof(key), "%ld", i);
    return arr_set_input(I, a, key, s, n);
}

/* ---------------------------------------------------------------- variables */

static void cell_free(acell *c)
{
    val_free(&c->v);
    if (c->kind == K_ARRAY && !c->borrowed)
        arr_free(c->arr);
    c->arr = NULL;
    c->kind = K_NONE;
}

static const char *cell_name(aw *I, acell *c)
{
    if (c >= I->globals && c < I->globals + I->nglobals)
        return I->gnames[c - I->globals];
    return "parameter";
}

/* The array held by a variable, created if the variable is untyped; NULL after
 * an error (a scalar used as an array, out of memory). */
static aarr *cell_array(aw *I, acell *c, int line)
{
    if (c->kind == K_ARRAY)
        return c->arr;
    if (c->kind == K_REF) {
        aarr *a = cell_array(I, c->ref, line);
        if (a) {
            c->kind = K_ARRAY;
            c->borrowed = 1;
            c->arr = a;
            c->ref = NULL;
        }
        return a;
    }
    if (c->kind == K_SCALAR || (c >= I->globals && c < I->globals + V_NSPECIAL &&
                                c != &I->globals[V_ENVIRON] && c != &I->globals[V_ARGV])) {
        fatal(I, line, "attempt to use scalar `%s' as an array", cell_name(I, c));
        return NULL;
    }
    c->arr = arr_new(I);
    if (!c->arr)
        return NULL;
    c->kind = K_ARRAY;
    c->borrowed = 0;
    return c->arr;
}

static acell *node_cell(aw *I, anode *n)
{
    acell *c = n->type == N_LOCAL ? &I->frame[n->idx] : &I->globals[n->idx];
    return c;
}

static aarr *node_array(aw *I, anode *n)
{
    return cell_array(I, node_cell(I, n), n->line);
}

static const char *global_str(aw *I, int idx)
{
    const char *s = str_of(I, &I->globals[idx].v);
    return s ? s : "";
}

static int set_global_str(aw *I, int idx, const char *s)
{
    char *d = xstrdup(I, s);
    if (!d)
        return -1;
    val_str(&I->globals[idx].v, d);
    I->globals[idx].kind = K_SCALAR;
    return 0;
}

static void set_global_num(aw *I, int idx, double d)
{
    val_num(&I->globals[idx].v, d);
    I->globals[idx].kind = K_SCALAR;
}

/* ---------------------------------------------------------------- regular expressions */

/* Rewrites an awk regular expression as a POSIX ERE: escape sequences become
 * their characters, \/ a slash, and gawk's \s \S \w \W bracket expressions. */
static char *regex_translate(aw *I, const char *s)
{
    sh_buf b = { 0 };
    int in_br = 0, r = 0;
    for (size_t i = 0; s[i] && r == 0; i++) {
        char c = s[i];
        if (in_br) {
            if (c == ']' && in_br > 1) {
                in_br = 0;
                r = sh_buf_addc(&b, c);
            } else if (c == '[' && (s[i + 1] == ':' || s[i + 1] == '.' || s[i + 1] == '=')) {
                char close = s[i + 1];
                size_t j = i + 2;
                while (s[j] && !(s[j] == close && s[j + 1] == ']'))
                    j++;
                if (!s[j])
                    j = strlen(s) - 2;
                r = sh_buf_add(&b, s + i, j + 2 - i);
                i = j + 1;
                in_br = 2;
            } else if (c == '\\' && s[i + 1]) {
                char d = s[++i];
                const char *map = strchr("n\nt\tr\rf\fv\va\a", d);
                r = sh_buf_addc(&b, map && (map - "n\nt\tr\rf\fv\va\a") % 2 == 0 ? map[1] : d);
                in_br = 2;
            } else {
                r = sh_buf_addc(&b, c);
                in_br = 2;
            }
            continue;
        }
        if (c == '[') {
            r = sh_buf_addc(&b, c);
            in_br = 1;
            if (s[i + 1] == '^')
                r |= sh_buf_addc(&b, s[++i]);
            if (s[i + 1] == ']') {
                r |= sh_buf_addc(&b, s[++i]);
                in_br = 2;
            }
            continue;
        }
        if (c != '\\') {
            r = sh_buf_addc(&b, c);
            continue;
        }
        char d = s[i + 1];
        if (!d) {
            r = sh_buf_adds(&b, "\\\\");
            continue;
        }
        i++;
        switch (d) {
        case 'n': r = sh_buf_addc(&b, '\n'); break;
        case 't': r = sh_buf_addc(&b, '\t'); break;
        case 'r': r = sh_buf_addc(&b, '\r'); break;
        case 'f': r = sh_buf_addc(&b, '\f'); break;
        case 'v': r = sh_buf_addc(&b, '\v'); break;
        case 'a': r = sh_buf_addc(&b, '\a'); break;
        case '/': r = sh_buf_addc(&b, '/'); break;
        case '"': r = sh_buf_addc(&b, '"'); break;
        case 's':
        case 'S':
        case 'w':
        case 'W': r = sh_rx_class(&b, d, 0) < 0; break;
        default:
            r = sh_buf_addc(&b, '\\');
            r |= sh_buf_addc(&b, d);
        }
    }
    if (r || !sh_buf_cstr(&b)) {
        sh_buf_free(&b);
        oom(I);
        return NULL;
    }
    return b.data;
}

/* Compiles an awk regular expression; NULL after reporting an error. */
static are *regex_compile(aw *I, const char *src, int line)
{
    are *r = xcalloc(I, 1, sizeof(*r));
    if (!r)
        return NULL;
    if (!*src) {
        r->empty = 1;
        return r;
    }
    char *ere = regex_translate(I, src);
    if (!ere) {
        free(r);
        return NULL;
    }
    int e = regcomp(&r->re, ere, REG_EXTENDED);
    free(ere);
    if (e) {
        char msg[128];
        regerror(e, &r->re, msg, sizeof(msg));
        fatal(I, line, "invalid regexp: %s: /%s/", msg, src);
        free(r);
        return NULL;
    }
    return r;
}

static void regex_free(are *r)
{
    if (r) {
        if (!r->empty)
            regfree(&r->re);
        free(r);
    }
}

/* Matches r in s; m[0..nm) get the offsets. notbol: s is not at a line start. */
static int regex_exec(const are *r, const char *s, int notbol, regmatch_t *m, size_t nm)
{
    if (r->empty) {
        for (size_t i = 0; i < nm; i++)
            m[i].rm_so = m[i].rm_eo = i ? -1 : 0;
        return 1;
    }
    return regexec(&r->re, s, nm, m, notbol ? REG_NOTBOL : 0) == 0;
}

/* A compiled regular expression for the dynamic regex src, from a small cache.
 * Valid until the next dynamic regex is compiled. */
static are *regex_dynamic(aw *I, const char *src, int line)
{
    for (int i = 0; i < RE_CACHE; i++)
        if (I->recache[i].src && strcmp(I->recache[i].src, src) == 0)
            return I->recache[i].re;
    are *r = regex_compile(I, src, line);
    if (!r)
        return NULL;
    char *copy = xstrdup(I, src);
    if (!copy) {
        regex_free(r);
        return NULL;
    }
    int k = I->recache_next;
    I->recache_next = (k + 1) % RE_CACHE;
    free(I->recache[k].src);
    regex_free(I->recache[k].re);
    I->recache[k].src = copy;
    I->recache[k].re = r;
    return r;
}

/* The regex of a match operand: a /literal/ or any expression's string. */
static are *node_regex(aw *I, anode *n)
{
    if (n->type == N_REGEX)
        return n->re;
    aval v = { 0 };
    if (eval(I, n, &v) != C_OK)
        return NULL;
    const char *s = str_of(I, &v);
    are *r = s ? regex_dynamic(I, s, n->line) : NULL;
    val_free(&v);
    return r;
}

/* ---------------------------------------------------------------- lexer */

/* Decodes the escape after a backslash at s into *c; returns the bytes used. */
static size_t parse_escape(const char *s, char *c)
{
    static const char map[] = "n\nt\tr\rf\fv\va\ab\b\\\\\"\"//";
    if (!*s) {
        *c = '\\';
        return 0;
    }
    for (size_t i = 0; map[i]; i += 2)
        if (map[i] == *s) {
            *c = map[i + 1];
            return 1;
        }
    if (*s >= '0' && *s <= '7') {
        int v = 0;
        size_t i = 0;
        while (i < 3 && s[i] >= '0' && s[i] <= '7')
            v = v * 8 + (s[i++] - '0');
        *c = (char)v;
        return i;
    }
    if (*s == 'x' && isxdigit((unsigned char)s[1])) {
        int v = 0;
        size_t i = 1;
        while (i < 3 && isxdigit((unsigned char)s[i])) {
            int d = s[i++];
            v = v * 16 + (isdigit(d) ? d - '0' : (tolower(d) - 'a' + 10));
        }
        *c = (char)v;
        return i;
    }
    *c = *s;
    return 1;
}

/* Processes escape sequences (for -v values and var=value operands). */
static char *unescape(aw *I, const char *s)
{
    sh_buf b = { 0 };
    int r = 0;
    while (*s && r == 0) {
        if (*s == '\\') {
            char c;
            size_t n = parse_escape(s + 1, &c);
            r = sh_buf_addc(&b, c);
            s += 1 + n;
        } else {
            r = sh_buf_addc(&b, *s++);
        }
    }
    if (r || !sh_buf_cstr(&b)) {
        sh_buf_free(&b);
        oom(I);
        return NULL;
    }
    return b.data;
}

static void lex_error(aw *I, int line, const char *msg)
{
    if (!I->perr)
        sh_err(I->p, "cmd. line:%d: %s", line, msg);
    I->perr = 1;
}

static token *add_token(aw *I, int type, int line)
{
    if (grow(I, (void **)&I->toks, &I->captok, I->ntok + 1, sizeof(token)) < 0) {
        I->perr = 1;
        return NULL;
    }
    token *t = &I->toks[I->ntok++];
    t->type = type;
    t->line = line;
    return t;
}

/* Whether a '/' after a token of this type divides (else it starts a regex). */
static int ends_operand(int type)
{
    return type == TK_NAME || type == TK_NUMBER || type == TK_STRING || type == TK_ERE ||
           type == TK_BUILTIN || type == TK_RPAREN || type == TK_RBRACKET || type == TK_INCR ||
           type == TK_DECR || type == TK_DOLLAR;
}

/* Splits the program text into tokens; 0, or -1 after a reported error. */
static int lex(aw *I, const char *s)
{
    int line = 1;
    while (!I->perr) {
        char c = *s;
        if (c == ' ' || c == '\t' || c == '\r') {
            s++;
            continue;
        }
        if (c == '\\' && (s[1] == '\n' || (s[1] == '\r' && s[2] == '\n'))) {
            s += s[1] == '\n' ? 2 : 3;
            line++;
            continue;
        }
        if (c == '#') {
            while (*s && *s != '\n')
                s++;
            continue;
        }
        if (!c) {
            add_token(I, TK_EOF, line);
            break;
        }
        if (c == '\n') {
            add_token(I, TK_NEWLINE, line++);
            s++;
            continue;
        }
        int prev = I->ntok ? I->toks[I->ntok - 1].type : TK_NEWLINE;
        if (c == '"') {
            sh_buf b = { 0 };
            int r = 0;
            s++;
            while (*s && *s != '"' && *s != '\n' && r == 0) {
                if (*s == '\\' && s[1] == '\n') {
                    s += 2;
                    line++;
                } else if (*s == '\\') {
                    char e;
                    size_t n = parse_escape(s + 1, &e);
                    r = sh_buf_addc(&b, e);
                    s += 1 + n;
                } else {
                    r = sh_buf_addc(&b, *s++);
                }
            }
            if (*s != '"') {
                sh_buf_free(&b);
                lex_error(I, line, "unterminated string");
                break;
            }
            s++;
            token *t = add_token(I, TK_STRING, line);
            if (r || !t || !sh_buf_cstr(&b)) {
                sh_buf_free(&b);
                oom(I);
                I->perr = 1;
                break;
            }
            t->str = b.data;
            continue;
        }
        if (c == '/' && !ends_operand(prev)) {
            const char *start = ++s;
            int in_br = 0;
            while (*s && *s != '\n' && (in_br || *s != '/')) {
                if (*s == '\\' && s[1] && s[1] != '\n')
                    s++;
                else if (*s == '[' && !in_br) {
                    in_br = 1;
                    if (s[1] == '^')
                        s++;
                    if (s[1] == ']')
                        s++;
                } else if (*s == ']')
                    in_br = 0;
                s++;
            }
            if (*s != '/') {
                lex_error(I, line, "unterminated regexp");
                break;
            }
            token *t = add_token(I, TK_ERE, line);
            if (t && !(t->str = xstrndup(I, start, (size_t)(s - start))))
                I->perr = 1;
            s++;
            continue;
        }
        if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)s[1]))) {
            char *end;
            double d;
            if (c == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
                d = (double)strtoull(s + 2, &end, 16);
            } else {
                size_t n = strspn(s, "01234567");
                if (c == '0' && n > 1 && !isdigit((unsigned char)s[n]) && s[n] != '.' &&
                    s[n] != 'e' && s[n] != 'E')
                    d = (double)strtoull(s, &end, 8);
                else
                    d = strtod(s, &end);
            }
            token *t = add_token(I, TK_NUMBER, line);
            if (t)
                t->num = d;
            s = end;
            continue;
        }
        if (isalpha((unsigned char)c) || c == '_') {
            const char *start = s;
            while (isalnum((unsigned char)*s) || *s == '_')
                s++;
            size_t n = (size_t)(s - start);
            int type = TK_NAME, id = 0;
            for (int k = 0; keywords[k].name; k++)
                if (strlen(keywords[k].name) == n && memcmp(keywords[k].name, start, n) == 0)
                    type = keywords[k].tok;
            for (int k = 0; type == TK_NAME && builtins[k].name; k++)
                if (strlen(builtins[k].name) == n && memcmp(builtins[k].name, start, n) == 0) {
                    type = TK_BUILTIN;
                    id = k;
                }
            if (type == TK_NAME && *s == '(')
                type = TK_FUNC_NAME;
            token *t = add_token(I, type, line);
            if (!t)
                break;
            t->id = id;
            if ((type == TK_NAME || type == TK_FUNC_NAME) && !(t->str = xstrndup(I, start, n)))
                I->perr = 1;
            continue;
        }
        int k;
        for (k = 0; puncts[k].text; k++)
            if (strncmp(s, puncts[k].text, strlen(puncts[k].text)) == 0)
                break;
        if (!puncts[k].text) {
            char msg[64];
            snprintf(msg, sizeof(msg), "invalid char '%c' in expression", c);
            lex_error(I, line, msg);
            break;
        }
        add_token(I, puncts[k].tok, line);
        s += strlen(puncts[k].text);
    }
    return I->perr ? -1 : 0;
}

/* ---------------------------------------------------------------- parser */

static int tok(aw *I)
{
    return I->toks[I->tpos].type;
}

static int tok_at(aw *I, int k)
{
    int i = I->tpos + k;
    return i < I->ntok ? I->toks[i].type : TK_EOF;
}

static int line_now(aw *I)
{
    return I->toks[I->tpos].line;
}

static void advance(aw *I)
{
    if (I->tpos < I->ntok - 1)
        I->tpos++;
}

static anode *syntax_error(aw *I)
{
    if (!I->perr) {
        token *t = &I->toks[I->tpos];
        if (t->type == TK_EOF || t->type == TK_NEWLINE)
            sh_err(I->p, "cmd. line:%d: syntax error: unexpected newline or end of string",
                   t->line);
        else
            sh_err(I->p, "cmd. line:%d: syntax error", t->line);
    }
    I->perr = 1;
    return NULL;
}

static int expect(aw *I, int type)
{
    if (tok(I) != type) {
        syntax_error(I);
        return -1;
    }
    advance(I);
    return 0;
}

static void skip_nl(aw *I)
{
    while (tok(I) == TK_NEWLINE)
        advance(I);
}

static void skip_terms(aw *I)
{
    while (tok(I) == TK_NEWLINE || tok(I) == TK_SEMI)
        advance(I);
}

static anode *new_node(aw *I, int type, int line)
{
    anode *n = xcalloc(I, 1, sizeof(*n));
    if (!n) {
        I->perr = 1;
        return NULL;
    }
    n->type = type;
    n->line = line;
    n->chain = I->nodes;
    I->nodes = n;
    return n;
}

static anode *node2(aw *I, int type, int op, anode *a, anode *b, int line)
{
    if (!a || I->perr)
        return NULL;
    anode *n = new_node(I, type, line);
    if (n) {
        n->op = op;
        n->a = a;
        n->b = b;
    }
    return n;
}

/* The index of global name, added if new; -1 when out of memory. */
static int global_index(aw *I, const char *name)
{
    for (int i = 0; i < I->nglobals; i++)
        if (strcmp(I->gnames[i], name) == 0)
            return i;
    if (grow(I, (void **)&I->gnames, &I->capglobals, I->nglobals + 1, sizeof(char *)) < 0)
        return -1;
    char *d = xstrdup(I, name);
    if (!d)
        return -1;
    I->gnames[I->nglobals] = d;
    return I->nglobals++;
}

/* The index of function name, registered (undefined yet) if new; -1 when out
 * of memory. Calls may come before the definition. */
static int func_index(aw *I, const char *name)
{
    for (int i = 0; i < I->nfuncs; i++)
        if (strcmp(I->funcs[i].name, name) == 0)
            return i;
    if (grow(I, (void **)&I->funcs, &I->capfuncs, I->nfuncs + 1, sizeof(afunc)) < 0)
        return -1;
    afunc *f = &I->funcs[I->nfuncs];
    memset(f, 0, sizeof(*f));
    f->name = xstrdup(I, name);
    if (!f->name)
        return -1;
    return I->nfuncs++;
}

/* A variable reference: a parameter of the function being parsed, or a global. */
static anode *name_node(aw *I, const char *name, int line)
{
    afunc *f = I->cur_func >= 0 ? &I->funcs[I->cur_func] : NULL;
    for (int i = 0; f && i < f->nparams; i++)
        if (strcmp(f->params[i], name) == 0) {
            anode *n = new_node(I, N_LOCAL, line);
            if (n)
                n->idx = i;
            return n;
        }
    for (int i = 0; i < I->nfuncs; i++)
        if (I->funcs[i].defined && strcmp(I->funcs[i].name, name) == 0) {
            sh_err(I->p, "cmd. line:%d: function name `%s' used as a variable", line, name);
            I->perr = 1;
            return NULL;
        }
    int g = global_index(I, name);
    if (g < 0) {
        I->perr = 1;
        return NULL;
    }
    anode *n = new_node(I, N_VAR, line);
    if (n)
        n->idx = g;
    return n;
}

/* expr { ',' expr }: the list, linked through next; *count gets its length. */
static anode *parse_expr_list(aw *I, int *count)
{
    anode *head = parse_expr(I), *tail = head;
    int n = head ? 1 : 0;
    while (tail && tok(I) == TK_COMMA) {
        advance(I);
        skip_nl(I);
        tail->next = parse_expr(I);
        tail = tail->next;
        n++;
    }
    if (count)
        *count = n;
    return tail ? head : NULL;
}

static int is_lvalue(const anode *n)
{
    return n && (n->type == N_VAR || n->type == N_LOCAL || n->type == N_FIELD ||
                 n->type == N_INDEX);
}

/* NAME or NAME[subscripts]. */
static anode *parse_variable(aw *I)
{
    token *t = &I->toks[I->tpos];
    anode *v = name_node(I, t->str, t->line);
    advance(I);
    if (!v || tok(I) != TK_LBRACKET)
        return v;
    advance(I);
    int save = I->no_gt;
    I->no_gt = 0;
    anode *subs = parse_expr_list(I, NULL);
    I->no_gt = save;
    if (!subs || expect(I, TK_RBRACKET) < 0)
        return NULL;
    return node2(I, N_INDEX, 0, v, subs, t->line);
}

/* Arguments of a call, after the '(' : returns the list (NULL for none). */
static anode *parse_call_args(aw *I, int *count, int *ok)
{
    int save = I->no_gt;
    I->no_gt = 0;
    anode *args = NULL;
    *count = 0;
    *ok = 1;
    skip_nl(I);
    if (tok(I) != TK_RPAREN) {
        args = parse_expr_list(I, count);
        skip_nl(I);
        if (!args)
            *ok = 0;
    }
    I->no_gt = save;
    if (*ok && expect(I, TK_RPAREN) < 0)
        *ok = 0;
    return args;
}

/* getline forms that start with the keyword: getline [lvalue] [< file]. */
static anode *parse_simple_getline(aw *I)
{
    int line = line_now(I);
    advance(I);
    anode *n = new_node(I, N_GETLINE, line);
    if (!n)
        return NULL;
    n->op = G_PLAIN;
    if (tok(I) == TK_DOLLAR || tok(I) == TK_NAME) {
        n->a = parse_primary(I);
        if (!n->a)
            return NULL;
    }
    if (tok(I) == TK_LT) {
        advance(I);
        n->op = G_FILE;
        n->b = parse_primary(I);
        if (!n->b)
            return NULL;
    }
    return n;
}

static anode *parse_primary_inner(aw *I);

/* A primary expression, counting nesting depth (each level recurses). */
static anode *parse_primary(aw *I)
{
    if (++I->pdepth > MAX_PARSE_DEPTH) {
        if (!I->perr)
            sh_err(I->p, "cmd. line:%d: expression nested too deeply", line_now(I));
        I->perr = 1;
        return NULL;
    }
    anode *n = parse_primary_inner(I);
    I->pdepth--;
    return n;
}

/* Constants, regexes, $, grouping, ++/--, variables, calls and getline. */
static anode *parse_primary_inner(aw *I)
{
    token *t = &I->toks[I->tpos];
    int line = t->line;
    anode *n;
    switch (t->type) {
    case TK_NUMBER:
        n = new_node(I, N_NUM, line);
        if (n)
            n->num = t->num;
        advance(I);
        return n;
    case TK_STRING:
        n = new_node(I, N_STR, line);
        if (n && !(n->str = xstrdup(I, t->str)))
            I->perr = 1;
        advance(I);
        return n;
    case TK_ERE:
        n = new_node(I, N_REGEX, line);
        if (n && !(n->re = regex_compile(I, t->str, line)))
            I->perr = 1;
        advance(I);
        return I->perr ? NULL : n;
    case TK_DOLLAR: {
        /* $ binds tighter than everything: $i++ is ($i)++, $-1 is $(-1). */
        advance(I);
        anode *e = parse_primary(I);
        return e ? node2(I, N_FIELD, 0, e, NULL, line) : NULL;
    }
    case TK_LPAREN: {
        advance(I);
        int save = I->no_gt;
        I->no_gt = 0;
        int count;
        anode *list = parse_expr_list(I, &count);
        I->no_gt = save;
        if (!list || expect(I, TK_RPAREN) < 0)
            return NULL;
        if (count == 1)
            return list;
        n = new_node(I, N_GROUP, line);
        if (n)
            n->a = list;
        return n;
    }
    case TK_INCR:
    case TK_DECR: {
        advance(I);
        anode *lv = parse_primary(I);
        if (!lv)
            return NULL;
        if (!is_lvalue(lv))
            return syntax_error(I);
        n = new_node(I, t->type == TK_INCR ? N_PREINC : N_PREDEC, line);
        if (n)
            n->a = lv;
        return n;
    }
    case TK_MINUS:
    case TK_PLUS:
    case TK_NOT: {
        /* Only after $ (elsewhere parse_unary takes them). */
        advance(I);
        anode *e = parse_primary(I);
        return node2(I, t->type == TK_MINUS ? N_NEG : t->type == TK_PLUS ? N_UPLUS : N_NOT, 0,
                     e, NULL, line);
    }
    case TK_NAME:
        return parse_variable(I);
    case TK_FUNC_NAME: {
        char *name = t->str;
        advance(I);
        advance(I);
        int count, ok;
        anode *args = parse_call_args(I, &count, &ok);
        if (!ok)
            return NULL;
        n = new_node(I, N_CALL, line);
        if (!n)
            return NULL;
        n->a = args;
        n->nargs = count;
        n->idx = func_index(I, name);
        if (n->idx < 0)
            return syntax_error(I);
        return n;
    }
    case TK_BUILTIN: {
        int id = t->id, count = 0, ok = 1;
        anode *args = NULL;
        advance(I);
        if (tok(I) == TK_LPAREN) {
            advance(I);
            args = parse_call_args(I, &count, &ok);
            if (!ok)
                return NULL;
        } else if (id != B_LENGTH) {
            return syntax_error(I);
        }
        if (count < builtins[id].min || count > builtins[id].max) {
            sh_err(I->p, "cmd. line:%d: %s called with %d arguments", line, builtins[id].name,
                   count);
            I->perr = 1;
            return NULL;
        }
        if ((id == B_SUB || id == B_GSUB) && count == 3 && !is_lvalue(args->next->next)) {
            sh_err(I->p, "cmd. line:%d: %s third parameter is not a changeable object", line,
                   builtins[id].name);
            I->perr = 1;
            return NULL;
        }
        if ((id == B_SPLIT && args->next->type != N_VAR && args->next->type != N_LOCAL) ||
            (id == B_SPLIT && count == 4 && args->next->next->next->type != N_VAR &&
             args->next->next->next->type != N_LOCAL) ||
            (id == B_MATCH && count == 3 && args->next->next->type != N_VAR &&
             args->next->next->type != N_LOCAL) ||
            ((id == B_ASORT || id == B_ASORTI) &&
             ((args->type != N_VAR && args->type != N_LOCAL) ||
              (count == 2 && args->next->type != N_VAR && args->next->type != N_LOCAL))))
            return syntax_error(I);
        n = new_node(I, N_BUILTIN, line);
        if (n) {
            n->op = id;
            n->a = args;
            n->nargs = count;
        }
        return n;
    }
    case TK_GETLINE:
        return parse_simple_getline(I);
    default:
        return syntax_error(I);
    }
}

/* A primary with an optional postfix ++ or --. */
static anode *parse_postfix(aw *I)
{
    anode *e = parse_primary(I);
    if (e && is_lvalue(e) && (tok(I) == TK_INCR || tok(I) == TK_DECR)) {
        int line = line_now(I);
        int type = tok(I) == TK_INCR ? N_POSTINC : N_POSTDEC;
        advance(I);
        anode *n = new_node(I, type, line);
        if (n)
            n->a = e;
        return n;
    }
    return e;
}

static anode *parse_unary(aw *I);

/* Exponentiation, right-associative, binding tighter than unary minus. */
static anode *parse_power(aw *I)
{
    anode *base = parse_postfix(I);
    if (base && tok(I) == TK_POW) {
        int line = line_now(I);
        advance(I);
        return node2(I, N_BINARY, '^', base, parse_unary(I), line);
    }
    return base;
}

static anode *parse_unary(aw *I)
{
    int t = tok(I), line = line_now(I);
    if (t != TK_NOT && t != TK_MINUS && t != TK_PLUS)
        return parse_power(I);
    if (++I->pdepth > MAX_PARSE_DEPTH)
        return syntax_error(I);
    advance(I);
    anode *e = parse_unary(I);
    I->pdepth--;
    return node2(I, t == TK_NOT ? N_NOT : t == TK_MINUS ? N_NEG : N_UPLUS, 0, e, NULL, line);
}

static anode *parse_mul(aw *I)
{
    anode *l = parse_unary(I);
    while (l && (tok(I) == TK_STAR || tok(I) == TK_SLASH || tok(I) == TK_PERCENT)) {
        int t = tok(I), line = line_now(I);
        advance(I);
        l = node2(I, N_BINARY, t == TK_STAR ? '*' : t == TK_SLASH ? '/' : '%', l,
                  parse_unary(I), line);
    }
    return l;
}

static anode *parse_additive(aw *I)
{
    anode *l = parse_mul(I);
    while (l && (tok(I) == TK_PLUS || tok(I) == TK_MINUS)) {
        int t = tok(I), line = line_now(I);
        advance(I);
        l = node2(I, N_BINARY, t == TK_PLUS ? '+' : '-', l, parse_mul(I), line);
    }
    return l;
}

static int starts_concat(int t)
{
    return t == TK_NUMBER || t == TK_STRING || t == TK_ERE || t == TK_NAME ||
           t == TK_FUNC_NAME || t == TK_BUILTIN || t == TK_DOLLAR || t == TK_LPAREN ||
           t == TK_INCR || t == TK_DECR || t == TK_NOT || t == TK_MINUS;
}

/* Concatenation, then `cmd | getline [var]` which binds just above it. */
static anode *parse_concat(aw *I)
{
    anode *l = parse_additive(I);
    while (l && starts_concat(tok(I))) {
        if (tok(I) == TK_MINUS || tok(I) == TK_NOT)
            break;
        int line = line_now(I);
        l = node2(I, N_CONCAT, 0, l, parse_additive(I), line);
    }
    while (l && tok(I) == TK_PIPE && tok_at(I, 1) == TK_GETLINE) {
        int line = line_now(I);
        advance(I);
        advance(I);
        anode *n = new_node(I, N_GETLINE, line);
        if (!n)
            return NULL;
        n->op = G_CMD;
        n->b = l;
        if (tok(I) == TK_DOLLAR || tok(I) == TK_NAME) {
            n->a = parse_primary(I);
            if (!n->a)
                return NULL;
        }
        l = n;
    }
    return l;
}

static int is_relop(aw *I, int t)
{
    return t == TK_LT || t == TK_LE || t == TK_NE || t == TK_EQ || t == TK_GE ||
           (t == TK_GT && !I->no_gt);
}

/* Comparisons do not chain: `a < b < c` is a syntax error, as in gawk. */
static anode *parse_compare(aw *I)
{
    anode *l = parse_concat(I);
    int t = tok(I);
    if (!l || !is_relop(I, t))
        return l;
    int line = line_now(I);
    advance(I);
    l = node2(I, N_CMP, t, l, parse_concat(I), line);
    if (l && is_relop(I, tok(I)))
        return syntax_error(I);
    return l;
}

static anode *parse_match(aw *I)
{
    anode *l = parse_compare(I);
    while (l && (tok(I) == TK_MATCH || tok(I) == TK_NOMATCH)) {
        int neg = tok(I) == TK_NOMATCH, line = line_now(I);
        advance(I);
        l = node2(I, N_MATCH, neg, l, parse_compare(I), line);
    }
    return l;
}

/* `sub in array`, and `(i, j) in array` for a grouped list. */
static anode *parse_in(aw *I)
{
    anode *l = parse_match(I);
    while (l && tok(I) == TK_IN) {
        int line = line_now(I);
        advance(I);
        if (tok(I) != TK_NAME)
            return syntax_error(I);
        token *t = &I->toks[I->tpos];
        anode *arr = name_node(I, t->str, t->line);
        advance(I);
        anode *subs = l->type == N_GROUP ? l->a : l;
        l = node2(I, N_IN, 0, subs, arr, line);
    }
    return l;
}

static anode *parse_and(aw *I)
{
    anode *l = parse_in(I);
    while (l && tok(I) == TK_AND) {
        int line = line_now(I);
        advance(I);
        skip_nl(I);
        l = node2(I, N_AND, 0, l, parse_in(I), line);
    }
    return l;
}

static anode *parse_or(aw *I)
{
    anode *l = parse_and(I);
    while (l && tok(I) == TK_OR) {
        int line = line_now(I);
        advance(I);
        skip_nl(I);
        l = node2(I, N_OR, 0, l, parse_and(I), line);
    }
    return l;
}

/* cond ? a : b, right-associative; newlines may follow ? and :. */
static anode *parse_ternary(aw *I)
{
    anode *c = parse_or(I);
    if (!c || tok(I) != TK_QUESTION)
        return c;
    int line = line_now(I);
    advance(I);
    skip_nl(I);
    anode *a = parse_expr(I);
    skip_nl(I);
    if (!a || expect(I, TK_COLON) < 0)
        return NULL;
    skip_nl(I);
    anode *b = parse_expr(I);
    anode *n = node2(I, N_COND, 0, c, a, line);
    if (n && b)
        n->c = b;
    return b ? n : NULL;
}

static int assign_op(int t)
{
    switch (t) {
    case TK_ASSIGN: return '=';
    case TK_ADD_ASSIGN: return '+';
    case TK_SUB_ASSIGN: return '-';
    case TK_MUL_ASSIGN: return '*';
    case TK_DIV_ASSIGN: return '/';
    case TK_MOD_ASSIGN: return '%';
    case TK_POW_ASSIGN: return '^';
    default: return 0;
    }
}

/* A whole expression: assignments (right-associative) over the ternary. */
static anode *parse_expr(aw *I)
{
    if (++I->pdepth > MAX_PARSE_DEPTH) {
        if (!I->perr)
            sh_err(I->p, "cmd. line:%d: expression nested too deeply", line_now(I));
        I->perr = 1;
        return NULL;
    }
    anode *l = parse_ternary(I);
    int op = assign_op(tok(I));
    if (l && op) {
        if (!is_lvalue(l)) {
            I->pdepth--;
            return syntax_error(I);
        }
        int line = line_now(I);
        advance(I);
        skip_nl(I);
        l = node2(I, N_ASSIGN, op, l, parse_expr(I), line);
    }
    I->pdepth--;
    return l;
}

static anode *parse_stmt(aw *I);

/* Ends a simple statement: ';' or newline, or before '}' or the end. */
static int end_simple(aw *I)
{
    if (tok(I) == TK_SEMI || tok(I) == TK_NEWLINE) {
        advance(I);
        return 0;
    }
    if (tok(I) == TK_RBRACE || tok(I) == TK_EOF)
        return 0;
    syntax_error(I);
    return -1;
}

/* { statements }: a block node listing them. */
static anode *parse_block(aw *I)
{
    int line = line_now(I);
    if (expect(I, TK_LBRACE) < 0)
        return NULL;
    anode *blk = new_node(I, S_BLOCK, line), *tail = NULL;
    if (!blk)
        return NULL;
    for (;;) {
        skip_terms(I);
        if (tok(I) == TK_RBRACE)
            break;
        if (tok(I) == TK_EOF)
            return syntax_error(I);
        anode *s = parse_stmt(I);
        if (!s)
            return NULL;
        if (tail)
            tail->next = s;
        else
            blk->a = s;
        tail = s;
    }
    advance(I);
    return blk;
}

/* print/printf: arguments (a parenthesised list too) and a redirection. */
static anode *parse_print(aw *I)
{
    int line = line_now(I);
    anode *n = new_node(I, tok(I) == TK_PRINT ? S_PRINT : S_PRINTF, line);
    if (!n)
        return NULL;
    advance(I);
    int t = tok(I);
    if (t != TK_SEMI && t != TK_NEWLINE && t != TK_RBRACE && t != TK_GT && t != TK_APPEND &&
        t != TK_PIPE && t != TK_EOF) {
        I->no_gt = 1;
        n->a = parse_expr_list(I, &n->nargs);
        I->no_gt = 0;
        if (!n->a)
            return NULL;
        if (n->nargs == 1 && n->a->type == N_GROUP) {
            n->a = n->a->a;
            n->nargs = 0;
            for (anode *x = n->a; x; x = x->next)
                n->nargs++;
        }
    }
    if (n->type == S_PRINTF && !n->a)
        return syntax_error(I);
    t = tok(I);
    if (t == TK_GT || t == TK_APPEND || t == TK_PIPE) {
        advance(I);
        n->op = t;
        n->b = parse_concat(I);
        if (!n->b)
            return NULL;
    }
    return n;
}

/* A statement that ends with a terminator: print, next, exit, return,
 * delete, or an expression. */
static anode *parse_simple_stmt(aw *I)
{
    int line = line_now(I);
    int t = tok(I);
    anode *n;
    switch (t) {
    case TK_PRINT:
    case TK_PRINTF:
        return parse_print(I);
    case TK_NEXT:
    case TK_NEXTFILE:
    case TK_BREAK:
    case TK_CONTINUE:
        advance(I);
        return new_node(I, t == TK_NEXT       ? S_NEXT
                           : t == TK_NEXTFILE ? S_NEXTFILE
                           : t == TK_BREAK    ? S_BREAK
                                              : S_CONTINUE,
                        line);
    case TK_EXIT:
    case TK_RETURN:
        advance(I);
        n = new_node(I, t == TK_EXIT ? S_EXIT : S_RETURN, line);
        if (n && tok(I) != TK_SEMI && tok(I) != TK_NEWLINE && tok(I) != TK_RBRACE &&
            tok(I) != TK_EOF && !(n->a = parse_expr(I)))
            return NULL;
        if (t == TK_RETURN && I->cur_func < 0) {
            sh_err(I->p, "cmd. line:%d: `return' used outside function context", line);
            I->perr = 1;
            return NULL;
        }
        return n;
    case TK_DELETE:
        advance(I);
        if (tok(I) != TK_NAME)
            return syntax_error(I);
        n = new_node(I, S_DELETE, line);
        if (!n)
            return NULL;
        {
            token *nt = &I->toks[I->tpos];
            n->a = name_node(I, nt->str, nt->line);
        }
        advance(I);
        if (!n->a)
            return NULL;
        if (tok(I) == TK_LBRACKET) {
            advance(I);
            n->b = parse_expr_list(I, NULL);
            if (!n->b || expect(I, TK_RBRACKET) < 0)
                return NULL;
        }
        return n;
    default:
        n = new_node(I, S_EXPR, line);
        if (n && !(n->a = parse_expr(I)))
            return NULL;
        return n;
    }
}

/* The statement after if/while/for (...): newlines may come first. */
static anode *parse_body(aw *I)
{
    skip_nl(I);
    if (tok(I) == TK_SEMI) {
        advance(I);
        return new_node(I, S_BLOCK, line_now(I));
    }
    return parse_stmt(I);
}

static anode *parse_cond(aw *I)
{
    if (expect(I, TK_LPAREN) < 0)
        return NULL;
    anode *c = parse_expr(I);
    if (!c || expect(I, TK_RPAREN) < 0)
        return NULL;
    return c;
}

/* for (init; cond; step) body, or for (var in array) body. */
static anode *parse_for(aw *I, int line)
{
    advance(I);
    if (tok(I) == TK_LPAREN && tok_at(I, 1) == TK_NAME && tok_at(I, 2) == TK_IN &&
        tok_at(I, 3) == TK_NAME && tok_at(I, 4) == TK_RPAREN) {
        anode *n = new_node(I, S_FORIN, line);
        if (!n)
            return NULL;
        advance(I);
        token *v = &I->toks[I->tpos];
        n->a = name_node(I, v->str, v->line);
        advance(I);
        advance(I);
        token *arr = &I->toks[I->tpos];
        n->b = name_node(I, arr->str, arr->line);
        advance(I);
        advance(I);
        if (!n->a || !n->b || !(n->c = parse_body(I)))
            return NULL;
        return n;
    }
    anode *n = new_node(I, S_FOR, line);
    if (!n || expect(I, TK_LPAREN) < 0)
        return NULL;
    if (tok(I) != TK_SEMI && !(n->a = parse_simple_stmt(I)))
        return NULL;
    if (expect(I, TK_SEMI) < 0)
        return NULL;
    skip_nl(I);
    if (tok(I) != TK_SEMI && !(n->b = parse_expr(I)))
        return NULL;
    if (expect(I, TK_SEMI) < 0)
        return NULL;
    skip_nl(I);
    if (tok(I) != TK_RPAREN && !(n->c = parse_simple_stmt(I)))
        return NULL;
    if (expect(I, TK_RPAREN) < 0 || !(n->d = parse_body(I)))
        return NULL;
    return n;
}

/* One statement, compound or simple, with its terminator. */
static anode *parse_stmt(aw *I)
{
    int line = line_now(I);
    anode *n;
    if (++I->pdepth > MAX_PARSE_DEPTH) {
        if (!I->perr)
            sh_err(I->p, "cmd. line:%d: statements nested too deeply", line);
        I->perr = 1;
        return NULL;
    }
    switch (tok(I)) {
    case TK_LBRACE:
        n = parse_block(I);
        break;
    case TK_IF:
        advance(I);
        n = new_node(I, S_IF, line);
        if (!n || !(n->a = parse_cond(I)) || !(n->b = parse_body(I))) {
            n = NULL;
            break;
        }
        {
            int save = I->tpos;
            skip_terms(I);
            if (tok(I) == TK_ELSE) {
                advance(I);
                if (!(n->c = parse_body(I)))
                    n = NULL;
            } else {
                I->tpos = save;
            }
        }
        break;
    case TK_WHILE:
        advance(I);
        n = new_node(I, S_WHILE, line);
        if (!n || !(n->a = parse_cond(I)) || !(n->b = parse_body(I)))
            n = NULL;
        break;
    case TK_DO:
        advance(I);
        n = new_node(I, S_DO, line);
        if (!n || !(n->a = parse_body(I))) {
            n = NULL;
            break;
        }
        skip_terms(I);
        if (expect(I, TK_WHILE) < 0 || !(n->b = parse_cond(I)) || end_simple(I) < 0)
            n = NULL;
        break;
    case TK_FOR:
        n = parse_for(I, line);
        break;
    case TK_SEMI:
        advance(I);
        n = new_node(I, S_BLOCK, line);
        break;
    default:
        n = parse_simple_stmt(I);
        if (n && end_simple(I) < 0)
            n = NULL;
    }
    I->pdepth--;
    return n;
}

static arule *add_rule(aw *I, int kind)
{
    if (grow(I, (void **)&I->rules, &I->caprules, I->nrules + 1, sizeof(arule)) < 0) {
        I->perr = 1;
        return NULL;
    }
    arule *r = &I->rules[I->nrules++];
    memset(r, 0, sizeof(*r));
    r->kind = kind;
    return r;
}

/* function name(params) { body }: the parameters are its locals. */
static int parse_function(aw *I)
{
    advance(I);
    token *t = &I->toks[I->tpos];
    if (t->type != TK_NAME && t->type != TK_FUNC_NAME) {
        syntax_error(I);
        return -1;
    }
    int fi = func_index(I, t->str);
    if (fi < 0)
        return -1;
    afunc *f = &I->funcs[fi];
    if (f->defined) {
        sh_err(I->p, "cmd. line:%d: function `%s' previously defined", t->line, t->str);
        I->perr = 1;
        return -1;
    }
    for (int g = 0; g < I->nglobals; g++)
        if (strcmp(I->gnames[g], t->str) == 0) {
            sh_err(I->p, "cmd. line:%d: function name `%s' previously defined", t->line,
                   t->str);
            I->perr = 1;
            return -1;
        }
    f->defined = 1;
    advance(I);
    if (expect(I, TK_LPAREN) < 0)
        return -1;
    int cap = 0;
    while (tok(I) != TK_RPAREN) {
        skip_nl(I);
        if (tok(I) != TK_NAME) {
            syntax_error(I);
            return -1;
        }
        if (grow(I, (void **)&f->params, &cap, f->nparams + 1, sizeof(char *)) < 0)
            return -1;
        if (!(f->params[f->nparams] = xstrdup(I, I->toks[I->tpos].str)))
            return -1;
        f->nparams++;
        advance(I);
        skip_nl(I);
        if (tok(I) == TK_COMMA)
            advance(I);
        else if (tok(I) != TK_RPAREN) {
            syntax_error(I);
            return -1;
        }
    }
    advance(I);
    skip_nl(I);
    /* The body may grow I->funcs (calls to functions not yet defined): the
     * function is referred to by index from here on. */
    I->cur_func = fi;
    anode *body = parse_block(I);
    I->cur_func = -1;
    I->funcs[fi].body = body;
    return body ? 0 : -1;
}

/* The whole program: rules and function definitions. 0, or -1 after an error. */
static int parse_program(aw *I)
{
    for (;;) {
        skip_terms(I);
        int t = tok(I);
        if (t == TK_EOF || I->perr)
            break;
        if (t == TK_FUNCTION) {
            if (parse_function(I) < 0)
                return -1;
            continue;
        }
        if (t == TK_BEGIN || t == TK_END) {
            advance(I);
            arule *r = add_rule(I, t == TK_BEGIN ? R_BEGIN : R_END);
            if (!r || !(r->action = parse_block(I)))
                return -1;
            continue;
        }
        arule *r = add_rule(I, R_MAIN);
        if (!r)
            return -1;
        if (t != TK_LBRACE) {
            if (!(r->pat1 = parse_expr(I)))
                return -1;
            if (tok(I) == TK_COMMA) {
                advance(I);
                skip_nl(I);
                if (!(r->pat2 = parse_expr(I)))
                    return -1;
            }
        }
        if (tok(I) == TK_LBRACE) {
            if (!(r->action = parse_block(I)))
                return -1;
        } else if (end_simple(I) < 0) {
            return -1;
        }
    }
    if (I->perr)
        return -1;
    for (int i = 0; i < I->nfuncs; i++)
        if (!I->funcs[i].defined) {
            for (anode *n = I->nodes; n; n = n->chain)
                if (n->type == N_CALL && n->idx == i) {
                    sh_err(I->p, "cmd. line:%d: fatal: function `%s' not defined", n->line,
                           I->funcs[i].name);
                    I->status = 2;
                    return -1;
                }
        }
    return 0;
}

/* ---------------------------------------------------------------- fields and records */

/* Receives one piece of a split: the text and the separator before it. */
typedef int (*split_fn)(aw *I, void *ctx, const char *s, size_t n, const char *sep,
                        size_t seplen);

/* Splits s by the field separator fs (" " for blank runs, one other character
 * literally, "" into characters, anything else as a regex; in paragraph mode a
 * newline also separates). The pieces go to add(ctx, ...). Returns 0 or -1
 * after an error. */

static int split_string(aw *I, const char *s, const char *fs, int paragraph, split_fn add,
                        void *ctx, int line)
{
    if (!*s)
        return 0;
    if (strcmp(fs, " ") == 0) {
        const char *sep = s;
        for (;;) {
            while (*s == ' ' || *s == '\t' || *s == '\n')
                s++;
            if (!*s)
                return 0;
            const char *f = s;
            while (*s && *s != ' ' && *s != '\t' && *s != '\n')
                s++;
            if (add(I, ctx, f, (size_t)(s - f), sep, (size_t)(f - sep)) < 0)
                return -1;
            sep = s;
        }
    }
    if (!*fs) {
        for (; *s; s++)
            if (add(I, ctx, s, 1, "", 0) < 0)
                return -1;
        return 0;
    }
    if (strlen(fs) == 1 && *fs != '\\') {
        const char *sep = "";
        size_t seplen = 0;
        for (;;) {
            const char *f = s;
            while (*s && *s != *fs && !(paragraph && *s == '\n'))
                s++;
            if (add(I, ctx, f, (size_t)(s - f), sep, seplen) < 0)
                return -1;
            if (!*s)
                return 0;
            sep = s;
            seplen = 1;
            s++;
        }
    }
    sh_buf pat = { 0 };
    if (paragraph ? sh_buf_addf(&pat, "(%s)|\n", fs) < 0 : sh_buf_adds(&pat, fs) < 0) {
        oom(I);
        return -1;
    }
    are *re = sh_buf_cstr(&pat) ? regex_dynamic(I, pat.data, line) : NULL;
    sh_buf_free(&pat);
    if (!re)
        return -1;
    const char *sep = "";
    size_t seplen = 0;
    int notbol = 0;
    for (;;) {
        regmatch_t m[1];
        if (!regex_exec(re, s, notbol, m, 1) || m[0].rm_eo == m[0].rm_so) {
            return add(I, ctx, s, strlen(s), sep, seplen);
        }
        if (add(I, ctx, s, (size_t)m[0].rm_so, sep, seplen) < 0)
            return -1;
        sep = s + m[0].rm_so;
        seplen = (size_t)(m[0].rm_eo - m[0].rm_so);
        s += m[0].rm_eo;
        notbol = 1;
    }
}

/* split_string callback for $1..$NF (input-typed). */
static int add_field(aw *I, void *ctx, const char *s, size_t n, const char *sep, size_t seplen)
{
    if (I->nf >= MAX_FIELD) {
        fatal(I, 0, "too many fields");
        return -1;
    }
    if (grow(I, (void **)&I->fields, &I->fcap, I->nf + 2, sizeof(aval)) < 0)
        return -1;
    char *d = xstrndup(I, s, n);
    if (!d)
        return -1;
    val_set_input(&I->fields[++I->nf], d);
    return 0;
}

static void clear_fields(aw *I)
{
    for (int i = 1; i <= I->nf; i++)
        val_free(&I->fields[i]);
    I->nf = 0;
}

/* Makes s (taken) the record $0 and splits it into fields with FS. */
static int set_record(aw *I, char *s)
{
    val_free(&I->rec);
    val_set_input(&I->rec, s);
    I->rec_stale = 0;
    clear_fields(I);
    int r = split_string(I, s, global_str(I, V_FS), global_str(I, V_RS)[0] == '\0', add_field,
                         NULL, 0);
    set_global_num(I, V_NF, I->nf);
    return r < 0 ? C_ERROR : C_OK;
}

/* Rebuilds $0 from the fields with OFS after a field or NF changed (numbers
 * through CONVFMT). */
static int rebuild_record(aw *I)
{
    sh_buf b = { 0 };
    const char *ofs = global_str(I, V_OFS);
    int r = 0;
    for (int i = 1; i <= I->nf && r == 0; i++) {
        if (i > 1)
            r = sh_buf_adds(&b, ofs);
        if (r == 0) {
            aval *f = &I->fields[i];
            r = f->type == T_NUM ? num_append(&b, f->num, global_str(I, V_CONVFMT))
                                 : val_output(I, &b, f);
        }
    }
    char *s = r == 0 ? sh_buf_take(&b, NULL) : NULL;
    if (!s) {
        sh_buf_free(&b);
        oom(I);
        return C_ERROR;
    }
    val_free(&I->rec);
    val_set_input(&I->rec, s);
    I->rec_stale = 0;
    return C_OK;
}

static int field_index(aw *I, double d, int line, long *out)
{
    if (d < 0 || isnan(d))
        return fatal(I, line, "attempt to access field %lld", to_ll(d));
    if (d > MAX_FIELD)
        return fatal(I, line, "field index %.0f is too large", d);
    *out = (long)d;
    return C_OK;
}

static int get_field(aw *I, long i, aval *out)
{
    if (i == 0) {
        if (I->rec_stale && rebuild_record(I) != C_OK)
            return C_ERROR;
        return val_copy(I, out, &I->rec) < 0 ? C_ERROR : C_OK;
    }
    if (i > I->nf) {
        val_free(out);
        return C_OK;
    }
    return val_copy(I, out, &I->fields[i]) < 0 ? C_ERROR : C_OK;
}

/* Changes NF: fields are dropped or added empty, and $0 is rebuilt. */
static int set_nf(aw *I, double d, int line)
{
    long n;
    if (field_index(I, d, line, &n) != C_OK)
        return C_ERROR;
    if (grow(I, (void **)&I->fields, &I->fcap, (int)n + 2, sizeof(aval)) < 0)
        return C_ERROR;
    while (I->nf > n)
        val_free(&I->fields[I->nf--]);
    while (I->nf < n) {
        aval *f = &I->fields[++I->nf];
        f->type = T_UNINIT;
        f->str = NULL;
    }
    set_global_num(I, V_NF, (double)n);
    I->rec_stale = 1;
    return C_OK;
}

/* Assigns field i the value v (taken). */
static int set_field(aw *I, long i, aval *v, int line)
{
    if (i == 0) {
        const char *s = str_of(I, v);
        char *d = s ? xstrdup(I, s) : NULL;
        val_free(v);
        return d ? set_record(I, d) : C_ERROR;
    }
    if (i > I->nf && set_nf(I, (double)i, line) != C_OK) {
        val_free(v);
        return C_ERROR;
    }
    if (v->type == T_NUM) {
        free(v->str);
        v->str = NULL;
    }
    val_free(&I->fields[i]);
    I->fields[i] = *v;
    memset(v, 0, sizeof(*v));
    I->rec_stale = 1;
    return C_OK;
}

/* ---------------------------------------------------------------- places (lvalues) */

enum { P_CELL, P_ELEM, P_FIELD };

typedef struct place {
    int kind, line;
    acell *cell;
    aarr *arr;
    char *key;
    long field;
} place;

/* The subscript string of a list of expressions, joined with SUBSEP. */
static char *subscript(aw *I, anode *list)
{
    sh_buf b = { 0 };
    for (anode *x = list; x; x = x->next) {
        aval v = { 0 };
        if (eval(I, x, &v) != C_OK) {
            sh_buf_free(&b);
            return NULL;
        }
        const char *s = str_of(I, &v);
        int r = s ? sh_buf_adds(&b, s) : -1;
        val_free(&v);
        if (r == 0 && x->next)
            r = sh_buf_adds(&b, global_str(I, V_SUBSEP));
        if (r < 0) {
            sh_buf_free(&b);
            oom(I);
            return NULL;
        }
    }
    char *s = sh_buf_take(&b, NULL);
    if (!s)
        oom(I);
    return s;
}

/* Evaluates what an lvalue refers to (subscripts, field numbers) now. */
static int resolve_place(aw *I, anode *n, place *pl)
{
    memset(pl, 0, sizeof(*pl));
    pl->line = n->line;
    switch (n->type) {
    case N_VAR:
    case N_LOCAL:
        pl->kind = P_CELL;
        pl->cell = node_cell(I, n);
        return C_OK;
    case N_INDEX:
        pl->kind = P_ELEM;
        pl->key = subscript(I, n->b);
        if (!pl->key)
            return C_ERROR;
        pl->arr = node_array(I, n->a);
        if (!pl->arr) {
            free(pl->key);
            pl->key = NULL;
            return C_ERROR;
        }
        return C_OK;
    default: {
        aval v = { 0 };
        int r = eval(I, n->a, &v);
        if (r != C_OK)
            return r;
        pl->kind = P_FIELD;
        r = field_index(I, to_num(&v), n->line, &pl->field);
        val_free(&v);
        return r;
    }
    }
}

/* Copies the value at a place into out. */
static int place_get(aw *I, place *pl, aval *out)
{
    switch (pl->kind) {
    case P_CELL: {
        acell *c = pl->cell;
        if (c->kind == K_ARRAY)
            return fatal(I, pl->line, "attempt to use array `%s' in a scalar context",
                         cell_name(I, c));
        if (c->kind != K_SCALAR) {
            val_free(out);
            return C_OK;
        }
        return val_copy(I, out, &c->v) < 0 ? C_ERROR : C_OK;
    }
    case P_ELEM: {
        aelem *e = arr_get(I, pl->arr, pl->key);
        if (!e)
            return C_ERROR;
        return val_copy(I, out, &e->v) < 0 ? C_ERROR : C_OK;
    }
    default:
        return get_field(I, pl->field, out);
    }
}

/* Stores v (taken) in the place; NF's side effects apply. */
static int place_set(aw *I, place *pl, aval *v)
{
    if (v->type == T_NUM || v->type == T_UNINIT) {
        free(v->str);
        v->str = NULL;
    }
    switch (pl->kind) {
    case P_CELL: {
        acell *c = pl->cell;
        if (c->kind == K_ARRAY) {
            val_free(v);
            return fatal(I, pl->line, "attempt to use array `%s' in a scalar context",
                         cell_name(I, c));
        }
        if (c == &I->globals[V_NF]) {
            double d = to_num(v);
            val_free(v);
            return set_nf(I, d, pl->line);
        }
        val_free(&c->v);
        c->kind = K_SCALAR;
        c->ref = NULL;
        c->v = *v;
        memset(v, 0, sizeof(*v));
        return C_OK;
    }
    case P_ELEM: {
        aelem *e = arr_get(I, pl->arr, pl->key);
        if (!e) {
            val_free(v);
            return C_ERROR;
        }
        val_free(&e->v);
        e->v = *v;
        memset(v, 0, sizeof(*v));
        return C_OK;
    }
    default:
        return set_field(I, pl->field, v, pl->line);
    }
}

/* Assigns the string s (copied) to an lvalue node, as input (getline var,
 * for-in keys). */
static int assign_input(aw *I, anode *lv, const char *s)
{
    place pl;
    int r = resolve_place(I, lv, &pl);
    if (r != C_OK)
        return r;
    aval v = { 0 };
    char *d = xstrdup(I, s);
    if (d) {
        val_set_input(&v, d);
        r = place_set(I, &pl, &v);
    } else {
        r = C_ERROR;
    }
    free(pl.key);
    return r;
}

/* ---------------------------------------------------------------- input */

/* Reads a whole file without reporting errors (getline returns -1 for them).
 * "-" and "/dev/stdin" are the standard input. */
static int load_quiet(aw *I, const char *name, char **data, size_t *len)
{
    return sh_read_file(I->p, strcmp(name, "/dev/stdin") == 0 ? "-" : name, data, len);
}

/* The next record of data from *pos, split by RS; NULL at the end (or out of
 * memory: *err set). The record is the caller's. */
static char *read_record(aw *I, const char *data, size_t len, size_t *pos, int *err)
{
    const char *rs = global_str(I, V_RS);
    size_t p = *pos, start, end, next;
    *err = 0;
    if (!*rs) {
        while (p < len && data[p] == '\n')
            p++;
        if (p >= len) {
            *pos = len;
            return NULL;
        }
        start = p;
        const char *hit = NULL;
        for (size_t i = p; i + 1 < len; i++)
            if (data[i] == '\n' && data[i + 1] == '\n') {
                hit = data + i;
                break;
            }
        if (hit) {
            end = (size_t)(hit - data);
            next = end;
            while (next < len && data[next] == '\n')
                next++;
        } else {
            end = len;
            while (end > start && data[end - 1] == '\n')
                end--;
            next = len;
        }
    } else if (p >= len) {
        return NULL;
    } else if (strlen(rs) == 1) {
        start = p;
        const char *hit = memchr(data + p, rs[0], len - p);
        end = hit ? (size_t)(hit - data) : len;
        next = hit ? end + 1 : len;
    } else {
        are *re = regex_dynamic(I, rs, 0);
        if (!re) {
            *err = 1;
            return NULL;
        }
        start = p;
        regmatch_t m[1];
        if (regex_exec(re, data + p, p > 0 && data[p - 1] != '\n', m, 1) &&
            m[0].rm_eo > m[0].rm_so) {
            end = p + (size_t)m[0].rm_so;
            next = p + (size_t)m[0].rm_eo;
        } else {
            end = next = len;
        }
    }
    *pos = next;
    char *rec = xstrndup(I, data + start, end - start);
    if (!rec)
        *err = 1;
    return rec;
}

static int is_assignment_arg(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return 0;
    while (isalnum((unsigned char)*s) || *s == '_')
        s++;
    return *s == '=';
}

/* Applies a command-line assignment var=value (escapes processed). */
static int apply_assignment(aw *I, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char *name = xstrndup(I, arg, (size_t)(eq - arg));
    if (!name)
        return C_ERROR;
    for (int i = 0; i < I->nfuncs; i++)
        if (strcmp(I->funcs[i].name, name) == 0) {
            fatal(I, 0, "cannot use function `%s' as variable name", name);
            free(name);
            return C_ERROR;
        }
    int g = -1;
    for (int i = 0; i < I->nglobals; i++)
        if (strcmp(I->gnames[i], name) == 0)
            g = i;
    free(name);
    if (g < 0)
        return C_OK;
    char *v = unescape(I, eq + 1);
    if (!v)
        return C_ERROR;
    acell *c = &I->globals[g];
    if (c->kind == K_ARRAY) {
        free(v);
        return fatal(I, 0, "attempt to use array `%s' in a scalar context", I->gnames[g]);
    }
    aval nv = { 0 };
    val_set_input(&nv, v);
    place pl = { .kind = P_CELL, .cell = c };
    return place_set(I, &pl, &nv);
}

/* Opens the next main input file from ARGV (running assignments on the way);
 * 1 opened, 0 none left, C_ERROR. */
static int open_next_input(aw *I)
{
    acell *argv_cell = &I->globals[V_ARGV];
    for (;;) {
        int argc = (int)to_num(&I->globals[V_ARGC].v);
        if (I->argi >= argc)
            break;
        char key[32];
        snprintf(key, sizeof(key), "%d", I->argi++);
        aelem *e = argv_cell->kind == K_ARRAY ? arr_find(argv_cell->arr, key) : NULL;
        if (!e)
            continue;
        const char *arg = str_of(I, &e->v);
        if (!arg)
            return C_ERROR;
        if (!*arg)
            continue;
        if (is_assignment_arg(arg)) {
            char *copy = xstrdup(I, arg);
            if (!copy)
                return C_ERROR;
            int r = apply_assignment(I, copy);
            free(copy);
            if (r != C_OK)
                return r;
            continue;
        }
        char *name = xstrdup(I, arg);
        if (!name)
            return C_ERROR;
        I->in_used = 1;
        errno = 0;
        if (load_quiet(I, name, &I->in_data, &I->in_len) < 0) {
            if (errno == EISDIR) {
                sh_err(I->p, "warning: command line argument `%s' is a directory: skipped",
                       name);
                free(name);
                continue;
            }
            sh_err(I->p, "fatal: cannot open file `%s' for reading: %s", name,
                   strerror(errno ? errno : ENOMEM));
            free(name);
            I->status = 2;
            return C_ERROR;
        }
        int r = set_global_str(I, V_FILENAME, name);
        free(name);
        if (r < 0)
            return C_ERROR;
        I->in_pos = 0;
        I->in_open = 1;
        set_global_num(I, V_FNR, 0);
        return 1;
    }
    if (I->in_used)
        return 0;
    I->in_used = 1;
    if (load_quiet(I, "-", &I->in_data, &I->in_len) < 0 || set_global_str(I, V_FILENAME, "-") < 0)
        return C_ERROR;
    I->in_pos = 0;
    I->in_open = 1;
    set_global_num(I, V_FNR, 0);
    return 1;
}

static void close_main_input(aw *I)
{
    free(I->in_data);
    I->in_data = NULL;
    I->in_open = 0;
}

/* The next main input record (the caller's), counting NR and FNR; NULL at the
 * end or after an error (*err). */
static char *next_main_record(aw *I, int *err)
{
    *err = 0;
    for (;;) {
        if (!I->in_open) {
            int r = open_next_input(I);
            if (r != 1) {
                *err = r == C_ERROR;
                return NULL;
            }
        }
        char *rec = read_record(I, I->in_data, I->in_len, &I->in_pos, err);
        if (rec) {
            set_global_num(I, V_NR, to_num(&I->globals[V_NR].v) + 1);
            set_global_num(I, V_FNR, to_num(&I->globals[V_FNR].v) + 1);
            return rec;
        }
        if (*err)
            return NULL;
        close_main_input(I);
    }
}

/* ---------------------------------------------------------------- commands, output */

/* Writes data to a file (created, truncated unless append); 0 or an errno,
 * for the caller to report as gawk does. */
static int write_quiet(aw *I, const char *name, const char *data, size_t len, int append)
{
    char *full = sh_path(I->p, name);
    if (!full)
        return ENOMEM;
    int fd = open(full, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0666);
    free(full);
    if (fd < 0)
        return errno;
    sh_stream st = { .fd = fd };
    int e = sh_write(&st, data, len) < 0 ? (errno ? errno : EIO) : 0;
    if (close(fd) < 0 && !e)
        e = errno;
    return e;
}

/* Writes out the standard output collected so far. */
static int flush_stdout(aw *I)
{
    if (I->obuf.len == 0)
        return 0;
    int r = sh_out(I->p, I->obuf.data, I->obuf.len);
    I->obuf.len = 0;
    if (r < 0) {
        I->status = SH_STATUS_PIPE;
        return -1;
    }
    return 0;
}

/* Runs the command line cmd (through the shell's `eval`, so with the shell's
 * whole syntax, its changes undone after) with the given input; its output
 * goes to out, or to ours when out is NULL. Returns its status, or -1 after
 * an error. */
static int run_command(aw *I, const char *cmd, const char *in, size_t in_len, sh_buf *out)
{
    char *argv[] = { "eval", (char *)cmd, NULL };
    sh_stream capture = { .fd = -1, .limit = SH_PIPE_LIMIT };
    sh_proc q = *I->p;
    if (out)
        q.out = &capture;
    int status = sh_run(&q, argv, NULL, in, in_len);
    if (out) {
        *out = capture.buf;
    } else if (I->p->out->broken) {
        I->status = SH_STATUS_PIPE;
        return -1;
    }
    return status;
}

/* Writes out an output redirection's pending text: files are appended to,
 * pipes run their command when closed. Returns the close status. */
static int flush_redirect(aw *I, aout *o, int closing)
{
    int status = 0;
    if (o->kind == TK_PIPE) {
        if (closing)
            status = run_command(I, o->name, o->buf.data ? o->buf.data : "", o->buf.len, NULL);
        else
            return 0;
    } else if (o->buf.len) {
        int e = write_quiet(I, o->name, o->buf.data, o->buf.len, 1);
        if (e) {
            sh_err(I->p, "fatal: write to `%s' failed: %s", o->name, strerror(e));
            I->status = 2;
            status = -1;
        }
    }
    o->buf.len = 0;
    return status;
}

/* The output redirection for name, opened (a file truncated for '>') if new;
 * NULL after an error. */
static aout *get_output(aw *I, int kind, const char *name, int line)
{
    for (aout *o = I->outs; o; o = o->next)
        if (strcmp(o->name, name) == 0)
            return o;
    if (kind == TK_PIPE) {
        if (flush_stdout(I) < 0)
            return NULL;
    } else {
        int e = write_quiet(I, name, "", 0, kind == TK_APPEND);
        if (e) {
            fatal(I, line, "cannot redirect to `%s': %s", name, strerror(e));
            return NULL;
        }
    }
    aout *o = xcalloc(I, 1, sizeof(*o));
    if (!o)
        return NULL;
    o->name = xstrdup(I, name);
    if (!o->name) {
        free(o);
        return NULL;
    }
    o->kind = kind;
    aout **tail = &I->outs;
    while (*tail)
        tail = &(*tail)->next;
    *tail = o;
    return o;
}

/* Sends text to standard output or a redirection (dest NULL: stdout). */
static int emit(aw *I, int kind, anode *dest, const char *text, size_t len, int line)
{
    if (!dest) {
        if (sh_buf_add(&I->obuf, text, len) < 0) {
            oom(I);
            return C_ERROR;
        }
        if (I->obuf.len >= OBUF_FLUSH && flush_stdout(I) < 0)
            return C_ERROR;
        return C_OK;
    }
    aval d = { 0 };
    int r = eval(I, dest, &d);
    if (r != C_OK)
        return r;
    const char *name = str_of(I, &d);
    if (!name || !*name) {
        val_free(&d);
        return name ? fatal(I, line, "expression for `%s' redirection has null string value",
                            kind == TK_PIPE ? "|" : kind == TK_APPEND ? ">>" : ">")
                    : C_ERROR;
    }
    if (strcmp(name, "/dev/stdout") == 0 || strcmp(name, "/dev/fd/1") == 0 ||
        (strcmp(name, "-") == 0 && kind != TK_PIPE)) {
        val_free(&d);
        return emit(I, kind, NULL, text, len, line);
    }
    if (strcmp(name, "/dev/stderr") == 0 || strcmp(name, "/dev/fd/2") == 0) {
        val_free(&d);
        if (flush_stdout(I) < 0)
            return C_ERROR;
        sh_write(I->p->err, text, len);
        return C_OK;
    }
    aout *o = get_output(I, kind, name, line);
    val_free(&d);
    if (!o)
        return C_ERROR;
    if (sh_buf_add(&o->buf, text, len) < 0) {
        oom(I);
        return C_ERROR;
    }
    if (o->kind != TK_PIPE && o->buf.len >= OBUF_FLUSH && flush_redirect(I, o, 0) < 0)
        return fatal(I, line, "write to `%s' failed", o->name);
    return C_OK;
}

/* close(name): ends an output redirection or an input source; its status. */
static int close_stream(aw *I, const char *name)
{
    for (aout **pp = &I->outs; *pp; pp = &(*pp)->next) {
        aout *o = *pp;
        if (strcmp(o->name, name) == 0) {
            *pp = o->next;
            if (o->kind == TK_PIPE && flush_stdout(I) < 0) {
                sh_buf_free(&o->buf);
                free(o->name);
                free(o);
                return -1;
            }
            int status = flush_redirect(I, o, 1);
            sh_buf_free(&o->buf);
            free(o->name);
            free(o);
            return status;
        }
    }
    for (ain **pp = &I->ins; *pp; pp = &(*pp)->next) {
        ain *in = *pp;
        if (strcmp(in->name, name) == 0) {
            *pp = in->next;
            int status = in->status;
            free(in->data);
            free(in->name);
            free(in);
            return status;
        }
    }
    return -1;
}

static int flush_all(aw *I)
{
    if (flush_stdout(I) < 0)
        return -1;
    for (aout *o = I->outs; o; o = o->next)
        if (o->kind != TK_PIPE && flush_redirect(I, o, 0) < 0)
            return -1;
    return 0;
}

/* ---------------------------------------------------------------- printf */

/* Appends s padded to width (left-justified with '-'). */
static int pad_append(sh_buf *b, const char *s, size_t n, long width, int left)
{
    int r = 0;
    long pad = width > (long)n ? width - (long)n : 0;
    for (long i = 0; !left && i < pad && r == 0; i++)
        r = sh_buf_addc(b, ' ');
    if (r == 0)
        r = sh_buf_add(b, s, n);
    for (long i = 0; left && i < pad && r == 0; i++)
        r = sh_buf_addc(b, ' ');
    return r;
}

/* Formats fmt with the values args[0..nargs) as printf does, appending to out. */
static int format_values(aw *I, sh_buf *out, const char *fmt, aval *args, int nargs, int line)
{
    int ai = 0, r = 0;
    for (const char *s = fmt; *s && r == 0;) {
        if (*s != '%') {
            const char *e = strchr(s, '%');
            size_t n = e ? (size_t)(e - s) : strlen(s);
            r = sh_buf_add(out, s, n);
            s += n;
            continue;
        }
        if (s[1] == '%') {
            r = sh_buf_addc(out, '%');
            s += 2;
            continue;
        }
        const char *start = s++;
        char flags[8];
        size_t nflags = 0;
        while (*s && strchr("-+ #0", *s)) {
            if (nflags < sizeof(flags) - 1)
                flags[nflags++] = *s;
            s++;
        }
        flags[nflags] = '\0';
        long width = -1, prec = -1;
        if (*s == '*') {
            s++;
            if (ai >= nargs)
                return fatal(I, line, "not enough arguments to satisfy format string");
            double w = to_num(&args[ai++]);
            width = (long)(fabs(w) > MAX_WIDTH ? MAX_WIDTH : fabs(w));
            if (w < 0 && nflags < sizeof(flags) - 1) {
                flags[nflags++] = '-';
                flags[nflags] = '\0';
            }
        } else if (isdigit((unsigned char)*s)) {
            width = 0;
            while (isdigit((unsigned char)*s)) {
                if (width < MAX_WIDTH)
                    width = width * 10 + (*s - '0');
                s++;
            }
        }
        if (*s == '.') {
            s++;
            prec = 0;
            if (*s == '*') {
                s++;
                if (ai >= nargs)
                    return fatal(I, line, "not enough arguments to satisfy format string");
                double pr = to_num(&args[ai++]);
                prec = pr < 0 ? -1 : (long)(pr > MAX_WIDTH ? MAX_WIDTH : pr);
            } else {
                while (isdigit((unsigned char)*s)) {
                    if (prec < MAX_WIDTH)
                        prec = prec * 10 + (*s - '0');
                    s++;
                }
            }
        }
        while (*s && strchr("hlLqjzt", *s))
            s++;
        char conv = *s;
        if (conv == '%') {
            r = sh_buf_addc(out, '%');
            s++;
            continue;
        }
        if (!conv || !strchr("diouxXcseEfFgGaA", conv)) {
            r = sh_buf_add(out, start, (size_t)(s - start));
            continue;
        }
        s++;
        if (ai >= nargs)
            return fatal(I, line, "not enough arguments to satisfy format string");
        aval *v = &args[ai++];
        int left = strchr(flags, '-') != NULL;
        char spec[64];
        int sl = snprintf(spec, sizeof(spec), "%%%s", flags);
        if (width >= 0)
            sl += snprintf(spec + sl, sizeof(spec) - (size_t)sl, "%ld", width);
        if (prec >= 0)
            sl += snprintf(spec + sl, sizeof(spec) - (size_t)sl, ".%ld", prec);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        if (conv == 'c') {
            char ch[2] = { 0, 0 };
            size_t n = 1;
            if (v->type == T_NUM || v->type == T_STRNUM) {
                ch[0] = (char)(to_ll(to_num(v)) & 255);
            } else {
                const char *str = str_of(I, v);
                if (!str)
                    return C_ERROR;
                ch[0] = str[0];
            }
            r = pad_append(out, ch, n, width, left);
        } else if (conv == 's') {
            const char *str = v->type == T_NUM ? NULL : str_of(I, v);
            sh_buf tmp = { 0 };
            if (v->type == T_NUM) {
                if (num_append(&tmp, v->num, global_str(I, V_CONVFMT)) < 0 ||
                    !(str = sh_buf_cstr(&tmp))) {
                    sh_buf_free(&tmp);
                    oom(I);
                    return C_ERROR;
                }
            }
            if (!str)
                return C_ERROR;
            size_t n = strlen(str);
            if (prec >= 0 && (size_t)prec < n)
                n = (size_t)prec;
            r = pad_append(out, str, n, width, left);
            sh_buf_free(&tmp);
        } else if (strchr("diouxX", conv)) {
            double d = to_num(v);
            if (isnan(d) || isinf(d)) {
                sh_buf tmp = { 0 };
                r = num_append(&tmp, d, "%.6g");
                if (r == 0)
                    r = pad_append(out, tmp.data, tmp.len, width, left);
                sh_buf_free(&tmp);
            } else if (conv == 'd' || conv == 'i') {
                if (fabs(d) < 9.2e18) {
                    strcat(spec, "lld");
                    r = sh_buf_addf(out, spec, (long long)d);
                } else {
                    sl = snprintf(spec, sizeof(spec), "%%%s", flags);
                    if (width >= 0)
                        snprintf(spec + sl, sizeof(spec) - (size_t)sl, "%ld", width);
                    strcat(spec, ".0f");
                    r = sh_buf_addf(out, spec, trunc(d));
                }
            } else {
                size_t l = strlen(spec);
                snprintf(spec + l, sizeof(spec) - l, "ll%c", conv);
                unsigned long long u =
                    d < 0 ? (unsigned long long)(long long)d
                          : (d >= 1.8e19 ? ~0ULL : (unsigned long long)d);
                r = sh_buf_addf(out, spec, u);
            }
        } else {
            size_t l = strlen(spec);
            snprintf(spec + l, sizeof(spec) - l, "%c", conv);
            r = sh_buf_addf(out, spec, to_num(v));
        }
#pragma GCC diagnostic pop
    }
    if (r) {
        oom(I);
        return C_ERROR;
    }
    return C_OK;
}

/* Evaluates an argument list into a new array of values (freed with
 * free_values). */
static int eval_list(aw *I, anode *list, int n, aval **out)
{
    *out = xcalloc(I, (size_t)n, sizeof(aval));
    if (!*out)
        return C_ERROR;
    int i = 0;
    for (anode *x = list; x; x = x->next, i++) {
        int r = eval(I, x, &(*out)[i]);
        if (r != C_OK)
            return r;
    }
    return C_OK;
}

static void free_values(aval *v, int n)
{
    if (!v)
        return;
    for (int i = 0; i < n; i++)
        val_free(&v[i]);
    free(v);
}

/* sprintf's work: formats list (format first) into a new string in out. */
static int do_sprintf(aw *I, anode *list, int n, sh_buf *out, int line)
{
    aval *vals = NULL;
    int r = eval_list(I, list, n, &vals);
    if (r == C_OK) {
        const char *fmt = str_of(I, &vals[0]);
        r = fmt ? format_values(I, out, fmt, vals + 1, n - 1, line) : C_ERROR;
    }
    free_values(vals, n);
    return r;
}

/* ---------------------------------------------------------------- builtins */

/* Appends the replacement text for one match: & is the match and \& a
 * literal &; with backrefs (gensub), \0 to \9 are the match and its groups.
 * base is where the match offsets m count from. */
static int expand_replacement(sh_buf *b, const char *repl, const char *base,
                              const regmatch_t *m, int backrefs)
{
    int r = 0;
    for (const char *x = repl; *x && r == 0; x++) {
        if (*x == '\\' && backrefs && isdigit((unsigned char)x[1])) {
            int g = *++x - '0';
            if (m[g].rm_so >= 0)
                r = sh_buf_add(b, base + m[g].rm_so, (size_t)(m[g].rm_eo - m[g].rm_so));
        } else if (*x == '\\' && (x[1] == '&' || x[1] == '\\')) {
            r = sh_buf_addc(b, *++x);
        } else if (*x == '&') {
            r = sh_buf_add(b, base + m[0].rm_so, (size_t)(m[0].rm_eo - m[0].rm_so));
        } else {
            r = sh_buf_addc(b, *x);
        }
    }
    return r;
}

/* Replaces matches of re in s by repl: every match when which is 0, else only
 * the which-th (sub is which 1). An empty match right after a match is not
 * one, as in gawk. *count gets the number of replacements; the result is new. */
static char *substitute(aw *I, are *re, const char *repl, const char *s, long which,
                        int backrefs, int *count)
{
    sh_buf b = { 0 };
    size_t len = strlen(s), pos = 0;
    long last_end = -1, k = 0;
    int r = 0;
    *count = 0;
    while (pos <= len && r == 0) {
        regmatch_t m[10];
        if (!regex_exec(re, s + pos, pos > 0, m, 10)) {
            r = sh_buf_add(&b, s + pos, len - pos);
            break;
        }
        size_t ms = pos + (size_t)m[0].rm_so, me = pos + (size_t)m[0].rm_eo;
        if (ms == me && (long)ms == last_end) {
            if (ms >= len)
                break;
            r = sh_buf_add(&b, s + pos, ms + 1 - pos);
            pos = ms + 1;
            continue;
        }
        r = sh_buf_add(&b, s + pos, ms - pos);
        k++;
        if (r == 0 && (which == 0 || k == which)) {
            r = expand_replacement(&b, repl, s + pos, m, backrefs);
            (*count)++;
        } else if (r == 0) {
            r = sh_buf_add(&b, s + ms, me - ms);
        }
        last_end = (long)me;
        if (ms == me) {
            if (ms < len && r == 0)
                r = sh_buf_addc(&b, s[ms]);
            pos = ms + 1;
        } else {
            pos = me;
        }
        if (which && k == which) {
            if (pos <= len && r == 0)
                r = sh_buf_add(&b, s + pos, len - pos);
            break;
        }
    }
    char *out = r == 0 ? sh_buf_take(&b, NULL) : NULL;
    if (!out) {
        sh_buf_free(&b);
        oom(I);
    }
    return out;
}

/* gensub(re, repl, how [, target]): the substituted string, target unchanged;
 * how is "g" for every match, else the number of the match to replace. */
static int builtin_gensub(aw *I, anode *n, aval *out)
{
    aval *args = NULL;
    int nvals = 3;
    int r = eval_list(I, n->a->next, nvals, &args);
    if (r == C_OK && n->nargs == 3)
        r = get_field(I, 0, &args[2]);
    const char *repl = r == C_OK ? str_of(I, &args[0]) : NULL;
    const char *how = repl ? str_of(I, &args[1]) : NULL;
    const char *target = how ? str_of(I, &args[2]) : NULL;
    are *re = target ? node_regex(I, n->a) : NULL;
    if (!re) {
        r = C_ERROR;
    } else {
        long which = 0;
        if (how[0] != 'g' && how[0] != 'G') {
            double d = to_num(&args[1]);
            which = d < 1 ? 1 : (long)(d > 1e9 ? 1e9 : d);
        }
        int count;
        char *res = substitute(I, re, repl, target, which, 1, &count);
        if (res)
            val_str(out, res);
        else
            r = C_ERROR;
    }
    free_values(args, nvals);
    return r;
}

/* asort/asorti ordering: numbers first (numerically), then strings. */
static int cmp_sort_values(const void *pa, const void *pb)
{
    const aval *a = pa, *b = pb;
    int an = a->type != T_STR, bn = b->type != T_STR;
    if (an && bn) {
        double x = to_num(a), y = to_num(b);
        return x < y ? -1 : x > y;
    }
    if (an != bn)
        return an ? -1 : 1;
    return strcmp(a->str, b->str);
}

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* asort(src [, dest]) sorts the values, asorti the indexes; the result is
 * indexed 1..n in dest (src when alone). Returns n. */
static int builtin_asort(aw *I, anode *n, aval *out)
{
    aarr *src = node_array(I, n->a);
    aarr *dest = src && n->nargs == 2 ? node_array(I, n->a->next) : src;
    if (!dest)
        return C_ERROR;
    size_t count = src->n, k = 0;
    aval *vals = xcalloc(I, count, sizeof(aval));
    char **keys = vals ? xcalloc(I, count, sizeof(char *)) : NULL;
    int r = keys ? C_OK : C_ERROR;
    for (size_t i = 0; i < src->nb && r == C_OK; i++)
        for (aelem *e = src->b[i]; e && r == C_OK; e = e->next, k++) {
            if (n->op == B_ASORT ? val_copy(I, &vals[k], &e->v) < 0
                                 : !(keys[k] = xstrdup(I, e->key)))
                r = C_ERROR;
        }
    if (r == C_OK) {
        if (n->op == B_ASORT)
            qsort(vals, count, sizeof(aval), cmp_sort_values);
        else
            qsort(keys, count, sizeof(char *), cmp_keys);
        arr_clear(dest);
        for (size_t i = 0; i < count && r == C_OK; i++) {
            char key[32];
            snprintf(key, sizeof(key), "%zu", i + 1);
            aelem *e = arr_get(I, dest, key);
            if (!e) {
                r = C_ERROR;
            } else if (n->op == B_ASORT) {
                e->v = vals[i];
                memset(&vals[i], 0, sizeof(aval));
            } else {
                val_set_input(&e->v, keys[i]);
                keys[i] = NULL;
            }
        }
    }
    for (size_t i = 0; i < count && vals && keys; i++) {
        val_free(&vals[i]);
        free(keys[i]);
    }
    free(vals);
    free(keys);
    if (r == C_OK)
        val_num(out, (double)count);
    return r;
}

/* Seconds since the epoch of a UTC civil date (any field may overflow). */
static double civil_seconds(long long y, long long mo, long long d, long long h, long long mi,
                            long long s)
{
    mo -= 1;
    y += mo / 12;
    mo %= 12;
    if (mo < 0) {
        mo += 12;
        y--;
    }
    mo += 1;
    y -= mo <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    long long days = era * 146097 + doe - 719468;
    return (double)days * 86400 + (double)h * 3600 + (double)mi * 60 + (double)s;
}

/* mktime("YYYY MM DD HH MM SS"): seconds since the epoch (the guest's time
 * is UTC), or -1 for a malformed date. */
static double awk_mktime(const char *s)
{
    long long f[6];
    for (int i = 0; i < 6; i++) {
        char *end;
        f[i] = strtoll(s, &end, 10);
        if (end == s || llabs(f[i]) > 100000000)
            return -1;
        s = end;
    }
    return civil_seconds(f[0], f[1], f[2], f[3], f[4], f[5]);
}

/* strftime([format [, time [, utc]]]): the formatted time in out. */
static int awk_strftime(aw *I, aval *args, int nargs, aval *out)
{
    const char *fmt = nargs ? str_of(I, &args[0]) : "%a %b %e %H:%M:%S %Z %Y";
    if (!fmt)
        return C_ERROR;
    time_t t = nargs >= 2 ? (time_t)to_ll(to_num(&args[1])) : time(NULL);
    struct tm tm;
    struct tm *ok = nargs == 3 && truth(&args[2]) ? gmtime_r(&t, &tm) : localtime_r(&t, &tm);
    size_t cap = strlen(fmt) * 8 + 256;
    char *buf = xcalloc(I, cap, 1);
    if (!buf)
        return C_ERROR;
    if (ok && *fmt && strftime(buf, cap, fmt, &tm) == 0)
        buf[0] = '\0';
    val_str(out, buf);
    return C_OK;
}

/* sub/gsub(re, repl [, target]): target ($0 by default) is assigned only
 * when something was replaced; the value is the number of replacements. */
static int builtin_sub(aw *I, anode *n, aval *out)
{
    anode *re_node = n->a, *repl_node = n->a->next, *target = n->nargs == 3 ? repl_node->next : NULL;
    aval repl = { 0 }, cur = { 0 };
    place pl;
    int r = eval(I, repl_node, &repl);
    if (r != C_OK)
        return r;
    if (target) {
        r = resolve_place(I, target, &pl);
    } else {
        memset(&pl, 0, sizeof(pl));
        pl.kind = P_FIELD;
        pl.line = n->line;
    }
    if (r == C_OK)
        r = place_get(I, &pl, &cur);
    const char *rs = r == C_OK ? str_of(I, &repl) : NULL;
    const char *cs = rs ? str_of(I, &cur) : NULL;
    are *re = cs ? node_regex(I, re_node) : NULL;
    if (!re) {
        r = C_ERROR;
    } else {
        int count;
        char *res = substitute(I, re, rs, cs, n->op == B_GSUB ? 0 : 1, 0, &count);
        if (!res) {
            r = C_ERROR;
        } else if (count) {
            aval nv = { 0 };
            val_str(&nv, res);
            r = place_set(I, &pl, &nv);
        } else {
            free(res);
        }
        val_num(out, count);
    }
    free(pl.key);
    val_free(&repl);
    val_free(&cur);
    return r;
}

typedef struct split_ctx {
    aarr *arr, *seps;
    long n;
} split_ctx;

static int add_split(aw *I, void *vctx, const char *s, size_t n, const char *sep,
                     size_t seplen)
{
    split_ctx *ctx = vctx;
    ctx->n++;
    if (ctx->seps && ctx->n > 1 && arr_set_index(I, ctx->seps, ctx->n - 1, sep, seplen) < 0)
        return -1;
    return arr_set_index(I, ctx->arr, ctx->n, s, n);
}

/* split(s, a [, sep [, seps]]): a gets the pieces 1..n, seps the separators;
 * the value is n. */
static int builtin_split(aw *I, anode *n, aval *out)
{
    aval s = { 0 }, sep = { 0 };
    int r = eval(I, n->a, &s);
    anode *sepn = n->nargs >= 3 ? n->a->next->next : NULL;
    split_ctx ctx = { 0 };
    if (r == C_OK)
        ctx.arr = node_array(I, n->a->next);
    if (ctx.arr && n->nargs == 4)
        ctx.seps = node_array(I, sepn->next);
    if (!ctx.arr || (n->nargs == 4 && !ctx.seps)) {
        val_free(&s);
        return C_ERROR;
    }
    const char *str = str_of(I, &s);
    char *copy = str ? xstrdup(I, str) : NULL;
    if (!copy) {
        val_free(&s);
        return C_ERROR;
    }
    arr_clear(ctx.arr);
    if (ctx.seps)
        arr_clear(ctx.seps);
    if (sepn && sepn->type == N_REGEX) {
        /* A regex literal separator: split with it even if it is one character. */
        const char *sep_s = "";
        are *re = sepn->re;
        const char *p = copy;
        int notbol = 0;
        size_t seplen = 0;
        r = C_OK;
        while (*copy && r == C_OK) {
            regmatch_t m[1];
            if (!regex_exec(re, p, notbol, m, 1) || m[0].rm_eo == m[0].rm_so) {
                r = add_split(I, &ctx, p, strlen(p), sep_s, seplen) < 0 ? C_ERROR : C_OK;
                break;
            }
            if (add_split(I, &ctx, p, (size_t)m[0].rm_so, sep_s, seplen) < 0)
                r = C_ERROR;
            sep_s = p + m[0].rm_so;
            seplen = (size_t)(m[0].rm_eo - m[0].rm_so);
            p += m[0].rm_eo;
            notbol = 1;
        }
    } else {
        const char *fs;
        if (sepn) {
            r = eval(I, sepn, &sep);
            fs = r == C_OK ? str_of(I, &sep) : NULL;
        } else {
            fs = global_str(I, V_FS);
        }
        char *fs_copy = fs ? xstrdup(I, fs) : NULL;
        r = fs_copy && split_string(I, copy, fs_copy, 0, add_split, &ctx, n->line) == 0
                ? C_OK
                : C_ERROR;
        free(fs_copy);
    }
    free(copy);
    val_free(&s);
    val_free(&sep);
    if (r == C_OK)
        val_num(out, (double)ctx.n);
    return r;
}

/* match(s, re [, groups]): sets RSTART and RLENGTH; the value is RSTART. */
static int builtin_match(aw *I, anode *n, aval *out)
{
    aval s = { 0 };
    int r = eval(I, n->a, &s);
    if (r != C_OK)
        return r;
    aarr *arr = NULL;
    if (n->nargs == 3 && !(arr = node_array(I, n->a->next->next))) {
        val_free(&s);
        return C_ERROR;
    }
    const char *str = str_of(I, &s);
    are *re = str ? node_regex(I, n->a->next) : NULL;
    if (!re) {
        val_free(&s);
        return C_ERROR;
    }
    regmatch_t m[10];
    double start = 0, len = -1;
    if (arr)
        arr_clear(arr);
    if (regex_exec(re, str, 0, m, 10)) {
        start = m[0].rm_so + 1;
        len = m[0].rm_eo - m[0].rm_so;
        for (int i = 0; arr && i < 10 && r == C_OK; i++)
            if (m[i].rm_so >= 0 && arr_set_index(I, arr, i, str + m[i].rm_so,
                                                 (size_t)(m[i].rm_eo - m[i].rm_so)) < 0)
                r = C_ERROR;
    }
    val_free(&s);
    set_global_num(I, V_RSTART, start);
    set_global_num(I, V_RLENGTH, len);
    val_num(out, start);
    return r;
}

/* The gawk random() generator (BSD additive feedback, 63 words), so that
 * rand() gives gawk's sequence for a given seed. */
static void rand_seed(aw *I, uint32_t seed)
{
    int32_t x = (int32_t)(seed ? seed : 1);
    I->rstate[0] = (uint32_t)x;
    for (int i = 1; i < 63; i++) {
        int32_t hi = x / 127773, lo = x % 127773;
        x = 16807 * lo - 2836 * hi;
        if (x < 0)
            x += 2147483647;
        I->rstate[i] = (uint32_t)x;
    }
    I->rf = 1;
    I->rr = 0;
    for (int i = 0; i < 630; i++) {
        I->rstate[I->rf] += I->rstate[I->rr];
        I->rf = (I->rf + 1) % 63;
        I->rr = (I->rr + 1) % 63;
    }
}

static long rand_next(aw *I)
{
    I->rstate[I->rf] += I->rstate[I->rr];
    long v = (long)((I->rstate[I->rf] >> 1) & 0x7fffffff);
    I->rf = (I->rf + 1) % 63;
    I->rr = (I->rr + 1) % 63;
    return v;
}

static double rand_double(aw *I)
{
    double d;
    do {
        long a = rand_next(I);
        long b = rand_next(I);
        d = 0.5 + (((double)a / 2147483648.0 + (double)b) / 2147483648.0);
        d -= 0.5;
    } while (d == 1.0);
    return d;
}

/* The single-string and numeric builtins, after their arguments are evaluated. */
static int builtin_simple(aw *I, anode *n, aval *args, aval *out)
{
    double x = n->nargs ? to_num(&args[0]) : 0;
    const char *s;
    switch (n->op) {
    case B_LENGTH:
    case B_TOLOWER:
    case B_TOUPPER:
    case B_INDEX:
    case B_SUBSTR: {
        s = str_of(I, &args[0]);
        if (!s)
            return C_ERROR;
        size_t len = strlen(s);
        if (n->op == B_LENGTH) {
            val_num(out, (double)len);
        } else if (n->op == B_INDEX) {
            const char *t = str_of(I, &args[1]);
            if (!t)
                return C_ERROR;
            const char *hit = strstr(s, t);
            val_num(out, hit ? (double)(hit - s + 1) : 0);
        } else if (n->op == B_SUBSTR) {
            /* As gawk: the start is truncated, and one before the string
             * counts as 1 without shortening the length. */
            double m = to_num(&args[1]);
            double start = isnan(m) || m < 1 ? 1 : trunc(m);
            double end = (double)len + 1;
            if (n->nargs == 3) {
                double l = to_num(&args[2]);
                end = isnan(l) ? start : start + trunc(l);
            }
            if (end > (double)len + 1)
                end = (double)len + 1;
            char *d = end > start ? xstrndup(I, s + (size_t)start - 1, (size_t)(end - start))
                                  : xstrdup(I, "");
            if (!d)
                return C_ERROR;
            val_str(out, d);
        } else {
            char *d = xstrdup(I, s);
            if (!d)
                return C_ERROR;
            for (char *c = d; *c; c++)
                *c = (char)(n->op == B_TOLOWER ? tolower((unsigned char)*c)
                                               : toupper((unsigned char)*c));
            val_str(out, d);
        }
        return C_OK;
    }
    case B_INT: val_num(out, trunc(x)); return C_OK;
    case B_SQRT: val_num(out, sqrt(x)); return C_OK;
    case B_EXP: val_num(out, exp(x)); return C_OK;
    case B_LOG: val_num(out, log(x)); return C_OK;
    case B_SIN: val_num(out, sin(x)); return C_OK;
    case B_COS: val_num(out, cos(x)); return C_OK;
    case B_ATAN2: val_num(out, atan2(x, to_num(&args[1]))); return C_OK;
    case B_RAND: val_num(out, rand_double(I)); return C_OK;
    case B_SRAND: {
        double prev = I->seed;
        I->seed = n->nargs ? trunc(x) : (double)time(NULL);
        rand_seed(I, (uint32_t)to_ll(I->seed));
        val_num(out, prev);
        return C_OK;
    }
    case B_SYSTEM: {
        s = str_of(I, &args[0]);
        if (!s || flush_all(I) < 0)
            return C_ERROR;
        int st = run_command(I, s, "", 0, NULL);
        if (st < 0)
            return C_ERROR;
        val_num(out, st);
        return C_OK;
    }
    case B_CLOSE:
        s = str_of(I, &args[0]);
        if (!s)
            return C_ERROR;
        val_num(out, close_stream(I, s));
        return I->status == SH_STATUS_PIPE ? C_ERROR : C_OK;
    case B_FFLUSH:
        if (flush_all(I) < 0)
            return C_ERROR;
        val_num(out, 0);
        return C_OK;
    case B_SYSTIME:
        val_num(out, (double)time(NULL));
        return C_OK;
    case B_MKTIME:
        s = str_of(I, &args[0]);
        if (!s)
            return C_ERROR;
        val_num(out, awk_mktime(s));
        return C_OK;
    case B_STRFTIME:
        return awk_strftime(I, args, n->nargs, out);
    default:
        return fatal(I, n->line, "unknown builtin");
    }
}

/* Runs a builtin: those that need their arguments unevaluated (arrays,
 * lvalues, regexes) first, the others after evaluating them all. */
static int call_builtin(aw *I, anode *n, aval *out)
{
    switch (n->op) {
    case B_SUB:
    case B_GSUB:
        return builtin_sub(I, n, out);
    case B_SPLIT:
        return builtin_split(I, n, out);
    case B_MATCH:
        return builtin_match(I, n, out);
    case B_GENSUB:
        return builtin_gensub(I, n, out);
    case B_ASORT:
    case B_ASORTI:
        return builtin_asort(I, n, out);
    case B_SPRINTF: {
        sh_buf b = { 0 };
        int r = do_sprintf(I, n->a, n->nargs, &b, n->line);
        char *s = r == C_OK ? sh_buf_take(&b, NULL) : NULL;
        sh_buf_free(&b);
        if (r == C_OK && !s) {
            oom(I);
            r = C_ERROR;
        }
        if (s)
            val_str(out, s);
        return r;
    }
    case B_LENGTH:
        if (n->nargs == 1 && (n->a->type == N_VAR || n->a->type == N_LOCAL)) {
            acell *c = node_cell(I, n->a);
            while (c->kind == K_REF)
                c = c->ref;
            if (c->kind == K_ARRAY) {
                val_num(out, (double)c->arr->n);
                return C_OK;
            }
        }
        if (n->nargs == 0) {
            aval rec = { 0 };
            int r = get_field(I, 0, &rec);
            if (r == C_OK)
                r = builtin_simple(I, n, &rec, out);
            val_free(&rec);
            return r;
        }
        break;
    default:
        break;
    }
    aval *args = NULL;
    int r = eval_list(I, n->a, n->nargs, &args);
    if (r == C_OK)
        r = builtin_simple(I, n, args, out);
    free_values(args, n->nargs);
    return r;
}

/* ---------------------------------------------------------------- getline */

/* The getline source for a file or command, opened (read whole, or run to
 * completion) if new. NULL for a file that cannot be read (*err stays 0) or
 * after an error (*err set). */
static ain *get_input(aw *I, const char *name, int is_cmd, int *err)
{
    *err = 0;
    for (ain *in = I->ins; in; in = in->next)
        if (in->is_cmd == is_cmd && strcmp(in->name, name) == 0)
            return in;
    ain *in = xcalloc(I, 1, sizeof(*in));
    if (!in || !(in->name = xstrdup(I, name))) {
        free(in);
        *err = 1;
        return NULL;
    }
    in->is_cmd = is_cmd;
    if (is_cmd) {
        if (flush_all(I) < 0) {
            *err = 1;
        } else {
            sh_buf out = { 0 };
            in->status = run_command(I, name, "", 0, &out);
            if (in->status < 0) {
                sh_buf_free(&out);
                *err = 1;
            } else {
                in->data = sh_buf_take(&out, &in->len);
                if (!in->data) {
                    in->data = xstrdup(I, "");
                    in->len = 0;
                    *err = !in->data;
                }
            }
        }
    } else if (load_quiet(I, name, &in->data, &in->len) < 0) {
        free(in->name);
        free(in);
        return NULL;
    }
    if (*err) {
        free(in->data);
        free(in->name);
        free(in);
        return NULL;
    }
    in->next = I->ins;
    I->ins = in;
    return in;
}

/* The getline forms: value 1 read, 0 end of input, -1 error (file missing). */
static int eval_getline(aw *I, anode *n, aval *out)
{
    char *rec = NULL;
    int err = 0;
    if (n->op == G_PLAIN) {
        rec = next_main_record(I, &err);
    } else {
        aval name = { 0 };
        int r = eval(I, n->b, &name);
        if (r != C_OK)
            return r;
        const char *s = str_of(I, &name);
        if (s && !*s) {
            val_free(&name);
            return fatal(I, n->line, "expression for `%s' redirection has null string value",
                         n->op == G_CMD ? "|" : "<");
        }
        ain *in = s ? get_input(I, s, n->op == G_CMD, &err) : NULL;
        val_free(&name);
        if (!s || err)
            return C_ERROR;
        if (!in) {
            val_num(out, -1);
            return C_OK;
        }
        rec = read_record(I, in->data, in->len, &in->pos, &err);
        if (rec && n->op == G_CMD) {
            set_global_num(I, V_NR, to_num(&I->globals[V_NR].v) + 1);
            if (!n->a)
                set_global_num(I, V_FNR, to_num(&I->globals[V_FNR].v) + 1);
        }
    }
    if (err)
        return C_ERROR;
    if (!rec) {
        val_num(out, 0);
        return C_OK;
    }
    int r;
    if (n->a) {
        r = assign_input(I, n->a, rec);
        free(rec);
    } else {
        r = set_record(I, rec);
    }
    val_num(out, 1);
    return r;
}

/* ---------------------------------------------------------------- evaluation */

/* Calls a user function: array arguments by reference, scalars by value. */
static int call_user(aw *I, anode *n, aval *out)
{
    afunc *f = &I->funcs[n->idx];
    if (I->call_depth >= MAX_CALL_DEPTH)
        return fatal(I, n->line, "function call nesting too deep (more than %d)",
                     MAX_CALL_DEPTH);
    acell *locals = xcalloc(I, (size_t)f->nparams, sizeof(acell));
    if (!locals)
        return C_ERROR;
    int r = C_OK, i = 0;
    for (anode *a = n->a; a && r == C_OK; a = a->next, i++) {
        if (i >= f->nparams) {
            /* Extra arguments are evaluated and dropped, as gawk does. */
            aval extra = { 0 };
            r = eval(I, a, &extra);
            val_free(&extra);
            continue;
        }
        if (a->type == N_VAR || a->type == N_LOCAL) {
            acell *c = node_cell(I, a);
            while (c->kind == K_REF)
                c = c->ref;
            if (c->kind == K_ARRAY) {
                locals[i].kind = K_ARRAY;
                locals[i].arr = c->arr;
                locals[i].borrowed = 1;
                continue;
            }
            if (c->kind == K_NONE) {
                locals[i].kind = K_REF;
                locals[i].ref = c;
                continue;
            }
        }
        aval v = { 0 };
        r = eval(I, a, &v);
        if (r == C_OK) {
            if (v.type == T_NUM) {
                free(v.str);
                v.str = NULL;
            }
            locals[i].kind = K_SCALAR;
            locals[i].v = v;
        }
    }
    if (r == C_OK) {
        acell *saved = I->frame;
        I->frame = locals;
        I->call_depth++;
        r = exec(I, f->body);
        I->call_depth--;
        I->frame = saved;
        val_free(out);
        if (r == C_RETURN) {
            *out = I->retval;
            memset(&I->retval, 0, sizeof(I->retval));
        }
        if (r == C_RETURN || r == C_BREAK || r == C_CONTINUE)
            r = C_OK;
    }
    for (i = 0; i < f->nparams; i++)
        cell_free(&locals[i]);
    free(locals);
    return r;
}

static double arith(int op, double x, double y)
{
    switch (op) {
    case '+': return x + y;
    case '-': return x - y;
    case '*': return x * y;
    case '/': return x / y;
    case '%': return fmod(x, y);
    default: return pow(x, y);
    }
}

static int check_divisor(aw *I, int op, double y, int line)
{
    if ((op == '/' || op == '%') && y == 0)
        return fatal(I, line, op == '/' ? "division by zero attempted"
                                        : "division by zero attempted in `%%'");
    return C_OK;
}

/* lvalue = expr and the compound forms; the value is the one assigned. */
static int eval_assign(aw *I, anode *n, aval *out)
{
    place pl;
    int r = resolve_place(I, n->a, &pl);
    if (r != C_OK)
        return r;
    aval v = { 0 };
    if (n->op == '=') {
        r = eval(I, n->b, &v);
    } else {
        aval old = { 0 }, rhs = { 0 };
        r = place_get(I, &pl, &old);
        if (r == C_OK)
            r = eval(I, n->b, &rhs);
        if (r == C_OK) {
            double y = to_num(&rhs);
            r = check_divisor(I, n->op, y, n->line);
            if (r == C_OK)
                val_num(&v, arith(n->op, to_num(&old), y));
        }
        val_free(&old);
        val_free(&rhs);
    }
    if (r == C_OK && val_copy(I, out, &v) < 0)
        r = C_ERROR;
    if (r == C_OK)
        r = place_set(I, &pl, &v);
    val_free(&v);
    free(pl.key);
    return r;
}

/* ++x, --x, x++, x--. */
static int eval_incdec(aw *I, anode *n, aval *out)
{
    place pl;
    int r = resolve_place(I, n->a, &pl);
    if (r != C_OK)
        return r;
    aval old = { 0 };
    r = place_get(I, &pl, &old);
    if (r == C_OK) {
        double d = to_num(&old);
        double nd = (n->type == N_PREINC || n->type == N_POSTINC) ? d + 1 : d - 1;
        aval v = { 0 };
        val_num(&v, nd);
        val_num(out, (n->type == N_PREINC || n->type == N_PREDEC) ? nd : d);
        r = place_set(I, &pl, &v);
    }
    val_free(&old);
    free(pl.key);
    return r;
}

/* Evaluates an expression into out (which must be empty or freeable). */
static int eval(aw *I, anode *n, aval *out)
{
    int r = C_OK;
    if (++I->depth > MAX_EVAL_DEPTH) {
        I->depth--;
        return fatal(I, n->line, "expression nesting too deep");
    }
    switch (n->type) {
    case N_NUM:
        val_num(out, n->num);
        break;
    case N_STR: {
        char *d = xstrdup(I, n->str);
        if (!d)
            r = C_ERROR;
        else
            val_str(out, d);
        break;
    }
    case N_REGEX: {
        aval rec = { 0 };
        r = get_field(I, 0, &rec);
        const char *s = r == C_OK ? str_of(I, &rec) : NULL;
        if (!s) {
            r = C_ERROR;
        } else {
            regmatch_t m[1];
            val_num(out, regex_exec(n->re, s, 0, m, 1));
        }
        val_free(&rec);
        break;
    }
    case N_VAR:
    case N_LOCAL:
    case N_INDEX:
    case N_FIELD: {
        place pl;
        r = resolve_place(I, n, &pl);
        if (r == C_OK)
            r = place_get(I, &pl, out);
        free(pl.key);
        break;
    }
    case N_GROUP:
        r = fatal(I, n->line, "a parenthesised list is only valid before `in' or in print");
        break;
    case N_ASSIGN:
        r = eval_assign(I, n, out);
        break;
    case N_COND: {
        aval c = { 0 };
        r = eval(I, n->a, &c);
        if (r == C_OK)
            r = eval(I, truth(&c) ? n->b : n->c, out);
        val_free(&c);
        break;
    }
    case N_AND:
    case N_OR: {
        aval c = { 0 };
        r = eval(I, n->a, &c);
        if (r == C_OK) {
            int t = truth(&c);
            if (n->type == N_AND ? t : !t) {
                val_free(&c);
                r = eval(I, n->b, &c);
                t = truth(&c);
            }
            val_num(out, t);
        }
        val_free(&c);
        break;
    }
    case N_NOT:
    case N_NEG:
    case N_UPLUS: {
        aval c = { 0 };
        r = eval(I, n->a, &c);
        if (r == C_OK)
            val_num(out, n->type == N_NOT ? !truth(&c) : n->type == N_NEG ? -to_num(&c)
                                                                           : to_num(&c));
        val_free(&c);
        break;
    }
    case N_BINARY: {
        aval x = { 0 }, y = { 0 };
        r = eval(I, n->a, &x);
        if (r == C_OK)
            r = eval(I, n->b, &y);
        if (r == C_OK)
            r = check_divisor(I, n->op, to_num(&y), n->line);
        if (r == C_OK)
            val_num(out, arith(n->op, to_num(&x), to_num(&y)));
        val_free(&x);
        val_free(&y);
        break;
    }
    case N_CONCAT: {
        aval x = { 0 }, y = { 0 };
        r = eval(I, n->a, &x);
        if (r == C_OK)
            r = eval(I, n->b, &y);
        if (r == C_OK) {
            const char *s = str_of(I, &x), *t = str_of(I, &y);
            char *d = s && t ? malloc(strlen(s) + strlen(t) + 1) : NULL;
            if (!d) {
                oom(I);
                r = C_ERROR;
            } else {
                strcpy(d, s);
                strcat(d, t);
                val_str(out, d);
            }
        }
        val_free(&x);
        val_free(&y);
        break;
    }
    case N_CMP: {
        aval x = { 0 }, y = { 0 };
        r = eval(I, n->a, &x);
        if (r == C_OK)
            r = eval(I, n->b, &y);
        if (r == C_OK) {
            int err = 0, c = compare(I, &x, &y, &err), t;
            switch (n->op) {
            case TK_LT: t = c == -1; break;
            case TK_LE: t = c == -1 || c == 0; break;
            case TK_EQ: t = c == 0; break;
            case TK_NE: t = c != 0; break;
            case TK_GE: t = c == 1 || c == 0; break;
            default: t = c == 1; break;
            }
            if (err)
                r = C_ERROR;
            val_num(out, t);
        }
        val_free(&x);
        val_free(&y);
        break;
    }
    case N_MATCH: {
        aval x = { 0 };
        r = eval(I, n->a, &x);
        const char *s = r == C_OK ? str_of(I, &x) : NULL;
        are *re = s ? node_regex(I, n->b) : NULL;
        if (!re) {
            r = C_ERROR;
        } else {
            regmatch_t m[1];
            int t = regex_exec(re, s, 0, m, 1);
            val_num(out, n->op ? !t : t);
        }
        val_free(&x);
        break;
    }
    case N_IN: {
        char *key = subscript(I, n->a);
        aarr *a = key ? node_array(I, n->b) : NULL;
        if (!a)
            r = C_ERROR;
        else
            val_num(out, arr_find(a, key) != NULL);
        free(key);
        break;
    }
    case N_PREINC:
    case N_PREDEC:
    case N_POSTINC:
    case N_POSTDEC:
        r = eval_incdec(I, n, out);
        break;
    case N_BUILTIN:
        r = call_builtin(I, n, out);
        break;
    case N_CALL:
        r = call_user(I, n, out);
        break;
    case N_GETLINE:
        r = eval_getline(I, n, out);
        break;
    default:
        r = fatal(I, n->line, "statement used as an expression");
    }
    I->depth--;
    if (r != C_OK)
        val_free(out);
    return r;
}

/* ---------------------------------------------------------------- statements */

/* print and printf: the text is built whole, then sent where it goes. */
static int exec_print(aw *I, anode *s)
{
    sh_buf b = { 0 };
    int r = C_OK;
    if (s->type == S_PRINTF) {
        r = do_sprintf(I, s->a, s->nargs, &b, s->line);
    } else if (!s->a) {
        aval rec = { 0 };
        r = get_field(I, 0, &rec);
        if (r == C_OK && (val_output(I, &b, &rec) < 0 ||
                          sh_buf_adds(&b, global_str(I, V_ORS)) < 0))
            r = C_ERROR;
        val_free(&rec);
    } else {
        for (anode *x = s->a; x && r == C_OK; x = x->next) {
            aval v = { 0 };
            r = eval(I, x, &v);
            if (r == C_OK && val_output(I, &b, &v) < 0)
                r = C_ERROR;
            if (r == C_OK && sh_buf_adds(&b, x->next ? global_str(I, V_OFS)
                                                    : global_str(I, V_ORS)) < 0)
                r = C_ERROR;
            val_free(&v);
        }
    }
    if (r == C_OK)
        r = emit(I, s->op, s->b, b.data ? b.data : "", b.len, s->line);
    else if (I->status == 0)
        oom(I);
    sh_buf_free(&b);
    return r;
}

/* One element of a for-in snapshot, with what the orderings compare. */
typedef struct forin_item {
    char *key, *sval;
    double knum, vnum;
    int vstr; /* the value is a string (sorts after numbers) */
} forin_item;

static int cmp_ind_str(const void *a, const void *b)
{
    return strcmp(((const forin_item *)a)->key, ((const forin_item *)b)->key);
}

static int cmp_ind_num(const void *pa, const void *pb)
{
    const forin_item *a = pa, *b = pb;
    if (a->knum != b->knum)
        return a->knum < b->knum ? -1 : 1;
    return strcmp(a->key, b->key);
}

static int cmp_val_str(const void *pa, const void *pb)
{
    const forin_item *a = pa, *b = pb;
    int c = strcmp(a->sval, b->sval);
    return c ? c : strcmp(a->key, b->key);
}

static int cmp_val_num(const void *pa, const void *pb)
{
    const forin_item *a = pa, *b = pb;
    if (a->vnum != b->vnum)
        return a->vnum < b->vnum ? -1 : 1;
    return cmp_val_str(pa, pb);
}

static int cmp_val_type(const void *pa, const void *pb)
{
    const forin_item *a = pa, *b = pb;
    if (a->vstr != b->vstr)
        return a->vstr ? 1 : -1;
    return a->vstr ? cmp_val_str(pa, pb) : cmp_val_num(pa, pb);
}

/* The ordering PROCINFO["sorted_in"] asks for (gawk's @ind_str_asc ...):
 * its comparison, and *desc for the descending forms. Indexes as strings
 * by default, so that the order is repeatable. */
static int (*forin_order(aw *I, int *desc))(const void *, const void *)
{
    static const struct {
        const char *name;
        int (*cmp)(const void *, const void *);
    } orders[] = {
        { "ind_str", cmp_ind_str }, { "ind_num", cmp_ind_num }, { "val_str", cmp_val_str },
        { "val_num", cmp_val_num }, { "val_type", cmp_val_type },
    };
    *desc = 0;
    for (int g = 0; g < I->nglobals; g++) {
        if (strcmp(I->gnames[g], "PROCINFO") != 0 || I->globals[g].kind != K_ARRAY)
            continue;
        aelem *e = arr_find(I->globals[g].arr, "sorted_in");
        const char *mode = e ? str_of(I, &e->v) : NULL;
        if (!mode || mode[0] != '@')
            break;
        for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
            size_t n = strlen(orders[i].name);
            if (strncmp(mode + 1, orders[i].name, n) == 0 && mode[n + 1] == '_') {
                *desc = strcmp(mode + n + 2, "desc") == 0;
                return orders[i].cmp;
            }
        }
        break;
    }
    return cmp_ind_str;
}

/* for (k in a): runs over a snapshot of the keys, in PROCINFO["sorted_in"]
 * order (by index string otherwise). */
static int exec_forin(aw *I, anode *s)
{
    aarr *a = node_array(I, s->b);
    if (!a)
        return C_ERROR;
    size_t n = a->n, k = 0;
    forin_item *items = xcalloc(I, n, sizeof(forin_item));
    if (!items)
        return C_ERROR;
    int r = C_OK;
    for (size_t i = 0; i < a->nb && r == C_OK; i++)
        for (aelem *e = a->b[i]; e && r == C_OK; e = e->next) {
            forin_item *it = &items[k++];
            const char *sv = str_of(I, &e->v);
            it->key = xstrdup(I, e->key);
            it->sval = sv ? xstrdup(I, sv) : NULL;
            if (e->v.type == T_NUM) {
                free(e->v.str);
                e->v.str = NULL;
            }
            if (!it->key || !it->sval)
                r = C_ERROR;
            it->knum = str_to_num(e->key);
            it->vnum = to_num(&e->v);
            it->vstr = e->v.type == T_STR;
        }
    if (r == C_OK) {
        int desc;
        qsort(items, n, sizeof(forin_item), forin_order(I, &desc));
        for (size_t i = 0; desc && i < n / 2; i++) {
            forin_item t = items[i];
            items[i] = items[n - 1 - i];
            items[n - 1 - i] = t;
        }
    }
    for (size_t i = 0; i < n && r == C_OK; i++) {
        r = assign_input(I, s->a, items[i].key);
        if (r == C_OK)
            r = exec(I, s->c);
        if (r == C_BREAK) {
            r = C_OK;
            break;
        }
        if (r == C_CONTINUE)
            r = C_OK;
    }
    for (size_t i = 0; i < k; i++) {
        free(items[i].key);
        free(items[i].sval);
    }
    free(items);
    return r;
}

/* Evaluates a condition: 1 true, 0 false, -1 with *r the failure. */
static int test(aw *I, anode *n, int *r)
{
    aval v = { 0 };
    *r = eval(I, n, &v);
    int t = truth(&v);
    val_free(&v);
    return *r == C_OK ? t : -1;
}

/* Runs a loop body: 1 to go on, 0 to leave with *r. */
static int loop_body(aw *I, anode *body, int *r)
{
    *r = exec(I, body);
    if (*r == C_BREAK) {
        *r = C_OK;
        return 0;
    }
    if (*r == C_CONTINUE)
        *r = C_OK;
    return *r == C_OK;
}

/* Runs a statement; the result says how control leaves it (C_OK, C_NEXT...). */
static int exec(aw *I, anode *s)
{
    if (!s)
        return C_OK;
    if (++I->depth > MAX_EVAL_DEPTH) {
        I->depth--;
        return fatal(I, s->line, "statement nesting too deep");
    }
    int r = C_OK, t;
    switch (s->type) {
    case S_BLOCK:
        for (anode *x = s->a; x && r == C_OK; x = x->next)
            r = exec(I, x);
        break;
    case S_EXPR: {
        aval v = { 0 };
        r = eval(I, s->a, &v);
        val_free(&v);
        break;
    }
    case S_PRINT:
    case S_PRINTF:
        r = exec_print(I, s);
        break;
    case S_IF:
        t = test(I, s->a, &r);
        if (t >= 0)
            r = exec(I, t ? s->b : s->c);
        break;
    case S_WHILE:
        while (test(I, s->a, &r) > 0 && loop_body(I, s->b, &r))
            ;
        break;
    case S_DO:
        while (loop_body(I, s->a, &r) && test(I, s->b, &r) > 0)
            ;
        break;
    case S_FOR:
        r = exec(I, s->a);
        while (r == C_OK) {
            if (s->b && test(I, s->b, &r) <= 0)
                break;
            if (!loop_body(I, s->d, &r))
                break;
            r = exec(I, s->c);
        }
        break;
    case S_FORIN:
        r = exec_forin(I, s);
        break;
    case S_NEXT:
        r = C_NEXT;
        break;
    case S_NEXTFILE:
        r = C_NEXTFILE;
        break;
    case S_BREAK:
        r = C_BREAK;
        break;
    case S_CONTINUE:
        r = C_CONTINUE;
        break;
    case S_EXIT:
    case S_RETURN:
        if (s->a) {
            aval v = { 0 };
            r = eval(I, s->a, &v);
            if (r == C_OK && s->type == S_EXIT)
                I->exit_code = (int)(to_ll(to_num(&v)) & 255);
            if (r == C_OK && s->type == S_RETURN) {
                val_free(&I->retval);
                I->retval = v;
                memset(&v, 0, sizeof(v));
            }
            val_free(&v);
        }
        if (r == C_OK)
            r = s->type == S_EXIT ? C_EXIT : C_RETURN;
        break;
    case S_DELETE: {
        aarr *a = node_array(I, s->a);
        if (!a) {
            r = C_ERROR;
        } else if (!s->b) {
            arr_clear(a);
        } else {
            char *key = subscript(I, s->b);
            if (!key)
                r = C_ERROR;
            else
                arr_delete(a, key);
            free(key);
        }
        break;
    }
    default:
        r = fatal(I, s->line, "bad statement");
    }
    I->depth--;
    return r;
}

/* ---------------------------------------------------------------- running */

/* Whether a main rule applies to the current record (ranges keep state). */
static int rule_matches(aw *I, arule *rule, int *r)
{
    *r = C_OK;
    if (!rule->pat1)
        return 1;
    if (!rule->pat2)
        return test(I, rule->pat1, r);
    if (!rule->in_range) {
        int t = test(I, rule->pat1, r);
        if (t <= 0)
            return t;
        rule->in_range = 1;
    }
    int t = test(I, rule->pat2, r);
    if (t < 0)
        return t;
    if (t)
        rule->in_range = 0;
    return 1;
}

static int run_action(aw *I, arule *rule)
{
    if (rule->action)
        return exec(I, rule->action);
    anode print = { .type = S_PRINT };
    return exec_print(I, &print);
}

static int run_rules(aw *I, int kind)
{
    for (int i = 0; i < I->nrules; i++) {
        if (I->rules[i].kind != kind)
            continue;
        int r = run_action(I, &I->rules[i]);
        if (r == C_EXIT || r == C_ERROR)
            return r;
    }
    return C_OK;
}

/* Reads the main input and runs the main rules on each record. */
static int run_main(aw *I)
{
    for (;;) {
        int err;
        char *rec = next_main_record(I, &err);
        if (!rec)
            return err ? C_ERROR : C_OK;
        if (set_record(I, rec) != C_OK)
            return C_ERROR;
        for (int i = 0; i < I->nrules; i++) {
            arule *rule = &I->rules[i];
            if (rule->kind != R_MAIN)
                continue;
            int r, m = rule_matches(I, rule, &r);
            if (m < 0)
                return r;
            if (!m)
                continue;
            r = run_action(I, rule);
            if (r == C_NEXT)
                break;
            if (r == C_NEXTFILE) {
                close_main_input(I);
                break;
            }
            if (r == C_EXIT || r == C_ERROR)
                return r;
        }
    }
}

/* Sets up the special variables, ENVIRON and ARGV. */
static int init_globals(aw *I, const char *fs, int nargs, char **args)
{
    I->globals = xcalloc(I, (size_t)I->nglobals, sizeof(acell));
    if (!I->globals)
        return -1;
    static const struct {
        int idx;
        const char *value;
    } defaults[] = {
        { V_OFS, " " }, { V_ORS, "\n" }, { V_RS, "\n" }, { V_SUBSEP, "\034" },
        { V_CONVFMT, "%.6g" }, { V_OFMT, "%.6g" }, { V_FILENAME, "" },
    };
    for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
        if (set_global_str(I, defaults[i].idx, defaults[i].value) < 0)
            return -1;
    if (set_global_str(I, V_FS, fs ? fs : " ") < 0)
        return -1;
    set_global_num(I, V_NR, 0);
    set_global_num(I, V_NF, 0);
    set_global_num(I, V_FNR, 0);
    set_global_num(I, V_RSTART, 0);
    set_global_num(I, V_RLENGTH, -1);
    set_global_num(I, V_ARGC, nargs + 1);
    aarr *env = cell_array(I, &I->globals[V_ENVIRON], 0);
    aarr *argv = env ? cell_array(I, &I->globals[V_ARGV], 0) : NULL;
    if (!argv)
        return -1;
    char **e = sh_environ(I->p);
    for (; e && *e; e++) {
        char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        char *name = xstrndup(I, *e, (size_t)(eq - *e));
        if (!name || arr_set_input(I, env, name, eq + 1, strlen(eq + 1)) < 0) {
            free(name);
            return -1;
        }
        free(name);
    }
    if (arr_set_index(I, argv, 0, "awk", 3) < 0)
        return -1;
    for (int i = 0; i < nargs; i++)
        if (arr_set_index(I, argv, i + 1, args[i], strlen(args[i])) < 0)
            return -1;
    I->argi = 1;
    I->seed = 1;
    rand_seed(I, 1);
    return 0;
}

/* Releases everything the interpreter holds (not I itself). */
static void free_interp(aw *I)
{
    for (int i = 0; i < I->ntok; i++)
        free(I->toks[i].str);
    free(I->toks);
    for (anode *n = I->nodes, *nx; n; n = nx) {
        nx = n->chain;
        free(n->str);
        regex_free(n->re);
        free(n);
    }
    for (int i = 0; i < I->nfuncs; i++) {
        for (int k = 0; k < I->funcs[i].nparams; k++)
            free(I->funcs[i].params[k]);
        free(I->funcs[i].params);
        free(I->funcs[i].name);
    }
    free(I->funcs);
    free(I->rules);
    if (I->globals)
        for (int i = 0; i < I->nglobals; i++)
            cell_free(&I->globals[i]);
    free(I->globals);
    for (int i = 0; i < I->nglobals; i++)
        free(I->gnames[i]);
    free(I->gnames);
    clear_fields(I);
    free(I->fields);
    val_free(&I->rec);
    val_free(&I->retval);
    free(I->in_data);
    for (aout *o = I->outs, *nx; o; o = nx) {
        nx = o->next;
        sh_buf_free(&o->buf);
        free(o->name);
        free(o);
    }
    for (ain *in = I->ins, *nx; in; in = nx) {
        nx = in->next;
        free(in->data);
        free(in->name);
        free(in);
    }
    for (int i = 0; i < RE_CACHE; i++) {
        free(I->recache[i].src);
        regex_free(I->recache[i].re);
    }
    sh_buf_free(&I->obuf);
}

/* Closes every redirection at the end: pipes run, then our output is written
 * (as gawk, whose own buffered output follows its pipes' at exit). */
static void finish_outputs(aw *I)
{
    while (I->outs) {
        aout *o = I->outs;
        I->outs = o->next;
        if (I->status != SH_STATUS_PIPE && flush_redirect(I, o, 1) < 0 && I->status == 0 &&
            o->kind != TK_PIPE)
            I->status = 2;
        sh_buf_free(&o->buf);
        free(o->name);
        free(o);
    }
    if (I->status != SH_STATUS_PIPE)
        flush_stdout(I);
}

static void usage(sh_proc *p)
{
    sh_err(p, "usage: awk [-F fs][-v var=value][prog | -f progfile][file ...]");
}

/* Runs a parsed program: BEGIN, the main input, END, then closes outputs. */
static int run_program(aw *I)
{
    int r = run_rules(I, R_BEGIN);
    int has_main = 0;
    for (int i = 0; i < I->nrules; i++)
        has_main |= I->rules[i].kind != R_BEGIN;
    if (r == C_OK && has_main)
        r = run_main(I);
    if (r == C_OK || r == C_EXIT)
        r = run_rules(I, R_END);
    finish_outputs(I);
    if (I->status)
        return I->status;
    return I->exit_code;
}

/* awk [-F fs] [-v var=value] [-f progfile | -e text | 'program'] [file ...] */
static int awk_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "field-separator", 1, 'F' }, { "assign", 1, 'v' }, { "file", 1, 'f' },
        { "source", 1, 'e' }, { NULL, 0, 0 },
    };
    aw *I = calloc(1, sizeof(*I));
    if (!I) {
        sh_oom(p);
        return 2;
    }
    I->p = p;
    I->cur_func = -1;
    sh_opt o = { 1, 0, NULL };
    sh_buf src = { 0 };
    char *fs = NULL;
    char **assigns = calloc((size_t)argc + 1, sizeof(char *));
    int nassign = 0, have_prog = 0, status = 0, c;
    if (!assigns) {
        free(I);
        sh_oom(p);
        return 2;
    }
    while ((c = sh_getopt(p, &o, argc, argv, "+F:f:v:e:", longs)) != -1) {
        switch (c) {
        case 'F':
            free(fs);
            fs = unescape(I, o.arg);
            if (!fs)
                status = 2;
            break;
        case 'v':
            if (!is_assignment_arg(o.arg)) {
                sh_err(p, "fatal: `%s' argument to `-v' not in `var=value' form", o.arg);
                status = 2;
            }
            assigns[nassign++] = o.arg;
            break;
        case 'f': {
            char *data;
            size_t len;
            const char *path = strcmp(o.arg, "/dev/stdin") == 0 ? "-" : o.arg;
            if (sh_load(p, path, &data, &len) < 0) {
                status = 2;
                break;
            }
            if (sh_buf_add(&src, data, len) < 0 || sh_buf_addc(&src, '\n') < 0)
                status = 2;
            free(data);
            have_prog = 1;
            break;
        }
        case 'e':
            if (sh_buf_adds(&src, o.arg) < 0 || sh_buf_addc(&src, '\n') < 0)
                status = 2;
            have_prog = 1;
            break;
        default:
            usage(p);
            status = 1;
        }
        if (status)
            break;
    }
    if (!status && !have_prog) {
        if (o.ind >= argc) {
            usage(p);
            status = 1;
        } else if (sh_buf_adds(&src, argv[o.ind++]) < 0) {
            status = 2;
        }
    }
    if (!status && !sh_buf_cstr(&src))
        status = 2;
    for (int i = 0; !status && i < V_NSPECIAL; i++)
        if (global_index(I, special_names[i]) != i)
            status = 2;
    if (!status && (lex(I, src.data) < 0 || parse_program(I) < 0))
        status = I->status ? I->status : 1;
    if (!status)
        status = init_globals(I, fs, argc - o.ind, argv + o.ind) < 0 ? 2 : 0;
    for (int i = 0; !status && i < nassign; i++)
        if (apply_assignment(I, assigns[i]) != C_OK)
            status = 2;
    if (!status)
        status = run_program(I);
    else if (I->oom)
        status = 2;
    free(assigns);
    free(fs);
    sh_buf_free(&src);
    free_interp(I);
    free(I);
    return status;
}

const sh_applet sh_applets_awk[] = {
    { "awk", awk_main, "pattern scanning and text processing language" },
    { NULL, NULL, NULL },
};
