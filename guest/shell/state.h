/* The shell's base layer (state.c): the interpreter's state (variables,
 * functions, positional parameters, options, `local` saves), subshell
 * snapshots, error reporting, and the hooks through which the lower layers
 * reach the upper ones. Every other file of the interpreter uses it; it uses
 * only io.c's plumbing and ast.c's trees. */
#ifndef CAPSA_SHELL_STATE_H
#define CAPSA_SHELL_STATE_H

#include "ast.h"
#include "shell.h"

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

/* A builtin: a command that reads or changes the shell itself (builtins.c). */
typedef int (*sh_builtin_fn)(sh_shell *sh, sh_io *io, int argc, char **argv);

/* The calls that go up the layers. The layers call downwards only (parse ->
 * expand -> exec -> builtins and applets, all on this base), but three calls are
 * inherent the other way: a command substitution in expand.c runs a command
 * line (exec.c), and exec.c runs builtins and applets, which run command lines
 * in turn (eval, source, xargs, find -exec). The top layer (sh_new, shell.c),
 * which knows every layer, sets these pointers; the lower layers call through
 * them and never name the upper files. */
typedef struct sh_hooks {
    /* $(...) and `...`: runs src as a command substitution and returns its
       output, trailing newlines removed (caller frees), or NULL when out of
       memory. exec.c's sh_capture. */
    char *(*capture)(sh_shell *sh, sh_io *io, const char *src);
    /* The builtin called name, or NULL. builtins.c's sh_find_builtin. */
    sh_builtin_fn (*builtin)(const char *name);
    /* The applet called name, or NULL. applets.c's sh_applet_find. */
    const sh_applet *(*applet)(const char *name);
} sh_hooks;

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
    sh_hooks hooks;     /* the calls up the layers (set by sh_new) */
};

/* A new shell's state: working directory cwd (absolute), $0 "sh", PWD and IFS
 * set, no hooks. NULL when out of memory; sh_free (shell.h) releases it. */
sh_shell *sh_state_new(const char *cwd);

/* Variables. sh_var_get: NULL when unset. sh_setvar is in shell.h. */
const char *sh_var_get(sh_shell *sh, const char *name);
int sh_var_unset(sh_shell *sh, const char *name);
/* Saves the state of the variable name[0..n) in *s (its name and value copied,
 * value NULL when unset, and whether it is exported), for `local` and NAME=value
 * before a command to put back later. 0, or -1 when out of memory. */
int sh_var_save(sh_shell *sh, const char *name, size_t n, sh_saved *s);
/* Frees an array of n positional parameters. */
void sh_free_params(char **params, int n);

/* Saves and restores everything a subshell may change. sh_snapshot_take: NULL
 * when out of memory. sh_snapshot_restore puts the shell back as it was when s
 * was taken, and frees s. */
typedef struct sh_snapshot sh_snapshot;
sh_snapshot *sh_snapshot_take(sh_shell *sh);
void sh_snapshot_restore(sh_shell *sh, sh_snapshot *s);

/* Reports "sh: message" on io->err: the shell's own errors (an applet's are
 * sh_err's, "NAME: message"). */
void sh_report(sh_io *io, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
