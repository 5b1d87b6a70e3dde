/* jq's insides, shared by its files: JSON values (jq_json.c), the filter
 * language's tokens (jq_lex.c), syntax tree and parser (jq_parse.c), the
 * evaluator (jq_eval.c), the builtins (jq_builtins.c) and the command (jq.c). */
#ifndef CAPSA_SHELL_JQ_H
#define CAPSA_SHELL_JQ_H

#include <stddef.h>
#include <stdint.h>

#include "sh.h"

/* Values nested deeper than this are refused, so that the recursion of the
 * functions walking them stays bounded; input texts may nest less. */
#define JQ_MAX_DEPTH 2000

/* The kinds, in jq's sort order. */
enum { JK_NULL, JK_FALSE, JK_TRUE, JK_NUM, JK_STR, JK_ARR, JK_OBJ };

/* A JSON value, reference counted and immutable once shared (refs > 1). A
 * string's bytes are NUL-terminated; an object keeps its keys (strings) in
 * insertion order, next to their values. */
typedef struct jv {
    int kind;
    int refs;
    double num;
    char *str;
    size_t len;
    struct jv **items; /* array items, or object values */
    struct jv **keys;  /* object keys */
    size_t n, cap;
    int depth;         /* an upper bound of the nesting inside */
} jv;

/* How values are printed. */
typedef struct dump_opts {
    int indent;   /* spaces per level; 0 is compact */
    int tab;      /* indent with tabs */
    int sort;     /* -S */
    int ascii;    /* -a */
} dump_opts;

/* A stream of JSON texts being read. */
typedef struct reader {
    const char *s;
    size_t len, pos;
    char err[160]; /* the message of the last parse error */
} reader;

enum {
    N_IDENTITY, N_LIT, N_INDEX, N_SLICE, N_ITER, N_TRY, N_PIPE, N_COMMA, N_NEG,
    N_ARITH, N_AND, N_OR, N_ALT, N_ASSIGN, N_IF, N_REDUCE, N_FOREACH, N_AS, N_DEF,
    N_CALL, N_VAR, N_FORMAT, N_STR, N_ARRAY, N_OBJECT, N_LABEL, N_BREAK,
    N_PVAR, N_PARR, N_POBJ
};

/* A node of a parsed filter. Which fields are used depends on op: a..e are
 * operands, args a list (call arguments, string parts, object entries as
 * key/value pairs, pattern elements), params a definition's parameter names. */
typedef struct node {
    int op;
    int binop; /* N_ARITH, N_ASSIGN: the operator's character ('<' is "<", 'l' "<=" ...) */
    int opt;   /* N_INDEX, N_SLICE, N_ITER followed by '?': their own errors are dropped */
    struct node *a, *b, *c, *d, *e;
    jv *val;    /* N_LIT */
    char *name; /* N_CALL, N_VAR, N_FORMAT, N_DEF, N_STR's format, N_LABEL, N_PVAR */
    struct node **args;
    size_t nargs;
    char **params;
    size_t nparams;
    struct node *all; /* every node, for freeing */
} node;

/* The parser's state: the program text and every node allocated. */
typedef struct parser {
    const char *s;
    size_t len, pos;
    node *all;
    int depth;
    size_t user_start; /* where the user's program starts (after the builtins) */
    char err[200];
} parser;

enum { TK_EOF, TK_IDENT, TK_FIELD, TK_VAR, TK_NUM, TK_STR, TK_FORMAT, TK_OP, TK_BAD };

/* One token: its type and where its text is. */
typedef struct token {
    int type;
    size_t start, end;
} token;

/* Return codes of the evaluator: 0 to go on, J_ERR for an error (its value in
 * jq.err), and from J_LABEL up, the label that a break (or limit, first)
 * unwinds to. */
#define J_ERR 1
#define J_LABEL 2

enum { E_VAR, E_FUNC, E_CLOSURE, E_LABEL, E_NONE };

/* A binding, on the C stack of the code that made it: variables, function
 * definitions, the filters passed as a function's arguments, and labels. */
typedef struct env {
    const struct env *up;
    int kind;
    const char *name;
    size_t arity;
    jv *val;                  /* E_VAR */
    const node *def;          /* E_FUNC: the definition; E_CLOSURE: the argument */
    const struct env *scope;  /* E_CLOSURE: the environment of the caller */
    int label;                /* E_LABEL */
} env;

/* The state of one run of jq. */
typedef struct jq {
    sh_proc *p;
    jv *err;          /* the pending error's value (NULL: out of memory) */
    int next_label;
    uintptr_t stack_base;
    reader in;        /* the input texts */
    char **files;     /* the input files (none: standard input) */
    size_t nfiles;
    int loaded;       /* the input texts were read */
    int load_status;  /* 2 when a file could not be read */
    char *input;      /* all of them */
    int raw_input;    /* -R */
    jv *consumable;   /* a reduce/foreach state an assignment may update in place */
    int consumed;     /* the assignment took it over */
    int input_error;  /* an input could not be parsed */
    dump_opts dump;
} jq;

/* Receives one output of a filter: its value and, when paths are tracked
 * (path(f), assignments), its path. Both are borrowed. */
typedef int (*emit_fn)(jq *q, jv *v, jv *path, void *data);

/* Continuation state shared by the binary forms: the node, environment, the
 * original input and path, the next continuation, and a value held between
 * the two operands. */
typedef struct step {
    jq *q;
    const node *n;
    const env *e;
    jv *in;
    jv *path;
    emit_fn k;
    void *kd;
    jv *held;
    const env *inner; /* foreach: the bindings of the current element */
} step;

/* A native function: val computes one value from the input and the
 * arguments' values; gen emits any number of outputs; special gets the
 * unevaluated argument filters (for generators over filters, and paths). */
typedef struct native {
    const char *name;
    size_t nargs;
    jv *(*val)(jq *q, jv *in, jv **args);
    int (*gen)(jq *q, jv *in, jv **args, emit_fn k, void *kd);
    int (*special)(jq *q, const node *call, const env *e, jv *in, jv *path, emit_fn k, void *kd);
} native;

/* A static scope: what names a part of the program can refer to. */
typedef struct scope {
    const struct scope *up;
    int kind; /* E_VAR, E_FUNC, E_LABEL */
    const char *name;
    size_t arity;
} scope;

/* --- jq_json.c ---------------------------------------------------------------- */

/* The kinds' names in messages (true and false are both "boolean"). */
extern const char *const jq_kind_names[];
/* A new value of the given kind, or NULL when out of memory. */
jv *jv_new(int kind);
jv *jv_num(double d);
jv *jv_bool(int b);
/* A string value holding a copy of the n bytes at s. */
jv *jv_strn(const char *s, size_t n);
jv *jv_str(const char *s);
/* A string value that takes over the contents of b. */
jv *jv_str_buf(sh_buf *b);
jv *jv_ref(jv *v);
void jv_free(jv *v);
int jq_truthy(const jv *v);
/* Appends item (taken over, freed on failure) to the unshared array a. */
int jq_arr_push(jv *a, jv *item);
/* The index of key in object o, or -1. */
long jq_obj_find(const jv *o, const char *key, size_t len);
jv *jq_obj_get(const jv *o, const char *key, size_t len);
/* Sets key (a string value) to val in the unshared object o; both are taken
 * over (and freed on failure). */
int jq_obj_set(jv *o, jv *key, jv *val);
/* Returns v itself when unshared, or else a shallow copy (dropping one
 * reference to v): the result may be modified. NULL when out of memory (v is
 * released then). */
jv *jv_unshare(jv *v);
int jq_key_cmp(const void *x, const void *y);
/* jq's total order of values: -1, 0 or 1. */
int jv_cmp(const jv *a, const jv *b);
/* Decodes one code point from s (n bytes left) into *cp; returns its length,
 * or 1 with *cp = U+FFFD for an invalid sequence. */
size_t jq_utf8_decode(const unsigned char *s, size_t n, unsigned *cp);
int jq_utf8_encode(sh_buf *b, unsigned c);
/* The number of code points in the n bytes at s. */
size_t jq_utf8_count(const char *s, size_t n);
/* The byte offset of code point number idx in s (n bytes), or n past the end. */
size_t jq_utf8_offset(const char *s, size_t n, size_t idx);
/* A string value with the n bytes at s, invalid UTF-8 replaced by U+FFFD. */
jv *jv_str_utf8(const char *s, size_t n);
/* Formats a number as jq 1.6 does: the shortest digits that read back the same
 * (17 at most), plain unless the exponent is far out, infinities clamped. */
void jq_fmt_num(char out[64], double d);
/* Appends v as JSON text: 0, or -1 when out of memory. */
int jq_dump(sh_buf *b, const jv *v, const dump_opts *o, int level);
/* The compact JSON text of v as a new string value. */
jv *jv_tojson(const jv *v);
/* tostring: strings as they are, everything else as JSON. */
jv *jv_tostring(jv *v);
int jq_hex4(const char *s, unsigned *out);
/* The next value of the stream: 1 with *out set, 0 at the end, -1 on error. */
int jq_json_next(reader *r, jv **out);
/* Parses text that must hold exactly one value (fromjson, --argjson). */
jv *jq_parse_json_text(const char *s, size_t n, char *err, size_t errsize);

/* --- jq_lex.c ----------------------------------------------------------------- */

/* Skips blanks and comments, then reads the token at the current position
 * without consuming it. */
token jq_peek(parser *ps);
int jq_tok_is(parser *ps, const token *t, const char *text);
/* Consumes the next token if it is text. */
int jq_accept(parser *ps, const char *text);
/* Records a syntax error (the first one only); returns NULL for convenience. */
node *jq_syntax_error(parser *ps, const char *what);
int jq_expect(parser *ps, const char *text);

/* --- jq_parse.c --------------------------------------------------------------- */

void jq_free_nodes(node *n);
/* Parses a pipeline: definitions, "label $x | ...", and ',' and '|' chains. */
node *jq_parse_pipe(parser *ps);
/* Verifies that every function, variable and label referred to is defined,
 * as jq does before running anything: 0, or -1 with the message in err. */
int jq_check(const node *n, const scope *s, char *err, size_t errsize);

/* --- jq_eval.c ---------------------------------------------------------------- */

/* Sets the pending error to a message and returns J_ERR. */
int jq_fail(jq *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets the pending error to "out of memory" (no value) and returns J_ERR. */
int jq_oom(jq *q);
/* Writes v's JSON text, cut as jq cuts values in messages, into buf. */
const char *jq_trunc_dump(char buf[32], const jv *v);
/* The common "TYPE (VALUE) ..." error. */
int jq_fail_value(jq *q, const jv *v, const char *what);
/* Returns v, or reports out of memory when it is NULL: for natives. */
jv *jq_checked(jq *q, jv *v);
/* An integer from a number for indexing, clamped into range. */
long jq_to_index(double d);
/* Runs n and returns all its outputs in a new array (or their paths when
 * paths is set), or NULL with the error set. */
jv *jq_collect_all(jq *q, const node *n, const env *e, jv *in, int paths);
/* Reports that a filter which cannot produce paths was asked for one. */
int jq_path_error_emit(jq *q, jv *v, jv *path, void *data);
/* Splits string s at every occurrence of sep into a new array of strings. */
jv *jq_split_str(const jv *s, const jv *sep);
/* Applies an arithmetic or comparison operator: a new value, or NULL with the
 * error set. */
jv *jq_binop(jq *q, int op, jv *a, jv *b);
/* The value at path in t (a new reference), or NULL with the error set. */
jv *jq_getpath(jq *q, jv *t, jv *path);
/* t (taken over) with the value at path[i..] replaced by v (borrowed); NULL
 * with the error set. */
jv *jq_setpath(jq *q, jv *t, jv *path, size_t i, jv *v);
/* t (borrowed) without the values at the given paths, deepest and last first
 * so that earlier deletions do not move later ones. */
jv *jq_delpaths(jq *q, jv *t, jv *paths);
/* Counts the variables a pattern binds. */
size_t jq_pattern_vars(const node *p);
/* Emits one value made here (taken over). */
int jq_emit_new(jq *q, jv *v, emit_fn k, void *kd);
/* Runs filter n on input in: every output goes to k (with its path when path
 * is not NULL). Returns 0, J_ERR or a label code. */
int jq_eval(jq *q, const node *n, const env *e, jv *in, jv *path, emit_fn k, void *kd);

/* --- jq_builtins.c ------------------------------------------------------------ */

/* The builtins written in jq itself, as jq 1.6 defines them (or equivalently). */
extern const char jq_prelude[];
/* indices: of a substring (byte offsets as jq 1.6), an element or a
 * sub-array. */
jv *jq_indices_of(jq *q, jv *t, jv *k);
/* env and $ENV: the exported variables as an object. */
jv *jq_nat_env(jq *q, jv *in, jv **args);
/* Applies @name to v: a new string value, or NULL with the error set. */
jv *jq_apply_format(jq *q, const char *fmt, jv *v);
/* Reads and concatenates the input files (or standard input) into q->in,
 * once. A file that cannot be read is reported and skipped (load_status 2). */
int jq_load_inputs(jq *q);
/* Reads the next input value: 1 with *out, 0 at the end, -1 on error (a
 * parse error, reported as the pending error). */
int jq_next_input(jq *q, jv **out);
const native *jq_find_native(const char *name, size_t nargs);

#endif
