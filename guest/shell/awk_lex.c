/* awk's lexer: the program text into tokens, with awk's rules for where a
 * newline ends a statement and where / starts a regular expression. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "awk.h"

static const struct {
    const char *name;
    int tok;
} keywords[] = {
    { "BEGIN", TK_BEGIN },     { "END", TK_END },       { "function", TK_FUNCTION },
    { "func", TK_FUNCTION },   { "if", TK_IF },         { "else", TK_ELSE },
    { "while", TK_WHILE },     { "for", TK_FOR },       { "do", TK_DO },
    { "break", TK_BREAK },     { "continue", TK_CONTINUE }, { "next", TK_NEXT },
    { "nextfile", TK_NEXTFILE }, { "exit", TK_EXIT },   { "return", TK_RETURN },
    { "delete", TK_DELETE },   { "getline", TK_GETLINE }, { "print", TK_PRINT },
    { "printf", TK_PRINTF },   { "in", TK_IN },         { NULL, 0 },
};

const abuiltin awk_builtins[] = {
    { "length", 0, 1 }, { "substr", 2, 3 }, { "index", 2, 2 },   { "split", 2, 4 },
    { "sub", 2, 3 },    { "gsub", 2, 3 },   { "match", 2, 3 },   { "tolower", 1, 1 },
    { "toupper", 1, 1 }, { "sprintf", 1, 255 }, { "int", 1, 1 }, { "sqrt", 1, 1 },
    { "exp", 1, 1 },    { "log", 1, 1 },    { "sin", 1, 1 },     { "cos", 1, 1 },
    { "atan2", 2, 2 },  { "rand", 0, 0 },   { "srand", 0, 1 },   { "system", 1, 1 },
    { "close", 1, 2 },  { "fflush", 0, 1 }, { "gensub", 3, 4 },  { "asort", 1, 2 },
    { "asorti", 1, 2 }, { "systime", 0, 0 }, { "strftime", 0, 3 }, { "mktime", 1, 1 },
    { NULL, 0, 0 },
};

/* Punctuation, longest first. */
static const struct {
    const char *text;
    int tok;
} puncts[] = {
    { "**=", TK_POW_ASSIGN }, { "**", TK_POW },     { "+=", TK_ADD_ASSIGN },
    { "-=", TK_SUB_ASSIGN },  { "*=", TK_MUL_ASSIGN }, { "/=", TK_DIV_ASSIGN },
    { "%=", TK_MOD_ASSIGN },  { "^=", TK_POW_ASSIGN }, { "==", TK_EQ },
    { "<=", TK_LE },          { ">=", TK_GE },      { "!=", TK_NE },
    { "++", TK_INCR },        { "--", TK_DECR },    { "&&", TK_AND },
    { "||", TK_OR },          { ">>", TK_APPEND },  { "!~", TK_NOMATCH },
    { "{", TK_LBRACE },       { "}", TK_RBRACE },   { "(", TK_LPAREN },
    { ")", TK_RPAREN },       { "[", TK_LBRACKET }, { "]", TK_RBRACKET },
    { ";", TK_SEMI },         { ",", TK_COMMA },    { "+", TK_PLUS },
    { "-", TK_MINUS },        { "*", TK_STAR },     { "/", TK_SLASH },
    { "%", TK_PERCENT },      { "^", TK_POW },      { "!", TK_NOT },
    { ">", TK_GT },           { "<", TK_LT },       { "|", TK_PIPE },
    { "?", TK_QUESTION },     { ":", TK_COLON },    { "~", TK_MATCH },
    { "$", TK_DOLLAR },       { "=", TK_ASSIGN },   { NULL, 0 },
};

/* ---------------------------------------------------------------- lexer */

/* Decodes the escape after a backslash at s into *c; returns the bytes used. */
static size_t parse_escape(const char *s, char *c)
{
    static const char map[] = "n\nt\tr\rf\fv\va\ab\b\\\\\"\"//";
    if (!*s) {
        *c = '\\';
        return 0;
    }
    for (size_t i = 0; map[i]; i += 2)
        if (map[i] == *s) {
            *c = map[i + 1];
            return 1;
        }
    if (*s >= '0' && *s <= '7') {
        int v = 0;
        size_t i = 0;
        while (i < 3 && s[i] >= '0' && s[i] <= '7')
            v = v * 8 + (s[i++] - '0');
        *c = (char)v;
        return i;
    }
    if (*s == 'x' && isxdigit((unsigned char)s[1])) {
        int v = 0;
        size_t i = 1;
        while (i < 3 && isxdigit((unsigned char)s[i])) {
            int d = s[i++];
            v = v * 16 + (isdigit(d) ? d - '0' : (tolower(d) - 'a' + 10));
        }
        *c = (char)v;
        return i;
    }
    *c = *s;
    return 1;
}

char *awk_unescape(aw *I, const char *s)
{
    sh_buf b = { 0 };
    int r = 0;
    while (*s && r == 0) {
        if (*s == '\\') {
            char c;
            size_t n = parse_escape(s + 1, &c);
            r = sh_buf_addc(&b, c);
            s += 1 + n;
        } else {
            r = sh_buf_addc(&b, *s++);
        }
    }
    if (r || !sh_buf_cstr(&b)) {
        sh_buf_free(&b);
        awk_oom(I);
        return NULL;
    }
    return b.data;
}

static void lex_error(aw *I, int line, const char *msg)
{
    if (!I->perr)
        sh_err(I->p, "cmd. line:%d: %s", line, msg);
    I->perr = 1;
}

static token *add_token(aw *I, int type, int line)
{
    if (awk_grow(I, (void **)&I->toks, &I->captok, I->ntok + 1, sizeof(token)) < 0) {
        I->perr = 1;
        return NULL;
    }
    token *t = &I->toks[I->ntok++];
    t->type = type;
    t->line = line;
    return t;
}

/* Whether a '/' after a token of this type divides (else it starts a regex). */
static int ends_operand(int type)
{
    return type == TK_NAME || type == TK_NUMBER || type == TK_STRING || type == TK_ERE ||
           type == TK_BUILTIN || type == TK_RPAREN || type == TK_RBRACKET || type == TK_INCR ||
           type == TK_DECR || type == TK_DOLLAR;
}

int awk_lex(aw *I, const char *s)
{
    int line = 1;
    while (!I->perr) {
        char c = *s;
        if (c == ' ' || c == '\t' || c == '\r') {
            s++;
            continue;
        }
        if (c == '\\' && (s[1] == '\n' || (s[1] == '\r' && s[2] == '\n'))) {
            s += s[1] == '\n' ? 2 : 3;
            line++;
            continue;
        }
        if (c == '#') {
            while (*s && *s != '\n')
                s++;
            continue;
        }
        if (!c) {
            add_token(I, TK_EOF, line);
            break;
        }
        if (c == '\n') {
            add_token(I, TK_NEWLINE, line++);
            s++;
            continue;
        }
        int prev = I->ntok ? I->toks[I->ntok - 1].type : TK_NEWLINE;
        if (c == '"') {
            sh_buf b = { 0 };
            int r = 0;
            s++;
            while (*s && *s != '"' && *s != '\n' && r == 0) {
                if (*s == '\\' && s[1] == '\n') {
                    s += 2;
                    line++;
                } else if (*s == '\\') {
                    char e;
                    size_t n = parse_escape(s + 1, &e);
                    r = sh_buf_addc(&b, e);
                    s += 1 + n;
                } else {
                    r = sh_buf_addc(&b, *s++);
                }
            }
            if (*s != '"') {
                sh_buf_free(&b);
                lex_error(I, line, "unterminated string");
                break;
            }
            s++;
            token *t = add_token(I, TK_STRING, line);
            if (r || !t || !sh_buf_cstr(&b)) {
                sh_buf_free(&b);
                awk_oom(I);
                I->perr = 1;
                break;
            }
            t->str = b.data;
            continue;
        }
        if (c == '/' && !ends_operand(prev)) {
            const char *start = ++s;
            int in_br = 0;
            while (*s && *s != '\n' && (in_br || *s != '/')) {
                if (*s == '\\' && s[1] && s[1] != '\n')
                    s++;
                else if (*s == '[' && !in_br) {
                    in_br = 1;
                    if (s[1] == '^')
                        s++;
                    if (s[1] == ']')
                        s++;
                } else if (*s == ']')
                    in_br = 0;
                s++;
            }
            if (*s != '/') {
                lex_error(I, line, "unterminated regexp");
                break;
            }
            token *t = add_token(I, TK_ERE, line);
            if (t && !(t->str = awk_xstrndup(I, start, (size_t)(s - start))))
                I->perr = 1;
            s++;
            continue;
        }
        if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)s[1]))) {
            char *end;
            double d;
            if (c == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
                d = (double)strtoull(s + 2, &end, 16);
            } else {
                size_t n = strspn(s, "01234567");
                if (c == '0' && n > 1 && !isdigit((unsigned char)s[n]) && s[n] != '.' &&
                    s[n] != 'e' && s[n] != 'E')
                    d = (double)strtoull(s, &end, 8);
                else
                    d = strtod(s, &end);
            }
            token *t = add_token(I, TK_NUMBER, line);
            if (t)
                t->num = d;
            s = end;
            continue;
        }
        if (isalpha((unsigned char)c) || c == '_') {
            const char *start = s;
            while (isalnum((unsigned char)*s) || *s == '_')
                s++;
            size_t n = (size_t)(s - start);
            int type = TK_NAME, id = 0;
            for (int k = 0; keywords[k].name; k++)
                if (strlen(keywords[k].name) == n && memcmp(keywords[k].name, start, n) == 0)
                    type = keywords[k].tok;
            for (int k = 0; type == TK_NAME && awk_builtins[k].name; k++)
                if (strlen(awk_builtins[k].name) == n &&
                    memcmp(awk_builtins[k].name, start, n) == 0) {
                    type = TK_BUILTIN;
                    id = k;
                }
            if (type == TK_NAME && *s == '(')
                type = TK_FUNC_NAME;
            token *t = add_token(I, type, line);
            if (!t)
                break;
            t->id = id;
            if ((type == TK_NAME || type == TK_FUNC_NAME) && !(t->str = awk_xstrndup(I, start, n)))
                I->perr = 1;
            continue;
        }
        int k;
        for (k = 0; puncts[k].text; k++)
            if (strncmp(s, puncts[k].text, strlen(puncts[k].text)) == 0)
                break;
        if (!puncts[k].text) {
            char msg[64];
            snprintf(msg, sizeof(msg), "invalid char '%c' in expression", c);
            lex_error(I, line, msg);
            break;
        }
        add_token(I, puncts[k].tok, line);
        s += strlen(puncts[k].text);
    }
    return I->perr ? -1 : 0;
}
