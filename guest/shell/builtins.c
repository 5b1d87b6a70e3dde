/* The shell's builtins: the commands that read or change the shell itself
 * (variables, options, the working directory, control flow, eval and source),
 * which no applet could do. Above the executor, which finds them through the
 * builtin hook (state.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtins.h"

static void say(sh_io *io, const char *s)
{
    sh_write(io->out, s, strlen(s));
}

/* A count argument of break, continue, shift, exit, return: -1 when bad. */
static long count_arg(sh_io *io, const char *cmd, const char *s)
{
    char *end;
    errno = 0;
    long n = strtol(s, &end, 10);
    if (errno || *end || end == s) {
        sh_report(io, "%s: %s: numeric argument required", cmd, s);
        return -1;
    }
    return n;
}

static int bi_colon(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    return 0;
}

static int bi_false(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    return 1;
}

/* Normalises path (absolute) lexically: removes ".", "..", and doubled '/'.
 * Caller frees. */
static char *normalize(const char *path)
{
    size_t n = strlen(path);
    char *out = malloc(n + 2);
    if (!out)
        return NULL;
    size_t o = 0;
    const char *s = path;
    while (*s) {
        while (*s == '/')
            s++;
        if (!*s)
            break;
        const char *e = strchr(s, '/');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == 1 && s[0] == '.') {
        } else if (len == 2 && s[0] == '.' && s[1] == '.') {
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
        } else {
            out[o++] = '/';
            memcpy(out + o, s, len);
            o += len;
        }
        s += len;
    }
    if (o == 0)
        out[o++] = '/';
    out[o] = '\0';
    return out;
}

static int bi_cd(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    int i = 1;
    while (i < argc && (strcmp(argv[i], "-L") == 0 || strcmp(argv[i], "-P") == 0))
        i++;
    if (i < argc && strcmp(argv[i], "--") == 0)
        i++;
    if (argc - i > 1) {
        sh_report(io, "cd: too many arguments");
        return 1;
    }
    const char *target = i < argc ? argv[i] : sh_var_get(sh, "HOME");
    int print = 0;
    if (!target)
        target = "/workspace";
    if (strcmp(target, "-") == 0) {
        target = sh_var_get(sh, "OLDPWD");
        if (!target) {
            sh_report(io, "cd: OLDPWD not set");
            return 1;
        }
        print = 1;
    }
    sh_buf b = { 0 };
    if (target[0] != '/') {
        sh_buf_adds(&b, sh->cwd);
        sh_buf_addc(&b, '/');
    }
    sh_buf_adds(&b, target);
    char *path = sh_buf_cstr(&b) ? normalize(b.data) : NULL;
    sh_buf_free(&b);
    if (!path) {
        sh_report(io, "out of memory");
        return 1;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        int e = stat(path, &st) != 0 ? errno : ENOTDIR;
        sh_report(io, "cd: %s: %s", target, strerror(e));
        free(path);
        return 1;
    }
    if (sh_setvar(sh, "OLDPWD", sh->cwd, 1) < 0 || sh_setvar(sh, "PWD", path, 1) < 0) {
        free(path);
        sh_report(io, "out of memory");
        return 1;
    }
    free(sh->cwd);
    sh->cwd = path;
    if (print) {
        say(io, path);
        say(io, "\n");
    }
    return 0;
}

static int bi_pwd(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    say(io, sh->cwd);
    say(io, "\n");
    return 0;
}

/* Quotes a value the way `export -p` and `set` print it. */
static void print_quoted(sh_io *io, const char *s)
{
    sh_buf b = { 0 };
    sh_buf_add_squoted(&b, s, strlen(s));
    sh_write(io->out, b.data, b.len);
    sh_buf_free(&b);
}

static int cmp_vars(const void *a, const void *b)
{
    return strcmp((*(sh_var *const *)a)->name, (*(sh_var *const *)b)->name);
}

/* Prints the variables (exported only, as `export -p`, or all, as `set`),
 * sorted by name. */
static int list_vars(sh_shell *sh, sh_io *io, int exported)
{
    sh_var **v = malloc(sizeof(*v) * ((size_t)sh->n_vars + 1));
    if (!v) {
        sh_report(io, "out of memory");
        return 1;
    }
    int n = 0;
    for (int i = 0; i < sh->n_vars; i++)
        if (!exported || sh->vars[i].exported)
            v[n++] = &sh->vars[i];
    qsort(v, (size_t)n, sizeof(*v), cmp_vars);
    for (int i = 0; i < n; i++) {
        if (exported)
            say(io, "export ");
        say(io, v[i]->name);
        say(io, "=");
        print_quoted(io, v[i]->value);
        say(io, "\n");
    }
    free(v);
    return 0;
}

/* export/readonly/local NAME[=value]... */
static int declare(sh_shell *sh, sh_io *io, int argc, char **argv, int export)
{
    int status = 0;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') {
            if (strcmp(argv[i], "-p") == 0)
                return list_vars(sh, io, 1);
            continue;
        }
        char *eq = strchr(argv[i], '=');
        size_t nl = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
        char *name = strndup(argv[i], nl);
        if (!name) {
            sh_report(io, "out of memory");
            return 1;
        }
        if (!sh_is_name(name, strlen(name))) {
            sh_report(io, "%s: `%s': not a valid identifier", argv[0], argv[i]);
            free(name);
            status = 1;
            continue;
        }
        const char *old = sh_var_get(sh, name);
        if (sh_setvar(sh, name, eq ? eq + 1 : old ? old : "", export) < 0) {
            sh_report(io, "out of memory");
            status = 1;
        }
        if (!eq && !old && !export)
            sh_setvar(sh, name, "", 0);
        free(name);
    }
    return status;
}

static int bi_export(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    if (argc == 1)
        return list_vars(sh, io, 1);
    return declare(sh, io, argc, argv, 1);
}

static int bi_readonly(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    return declare(sh, io, argc, argv, 0);
}

static int bi_local(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    if (sh->funcs_depth == 0) {
        sh_report(io, "local: can only be used in a function");
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-')
            continue;
        const char *eq = strchr(argv[i], '=');
        size_t nl = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
        if (sh->n_saved == sh->cap_saved) {
            int cap = sh->cap_saved ? sh->cap_saved * 2 : 16;
            sh_saved *g = realloc(sh->saved, sizeof(*g) * (size_t)cap);
            if (!g) {
                sh_report(io, "out of memory");
                return 1;
            }
            sh->saved = g;
            sh->cap_saved = cap;
        }
        sh_saved *s = &sh->saved[sh->n_saved];
        if (sh_var_save(sh, argv[i], nl, s) < 0) {
            sh_report(io, "out of memory");
            return 1;
        }
        s->depth = sh->funcs_depth;
        sh->n_saved++;
        if (sh_setvar(sh, s->name, eq ? eq + 1 : "", 0) < 0) {
            sh_report(io, "out of memory");
            return 1;
        }
    }
    return 0;
}

static int bi_unset(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    int funcs = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-f") == 0) {
            funcs = 1;
            continue;
        }
        if (strcmp(argv[i], "-v") == 0)
            continue;
        if (funcs) {
            for (int k = 0; k < sh->n_funcs; k++)
                if (strcmp(sh->funcs[k].name, argv[i]) == 0) {
                    free(sh->funcs[k].name);
                    sh_tree_release(sh->funcs[k].tree);
                    sh->funcs[k] = sh->funcs[--sh->n_funcs];
                    break;
                }
        } else {
            sh_var_unset(sh, argv[i]);
        }
    }
    return 0;
}

static int set_params(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    char **p = calloc((size_t)argc + 1, sizeof(char *));
    if (!p) {
        sh_report(io, "out of memory");
        return 1;
    }
    for (int i = 0; i < argc; i++) {
        p[i] = strdup(argv[i]);
        if (!p[i]) {
            sh_free_params(p, i);
            sh_report(io, "out of memory");
            return 1;
        }
    }
    sh_free_params(sh->params, sh->n_params);
    sh->params = p;
    sh->n_params = argc;
    return 0;
}

static int bi_set(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    if (argc == 1)
        return list_vars(sh, io, 0);
    int i = 1;
    for (; i < argc; i++) {
        char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            return set_params(sh, io, argc - i, argv + i);
        }
        if ((a[0] != '-' && a[0] != '+') || a[1] == '\0')
            break;
        int on = a[0] == '-';
        for (char *c = a + 1; *c; c++) {
            switch (*c) {
            case 'e': sh->opt_e = on; break;
            case 'u': sh->opt_u = on; break;
            case 'x': sh->opt_x = on; break;
            case 'f': sh->opt_f = on; break;
            case 'o':
                if (i + 1 >= argc) {
                    sh_buf b = { 0 };
                    sh_buf_addf(&b, "errexit\t%s\nnoglob\t%s\nnounset\t%s\npipefail\t%s\nxtrace\t%s\n",
                                sh->opt_e ? "on" : "off", sh->opt_f ? "on" : "off",
                                sh->opt_u ? "on" : "off", sh->opt_pipefail ? "on" : "off",
                                sh->opt_x ? "on" : "off");
                    sh_write(io->out, b.data, b.len);
                    sh_buf_free(&b);
                    return 0;
                }
                {
                    const char *o = argv[++i];
                    if (strcmp(o, "pipefail") == 0) sh->opt_pipefail = on;
                    else if (strcmp(o, "errexit") == 0) sh->opt_e = on;
                    else if (strcmp(o, "nounset") == 0) sh->opt_u = on;
                    else if (strcmp(o, "xtrace") == 0) sh->opt_x = on;
                    else if (strcmp(o, "noglob") == 0) sh->opt_f = on;
                    else {
                        sh_report(io, "set: %s: invalid option name", o);
                        return 2;
                    }
                }
                break;
            default:
                sh_report(io, "set: %c%c: invalid option", a[0], *c);
                return 2;
            }
        }
    }
    if (i < argc)
        return set_params(sh, io, argc - i, argv + i);
    return 0;
}

static int bi_shift(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    long n = argc > 1 ? count_arg(io, "shift", argv[1]) : 1;
    if (n < 0)
        return 1;
    if (n > sh->n_params)
        return 1;
    for (long i = 0; i < n; i++)
        free(sh->params[i]);
    memmove(sh->params, sh->params + n, sizeof(char *) * (size_t)(sh->n_params - n));
    sh->n_params -= (int)n;
    return 0;
}

/* exit and return: the status (argument or $?), unwinding set in the shell. */
static int unwind(sh_shell *sh, sh_io *io, int argc, char **argv, int flow)
{
    long n = sh->status;
    if (argc > 1) {
        n = count_arg(io, argv[0], argv[1]);
        if (n < 0)
            n = 2;
    }
    sh->flow = flow;
    sh->flow_n = (int)(n & 255);
    sh->status = (int)(n & 255);
    return (int)(n & 255);
}

static int bi_exit(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    return unwind(sh, io, argc, argv, FLOW_EXIT);
}

static int bi_return(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    if (sh->funcs_depth == 0 && sh->depth <= 1) {
        sh_report(io, "return: can only `return' from a function or sourced script");
        return 1;
    }
    return unwind(sh, io, argc, argv, FLOW_RETURN);
}

static int loop_control(sh_shell *sh, sh_io *io, int argc, char **argv, int flow)
{
    long n = argc > 1 ? count_arg(io, argv[0], argv[1]) : 1;
    if (n < 1) {
        if (n == 0)
            sh_report(io, "%s: %s: loop count out of range", argv[0], argv[1]);
        return 1;
    }
    if (sh->loops == 0)
        return 0; /* bash: only meaningful in a loop; nothing happens */
    sh->flow = flow;
    sh->flow_n = (int)(n > sh->loops ? sh->loops : n);
    return 0;
}

static int bi_break(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    return loop_control(sh, io, argc, argv, FLOW_BREAK);
}

static int bi_continue(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    return loop_control(sh, io, argc, argv, FLOW_CONTINUE);
}

/* read [-r] [-p PROMPT] [-d DELIM] [-n N] [NAME...]: a line of standard input
 * (as far as earlier reads left it) split on IFS into the names. */
static int bi_read(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    int raw = 0, i = 1;
    char delim = '\n';
    long max = -1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        for (char *c = argv[i] + 1; *c; c++) {
            if (*c == 'r') {
                raw = 1;
            } else if ((*c == 'p' || *c == 'd' || *c == 'n') && (c[1] || i + 1 < argc)) {
                const char *v = c[1] ? c + 1 : argv[++i];
                if (*c == 'd')
                    delim = v[0];
                else if (*c == 'n')
                    max = strtol(v, NULL, 10);
                else
                    sh_write(io->err, v, strlen(v));
                break;
            } else if (*c == 's') {
            } else {
                sh_report(io, "read: -%c: invalid option", *c);
                return 2;
            }
        }
    }
    sh_input *in = io->in;
    if (!in || in->pos >= in->len)
        return 1;
    sh_buf line = { 0 };
    int ended = 0;
    while (in->pos < in->len) {
        char c = in->data[in->pos++];
        if (!raw && c == '\\' && in->pos < in->len) {
            char d = in->data[in->pos++];
            if (d != '\n')
                sh_buf_addc(&line, d); /* an escaped character is kept as it is */
            continue;
        }
        if (c == delim) {
            ended = 1;
            break;
        }
        sh_buf_addc(&line, c);
        if (max >= 0 && (long)line.len >= max) {
            ended = 1;
            break;
        }
    }
    const char *ifs = sh_var_get(sh, "IFS");
    if (!ifs)
        ifs = " \t\n";
    char *text = sh_buf_cstr(&line);
    if (!text) {
        sh_report(io, "out of memory");
        return 1;
    }
    int n_names = argc - i;
    if (n_names == 0) {
        sh_setvar(sh, "REPLY", text, 0);
    } else {
        char *s = text;
        /* Leading IFS white space is not part of any field. */
        while (*s && strchr(ifs, *s) && isspace((unsigned char)*s))
            s++;
        for (int k = 0; k < n_names; k++) {
            if (k == n_names - 1) {
                /* The last name takes the rest, trailing IFS white space removed. */
                size_t len = strlen(s);
                while (len > 0 && strchr(ifs, s[len - 1]) && isspace((unsigned char)s[len - 1]))
                    len--;
                s[len] = '\0';
                sh_setvar(sh, argv[i + k], s, 0);
                break;
            }
            char *e = s;
            while (*e && !strchr(ifs, *e))
                e++;
            char save = *e;
            *e = '\0';
            sh_setvar(sh, argv[i + k], s, 0);
            *e = save;
            s = e;
            if (*s && strchr(ifs, *s) && !isspace((unsigned char)*s))
                s++;
            while (*s && strchr(ifs, *s) && isspace((unsigned char)*s))
                s++;
        }
    }
    sh_buf_free(&line);
    return ended ? 0 : 1;
}

/* Joins argv[from..) with spaces. Caller frees. */
static char *join(int argc, char **argv, int from)
{
    sh_buf b = { 0 };
    for (int i = from; i < argc; i++) {
        if (i > from)
            sh_buf_addc(&b, ' ');
        sh_buf_adds(&b, argv[i]);
    }
    return sh_buf_take(&b, NULL);
}

static int bi_eval(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    char *src = join(argc, argv, 1);
    if (!src) {
        sh_report(io, "out of memory");
        return 1;
    }
    int status = sh_exec_source(sh, src, io);
    free(src);
    return status;
}

static int bi_source(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    if (argc < 2) {
        sh_report(io, "%s: filename argument required", argv[0]);
        return 2;
    }
    sh_proc p = { sh, argv[0], "", 0, io->out, io->err };
    char *src;
    size_t len;
    if (sh_load(&p, argv[1], &src, &len) < 0)
        return 1;
    if (memchr(src, '\0', len)) {
        sh_report(io, "%s: %s: cannot execute binary file", argv[0], argv[1]);
        free(src);
        return 126;
    }
    int status = sh_exec_source(sh, src, io);
    if (sh->flow == FLOW_RETURN) {
        sh->flow = FLOW_NONE;
        status = sh->status;
    }
    free(src);
    return status;
}

/* What name is: for type and command -v. 0 function, 1 builtin, 2 command or
 * applet, -1 nothing. */
static int what_is(sh_shell *sh, const char *name)
{
    for (int i = 0; i < sh->n_funcs; i++)
        if (strcmp(sh->funcs[i].name, name) == 0)
            return 0;
    if (sh_find_builtin(name))
        return 1;
    return sh_find_command(sh, name) ? 2 : -1;
}

static int bi_type(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    int status = 0;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-')
            continue;
        int w = what_is(sh, argv[i]);
        sh_buf b = { 0 };
        if (w < 0) {
            sh_report(io, "type: %s: not found", argv[i]);
            status = 1;
            continue;
        }
        static const char *const kinds[] = { "a function", "a shell builtin", "a shell command" };
        sh_buf_addf(&b, "%s is %s\n", argv[i], kinds[w]);
        sh_write(io->out, b.data, b.len);
        sh_buf_free(&b);
    }
    return status;
}

static int bi_command(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    int i = 1, verbose = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "-V") == 0)
            verbose = argv[i][1];
        else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
    }
    if (i >= argc)
        return 0;
    if (verbose) {
        int status = 0;
        for (; i < argc; i++) {
            if (what_is(sh, argv[i]) < 0) {
                status = 1;
                continue;
            }
            if (verbose == 'V') {
                char *args[] = { "type", argv[i], NULL };
                bi_type(sh, io, 2, args);
            } else {
                say(io, argv[i]);
                say(io, "\n");
            }
        }
        return status;
    }
    /* command NAME ARGS: skips functions. */
    sh_builtin_fn b = sh_find_builtin(argv[i]);
    if (b)
        return b(sh, io, argc - i, argv + i);
    const sh_applet *a = sh_find_command(sh, argv[i]);
    if (!a) {
        sh_report(io, "%s: command not found", argv[i]);
        return 127;
    }
    return sh_run_applet(sh, io, a, argc - i, argv + i);
}

static int bi_wait(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    return 0; /* `cmd &` already ran to its end */
}

static int bi_trap(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    if (argc == 1) {
        if (sh->trap_exit) {
            say(io, "trap -- ");
            print_quoted(io, sh->trap_exit);
            say(io, " EXIT\n");
        }
        return 0;
    }
    int i = 1;
    if (strcmp(argv[i], "--") == 0)
        i++;
    if (i >= argc)
        return 0;
    const char *action = argv[i];
    for (int k = i + 1; k < argc; k++) {
        if (strcmp(argv[k], "EXIT") == 0 || strcmp(argv[k], "0") == 0) {
            free(sh->trap_exit);
            sh->trap_exit = NULL;
            if (strcmp(action, "-") != 0 && action[0]) {
                sh->trap_exit = strdup(action);
                if (!sh->trap_exit) {
                    sh_report(io, "out of memory");
                    return 1;
                }
            }
        }
        /* Signals never reach the sandbox: their traps are accepted and never run. */
    }
    return 0;
}

static int bi_umask(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    if (argc == 1)
        say(io, "0022\n");
    return 0; /* the sandbox's files have no permission bits to mask */
}

static int bi_let(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    long long v = 0;
    if (argc < 2) {
        sh_report(io, "let: expression expected");
        return 1;
    }
    for (int i = 1; i < argc; i++)
        if (sh_arith(sh, io, argv[i], &v) < 0)
            return 1;
    return v == 0;
}

static int bi_help(sh_shell *sh, sh_io *io, int argc, char **argv);

/* sh [-euxf] [-o OPT] [-c CMDLINE [NAME [ARG...]] | FILE [ARG...]]: a script run
 * in a subshell (from standard input when neither is given). Also `bash`. */
static int bi_sh(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    int i = 1, opts[5] = { 0 };
    const char *cmd = NULL;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        for (const char *c = argv[i] + 1; *c; c++) {
            if (*c == 'c')
                cmd = "";
            else if (*c == 'e')
                opts[0] = 1;
            else if (*c == 'u')
                opts[1] = 1;
            else if (*c == 'x')
                opts[2] = 1;
            else if (*c == 'f')
                opts[3] = 1;
            else if (*c == 'o' && i + 1 < argc && strcmp(argv[i + 1], "pipefail") == 0)
                opts[4] = 1;
            else if (*c == 'o' && i + 1 < argc)
                ; /* other -o options are accepted and have no effect */
            else {
                sh_report(io, "%s: -%c: invalid option", argv[0], *c);
                return 2;
            }
            if (*c == 'o') {
                i++;
                break;
            }
        }
    }
    char *src = NULL;
    const char *name = argv[0];
    if (cmd) {
        if (i >= argc) {
            sh_report(io, "%s: -c: option requires an argument", argv[0]);
            return 2;
        }
        src = strdup(argv[i++]);
        if (i < argc)
            name = argv[i++];
    } else if (i < argc) {
        sh_proc p = { sh, argv[0], "", 0, io->out, io->err };
        size_t len;
        name = argv[i];
        if (sh_load(&p, argv[i++], &src, &len) < 0)
            return 127;
    } else {
        src = io->in ? strndup(io->in->data + io->in->pos, io->in->len - io->in->pos) : strdup("");
        if (io->in)
            io->in->pos = io->in->len;
    }
    if (!src) {
        sh_report(io, "out of memory");
        return 2;
    }
    sh_snapshot *snap = sh_snapshot_take(sh);
    char *arg0 = strdup(name);
    if (!snap || !arg0 || set_params(sh, io, argc - i, argv + i) != 0) {
        if (snap)
            sh_snapshot_restore(sh, snap);
        free(arg0);
        free(src);
        sh_report(io, "out of memory");
        return 2;
    }
    char *saved_arg0 = sh->arg0;
    sh->arg0 = arg0;
    sh->opt_e |= opts[0];
    sh->opt_u |= opts[1];
    sh->opt_x |= opts[2];
    sh->opt_f |= opts[3];
    sh->opt_pipefail |= opts[4];
    int status = sh_exec_source(sh, src, io);
    if (sh->flow == FLOW_EXIT || sh->flow == FLOW_RETURN)
        status = sh->flow_n;
    sh->arg0 = saved_arg0;
    free(arg0);
    sh_snapshot_restore(sh, snap);
    sh->flow = FLOW_NONE;
    free(src);
    return status;
}

static const struct {
    const char *name;
    sh_builtin_fn fn;
    const char *help;
} builtins[] = {
    { ":", bi_colon, "do nothing, successfully" },
    { ".", bi_source, "run a file's commands in this shell" },
    { "bash", bi_sh, "run a script in a subshell: bash -c CMDLINE, bash FILE (as sh)" },
    { "break", bi_break, "leave the innermost loop (or N loops)" },
    { "cd", bi_cd, "change the working directory" },
    { "command", bi_command, "run a command, skipping functions; -v: say what a name is" },
    { "continue", bi_continue, "go on with the next iteration of a loop" },
    { "eval", bi_eval, "run the arguments as a command line" },
    { "exit", bi_exit, "end the command line with a status" },
    { "export", bi_export, "export variables to commands" },
    { "false", bi_false, "do nothing, unsuccessfully" },
    { "help", bi_help, "list the builtins and commands" },
    { "let", bi_let, "evaluate arithmetic expressions" },
    { "local", bi_local, "make a variable local to a function" },
    { "pwd", bi_pwd, "print the working directory" },
    { "read", bi_read, "read a line of input into variables" },
    { "readonly", bi_readonly, "set variables (not enforced as read-only)" },
    { "return", bi_return, "return from a function" },
    { "set", bi_set, "set options (-e -u -x -f -o pipefail) or positional parameters" },
    { "sh", bi_sh, "run a script in a subshell: sh -c CMDLINE, sh FILE, or stdin" },
    { "shift", bi_shift, "shift the positional parameters" },
    { "source", bi_source, "run a file's commands in this shell" },
    { "trap", bi_trap, "run a command when the command line ends (EXIT)" },
    { "true", bi_colon, "do nothing, successfully" },
    { "type", bi_type, "say what a name is" },
    { "umask", bi_umask, "accepted; files in the sandbox have no permissions" },
    { "unset", bi_unset, "remove variables or functions (-f)" },
    { "wait", bi_wait, "accepted; background commands run to their end first" },
};

sh_builtin_fn sh_find_builtin(const char *name)
{
    for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
        if (strcmp(builtins[i].name, name) == 0)
            return builtins[i].fn;
    return NULL;
}

static int bi_help(sh_shell *sh, sh_io *io, int argc, char **argv)
{
    sh_buf b = { 0 };
    sh_buf_adds(&b, "Shell builtins:\n");
    for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
        sh_buf_addf(&b, "  %-10s %s\n", builtins[i].name, builtins[i].help);
    if (sh->commands && sh->commands->name) {
        sh_buf_adds(&b, "Sandbox commands:\n");
        for (const sh_applet *e = sh->commands; e->name; e++)
            sh_buf_addf(&b, "  %-10s %s\n", e->name, e->help);
    }
    sh_buf_adds(&b, "Commands:\n");
    for (size_t i = 0; sh_applet_at(i); i++)
        sh_buf_addf(&b, "  %-10s %s\n", sh_applet_at(i)->name, sh_applet_at(i)->help);
    sh_buf_adds(&b, "The shell's grammar is POSIX sh's: pipelines, && || ; &, ( ) { }, if, for,\n"
                    "while, until, case, functions, redirections, here-documents, $(...), $((...)).\n");
    int r = sh_write(io->out, b.data, b.len);
    sh_buf_free(&b);
    return r < 0 ? 1 : 0;
}
