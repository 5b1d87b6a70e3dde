/* jq's lexer: the tokens of the filter language, read on demand at the parser's
 * position, and the parser's syntax errors. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "jq.h"

static const char *const multi_ops[] = { "?//", "|=", "+=", "-=", "*=", "/=", "%=", "//=",
                                         "==", "!=", "<=", ">=", "//", "..", NULL };

static int ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

token jq_peek(parser *ps)
{
    const char *s = ps->s;
    size_t i = ps->pos, n = ps->len;
    for (;;) {
        while (i < n && isspace((unsigned char)s[i]))
            i++;
        if (i < n && s[i] == '#') {
            while (i < n && s[i] != '\n')
                i++;
            continue;
        }
        break;
    }
    ps->pos = i;
    token t = { TK_EOF, i, i };
    if (i >= n)
        return t;
    char c = s[i];
    size_t j = i + 1;
    if (ident_start(c)) {
        while (j < n && (ident_char(s[j]) || (s[j] == ':' && j + 1 < n && s[j + 1] == ':')))
            j += s[j] == ':' ? 2 : 1;
        t.type = TK_IDENT;
    } else if ((c == '$' || c == '@') && j < n && ident_start(s[j])) {
        while (j < n && ident_char(s[j]))
            j++;
        t.type = c == '$' ? TK_VAR : TK_FORMAT;
    } else if (c == '.' && j < n && ident_start(s[j])) {
        while (j < n && ident_char(s[j]))
            j++;
        t.type = TK_FIELD;
    } else if (isdigit((unsigned char)c) || (c == '.' && j < n && isdigit((unsigned char)s[j]))) {
        while (j < n && (isdigit((unsigned char)s[j]) || s[j] == '.'))
            j++;
        if (j < n && (s[j] == 'e' || s[j] == 'E')) {
            size_t k = j + 1;
            if (k < n && (s[k] == '+' || s[k] == '-'))
                k++;
            if (k < n && isdigit((unsigned char)s[k])) {
                j = k;
                while (j < n && isdigit((unsigned char)s[j]))
                    j++;
            }
        }
        t.type = TK_NUM;
    } else if (c == '"') {
        t.type = TK_STR;
    } else {
        t.type = strchr(".[]{}()|,:;=<>+-*/%?$", c) ? TK_OP : TK_BAD;
        for (int k = 0; multi_ops[k]; k++) {
            size_t l = strlen(multi_ops[k]);
            if (i + l <= n && memcmp(s + i, multi_ops[k], l) == 0) {
                j = i + l;
                t.type = TK_OP;
                break;
            }
        }
    }
    t.end = j;
    return t;
}

int jq_tok_is(parser *ps, const token *t, const char *text)
{
    size_t l = strlen(text);
    return (t->type == TK_OP || t->type == TK_IDENT) && t->end - t->start == l &&
           memcmp(ps->s + t->start, text, l) == 0;
}

int jq_accept(parser *ps, const char *text)
{
    token t = jq_peek(ps);
    if (!jq_tok_is(ps, &t, text))
        return 0;
    ps->pos = t.end;
    return 1;
}

node *jq_syntax_error(parser *ps, const char *what)
{
    if (!ps->err[0]) {
        token t = jq_peek(ps);
        if (t.type == TK_EOF)
            snprintf(ps->err, sizeof ps->err, "syntax error, unexpected $end (%s)", what);
        else
            snprintf(ps->err, sizeof ps->err, "syntax error, unexpected '%.*s' (%s)",
                     (int)(t.end - t.start > 20 ? 20 : t.end - t.start), ps->s + t.start, what);
    }
    return NULL;
}

int jq_expect(parser *ps, const char *text)
{
    if (jq_accept(ps, text))
        return 0;
    char what[40];
    snprintf(what, sizeof what, "expected '%s'", text);
    jq_syntax_error(ps, what);
    return -1;
}
