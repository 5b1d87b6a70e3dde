/* jq, the command: options, named arguments, reading the inputs, running the
 * program on each and printing its outputs as jq 1.6 does. The values and the
 * language are in jq_json.c, jq_lex.c, jq_parse.c, jq_eval.c and
 * jq_builtins.c. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jq.h"

/* Command-line settings. */
typedef struct options {
    int raw_out, join, null_input, slurp, exit_status, raw_input, from_file;
    const char *program;
    char **files;
    size_t nfiles;
} options;

/* Output state for the top-level continuation. */
typedef struct printer {
    const options *opt;
    int outputs;     /* values printed for the current input */
    int last_truthy; /* whether the last value printed was neither false nor null */
    int broken;      /* the reader of our output is gone */
} printer;

static int print_emit(jq *q, jv *v, jv *path, void *data)
{
    printer *pr = data;
    (void)path;
    sh_buf b = { 0 };
    int st;
    if (pr->opt->raw_out && v->kind == JK_STR)
        st = sh_buf_add(&b, v->str, v->len);
    else
        st = jq_dump(&b, v, &q->dump, 0);
    if (st == 0 && !pr->opt->join)
        st = sh_buf_addc(&b, '\n');
    if (st < 0) {
        sh_buf_free(&b);
        return jq_oom(q);
    }
    st = sh_out(q->p, b.data, b.len);
    sh_buf_free(&b);
    pr->outputs++;
    pr->last_truthy = jq_truthy(v);
    if (st < 0) {
        pr->broken = 1;
        return q->next_label; /* a label nobody catches: unwinds everything */
    }
    return 0;
}

/* Reports the pending error of a run as jq does. */
static void report_error(jq *q, int have_input)
{
    char where[64];
    size_t line = 0;
    for (size_t i = 0; i < q->in.pos && i < q->in.len; i++)
        line += q->in.s[i] == '\n';
    if (have_input)
        snprintf(where, sizeof where, "<stdin>:%zu", line);
    else
        snprintf(where, sizeof where, "<unknown>");
    if (q->input_error && q->err && q->err->kind == JK_STR) {
        sh_write(q->p->err, "parse error: ", 13);
        sh_write(q->p->err, q->err->str, q->err->len);
        sh_write(q->p->err, "\n", 1);
    } else if (!q->err) {
        sh_err(q->p, "error (at %s): out of memory", where);
    } else if (q->err->kind == JK_STR) {
        sh_err(q->p, "error (at %s): %s", where, q->err->str);
    } else {
        jv *text = jv_tojson(q->err);
        sh_err(q->p, "error (at %s) (not a string): %s", where, text ? text->str : "?");
        jv_free(text);
    }
    jv_free(q->err);
    q->err = NULL;
}

/* Runs the program on one input: 0, 5 after an error, or for -e 1 (the last
 * output was false or null) or 4 (no output); -1 when output is broken. */
static int run_one(jq *q, const node *prog, const env *globals, jv *in, printer *pr,
                   int have_input)
{
    pr->outputs = 0;
    int r = jq_eval(q, prog, globals, in, NULL, print_emit, pr);
    if (pr->broken)
        return -1;
    if (r == J_ERR) {
        if (q->err && q->err->kind == JK_NULL) {
            jv_free(q->err);
            q->err = NULL;
        } else {
            report_error(q, have_input);
            return 5;
        }
    } else if (r) {
        sh_err(q->p, "error (at <unknown>): break");
        return 5;
    }
    if (!pr->opt->exit_status)
        return 0;
    return pr->outputs == 0 ? 4 : pr->last_truthy ? 0 : 1;
}

/* A named value from --arg, --argjson, --slurpfile or --rawfile. */
typedef struct named_arg {
    const char *name;
    jv *val;
} named_arg;

/* Everything jq_main allocates, released in one place. */
typedef struct run_state {
    named_arg *named;
    size_t nnamed;
    jv *positional;
    env *globals;
    parser ps;
    char *text;
} run_state;

static void run_state_free(run_state *st)
{
    for (size_t i = 0; i < st->nnamed; i++)
        jv_free(st->named[i].val);
    free(st->named);
    jv_free(st->positional);
    free(st->globals);
    jq_free_nodes(st->ps.all);
    free(st->text);
}

static int usage_error(sh_proc *p, const char *fmt, const char *arg)
{
    sh_write(p->err, "jq: ", 4);
    char msg[300];
    snprintf(msg, sizeof msg, fmt, arg);
    sh_write(p->err, msg, strlen(msg));
    sh_write(p->err, "\nUse jq --help for help with command-line options,\n"
                     "or see the jq manpage, or online docs  at https://stedolan.github.io/jq\n",
             strlen("\nUse jq --help for help with command-line options,\n"
                    "or see the jq manpage, or online docs  at https://stedolan.github.io/jq\n"));
    return 2;
}

/* Adds a named variable; val is taken over. 0, or -1 when out of memory. */
static int add_named(run_state *st, const char *name, jv *val)
{
    for (size_t i = 0; val && i < st->nnamed; i++)
        if (strcmp(st->named[i].name, name) == 0) {
            jv_free(val); /* the first definition wins, as in jq */
            return 0;
        }
    named_arg *n = val ? realloc(st->named, (st->nnamed + 1) * sizeof *n) : NULL;
    if (!n) {
        jv_free(val);
        return -1;
    }
    st->named = n;
    st->named[st->nnamed++] = (named_arg){ name, val };
    return 0;
}

/* Loads a file's JSON values (as an array) or its text, for --slurpfile and
 * --rawfile: NULL after printing the error. */
static jv *load_named_file(sh_proc *p, const char *path, int raw)
{
    char *data;
    size_t len;
    if (sh_load(p, path, &data, &len) < 0)
        return NULL;
    jv *v = NULL;
    if (raw) {
        v = jv_str_utf8(data, len);
    } else {
        reader r = { data, len, 0, { 0 } };
        v = jv_new(JK_ARR);
        jv *item;
        int s;
        while (v && (s = jq_json_next(&r, &item)) != 0) {
            if (s < 0) {
                sh_err(p, "Bad JSON in --slurpfile %s: %s", path, r.err);
                jv_free(v);
                v = NULL;
                free(data);
                return NULL;
            }
            if (jq_arr_push(v, item) < 0)
                v = NULL;
        }
    }
    free(data);
    if (!v)
        sh_oom(p);
    return v;
}

static const char usage_text[] =
    "jq - commandline JSON processor [version 1.6]\n"
    "\n"
    "Usage:\tjq [options] <jq filter> [file...]\n"
    "\tjq [options] --args <jq filter> [strings...]\n"
    "\tjq [options] --jsonargs <jq filter> [JSON_TEXTS...]\n"
    "\n"
    "jq is a tool for processing JSON inputs, applying the given filter to\n"
    "its JSON text inputs and producing the filter's results as JSON on\n"
    "standard output.\n"
    "\n"
    "The simplest filter is ., which copies jq's input to its output\n"
    "unmodified (except for formatting, but note that IEEE754 is used\n"
    "for number representation internally, with all that that implies).\n"
    "\n"
    "For more advanced filters see the jq(1) manpage (\"man jq\")\n"
    "and/or https://stedolan.github.io/jq\n"
    "\n"
    "Example:\n"
    "\n"
    "\t$ echo '{\"foo\": 0}' | jq .\n"
    "\t{\n"
    "\t\t\"foo\": 0\n"
    "\t}\n"
    "\n"
    "Some of the options include:\n"
    "  -c               compact instead of pretty-printed output;\n"
    "  -n               use `null` as the single input value;\n"
    "  -e               set the exit status code based on the output;\n"
    "  -s               read (slurp) all inputs into an array; apply filter to it;\n"
    "  -r               output raw strings, not JSON texts;\n"
    "  -R               read raw strings, not JSON texts;\n"
    "  -C               colorize JSON;\n"
    "  -M               monochrome (don't colorize JSON);\n"
    "  -S               sort keys of objects on output;\n"
    "  --tab            use tabs for indentation;\n"
    "  --arg a v        set variable $a to value <v>;\n"
    "  --argjson a v    set variable $a to JSON value <v>;\n"
    "  --slurpfile a f  set variable $a to an array of JSON texts read from <f>;\n"
    "  --rawfile a f    set variable $a to a string consisting of the contents of <f>;\n"
    "  --args           remaining arguments are string arguments, not files;\n"
    "  --jsonargs       remaining arguments are JSON arguments, not files;\n"
    "  --               terminates argument processing;\n"
    "\n"
    "Named arguments are also available as $ARGS.named[], while\n"
    "positional arguments are available as $ARGS.positional[].\n"
    "\n"
    "See the manpage for more options.\n";

/* Parses the command line into opt, q->dump and st: 0, or an exit status. */
static int parse_args(sh_proc *p, int argc, char **argv, options *opt, jq *q, run_state *st)
{
    int args_mode = 0, no_more_opts = 0;
    q->dump.indent = 2;
    opt->files = calloc((size_t)argc + 1, sizeof *opt->files);
    if (!opt->files || !(st->positional = jv_new(JK_ARR))) {
        sh_oom(p);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (no_more_opts || a[0] != '-' || !(isalpha((unsigned char)a[1]) || a[1] == '-')) {
            if (!opt->program) {
                opt->program = a;
            } else if (args_mode) {
                char err[200];
                jv *v = args_mode == 1 ? jv_str(a)
                                       : jq_parse_json_text(a, strlen(a), err, sizeof err);
                if (!v) {
                    sh_err(p, "Invalid JSON text passed to --jsonargs");
                    return 2;
                }
                if (jq_arr_push(st->positional, v) < 0) {
                    sh_oom(p);
                    return 2;
                }
            } else {
                opt->files[opt->nfiles++] = a;
            }
            continue;
        }
        if (strcmp(a, "--") == 0) {
            if (!opt->program) {
                sh_write(p->err, usage_text, strlen(usage_text));
                return 2;
            }
            no_more_opts = 1;
            continue;
        }
        if (a[1] != '-') {
            for (const char *c = a + 1; *c; c++) {
                switch (*c) {
                case 'r': opt->raw_out = 1; break;
                case 'j': opt->raw_out = opt->join = 1; break;
                case 'c': q->dump.indent = 0, q->dump.tab = 0; break;
                case 'n': opt->null_input = 1; break;
                case 's': opt->slurp = 1; break;
                case 'e': opt->exit_status = 1; break;
                case 'S': q->dump.sort = 1; break;
                case 'a': q->dump.ascii = 1; break;
                case 'R': opt->raw_input = 1; break;
                case 'f': opt->from_file = 1; break;
                case 'M': case 'C': break;
                case 'h':
                    sh_outs(p, usage_text);
                    return -1;
                default:
                    return usage_error(p, "Unknown option: %s", a);
                }
            }
            continue;
        }
        const char *l = a + 2;
        int need = strcmp(l, "arg") == 0 || strcmp(l, "argjson") == 0 ||
                   strcmp(l, "slurpfile") == 0 || strcmp(l, "rawfile") == 0 ? 2
                 : strcmp(l, "indent") == 0 ? 1 : 0;
        if (i + need >= argc)
            return usage_error(p, "%s takes a parameter", a);
        if (strcmp(l, "raw-output") == 0) opt->raw_out = 1;
        else if (strcmp(l, "join-output") == 0) opt->raw_out = opt->join = 1;
        else if (strcmp(l, "compact-output") == 0) q->dump.indent = 0, q->dump.tab = 0;
        else if (strcmp(l, "null-input") == 0) opt->null_input = 1;
        else if (strcmp(l, "slurp") == 0) opt->slurp = 1;
        else if (strcmp(l, "exit-status") == 0) opt->exit_status = 1;
        else if (strcmp(l, "sort-keys") == 0) q->dump.sort = 1;
        else if (strcmp(l, "ascii-output") == 0) q->dump.ascii = 1;
        else if (strcmp(l, "raw-input") == 0) opt->raw_input = 1;
        else if (strcmp(l, "from-file") == 0) opt->from_file = 1;
        else if (strcmp(l, "tab") == 0) q->dump.tab = 1, q->dump.indent = 1;
        else if (strcmp(l, "monochrome-output") == 0 || strcmp(l, "color-output") == 0 ||
                 strcmp(l, "unbuffered") == 0) ;
        else if (strcmp(l, "args") == 0) args_mode = 1;
        else if (strcmp(l, "jsonargs") == 0) args_mode = 2;
        else if (strcmp(l, "help") == 0) {
            sh_outs(p, usage_text);
            return -1;
        } else if (strcmp(l, "version") == 0) {
            sh_outs(p, "jq-1.6\n");
            return -1;
        } else if (strcmp(l, "indent") == 0) {
            /* As jq: atoi, and -1 means tabs. */
            long n = strtol(argv[++i], NULL, 10);
            if (n < -1 || n > 7)
                return usage_error(p, "%s", "Cannot indent more than 7 characters");
            q->dump.indent = n < 0 ? 1 : (int)n;
            q->dump.tab = n < 0;
        } else if (need == 2) {
            const char *name = argv[i + 1], *val = argv[i + 2];
            jv *v;
            if (strcmp(l, "arg") == 0) {
                v = jv_str(val);
            } else if (strcmp(l, "argjson") == 0) {
                char err[200];
                v = jq_parse_json_text(val, strlen(val), err, sizeof err);
                if (!v) {
                    sh_err(p, "Invalid JSON text passed to --argjson");
                    return usage_error(p, "%s", "Invalid JSON text passed to --argjson");
                }
            } else {
                v = load_named_file(p, val, strcmp(l, "rawfile") == 0);
                if (!v)
                    return 2;
            }
            if (add_named(st, name, v) < 0) {
                sh_oom(p);
                return 2;
            }
            i += 2;
        } else {
            return usage_error(p, "Unknown option: %s", a);
        }
    }
    return 0;
}

/* Builds the global variables: $ENV, $__loc__-free named arguments and $ARGS
 * (innermost last). NULL when out of memory. */
static const env *make_globals(jq *q, run_state *st)
{
    st->globals = calloc(st->nnamed + 2, sizeof *st->globals);
    if (!st->globals)
        return NULL;
    jv *envv = jq_nat_env(q, NULL, NULL), *args = jv_new(JK_OBJ), *named = jv_new(JK_OBJ);
    int ok = envv && add_named(st, "ENV", envv) == 0;
    for (size_t i = 0; ok && named && i + 1 < st->nnamed; i++)
        ok = jq_obj_set(named, jv_str(st->named[i].name), jv_ref(st->named[i].val)) == 0;
    ok = ok && args && named &&
         jq_obj_set(args, jv_str("positional"), jv_ref(st->positional)) == 0 &&
         jq_obj_set(args, jv_str("named"), jv_ref(named)) == 0;
    jv_free(named);
    if (!ok || add_named(st, "ARGS", args) < 0) {
        jv_free(args);
        return NULL;
    }
    const env *up = NULL;
    for (size_t i = 0; i < st->nnamed; i++) {
        st->globals[i] = (env){ .up = up, .kind = E_VAR, .name = st->named[i].name,
                                .val = st->named[i].val };
        up = &st->globals[i];
    }
    return up;
}

/* jq [OPTIONS] FILTER [FILES...] */
static int jq_main(sh_proc *p, int argc, char **argv)
{
    jq q = { 0 };
    options opt = { 0 };
    run_state st = { 0 };
    char base;
    q.p = p;
    q.stack_base = (uintptr_t)&base;
    q.next_label = J_LABEL;
    int status = parse_args(p, argc, argv, &opt, &q, &st);
    if (status) {
        free(opt.files);
        run_state_free(&st);
        return status < 0 ? 0 : status;
    }
    if (!opt.program)
        opt.program = ".";
    char *program_text = NULL;
    if (opt.from_file) {
        /* -f: the first operand names a file holding the program. */
        size_t len;
        if (sh_load(p, opt.program, &program_text, &len) < 0) {
            free(opt.files);
            run_state_free(&st);
            return 2;
        }
        opt.program = program_text;
    }
    /* Parse the builtins and the program as one text. */
    sh_buf text = { 0 };
    int text_ok = sh_buf_adds(&text, jq_prelude) == 0 && sh_buf_addc(&text, '\n') == 0 &&
                  sh_buf_adds(&text, opt.program) == 0 && (st.text = sh_buf_take(&text, NULL));
    free(program_text);
    opt.program = "";
    if (!text_ok) {
        sh_buf_free(&text);
        sh_oom(p);
        free(opt.files);
        run_state_free(&st);
        return 2;
    }
    st.ps.s = st.text;
    st.ps.len = strlen(st.text);
    st.ps.user_start = strlen(jq_prelude) + 1;
    node *prog = jq_parse_pipe(&st.ps);
    if (prog && jq_peek(&st.ps).type != TK_EOF)
        prog = jq_syntax_error(&st.ps, "unexpected text after the program");
    const env *globals = prog ? make_globals(&q, &st) : NULL;
    if (prog && !globals)
        snprintf(st.ps.err, sizeof st.ps.err, "out of memory");
    scope gscope[64];
    const scope *sc = NULL;
    for (size_t i = 0; prog && globals && i < st.nnamed && i < 64; i++) {
        gscope[i] = (scope){ sc, E_VAR, st.named[i].name, 0 };
        sc = &gscope[i];
    }
    if (prog && globals && jq_check(prog, sc, st.ps.err, sizeof st.ps.err) < 0)
        prog = NULL;
    if (!prog) {
        sh_err(p, "error: %s at <top-level>, line 1:\n%s\njq: 1 compile error",
               st.ps.err[0] ? st.ps.err : "syntax error", st.text + st.ps.user_start);
        free(opt.files);
        run_state_free(&st);
        return 3;
    }
    q.files = opt.files;
    q.nfiles = opt.nfiles;
    q.raw_input = opt.raw_input;
    /* With -n the files are only read when the program asks for input. */
    if (!opt.null_input && jq_load_inputs(&q) != 0) {
        report_error(&q, 0);
        free(opt.files);
        run_state_free(&st);
        return 5;
    }
    printer pr = { &opt, 0, 0, 0 };
    int ret = 0;
    if (opt.null_input) {
        jv *null_v = jv_new(JK_NULL);
        ret = null_v ? run_one(&q, prog, globals, null_v, &pr, 0) : 5;
        jv_free(null_v);
    } else if (opt.slurp) {
        jv *all = NULL;
        int s = 0;
        if (opt.raw_input) {
            all = jv_str_utf8(q.in.s, q.in.len);
        } else if ((all = jv_new(JK_ARR))) {
            jv *v;
            while ((s = jq_next_input(&q, &v)) == 1)
                if (jq_arr_push(all, v) < 0) {
                    jq_oom(&q);
                    s = -1;
                    break;
                }
        }
        if (!all)
            jq_oom(&q);
        if (all && s == 0) {
            ret = run_one(&q, prog, globals, all, &pr, 1);
        } else {
            report_error(&q, 1);
            ret = q.input_error ? 4 : 5;
        }
        jv_free(all);
    } else {
        for (;;) {
            jv *v;
            int s = jq_next_input(&q, &v);
            if (s == 0)
                break;
            if (s < 0) {
                report_error(&q, 1);
                ret = q.input_error ? 4 : 5;
                break;
            }
            ret = run_one(&q, prog, globals, v, &pr, 1);
            jv_free(v);
            if (ret < 0)
                break;
        }
    }
    free(opt.files);
    run_state_free(&st);
    jv_free(q.err);
    free(q.input);
    if (ret < 0)
        return SH_STATUS_PIPE;
    return q.load_status ? q.load_status : ret;
}

const sh_applet sh_applets_jq[] = {
    { "jq", jq_main, "process JSON with a filter program" },
    { NULL, NULL, NULL },
};
