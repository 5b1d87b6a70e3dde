/* awk's evaluator: places (variables, fields, array elements) as lvalues,
 * expressions, and statements with their control flow (break, next, exit,
 * return). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "awk.h"

/* The subscript string of a list of expressions, joined with SUBSEP. */
static char *subscript(aw *I, anode *list)
{
    sh_buf b = { 0 };
    for (anode *x = list; x; x = x->next) {
        aval v = { 0 };
        if (awk_eval(I, x, &v) != C_OK) {
            sh_buf_free(&b);
            return NULL;
        }
        const char *s = awk_str_of(I, &v);
        int r = s ? sh_buf_adds(&b, s) : -1;
        awk_val_free(&v);
        if (r == 0 && x->next)
            r = sh_buf_adds(&b, awk_global_str(I, V_SUBSEP));
        if (r < 0) {
            sh_buf_free(&b);
            awk_oom(I);
            return NULL;
        }
    }
    char *s = sh_buf_take(&b, NULL);
    if (!s)
        awk_oom(I);
    return s;
}

int awk_resolve_place(aw *I, anode *n, place *pl)
{
    memset(pl, 0, sizeof(*pl));
    pl->line = n->line;
    switch (n->type) {
    case N_VAR:
    case N_LOCAL:
        pl->kind = P_CELL;
        pl->cell = awk_node_cell(I, n);
        return C_OK;
    case N_INDEX:
        pl->kind = P_ELEM;
        pl->key = subscript(I, n->b);
        if (!pl->key)
            return C_ERROR;
        pl->arr = awk_node_array(I, n->a);
        if (!pl->arr) {
            free(pl->key);
            pl->key = NULL;
            return C_ERROR;
        }
        return C_OK;
    default: {
        aval v = { 0 };
        int r = awk_eval(I, n->a, &v);
        if (r != C_OK)
            return r;
        pl->kind = P_FIELD;
        r = awk_field_index(I, awk_to_num(&v), n->line, &pl->field);
        awk_val_free(&v);
        return r;
    }
    }
}

int awk_place_get(aw *I, place *pl, aval *out)
{
    switch (pl->kind) {
    case P_CELL: {
        acell *c = pl->cell;
        if (c->kind == K_ARRAY)
            return awk_fatal(I, pl->line, "attempt to use array `%s' in a scalar context",
                             awk_cell_name(I, c));
        if (c->kind != K_SCALAR) {
            awk_val_free(out);
            return C_OK;
        }
        return awk_val_copy(I, out, &c->v) < 0 ? C_ERROR : C_OK;
    }
    case P_ELEM: {
        aelem *e = awk_arr_get(I, pl->arr, pl->key);
        if (!e)
            return C_ERROR;
        return awk_val_copy(I, out, &e->v) < 0 ? C_ERROR : C_OK;
    }
    default:
        return awk_get_field(I, pl->field, out);
    }
}

int awk_place_set(aw *I, place *pl, aval *v)
{
    if (v->type == T_NUM || v->type == T_UNINIT) {
        free(v->str);
        v->str = NULL;
    }
    switch (pl->kind) {
    case P_CELL: {
        acell *c = pl->cell;
        if (c->kind == K_ARRAY) {
            awk_val_free(v);
            return awk_fatal(I, pl->line, "attempt to use array `%s' in a scalar context",
                             awk_cell_name(I, c));
        }
        if (c == &I->globals[V_NF]) {
            double d = awk_to_num(v);
            awk_val_free(v);
            return awk_set_nf(I, d, pl->line);
        }
        awk_val_free(&c->v);
        c->kind = K_SCALAR;
        c->ref = NULL;
        c->v = *v;
        memset(v, 0, sizeof(*v));
        return C_OK;
    }
    case P_ELEM: {
        aelem *e = awk_arr_get(I, pl->arr, pl->key);
        if (!e) {
            awk_val_free(v);
            return C_ERROR;
        }
        awk_val_free(&e->v);
        e->v = *v;
        memset(v, 0, sizeof(*v));
        return C_OK;
    }
    default:
        return awk_set_field(I, pl->field, v, pl->line);
    }
}

int awk_assign_input(aw *I, anode *lv, const char *s)
{
    place pl;
    int r = awk_resolve_place(I, lv, &pl);
    if (r != C_OK)
        return r;
    aval v = { 0 };
    char *d = awk_xstrdup(I, s);
    if (d) {
        awk_val_set_input(&v, d);
        r = awk_place_set(I, &pl, &v);
    } else {
        r = C_ERROR;
    }
    free(pl.key);
    return r;
}

/* ---------------------------------------------------------------- evaluation */

/* Calls a user function: array arguments by reference, scalars by value. */
static int call_user(aw *I, anode *n, aval *out)
{
    afunc *f = &I->funcs[n->idx];
    if (I->call_depth >= MAX_CALL_DEPTH)
        return awk_fatal(I, n->line, "function call nesting too deep (more than %d)",
                         MAX_CALL_DEPTH);
    acell *locals = awk_xcalloc(I, (size_t)f->nparams, sizeof(acell));
    if (!locals)
        return C_ERROR;
    int r = C_OK, i = 0;
    for (anode *a = n->a; a && r == C_OK; a = a->next, i++) {
        if (i >= f->nparams) {
            /* Extra arguments are evaluated and dropped, as gawk does. */
            aval extra = { 0 };
            r = awk_eval(I, a, &extra);
            awk_val_free(&extra);
            continue;
        }
        if (a->type == N_VAR || a->type == N_LOCAL) {
            acell *c = awk_node_cell(I, a);
            while (c->kind == K_REF)
                c = c->ref;
            if (c->kind == K_ARRAY) {
                locals[i].kind = K_ARRAY;
                locals[i].arr = c->arr;
                locals[i].borrowed = 1;
                continue;
            }
            if (c->kind == K_NONE) {
                locals[i].kind = K_REF;
                locals[i].ref = c;
                continue;
            }
        }
        aval v = { 0 };
        r = awk_eval(I, a, &v);
        if (r == C_OK) {
            if (v.type == T_NUM) {
                free(v.str);
                v.str = NULL;
            }
            locals[i].kind = K_SCALAR;
            locals[i].v = v;
        }
    }
    if (r == C_OK) {
        acell *saved = I->frame;
        I->frame = locals;
        I->call_depth++;
        r = awk_exec(I, f->body);
        I->call_depth--;
        I->frame = saved;
        awk_val_free(out);
        if (r == C_RETURN) {
            *out = I->retval;
            memset(&I->retval, 0, sizeof(I->retval));
        }
        if (r == C_RETURN || r == C_BREAK || r == C_CONTINUE)
            r = C_OK;
    }
    for (i = 0; i < f->nparams; i++)
        awk_cell_free(&locals[i]);
    free(locals);
    return r;
}

static double arith(int op, double x, double y)
{
    switch (op) {
    case '+': return x + y;
    case '-': return x - y;
    case '*': return x * y;
    case '/': return x / y;
    case '%': return fmod(x, y);
    default: return pow(x, y);
    }
}

static int check_divisor(aw *I, int op, double y, int line)
{
    if ((op == '/' || op == '%') && y == 0)
        return awk_fatal(I, line, op == '/' ? "division by zero attempted"
                                        : "division by zero attempted in `%%'");
    return C_OK;
}

/* lvalue = expr and the compound forms; the value is the one assigned. */
static int eval_assign(aw *I, anode *n, aval *out)
{
    place pl;
    int r = awk_resolve_place(I, n->a, &pl);
    if (r != C_OK)
        return r;
    aval v = { 0 };
    if (n->op == '=') {
        r = awk_eval(I, n->b, &v);
    } else {
        aval old = { 0 }, rhs = { 0 };
        r = awk_place_get(I, &pl, &old);
        if (r == C_OK)
            r = awk_eval(I, n->b, &rhs);
        if (r == C_OK) {
            double y = awk_to_num(&rhs);
            r = check_divisor(I, n->op, y, n->line);
            if (r == C_OK)
                awk_val_num(&v, arith(n->op, awk_to_num(&old), y));
        }
        awk_val_free(&old);
        awk_val_free(&rhs);
    }
    if (r == C_OK && awk_val_copy(I, out, &v) < 0)
        r = C_ERROR;
    if (r == C_OK)
        r = awk_place_set(I, &pl, &v);
    awk_val_free(&v);
    free(pl.key);
    return r;
}

/* ++x, --x, x++, x--. */
static int eval_incdec(aw *I, anode *n, aval *out)
{
    place pl;
    int r = awk_resolve_place(I, n->a, &pl);
    if (r != C_OK)
        return r;
    aval old = { 0 };
    r = awk_place_get(I, &pl, &old);
    if (r == C_OK) {
        double d = awk_to_num(&old);
        double nd = (n->type == N_PREINC || n->type == N_POSTINC) ? d + 1 : d - 1;
        aval v = { 0 };
        awk_val_num(&v, nd);
        awk_val_num(out, (n->type == N_PREINC || n->type == N_PREDEC) ? nd : d);
        r = awk_place_set(I, &pl, &v);
    }
    awk_val_free(&old);
    free(pl.key);
    return r;
}

int awk_eval(aw *I, anode *n, aval *out)
{
    int r = C_OK;
    if (++I->depth > MAX_EVAL_DEPTH) {
        I->depth--;
        return awk_fatal(I, n->line, "expression nesting too deep");
    }
    switch (n->type) {
    case N_NUM:
        awk_val_num(out, n->num);
        break;
    case N_STR: {
        char *d = awk_xstrdup(I, n->str);
        if (!d)
            r = C_ERROR;
        else
            awk_val_str(out, d);
        break;
    }
    case N_REGEX: {
        aval rec = { 0 };
        r = awk_get_field(I, 0, &rec);
        const char *s = r == C_OK ? awk_str_of(I, &rec) : NULL;
        if (!s) {
            r = C_ERROR;
        } else {
            regmatch_t m[1];
            awk_val_num(out, awk_regex_exec(n->re, s, 0, m, 1));
        }
        awk_val_free(&rec);
        break;
    }
    case N_VAR:
    case N_LOCAL:
    case N_INDEX:
    case N_FIELD: {
        place pl;
        r = awk_resolve_place(I, n, &pl);
        if (r == C_OK)
            r = awk_place_get(I, &pl, out);
        free(pl.key);
        break;
    }
    case N_GROUP:
        r = awk_fatal(I, n->line, "a parenthesised list is only valid before `in' or in print");
        break;
    case N_ASSIGN:
        r = eval_assign(I, n, out);
        break;
    case N_COND: {
        aval c = { 0 };
        r = awk_eval(I, n->a, &c);
        if (r == C_OK)
            r = awk_eval(I, awk_truth(&c) ? n->b : n->c, out);
        awk_val_free(&c);
        break;
    }
    case N_AND:
    case N_OR: {
        aval c = { 0 };
        r = awk_eval(I, n->a, &c);
        if (r == C_OK) {
            int t = awk_truth(&c);
            if (n->type == N_AND ? t : !t) {
                awk_val_free(&c);
                r = awk_eval(I, n->b, &c);
                t = awk_truth(&c);
            }
            awk_val_num(out, t);
        }
        awk_val_free(&c);
        break;
    }
    case N_NOT:
    case N_NEG:
    case N_UPLUS: {
        aval c = { 0 };
        r = awk_eval(I, n->a, &c);
        if (r == C_OK)
            awk_val_num(out, n->type == N_NOT ? !awk_truth(&c) : n->type == N_NEG ? -awk_to_num(&c)
                                                                           : awk_to_num(&c));
        awk_val_free(&c);
        break;
    }
    case N_BINARY: {
        aval x = { 0 }, y = { 0 };
        r = awk_eval(I, n->a, &x);
        if (r == C_OK)
            r = awk_eval(I, n->b, &y);
        if (r == C_OK)
            r = check_divisor(I, n->op, awk_to_num(&y), n->line);
        if (r == C_OK)
            awk_val_num(out, arith(n->op, awk_to_num(&x), awk_to_num(&y)));
        awk_val_free(&x);
        awk_val_free(&y);
        break;
    }
    case N_CONCAT: {
        aval x = { 0 }, y = { 0 };
        r = awk_eval(I, n->a, &x);
        if (r == C_OK)
            r = awk_eval(I, n->b, &y);
        if (r == C_OK) {
            const char *s = awk_str_of(I, &x), *t = awk_str_of(I, &y);
            char *d = s && t ? malloc(strlen(s) + strlen(t) + 1) : NULL;
            if (!d) {
                awk_oom(I);
                r = C_ERROR;
            } else {
                strcpy(d, s);
                strcat(d, t);
                awk_val_str(out, d);
            }
        }
        awk_val_free(&x);
        awk_val_free(&y);
        break;
    }
    case N_CMP: {
        aval x = { 0 }, y = { 0 };
        r = awk_eval(I, n->a, &x);
        if (r == C_OK)
            r = awk_eval(I, n->b, &y);
        if (r == C_OK) {
            int err = 0, c = awk_compare(I, &x, &y, &err), t;
            switch (n->op) {
            case TK_LT: t = c == -1; break;
            case TK_LE: t = c == -1 || c == 0; break;
            case TK_EQ: t = c == 0; break;
            case TK_NE: t = c != 0; break;
            case TK_GE: t = c == 1 || c == 0; break;
            default: t = c == 1; break;
            }
            if (err)
                r = C_ERROR;
            awk_val_num(out, t);
        }
        awk_val_free(&x);
        awk_val_free(&y);
        break;
    }
    case N_MATCH: {
        aval x = { 0 };
        r = awk_eval(I, n->a, &x);
        const char *s = r == C_OK ? awk_str_of(I, &x) : NULL;
        are *re = s ? awk_node_regex(I, n->b) : NULL;
        if (!re) {
            r = C_ERROR;
        } else {
            regmatch_t m[1];
            int t = awk_regex_exec(re, s, 0, m, 1);
            awk_val_num(out, n->op ? !t : t);
        }
        awk_val_free(&x);
        break;
    }
    case N_IN: {
        char *key = subscript(I, n->a);
        aarr *a = key ? awk_node_array(I, n->b) : NULL;
        if (!a)
            r = C_ERROR;
        else
            awk_val_num(out, awk_arr_find(a, key) != NULL);
        free(key);
        break;
    }
    case N_PREINC:
    case N_PREDEC:
    case N_POSTINC:
    case N_POSTDEC:
        r = eval_incdec(I, n, out);
        break;
    case N_BUILTIN:
        r = awk_call_builtin(I, n, out);
        break;
    case N_CALL:
        r = call_user(I, n, out);
        break;
    case N_GETLINE:
        r = awk_eval_getline(I, n, out);
        break;
    default:
        r = awk_fatal(I, n->line, "statement used as an expression");
    }
    I->depth--;
    if (r != C_OK)
        awk_val_free(out);
    return r;
}

/* ---------------------------------------------------------------- statements */

int awk_exec_print(aw *I, anode *s)
{
    sh_buf b = { 0 };
    int r = C_OK;
    if (s->type == S_PRINTF) {
        r = awk_do_sprintf(I, s->a, s->nargs, &b, s->line);
    } else if (!s->a) {
        aval rec = { 0 };
        r = awk_get_field(I, 0, &rec);
        if (r == C_OK && (awk_val_output(I, &b, &rec) < 0 ||
                          sh_buf_adds(&b, awk_global_str(I, V_ORS)) < 0))
            r = C_ERROR;
        awk_val_free(&rec);
    } else {
        for (anode *x = s->a; x && r == C_OK; x = x->next) {
            aval v = { 0 };
            r = awk_eval(I, x, &v);
            if (r == C_OK && awk_val_output(I, &b, &v) < 0)
                r = C_ERROR;
            if (r == C_OK && sh_buf_adds(&b, x->next ? awk_global_str(I, V_OFS)
                                                    : awk_global_str(I, V_ORS)) < 0)
                r = C_ERROR;
            awk_val_free(&v);
        }
    }
    if (r == C_OK)
        r = awk_emit(I, s->op, s->b, b.data ? b.data : "", b.len, s->line);
    else if (I->status == 0)
        awk_oom(I);
    sh_buf_free(&b);
    return r;
}

/* One element of a for-in snapshot, with what the orderings compare. */
typedef struct forin_item {
    char *key, *sval;
    double knum, vnum;
    int vstr; /* the value is a string (sorts after numbers) */
} forin_item;

static int cmp_ind_str(const void *a, const void *b)
{
    return strcmp(((const forin_item *)a)->key, ((const forin_item *)b)->key);
}

static int cmp_ind_num(const void *pa, const void *pb)
{
    const forin_item *a = pa, *b = pb;
    if (a->knum != b->knum)
        return a->knum < b->knum ? -1 : 1;
    return strcmp(a->key, b->key);
}

static int cmp_val_str(const void *pa, const void *pb)
{
    const forin_item *a = pa, *b = pb;
    int c = strcmp(a->sval, b->sval);
    return c ? c : strcmp(a->key, b->key);
}

static int cmp_val_num(const void *pa, const void *pb)
{
    const forin_item *a = pa, *b = pb;
    if (a->vnum != b->vnum)
        return a->vnum < b->vnum ? -1 : 1;
    return cmp_val_str(pa, pb);
}

static int cmp_val_type(const void *pa, const void *pb)
{
    const forin_item *a = pa, *b = pb;
    if (a->vstr != b->vstr)
        return a->vstr ? 1 : -1;
    return a->vstr ? cmp_val_str(pa, pb) : cmp_val_num(pa, pb);
}

/* The ordering PROCINFO["sorted_in"] asks for (gawk's @ind_str_asc ...):
 * its comparison, and *desc for the descending forms. Indexes as strings
 * by default, so that the order is repeatable. */
static int (*forin_order(aw *I, int *desc))(const void *, const void *)
{
    static const struct {
        const char *name;
        int (*cmp)(const void *, const void *);
    } orders[] = {
        { "ind_str", cmp_ind_str }, { "ind_num", cmp_ind_num }, { "val_str", cmp_val_str },
        { "val_num", cmp_val_num }, { "val_type", cmp_val_type },
    };
    *desc = 0;
    for (int g = 0; g < I->nglobals; g++) {
        if (strcmp(I->gnames[g], "PROCINFO") != 0 || I->globals[g].kind != K_ARRAY)
            continue;
        aelem *e = awk_arr_find(I->globals[g].arr, "sorted_in");
        const char *mode = e ? awk_str_of(I, &e->v) : NULL;
        if (!mode || mode[0] != '@')
            break;
        for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
            size_t n = strlen(orders[i].name);
            if (strncmp(mode + 1, orders[i].name, n) == 0 && mode[n + 1] == '_') {
                *desc = strcmp(mode + n + 2, "desc") == 0;
                return orders[i].cmp;
            }
        }
        break;
    }
    return cmp_ind_str;
}

/* for (k in a): runs over a snapshot of the keys, in PROCINFO["sorted_in"]
 * order (by index string otherwise). */
static int exec_forin(aw *I, anode *s)
{
    aarr *a = awk_node_array(I, s->b);
    if (!a)
        return C_ERROR;
    size_t n = a->n, k = 0;
    forin_item *items = awk_xcalloc(I, n, sizeof(forin_item));
    if (!items)
        return C_ERROR;
    int r = C_OK;
    for (size_t i = 0; i < a->nb && r == C_OK; i++)
        for (aelem *e = a->b[i]; e && r == C_OK; e = e->next) {
            forin_item *it = &items[k++];
            const char *sv = awk_str_of(I, &e->v);
            it->key = awk_xstrdup(I, e->key);
            it->sval = sv ? awk_xstrdup(I, sv) : NULL;
            if (e->v.type == T_NUM) {
                free(e->v.str);
                e->v.str = NULL;
            }
            if (!it->key || !it->sval)
                r = C_ERROR;
            it->knum = awk_str_to_num(e->key);
            it->vnum = awk_to_num(&e->v);
            it->vstr = e->v.type == T_STR;
        }
    if (r == C_OK) {
        int desc;
        qsort(items, n, sizeof(forin_item), forin_order(I, &desc));
        for (size_t i = 0; desc && i < n / 2; i++) {
            forin_item t = items[i];
            items[i] = items[n - 1 - i];
            items[n - 1 - i] = t;
        }
    }
    for (size_t i = 0; i < n && r == C_OK; i++) {
        r = awk_assign_input(I, s->a, items[i].key);
        if (r == C_OK)
            r = awk_exec(I, s->c);
        if (r == C_BREAK) {
            r = C_OK;
            break;
        }
        if (r == C_CONTINUE)
            r = C_OK;
    }
    for (size_t i = 0; i < k; i++) {
        free(items[i].key);
        free(items[i].sval);
    }
    free(items);
    return r;
}

int awk_test(aw *I, anode *n, int *r)
{
    aval v = { 0 };
    *r = awk_eval(I, n, &v);
    int t = awk_truth(&v);
    awk_val_free(&v);
    return *r == C_OK ? t : -1;
}

/* Runs a loop body: 1 to go on, 0 to leave with *r. */
static int loop_body(aw *I, anode *body, int *r)
{
    *r = awk_exec(I, body);
    if (*r == C_BREAK) {
        *r = C_OK;
        return 0;
    }
    if (*r == C_CONTINUE)
        *r = C_OK;
    return *r == C_OK;
}

int awk_exec(aw *I, anode *s)
{
    if (!s)
        return C_OK;
    if (++I->depth > MAX_EVAL_DEPTH) {
        I->depth--;
        return awk_fatal(I, s->line, "statement nesting too deep");
    }
    int r = C_OK, t;
    switch (s->type) {
    case S_BLOCK:
        for (anode *x = s->a; x && r == C_OK; x = x->next)
            r = awk_exec(I, x);
        break;
    case S_EXPR: {
        aval v = { 0 };
        r = awk_eval(I, s->a, &v);
        awk_val_free(&v);
        break;
    }
    case S_PRINT:
    case S_PRINTF:
        r = awk_exec_print(I, s);
        break;
    case S_IF:
        t = awk_test(I, s->a, &r);
        if (t >= 0)
            r = awk_exec(I, t ? s->b : s->c);
        break;
    case S_WHILE:
        while (awk_test(I, s->a, &r) > 0 && loop_body(I, s->b, &r))
            ;
        break;
    case S_DO:
        while (loop_body(I, s->a, &r) && awk_test(I, s->b, &r) > 0)
            ;
        break;
    case S_FOR:
        r = awk_exec(I, s->a);
        while (r == C_OK) {
            if (s->b && awk_test(I, s->b, &r) <= 0)
                break;
            if (!loop_body(I, s->d, &r))
                break;
            r = awk_exec(I, s->c);
        }
        break;
    case S_FORIN:
        r = exec_forin(I, s);
        break;
    case S_NEXT:
        r = C_NEXT;
        break;
    case S_NEXTFILE:
        r = C_NEXTFILE;
        break;
    case S_BREAK:
        r = C_BREAK;
        break;
    case S_CONTINUE:
        r = C_CONTINUE;
        break;
    case S_EXIT:
    case S_RETURN:
        if (s->a) {
            aval v = { 0 };
            r = awk_eval(I, s->a, &v);
            if (r == C_OK && s->type == S_EXIT)
                I->exit_code = (int)(awk_to_ll(awk_to_num(&v)) & 255);
            if (r == C_OK && s->type == S_RETURN) {
                awk_val_free(&I->retval);
                I->retval = v;
                memset(&v, 0, sizeof(v));
            }
            awk_val_free(&v);
        }
        if (r == C_OK)
            r = s->type == S_EXIT ? C_EXIT : C_RETURN;
        break;
    case S_DELETE: {
        aarr *a = awk_node_array(I, s->a);
        if (!a) {
            r = C_ERROR;
        } else if (!s->b) {
            awk_arr_clear(a);
        } else {
            char *key = subscript(I, s->b);
            if (!key)
                r = C_ERROR;
            else
                awk_arr_delete(a, key);
            free(key);
        }
        break;
    }
    default:
        r = awk_fatal(I, s->line, "bad statement");
    }
    I->depth--;
    return r;
}
