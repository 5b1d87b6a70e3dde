/* The shell interpreter (first part: state and running one command). */
#include <stdlib.h>
#include <string.h>

#include "shell.h"

typedef struct sh_var {
    char *name, *value;
    int exported;
} sh_var;

struct sh_shell {
    char *cwd;
    sh_var *vars;
    int n_vars, cap_vars;
    char **env; /* sh_environ's last answer */
};

sh_shell *sh_new(const char *cwd)
{
    sh_shell *sh = calloc(1, sizeof(*sh));
    if (!sh)
        return NULL;
    sh->cwd = strdup(cwd);
    if (!sh->cwd) {
        free(sh);
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

void sh_free(sh_shell *sh)
{
    if (!sh)
        return;
    for (int i = 0; i < sh->n_vars; i++) {
        free(sh->vars[i].name);
        free(sh->vars[i].value);
    }
    free(sh->vars);
    free_env(sh);
    free(sh->cwd);
    free(sh);
}

static sh_var *find_var(sh_shell *sh, const char *name)
{
    for (int i = 0; i < sh->n_vars; i++)
        if (strcmp(sh->vars[i].name, name) == 0)
            return &sh->vars[i];
    return NULL;
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

const char *sh_cwd(sh_proc *p)
{
    return p->sh->cwd;
}

const char *sh_getenv(sh_proc *p, const char *name)
{
    sh_var *v = find_var(p->sh, name);
    return v ? v->value : NULL;
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
        sh->env[k++] = sh_buf_take(&b, NULL);
    }
    return sh->env;
}

int sh_run(sh_proc *p, char **argv, char **assigns, const char *in, size_t in_len)
{
    (void)assigns;
    int argc = 0;
    while (argv[argc])
        argc++;
    if (argc == 0)
        return 0;
    const sh_applet *a = sh_applet_find(argv[0]);
    if (!a) {
        sh_proc q = *p;
        q.name = "sh";
        sh_err(&q, "%s: command not found", argv[0]);
        return 127;
    }
    sh_proc q = { p->sh, a->name, in, in_len, p->out, p->err };
    return a->main(&q, argc, argv);
}

int sh_eval(sh_shell *sh, const char *src, sh_stream *out, sh_stream *err, const char *in,
            size_t in_len)
{
    (void)src;
    sh_proc p = { sh, "sh", in, in_len, out, err };
    sh_err(&p, "the interpreter is not written yet");
    return 2;
}
