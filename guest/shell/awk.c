/* awk, the command: options and -v assignments, the program from -f files or
 * the operand, the rules run over the input (BEGIN, main, END) and the exit
 * status, as gawk does. The language itself is in the other awk_*.c files. */
#include <stdlib.h>
#include <string.h>

#include "awk.h"

/* Whether a main rule applies to the current record (ranges keep state). */
static int rule_matches(aw *I, arule *rule, int *r)
{
    *r = C_OK;
    if (!rule->pat1)
        return 1;
    if (!rule->pat2)
        return awk_test(I, rule->pat1, r);
    if (!rule->in_range) {
        int t = awk_test(I, rule->pat1, r);
        if (t <= 0)
            return t;
        rule->in_range = 1;
    }
    int t = awk_test(I, rule->pat2, r);
    if (t < 0)
        return t;
    if (t)
        rule->in_range = 0;
    return 1;
}

static int run_action(aw *I, arule *rule)
{
    if (rule->action)
        return awk_exec(I, rule->action);
    anode print = { .type = S_PRINT };
    return awk_exec_print(I, &print);
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
        char *rec = awk_next_main_record(I, &err);
        if (!rec)
            return err ? C_ERROR : C_OK;
        if (awk_set_record(I, rec) != C_OK)
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
                awk_close_main_input(I);
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
    I->globals = awk_xcalloc(I, (size_t)I->nglobals, sizeof(acell));
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
        if (awk_set_global_str(I, defaults[i].idx, defaults[i].value) < 0)
            return -1;
    if (awk_set_global_str(I, V_FS, fs ? fs : " ") < 0)
        return -1;
    awk_set_global_num(I, V_NR, 0);
    awk_set_global_num(I, V_NF, 0);
    awk_set_global_num(I, V_FNR, 0);
    awk_set_global_num(I, V_RSTART, 0);
    awk_set_global_num(I, V_RLENGTH, -1);
    awk_set_global_num(I, V_ARGC, nargs + 1);
    aarr *env = awk_cell_array(I, &I->globals[V_ENVIRON], 0);
    aarr *argv = env ? awk_cell_array(I, &I->globals[V_ARGV], 0) : NULL;
    if (!argv)
        return -1;
    char **e = sh_environ(I->p);
    for (; e && *e; e++) {
        char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        char *name = awk_xstrndup(I, *e, (size_t)(eq - *e));
        if (!name || awk_arr_set_input(I, env, name, eq + 1, strlen(eq + 1)) < 0) {
            free(name);
            return -1;
        }
        free(name);
    }
    if (awk_arr_set_index(I, argv, 0, "awk", 3) < 0)
        return -1;
    for (int i = 0; i < nargs; i++)
        if (awk_arr_set_index(I, argv, i + 1, args[i], strlen(args[i])) < 0)
            return -1;
    I->argi = 1;
    I->seed = 1;
    awk_rand_seed(I, 1);
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
        awk_regex_free(n->re);
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
            awk_cell_free(&I->globals[i]);
    free(I->globals);
    for (int i = 0; i < I->nglobals; i++)
        free(I->gnames[i]);
    free(I->gnames);
    awk_clear_fields(I);
    free(I->fields);
    awk_val_free(&I->rec);
    awk_val_free(&I->retval);
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
        awk_regex_free(I->recache[i].re);
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
        if (I->status != SH_STATUS_PIPE && awk_flush_redirect(I, o, 1) < 0 && I->status == 0 &&
            o->kind != TK_PIPE)
            I->status = 2;
        sh_buf_free(&o->buf);
        free(o->name);
        free(o);
    }
    if (I->status != SH_STATUS_PIPE)
        awk_flush_stdout(I);
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
            fs = awk_unescape(I, o.arg);
            if (!fs)
                status = 2;
            break;
        case 'v':
            if (!awk_is_assignment_arg(o.arg)) {
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
        if (awk_global_index(I, awk_special_names[i]) != i)
            status = 2;
    if (!status && (awk_lex(I, src.data) < 0 || awk_parse_program(I) < 0))
        status = I->status ? I->status : 1;
    if (!status)
        status = init_globals(I, fs, argc - o.ind, argv + o.ind) < 0 ? 2 : 0;
    for (int i = 0; !status && i < nassign; i++)
        if (awk_apply_assignment(I, assigns[i]) != C_OK)
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
