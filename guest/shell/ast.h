/* The syntax tree of a command line (its lifetime and the test of a name in
 * ast.c) and the parser that builds it (parse.c): the lowest layer of the
 * shell's interpreter, above io.c's plumbing only. */
#ifndef CAPSA_SHELL_AST_H
#define CAPSA_SHELL_AST_H

#include <stddef.h>

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

/* --- ast.c ------------------------------------------------------------------ */

/* Frees a node and everything below it; NULL is a no-op. */
void sh_node_free(sh_node *n);
/* Drops one reference to t (a function definition holds one); the last frees
 * it. NULL is a no-op. */
void sh_tree_release(sh_tree *t);
/* Whether s[0..n) is a name (a variable's or a function's): a letter or _, then
 * letters, digits and _. */
int sh_is_name(const char *s, size_t n);

/* --- parse.c ---------------------------------------------------------------- */

/* Parses src into a tree (refs 1). On a syntax error returns NULL and sets *error
 * to a message (caller frees). *error stays NULL when out of memory. */
sh_tree *sh_parse(const char *src, char **error);

/* The matching end of a $( ... ), ${ ... }, $(( ... )) or ` ... ` starting at s
 * (s points just after the opening), honouring quotes and nesting: the index
 * of the closing character, or -1 when there is none. Shared by the lexer and
 * the expander. */
long sh_scan_close(const char *s, char open, char close);
/* The end of a backquoted command starting after the opening `: the index of the
 * closing `, or -1. */
long sh_scan_backquote(const char *s);

#endif
