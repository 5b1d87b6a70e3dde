/* The shell's parser: POSIX sh grammar (with a few bash forms agents write:
 * `function f`, `&>`, `<<<`, `(( ))`) into the tree of ast.h, and the scanners
 * of $( ), ${ } and ` ` that the expander shares. Words keep their quotes; they
 * are expanded when run. Uses only ast.c and io.c's buffers. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "sh.h"

/* Deep nesting ((((( or if if if ...) is refused before it exhausts the stack. */
#define MAX_DEPTH 200

enum {
    T_EOF, T_WORD, T_NEWLINE, T_SEMI, T_AMP, T_AND, T_OR, T_PIPE, T_LPAREN, T_RPAREN,
    T_DSEMI, T_SEMIAMP, T_REDIR,
};

typedef struct token {
    int type;
    char *text;   /* T_WORD */
    int redir;    /* T_REDIR: R_* */
    int fd;       /* T_REDIR: the fd written before it, or -1 */
    int strip;    /* T_REDIR <<-: strip leading tabs */
    int line;
} token;

typedef struct parser {
    const char *src;
    size_t pos;
    int line;
    token tok;        /* the lookahead */
    int has_tok;
    char *error;      /* the first syntax error */
    int nomem;
    int depth;
    /* Here-documents whose bodies start after the next newline. */
    sh_redir *pending[16];
    int strip[16];
    int n_pending;
} parser;

/* Records the first syntax error: fmt with one %s, arg (cut to 60 bytes). */
static void fail(parser *p, const char *fmt, const char *arg)
{
    if (p->error || p->nomem)
        return;
    char cut[64 + 4];
    if (strlen(arg) > 60) {
        memcpy(cut, arg, 60);
        memcpy(cut + 60, "...", 4);
        arg = cut;
    }
    sh_buf b = { 0 };
    if (sh_buf_addf(&b, "line %d: ", p->line) < 0 || sh_buf_addf(&b, fmt, arg) < 0) {
        sh_buf_free(&b);
        p->nomem = 1;
        return;
    }
    p->error = sh_buf_take(&b, NULL);
    if (!p->error)
        p->nomem = 1;
}

static int failed(parser *p)
{
    return p->error != NULL || p->nomem;
}

static void *zalloc(parser *p, size_t n)
{
    void *v = calloc(1, n);
    if (!v)
        p->nomem = 1;
    return v;
}

static char *dup_range(parser *p, const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d) {
        p->nomem = 1;
        return NULL;
    }
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* Quotes and substitutions nested deeper than this are refused by the scanner
 * (its recursion is bounded by it). */
#define MAX_SCAN_DEPTH 200

static long scan_close(const char *s, char open, char close, int depth);
static long scan_backquote(const char *s, int depth);

/* Skips a quoted or nested part starting at s[i]; returns the index after it,
 * or -1 when it is not closed (or nested too deeply). Used by sh_scan_close and
 * the word scanner. */
static long skip_part_at(const char *s, long i, int depth)
{
    if (depth > MAX_SCAN_DEPTH)
        return -1;
    char c = s[i];
    if (c == '\\')
        return s[i + 1] ? i + 2 : i + 1;
    if (c == '\'') {
        const char *e = strchr(s + i + 1, '\'');
        return e ? e - s + 1 : -1;
    }
    if (c == '"') {
        for (long j = i + 1; s[j]; j++) {
            if (s[j] == '\\' && s[j + 1]) {
                j++;
            } else if (s[j] == '"') {
                return j + 1;
            } else if (s[j] == '$' || s[j] == '`') {
                long k = skip_part_at(s, j, depth + 1);
                if (k < 0)
                    return -1;
                j = k - 1;
            }
        }
        return -1;
    }
    if (c == '`') {
        long k = scan_backquote(s + i + 1, depth + 1);
        return k < 0 ? -1 : i + 1 + k + 1;
    }
    if (c == '$' && s[i + 1] == '(') {
        long k = scan_close(s + i + 2, '(', ')', depth + 1);
        return k < 0 ? -1 : i + 2 + k + 1;
    }
    if (c == '$' && s[i + 1] == '{') {
        long k = scan_close(s + i + 2, '{', '}', depth + 1);
        return k < 0 ? -1 : i + 2 + k + 1;
    }
    return i + 1;
}

static long skip_part(const char *s, long i)
{
    return skip_part_at(s, i, 0);
}

long sh_scan_close(const char *s, char open, char close)
{
    return scan_close(s, open, close, 0);
}

static long scan_close(const char *s, char open, char close, int depth)
{
    int level = 1;
    if (depth > MAX_SCAN_DEPTH)
        return -1;
    for (long i = 0; s[i];) {
        char c = s[i];
        if (c == open) {
            level++;
            i++;
        } else if (c == close) {
            if (--level == 0)
                return i;
            i++;
        } else if (c == '\\' || c == '\'' || c == '"' || c == '`' || c == '$') {
            long k = skip_part_at(s, i, depth);
            if (k < 0)
                return -1;
            i = k;
        } else if (c == '#' && open == '(' && (i == 0 || isspace((unsigned char)s[i - 1]))) {
            while (s[i] && s[i] != '\n')
                i++;
        } else {
            i++;
        }
    }
    return -1;
}

long sh_scan_backquote(const char *s)
{
    return scan_backquote(s, 0);
}

static long scan_backquote(const char *s, int depth)
{
    (void)depth; /* backquotes do not nest without escapes */
    for (long i = 0; s[i]; i++) {
        if (s[i] == '\\' && s[i + 1])
            i++;
        else if (s[i] == '`')
            return i;
    }
    return -1;
}

static int is_meta(char c)
{
    return c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' ||
           c == '<' || c == '>' || c == '(' || c == ')';
}

/* Reads the bodies of the pending here-documents, which start at p->pos (just
 * after a newline). */
static void read_heredocs(parser *p)
{
    for (int h = 0; h < p->n_pending && !failed(p); h++) {
        sh_redir *r = p->pending[h];
        char *delim = r->target;
        sh_buf body = { 0 };
        int found = 0;
        while (p->src[p->pos]) {
            const char *line = p->src + p->pos;
            const char *nl = strchr(line, '\n');
            size_t n = nl ? (size_t)(nl - line) : strlen(line);
            p->pos += n + (nl ? 1 : 0);
            p->line++;
            const char *l = line;
            size_t ln = n;
            if (p->strip[h])
                while (ln > 0 && *l == '\t') {
                    l++;
                    ln--;
                }
            if (ln == strlen(delim) && memcmp(l, delim, ln) == 0) {
                found = 1;
                break;
            }
            if (sh_buf_add(&body, l, ln) < 0 || sh_buf_addc(&body, '\n') < 0)
                p->nomem = 1;
        }
        if (!found && !failed(p))
            fail(p, "here-document delimited by end of input (wanted `%s')", delim);
        char *text = sh_buf_take(&body, NULL);
        if (!text)
            p->nomem = 1;
        free(r->target);
        r->target = text;
    }
    p->n_pending = 0;
}

/* Scans the next token into p->tok. */
static void scan(parser *p)
{
    token *t = &p->tok;
    memset(t, 0, sizeof(*t));
    t->fd = -1;
    const char *s = p->src;
    for (;;) {
        while (s[p->pos] == ' ' || s[p->pos] == '\t' || s[p->pos] == '\r')
            p->pos++;
        if (s[p->pos] == '\\' && s[p->pos + 1] == '\n') {
            p->pos += 2;
            p->line++;
            continue;
        }
        if (s[p->pos] == '#') {
            while (s[p->pos] && s[p->pos] != '\n')
                p->pos++;
        }
        break;
    }
    t->line = p->line;
    size_t i = p->pos;
    char c = s[i];
    if (c == '\0') {
        t->type = T_EOF;
        return;
    }
    if (c == '\n') {
        p->pos++;
        p->line++;
        t->type = T_NEWLINE;
        read_heredocs(p);
        return;
    }
    /* An fd number right before a redirection: 2> 2>> 2>&1 */
    size_t j = i;
    while (isdigit((unsigned char)s[j]))
        j++;
    if (j > i && j - i < 3 && (s[j] == '<' || s[j] == '>')) {
        t->fd = atoi(s + i);
        i = j;
        c = s[i];
    }
    struct { const char *op; int type, redir; } ops[] = {
        { "&>>", T_REDIR, R_BOTHAPP }, { "&>", T_REDIR, R_BOTH }, { "<<<", T_REDIR, R_HERESTR },
        { "<<-", T_REDIR, R_HEREDOC }, { "<<", T_REDIR, R_HEREDOC }, { ">>", T_REDIR, R_APPEND },
        { ">&", T_REDIR, R_DUP }, { "<&", T_REDIR, R_DUP }, { ">|", T_REDIR, R_OUT },
        { "<>", T_REDIR, R_RW }, { "<", T_REDIR, R_IN }, { ">", T_REDIR, R_OUT },
        { "&&", T_AND, 0 }, { "||", T_OR, 0 }, { ";;", T_DSEMI, 0 }, { ";&", T_SEMIAMP, 0 },
        { ";", T_SEMI, 0 }, { "&", T_AMP, 0 }, { "|", T_PIPE, 0 }, { "(", T_LPAREN, 0 },
        { ")", T_RPAREN, 0 },
    };
    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
        size_t n = strlen(ops[k].op);
        if (strncmp(s + i, ops[k].op, n) != 0)
            continue;
        if (t->fd >= 0 && ops[k].type != T_REDIR)
            break;
        if (t->fd >= 0 && (ops[k].redir == R_BOTH || ops[k].redir == R_BOTHAPP))
            break;
        t->type = ops[k].type;
        t->redir = ops[k].redir;
        t->strip = strcmp(ops[k].op, "<<-") == 0;
        if (t->type == T_REDIR && t->fd < 0)
            t->fd = (ops[k].op[0] == '<') ? 0 : 1;
        if (ops[k].redir == R_DUP && ops[k].op[0] == '<' && t->fd < 0)
            t->fd = 0;
        p->pos = i + n;
        return;
    }
    /* A word: up to the next unquoted metacharacter. */
    i = p->pos;
    while (!is_meta(s[i])) {
        char ch = s[i];
        if (ch == '\\' || ch == '\'' || ch == '"' || ch == '`' ||
            (ch == '$' && (s[i + 1] == '(' || s[i + 1] == '{'))) {
            long k = skip_part(s, (long)i);
            if (k < 0) {
                fail(p, "unclosed (or nested too deeply): %s",
                     ch == '\'' ? "'" : ch == '"' ? "\"" : ch == '`' ? "`" : s[i + 1] == '(' ? "$(" : "${");
                t->type = T_EOF;
                return;
            }
            for (size_t q = i; q < (size_t)k; q++)
                if (s[q] == '\n')
                    p->line++;
            i = (size_t)k;
        } else {
            i++;
        }
    }
    t->type = T_WORD;
    t->text = dup_range(p, s + p->pos, i - p->pos);
    p->pos = i;
    if (!t->text)
        t->type = T_EOF;
}

static token *peek(parser *p)
{
    if (!p->has_tok) {
        scan(p);
        p->has_tok = 1;
    }
    return &p->tok;
}

/* Takes the lookahead token (the caller owns its text). */
static token next(parser *p)
{
    peek(p);
    p->has_tok = 0;
    return p->tok;
}

static int peek_word(parser *p, const char *w)
{
    token *t = peek(p);
    return t->type == T_WORD && strcmp(t->text, w) == 0;
}

static void skip(parser *p)
{
    token t = next(p);
    free(t.text);
}

static void linebreak(parser *p)
{
    while (!failed(p) && peek(p)->type == T_NEWLINE)
        skip(p);
}

static int expect_word(parser *p, const char *w)
{
    if (failed(p))
        return 0;
    if (!peek_word(p, w)) {
        token *t = peek(p);
        fail(p, t->type == T_EOF ? "unexpected end of input (expecting `%s')"
                                 : "syntax error: expecting `%s'", w);
        return 0;
    }
    skip(p);
    return 1;
}

static sh_node *new_node(parser *p, int type)
{
    sh_node *n = zalloc(p, sizeof(*n));
    if (n) {
        n->type = type;
        n->line = p->line;
    }
    return n;
}

/* NAME=... (or NAME+=...) */
static int is_assignment(const char *w)
{
    const char *eq = strchr(w, '=');
    if (!eq)
        return 0;
    size_t n = (size_t)(eq - w);
    if (n > 0 && w[n - 1] == '+')
        n--;
    return sh_is_name(w, n);
}

static void append_word(parser *p, sh_word ***tail, char *text)
{
    sh_word *w = zalloc(p, sizeof(*w));
    if (!w) {
        free(text);
        return;
    }
    w->text = text;
    **tail = w;
    *tail = &w->next;
}

/* Parses one redirection (the T_REDIR token is the lookahead). */
static sh_redir *parse_redir(parser *p)
{
    token op = next(p);
    token t = next(p);
    if (t.type != T_WORD) {
        free(t.text);
        fail(p, "syntax error: a redirection needs a %s", "word after it");
        return NULL;
    }
    sh_redir *r = zalloc(p, sizeof(*r));
    if (!r) {
        free(t.text);
        return NULL;
    }
    r->kind = op.redir;
    r->fd = op.fd;
    r->target = t.text;
    if (r->kind == R_HEREDOC) {
        /* The delimiter, quotes removed; a quoted one means no expansion. */
        char *d = r->target, *o = d;
        for (char *s = d; *s; s++) {
            if (*s == '\'' || *s == '"') {
                r->quoted = 1;
                continue;
            }
            if (*s == '\\' && s[1]) {
                r->quoted = 1;
                s++;
            }
            *o++ = *s;
        }
        *o = '\0';
        if (p->n_pending == 16) {
            fail(p, "too many here-documents on one line%s", "");
        } else {
            p->strip[p->n_pending] = op.strip;
            p->pending[p->n_pending++] = r;
        }
    }
    return r;
}

static sh_node *parse_list(parser *p);
static sh_node *parse_command(parser *p);

/* Redirections after a compound command. */
static void parse_trailing_redirs(parser *p, sh_node *n)
{
    sh_redir **tail = &n->redirs;
    while (*tail)
        tail = &(*tail)->next;
    while (!failed(p) && peek(p)->type == T_REDIR) {
        sh_redir *r = parse_redir(p);
        if (r) {
            *tail = r;
            tail = &r->next;
        }
    }
}

/* A simple command; first is its first word when the caller took it already. */
static sh_node *parse_simple(parser *p, char *first)
{
    sh_node *n = new_node(p, N_CMD);
    if (!n) {
        free(first);
        return NULL;
    }
    sh_word **wtail = &n->words, **atail = &n->assigns;
    if (first)
        append_word(p, &wtail, first);
    sh_redir **rtail = &n->redirs;
    for (;;) {
        if (failed(p))
            break;
        token *t = peek(p);
        if (t->type == T_REDIR) {
            sh_redir *r = parse_redir(p);
            if (r) {
                *rtail = r;
                rtail = &r->next;
            }
            continue;
        }
        if (t->type != T_WORD)
            break;
        token w = next(p);
        if (!n->words && is_assignment(w.text))
            append_word(p, &atail, w.text);
        else
            append_word(p, &wtail, w.text);
    }
    if (!failed(p) && !n->words && !n->assigns && !n->redirs) {
        token *t = peek(p);
        fail(p, t->type == T_EOF ? "unexpected end of input%s" : "syntax error near unexpected token%s",
             t->type == T_EOF ? "" : " (a command was expected)");
    }
    return n;
}

/* The body of a compound command, up to (not including) the word `end`. */
static sh_node *parse_body(parser *p, const char *end)
{
    sh_node *n = parse_list(p);
    if (!n && !failed(p))
        fail(p, peek(p)->type == T_EOF ? "unexpected end of input (expecting `%s')"
                                       : "syntax error: empty command list before `%s'", end);
    return n;
}

static sh_node *parse_if(parser *p)
{
    sh_node *n = new_node(p, N_IF);
    if (!n)
        return NULL;
    skip(p); /* if or elif */
    n->a = parse_body(p, "then");
    expect_word(p, "then");
    n->b = parse_body(p, "fi");
    if (failed(p))
        return n;
    if (peek_word(p, "elif")) {
        n->c = parse_if(p);
        return n; /* the inner if consumed `fi` */
    }
    if (peek_word(p, "else")) {
        skip(p);
        n->c = parse_body(p, "fi");
    }
    expect_word(p, "fi");
    return n;
}

static sh_node *parse_loop(parser *p, int type)
{
    sh_node *n = new_node(p, type);
    if (!n)
        return NULL;
    skip(p);
    n->a = parse_body(p, "do");
    expect_word(p, "do");
    n->b = parse_body(p, "done");
    expect_word(p, "done");
    return n;
}

static sh_node *parse_for(parser *p)
{
    sh_node *n = new_node(p, N_FOR);
    if (!n)
        return NULL;
    skip(p);
    token name = next(p);
    if (name.type != T_WORD || !sh_is_name(name.text, strlen(name.text))) {
        free(name.text);
        fail(p, "syntax error: `for' needs a variable name%s", "");
        return n;
    }
    n->name = name.text;
    linebreak(p);
    if (peek_word(p, "in")) {
        skip(p);
        n->has_list = 1;
        sh_word **tail = &n->words;
        while (!failed(p) && peek(p)->type == T_WORD) {
            token w = next(p);
            append_word(p, &tail, w.text);
        }
        if (!failed(p) && peek(p)->type != T_SEMI && peek(p)->type != T_NEWLINE)
            fail(p, "syntax error in `for %s': expecting `;' or a newline", n->name);
        if (!failed(p))
            skip(p);
    } else if (peek(p)->type == T_SEMI) {
        skip(p);
    }
    linebreak(p);
    expect_word(p, "do");
    n->a = parse_body(p, "done");
    expect_word(p, "done");
    return n;
}

static sh_node *parse_case(parser *p)
{
    sh_node *n = new_node(p, N_CASE);
    if (!n)
        return NULL;
    skip(p);
    token w = next(p);
    if (w.type != T_WORD) {
        free(w.text);
        fail(p, "syntax error: `case' needs a word%s", "");
        return n;
    }
    sh_word **wt = &n->words;
    append_word(p, &wt, w.text);
    linebreak(p);
    expect_word(p, "in");
    linebreak(p);
    sh_case_item **tail = &n->items;
    while (!failed(p) && !peek_word(p, "esac")) {
        sh_case_item *it = zalloc(p, sizeof(*it));
        if (!it)
            break;
        *tail = it;
        tail = &it->next;
        if (peek(p)->type == T_LPAREN)
            skip(p);
        sh_word **pt = &it->patterns;
        for (;;) {
            token pat = next(p);
            if (pat.type != T_WORD) {
                free(pat.text);
                fail(p, "syntax error in `case': a pattern was expected%s", "");
                return n;
            }
            append_word(p, &pt, pat.text);
            if (peek(p)->type == T_PIPE) {
                skip(p);
                continue;
            }
            break;
        }
        if (peek(p)->type != T_RPAREN) {
            fail(p, "syntax error in `case': expecting `)'%s", "");
            return n;
        }
        skip(p);
        linebreak(p);
        if (peek(p)->type != T_DSEMI && peek(p)->type != T_SEMIAMP && !peek_word(p, "esac"))
            it->body = parse_list(p);
        if (failed(p))
            return n;
        int t = peek(p)->type;
        if (t == T_DSEMI || t == T_SEMIAMP) {
            it->fallthrough = t == T_SEMIAMP;
            skip(p);
            linebreak(p);
        } else if (!peek_word(p, "esac")) {
            fail(p, "syntax error in `case': expecting `;;' or `esac'%s", "");
        }
    }
    expect_word(p, "esac");
    return n;
}

/* name () body, or `function name [()] body` */
static sh_node *parse_function(parser *p, char *name)
{
    sh_node *n = new_node(p, N_FUNC);
    if (!n) {
        free(name);
        return NULL;
    }
    n->name = name;
    linebreak(p);
    n->a = parse_command(p);
    if (n->a && n->a->type == N_CMD && !failed(p))
        fail(p, "syntax error: the body of function `%s' must be a compound command", name);
    return n;
}

static sh_node *parse_command(parser *p)
{
    if (failed(p))
        return NULL;
    if (++p->depth > MAX_DEPTH) {
        fail(p, "commands nested too deeply%s", "");
        return NULL;
    }
    sh_node *n = NULL;
    token *t = peek(p);
    if (t->type == T_LPAREN) {
        skip(p);
        if (p->src[p->pos] == '(') {
            /* (( arithmetic )): two parentheses together; "( (" is two subshells. */
            p->pos++;
            long k = sh_scan_close(p->src + p->pos, '(', ')');
            if (k < 0 || p->src[p->pos + (size_t)k + 1] != ')') {
                fail(p, "syntax error: unclosed `((%s'", "");
            } else {
                n = new_node(p, N_ARITH);
                if (n)
                    n->name = dup_range(p, p->src + p->pos, (size_t)k);
                p->pos += (size_t)k + 2;
            }
        } else {
            n = new_node(p, N_SUBSHELL);
            if (n) {
                n->a = parse_body(p, ")");
                if (!failed(p) && peek(p)->type != T_RPAREN)
                    fail(p, "syntax error: expecting `)'%s", "");
                else if (!failed(p))
                    skip(p);
            }
        }
    } else if (t->type == T_WORD && strcmp(t->text, "{") == 0) {
        skip(p);
        n = new_node(p, N_GROUP);
        if (n) {
            n->a = parse_body(p, "}");
            expect_word(p, "}");
        }
    } else if (t->type == T_WORD && strcmp(t->text, "if") == 0) {
        n = parse_if(p);
    } else if (t->type == T_WORD && strcmp(t->text, "while") == 0) {
        n = parse_loop(p, N_WHILE);
    } else if (t->type == T_WORD && strcmp(t->text, "until") == 0) {
        n = parse_loop(p, N_UNTIL);
    } else if (t->type == T_WORD && strcmp(t->text, "for") == 0) {
        n = parse_for(p);
    } else if (t->type == T_WORD && strcmp(t->text, "case") == 0) {
        n = parse_case(p);
    } else if (t->type == T_WORD && strcmp(t->text, "function") == 0) {
        skip(p);
        token name = next(p);
        if (name.type != T_WORD) {
            free(name.text);
            fail(p, "syntax error: `function' needs a name%s", "");
        } else {
            if (peek(p)->type == T_LPAREN) {
                skip(p);
                if (peek(p)->type != T_RPAREN)
                    fail(p, "syntax error: expecting `)' after `%s ('", name.text);
                else
                    skip(p);
            }
            n = parse_function(p, name.text);
        }
        p->depth--;
        return n;
    } else if (t->type == T_WORD && (strcmp(t->text, "then") == 0 || strcmp(t->text, "else") == 0 ||
                                     strcmp(t->text, "elif") == 0 || strcmp(t->text, "fi") == 0 ||
                                     strcmp(t->text, "do") == 0 || strcmp(t->text, "done") == 0 ||
                                     strcmp(t->text, "esac") == 0 || strcmp(t->text, "}") == 0 ||
                                     strcmp(t->text, "in") == 0)) {
        fail(p, "syntax error near unexpected token `%s'", t->text);
    } else if (t->type == T_WORD && sh_is_name(t->text, strlen(t->text))) {
        /* name () is a function definition */
        token name = next(p);
        if (peek(p)->type == T_LPAREN) {
            skip(p);
            if (peek(p)->type != T_RPAREN) {
                fail(p, "syntax error near `%s ('", name.text);
                free(name.text);
            } else {
                skip(p);
                n = parse_function(p, name.text);
            }
            p->depth--;
            return n;
        }
        n = parse_simple(p, name.text);
        p->depth--;
        return n;
    } else {
        n = parse_simple(p, NULL);
        p->depth--;
        return n;
    }
    if (n)
        parse_trailing_redirs(p, n);
    p->depth--;
    return n;
}

static sh_node *parse_pipeline(parser *p)
{
    int bang = 0;
    while (peek_word(p, "!")) {
        skip(p);
        bang = !bang;
    }
    sh_node *first = parse_command(p);
    if (failed(p) || peek(p)->type != T_PIPE) {
        if (!bang || !first)
            return first;
        sh_node *n = new_node(p, N_PIPE);
        if (!n) {
            sh_node_free(first);
            return NULL;
        }
        n->bang = 1;
        n->kids = malloc(sizeof(sh_node *));
        if (!n->kids) {
            p->nomem = 1;
            sh_node_free(first);
            return n;
        }
        n->kids[0] = first;
        n->n_kids = 1;
        return n;
    }
    sh_node *n = new_node(p, N_PIPE);
    if (!n) {
        sh_node_free(first);
        return NULL;
    }
    n->bang = bang;
    int cap = 4;
    n->kids = malloc(sizeof(sh_node *) * (size_t)cap);
    if (!n->kids) {
        p->nomem = 1;
        sh_node_free(first);
        return n;
    }
    n->kids[n->n_kids++] = first;
    while (!failed(p) && peek(p)->type == T_PIPE) {
        skip(p);
        linebreak(p);
        sh_node *k = parse_command(p);
        if (!k)
            break;
        if (n->n_kids == cap) {
            sh_node **g = realloc(n->kids, sizeof(sh_node *) * (size_t)cap * 2);
            if (!g) {
                p->nomem = 1;
                sh_node_free(k);
                break;
            }
            n->kids = g;
            cap *= 2;
        }
        n->kids[n->n_kids++] = k;
    }
    return n;
}

static sh_node *parse_and_or(parser *p)
{
    sh_node *left = parse_pipeline(p);
    while (!failed(p) && left && (peek(p)->type == T_AND || peek(p)->type == T_OR)) {
        int type = next(p).type == T_AND ? N_AND : N_OR;
        linebreak(p);
        sh_node *n = new_node(p, type);
        if (!n)
            break;
        n->a = left;
        n->b = parse_pipeline(p);
        left = n;
    }
    return left;
}

/* Does the lookahead end a list (a word that closes a compound command)? */
static int at_list_end(parser *p)
{
    token *t = peek(p);
    if (t->type == T_EOF || t->type == T_RPAREN || t->type == T_DSEMI || t->type == T_SEMIAMP)
        return 1;
    if (t->type != T_WORD)
        return 0;
    static const char *const ends[] = { "then", "else", "elif", "fi", "do", "done", "esac", "}", NULL };
    for (int i = 0; ends[i]; i++)
        if (strcmp(t->text, ends[i]) == 0)
            return 1;
    return 0;
}

/* A list of and-or lists separated by ; & or newlines, up to a word that ends
 * it. NULL when it is empty. */
static sh_node *parse_list(parser *p)
{
    sh_node *list = NULL;
    linebreak(p);
    while (!failed(p) && !at_list_end(p)) {
        sh_node *n = parse_and_or(p);
        if (!n)
            break;
        if (!list) {
            list = n;
        } else {
            sh_node *seq = new_node(p, N_SEQ);
            if (!seq) {
                sh_node_free(n);
                break;
            }
            seq->a = list;
            seq->b = n;
            list = seq;
        }
        if (failed(p))
            break;
        int t = peek(p)->type;
        if (t == T_SEMI || t == T_AMP || t == T_NEWLINE) {
            skip(p);
            linebreak(p);
        } else if (!at_list_end(p)) {
            token *bad = peek(p);
            fail(p, "syntax error near unexpected token `%s'",
                 bad->type == T_WORD ? bad->text : bad->type == T_LPAREN ? "(" : "operator");
        }
    }
    return list;
}

sh_tree *sh_parse(const char *src, char **error)
{
    parser p = { .src = src, .line = 1 };
    *error = NULL;
    sh_node *root = parse_list(&p);
    if (!failed(&p) && peek(&p)->type != T_EOF) {
        token *t = peek(&p);
        fail(&p, "syntax error near unexpected token `%s'",
             t->type == T_RPAREN ? ")" : t->type == T_DSEMI ? ";;" : t->type == T_WORD ? t->text : "operator");
    }
    if (!failed(&p) && p.n_pending > 0) {
        /* Here-documents on the last line, with no newline after it. */
        read_heredocs(&p);
    }
    if (p.has_tok)
        free(p.tok.text);
    sh_tree *t = NULL;
    if (!failed(&p)) {
        t = calloc(1, sizeof(*t));
        if (t) {
            t->root = root;
            t->refs = 1;
            return t;
        }
    }
    sh_node_free(root);
    *error = p.error;
    return NULL;
}
