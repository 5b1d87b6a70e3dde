/* The shell's base layer: the interpreter's state (variables, functions and
 * the syntax trees they hold, positional parameters, options), subshell
 * snapshots, the shell's error reports, and what commands ask of the state
 * through sh.h (the environment). Uses only io.c's plumbing and ast.c. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

sh_shell *sh_state_new(const char *cwd)
{
    sh_shell *sh = calloc(1, sizeof(*sh));
    if (!sh)
        return NULL;
    sh->cwd = strdup(cwd);
    sh->arg0 = strdup("sh");
    if (!sh->cwd || !sh->arg0 || sh_setvar(sh, "PWD", cwd, 1) < 0 ||
        sh_setvar(sh, "IFS", " \t\n", 0) < 0) {
        sh_free(sh);
        return NULL;
    }
    return sh;
}

static void free_env(sh_shell *sh)
{
    if (sh->env)
        for (char **e = sh->env; *e; e++)
            free(*e);
    free(sh->env);
    sh->env = NULL;
}

static void free_vars(sh_var *vars, int n)
{
    for (int i = 0; i < n; i++) {
        free(vars[i].name);
        free(vars[i].value);
    }
    free(vars);
}

static void free_funcs(sh_func *funcs, int n)
{
    for (int i = 0; i < n; i++) {
        free(funcs[i].name);
        sh_tree_release(funcs[i].tree);
    }
    free(funcs);
}

void sh_free_params(char **params, int n)
{
    for (int i = 0; i < n; i++)
        free(params[i]);
    free(params);
}

void sh_free(sh_shell *sh)
{
    if (!sh)
        return;
    free_vars(sh->vars, sh->n_vars);
    free_funcs(sh->funcs, sh->n_funcs);
    for (int i = 0; i < sh->n_saved; i++) {
        free(sh->saved[i].name);
        free(sh->saved[i].value);
    }
    free(sh->saved);
    sh_free_params(sh->params, sh->n_params);
    free_env(sh);
    free(sh->cwd);
    free(sh->arg0);
    free(sh->trap_exit);
    free(sh);
}

void sh_set_commands(sh_shell *sh, const sh_applet *commands)
{
    sh->commands = commands;
}

int sh_exited(sh_shell *sh)
{
    int r = sh->exited;
    sh->exited = 0;
    return r;
}

static sh_var *find_var(sh_shell *sh, const char *name)
{
    for (int i = 0; i < sh->n_vars; i++)
        if (strcmp(sh->vars[i].name, name) == 0)
            return &sh->vars[i];
    return NULL;
}

const char *sh_var_get(sh_shell *sh, const char *name)
{
    sh_var *v = find_var(sh, name);
    return v ? v->value : NULL;
}

int sh_setvar(sh_shell *sh, const char *name, const char *value, int export)
{
    char *v = strdup(value);
    if (!v)
        return -1;
    sh_var *var = find_var(sh, name);
    if (!var) {
        if (sh->n_vars == sh->cap_vars) {
            int cap = sh->cap_vars ? sh->cap_vars * 2 : 32;
            sh_var *g = realloc(sh->vars, sizeof(*g) * (size_t)cap);
            if (!g) {
                free(v);
                return -1;
            }
            sh->vars = g;
            sh->cap_vars = cap;
        }
        char *n = strdup(name);
        if (!n) {
            free(v);
            return -1;
        }
        var = &sh->vars[sh->n_vars++];
        *var = (sh_var){ n, NULL, 0 };
    }
    free(var->value);
    var->value = v;
    var->exported |= export;
    return 0;
}

int sh_var_save(sh_shell *sh, const char *name, size_t n, sh_saved *s)
{
    *s = (sh_saved){ strndup(name, n), NULL, 0, 0 };
    if (!s->name)
        return -1;
    sh_var *v = find_var(sh, s->name);
    if (v) {
        s->value = strdup(v->value);
        s->exported = v->exported;
    }
    return 0;
}

int sh_var_unset(sh_shell *sh, const char *name)
{
    sh_var *v = find_var(sh, name);
    if (!v)
        return 0;
    free(v->name);
    free(v->value);
    *v = sh->vars[--sh->n_vars];
    return 0;
}

/* --- subshells ------------------------------------------------------------ */

struct sh_snapshot {
    char *cwd;
    sh_var *vars;
    int n_vars;
    sh_func *funcs;
    int n_funcs;
    char **params;
    int n_params;
    int opts[5];
    int loops, funcs_depth, n_saved;
};

sh_snapshot *sh_snapshot_take(sh_shell *sh)
{
    sh_snapshot *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->cwd = strdup(sh->cwd);
    s->vars = calloc((size_t)sh->n_vars + 1, sizeof(sh_var));
    s->funcs = calloc((size_t)sh->n_funcs + 1, sizeof(sh_func));
    s->params = calloc((size_t)sh->n_params + 1, sizeof(char *));
    int ok = s->cwd && s->vars && s->funcs && s->params;
    for (int i = 0; ok && i < sh->n_vars; i++) {
        s->vars[i].name = strdup(sh->vars[i].name);
        s->vars[i].value = strdup(sh->vars[i].value);
        s->vars[i].exported = sh->vars[i].exported;
        s->n_vars = i + 1;
        ok = s->vars[i].name && s->vars[i].value;
    }
    for (int i = 0; ok && i < sh->n_funcs; i++) {
        s->funcs[i].name = strdup(sh->funcs[i].name);
        s->funcs[i].body = sh->funcs[i].body;
        s->funcs[i].tree = sh->funcs[i].tree;
        s->funcs[i].tree->refs++;
        s->n_funcs = i + 1;
        ok = s->funcs[i].name != NULL;
    }
    for (int i = 0; ok && i < sh->n_params; i++) {
        s->params[i] = strdup(sh->params[i]);
        s->n_params = i + 1;
        ok = s->params[i] != NULL;
    }
    if (!ok) {
        free(s->cwd);
        free_vars(s->vars, s->n_vars);
        free_funcs(s->funcs, s->n_funcs);
        sh_free_params(s->params, s->n_params);
        free(s);
        return NULL;
    }
    int opts[5] = { sh->opt_e, sh->opt_u, sh->opt_x, sh->opt_f, sh->opt_pipefail };
    memcpy(s->opts, opts, sizeof(opts));
    s->loops = sh->loops;
    s->funcs_depth = sh->funcs_depth;
    s->n_saved = sh->n_saved;
    return s;
}

/* Puts the shell back as it was when s was taken, and frees s. */
void sh_snapshot_restore(sh_shell *sh, sh_snapshot *s)
{
    free(sh->cwd);
    sh->cwd = s->cwd;
    free_vars(sh->vars, sh->n_vars);
    sh->vars = s->vars;
    sh->n_vars = sh->cap_vars = s->n_vars;
    if (sh->cap_vars == 0) {
        free(sh->vars);
        sh->vars = NULL;
    }
    free_funcs(sh->funcs, sh->n_funcs);
    sh->funcs = s->funcs;
    sh->n_funcs = sh->cap_funcs = s->n_funcs;
    if (sh->cap_funcs == 0) {
        free(sh->funcs);
        sh->funcs = NULL;
    }
    sh_free_params(sh->params, sh->n_params);
    sh->params = s->params;
    sh->n_params = s->n_params;
    sh->opt_e = s->opts[0];
    sh->opt_u = s->opts[1];
    sh->opt_x = s->opts[2];
    sh->opt_f = s->opts[3];
    sh->opt_pipefail = s->opts[4];
    sh->loops = s->loops;
    sh->funcs_depth = s->funcs_depth;
    while (sh->n_saved > s->n_saved) {
        sh->n_saved--;
        free(sh->saved[sh->n_saved].name);
        free(sh->saved[sh->n_saved].value);
    }
    free(s);
}

/* --- what commands see (sh.h) --------------------------------------------- */

const char *sh_getenv(sh_proc *p, const char *name)
{
    return sh_var_get(p->sh, name);
}

char **sh_environ(sh_proc *p)
{
    sh_shell *sh = p->sh;
    free_env(sh);
    sh->env = calloc((size_t)sh->n_vars + 1, sizeof(char *));
    if (!sh->env)
        return NULL;
    int k = 0;
    for (int i = 0; i < sh->n_vars; i++) {
        if (!sh->vars[i].exported)
            continue;
        sh_buf b = { 0 };
        if (sh_buf_addf(&b, "%s=%s", sh->vars[i].name, sh->vars[i].value) < 0)
            break;
        sh->env[k] = sh_buf_take(&b, NULL);
        if (!sh->env[k])
            break;
        k++;
    }
    return sh->env;
}

/* --- errors --------------------------------------------------------------- */

void sh_report(sh_io *io, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sh_verr(io->err, "sh", fmt, ap);
    va_end(ap);
}
