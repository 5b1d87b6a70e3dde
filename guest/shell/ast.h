/* The shell's internals shared by its parser, expander and executor: the syntax
 * tree of a command line and the interpreter's state. */
#ifndef CAPSA_SHELL_AST_H
#define CAPSA_SHELL_AST_H

#include "shell.h"

/* A word as written (quotes and all): it is expanded only when run. */
typedef struct sh_word {
    char *text;
    struct sh_word *next;
} sh_word;

enum {
    R_IN,      /* < file */
    R_OUT,     /* > file (>| too) */
    R_APPEND,  /* >> file */
    R_DUP,     /* N>&M, N<&M */
    R_BOTH,    /* &> file */
    R_BOTHAPP, /* &>> file */
    R_HEREDOC, /* << and <<- (body in target; quoted: not expanded) */
    R_HERESTR, /* <<< word */
    R_RW,      /* <> file */
};

typedef struct sh_redir {
    int kind, fd;          /* fd: the one redirected (0 for <, 1 for >) */
    char *target;          /* a word, or a here-document's body */
    int quoted;            /* here-document: its delimiter was quoted */
    struct sh_redir *next;
} sh_redir;

enum {
    N_CMD,      /* a simple command: assigns, words, redirs */
    N_PIPE,     /* kids: the stages; bang: `!` in front */
    N_AND,      /* a && b */
    N_OR,       /* a || b */
    N_SEQ,      /* a ; b (and a & b: run in order) */
    N_SUBSHELL, /* ( a ) */
    N_GROUP,    /* { a; } */
    N_IF,       /* if a then b else c */
    N_WHILE,    /* while a do b */
    N_UNTIL,    /* until a do b */
    N_FOR,      /* for name in words do b */
    N_CASE,     /* case word in items esac */
    N_FUNC,     /* name () body */
    N_ARITH,    /* (( expr )) */
};

typedef struct sh_case_item {
    sh_word *patterns;
    struct sh_node *body;
    int fallthrough; /* ended by ;& */
    struct sh_case_item *next;
} sh_case_item;

typedef struct sh_node {
    int type;
    int bang;               /* N_PIPE: its status is negated */
    int line;               /* for messages */
    sh_word *words;         /* N_CMD: the words; N_FOR: the list; N_CASE: the word */
    sh_word *assigns;       /* N_CMD: NAME=value words before the command */
    sh_redir *redirs;       /* any command */
    char *name;             /* N_FOR: variable; N_FUNC: function; N_ARITH: expression */
    int has_list;           /* N_FOR: `in` was given */
    struct sh_node *a, *b, *c; /* operands: N_AND/N_OR/N_SEQ a b; N_IF a b c;
                                  N_WHILE/N_UNTIL a b; N_FOR/N_SUBSHELL/N_GROUP/N_FUNC a */
    struct sh_node **kids;  /* N_PIPE stages */
    int n_kids;
    sh_case_item *items;    /* N_CASE */
} sh_node;

/* A parsed command line, shared by the functions it defines. */
typedef struct sh_tree {
    sh_node *root;
    int refs;
} sh_tree;

/* Parses src into a tree (refs 1). On a syntax error returns NULL and sets *error
 * to a message (caller frees). *error stays NULL when out of memory. */
sh_tree *sh_parse(const char *src, char **error);
void sh_tree_release(sh_tree *t);

/* The matching end of a $( ... ), ${ ... }, $(( ... )) or ` ... ` starting at s
 * (s points just after the opening), honouring quotes and nesting: the index
 * of the closing character, or -1 when there is none. Shared by the lexer and
 * the expander. */
long sh_scan_close(const char *s, char open, char close);
/* The end of a backquoted command starting after the opening `: the index of the
 * closing `, or -1. */
long sh_scan_backquote(const char *s);


/* --- the interpreter's state ------------------------------------------------ */

typedef struct sh_var {
    char *name, *value;
    int exported;
} sh_var;

typedef struct sh_func {
    char *name;
    sh_node *body;
    sh_tree *tree; /* holds body */
} sh_func;

/* A `local` variable's previous state, restored when its function returns. */
typedef struct sh_saved {
    char *name, *value; /* value NULL: was unset */
    int exported, depth;
} sh_saved;

/* A command's standard input: read whole, consumed by `read` line by line. */
typedef struct sh_input {
    const char *data;
    size_t len, pos;
} sh_input;

/* The streams a command runs with. */
typedef struct sh_io {
    sh_input *in;
    sh_stream *out, *err;
} sh_io;

enum { FLOW_NONE, FLOW_BREAK, FLOW_CONTINUE, FLOW_RETURN, FLOW_EXIT };

struct sh_shell {
    char *cwd;
    sh_var *vars;
    int n_vars, cap_vars;
    char **env;         /* sh_environ's last answer */
    sh_func *funcs;
    int n_funcs, cap_funcs;
    sh_saved *saved;
    int n_saved, cap_saved;
    char **params;      /* $1 ... (owned) */
    int n_params;
    char *arg0;         /* $0 */
    int status;         /* $? */
    int opt_e, opt_u, opt_x, opt_f, opt_pipefail;
    int flow, flow_n;   /* a break/continue/return/exit unwinding, and its count */
    int loops, funcs_depth;
    int cond;           /* > 0: in a condition, where set -e does not apply */
    int depth;          /* nesting of functions, eval, substitutions */
    sh_tree *tree;      /* the tree being run: function definitions hold it */
    const sh_applet *commands; /* the embedder's commands (sh_set_commands) */
    char *trap_exit;    /* trap ... EXIT */
    int exited;         /* `exit` ran at the top level */
    int captures;       /* command substitutions run so far */
    int expand_failed;  /* an expansion failed (${x:?}, set -u): the shell exits */
};

/* Variables (shell.c). sh_var_get: NULL when unset. */
const char *sh_var_get(sh_shell *sh, const char *name);
int sh_var_unset(sh_shell *sh, const char *name);
/* Frees an array of n positional parameters. */
void sh_free_params(char **params, int n);
/* Saves and restores everything a subshell may change (shell.c). */
typedef struct sh_snapshot sh_snapshot;
sh_snapshot *sh_snapshot_take(sh_shell *sh);
void sh_snapshot_restore(sh_shell *sh, sh_snapshot *s);

/* Expansion (expand.c). Each returns -1 after reporting an error on io->err
 * (the status is then set in sh->status). */
int sh_expand_words(sh_shell *sh, sh_io *io, sh_word *words, char ***argv, int *argc);
void sh_free_argv(char **argv);
char *sh_expand_string(sh_shell *sh, sh_io *io, const char *word);   /* no splitting or globbing */
char *sh_expand_heredoc(sh_shell *sh, sh_io *io, const char *body); /* $ ` \ only */
char *sh_expand_pattern(sh_shell *sh, sh_io *io, const char *word);  /* quoted chars escaped */
int sh_arith(sh_shell *sh, sh_io *io, const char *expr, long long *value);
int sh_is_name(const char *s);

/* Builtins (builtins.c): the commands that change the shell itself. */
typedef int (*sh_builtin_fn)(sh_shell *sh, sh_io *io, int argc, char **argv);
sh_builtin_fn sh_find_builtin(const char *name);
/* Lists the builtins' names and help lines for `help`. */
void sh_help_builtins(sh_proc *p);

/* Execution (exec.c). */
/* The embedder's command or the applet called name (the embedder's first), or
 * NULL. */
const sh_applet *sh_find_command(sh_shell *sh, const char *name);
/* Runs applet a with argv and the streams of io; its exit status. */
int sh_run_applet(sh_shell *sh, sh_io *io, const sh_applet *a, int argc, char **argv);
int sh_exec(sh_shell *sh, sh_node *n, sh_io *io);
int sh_exec_source(sh_shell *sh, const char *src, sh_io *io);
/* Runs src as a command substitution: its output, trailing newlines removed
 * (caller frees), or NULL when out of memory. */
char *sh_capture(sh_shell *sh, sh_io *io, const char *src);
/* Reports "sh: message" on io->err. */
void sh_report(sh_io *io, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
