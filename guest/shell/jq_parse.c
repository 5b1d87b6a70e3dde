/* jq's parser: recursive descent from the tokens of jq_lex.c into the syntax
 * tree of jq.h, and the check before a run that every name the program calls is
 * defined (by the program, the prelude or a native). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jq.h"

/* How deeply a program may nest (counting both pipelines and terms), so that
 * the recursive descent parser's stack stays bounded. */
#define JQ_MAX_PROGRAM_DEPTH 512

/* A new node, owned by the parser. */
static node *mk(parser *ps, int op, node *a, node *b)
{
    node *n = calloc(1, sizeof *n);
    if (!n) {
        snprintf(ps->err, sizeof ps->err, "out of memory");
        return NULL;
    }
    n->op = op;
    n->a = a;
    n->b = b;
    n->all = ps->all;
    ps->all = n;
    return n;
}

void jq_free_nodes(node *n)
{
    while (n) {
        node *next = n->all;
        jv_free(n->val);
        free(n->name);
        free(n->args);
        for (size_t i = 0; i < n->nparams; i++)
            free(n->params[i]);
        free(n->params);
        free(n);
        n = next;
    }
}

/* Appends item to n's argument list. */
static int add_arg(parser *ps, node *n, node *item)
{
    if (!item)
        return -1;
    node **args = realloc(n->args, (n->nargs + 1) * sizeof *args);
    if (!args) {
        snprintf(ps->err, sizeof ps->err, "out of memory");
        return -1;
    }
    n->args = args;
    n->args[n->nargs++] = item;
    return 0;
}

static char *tok_dup(parser *ps, const token *t, size_t skip)
{
    size_t l = t->end - t->start - skip;
    char *s = malloc(l + 1);
    if (!s) {
        snprintf(ps->err, sizeof ps->err, "out of memory");
        return NULL;
    }
    memcpy(s, ps->s + t->start + skip, l);
    s[l] = 0;
    return s;
}

static node *mk_lit(parser *ps, jv *v)
{
    node *n = v ? mk(ps, N_LIT, NULL, NULL) : NULL;
    if (!n) {
        jv_free(v);
        if (!ps->err[0])
            snprintf(ps->err, sizeof ps->err, "out of memory");
        return NULL;
    }
    n->val = v;
    return n;
}

static node *mk_call(parser *ps, const char *name)
{
    node *n = mk(ps, N_CALL, NULL, NULL);
    if (n && !(n->name = strdup(name))) {
        snprintf(ps->err, sizeof ps->err, "out of memory");
        return NULL;
    }
    return n;
}

static node *parse_postfix(parser *ps);
static node *parse_alt(parser *ps);

/* Parses a string literal (the opening quote is next), with its \(...)
 * interpolations; fmt is the format that applies to them, or NULL. */
static node *parse_string(parser *ps, const char *fmt)
{
    node *str = mk(ps, N_STR, NULL, NULL);
    sh_buf b = { 0 };
    int interpolated = 0;
    if (!str)
        return NULL;
    ps->pos++;
    for (;;) {
        if (ps->pos >= ps->len) {
            sh_buf_free(&b);
            return jq_syntax_error(ps, "unterminated string");
        }
        char c = ps->s[ps->pos++];
        if (c == '"')
            break;
        if (c != '\\') {
            if (sh_buf_addc(&b, c) < 0)
                goto oom;
            continue;
        }
        if (ps->pos >= ps->len)
            continue;
        c = ps->s[ps->pos++];
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        const char *k = strchr(from, c);
        unsigned cp;
        if (c && k) {
            if (sh_buf_addc(&b, to[k - from]) < 0)
                goto oom;
        } else if (c == 'u' && ps->pos + 4 <= ps->len && jq_hex4(ps->s + ps->pos, &cp) == 0) {
            ps->pos += 4;
            unsigned lo;
            if (cp >= 0xd800 && cp < 0xdc00 && ps->pos + 6 <= ps->len &&
                ps->s[ps->pos] == '\\' && ps->s[ps->pos + 1] == 'u' &&
                jq_hex4(ps->s + ps->pos + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
                ps->pos += 6;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            if (jq_utf8_encode(&b, cp) < 0)
                goto oom;
        } else if (c == '(') {
            interpolated = 1;
            if (add_arg(ps, str, mk_lit(ps, jv_strn(b.data ? b.data : "", b.len))) < 0)
                goto fail;
            b.len = 0;
            if (add_arg(ps, str, jq_parse_pipe(ps)) < 0 || jq_expect(ps, ")") < 0)
                goto fail;
        } else {
            sh_buf_free(&b);
            return jq_syntax_error(ps, "invalid escape in string");
        }
    }
    jv *tail = jv_str_utf8(b.data ? b.data : "", b.len);
    sh_buf_free(&b);
    if (!interpolated && !fmt)
        return mk_lit(ps, tail);
    if (add_arg(ps, str, mk_lit(ps, tail)) < 0)
        return NULL;
    if (fmt && !(str->name = strdup(fmt)))
        goto oom;
    return str;
oom:
    snprintf(ps->err, sizeof ps->err, "out of memory");
fail:
    sh_buf_free(&b);
    return NULL;
}

/* Consumes the word t (an identifier as an object key) and returns it as a
 * string literal. */
static node *word_key(parser *ps, const token *t)
{
    ps->pos = t->end;
    char *s = tok_dup(ps, t, 0);
    node *key = s ? mk_lit(ps, jv_str(s)) : NULL;
    free(s);
    return key;
}

/* Parses a destructuring pattern: $name, [p, ...] or {key: p, $name, ...}. */
static node *parse_pattern(parser *ps)
{
    token t = jq_peek(ps);
    if (t.type == TK_VAR) {
        ps->pos = t.end;
        node *n = mk(ps, N_PVAR, NULL, NULL);
        if (n && !(n->name = tok_dup(ps, &t, 1)))
            return NULL;
        return n;
    }
    if (jq_accept(ps, "[")) {
        node *n = mk(ps, N_PARR, NULL, NULL);
        do {
            if (!n || add_arg(ps, n, parse_pattern(ps)) < 0)
                return NULL;
        } while (jq_accept(ps, ","));
        return jq_expect(ps, "]") < 0 ? NULL : n;
    }
    if (jq_accept(ps, "{")) {
        node *n = mk(ps, N_POBJ, NULL, NULL);
        do {
            if (!n)
                return NULL;
            t = jq_peek(ps);
            node *key, *pat = NULL;
            if (t.type == TK_VAR) {
                key = parse_pattern(ps);
                if (jq_accept(ps, ":"))
                    pat = parse_pattern(ps);
            } else {
                if (t.type == TK_IDENT) {
                    key = word_key(ps, &t);
                } else if (t.type == TK_STR) {
                    key = parse_string(ps, NULL);
                } else if (jq_accept(ps, "(")) {
                    key = jq_parse_pipe(ps);
                    if (jq_expect(ps, ")") < 0)
                        return NULL;
                } else {
                    return jq_syntax_error(ps, "bad object pattern");
                }
                if (jq_expect(ps, ":") < 0)
                    return NULL;
                pat = parse_pattern(ps);
                if (!pat)
                    return NULL;
            }
            if (add_arg(ps, n, key) < 0 || add_arg(ps, n, pat ? pat : key) < 0)
                return NULL;
        } while (jq_accept(ps, ","));
        return jq_expect(ps, "}") < 0 ? NULL : n;
    }
    return jq_syntax_error(ps, "expected a pattern");
}

/* Parses a term of an object's value, which jq 1.6 limits to terms, their
 * negations and pipes of those. */
static node *parse_objval(parser *ps)
{
    if (jq_accept(ps, "-")) {
        node *a = parse_objval(ps);
        return a ? mk(ps, N_NEG, a, NULL) : NULL;
    }
    return parse_postfix(ps);
}

/* Parses an object construction (after its '{'). */
static node *parse_object(parser *ps)
{
    node *obj = mk(ps, N_OBJECT, NULL, NULL);
    if (!obj)
        return NULL;
    if (jq_accept(ps, "}"))
        return obj;
    do {
        token t = jq_peek(ps);
        node *key = NULL, *val = NULL;
        if (t.type == TK_VAR) {
            ps->pos = t.end;
            char *s = tok_dup(ps, &t, 1);
            key = s ? mk_lit(ps, jv_str(s)) : NULL;
            val = key ? mk(ps, N_VAR, NULL, NULL) : NULL;
            if (!val)
                return NULL;
            val->name = s;
        } else {
            if (t.type == TK_IDENT || t.type == TK_NUM) {
                if (t.type == TK_NUM)
                    return jq_syntax_error(ps, "object keys must be strings");
                key = word_key(ps, &t);
            } else if (t.type == TK_STR) {
                key = parse_string(ps, NULL);
            } else if (t.type == TK_FORMAT) {
                ps->pos = t.end;
                char *f = tok_dup(ps, &t, 0);
                key = f && jq_peek(ps).type == TK_STR ? parse_string(ps, f) : NULL;
                free(f);
            } else if (jq_accept(ps, "(")) {
                key = jq_parse_pipe(ps);
                if (jq_expect(ps, ")") < 0)
                    return NULL;
            } else {
                return jq_syntax_error(ps, "bad object key");
            }
            if (!key)
                return NULL;
            if (jq_accept(ps, ":")) {
                val = parse_objval(ps);
                while (val && jq_accept(ps, "|")) {
                    node *rhs = parse_objval(ps);
                    val = rhs ? mk(ps, N_PIPE, val, rhs) : NULL;
                }
            } else {
                val = mk(ps, N_INDEX, mk(ps, N_IDENTITY, NULL, NULL), key);
            }
        }
        if (add_arg(ps, obj, key) < 0 || add_arg(ps, obj, val) < 0)
            return NULL;
    } while (jq_accept(ps, ","));
    return jq_expect(ps, "}") < 0 ? NULL : obj;
}

/* Parses the part after "reduce" or "foreach": SOURCE as PATTERN (a; b[; c]). */
static node *parse_fold(parser *ps, int op)
{
    node *n = mk(ps, op, NULL, NULL);
    if (!n || !(n->a = parse_postfix(ps)) || jq_expect(ps, "as") < 0 ||
        !(n->d = parse_pattern(ps)) || jq_expect(ps, "(") < 0 || !(n->b = jq_parse_pipe(ps)) ||
        jq_expect(ps, ";") < 0 || !(n->c = jq_parse_pipe(ps)))
        return NULL;
    if (op == N_FOREACH && jq_accept(ps, ";") && !(n->e = jq_parse_pipe(ps)))
        return NULL;
    return jq_expect(ps, ")") < 0 ? NULL : n;
}

/* Parses if COND then A (elif COND then A)* (else B)? end. */
static node *parse_if(parser *ps)
{
    node *n = mk(ps, N_IF, NULL, NULL);
    if (!n || !(n->a = jq_parse_pipe(ps)) || jq_expect(ps, "then") < 0 ||
        !(n->b = jq_parse_pipe(ps)))
        return NULL;
    if (jq_accept(ps, "elif"))
        n->c = parse_if(ps);
    else if (jq_expect(ps, "else") < 0 || !(n->c = jq_parse_pipe(ps)) || jq_expect(ps, "end") < 0)
        return NULL; /* jq 1.6 requires the else branch */
    return n->c ? n : NULL;
}

/* Parses a term: the simple expressions that postfix operators apply to. */
static node *parse_term(parser *ps)
{
    token t = jq_peek(ps);
    node *n;
    switch (t.type) {
    case TK_NUM: {
        ps->pos = t.end;
        char buf[64];
        size_t l = t.end - t.start;
        if (l >= sizeof buf)
            l = sizeof buf - 1;
        memcpy(buf, ps->s + t.start, l);
        buf[l] = 0;
        return mk_lit(ps, jv_num(strtod(buf, NULL)));
    }
    case TK_STR:
        return parse_string(ps, NULL);
    case TK_FORMAT: {
        ps->pos = t.end;
        char *f = tok_dup(ps, &t, 0);
        if (!f)
            return NULL;
        if (jq_peek(ps).type == TK_STR) {
            n = parse_string(ps, f);
            free(f);
            return n;
        }
        n = mk(ps, N_FORMAT, NULL, NULL);
        if (!n)
            free(f);
        else
            n->name = f;
        return n;
    }
    case TK_FIELD: {
        ps->pos = t.end;
        char *s = tok_dup(ps, &t, 1);
        n = s ? mk(ps, N_INDEX, mk(ps, N_IDENTITY, NULL, NULL), mk_lit(ps, jv_str(s))) : NULL;
        free(s);
        return n && n->a && n->b ? n : NULL;
    }
    case TK_VAR: {
        ps->pos = t.end;
        if (t.end - t.start == 8 && memcmp(ps->s + t.start, "$__loc__", 8) == 0) {
            size_t line = 1;
            for (size_t i = ps->user_start; i < t.start; i++)
                line += ps->s[i] == '\n';
            jv *loc = jv_new(JK_OBJ);
            if (loc && (jq_obj_set(loc, jv_str("file"), jv_str("<top-level>")) < 0 ||
                        jq_obj_set(loc, jv_str("line"), jv_num((double)line)) < 0)) {
                jv_free(loc);
                loc = NULL;
            }
            return mk_lit(ps, loc);
        }
        n = mk(ps, N_VAR, NULL, NULL);
        if (n && !(n->name = tok_dup(ps, &t, 1)))
            return NULL;
        return n;
    }
    case TK_IDENT:
        break;
    case TK_OP:
        if (jq_tok_is(ps, &t, "..")) {
            ps->pos = t.end;
            return mk_call(ps, "recurse");
        }
        if (jq_tok_is(ps, &t, ".")) {
            ps->pos = t.end;
            t = jq_peek(ps);
            if (t.type == TK_STR)
                return mk(ps, N_INDEX, mk(ps, N_IDENTITY, NULL, NULL), parse_string(ps, NULL));
            return mk(ps, N_IDENTITY, NULL, NULL);
        }
        if (jq_accept(ps, "(")) {
            n = jq_parse_pipe(ps);
            return n && jq_expect(ps, ")") == 0 ? n : NULL;
        }
        if (jq_accept(ps, "[")) {
            if (jq_accept(ps, "]"))
                return mk(ps, N_ARRAY, NULL, NULL);
            n = jq_parse_pipe(ps);
            return n && jq_expect(ps, "]") == 0 ? mk(ps, N_ARRAY, n, NULL) : NULL;
        }
        if (jq_accept(ps, "{"))
            return parse_object(ps);
        /* fall through */
    default:
        return jq_syntax_error(ps, "expected a term");
    }
    /* Keywords and function calls. */
    if (jq_accept(ps, "reduce"))
        return parse_fold(ps, N_REDUCE);
    if (jq_accept(ps, "foreach"))
        return parse_fold(ps, N_FOREACH);
    if (jq_accept(ps, "if"))
        return parse_if(ps);
    if (jq_accept(ps, "try")) {
        n = mk(ps, N_TRY, parse_postfix(ps), NULL);
        if (n && n->a && jq_accept(ps, "catch") && !(n->b = parse_postfix(ps)))
            return NULL;
        return n && n->a ? n : NULL;
    }
    static const char *const reserved[] = { "then", "elif", "else", "end", "as", "catch",
                                            "and", "or", "def", "label", "import",
                                            "include", NULL };
    for (int i = 0; reserved[i]; i++)
        if (jq_tok_is(ps, &t, reserved[i]))
            return jq_syntax_error(ps, "expected a term");
    ps->pos = t.end;
    if (jq_tok_is(ps, &t, "null") || jq_tok_is(ps, &t, "true") || jq_tok_is(ps, &t, "false"))
        return mk_lit(ps, jv_new(ps->s[t.start] == 'n' ? JK_NULL
                                 : ps->s[t.start] == 't' ? JK_TRUE : JK_FALSE));
    token v = jq_peek(ps);
    if (jq_tok_is(ps, &t, "break") && v.type == TK_VAR) {
        ps->pos = v.end;
        n = mk(ps, N_BREAK, NULL, NULL);
        if (n && !(n->name = tok_dup(ps, &v, 1)))
            return NULL;
        return n;
    }
    n = mk(ps, N_CALL, NULL, NULL);
    if (!n || !(n->name = tok_dup(ps, &t, 0)))
        return NULL;
    if (jq_accept(ps, "(")) {
        do {
            if (add_arg(ps, n, jq_parse_pipe(ps)) < 0)
                return NULL;
        } while (jq_accept(ps, ";"));
        if (jq_expect(ps, ")") < 0)
            return NULL;
    }
    return n;
}

/* Parses a term followed by its suffixes: .name, ."name", [e], [], [a:b], ?. */
static node *parse_postfix(parser *ps)
{
    if (++ps->depth > JQ_MAX_PROGRAM_DEPTH) {
        ps->depth--;
        snprintf(ps->err, sizeof ps->err, "program too deeply nested");
        return NULL;
    }
    node *n = parse_term(ps);
    while (n) {
        token t = jq_peek(ps);
        if (t.type == TK_FIELD) {
            ps->pos = t.end;
            char *s = tok_dup(ps, &t, 1);
            n = s ? mk(ps, N_INDEX, n, mk_lit(ps, jv_str(s))) : NULL;
            free(s);
            if (n && !n->b)
                n = NULL;
        } else if (jq_tok_is(ps, &t, ".") && ps->pos + 1 < ps->len && ps->s[t.end] == '"') {
            ps->pos = t.end;
            jq_peek(ps);
            n = mk(ps, N_INDEX, n, parse_string(ps, NULL));
            if (n && !n->b)
                n = NULL;
        } else if (jq_tok_is(ps, &t, "[")) {
            ps->pos = t.end;
            if (jq_accept(ps, "]")) {
                n = mk(ps, N_ITER, n, NULL);
                continue;
            }
            node *from = NULL, *to = NULL;
            if (!jq_accept(ps, ":")) {
                if (!(from = jq_parse_pipe(ps)))
                    return NULL;
                if (jq_accept(ps, "]")) {
                    n = mk(ps, N_INDEX, n, from);
                    continue;
                }
                if (jq_expect(ps, ":") < 0)
                    return NULL;
            }
            if (!jq_accept(ps, "]")) {
                if (!(to = jq_parse_pipe(ps)) || jq_expect(ps, "]") < 0)
                    return NULL;
            } else if (!from) {
                return jq_syntax_error(ps, "empty slice");
            }
            n = mk(ps, N_SLICE, n, from);
            if (n)
                n->c = to;
        } else if (jq_tok_is(ps, &t, "?")) {
            ps->pos = t.end;
            if ((n->op == N_INDEX || n->op == N_SLICE || n->op == N_ITER) && !n->opt)
                n->opt = 1;
            else
                n = mk(ps, N_TRY, n, NULL);
        } else {
            break;
        }
    }
    ps->depth--;
    return n;
}

/* Unary minus, and "TERM as PATTERN | BODY". */
static node *parse_unary(parser *ps)
{
    if (jq_accept(ps, "-")) {
        node *a = parse_unary(ps);
        return a ? mk(ps, N_NEG, a, NULL) : NULL;
    }
    node *n = parse_postfix(ps);
    if (n && jq_accept(ps, "as")) {
        node *as = mk(ps, N_AS, n, NULL);
        if (!as || !(as->d = parse_pattern(ps)) || jq_expect(ps, "|") < 0 ||
            !(as->b = jq_parse_pipe(ps)))
            return NULL;
        return as;
    }
    return n;
}

/* The binary operators by precedence level, loosest first; ops ending in '='
 * (assignments) and comparisons do not chain. */
static const char *const level_ops[][8] = {
    { "//", NULL },
    { "=", "|=", "+=", "-=", "*=", "/=", "%=", "//=" },
    { "or", NULL },
    { "and", NULL },
    { "==", "!=", "<", "<=", ">", ">=", NULL },
    { "+", "-", NULL },
    { "*", "/", "%", NULL },
};
#define N_LEVELS (sizeof level_ops / sizeof level_ops[0])

/* The operator codes (node->binop) of the texts above. */
static int binop_code(const char *op)
{
    static const char *const texts[] = { "==", "!=", "<=", ">=", "//=", "|=", NULL };
    static const char codes[] = "enlgA|";
    for (int i = 0; texts[i]; i++)
        if (strcmp(op, texts[i]) == 0)
            return codes[i];
    return op[0];
}

/* Parses binary operators from precedence level lv down. */
static node *parse_level(parser *ps, size_t lv)
{
    if (lv == N_LEVELS)
        return parse_unary(ps);
    node *left = parse_level(ps, lv + 1);
    while (left) {
        const char *op = NULL;
        for (int i = 0; i < 8 && level_ops[lv][i]; i++) {
            if (jq_accept(ps, level_ops[lv][i])) {
                op = level_ops[lv][i];
                break;
            }
        }
        if (!op)
            break;
        if (lv == 0) { /* "//" is right-associative */
            node *right = parse_level(ps, 0);
            return right ? mk(ps, N_ALT, left, right) : NULL;
        }
        node *right = parse_level(ps, lv + 1);
        if (!right)
            return NULL;
        int kind = lv == 1 ? N_ASSIGN : lv == 2 ? N_OR : lv == 3 ? N_AND : N_ARITH;
        left = mk(ps, kind, left, right);
        if (left)
            left->binop = binop_code(op[0] == '=' && op[1] == 0 ? "=" : op);
        if (lv == 1 || lv == 4)
            break;
    }
    return left;
}

static node *parse_alt(parser *ps)
{
    return parse_level(ps, 0);
}

/* Parses a function definition (after "def"): NAME[(PARAMS)]: BODY; REST. */
static node *parse_def(parser *ps, int with_rest)
{
    token t = jq_peek(ps);
    if (t.type != TK_IDENT)
        return jq_syntax_error(ps, "expected a function name");
    ps->pos = t.end;
    node *n = mk(ps, N_DEF, NULL, NULL);
    if (!n || !(n->name = tok_dup(ps, &t, 0)))
        return NULL;
    if (jq_accept(ps, "(")) {
        do {
            t = jq_peek(ps);
            if (t.type != TK_IDENT && t.type != TK_VAR)
                return jq_syntax_error(ps, "expected a parameter");
            ps->pos = t.end;
            char **params = realloc(n->params, (n->nparams + 1) * sizeof *params);
            if (!params)
                return jq_syntax_error(ps, "out of memory");
            n->params = params;
            if (!(n->params[n->nparams] = tok_dup(ps, &t, 0)))
                return NULL;
            n->nparams++;
        } while (jq_accept(ps, ";"));
        if (jq_expect(ps, ")") < 0)
            return NULL;
    }
    if (jq_expect(ps, ":") < 0 || !(n->a = jq_parse_pipe(ps)) || jq_expect(ps, ";") < 0)
        return NULL;
    if (with_rest && !(n->b = jq_parse_pipe(ps)))
        return NULL;
    return n;
}

node *jq_parse_pipe(parser *ps)
{
    if (++ps->depth > JQ_MAX_PROGRAM_DEPTH) {
        ps->depth--;
        snprintf(ps->err, sizeof ps->err, "program too deeply nested");
        return NULL;
    }
    node *n;
    if (jq_accept(ps, "def")) {
        n = parse_def(ps, 1);
    } else if (jq_accept(ps, "label")) {
        token t = jq_peek(ps);
        n = NULL;
        if (t.type != TK_VAR) {
            jq_syntax_error(ps, "expected $name after label");
        } else {
            ps->pos = t.end;
            n = mk(ps, N_LABEL, NULL, NULL);
            if (n && (!(n->name = tok_dup(ps, &t, 1)) || jq_expect(ps, "|") < 0 ||
                      !(n->a = jq_parse_pipe(ps))))
                n = NULL;
        }
    } else {
        n = parse_alt(ps);
        while (n && jq_accept(ps, ","))
            n = mk(ps, N_COMMA, n, parse_alt(ps)), n = n && n->b ? n : NULL;
        if (n && jq_accept(ps, "|"))
            n = mk(ps, N_PIPE, n, jq_parse_pipe(ps)), n = n && n->b ? n : NULL;
    }
    ps->depth--;
    return n;
}

/* ---------------------------------------------------------------- compile check */

static int scope_has(const scope *s, int kind, const char *name, size_t arity)
{
    for (; s; s = s->up)
        if (s->kind == kind && strcmp(s->name, name) == 0 && (kind != E_FUNC || s->arity == arity))
            return 1;
    return 0;
}

/* Adds a pattern's variables to the scope (frames has room for them all) and
 * checks the expressions inside it. */
static const scope *check_pattern(const node *p, const scope *s, scope *frames, size_t *used,
                                  char *err, size_t errsize)
{
    if (p->op == N_PVAR) {
        scope *f = &frames[(*used)++];
        *f = (scope){ s, E_VAR, p->name, 0 };
        return f;
    }
    const scope *cur = s;
    for (size_t i = 0; i < p->nargs && cur; i++) {
        const node *a = p->args[i];
        if (p->op == N_POBJ && i % 2 == 1 && a == p->args[i - 1])
            continue;
        if (p->op == N_POBJ && i % 2 == 0 && a->op != N_PVAR) {
            if (jq_check(a, s, err, errsize) < 0)
                return NULL;
            continue;
        }
        cur = check_pattern(a, cur, frames, used, err, errsize);
    }
    return cur;
}

/* Checks a node with a pattern's variables bound, for the given bodies. */
static int check_bound(const node *pat, const node *b1, const node *b2, const scope *s,
                       char *err, size_t errsize)
{
    size_t nv = jq_pattern_vars(pat), used = 0;
    scope *frames = calloc(nv ? nv : 1, sizeof *frames);
    if (!frames) {
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    const scope *inner = check_pattern(pat, s, frames, &used, err, errsize);
    int r = inner ? 0 : -1;
    if (r == 0 && b1)
        r = jq_check(b1, inner, err, errsize);
    if (r == 0 && b2)
        r = jq_check(b2, inner, err, errsize);
    free(frames);
    return r;
}

int jq_check(const node *n, const scope *s, char *err, size_t errsize)
{
    if (!n)
        return 0;
    switch (n->op) {
    case N_DEF: {
        scope f = { s, E_FUNC, n->name, n->nparams };
        scope *params = calloc(2 * n->nparams + 1, sizeof *params);
        if (!params) {
            snprintf(err, errsize, "out of memory");
            return -1;
        }
        const scope *top = &f;
        for (size_t i = 0; i < n->nparams; i++) {
            const char *pn = n->params[i];
            int dollar = pn[0] == '$';
            params[2 * i] = (scope){ top, E_FUNC, pn + dollar, 0 };
            top = &params[2 * i];
            if (dollar) {
                params[2 * i + 1] = (scope){ top, E_VAR, pn + 1, 0 };
                top = &params[2 * i + 1];
            }
        }
        int r = jq_check(n->a, top, err, errsize);
        free(params);
        return r < 0 ? r : jq_check(n->b, &f, err, errsize);
    }
    case N_CALL:
        if (!scope_has(s, E_FUNC, n->name, n->nargs) && !jq_find_native(n->name, n->nargs)) {
            snprintf(err, errsize, "%s/%zu is not defined", n->name, n->nargs);
            return -1;
        }
        break;
    case N_VAR:
        if (!scope_has(s, E_VAR, n->name, 0)) {
            snprintf(err, errsize, "$%s is not defined", n->name);
            return -1;
        }
        return 0;
    case N_AS:
        return jq_check(n->a, s, err, errsize) < 0 ? -1 : check_bound(n->d, n->b, NULL, s, err, errsize);
    case N_REDUCE:
    case N_FOREACH:
        if (jq_check(n->a, s, err, errsize) < 0 || jq_check(n->b, s, err, errsize) < 0)
            return -1;
        return check_bound(n->d, n->c, n->e, s, err, errsize);
    case N_LABEL: {
        scope l = { s, E_LABEL, n->name, 0 };
        return jq_check(n->a, &l, err, errsize);
    }
    case N_BREAK:
        if (!scope_has(s, E_LABEL, n->name, 0)) {
            snprintf(err, errsize, "$*label-%s is not defined", n->name);
            return -1;
        }
        return 0;
    default:
        break;
    }
    const node *kids[] = { n->a, n->b, n->c, n->d, n->e };
    for (size_t i = 0; i < 5; i++)
        if (jq_check(kids[i], s, err, errsize) < 0)
            return -1;
    for (size_t i = 0; i < n->nargs; i++)
        if (jq_check(n->args[i], s, err, errsize) < 0)
            return -1;
    return 0;
}
