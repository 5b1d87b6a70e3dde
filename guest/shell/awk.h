/* awk's insides, shared by its files: values, arrays, variables and regular
 * expressions (awk_value.c), the lexer (awk_lex.c), the parser (awk_parse.c),
 * records, input and output (awk_io.c), the builtins and getline
 * (awk_builtins.c), the evaluator (awk_eval.c) and the command (awk.c). */
#ifndef CAPSA_SHELL_AWK_H
#define CAPSA_SHELL_AWK_H

#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "sh.h"

/* Bounds on nesting, so that hostile programs cannot exhaust the C stack. */
#define MAX_PARSE_DEPTH 300
#define MAX_EVAL_DEPTH 4000
#define MAX_CALL_DEPTH 1000
#define MAX_FIELD 1000000
#define MAX_WIDTH 1000000
#define OBUF_FLUSH 65536
#define RE_CACHE 16

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

enum {
    B_LENGTH, B_SUBSTR, B_INDEX, B_SPLIT, B_SUB, B_GSUB, B_MATCH, B_TOLOWER, B_TOUPPER,
    B_SPRINTF, B_INT, B_SQRT, B_EXP, B_LOG, B_SIN, B_COS, B_ATAN2, B_RAND, B_SRAND,
    B_SYSTEM, B_CLOSE, B_FFLUSH, B_GENSUB, B_ASORT, B_ASORTI, B_SYSTIME, B_STRFTIME,
    B_MKTIME
};

/* A builtin function: its name and how many arguments it takes. */
typedef struct abuiltin {
    const char *name;
    int min, max;
} abuiltin;

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

/* Receives one piece of a split: the text and the separator before it. */
typedef int (*split_fn)(aw *I, void *ctx, const char *s, size_t n, const char *sep,
                        size_t seplen);

enum { P_CELL, P_ELEM, P_FIELD };

typedef struct place {
    int kind, line;
    acell *cell;
    aarr *arr;
    char *key;
    long field;
} place;

/* --- awk_value.c -------------------------------------------------------------- */

/* The special variables' names, in V_* order: they are the first globals. */
extern const char *const awk_special_names[];
/* Reports running out of memory (once, in gawk's words) and makes the status 2. */
void awk_oom(aw *I);
/* Reports a runtime error (gawk's "fatal:" shape) and makes the status 2;
 * returns C_ERROR. */
int awk_fatal(aw *I, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void *awk_xcalloc(aw *I, size_t n, size_t size);
char *awk_xstrndup(aw *I, const char *s, size_t n);
char *awk_xstrdup(aw *I, const char *s);
/* Grows *arr (of *cap elements of size) to hold at least need; 0 or -1. */
int awk_grow(aw *I, void **arr, int *cap, int need, size_t size);
/* The numeric value of a string: its leading number, or 0. */
double awk_str_to_num(const char *s);
/* Makes v a string from input: T_STRNUM when it looks numeric. Takes s. */
void awk_val_set_input(aval *v, char *s);
/* Appends the text of number d: integers as integers, others through fmt. */
int awk_num_append(sh_buf *b, double d, const char *fmt);
/* The string value of v (numbers through CONVFMT, cached in v); NULL when out
 * of memory. Valid while v is. */
const char *awk_str_of(aw *I, aval *v);
/* Appends v as print writes it: numbers through OFMT. */
int awk_val_output(aw *I, sh_buf *b, aval *v);
int awk_val_copy(aw *I, aval *dst, const aval *src);
/* awk's comparison: numeric when both sides are numbers (or numeric input),
 * else as strings. Returns <0, 0, >0; 2 for unordered (NaN). */
int awk_compare(aw *I, aval *a, aval *b, int *err);
aelem *awk_arr_find(aarr *a, const char *key);
/* The element key of a, created (uninitialised) if missing; NULL when out of
 * memory. */
aelem *awk_arr_get(aw *I, aarr *a, const char *key);
/* Removes a[key] if present. */
void awk_arr_delete(aarr *a, const char *key);
void awk_arr_clear(aarr *a);
/* Sets a[key] to the string s (input-typed), for ENVIRON, ARGV, split(). */
int awk_arr_set_input(aw *I, aarr *a, const char *key, const char *s, size_t n);
int awk_arr_set_index(aw *I, aarr *a, long i, const char *s, size_t n);
void awk_cell_free(acell *c);
const char *awk_cell_name(aw *I, acell *c);
/* The array held by a variable, created if the variable is untyped; NULL after
 * an error (a scalar used as an array, out of memory). */
aarr *awk_cell_array(aw *I, acell *c, int line);
acell *awk_node_cell(aw *I, anode *n);
aarr *awk_node_array(aw *I, anode *n);
const char *awk_global_str(aw *I, int idx);
int awk_set_global_str(aw *I, int idx, const char *s);
void awk_set_global_num(aw *I, int idx, double d);
/* Compiles an awk regular expression; NULL after reporting an error. */
are *awk_regex_compile(aw *I, const char *src, int line);
void awk_regex_free(are *r);
/* Matches r in s; m[0..nm) get the offsets. notbol: s is not at a line start. */
int awk_regex_exec(const are *r, const char *s, int notbol, regmatch_t *m, size_t nm);
/* A compiled regular expression for the dynamic regex src, from a small cache.
 * Valid until the next dynamic regex is compiled. */
are *awk_regex_dynamic(aw *I, const char *src, int line);
/* The regex of a match operand: a /literal/ or any expression's string. */
are *awk_node_regex(aw *I, anode *n);

/* The value helpers that every expression uses, inline: the evaluator, the
 * records and the builtins are files of their own and use them for each value. */
static inline void awk_val_free(aval *v)
{
    free(v->str);
    v->str = NULL;
    v->type = T_UNINIT;
    v->num = 0;
}

static inline void awk_val_num(aval *v, double d)
{
    awk_val_free(v);
    v->type = T_NUM;
    v->num = d;
}

/* Makes v the string s (taken). */
static inline void awk_val_str(aval *v, char *s)
{
    awk_val_free(v);
    v->type = T_STR;
    v->str = s;
}

static inline int awk_truth(const aval *v)
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

static inline double awk_to_num(const aval *v)
{
    switch (v->type) {
    case T_NUM:
    case T_STRNUM:
        return v->num;
    case T_STR:
        return awk_str_to_num(v->str);
    default:
        return 0;
    }
}

/* d as an integer, saturated to the long long range (0 for NaN). */
static inline long long awk_to_ll(double d)
{
    if (isnan(d))
        return 0;
    if (d >= 9.2e18)
        return LLONG_MAX;
    if (d <= -9.2e18)
        return LLONG_MIN;
    return (long long)d;
}

/* --- awk_lex.c ---------------------------------------------------------------- */

/* The builtin functions, in B_* order, ended by a NULL name. */
extern const abuiltin awk_builtins[];
/* Processes escape sequences (for -v values and var=value operands). */
char *awk_unescape(aw *I, const char *s);
/* Splits the program text into tokens; 0, or -1 after a reported error. */
int awk_lex(aw *I, const char *s);

/* --- awk_parse.c -------------------------------------------------------------- */

/* The type of the current token. */
int awk_tok(aw *I);
/* The index of global name, added if new; -1 when out of memory. */
int awk_global_index(aw *I, const char *name);
/* A primary expression, counting nesting depth (each level recurses). */
anode *awk_parse_primary(aw *I);
/* Concatenation, then `cmd | getline [var]` which binds just above it. */
anode *awk_parse_concat(aw *I);
/* A whole expression: assignments (right-associative) over the ternary. */
anode *awk_parse_expr(aw *I);
/* The whole program: rules and function definitions. 0, or -1 after an error. */
int awk_parse_program(aw *I);

/* --- awk_io.c ----------------------------------------------------------------- */

/* Splits s by the field separator fs (" " for blank runs, one other character
 * literally, "" into characters, anything else as a regex; in paragraph mode a
 * newline also separates). The pieces go to add(ctx, ...). Returns 0 or -1
 * after an error. */
int awk_split_string(aw *I, const char *s, const char *fs, int paragraph, split_fn add,
                     void *ctx, int line);
void awk_clear_fields(aw *I);
/* Makes s (taken) the record $0 and splits it into fields with FS. */
int awk_set_record(aw *I, char *s);
int awk_field_index(aw *I, double d, int line, long *out);
int awk_get_field(aw *I, long i, aval *out);
/* Changes NF: fields are dropped or added empty, and $0 is rebuilt. */
int awk_set_nf(aw *I, double d, int line);
/* Assigns field i the value v (taken). */
int awk_set_field(aw *I, long i, aval *v, int line);
/* Reads a whole file without reporting errors (getline returns -1 for them).
 * "-" and "/dev/stdin" are the standard input. */
int awk_load_quiet(aw *I, const char *name, char **data, size_t *len);
/* The next record of data from *pos, split by RS; NULL at the end (or out of
 * memory: *err set). The record is the caller's. */
char *awk_read_record(aw *I, const char *data, size_t len, size_t *pos, int *err);
int awk_is_assignment_arg(const char *s);
/* Applies a command-line assignment var=value (escapes processed). */
int awk_apply_assignment(aw *I, const char *arg);
void awk_close_main_input(aw *I);
/* The next main input record (the caller's), counting NR and FNR; NULL at the
 * end or after an error (*err). */
char *awk_next_main_record(aw *I, int *err);
/* Writes out the standard output collected so far. */
int awk_flush_stdout(aw *I);
/* Runs the command line cmd (through the shell's `eval`, so with the shell's
 * whole syntax, its changes undone after) with the given input; its output
 * goes to out, or to ours when out is NULL. Returns its status, or -1 after
 * an error. */
int awk_run_command(aw *I, const char *cmd, const char *in, size_t in_len, sh_buf *out);
/* Writes out an output redirection's pending text: files are appended to,
 * pipes run their command when closed. Returns the close status. */
int awk_flush_redirect(aw *I, aout *o, int closing);
/* Sends text to standard output or a redirection (dest NULL: stdout). */
int awk_emit(aw *I, int kind, anode *dest, const char *text, size_t len, int line);
/* close(name): ends an output redirection or an input source; its status. */
int awk_close_stream(aw *I, const char *name);
int awk_flush_all(aw *I);
/* Evaluates an argument list into a new array of values (freed with
 * free_values). */
int awk_eval_list(aw *I, anode *list, int n, aval **out);
void awk_free_values(aval *v, int n);
/* sprintf's work: formats list (format first) into a new string in out. */
int awk_do_sprintf(aw *I, anode *list, int n, sh_buf *out, int line);

/* --- awk_builtins.c ----------------------------------------------------------- */

/* The gawk random() generator (BSD additive feedback, 63 words), so that
 * rand() gives gawk's sequence for a given seed. */
void awk_rand_seed(aw *I, uint32_t seed);
/* Runs a builtin: those that need their arguments unevaluated (arrays,
 * lvalues, regexes) first, the others after evaluating them all. */
int awk_call_builtin(aw *I, anode *n, aval *out);
/* The getline forms: value 1 read, 0 end of input, -1 error (file missing). */
int awk_eval_getline(aw *I, anode *n, aval *out);

/* --- awk_eval.c --------------------------------------------------------------- */

/* Evaluates what an lvalue refers to (subscripts, field numbers) now. */
int awk_resolve_place(aw *I, anode *n, place *pl);
/* Copies the value at a place into out. */
int awk_place_get(aw *I, place *pl, aval *out);
/* Stores v (taken) in the place; NF's side effects apply. */
int awk_place_set(aw *I, place *pl, aval *v);
/* Assigns the string s (copied) to an lvalue node, as input (getline var,
 * for-in keys). */
int awk_assign_input(aw *I, anode *lv, const char *s);
/* Evaluates an expression into out (which must be empty or freeable). */
int awk_eval(aw *I, anode *n, aval *out);
/* print and printf: the text is built whole, then sent where it goes. */
int awk_exec_print(aw *I, anode *s);
/* Evaluates a condition: 1 true, 0 false, -1 with *r the failure. */
int awk_test(aw *I, anode *n, int *r);
/* Runs a statement; the result says how control leaves it (C_OK, C_NEXT...). */
int awk_exec(aw *I, anode *s);

#endif
