/* awk's parser: recursive descent from the tokens of awk_lex.c into the
 * syntax tree of awk.h (rules, functions, statements, expressions with gawk's
 * precedence and its ambiguities: concatenation, `in`, getline, >). */
#include <string.h>

#include "awk.h"

int awk_tok(aw *I)
{
    return I->toks[I->tpos].type;
}

static int tok_at(aw *I, int k)
{
    int i = I->tpos + k;
    return i < I->ntok ? I->toks[i].type : TK_EOF;
}

static int line_now(aw *I)
{
    return I->toks[I->tpos].line;
}

static void advance(aw *I)
{
    if (I->tpos < I->ntok - 1)
        I->tpos++;
}

static anode *syntax_error(aw *I)
{
    if (!I->perr) {
        token *t = &I->toks[I->tpos];
        if (t->type == TK_EOF || t->type == TK_NEWLINE)
            sh_err(I->p, "cmd. line:%d: syntax error: unexpected newline or end of string",
                   t->line);
        else
            sh_err(I->p, "cmd. line:%d: syntax error", t->line);
    }
    I->perr = 1;
    return NULL;
}

static int expect(aw *I, int type)
{
    if (awk_tok(I) != type) {
        syntax_error(I);
        return -1;
    }
    advance(I);
    return 0;
}

static void skip_nl(aw *I)
{
    while (awk_tok(I) == TK_NEWLINE)
        advance(I);
}

static void skip_terms(aw *I)
{
    while (awk_tok(I) == TK_NEWLINE || awk_tok(I) == TK_SEMI)
        advance(I);
}

static anode *new_node(aw *I, int type, int line)
{
    anode *n = awk_xcalloc(I, 1, sizeof(*n));
    if (!n) {
        I->perr = 1;
        return NULL;
    }
    n->type = type;
    n->line = line;
    n->chain = I->nodes;
    I->nodes = n;
    return n;
}

static anode *node2(aw *I, int type, int op, anode *a, anode *b, int line)
{
    if (!a || I->perr)
        return NULL;
    anode *n = new_node(I, type, line);
    if (n) {
        n->op = op;
        n->a = a;
        n->b = b;
    }
    return n;
}

int awk_global_index(aw *I, const char *name)
{
    for (int i = 0; i < I->nglobals; i++)
        if (strcmp(I->gnames[i], name) == 0)
            return i;
    if (awk_grow(I, (void **)&I->gnames, &I->capglobals, I->nglobals + 1, sizeof(char *)) < 0)
        return -1;
    char *d = awk_xstrdup(I, name);
    if (!d)
        return -1;
    I->gnames[I->nglobals] = d;
    return I->nglobals++;
}

/* The index of function name, registered (undefined yet) if new; -1 when out
 * of memory. Calls may come before the definition. */
static int func_index(aw *I, const char *name)
{
    for (int i = 0; i < I->nfuncs; i++)
        if (strcmp(I->funcs[i].name, name) == 0)
            return i;
    if (awk_grow(I, (void **)&I->funcs, &I->capfuncs, I->nfuncs + 1, sizeof(afunc)) < 0)
        return -1;
    afunc *f = &I->funcs[I->nfuncs];
    memset(f, 0, sizeof(*f));
    f->name = awk_xstrdup(I, name);
    if (!f->name)
        return -1;
    return I->nfuncs++;
}

/* A variable reference: a parameter of the function being parsed, or a global. */
static anode *name_node(aw *I, const char *name, int line)
{
    afunc *f = I->cur_func >= 0 ? &I->funcs[I->cur_func] : NULL;
    for (int i = 0; f && i < f->nparams; i++)
        if (strcmp(f->params[i], name) == 0) {
            anode *n = new_node(I, N_LOCAL, line);
            if (n)
                n->idx = i;
            return n;
        }
    for (int i = 0; i < I->nfuncs; i++)
        if (I->funcs[i].defined && strcmp(I->funcs[i].name, name) == 0) {
            sh_err(I->p, "cmd. line:%d: function name `%s' used as a variable", line, name);
            I->perr = 1;
            return NULL;
        }
    int g = awk_global_index(I, name);
    if (g < 0) {
        I->perr = 1;
        return NULL;
    }
    anode *n = new_node(I, N_VAR, line);
    if (n)
        n->idx = g;
    return n;
}

/* expr { ',' expr }: the list, linked through next; *count gets its length. */
static anode *parse_expr_list(aw *I, int *count)
{
    anode *head = awk_parse_expr(I), *tail = head;
    int n = head ? 1 : 0;
    while (tail && awk_tok(I) == TK_COMMA) {
        advance(I);
        skip_nl(I);
        tail->next = awk_parse_expr(I);
        tail = tail->next;
        n++;
    }
    if (count)
        *count = n;
    return tail ? head : NULL;
}

static int is_lvalue(const anode *n)
{
    return n && (n->type == N_VAR || n->type == N_LOCAL || n->type == N_FIELD ||
                 n->type == N_INDEX);
}

/* NAME or NAME[subscripts]. */
static anode *parse_variable(aw *I)
{
    token *t = &I->toks[I->tpos];
    anode *v = name_node(I, t->str, t->line);
    advance(I);
    if (!v || awk_tok(I) != TK_LBRACKET)
        return v;
    advance(I);
    int save = I->no_gt;
    I->no_gt = 0;
    anode *subs = parse_expr_list(I, NULL);
    I->no_gt = save;
    if (!subs || expect(I, TK_RBRACKET) < 0)
        return NULL;
    return node2(I, N_INDEX, 0, v, subs, t->line);
}

/* Arguments of a call, after the '(' : returns the list (NULL for none). */
static anode *parse_call_args(aw *I, int *count, int *ok)
{
    int save = I->no_gt;
    I->no_gt = 0;
    anode *args = NULL;
    *count = 0;
    *ok = 1;
    skip_nl(I);
    if (awk_tok(I) != TK_RPAREN) {
        args = parse_expr_list(I, count);
        skip_nl(I);
        if (!args)
            *ok = 0;
    }
    I->no_gt = save;
    if (*ok && expect(I, TK_RPAREN) < 0)
        *ok = 0;
    return args;
}

/* getline forms that start with the keyword: getline [lvalue] [< file]. */
static anode *parse_simple_getline(aw *I)
{
    int line = line_now(I);
    advance(I);
    anode *n = new_node(I, N_GETLINE, line);
    if (!n)
        return NULL;
    n->op = G_PLAIN;
    if (awk_tok(I) == TK_DOLLAR || awk_tok(I) == TK_NAME) {
        n->a = awk_parse_primary(I);
        if (!n->a)
            return NULL;
    }
    if (awk_tok(I) == TK_LT) {
        advance(I);
        n->op = G_FILE;
        n->b = awk_parse_primary(I);
        if (!n->b)
            return NULL;
    }
    return n;
}

static anode *parse_primary_inner(aw *I);

anode *awk_parse_primary(aw *I)
{
    if (++I->pdepth > MAX_PARSE_DEPTH) {
        if (!I->perr)
            sh_err(I->p, "cmd. line:%d: expression nested too deeply", line_now(I));
        I->perr = 1;
        return NULL;
    }
    anode *n = parse_primary_inner(I);
    I->pdepth--;
    return n;
}

/* Constants, regexes, $, grouping, ++/--, variables, calls and getline. */
static anode *parse_primary_inner(aw *I)
{
    token *t = &I->toks[I->tpos];
    int line = t->line;
    anode *n;
    switch (t->type) {
    case TK_NUMBER:
        n = new_node(I, N_NUM, line);
        if (n)
            n->num = t->num;
        advance(I);
        return n;
    case TK_STRING:
        n = new_node(I, N_STR, line);
        if (n && !(n->str = awk_xstrdup(I, t->str)))
            I->perr = 1;
        advance(I);
        return n;
    case TK_ERE:
        n = new_node(I, N_REGEX, line);
        if (n && !(n->re = awk_regex_compile(I, t->str, line)))
            I->perr = 1;
        advance(I);
        return I->perr ? NULL : n;
    case TK_DOLLAR: {
        /* $ binds tighter than everything: $i++ is ($i)++, $-1 is $(-1). */
        advance(I);
        anode *e = awk_parse_primary(I);
        return e ? node2(I, N_FIELD, 0, e, NULL, line) : NULL;
    }
    case TK_LPAREN: {
        advance(I);
        int save = I->no_gt;
        I->no_gt = 0;
        int count;
        anode *list = parse_expr_list(I, &count);
        I->no_gt = save;
        if (!list || expect(I, TK_RPAREN) < 0)
            return NULL;
        if (count == 1)
            return list;
        n = new_node(I, N_GROUP, line);
        if (n)
            n->a = list;
        return n;
    }
    case TK_INCR:
    case TK_DECR: {
        advance(I);
        anode *lv = awk_parse_primary(I);
        if (!lv)
            return NULL;
        if (!is_lvalue(lv))
            return syntax_error(I);
        n = new_node(I, t->type == TK_INCR ? N_PREINC : N_PREDEC, line);
        if (n)
            n->a = lv;
        return n;
    }
    case TK_MINUS:
    case TK_PLUS:
    case TK_NOT: {
        /* Only after $ (elsewhere parse_unary takes them). */
        advance(I);
        anode *e = awk_parse_primary(I);
        return node2(I, t->type == TK_MINUS ? N_NEG : t->type == TK_PLUS ? N_UPLUS : N_NOT, 0,
                     e, NULL, line);
    }
    case TK_NAME:
        return parse_variable(I);
    case TK_FUNC_NAME: {
        char *name = t->str;
        advance(I);
        advance(I);
        int count, ok;
        anode *args = parse_call_args(I, &count, &ok);
        if (!ok)
            return NULL;
        n = new_node(I, N_CALL, line);
        if (!n)
            return NULL;
        n->a = args;
        n->nargs = count;
        n->idx = func_index(I, name);
        if (n->idx < 0)
            return syntax_error(I);
        return n;
    }
    case TK_BUILTIN: {
        int id = t->id, count = 0, ok = 1;
        anode *args = NULL;
        advance(I);
        if (awk_tok(I) == TK_LPAREN) {
            advance(I);
            args = parse_call_args(I, &count, &ok);
            if (!ok)
                return NULL;
        } else if (id != B_LENGTH) {
            return syntax_error(I);
        }
        if (count < awk_builtins[id].min || count > awk_builtins[id].max) {
            sh_err(I->p, "cmd. line:%d: %s called with %d arguments", line, awk_builtins[id].name,
                   count);
            I->perr = 1;
            return NULL;
        }
        if ((id == B_SUB || id == B_GSUB) && count == 3 && !is_lvalue(args->next->next)) {
            sh_err(I->p, "cmd. line:%d: %s third parameter is not a changeable object", line,
                   awk_builtins[id].name);
            I->perr = 1;
            return NULL;
        }
        if ((id == B_SPLIT && args->next->type != N_VAR && args->next->type != N_LOCAL) ||
            (id == B_SPLIT && count == 4 && args->next->next->next->type != N_VAR &&
             args->next->next->next->type != N_LOCAL) ||
            (id == B_MATCH && count == 3 && args->next->next->type != N_VAR &&
             args->next->next->type != N_LOCAL) ||
            ((id == B_ASORT || id == B_ASORTI) &&
             ((args->type != N_VAR && args->type != N_LOCAL) ||
              (count == 2 && args->next->type != N_VAR && args->next->type != N_LOCAL))))
            return syntax_error(I);
        n = new_node(I, N_BUILTIN, line);
        if (n) {
            n->op = id;
            n->a = args;
            n->nargs = count;
        }
        return n;
    }
    case TK_GETLINE:
        return parse_simple_getline(I);
    default:
        return syntax_error(I);
    }
}

/* A primary with an optional postfix ++ or --. */
static anode *parse_postfix(aw *I)
{
    anode *e = awk_parse_primary(I);
    if (e && is_lvalue(e) && (awk_tok(I) == TK_INCR || awk_tok(I) == TK_DECR)) {
        int line = line_now(I);
        int type = awk_tok(I) == TK_INCR ? N_POSTINC : N_POSTDEC;
        advance(I);
        anode *n = new_node(I, type, line);
        if (n)
            n->a = e;
        return n;
    }
    return e;
}

static anode *parse_unary(aw *I);

/* Exponentiation, right-associative, binding tighter than unary minus. */
static anode *parse_power(aw *I)
{
    anode *base = parse_postfix(I);
    if (base && awk_tok(I) == TK_POW) {
        int line = line_now(I);
        advance(I);
        return node2(I, N_BINARY, '^', base, parse_unary(I), line);
    }
    return base;
}

static anode *parse_unary(aw *I)
{
    int t = awk_tok(I), line = line_now(I);
    if (t != TK_NOT && t != TK_MINUS && t != TK_PLUS)
        return parse_power(I);
    if (++I->pdepth > MAX_PARSE_DEPTH)
        return syntax_error(I);
    advance(I);
    anode *e = parse_unary(I);
    I->pdepth--;
    return node2(I, t == TK_NOT ? N_NOT : t == TK_MINUS ? N_NEG : N_UPLUS, 0, e, NULL, line);
}

static anode *parse_mul(aw *I)
{
    anode *l = parse_unary(I);
    while (l && (awk_tok(I) == TK_STAR || awk_tok(I) == TK_SLASH || awk_tok(I) == TK_PERCENT)) {
        int t = awk_tok(I), line = line_now(I);
        advance(I);
        l = node2(I, N_BINARY, t == TK_STAR ? '*' : t == TK_SLASH ? '/' : '%', l,
                  parse_unary(I), line);
    }
    return l;
}

static anode *parse_additive(aw *I)
{
    anode *l = parse_mul(I);
    while (l && (awk_tok(I) == TK_PLUS || awk_tok(I) == TK_MINUS)) {
        int t = awk_tok(I), line = line_now(I);
        advance(I);
        l = node2(I, N_BINARY, t == TK_PLUS ? '+' : '-', l, parse_mul(I), line);
    }
    return l;
}

static int starts_concat(int t)
{
    return t == TK_NUMBER || t == TK_STRING || t == TK_ERE || t == TK_NAME ||
           t == TK_FUNC_NAME || t == TK_BUILTIN || t == TK_DOLLAR || t == TK_LPAREN ||
           t == TK_INCR || t == TK_DECR || t == TK_NOT || t == TK_MINUS;
}

anode *awk_parse_concat(aw *I)
{
    anode *l = parse_additive(I);
    while (l && starts_concat(awk_tok(I))) {
        if (awk_tok(I) == TK_MINUS || awk_tok(I) == TK_NOT)
            break;
        int line = line_now(I);
        l = node2(I, N_CONCAT, 0, l, parse_additive(I), line);
    }
    while (l && awk_tok(I) == TK_PIPE && tok_at(I, 1) == TK_GETLINE) {
        int line = line_now(I);
        advance(I);
        advance(I);
        anode *n = new_node(I, N_GETLINE, line);
        if (!n)
            return NULL;
        n->op = G_CMD;
        n->b = l;
        if (awk_tok(I) == TK_DOLLAR || awk_tok(I) == TK_NAME) {
            n->a = awk_parse_primary(I);
            if (!n->a)
                return NULL;
        }
        l = n;
    }
    return l;
}

static int is_relop(aw *I, int t)
{
    return t == TK_LT || t == TK_LE || t == TK_NE || t == TK_EQ || t == TK_GE ||
           (t == TK_GT && !I->no_gt);
}

/* Comparisons do not chain: `a < b < c` is a syntax error, as in gawk. */
static anode *parse_compare(aw *I)
{
    anode *l = awk_parse_concat(I);
    int t = awk_tok(I);
    if (!l || !is_relop(I, t))
        return l;
    int line = line_now(I);
    advance(I);
    l = node2(I, N_CMP, t, l, awk_parse_concat(I), line);
    if (l && is_relop(I, awk_tok(I)))
        return syntax_error(I);
    return l;
}

static anode *parse_match(aw *I)
{
    anode *l = parse_compare(I);
    while (l && (awk_tok(I) == TK_MATCH || awk_tok(I) == TK_NOMATCH)) {
        int neg = awk_tok(I) == TK_NOMATCH, line = line_now(I);
        advance(I);
        l = node2(I, N_MATCH, neg, l, parse_compare(I), line);
    }
    return l;
}

/* `sub in array`, and `(i, j) in array` for a grouped list. */
static anode *parse_in(aw *I)
{
    anode *l = parse_match(I);
    while (l && awk_tok(I) == TK_IN) {
        int line = line_now(I);
        advance(I);
        if (awk_tok(I) != TK_NAME)
            return syntax_error(I);
        token *t = &I->toks[I->tpos];
        anode *arr = name_node(I, t->str, t->line);
        advance(I);
        anode *subs = l->type == N_GROUP ? l->a : l;
        l = node2(I, N_IN, 0, subs, arr, line);
    }
    return l;
}

static anode *parse_and(aw *I)
{
    anode *l = parse_in(I);
    while (l && awk_tok(I) == TK_AND) {
        int line = line_now(I);
        advance(I);
        skip_nl(I);
        l = node2(I, N_AND, 0, l, parse_in(I), line);
    }
    return l;
}

static anode *parse_or(aw *I)
{
    anode *l = parse_and(I);
    while (l && awk_tok(I) == TK_OR) {
        int line = line_now(I);
        advance(I);
        skip_nl(I);
        l = node2(I, N_OR, 0, l, parse_and(I), line);
    }
    return l;
}

/* cond ? a : b, right-associative; newlines may follow ? and :. */
static anode *parse_ternary(aw *I)
{
    anode *c = parse_or(I);
    if (!c || awk_tok(I) != TK_QUESTION)
        return c;
    int line = line_now(I);
    advance(I);
    skip_nl(I);
    anode *a = awk_parse_expr(I);
    skip_nl(I);
    if (!a || expect(I, TK_COLON) < 0)
        return NULL;
    skip_nl(I);
    anode *b = awk_parse_expr(I);
    anode *n = node2(I, N_COND, 0, c, a, line);
    if (n && b)
        n->c = b;
    return b ? n : NULL;
}

static int assign_op(int t)
{
    switch (t) {
    case TK_ASSIGN: return '=';
    case TK_ADD_ASSIGN: return '+';
    case TK_SUB_ASSIGN: return '-';
    case TK_MUL_ASSIGN: return '*';
    case TK_DIV_ASSIGN: return '/';
    case TK_MOD_ASSIGN: return '%';
    case TK_POW_ASSIGN: return '^';
    default: return 0;
    }
}

anode *awk_parse_expr(aw *I)
{
    if (++I->pdepth > MAX_PARSE_DEPTH) {
        if (!I->perr)
            sh_err(I->p, "cmd. line:%d: expression nested too deeply", line_now(I));
        I->perr = 1;
        return NULL;
    }
    anode *l = parse_ternary(I);
    int op = assign_op(awk_tok(I));
    if (l && op) {
        if (!is_lvalue(l)) {
            I->pdepth--;
            return syntax_error(I);
        }
        int line = line_now(I);
        advance(I);
        skip_nl(I);
        l = node2(I, N_ASSIGN, op, l, awk_parse_expr(I), line);
    }
    I->pdepth--;
    return l;
}

static anode *parse_stmt(aw *I);

/* Ends a simple statement: ';' or newline, or before '}' or the end. */
static int end_simple(aw *I)
{
    if (awk_tok(I) == TK_SEMI || awk_tok(I) == TK_NEWLINE) {
        advance(I);
        return 0;
    }
    if (awk_tok(I) == TK_RBRACE || awk_tok(I) == TK_EOF)
        return 0;
    syntax_error(I);
    return -1;
}

/* { statements }: a block node listing them. */
static anode *parse_block(aw *I)
{
    int line = line_now(I);
    if (expect(I, TK_LBRACE) < 0)
        return NULL;
    anode *blk = new_node(I, S_BLOCK, line), *tail = NULL;
    if (!blk)
        return NULL;
    for (;;) {
        skip_terms(I);
        if (awk_tok(I) == TK_RBRACE)
            break;
        if (awk_tok(I) == TK_EOF)
            return syntax_error(I);
        anode *s = parse_stmt(I);
        if (!s)
            return NULL;
        if (tail)
            tail->next = s;
        else
            blk->a = s;
        tail = s;
    }
    advance(I);
    return blk;
}

/* print/printf: arguments (a parenthesised list too) and a redirection. */
static anode *parse_print(aw *I)
{
    int line = line_now(I);
    anode *n = new_node(I, awk_tok(I) == TK_PRINT ? S_PRINT : S_PRINTF, line);
    if (!n)
        return NULL;
    advance(I);
    int t = awk_tok(I);
    if (t != TK_SEMI && t != TK_NEWLINE && t != TK_RBRACE && t != TK_GT && t != TK_APPEND &&
        t != TK_PIPE && t != TK_EOF) {
        I->no_gt = 1;
        n->a = parse_expr_list(I, &n->nargs);
        I->no_gt = 0;
        if (!n->a)
            return NULL;
        if (n->nargs == 1 && n->a->type == N_GROUP) {
            n->a = n->a->a;
            n->nargs = 0;
            for (anode *x = n->a; x; x = x->next)
                n->nargs++;
        }
    }
    if (n->type == S_PRINTF && !n->a)
        return syntax_error(I);
    t = awk_tok(I);
    if (t == TK_GT || t == TK_APPEND || t == TK_PIPE) {
        advance(I);
        n->op = t;
        n->b = awk_parse_concat(I);
        if (!n->b)
            return NULL;
    }
    return n;
}

/* A statement that ends with a terminator: print, next, exit, return,
 * delete, or an expression. */
static anode *parse_simple_stmt(aw *I)
{
    int line = line_now(I);
    int t = awk_tok(I);
    anode *n;
    switch (t) {
    case TK_PRINT:
    case TK_PRINTF:
        return parse_print(I);
    case TK_NEXT:
    case TK_NEXTFILE:
    case TK_BREAK:
    case TK_CONTINUE:
        advance(I);
        return new_node(I, t == TK_NEXT       ? S_NEXT
                           : t == TK_NEXTFILE ? S_NEXTFILE
                           : t == TK_BREAK    ? S_BREAK
                                              : S_CONTINUE,
                        line);
    case TK_EXIT:
    case TK_RETURN:
        advance(I);
        n = new_node(I, t == TK_EXIT ? S_EXIT : S_RETURN, line);
        if (n && awk_tok(I) != TK_SEMI && awk_tok(I) != TK_NEWLINE && awk_tok(I) != TK_RBRACE &&
            awk_tok(I) != TK_EOF && !(n->a = awk_parse_expr(I)))
            return NULL;
        if (t == TK_RETURN && I->cur_func < 0) {
            sh_err(I->p, "cmd. line:%d: `return' used outside function context", line);
            I->perr = 1;
            return NULL;
        }
        return n;
    case TK_DELETE:
        advance(I);
        if (awk_tok(I) != TK_NAME)
            return syntax_error(I);
        n = new_node(I, S_DELETE, line);
        if (!n)
            return NULL;
        {
            token *nt = &I->toks[I->tpos];
            n->a = name_node(I, nt->str, nt->line);
        }
        advance(I);
        if (!n->a)
            return NULL;
        if (awk_tok(I) == TK_LBRACKET) {
            advance(I);
            n->b = parse_expr_list(I, NULL);
            if (!n->b || expect(I, TK_RBRACKET) < 0)
                return NULL;
        }
        return n;
    default:
        n = new_node(I, S_EXPR, line);
        if (n && !(n->a = awk_parse_expr(I)))
            return NULL;
        return n;
    }
}

/* The statement after if/while/for (...): newlines may come first. */
static anode *parse_body(aw *I)
{
    skip_nl(I);
    if (awk_tok(I) == TK_SEMI) {
        advance(I);
        return new_node(I, S_BLOCK, line_now(I));
    }
    return parse_stmt(I);
}

static anode *parse_cond(aw *I)
{
    if (expect(I, TK_LPAREN) < 0)
        return NULL;
    anode *c = awk_parse_expr(I);
    if (!c || expect(I, TK_RPAREN) < 0)
        return NULL;
    return c;
}

/* for (init; cond; step) body, or for (var in array) body. */
static anode *parse_for(aw *I, int line)
{
    advance(I);
    if (awk_tok(I) == TK_LPAREN && tok_at(I, 1) == TK_NAME && tok_at(I, 2) == TK_IN &&
        tok_at(I, 3) == TK_NAME && tok_at(I, 4) == TK_RPAREN) {
        anode *n = new_node(I, S_FORIN, line);
        if (!n)
            return NULL;
        advance(I);
        token *v = &I->toks[I->tpos];
        n->a = name_node(I, v->str, v->line);
        advance(I);
        advance(I);
        token *arr = &I->toks[I->tpos];
        n->b = name_node(I, arr->str, arr->line);
        advance(I);
        advance(I);
        if (!n->a || !n->b || !(n->c = parse_body(I)))
            return NULL;
        return n;
    }
    anode *n = new_node(I, S_FOR, line);
    if (!n || expect(I, TK_LPAREN) < 0)
        return NULL;
    if (awk_tok(I) != TK_SEMI && !(n->a = parse_simple_stmt(I)))
        return NULL;
    if (expect(I, TK_SEMI) < 0)
        return NULL;
    skip_nl(I);
    if (awk_tok(I) != TK_SEMI && !(n->b = awk_parse_expr(I)))
        return NULL;
    if (expect(I, TK_SEMI) < 0)
        return NULL;
    skip_nl(I);
    if (awk_tok(I) != TK_RPAREN && !(n->c = parse_simple_stmt(I)))
        return NULL;
    if (expect(I, TK_RPAREN) < 0 || !(n->d = parse_body(I)))
        return NULL;
    return n;
}

/* One statement, compound or simple, with its terminator. */
static anode *parse_stmt(aw *I)
{
    int line = line_now(I);
    anode *n;
    if (++I->pdepth > MAX_PARSE_DEPTH) {
        if (!I->perr)
            sh_err(I->p, "cmd. line:%d: statements nested too deeply", line);
        I->perr = 1;
        return NULL;
    }
    switch (awk_tok(I)) {
    case TK_LBRACE:
        n = parse_block(I);
        break;
    case TK_IF:
        advance(I);
        n = new_node(I, S_IF, line);
        if (!n || !(n->a = parse_cond(I)) || !(n->b = parse_body(I))) {
            n = NULL;
            break;
        }
        {
            int save = I->tpos;
            skip_terms(I);
            if (awk_tok(I) == TK_ELSE) {
                advance(I);
                if (!(n->c = parse_body(I)))
                    n = NULL;
            } else {
                I->tpos = save;
            }
        }
        break;
    case TK_WHILE:
        advance(I);
        n = new_node(I, S_WHILE, line);
        if (!n || !(n->a = parse_cond(I)) || !(n->b = parse_body(I)))
            n = NULL;
        break;
    case TK_DO:
        advance(I);
        n = new_node(I, S_DO, line);
        if (!n || !(n->a = parse_body(I))) {
            n = NULL;
            break;
        }
        skip_terms(I);
        if (expect(I, TK_WHILE) < 0 || !(n->b = parse_cond(I)) || end_simple(I) < 0)
            n = NULL;
        break;
    case TK_FOR:
        n = parse_for(I, line);
        break;
    case TK_SEMI:
        advance(I);
        n = new_node(I, S_BLOCK, line);
        break;
    default:
        n = parse_simple_stmt(I);
        if (n && end_simple(I) < 0)
            n = NULL;
    }
    I->pdepth--;
    return n;
}

static arule *add_rule(aw *I, int kind)
{
    if (awk_grow(I, (void **)&I->rules, &I->caprules, I->nrules + 1, sizeof(arule)) < 0) {
        I->perr = 1;
        return NULL;
    }
    arule *r = &I->rules[I->nrules++];
    memset(r, 0, sizeof(*r));
    r->kind = kind;
    return r;
}

/* function name(params) { body }: the parameters are its locals. */
static int parse_function(aw *I)
{
    advance(I);
    token *t = &I->toks[I->tpos];
    if (t->type != TK_NAME && t->type != TK_FUNC_NAME) {
        syntax_error(I);
        return -1;
    }
    int fi = func_index(I, t->str);
    if (fi < 0)
        return -1;
    afunc *f = &I->funcs[fi];
    if (f->defined) {
        sh_err(I->p, "cmd. line:%d: function `%s' previously defined", t->line, t->str);
        I->perr = 1;
        return -1;
    }
    for (int g = 0; g < I->nglobals; g++)
        if (strcmp(I->gnames[g], t->str) == 0) {
            sh_err(I->p, "cmd. line:%d: function name `%s' previously defined", t->line,
                   t->str);
            I->perr = 1;
            return -1;
        }
    f->defined = 1;
    advance(I);
    if (expect(I, TK_LPAREN) < 0)
        return -1;
    int cap = 0;
    while (awk_tok(I) != TK_RPAREN) {
        skip_nl(I);
        if (awk_tok(I) != TK_NAME) {
            syntax_error(I);
            return -1;
        }
        if (awk_grow(I, (void **)&f->params, &cap, f->nparams + 1, sizeof(char *)) < 0)
            return -1;
        if (!(f->params[f->nparams] = awk_xstrdup(I, I->toks[I->tpos].str)))
            return -1;
        f->nparams++;
        advance(I);
        skip_nl(I);
        if (awk_tok(I) == TK_COMMA)
            advance(I);
        else if (awk_tok(I) != TK_RPAREN) {
            syntax_error(I);
            return -1;
        }
    }
    advance(I);
    skip_nl(I);
    /* The body may grow I->funcs (calls to functions not yet defined): the
     * function is referred to by index from here on. */
    I->cur_func = fi;
    anode *body = parse_block(I);
    I->cur_func = -1;
    I->funcs[fi].body = body;
    return body ? 0 : -1;
}

int awk_parse_program(aw *I)
{
    for (;;) {
        skip_terms(I);
        int t = awk_tok(I);
        if (t == TK_EOF || I->perr)
            break;
        if (t == TK_FUNCTION) {
            if (parse_function(I) < 0)
                return -1;
            continue;
        }
        if (t == TK_BEGIN || t == TK_END) {
            advance(I);
            arule *r = add_rule(I, t == TK_BEGIN ? R_BEGIN : R_END);
            if (!r || !(r->action = parse_block(I)))
                return -1;
            continue;
        }
        arule *r = add_rule(I, R_MAIN);
        if (!r)
            return -1;
        if (t != TK_LBRACE) {
            if (!(r->pat1 = awk_parse_expr(I)))
                return -1;
            if (awk_tok(I) == TK_COMMA) {
                advance(I);
                skip_nl(I);
                if (!(r->pat2 = awk_parse_expr(I)))
                    return -1;
            }
        }
        if (awk_tok(I) == TK_LBRACE) {
            if (!(r->action = parse_block(I)))
                return -1;
        } else if (end_simple(I) < 0) {
            return -1;
        }
    }
    if (I->perr)
        return -1;
    for (int i = 0; i < I->nfuncs; i++)
        if (!I->funcs[i].defined) {
            for (anode *n = I->nodes; n; n = n->chain)
                if (n->type == N_CALL && n->idx == i) {
                    sh_err(I->p, "cmd. line:%d: fatal: function `%s' not defined", n->line,
                           I->funcs[i].name);
                    I->status = 2;
                    return -1;
                }
        }
    return 0;
}
