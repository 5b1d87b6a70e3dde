/* The shell's executor: runs a syntax tree — pipelines (each stage's output
 * collected and handed to the next), lists, control flow, functions,
 * redirections, subshells and command substitutions — and the command lines
 * that applets run (sh_run). It finds builtins and applets through the shell's
 * hooks (state.h), which the top layer sets, so that it never calls the layers
 * that call it. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec.h"

/* Functions calling functions, eval in eval, substitutions in substitutions. */
#define MAX_DEPTH 200
/* The most redirections of one command that hold a file open. */
#define MAX_FILES 8

/* --- redirections --------------------------------------------------------- */

typedef struct redirected {
    sh_io io;
    sh_input input;
    char *in_data;
    sh_stream files[MAX_FILES];
    int n_files;
} redirected;

/* Where >&- output goes; sh_write never changes a discarding stream, so one
 * serves every shell. (/dev/null is a device of the sandbox's filesystem.) */
static sh_stream discard = { .fd = SH_DISCARD };

/* Opens path for output (append or truncate) as a stream of r. */
static sh_stream *open_out(sh_shell *sh, redirected *r, const char *path, int append)
{
    if (strcmp(path, "/dev/stdout") == 0)
        return r->io.out;
    if (strcmp(path, "/dev/stderr") == 0)
        return r->io.err;
    if (r->n_files == MAX_FILES) {
        sh_report(&r->io, "%s: too many redirections", path);
        return NULL;
    }
    sh_proc p = { sh, "sh", "", 0, r->io.out, r->io.err };
    char *full = sh_path(&p, path);
    if (!full) {
        sh_report(&r->io, "out of memory");
        return NULL;
    }
    int fd = open(full, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0666);
    free(full);
    if (fd < 0) {
        sh_err_path(&p, path);
        return NULL;
    }
    sh_stream *s = &r->files[r->n_files++];
    memset(s, 0, sizeof(*s));
    s->fd = fd;
    return s;
}

static void set_input(redirected *r, char *data, size_t len)
{
    free(r->in_data);
    r->in_data = data;
    r->input = (sh_input){ data, len, 0 };
    r->io.in = &r->input;
}

static void undo_redirs(redirected *r)
{
    for (int i = 0; i < r->n_files; i++)
        close(r->files[i].fd);
    r->n_files = 0;
    free(r->in_data);
    r->in_data = NULL;
}

/* Applies the redirections to a copy of io in r. 0, or -1 after reporting
 * (everything opened is closed again). */
static int apply_redirs(sh_shell *sh, sh_redir *list, sh_io *io, redirected *r)
{
    memset(r, 0, sizeof(*r));
    r->io = *io;
    for (sh_redir *d = list; d; d = d->next) {
        if (d->fd > 2) {
            sh_report(io, "%d: only file descriptors 0, 1 and 2 can be redirected", d->fd);
            goto fail;
        }
        if (d->kind == R_HEREDOC) {
            char *body = d->quoted ? strdup(d->target) : sh_expand_heredoc(sh, io, d->target);
            if (!body)
                goto fail;
            set_input(r, body, strlen(body));
            continue;
        }
        char *t = sh_expand_string(sh, io, d->target);
        if (!t)
            goto fail;
        if (d->kind == R_HERESTR) {
            size_t n = strlen(t);
            char *s = realloc(t, n + 2);
            if (!s) {
                free(t);
                goto fail;
            }
            s[n] = '\n';
            s[n + 1] = '\0';
            set_input(r, s, n + 1);
            continue;
        }
        if (d->kind == R_DUP) {
            sh_stream *target = NULL;
            if (strcmp(t, "1") == 0)
                target = r->io.out;
            else if (strcmp(t, "2") == 0)
                target = r->io.err;
            else if (strcmp(t, "-") == 0)
                target = &discard;
            else if (strcmp(t, "0") == 0 && d->fd == 0) {
                free(t);
                continue;
            } else {
                sh_report(io, "%s: bad file descriptor", t);
                free(t);
                goto fail;
            }
            free(t);
            if (d->fd == 1)
                r->io.out = target;
            else if (d->fd == 2)
                r->io.err = target;
            continue;
        }
        if (d->kind == R_IN || d->kind == R_RW) {
            sh_proc p = { sh, "sh", "", 0, r->io.out, r->io.err };
            char *data;
            size_t len;
            int ok = sh_load(&p, t, &data, &len);
            free(t);
            if (ok < 0)
                goto fail;
            set_input(r, data, len);
            continue;
        }
        int append = d->kind == R_APPEND || d->kind == R_BOTHAPP;
        sh_stream *s = open_out(sh, r, t, append);
        free(t);
        if (!s)
            goto fail;
        if (d->kind == R_BOTH || d->kind == R_BOTHAPP)
            r->io.out = r->io.err = s;
        else if (d->fd == 2)
            r->io.err = s;
        else
            r->io.out = s;
    }
    return 0;
fail:
    undo_redirs(r);
    sh->status = 1;
    return -1;
}

/* --- running commands ------------------------------------------------------ */

static int exec_node(sh_shell *sh, sh_node *n, sh_io *io);

/* set -e: a failure outside a condition ends the shell. */
static void check_errexit(sh_shell *sh)
{
    if (sh->opt_e && sh->cond == 0 && sh->status != 0 && sh->flow == FLOW_NONE) {
        sh->flow = FLOW_EXIT;
        sh->flow_n = sh->status;
    }
}


static sh_func *find_func(sh_shell *sh, const char *name)
{
    for (int i = 0; i < sh->n_funcs; i++)
        if (strcmp(sh->funcs[i].name, name) == 0)
            return &sh->funcs[i];
    return NULL;
}

/* Pops the `local` saves of the function that returns. */
static void restore_locals(sh_shell *sh)
{
    while (sh->n_saved > 0 && sh->saved[sh->n_saved - 1].depth == sh->funcs_depth) {
        sh_saved *s = &sh->saved[--sh->n_saved];
        if (s->value)
            sh_setvar(sh, s->name, s->value, s->exported);
        else
            sh_var_unset(sh, s->name);
        free(s->name);
        free(s->value);
    }
}

static int call_function(sh_shell *sh, sh_func *f, sh_io *io, int argc, char **argv)
{
    if (sh->depth >= MAX_DEPTH) {
        sh_report(io, "%s: maximum function nesting level exceeded (%d)", argv[0], MAX_DEPTH);
        return 2;
    }
    char **saved = sh->params;
    int n_saved = sh->n_params;
    sh->params = calloc((size_t)argc, sizeof(char *));
    sh->n_params = 0;
    for (int i = 1; sh->params && i < argc; i++) {
        sh->params[i - 1] = strdup(argv[i]);
        if (!sh->params[i - 1])
            break;
        sh->n_params = i;
    }
    if (!sh->params || sh->n_params != argc - 1) {
        sh_free_params(sh->params, sh->n_params);
        sh->params = saved;
        sh->n_params = n_saved;
        sh_report(io, "out of memory");
        return 1;
    }
    sh_tree *tree = f->tree;
    tree->refs++; /* the function may redefine itself */
    sh->depth++;
    sh->funcs_depth++;
    int loops = sh->loops;
    sh->loops = 0;
    int status = exec_node(sh, f->body, io);
    sh->loops = loops;
    if (sh->flow == FLOW_RETURN) {
        sh->flow = FLOW_NONE;
        status = sh->status;
    }
    restore_locals(sh);
    sh->funcs_depth--;
    sh->depth--;
    sh_tree_release(tree);
    sh_free_params(sh->params, sh->n_params);
    sh->params = saved;
    sh->n_params = n_saved;
    return status;
}

const sh_applet *sh_find_command(sh_shell *sh, const char *name)
{
    for (const sh_applet *e = sh->commands; e && e->name; e++)
        if (strcmp(e->name, name) == 0)
            return e;
    return sh->hooks.applet(name);
}

int sh_run_applet(sh_shell *sh, sh_io *io, const sh_applet *a, int argc, char **argv)
{
    sh_proc p = { sh, a->name, io->in ? io->in->data + io->in->pos : "",
                  io->in ? io->in->len - io->in->pos : 0, io->out, io->err };
    return a->main(&p, argc, argv);
}

/* Runs the script file argv[0] (a path): its #! line names sh, bash or node
 * (directly or through env), and the script runs as `sh FILE ARGS` or
 * `js FILE ARGS`; a file without #! is a shell script, as POSIX shells do. */
static int run_script(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    sh_proc p = { sh, "sh", "", 0, io->out, io->err };
    char *text;
    size_t len;
    if (sh_load(&p, argv[0], &text, &len) < 0)
        return 127;
    char interp[64] = "sh";
    if (len > 2 && text[0] == '#' && text[1] == '!') {
        char *line = text + 2, *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        char *words[3] = { NULL, NULL, NULL };
        int n = 0;
        char *save = NULL;
        for (char *w = strtok_r(line, " \t", &save); w && n < 3; w = strtok_r(NULL, " \t", &save))
            words[n++] = w;
        const char *prog = words[0] ? strrchr(words[0], '/') : NULL;
        prog = prog ? prog + 1 : words[0] ? words[0] : "sh";
        if (strcmp(prog, "env") == 0 && words[1])
            prog = words[1];
        snprintf(interp, sizeof(interp), "%s", prog);
    }
    free(text);
    const char *run = strcmp(interp, "sh") == 0 || strcmp(interp, "bash") == 0 ||
                      strcmp(interp, "dash") == 0 ? "sh"
                      : strcmp(interp, "node") == 0 || strcmp(interp, "js") == 0 ? "js" : NULL;
    if (!run) {
        sh_report(io, "%s: %s: the sandbox has no such interpreter (sh, bash and node run)",
                  argv[0], interp);
        return 126;
    }
    char **args = calloc((size_t)argc + 2, sizeof(char *));
    if (!args) {
        sh_report(io, "out of memory");
        return 126;
    }
    args[0] = (char *)run;
    for (int i = 0; i < argc; i++)
        args[i + 1] = argv[i];
    int status;
    sh_builtin_fn b = sh->hooks.builtin(run);
    const sh_applet *a = b ? NULL : sh_find_command(sh, run);
    if (b) {
        status = b(sh, io, argc + 1, args);
    } else if (a) {
        status = sh_run_applet(sh, io, a, argc + 1, args);
    } else {
        sh_report(io, "%s: %s is not available here", argv[0], run);
        status = 126;
    }
    free(args);
    return status;
}

/* Runs argv as a function, builtin, embedder command or applet, or a script
 * file when argv[0] is a path. */
static int run_argv(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    sh_func *f = find_func(sh, argv[0]);
    if (f)
        return call_function(sh, f, io, argc, argv);
    sh_builtin_fn b = sh->hooks.builtin(argv[0]);
    if (b)
        return b(sh, io, argc, argv);
    if (strchr(argv[0], '/'))
        return run_script(sh, io, argc, argv);
    const sh_applet *a = sh_find_command(sh, argv[0]);
    if (!a) {
        sh_report(io, "%s: command not found", argv[0]);
        return 127;
    }
    return sh_run_applet(sh, io, a, argc, argv);
}

/* Sets NAME=value words (value expanded) in the shell; 0 or -1. */
static int assign(sh_shell *sh, sh_io *io, sh_word *w, int export)
{
    for (; w; w = w->next) {
        char *eq = strchr(w->text, '=');
        size_t nl = (size_t)(eq - w->text);
        int append = nl > 0 && w->text[nl - 1] == '+';
        char name[256];
        size_t k = append ? nl - 1 : nl;
        if (k >= sizeof(name))
            k = sizeof(name) - 1;
        memcpy(name, w->text, k);
        name[k] = '\0';
        char *value = sh_expand_string(sh, io, eq + 1);
        if (!value)
            return -1;
        if (append) {
            const char *old = sh_var_get(sh, name);
            sh_buf b = { 0 };
            sh_buf_adds(&b, old ? old : "");
            sh_buf_adds(&b, value);
            free(value);
            value = sh_buf_take(&b, NULL);
            if (!value)
                return -1;
        }
        int r = sh_setvar(sh, name, value, export);
        free(value);
        if (r < 0) {
            sh_report(io, "out of memory");
            return -1;
        }
    }
    return 0;
}

static void trace(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    sh_buf b = { 0 };
    sh_buf_adds(&b, "+");
    for (int i = 0; i < argc; i++) {
        sh_buf_addc(&b, ' ');
        sh_buf_adds(&b, argv[i]);
    }
    sh_buf_addc(&b, '\n');
    sh_write(io->err, b.data, b.len);
    sh_buf_free(&b);
}

static int exec_simple(sh_shell *sh, sh_node *n, sh_io *io)
{
    char **argv;
    int argc;
    int captures = sh->captures;
    if (sh_expand_words(sh, io, n->words, &argv, &argc) < 0)
        return sh->status ? sh->status : 1;
    if (argc == 0) {
        /* Assignments and redirections only: the status is the last
           substitution's, if there was one. */
        int status;
        redirected r;
        if (apply_redirs(sh, n->redirs, io, &r) < 0) {
            sh_free_argv(argv);
            return 1;
        }
        undo_redirs(&r);
        if (assign(sh, io, n->assigns, 0) < 0)
            status = 1;
        else
            status = sh->captures != captures ? sh->status : 0;
        sh_free_argv(argv);
        return status;
    }
    redirected r;
    if (apply_redirs(sh, n->redirs, io, &r) < 0) {
        sh_free_argv(argv);
        return 1;
    }
    /* NAME=value before a command: for this command only, exported. */
    sh_saved *prev = NULL;
    int n_prev = 0;
    for (sh_word *w = n->assigns; w; w = w->next)
        n_prev++;
    int status;
    if (n_prev) {
        prev = calloc((size_t)n_prev, sizeof(*prev));
        if (!prev) {
            sh_report(io, "out of memory");
            undo_redirs(&r);
            sh_free_argv(argv);
            return 1;
        }
        int i = 0;
        for (sh_word *w = n->assigns; w; w = w->next, i++) {
            const char *eq = strchr(w->text, '=');
            size_t nl = (size_t)(eq - w->text);
            if (nl > 0 && w->text[nl - 1] == '+')
                nl--;
            sh_var_save(sh, w->text, nl, &prev[i]);
        }
        if (assign(sh, &r.io, n->assigns, 1) < 0) {
            status = 1;
            goto restore;
        }
    }
    if (sh->opt_x)
        trace(sh, io, argc, argv);
    status = run_argv(sh, &r.io, argc, argv);
restore:
    for (int i = 0; i < n_prev; i++) {
        if (!prev[i].name)
            continue;
        if (prev[i].value) {
            sh_setvar(sh, prev[i].name, prev[i].value, 0);
            for (int v = 0; v < sh->n_vars; v++)
                if (strcmp(sh->vars[v].name, prev[i].name) == 0)
                    sh->vars[v].exported = prev[i].exported;
        } else {
            sh_var_unset(sh, prev[i].name);
        }
        free(prev[i].name);
        free(prev[i].value);
    }
    free(prev);
    undo_redirs(&r);
    sh_free_argv(argv);
    return status;
}

/* Runs n as a subshell: whatever it changes in the shell is undone after. */
static int exec_subshell(sh_shell *sh, sh_node *n, sh_io *io)
{
    sh_snapshot *s = sh_snapshot_take(sh);
    if (!s) {
        sh_report(io, "out of memory");
        return 1;
    }
    int status = exec_node(sh, n, io);
    if (sh->flow == FLOW_EXIT)
        status = sh->flow_n;
    sh_snapshot_restore(sh, s);
    sh->flow = FLOW_NONE;
    return status;
}

static int exec_pipe(sh_shell *sh, sh_node *n, sh_io *io)
{
    if (n->n_kids == 1) {
        sh->cond += n->bang;
        int status = exec_node(sh, n->kids[0], io);
        sh->cond -= n->bang;
        return n->bang ? !status : status;
    }
    sh_input input = { "", 0, 0 };
    sh_input *in = io->in;
    char *prev = NULL;
    int status = 0, failed = 0;
    sh->cond += n->bang;
    for (int i = 0; i < n->n_kids; i++) {
        int last = i == n->n_kids - 1;
        sh_stream out = { .fd = -1, .limit = SH_PIPE_LIMIT };
        sh_io stage = { in, last ? io->out : &out, io->err };
        status = exec_subshell(sh, n->kids[i], &stage);
        if (status != 0 && sh->opt_pipefail)
            failed = status;
        free(prev);
        prev = NULL;
        if (!last) {
            /* Out of memory for the output: the next stage reads nothing. */
            size_t len = 0;
            prev = sh_buf_take(&out.buf, &len);
            input = prev ? (sh_input){ prev, len, 0 } : (sh_input){ "", 0, 0 };
            in = &input;
        }
        sh_buf_free(&out.buf);
    }
    free(prev);
    sh->cond -= n->bang;
    if (sh->opt_pipefail && status == 0)
        status = failed;
    return n->bang ? !status : status;
}

/* Unwinds a loop's break/continue: returns 1 when the loop must stop. */
static int loop_flow(sh_shell *sh)
{
    if (sh->flow == FLOW_BREAK) {
        if (--sh->flow_n <= 0)
            sh->flow = FLOW_NONE;
        return 1;
    }
    if (sh->flow == FLOW_CONTINUE) {
        if (--sh->flow_n <= 0) {
            sh->flow = FLOW_NONE;
            return 0;
        }
        return 1;
    }
    return sh->flow != FLOW_NONE;
}

static int exec_loop(sh_shell *sh, sh_node *n, sh_io *io)
{
    int status = 0;
    sh->loops++;
    for (;;) {
        sh->cond++;
        int c = exec_node(sh, n->a, io);
        sh->cond--;
        if (sh->flow != FLOW_NONE) {
            if (loop_flow(sh))
                break;
            continue;
        }
        if ((n->type == N_WHILE) != (c == 0))
            break;
        status = exec_node(sh, n->b, io);
        if (sh->flow != FLOW_NONE && loop_flow(sh))
            break;
    }
    sh->loops--;
    return status;
}

static int exec_for(sh_shell *sh, sh_node *n, sh_io *io)
{
    char **argv = NULL;
    int argc = 0;
    if (n->has_list) {
        if (sh_expand_words(sh, io, n->words, &argv, &argc) < 0)
            return 1;
    } else {
        argv = calloc((size_t)sh->n_params + 1, sizeof(char *));
        if (!argv)
            return 1;
        for (int i = 0; i < sh->n_params; i++) {
            argv[i] = strdup(sh->params[i]);
            if (!argv[i]) {
                sh_free_argv(argv);
                return 1;
            }
        }
        argc = sh->n_params;
    }
    int status = 0;
    sh->loops++;
    for (int i = 0; i < argc; i++) {
        if (sh_setvar(sh, n->name, argv[i], 0) < 0) {
            sh_report(io, "out of memory");
            status = 1;
            break;
        }
        status = exec_node(sh, n->a, io);
        if (sh->flow != FLOW_NONE && loop_flow(sh))
            break;
    }
    sh->loops--;
    sh_free_argv(argv);
    return status;
}

static int exec_case(sh_shell *sh, sh_node *n, sh_io *io)
{
    char *word = sh_expand_string(sh, io, n->words->text);
    if (!word)
        return 1;
    int status = 0, matched = 0;
    for (sh_case_item *it = n->items; it; it = it->next) {
        if (!matched) {
            for (sh_word *p = it->patterns; p && !matched; p = p->next) {
                char *pat = sh_expand_pattern(sh, io, p->text);
                if (!pat) {
                    free(word);
                    return 1;
                }
                matched = fnmatch(pat, word, 0) == 0;
                free(pat);
            }
        }
        if (matched) {
            status = it->body ? exec_node(sh, it->body, io) : 0;
            if (!it->fallthrough || sh->flow != FLOW_NONE)
                break;
        }
    }
    free(word);
    return status;
}

static int define_function(sh_shell *sh, sh_node *n, sh_io *io);

static int exec_node(sh_shell *sh, sh_node *n, sh_io *io)
{
    if (!n || sh->flow != FLOW_NONE)
        return sh->status;
    redirected r;
    int has_redirs = n->redirs && n->type != N_CMD;
    if (has_redirs) {
        if (apply_redirs(sh, n->redirs, io, &r) < 0)
            return sh->status = 1;
        io = &r.io;
    }
    int status = 0;
    switch (n->type) {
    case N_CMD:
        status = exec_simple(sh, n, io);
        break;
    case N_PIPE:
        status = exec_pipe(sh, n, io);
        break;
    case N_AND:
    case N_OR:
        sh->cond++;
        status = exec_node(sh, n->a, io);
        sh->cond--;
        if (sh->flow == FLOW_NONE && (n->type == N_AND) == (status == 0)) {
            status = exec_node(sh, n->b, io);
        }
        break;
    case N_SEQ:
        exec_node(sh, n->a, io);
        status = exec_node(sh, n->b, io);
        break;
    case N_SUBSHELL:
        status = exec_subshell(sh, n->a, io);
        break;
    case N_GROUP:
        status = exec_node(sh, n->a, io);
        break;
    case N_IF: {
        sh->cond++;
        int c = exec_node(sh, n->a, io);
        sh->cond--;
        if (sh->flow != FLOW_NONE)
            status = c;
        else if (c == 0)
            status = exec_node(sh, n->b, io);
        else
            status = n->c ? exec_node(sh, n->c, io) : 0;
        break;
    }
    case N_WHILE:
    case N_UNTIL:
        status = exec_loop(sh, n, io);
        break;
    case N_FOR:
        status = exec_for(sh, n, io);
        break;
    case N_CASE:
        status = exec_case(sh, n, io);
        break;
    case N_FUNC:
        status = define_function(sh, n, io);
        break;
    case N_ARITH: {
        char *e = sh_expand_string(sh, io, n->name);
        long long v = 0;
        status = !e || sh_arith(sh, io, e, &v) < 0 ? 2 : v == 0;
        free(e);
        break;
    }
    }
    if (has_redirs)
        undo_redirs(&r);
    if (sh->expand_failed) {
        /* As in a non-interactive POSIX shell, an expansion error ends it. */
        sh->expand_failed = 0;
        if (sh->flow == FLOW_NONE) {
            sh->flow = FLOW_EXIT;
            sh->flow_n = status = 1;
        }
    }
    if (sh->flow == FLOW_NONE || sh->flow == FLOW_BREAK || sh->flow == FLOW_CONTINUE)
        sh->status = status;
    if (n->type == N_CMD || (n->type == N_PIPE && !n->bang) || n->type == N_SUBSHELL ||
        n->type == N_ARITH)
        check_errexit(sh);
    return sh->status;
}

static int define_function(sh_shell *sh, sh_node *n, sh_io *io)
{
    sh_func *f = find_func(sh, n->name);
    if (!f) {
        if (sh->n_funcs == sh->cap_funcs) {
            int cap = sh->cap_funcs ? sh->cap_funcs * 2 : 8;
            sh_func *g = realloc(sh->funcs, sizeof(*g) * (size_t)cap);
            if (!g) {
                sh_report(io, "out of memory");
                return 1;
            }
            sh->funcs = g;
            sh->cap_funcs = cap;
        }
        char *name = strdup(n->name);
        if (!name) {
            sh_report(io, "out of memory");
            return 1;
        }
        f = &sh->funcs[sh->n_funcs++];
        f->name = name;
        f->tree = NULL;
    }
    sh_tree *old = f->tree;
    f->body = n->a;
    f->tree = sh->tree;
    f->tree->refs++;
    sh_tree_release(old);
    return 0;
}

int sh_exec_source(sh_shell *sh, const char *src, sh_io *io)
{
    if (sh->depth >= MAX_DEPTH) {
        sh_report(io, "eval and substitutions nested too deeply (%d)", MAX_DEPTH);
        return sh->status = 2;
    }
    char *error = NULL;
    sh_tree *t = sh_parse(src, &error);
    if (!t) {
        sh_report(io, "%s", error ? error : "out of memory");
        free(error);
        return sh->status = 2;
    }
    sh_tree *outer = sh->tree;
    sh->tree = t;
    sh->depth++;
    int status = exec_node(sh, t->root, io);
    sh->depth--;
    sh->tree = outer;
    sh_tree_release(t);
    return status;
}

char *sh_capture(sh_shell *sh, sh_io *io, const char *src)
{
    sh_stream out = { .fd = -1, .limit = SH_PIPE_LIMIT };
    sh_io sub = { io->in, &out, io->err };
    sh_snapshot *s = sh_snapshot_take(sh);
    if (!s)
        return NULL;
    int status = sh_exec_source(sh, src, &sub);
    if (sh->flow == FLOW_EXIT)
        status = sh->flow_n;
    sh_snapshot_restore(sh, s);
    sh->flow = FLOW_NONE;
    sh->status = status;
    sh->captures++;
    size_t len;
    char *text = sh_buf_take(&out.buf, &len);
    if (text)
        while (len > 0 && text[len - 1] == '\n')
            text[--len] = '\0';
    return text;
}

/* --- commands that applets run (sh.h) -------------------------------------- */

/* Quotes s for the shell when it needs it (eval of a command built from argv). */
static void add_quoted(sh_buf *b, const char *s)
{
    if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") ==
                  strlen(s)) {
        sh_buf_adds(b, s);
        return;
    }
    sh_buf_add_squoted(b, s, strlen(s));
}

int sh_run(sh_proc *p, char **argv, char **assigns, const char *in, size_t in_len)
{
    sh_shell *sh = p->sh;
    if (!argv[0])
        return 0;
    /* The command is run as the shell would run the same words, quoted. */
    sh_buf cmd = { 0 };
    for (char **a = assigns; a && *a; a++) {
        const char *eq = strchr(*a, '=');
        if (!eq)
            continue;
        sh_buf_add(&cmd, *a, (size_t)(eq - *a + 1));
        add_quoted(&cmd, eq + 1);
        sh_buf_addc(&cmd, ' ');
    }
    for (char **a = argv; *a; a++) {
        if (a != argv)
            sh_buf_addc(&cmd, ' ');
        add_quoted(&cmd, *a);
    }
    char *src = sh_buf_cstr(&cmd);
    if (!src) {
        sh_err(p, "out of memory");
        sh_buf_free(&cmd);
        return 126;
    }
    sh_input input = { in, in_len, 0 };
    sh_io io = { &input, p->out, p->err };
    sh_snapshot *s = sh_snapshot_take(sh);
    if (!s) {
        sh_err(p, "out of memory");
        sh_buf_free(&cmd);
        return 126;
    }
    int status = sh_exec_source(sh, src, &io);
    if (sh->flow == FLOW_EXIT)
        status = sh->flow_n;
    sh_snapshot_restore(sh, s);
    sh->flow = FLOW_NONE;
    sh_buf_free(&cmd);
    return status;
}
