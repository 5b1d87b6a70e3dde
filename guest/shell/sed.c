/* sed, the stream editor: a GNU-compatible script compiler (addresses, commands,
 * s///, y///, blocks and labels) and an executor over whole-file inputs, with
 * GNU regex syntax translated to whatever the C library's regcomp accepts. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sh.h"

#define SED_NMATCH 10

/* Exit statuses, as GNU sed's. */
enum { SED_OK = 0, SED_BAD_USAGE = 1, SED_BAD_INPUT = 2, SED_PANIC = 4 };

/* Address kinds. A_ZERO is the 0 of `0,/re/`; A_PLUS and A_MULT are the
 * `addr,+N` and `addr,~N` forms of a second address. */
enum { A_NONE, A_LINE, A_STEP, A_LAST, A_REGEX, A_ZERO, A_PLUS, A_MULT };

/* Where a `w` file writes: an index into the program's w files, or one of the
 * standard streams. */
enum { W_NONE = -1, W_STDOUT = -2, W_STDERR = -3 };

/* A compiled regex. A NULL sed_rx in an address or s command means the empty
 * regex: the last one used at run time. */
typedef struct sed_rx {
    regex_t re;
    size_t nsub;
} sed_rx;

typedef struct sed_addr {
    int kind;
    unsigned long n, step;
    sed_rx *rx;
} sed_addr;

/* One command of the compiled script. */
typedef struct sed_cmd {
    sed_addr a1, a2;
    int negate;
    int range_active;         /* between the two addresses of a range */
    unsigned long range_end;  /* last line of an active +N or ~N range */
    char name;
    char *text;               /* a/i/c text, label, r file name */
    size_t text_len;
    size_t target;            /* b/t/T: command index to jump to; {: past its } */
    sed_rx *rx;               /* s */
    char *repl;               /* s: replacement in the internal form of parse_repl */
    size_t repl_len;
    int global, print, nth;   /* s flags */
    int wfile;                /* s///w and w: W_NONE, W_STDOUT, ... or an index */
    long num;                 /* q/Q exit status, l line length (-1: default) */
    char *rdata;              /* R: the file's contents, loaded on first use */
    size_t rlen, rpos;
    int rloaded;
    unsigned char ymap[256];  /* y */
} sed_cmd;

/* An output: the applet's stdout (direct), or text collected for a file. */
typedef struct sed_out {
    char *name;
    int direct;
    sh_buf buf;
    int missing_nl; /* the last line written lacked its terminator */
} sed_out;

/* One part of the script for error locations: an -e expression or a -f file. */
typedef struct sed_piece {
    size_t start;
    const char *file; /* NULL for -e and the script operand */
} sed_piece;

typedef struct sed_prog {
    sed_cmd *cmds;
    size_t ncmds, cap;
    sed_rx **rxs;
    size_t nrx;
    sed_out **wfiles;
    size_t nw;
} sed_prog;

/* The compiler's state over the joined script text. */
typedef struct sed_parser {
    sh_proc *p;
    const char *s;
    size_t len, pos;
    const sed_piece *pieces;
    size_t npieces;
    int ere;
    sed_prog *prog;
} sed_parser;

/* One input file, loaded whole. */
typedef struct sed_input {
    const char *name;
    char *data;
    size_t len;
    int ok;
} sed_input;

/* The executor's state. */
typedef struct sed_run {
    sh_proc *p;
    sed_prog *prog;
    int quiet, separate;
    char sep;
    long line_len;
    sed_input *in;
    size_t nin, fi, fi_end, fpos;
    unsigned long line;
    sh_buf ps, hs, tmp;
    int chomped;       /* the pattern space's line had its terminator */
    int hs_chomped;    /* the same for the hold space, which h, H, g, G, x carry */
    sh_buf append;     /* a and r text to write at the end of the cycle */
    int append_queued; /* an a or r ran (even with nothing to add) */
    sed_out std, file; /* stdout, and the file being edited in place */
    sed_out wstdout;   /* w /dev/stdout, which GNU sed opens as a file of its own */
    sed_out *out;      /* where the pattern space goes: &std or &file */
    sed_rx *last_rx;
    int tflag, quit, status, failed;
} sed_run;

/* Decodes GNU's numeric escapes \xHH, \oNNN, \dNNN and \cX, with s[*i] the
 * letter after the backslash. Returns 1 with the byte in *out and *i past the
 * escape, or 0 when s[*i] starts none. */
static int num_escape(const char *s, size_t n, size_t *i, unsigned char *out)
{
    size_t j = *i;
    if (j >= n)
        return 0;
    char kind = s[j++];
    if (kind == 'c') {
        if (j >= n)
            return 0;
        *out = (unsigned char)(toupper((unsigned char)s[j]) ^ 0x40);
        *i = j + 1;
        return 1;
    }
    int base = kind == 'x' ? 16 : kind == 'o' ? 8 : kind == 'd' ? 10 : 0;
    if (!base)
        return 0;
    size_t max = base == 16 ? 2 : 3, k = 0;
    unsigned v = 0;
    for (; k < max && j + k < n; k++) {
        int ch = (unsigned char)s[j + k], d;
        if (isdigit(ch))
            d = ch - '0';
        else if (base == 16 && isxdigit(ch))
            d = tolower(ch) - 'a' + 10;
        else
            break;
        if (d >= base)
            break;
        v = v * (unsigned)base + (unsigned)d;
    }
    if (k == 0)
        return 0;
    *out = (unsigned char)v;
    *i = j + k;
    return 1;
}

/* The character a GNU escape (\t, \n...) stands for, or 0 for none. */
static char escape_char(char d)
{
    switch (d) {
    case 'a': return '\a';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'v': return '\v';
    }
    return 0;
}

/* ---------- Regex translation ---------- */

/* Tokens of a regex in GNU syntax, BRE or ERE alike. */
enum { T_LIT, T_ANY, T_BRACKET, T_GOPEN, T_GCLOSE, T_ALT, T_STAR, T_PLUS, T_QMARK,
       T_INTERVAL, T_BOL, T_EOL, T_BACKREF, T_SPECIAL };

typedef struct rx_tok {
    int kind;
    char c;            /* T_LIT: the character; T_BACKREF: digit; T_SPECIAL: letter */
    const char *text;  /* T_BRACKET, T_INTERVAL: the source text (inside the braces) */
    size_t len;
    const char *err;   /* set when the token is malformed */
} rx_tok;

#define RX_BAD_REPEAT "Invalid preceding regular expression"

/* Reads an interval's body from src[*i] up to its closing brace (`\}` in a
 * BRE, `}` in an ERE) into t, or sets t->err when there is none. */
static void rx_interval(const char *src, size_t n, size_t *i, int ere, rx_tok *t)
{
    t->kind = T_INTERVAL;
    t->text = src + *i;
    for (size_t j = *i; j < n; j++) {
        if (ere ? src[j] == '}' : (src[j] == '\\' && j + 1 < n && src[j + 1] == '}')) {
            t->len = j - *i;
            *i = j + (ere ? 1 : 2);
            return;
        }
    }
    t->err = "Unmatched \\{";
}

/* Whether a token is a zero-width assertion (\b \< ... or $). */
static int rx_assertion(const rx_tok *t)
{
    return t->kind == T_EOL || (t->kind == T_SPECIAL && strchr("bB<>`'", t->c));
}

/* Reads the token at src[*i] of a GNU-syntax regex, after the token before
 * (kind T_ALT at the start). In a BRE, ^ is an anchor only first in a branch,
 * and *, \+ and \? are literal there and after an anchor or assertion. */
static void rx_next(const char *src, size_t n, size_t *i, int ere, const rx_tok *before, rx_tok *t)
{
    int branch_start = before->kind == T_GOPEN || before->kind == T_ALT;
    int prev_start = branch_start || before->kind == T_BOL || rx_assertion(before);
    char c = src[*i];
    memset(t, 0, sizeof(*t));
    t->kind = T_LIT;
    t->c = c;
    (*i)++;
    if (c == '\\') {
        if (*i >= n) {
            t->err = "Trailing backslash";
            return;
        }
        char d = src[(*i)++];
        t->c = d;
        if (d >= '1' && d <= '9')
            t->kind = T_BACKREF;
        else if (escape_char(d))
            t->c = escape_char(d);
        else if (strchr("wWsSbB<>`'", d))
            t->kind = T_SPECIAL;
        else if (!ere && d == '(')
            t->kind = T_GOPEN;
        else if (!ere && d == ')')
            t->kind = T_GCLOSE;
        else if (!ere && d == '|')
            t->kind = T_ALT;
        else if (!ere && (d == '+' || d == '?') && !prev_start)
            t->kind = d == '+' ? T_PLUS : T_QMARK;
        else if (!ere && d == '{')
            rx_interval(src, n, i, ere, t);
        return;
    }
    switch (c) {
    case '[': {
        size_t len = sh_rx_bracket(src + *i - 1, n - (*i - 1));
        if (!len) {
            t->err = "Unmatched [, [^, [:, [., or [=";
            return;
        }
        t->kind = T_BRACKET;
        t->text = src + *i - 1;
        t->len = len;
        *i += len - 1;
        return;
    }
    case '.':
        t->kind = T_ANY;
        return;
    case '*':
        if (!prev_start || ere)
            t->kind = T_STAR;
        return;
    case '^':
        if (ere || branch_start)
            t->kind = T_BOL;
        return;
    case '$':
        if (ere || *i >= n || (src[*i] == '\\' && *i + 1 < n && (src[*i + 1] == ')' || src[*i + 1] == '|')))
            t->kind = T_EOL;
        return;
    }
    if (!ere)
        return;
    switch (c) {
    case '(':
        t->kind = T_GOPEN;
        break;
    case ')':
        t->kind = T_GCLOSE;
        break;
    case '|':
        t->kind = T_ALT;
        break;
    case '+':
        t->kind = T_PLUS;
        break;
    case '?':
        t->kind = T_QMARK;
        break;
    case '{':
        rx_interval(src, n, i, ere, t);
        break;
    }
}

/* Checks an interval body ("m", "m,", ",n", "m,n") and writes it to out with
 * the minimum spelled out, which musl requires. */
static const char *rx_emit_interval(sh_buf *out, const char *s, size_t n, int *oom)
{
    size_t i = 0;
    unsigned long lo = 0, hi = 0;
    int has_lo = 0, has_hi = 0, comma = 0;
    for (; i < n && isdigit((unsigned char)s[i]); i++, has_lo = 1)
        lo = lo > 100000 ? lo : lo * 10 + (unsigned long)(s[i] - '0');
    if (i < n && s[i] == ',') {
        comma = 1;
        for (i++; i < n && isdigit((unsigned char)s[i]); i++, has_hi = 1)
            hi = hi > 100000 ? hi : hi * 10 + (unsigned long)(s[i] - '0');
    }
    if (i != n || (!has_lo && !comma) || (has_hi && hi < lo))
        return "Invalid content of \\{\\}";
    if (lo > 32767 || hi > 32767)
        return "Regular expression too big";
    if (sh_buf_addf(out, "%lu", lo) < 0 || (comma && sh_buf_addc(out, ',') < 0) ||
        (has_hi && sh_buf_addf(out, "%lu", hi) < 0))
        *oom = 1;
    return NULL;
}

/* Checks a token against the one before it the way GNU sed's regex compiler
 * does (repetitions need something to repeat, groups must balance, back-
 * references need their group). Returns an error message or NULL. */
static const char *rx_check(const rx_tok *t, const rx_tok *before, int ere, int *depth,
                            int *groups)
{
    int prev = before->kind;
    int first = prev == T_GOPEN || prev == T_ALT || prev == T_BOL;
    int after_repeat = prev == T_STAR || prev == T_PLUS || prev == T_QMARK || prev == T_INTERVAL;
    int assertion = rx_assertion(before);
    if (t->err)
        return t->err;
    switch (t->kind) {
    case T_STAR:
    case T_PLUS:
    case T_QMARK:
    case T_INTERVAL:
        if ((ere && first) || assertion)
            return RX_BAD_REPEAT;
        if (!ere && (t->kind == T_STAR || t->kind == T_INTERVAL) && (first || after_repeat))
            return RX_BAD_REPEAT;
        break;
    case T_GOPEN:
        (*depth)++;
        (*groups)++;
        break;
    case T_GCLOSE:
        if (*depth == 0)
            return "Unmatched ) or \\)";
        (*depth)--;
        break;
    case T_BACKREF:
        if (t->c - '0' > *groups)
            return "Invalid back reference";
        break;
    }
    return NULL;
}

/* Appends a bracket expression, turning GNU's \n and \t into the characters. */
static int rx_emit_bracket(sh_buf *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n && (s[i + 1] == 'n' || s[i + 1] == 't')) {
            if (sh_buf_addc(out, s[i + 1] == 'n' ? '\n' : '\t') < 0)
                return -1;
            i++;
        } else if (sh_buf_addc(out, s[i]) < 0) {
            return -1;
        }
    }
    return 0;
}

/* Translates a GNU-syntax regex into one that both glibc and musl read the same
 * way: ERE, unless it has back-references (which musl only knows in BREs), then
 * BRE with \+ and \? spelled as intervals. *use_ere tells which. Returns 0, or
 * -1 with *err set to GNU's message for a malformed regex (NULL when out of
 * memory). */
static int rx_translate(const char *src, size_t n, int ere, sh_buf *out, int *use_ere,
                        const char **err)
{
    int backrefs = 0, depth = 0, groups = 0;
    size_t i = 0;
    rx_tok before = { .kind = T_ALT };
    *err = NULL;
    while (i < n) {
        rx_tok t;
        rx_next(src, n, &i, ere, &before, &t);
        if ((*err = rx_check(&t, &before, ere, &depth, &groups)) != NULL)
            return -1;
        backrefs |= t.kind == T_BACKREF;
        before = t;
    }
    if (depth > 0) {
        *err = "Unmatched ( or \\(";
        return -1;
    }
    int to_ere = !backrefs, oom = 0;
    *use_ere = to_ere;
    i = 0;
    before.kind = T_ALT;
    while (i < n && !oom) {
        rx_tok t;
        rx_next(src, n, &i, ere, &before, &t);
        before = t;
        int r = 0;
        switch (t.kind) {
        case T_LIT:
            if (strchr(to_ere ? ".[\\()*+?{|^$" : ".[\\*^$", t.c) && t.c != '\0')
                r = sh_buf_addc(out, '\\');
            if (r == 0)
                r = sh_buf_addc(out, t.c);
            break;
        case T_ANY:
            r = sh_buf_addc(out, '.');
            break;
        case T_BRACKET:
            r = rx_emit_bracket(out, t.text, t.len);
            break;
        case T_GOPEN:
            r = sh_buf_adds(out, to_ere ? "(" : "\\(");
            break;
        case T_GCLOSE:
            r = sh_buf_adds(out, to_ere ? ")" : "\\)");
            break;
        case T_ALT:
            r = sh_buf_adds(out, to_ere ? "|" : "\\|");
            break;
        case T_STAR:
            r = sh_buf_addc(out, '*');
            break;
        case T_PLUS:
            r = sh_buf_adds(out, to_ere ? "+" : "\\{1,\\}");
            break;
        case T_QMARK:
            r = sh_buf_adds(out, to_ere ? "?" : "\\{0,1\\}");
            break;
        case T_INTERVAL:
            r = sh_buf_adds(out, to_ere ? "{" : "\\{");
            if (r == 0 && (*err = rx_emit_interval(out, t.text, t.len, &oom)) != NULL)
                return -1;
            if (r == 0)
                r = sh_buf_adds(out, to_ere ? "}" : "\\}");
            break;
        case T_BOL:
            r = sh_buf_addc(out, '^');
            break;
        case T_EOL:
            r = sh_buf_addc(out, '$');
            break;
        case T_BACKREF:
        case T_SPECIAL:
            r = sh_buf_addc(out, '\\');
            if (r == 0)
                r = sh_buf_addc(out, t.c);
            break;
        }
        oom |= r < 0;
    }
    return !oom && sh_buf_cstr(out) ? 0 : -1;
}

/* Runs rx over s[start..len): 1 on a match (m holds absolute offsets), 0 if
 * none. Where the C library has REG_STARTEND the text before start still
 * counts for ^ and word boundaries, and NUL bytes are matched; otherwise the
 * search starts from s + start (s must be NUL-terminated) and goes on past
 * each NUL byte, so that a match cannot span one. */
static int rx_exec(const sed_rx *rx, const char *s, size_t len, size_t start, regmatch_t *m)
{
#ifdef REG_STARTEND
    m[0].rm_so = (regoff_t)start;
    m[0].rm_eo = (regoff_t)len;
    return regexec(&rx->re, s, SED_NMATCH, m, REG_STARTEND) == 0;
#else
    while (regexec(&rx->re, s + start, SED_NMATCH, m, start ? REG_NOTBOL : 0) != 0) {
        const char *nul = memchr(s + start, '\0', len - start);
        if (!nul)
            return 0;
        start = (size_t)(nul - s) + 1;
    }
    for (int i = 0; i < SED_NMATCH; i++)
        if (m[i].rm_so >= 0) {
            m[i].rm_so += (regoff_t)start;
            m[i].rm_eo += (regoff_t)start;
        }
    return 1;
#endif
}

/* ---------- Compiler ---------- */

/* Prints a script error with its GNU-style location and returns -1. */
static int perr(sed_parser *ps, const char *msg)
{
    size_t k = 0;
    while (k + 1 < ps->npieces && ps->pieces[k + 1].start <= ps->pos)
        k++;
    const sed_piece *pc = &ps->pieces[k];
    size_t at = ps->pos > ps->len ? ps->len : ps->pos;
    if (pc->file) {
        size_t line = 1;
        for (size_t i = pc->start; i < at && i < ps->len; i++)
            line += ps->s[i] == '\n';
        sh_err(ps->p, "file %s line %zu: %s", pc->file, line, msg);
    } else {
        size_t expr = 0;
        for (size_t i = 0; i <= k; i++)
            expr += ps->pieces[i].file == NULL;
        sh_err(ps->p, "-e expression #%zu, char %zu: %s", expr, at - pc->start, msg);
    }
    return -1;
}

static int peek(const sed_parser *ps)
{
    return ps->pos < ps->len ? (unsigned char)ps->s[ps->pos] : EOF;
}

static void skip_blanks(sed_parser *ps)
{
    while (peek(ps) == ' ' || peek(ps) == '\t')
        ps->pos++;
}

static int oom_parse(sed_parser *ps)
{
    sh_oom(ps->p);
    return -1;
}

/* Reads a decimal number (the caller checked there is a digit). */
static unsigned long parse_num(sed_parser *ps)
{
    unsigned long v = 0;
    while (isdigit(peek(ps))) {
        unsigned d = (unsigned)(peek(ps) - '0');
        v = v > (ULONG_MAX - d) / 10 ? ULONG_MAX : v * 10 + d;
        ps->pos++;
    }
    return v;
}

/* Reads up to the unescaped delimiter (consumed) into out, NUL-terminated.
 * \DELIM becomes DELIM and other escapes are kept for the caller to decode. In
 * a regex (regex set) a bracket expression may hold the delimiter, a raw
 * newline is an error and a backslash-newline means \n. Returns 0, -1 when
 * the delimiter is missing, -2 when out of memory (no message printed). */
static int read_delimited(sed_parser *ps, char delim, int regex, sh_buf *out)
{
    while (ps->pos < ps->len) {
        char c = ps->s[ps->pos++];
        if (c == delim)
            return sh_buf_cstr(out) ? 0 : -2;
        if (c == '\n' && regex)
            return -1;
        if (c == '[' && regex) {
            /* The delimiter does not end the regex inside a bracket expression. */
            size_t n = sh_rx_bracket(ps->s + ps->pos - 1, ps->len - (ps->pos - 1));
            if (n == 0)
                return -1;
            if (sh_buf_add(out, ps->s + ps->pos - 1, n) < 0)
                return -2;
            ps->pos += n - 1;
            continue;
        }
        if (c == '\\') {
            if (ps->pos >= ps->len)
                return -1;
            char d = ps->s[ps->pos++];
            if (d == delim && delim != '\n') {
                if (sh_buf_addc(out, d) < 0)
                    return -2;
                continue;
            }
            if (d == '\n' && regex) {
                if (sh_buf_add(out, "\\n", 2) < 0)
                    return -2;
                continue;
            }
            if (sh_buf_addc(out, '\\') < 0 || sh_buf_addc(out, d) < 0)
                return -2;
            continue;
        }
        if (sh_buf_addc(out, c) < 0)
            return -2;
    }
    return -1;
}

/* Compiles a GNU-syntax regex (the empty one gives *rx = NULL). */
static int compile_rx(sed_parser *ps, const char *src, size_t n, int flags, sed_rx **rx)
{
    *rx = NULL;
    if (n == 0)
        return 0;
    /* Numeric escapes become the bytes they stand for before the regex is
     * read, as in GNU sed (so \x2e is then a '.' matching any character). */
    sh_buf raw = { 0 }, t = { 0 };
    int use_ere, rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        unsigned char byte;
        size_t j = i + 1;
        if (src[i] == '\\' && num_escape(src, n, &j, &byte)) {
            rc = byte == '\\' ? sh_buf_add(&raw, "\\\\", 2) : sh_buf_addc(&raw, (char)byte);
            i = j - 1;
        } else if (src[i] == '\\' && i + 1 < n) {
            rc = sh_buf_add(&raw, src + i, 2);
            i++;
        } else {
            rc = sh_buf_addc(&raw, src[i]);
        }
    }
    const char *err = NULL;
    if (rc < 0 || rx_translate(raw.data ? raw.data : "", raw.len, ps->ere, &t, &use_ere, &err) < 0) {
        sh_buf_free(&raw);
        sh_buf_free(&t);
        return err ? perr(ps, err) : oom_parse(ps);
    }
    sh_buf_free(&raw);
    sed_rx **grown = realloc(ps->prog->rxs, (ps->prog->nrx + 1) * sizeof(*grown));
    sed_rx *r = malloc(sizeof(*r));
    if (grown)
        ps->prog->rxs = grown;
    if (!grown || !r) {
        free(r);
        sh_buf_free(&t);
        return oom_parse(ps);
    }
    int e = regcomp(&r->re, t.data, flags | (use_ere ? REG_EXTENDED : 0));
    sh_buf_free(&t);
    if (e != 0) {
        char msg[256];
        regerror(e, &r->re, msg, sizeof(msg));
        free(r);
        return perr(ps, msg);
    }
    r->nsub = r->re.re_nsub;
    ps->prog->rxs[ps->prog->nrx++] = r;
    *rx = r;
    return 0;
}

/* Reads the I and M flags after an address regex. */
static int rx_flags(sed_parser *ps)
{
    int flags = 0;
    for (;;) {
        if (peek(ps) == 'I')
            flags |= REG_ICASE;
        else if (peek(ps) == 'M')
            flags |= REG_NEWLINE;
        else
            return flags;
        ps->pos++;
    }
}

/* Parses one address; a->kind stays A_NONE when there is none. */
static int parse_addr(sed_parser *ps, sed_addr *a, int second)
{
    int c = peek(ps);
    memset(a, 0, sizeof(*a));
    if (isdigit(c)) {
        a->n = parse_num(ps);
        a->kind = A_LINE;
        if (!second && peek(ps) == '~') {
            ps->pos++;
            a->step = isdigit(peek(ps)) ? parse_num(ps) : 0;
            a->kind = A_STEP;
        }
    } else if (c == '$') {
        ps->pos++;
        a->kind = A_LAST;
    } else if (second && (c == '+' || c == '~')) {
        ps->pos++;
        if (!isdigit(peek(ps)))
            return perr(ps, "expected newer version of sed");
        a->n = parse_num(ps);
        a->kind = c == '+' ? A_PLUS : A_MULT;
    } else if (c == '/' || c == '\\') {
        ps->pos++;
        char delim = '/';
        if (c == '\\') {
            if (ps->pos >= ps->len || ps->s[ps->pos] == '\n' || ps->s[ps->pos] == '\\')
                return perr(ps, "unexpected `,'");
            delim = ps->s[ps->pos++];
        }
        sh_buf re = { 0 };
        int r = read_delimited(ps, delim, 1, &re);
        if (r < 0) {
            sh_buf_free(&re);
            return r == -2 ? oom_parse(ps) : perr(ps, "unterminated address regex");
        }
        a->kind = A_REGEX;
        r = compile_rx(ps, re.data, re.len, rx_flags(ps), &a->rx);
        sh_buf_free(&re);
        return r;
    }
    return 0;
}

/* Appends a new zeroed command to the program and returns it, or NULL. */
static sed_cmd *new_cmd(sed_parser *ps)
{
    sed_prog *pr = ps->prog;
    if (pr->ncmds == pr->cap) {
        size_t cap = pr->cap ? pr->cap * 2 : 16;
        sed_cmd *c = realloc(pr->cmds, cap * sizeof(*c));
        if (!c)
            return NULL;
        pr->cmds = c;
        pr->cap = cap;
    }
    sed_cmd *c = &pr->cmds[pr->ncmds++];
    memset(c, 0, sizeof(*c));
    c->wfile = W_NONE;
    c->num = -1;
    return c;
}

/* Reads the text of a, i or c in either form: GNU's one-liner `a text` or the
 * classic `a\` followed by lines, each but the last ending in a backslash. */
static int parse_text(sed_parser *ps, sed_cmd *c)
{
    skip_blanks(ps);
    if (peek(ps) == '\\') {
        ps->pos++;
        if (peek(ps) == '\n')
            ps->pos++;
    } else if (peek(ps) == EOF || (peek(ps) == '\n' && ps->pos + 1 >= ps->len)) {
        return perr(ps, "expected \\ after `a', `c' or `i'");
    }
    sh_buf t = { 0 };
    int r = 0, escaped_end = 0;
    while (r == 0 && ps->pos < ps->len) {
        char ch = ps->s[ps->pos++];
        if (ch == '\n')
            break;
        unsigned char byte;
        size_t j = ps->pos;
        if (ch == '\\' && num_escape(ps->s, ps->len, &j, &byte)) {
            ch = (char)byte;
            ps->pos = j;
        } else if (ch == '\\' && ps->pos < ps->len) {
            ch = ps->s[ps->pos++];
            char e = escape_char(ch);
            if (e && ch != 'n')
                ch = e;
            escaped_end = ch == '\n' && ps->pos >= ps->len;
        }
        r = sh_buf_addc(&t, ch);
    }
    /* The text gets its newline, but not when the script ended right after
     * `a\` or after a backslash-newline. */
    if (r == 0 && !escaped_end && (t.len > 0 || ps->pos < ps->len))
        r = sh_buf_addc(&t, '\n');
    if (r == 0 && !sh_buf_cstr(&t))
        r = -1;
    if (r < 0) {
        sh_buf_free(&t);
        return oom_parse(ps);
    }
    c->text = sh_buf_take(&t, &c->text_len);
    return c->text ? 0 : oom_parse(ps);
}

/* Reads a label (for :, b, t, T): up to a blank, newline, ';' or '}', as
 * GNU sed 4.9 reads them; a ';' after it is consumed. */
static int parse_label(sed_parser *ps, sed_cmd *c)
{
    skip_blanks(ps);
    size_t start = ps->pos;
    while (ps->pos < ps->len && !strchr(" \t\n;}", ps->s[ps->pos]))
        ps->pos++;
    size_t end = ps->pos;
    skip_blanks(ps);
    if (peek(ps) == ';')
        ps->pos++;
    if (end == start)
        return 0;
    c->text = malloc(end - start + 1);
    if (!c->text)
        return oom_parse(ps);
    memcpy(c->text, ps->s + start, end - start);
    c->text[end - start] = '\0';
    c->text_len = end - start;
    return 0;
}

/* Reads a file name for r, w and s///w: the rest of the line. */
static int parse_filename(sed_parser *ps, char **name)
{
    skip_blanks(ps);
    size_t start = ps->pos;
    while (ps->pos < ps->len && ps->s[ps->pos] != '\n')
        ps->pos++;
    if (ps->pos == start)
        return perr(ps, "missing filename in r/R/w/W commands");
    *name = malloc(ps->pos - start + 1);
    if (!*name)
        return oom_parse(ps);
    memcpy(*name, ps->s + start, ps->pos - start);
    (*name)[ps->pos - start] = '\0';
    return 0;
}

/* Returns the output index for a w file name, registering it the first time. */
static int wfile_index(sed_parser *ps, const char *name, int *index)
{
    if (strcmp(name, "/dev/stdout") == 0) {
        *index = W_STDOUT;
        return 0;
    }
    if (strcmp(name, "/dev/stderr") == 0) {
        *index = W_STDERR;
        return 0;
    }
    sed_prog *pr = ps->prog;
    for (size_t i = 0; i < pr->nw; i++)
        if (strcmp(pr->wfiles[i]->name, name) == 0) {
            *index = (int)i;
            return 0;
        }
    sed_out **grown = realloc(pr->wfiles, (pr->nw + 1) * sizeof(*grown));
    if (!grown)
        return oom_parse(ps);
    pr->wfiles = grown;
    sed_out *o = calloc(1, sizeof(*o));
    if (!o || !(o->name = strdup(name))) {
        free(o);
        return oom_parse(ps);
    }
    pr->wfiles[pr->nw] = o;
    *index = (int)pr->nw++;
    return 0;
}

/* Parses a w command's or flag's file name and registers it. */
static int parse_wfile(sed_parser *ps, sed_cmd *c)
{
    char *name;
    if (parse_filename(ps, &name) < 0)
        return -1;
    int r = wfile_index(ps, name, &c->wfile);
    free(name);
    return r;
}

/* Appends one literal character of a replacement in its internal form, where
 * only '&' and '\\' are special (see apply_repl). */
static int repl_lit(sh_buf *b, char c)
{
    if ((c == '&' || c == '\\') && sh_buf_addc(b, '\\') < 0)
        return -1;
    return sh_buf_addc(b, c);
}

/* Converts the raw replacement text (delimiters already removed) to the
 * internal form: & (whole match), \0-\9, \L \U \l \u \E, and literals. */
static int parse_repl(sed_parser *ps, sed_cmd *c, const char *raw, size_t n)
{
    sh_buf b = { 0 };
    int r = 0;
    for (size_t i = 0; r == 0 && i < n; i++) {
        char ch = raw[i];
        if (ch != '\\' || i + 1 >= n) {
            r = ch == '&' ? sh_buf_addc(&b, '&') : repl_lit(&b, ch);
            continue;
        }
        unsigned char byte;
        size_t j = i + 1;
        if (num_escape(raw, n, &j, &byte)) {
            r = repl_lit(&b, (char)byte);
            i = j - 1;
            continue;
        }
        char d = raw[++i];
        if (isdigit((unsigned char)d)) {
            size_t g = (size_t)(d - '0');
            if (c->rx && g > c->rx->nsub) {
                sh_buf_free(&b);
                char msg[64];
                snprintf(msg, sizeof(msg), "invalid reference \\%c on `s' command's RHS", d);
                return perr(ps, msg);
            }
            r = sh_buf_addc(&b, '\\');
            if (r == 0)
                r = sh_buf_addc(&b, d);
        } else if (strchr("LUluE", d)) {
            r = sh_buf_addc(&b, '\\');
            if (r == 0)
                r = sh_buf_addc(&b, d);
        } else if (d == '\n') {
            r = sh_buf_addc(&b, '\n');
        } else {
            char e = escape_char(d);
            r = repl_lit(&b, e ? e : d);
        }
    }
    if (r < 0 || !sh_buf_cstr(&b)) {
        sh_buf_free(&b);
        return oom_parse(ps);
    }
    c->repl = sh_buf_take(&b, &c->repl_len);
    return c->repl ? 0 : oom_parse(ps);
}

/* Parses the rest of an s command: /regex/replacement/flags. */
static int parse_s(sed_parser *ps, sed_cmd *c)
{
    if (ps->pos >= ps->len || ps->s[ps->pos] == '\n' || ps->s[ps->pos] == '\\')
        return perr(ps, "unterminated `s' command");
    char delim = ps->s[ps->pos++];
    sh_buf re = { 0 }, rep = { 0 };
    int r = read_delimited(ps, delim, 1, &re);
    if (r == 0)
        r = read_delimited(ps, delim, 0, &rep);
    if (r < 0) {
        sh_buf_free(&re);
        sh_buf_free(&rep);
        return r == -2 ? oom_parse(ps) : perr(ps, "unterminated `s' command");
    }
    int flags = 0;
    for (int done = 0; !done && r == 0;) {
        int f = peek(ps);
        switch (f) {
        case 'g':
            if (c->global)
                r = perr(ps, "multiple `g' options to `s' command");
            c->global = 1;
            ps->pos++;
            break;
        case 'p':
            if (c->print)
                r = perr(ps, "multiple `p' options to `s' command");
            c->print = 1;
            ps->pos++;
            break;
        case 'i':
        case 'I':
            flags |= REG_ICASE;
            ps->pos++;
            break;
        case 'm':
        case 'M':
            flags |= REG_NEWLINE;
            ps->pos++;
            break;
        case 'e':
            ps->pos++;
            r = perr(ps, "the `e' flag is not supported");
            break;
        case 'w':
            ps->pos++;
            r = parse_wfile(ps, c);
            done = 1;
            break;
        default:
            if (isdigit(f)) {
                if (c->nth)
                    r = perr(ps, "multiple number options to `s' command");
                unsigned long v = parse_num(ps);
                if (r == 0 && v == 0)
                    r = perr(ps, "number option to `s' command may not be zero");
                c->nth = v > INT_MAX ? INT_MAX : (int)v;
            } else if (f == EOF || f == '\n' || f == ';' || f == '}' || f == '#' || f == ' ' ||
                       f == '\t') {
                done = 1;
            } else {
                ps->pos++;
                r = perr(ps, "unknown option to `s'");
            }
        }
    }
    if (r == 0)
        r = compile_rx(ps, re.data, re.len, flags, &c->rx);
    if (r == 0)
        r = parse_repl(ps, c, rep.data ? rep.data : "", rep.len);
    if (c->nth == 0)
        c->nth = 1;
    sh_buf_free(&re);
    sh_buf_free(&rep);
    return r;
}

/* Decodes one side of y: \\, \DELIM and the escapes \n \t... */
static int y_decode(const char *s, size_t n, sh_buf *out)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        unsigned char byte;
        size_t j = i + 1;
        if (c == '\\' && num_escape(s, n, &j, &byte)) {
            c = (char)byte;
            i = j - 1;
        } else if (c == '\\' && i + 1 < n) {
            char e = escape_char(s[i + 1]);
            c = e ? e : s[i + 1];
            i++;
        }
        if (sh_buf_addc(out, c) < 0)
            return -1;
    }
    return 0;
}

/* Parses the rest of a y command into its byte map. */
static int parse_y(sed_parser *ps, sed_cmd *c)
{
    if (ps->pos >= ps->len || ps->s[ps->pos] == '\n' || ps->s[ps->pos] == '\\')
        return perr(ps, "unterminated `y' command");
    char delim = ps->s[ps->pos++];
    sh_buf a = { 0 }, b = { 0 }, da = { 0 }, db = { 0 };
    int r = read_delimited(ps, delim, 0, &a);
    if (r == 0)
        r = read_delimited(ps, delim, 0, &b);
    if (r == 0 && (y_decode(a.data, a.len, &da) < 0 || y_decode(b.data, b.len, &db) < 0))
        r = -2;
    if (r == -2)
        r = oom_parse(ps);
    else if (r < 0)
        r = perr(ps, "unterminated `y' command");
    else if (da.len != db.len)
        r = perr(ps, "strings for `y' command are different lengths");
    if (r == 0) {
        for (int i = 0; i < 256; i++)
            c->ymap[i] = (unsigned char)i;
        for (size_t i = 0; i < da.len; i++)
            c->ymap[(unsigned char)da.data[i]] = (unsigned char)db.data[i];
    }
    sh_buf_free(&a);
    sh_buf_free(&b);
    sh_buf_free(&da);
    sh_buf_free(&db);
    return r;
}

/* After a command: blanks, then the end of the script, a newline, ';', '#' or
 * '}' (the last two are left for the caller). */
static int parse_end(sed_parser *ps)
{
    skip_blanks(ps);
    int c = peek(ps);
    if (c == '\n' || c == ';') {
        ps->pos++;
        return 0;
    }
    if (c == EOF || c == '}' || c == '#')
        return 0;
    return perr(ps, "extra characters after command");
}

/* Parses the arguments of the command c->name. */
static int parse_args(sed_parser *ps, sed_cmd *c)
{
    switch (c->name) {
    case 'a':
    case 'i':
    case 'c':
        return parse_text(ps, c);
    case ':':
        if (c->a1.kind != A_NONE)
            return perr(ps, ": doesn't want any addresses");
        if (parse_label(ps, c) < 0)
            return -1;
        return c->text ? 0 : perr(ps, "\":\" lacks a label");
    case 'b':
    case 't':
    case 'T':
        return parse_label(ps, c);
    case 'r':
    case 'R':
        return parse_filename(ps, &c->text);
    case 'w':
    case 'W':
        return parse_wfile(ps, c);
    case 'v': {
        /* The script may require a version: this one stands for GNU sed 4.9. */
        skip_blanks(ps);
        unsigned long major = isdigit(peek(ps)) ? parse_num(ps) : 4, minor = 0;
        if (peek(ps) == '.') {
            ps->pos++;
            minor = isdigit(peek(ps)) ? parse_num(ps) : 0;
            while (peek(ps) == '.' || isdigit(peek(ps)))
                ps->pos++;
        }
        if (major > 4 || (major == 4 && minor > 9))
            return perr(ps, "expected newer version of sed");
        return parse_end(ps);
    }
    case 's':
        if (parse_s(ps, c) < 0)
            return -1;
        return parse_end(ps);
    case 'y':
        if (parse_y(ps, c) < 0)
            return -1;
        return parse_end(ps);
    case 'q':
    case 'Q':
    case 'l':
        skip_blanks(ps);
        if (isdigit(peek(ps))) {
            unsigned long v = parse_num(ps);
            c->num = v > INT_MAX ? INT_MAX : (long)v;
        }
        if ((c->name == 'q' || c->name == 'Q') && c->a2.kind != A_NONE)
            return perr(ps, "command only uses one address");
        return parse_end(ps);
    case '=': case 'd': case 'D': case 'g': case 'G': case 'h': case 'H': case 'n':
    case 'N': case 'p': case 'P': case 'x': case 'z': case 'F': case '}':
        return parse_end(ps);
    }
    char msg[64];
    snprintf(msg, sizeof(msg), "unknown command: `%c'", c->name);
    return perr(ps, msg);
}

/* Resolves the labels of b, t and T to command indexes. */
static int resolve_labels(sed_parser *ps)
{
    sed_prog *pr = ps->prog;
    for (size_t i = 0; i < pr->ncmds; i++) {
        sed_cmd *c = &pr->cmds[i];
        if (c->name != 'b' && c->name != 't' && c->name != 'T')
            continue;
        c->target = pr->ncmds;
        if (!c->text)
            continue;
        size_t j = 0;
        while (j < pr->ncmds && !(pr->cmds[j].name == ':' && strcmp(pr->cmds[j].text, c->text) == 0))
            j++;
        if (j == pr->ncmds) {
            sh_err(ps->p, "can't find label for jump to `%s'", c->text);
            return -2;
        }
        c->target = j;
    }
    return 0;
}

/* Compiles the whole script into ps->prog. */
static int compile(sed_parser *ps)
{
    size_t *blocks = NULL, nblocks = 0;
    int r = 0;
    while (r == 0) {
        while (ps->pos < ps->len && strchr(" \t\n;", ps->s[ps->pos]))
            ps->pos++;
        if (ps->pos >= ps->len)
            break;
        if (ps->s[ps->pos] == '#') {
            while (ps->pos < ps->len && ps->s[ps->pos] != '\n')
                ps->pos++;
            continue;
        }
        sed_cmd *c = new_cmd(ps);
        if (!c) {
            r = oom_parse(ps);
            break;
        }
        if ((r = parse_addr(ps, &c->a1, 0)) < 0)
            break;
        if (c->a1.kind != A_NONE) {
            skip_blanks(ps);
            if (peek(ps) == ',') {
                ps->pos++;
                skip_blanks(ps);
                if ((r = parse_addr(ps, &c->a2, 1)) < 0)
                    break;
                if (c->a2.kind == A_NONE) {
                    r = perr(ps, "unexpected `,'");
                    break;
                }
            }
            if ((c->a1.kind == A_LINE || (c->a1.kind == A_STEP && c->a1.step == 0)) &&
                c->a1.n == 0) {
                if (c->a1.kind == A_STEP || c->a2.kind != A_REGEX) {
                    r = perr(ps, "invalid usage of line address 0");
                    break;
                }
                c->a1.kind = A_ZERO;
                c->range_active = 1;
            }
        }
        skip_blanks(ps);
        while (peek(ps) == '!') {
            if (c->negate) {
                r = perr(ps, "multiple `!'s");
                break;
            }
            c->negate = 1;
            ps->pos++;
            skip_blanks(ps);
        }
        if (r < 0)
            break;
        if (ps->pos >= ps->len) {
            r = perr(ps, "missing command");
            break;
        }
        c->name = ps->s[ps->pos++];
        if (c->name == '{') {
            size_t *grown = realloc(blocks, (nblocks + 1) * sizeof(*grown));
            if (!grown) {
                r = oom_parse(ps);
                break;
            }
            blocks = grown;
            blocks[nblocks++] = ps->prog->ncmds - 1;
            continue;
        }
        if (c->name == '}') {
            if (nblocks == 0) {
                r = perr(ps, "unexpected `}'");
                break;
            }
            if (c->a1.kind != A_NONE || c->negate) {
                r = perr(ps, "} doesn't want any addresses");
                break;
            }
            ps->prog->cmds[blocks[--nblocks]].target = ps->prog->ncmds;
        }
        r = parse_args(ps, c);
    }
    if (r == 0 && nblocks > 0)
        r = perr(ps, "unmatched `{'");
    free(blocks);
    if (r == 0)
        r = resolve_labels(ps);
    return r;
}

static void free_prog(sed_prog *pr)
{
    for (size_t i = 0; i < pr->ncmds; i++) {
        free(pr->cmds[i].text);
        free(pr->cmds[i].repl);
        free(pr->cmds[i].rdata);
    }
    free(pr->cmds);
    for (size_t i = 0; i < pr->nrx; i++) {
        regfree(&pr->rxs[i]->re);
        free(pr->rxs[i]);
    }
    free(pr->rxs);
    for (size_t i = 0; i < pr->nw; i++) {
        free(pr->wfiles[i]->name);
        sh_buf_free(&pr->wfiles[i]->buf);
        free(pr->wfiles[i]);
    }
    free(pr->wfiles);
}

/* ---------- Executor ---------- */

/* Stats a path relative to the shell's directory: 0, or the errno. */
static int stat_path(sh_proc *p, const char *name, struct stat *st)
{
    return sh_stat(p, name, st, 1) == 0 ? 0 : errno;
}

/* Marks the run failed on out of memory; returns -1. */
static int oom_run(sed_run *r)
{
    if (!r->failed) {
        sh_err(r->p, "couldn't allocate memory");
        r->status = SED_PANIC;
    }
    r->failed = 1;
    return -1;
}

/* Writes bytes to an output, first ending a line left without its terminator. */
static int out_raw(sed_run *r, sed_out *o, const char *d, size_t n)
{
    if (o->missing_nl) {
        o->missing_nl = 0;
        if (out_raw(r, o, &r->sep, 1) < 0)
            return -1;
    }
    if (n == 0)
        return 0;
    if (o->direct) {
        if (sh_out(r->p, d, n) < 0) {
            r->failed = 1;
            r->status = SH_STATUS_PIPE;
            return -1;
        }
        return 0;
    }
    return sh_buf_add(&o->buf, d, n) < 0 ? oom_run(r) : 0;
}

/* Writes a line and its terminator, or notes the terminator is owed when the
 * input line had none (the way GNU sed keeps a missing final newline). */
static int out_line(sed_run *r, sed_out *o, const char *d, size_t n, int chomped)
{
    if (out_raw(r, o, d, n) < 0)
        return -1;
    if (chomped)
        return out_raw(r, o, &r->sep, 1);
    o->missing_nl = 1;
    return 0;
}

/* The output a w file index names. */
static sed_out *wout(sed_run *r, int index)
{
    return index >= 0 ? r->prog->wfiles[index] : &r->wstdout;
}

/* Writes the text of i or c: GNU sed ends it with the line terminator (a NUL
 * with -z) rather than the newline it was written with. */
static int out_text(sed_run *r, const sed_cmd *c)
{
    if (c->text_len == 0)
        return out_raw(r, r->out, "", 0);
    return out_line(r, r->out, c->text, c->text_len - 1, 1);
}

/* Writes the pattern space to a w file (or /dev/stdout, /dev/stderr). */
static int write_wfile(sed_run *r, int index)
{
    if (index == W_STDERR) {
        sh_write(r->p->err, r->ps.data, r->ps.len);
        sh_write(r->p->err, &r->sep, 1);
        return 0;
    }
    return out_line(r, wout(r, index), r->ps.data, r->ps.len, r->chomped);
}

/* Whether another line follows in the current input range of files. */
static int has_next(const sed_run *r)
{
    for (size_t i = r->fi; i < r->fi_end; i++) {
        size_t from = i == r->fi ? r->fpos : 0;
        if (r->in[i].ok && from < r->in[i].len)
            return 1;
    }
    return 0;
}

/* Reads the next input line into the pattern space (appending after a newline
 * when append is set). Returns 1, 0 at the end of the input, or -1 when out
 * of memory. */
static int read_line(sed_run *r, int append)
{
    while (r->fi < r->fi_end && (!r->in[r->fi].ok || r->fpos >= r->in[r->fi].len)) {
        if (r->fi + 1 >= r->fi_end)
            return 0;
        r->fi++;
        r->fpos = 0;
    }
    if (r->fi >= r->fi_end)
        return 0;
    sed_input *f = &r->in[r->fi];
    const char *start = f->data + r->fpos;
    size_t rest = f->len - r->fpos;
    const char *end = memchr(start, r->sep, rest);
    size_t n = end ? (size_t)(end - start) : rest;
    r->fpos += n + (end != NULL);
    r->chomped = end != NULL;
    if (!append)
        r->ps.len = 0;
    else if (sh_buf_addc(&r->ps, r->sep) < 0)
        return oom_run(r);
    if (sh_buf_add(&r->ps, start, n) < 0 || !sh_buf_cstr(&r->ps))
        return oom_run(r);
    r->line++;
    return 1;
}

/* Writes the queued a and r text. */
static int flush_append(sed_run *r)
{
    int rc = 0;
    if (r->append_queued || r->append.len)
        rc = out_raw(r, r->out, r->append.data, r->append.len);
    r->append.len = 0;
    r->append_queued = 0;
    return rc;
}

/* The regex to use: rx, or for the empty regex (NULL) the last one used, which
 * then stays the last one. NULL after an error when there is none yet. */
static sed_rx *use_rx(sed_run *r, sed_rx *rx)
{
    if (!rx)
        rx = r->last_rx;
    if (!rx) {
        sh_err(r->p, "no previous regular expression");
        r->status = SED_BAD_USAGE;
        r->failed = 1;
        return NULL;
    }
    r->last_rx = rx;
    return rx;
}

/* Matches a regex address against the pattern space: 1, 0, or -1 on error. */
static int match_rx(sed_run *r, sed_rx *rx)
{
    if (!(rx = use_rx(r, rx)))
        return -1;
    regmatch_t m[SED_NMATCH];
    if (!sh_buf_cstr(&r->ps))
        return oom_run(r);
    return rx_exec(rx, r->ps.data, r->ps.len, 0, m);
}

/* Whether a single address selects the current line (1, 0, or -1 on error). */
static int match_one(sed_run *r, const sed_addr *a)
{
    switch (a->kind) {
    case A_LINE:
        return r->line == a->n;
    case A_STEP:
        if (a->step == 0)
            return r->line == a->n;
        return r->line >= a->n && (r->line - a->n) % a->step == 0;
    case A_LAST:
        return !has_next(r);
    case A_REGEX:
        return match_rx(r, a->rx);
    }
    return 0;
}

/* Whether command c applies to the current line, following GNU's rules for
 * ranges: the second address is checked from the line after the first, a line
 * number not past the first selects one line, and addr,+N / addr,~N end where
 * they say. Returns 1, 0, or -1 on error. */
static int match_addr(sed_run *r, sed_cmd *c)
{
    if (c->a1.kind == A_NONE)
        return !c->negate;
    int m;
    if (c->a2.kind == A_NONE) {
        m = match_one(r, &c->a1);
    } else if (c->range_active) {
        m = 1;
        int end = 0;
        switch (c->a2.kind) {
        case A_LINE:
            end = r->line >= c->a2.n;
            break;
        case A_PLUS:
        case A_MULT:
            end = r->line >= c->range_end;
            break;
        default:
            end = match_one(r, &c->a2);
            if (end < 0)
                return -1;
        }
        if (end)
            c->range_active = 0;
    } else {
        m = match_one(r, &c->a1);
        if (m > 0) {
            switch (c->a2.kind) {
            case A_LINE:
                c->range_active = c->a2.n > r->line;
                break;
            case A_PLUS:
                c->range_end = r->line + c->a2.n;
                c->range_active = c->a2.n > 0;
                break;
            case A_MULT:
                if (c->a2.n > 0 && r->line % c->a2.n != 0) {
                    c->range_end = (r->line / c->a2.n + 1) * c->a2.n;
                    c->range_active = 1;
                }
                break;
            case A_LAST:
                c->range_active = has_next(r);
                break;
            default:
                c->range_active = 1;
            }
        }
    }
    if (m < 0)
        return -1;
    return c->negate ? !m : m;
}

/* Appends bytes to the replacement result, applying \U \L \u \l case changes. */
static int add_cased(sh_buf *b, const char *s, size_t n, int mode, int *one)
{
    for (size_t i = 0; i < n; i++) {
        int ch = (unsigned char)s[i];
        int how = *one ? *one : mode;
        *one = 0;
        if (how == 'U' || how == 'u')
            ch = toupper(ch);
        else if (how == 'L' || how == 'l')
            ch = tolower(ch);
        if (sh_buf_addc(b, (char)ch) < 0)
            return -1;
    }
    return 0;
}

/* Appends the replacement for one match (m) of the s command c to b. */
static int apply_repl(const sed_cmd *c, const char *ps, const regmatch_t *m, sh_buf *b)
{
    int mode = 0, one = 0;
    for (size_t i = 0; i < c->repl_len; i++) {
        char ch = c->repl[i];
        int rc;
        if (ch == '&' || (ch == '\\' && i + 1 < c->repl_len && isdigit((unsigned char)c->repl[i + 1]))) {
            int g = ch == '&' ? 0 : c->repl[++i] - '0';
            if (m[g].rm_so < 0)
                continue;
            rc = add_cased(b, ps + m[g].rm_so, (size_t)(m[g].rm_eo - m[g].rm_so), mode, &one);
        } else if (ch == '\\' && i + 1 < c->repl_len) {
            char d = c->repl[++i];
            if (d == 'U' || d == 'L' || d == 'E') {
                mode = d == 'E' ? 0 : d;
                one = 0;
                continue;
            }
            if (d == 'u' || d == 'l') {
                one = d;
                continue;
            }
            rc = add_cased(b, &d, 1, mode, &one);
        } else {
            rc = add_cased(b, &ch, 1, mode, &one);
        }
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Runs an s command on the pattern space. Returns 1 if it replaced, 0 if not,
 * -1 on error. An empty match right after the previous match is skipped, as
 * GNU does (so s/x*\/-/g on "abc" gives "-a-b-c-"). */
static int do_subst(sed_run *r, const sed_cmd *c)
{
    sed_rx *rx = use_rx(r, c->rx);
    if (!rx)
        return -1;
    if (!sh_buf_cstr(&r->ps))
        return oom_run(r);
    const char *s = r->ps.data;
    size_t len = r->ps.len, pos = 0, copied = 0;
    long prev_end = -1;
    int count = 0, done = 0;
    sh_buf *out = &r->tmp;
    out->len = 0;
    regmatch_t m[SED_NMATCH];
    while (pos <= len && rx_exec(rx, s, len, pos, m)) {
        size_t so = (size_t)m[0].rm_so, eo = (size_t)m[0].rm_eo;
        if (so == eo && (long)so == prev_end) {
            pos = so + 1;
            continue;
        }
        count++;
        if (count >= c->nth) {
            if (sh_buf_add(out, s + copied, so - copied) < 0 || apply_repl(c, s, m, out) < 0)
                return oom_run(r);
            copied = eo;
            done = 1;
            if (!c->global)
                break;
        }
        prev_end = (long)eo;
        pos = so == eo ? so + 1 : eo;
    }
    if (!done)
        return 0;
    if (sh_buf_add(out, s + copied, len - copied) < 0)
        return oom_run(r);
    sh_buf swap = r->ps;
    r->ps = r->tmp;
    r->tmp = swap;
    if (!sh_buf_cstr(&r->ps))
        return oom_run(r);
    return 1;
}

/* The l command: the pattern space with escapes, wrapped at width - 1. */
static int do_list(sed_run *r, long width)
{
    sh_buf b = { 0 };
    size_t col = 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < r->ps.len; i++) {
        unsigned char ch = (unsigned char)r->ps.data[i];
        char rep[8];
        const char *esc = strchr("\\\a\b\f\n\r\t\v", ch);
        if (ch && esc)
            snprintf(rep, sizeof(rep), "\\%c", "\\abfnrtv"[esc - "\\\a\b\f\n\r\t\v"]);
        else if (isprint(ch))
            snprintf(rep, sizeof(rep), "%c", ch);
        else
            snprintf(rep, sizeof(rep), "\\%03o", ch);
        size_t n = strlen(rep);
        if (width > 1 && col + n > (size_t)width - 1) {
            rc = sh_buf_add(&b, "\\\n", 2);
            col = 0;
        }
        if (rc == 0)
            rc = sh_buf_add(&b, rep, n);
        col += n;
    }
    if (rc == 0)
        rc = sh_buf_addc(&b, '$') < 0 ? -1 : sh_buf_addc(&b, r->sep);
    if (rc < 0) {
        sh_buf_free(&b);
        return oom_run(r);
    }
    rc = out_raw(r, r->out, b.data, b.len);
    sh_buf_free(&b);
    return rc;
}

/* Loads a file for r and R: *data is NULL when it cannot be read, which
 * GNU sed silently ignores. Returns -1 only when out of memory. */
static int load_quiet(sed_run *r, const char *name, char **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    if (strcmp(name, "/dev/stdin") == 0)
        name = "-";
    struct stat st;
    int e = strcmp(name, "-") == 0 ? 0 : stat_path(r->p, name, &st);
    if (e == ENOMEM)
        return oom_run(r);
    if (e || (strcmp(name, "-") != 0 && !S_ISREG(st.st_mode)))
        return 0;
    if (sh_load(r->p, name, data, len) < 0)
        *data = NULL;
    return 0;
}

/* Queues a file's contents for the end of the cycle (r). */
static int queue_file(sed_run *r, const char *name)
{
    char *data;
    size_t len;
    r->append_queued = 1;
    if (load_quiet(r, name, &data, &len) < 0)
        return -1;
    int rc = data && sh_buf_add(&r->append, data, len) < 0 ? oom_run(r) : 0;
    free(data);
    return rc;
}

/* Queues the next line of the R command's file for the end of the cycle. */
static int queue_line(sed_run *r, sed_cmd *c)
{
    if (!c->rloaded) {
        if (load_quiet(r, c->text, &c->rdata, &c->rlen) < 0)
            return -1;
        c->rloaded = 1;
    }
    if (c->rpos >= c->rlen)
        return 0;
    const char *start = c->rdata + c->rpos;
    const char *nl = memchr(start, '\n', c->rlen - c->rpos);
    size_t n = nl ? (size_t)(nl - start) : c->rlen - c->rpos;
    c->rpos += n + (nl != NULL);
    if (sh_buf_add(&r->append, start, n) < 0 || sh_buf_addc(&r->append, '\n') < 0)
        return oom_run(r);
    return 0;
}

/* Copies src over dst for g and h, or appends it after a line terminator
 * for G and H. */
static int copy_space(sed_run *r, sh_buf *dst, const sh_buf *src, int append)
{
    if (!append)
        dst->len = 0;
    else if (sh_buf_addc(dst, r->sep) < 0)
        return oom_run(r);
    return sh_buf_add(dst, src->data, src->len) < 0 ? oom_run(r) : 0;
}

/* Outcomes of running the script over one pattern space. */
enum { END_PRINT, END_DELETE, END_RESTART, END_QUIT, END_QUIT_SILENT, END_ERROR };

/* Runs the script over the pattern space; returns an END_ value. */
static int exec_script(sed_run *r)
{
    sed_prog *pr = r->prog;
    size_t pc = 0;
    while (pc < pr->ncmds) {
        sed_cmd *c = &pr->cmds[pc++];
        if (c->name == '}' || c->name == ':')
            continue;
        int m = match_addr(r, c);
        if (m < 0)
            return END_ERROR;
        if (!m) {
            if (c->name == '{')
                pc = c->target;
            continue;
        }
        int rc = 0;
        switch (c->name) {
        case '{':
            break;
        case '=':
            r->tmp.len = 0;
            rc = sh_buf_addf(&r->tmp, "%lu%c", r->line, r->sep) < 0
                     ? oom_run(r)
                     : out_raw(r, r->out, r->tmp.data, r->tmp.len);
            break;
        case 'a':
            r->append_queued = 1;
            rc = sh_buf_add(&r->append, c->text, c->text_len) < 0 ? oom_run(r) : 0;
            break;
        case 'i':
            rc = out_text(r, c);
            break;
        case 'c':
            if (c->a2.kind == A_NONE || !c->range_active || c->negate)
                rc = out_text(r, c);
            if (rc == 0)
                return END_DELETE;
            break;
        case 'b':
            pc = c->target;
            break;
        case 't':
        case 'T':
            if (r->tflag == (c->name == 't'))
                pc = c->target;
            r->tflag = 0;
            break;
        case 'd':
            return END_DELETE;
        case 'D': {
            char *nl = memchr(r->ps.data, r->sep, r->ps.len);
            if (!nl)
                return END_DELETE;
            size_t cut = (size_t)(nl - r->ps.data) + 1;
            memmove(r->ps.data, r->ps.data + cut, r->ps.len - cut);
            r->ps.len -= cut;
            return END_RESTART;
        }
        case 'F':
            rc = out_raw(r, r->out, r->in[r->fi].name, strlen(r->in[r->fi].name));
            if (rc == 0)
                rc = out_raw(r, r->out, "\n", 1);
            break;
        case 'g':
        case 'G':
            rc = copy_space(r, &r->ps, &r->hs, c->name == 'G');
            r->chomped = r->hs_chomped;
            break;
        case 'h':
        case 'H':
            rc = copy_space(r, &r->hs, &r->ps, c->name == 'H');
            r->hs_chomped = r->chomped;
            break;
        case 'x': {
            sh_buf swap = r->ps;
            r->ps = r->hs;
            r->hs = swap;
            int ch = r->chomped;
            r->chomped = r->hs_chomped;
            r->hs_chomped = ch;
            break;
        }
        case 'l':
            rc = do_list(r, c->num >= 0 ? c->num : r->line_len);
            break;
        case 'n':
            if (!has_next(r))
                return END_PRINT; /* GNU ends the script, printing as usual */
            if (!r->quiet)
                rc = out_line(r, r->out, r->ps.data, r->ps.len, r->chomped);
            if (rc == 0)
                rc = flush_append(r);
            if (rc == 0 && read_line(r, 0) < 0)
                rc = -1;
            break;
        case 'N':
            if (!has_next(r))
                return END_PRINT;
            rc = flush_append(r);
            if (rc == 0 && read_line(r, 1) < 0)
                rc = -1;
            break;
        case 'p':
            rc = out_line(r, r->out, r->ps.data, r->ps.len, r->chomped);
            break;
        case 'P': {
            char *nl = memchr(r->ps.data, r->sep, r->ps.len);
            size_t n = nl ? (size_t)(nl - r->ps.data) : r->ps.len;
            rc = out_line(r, r->out, r->ps.data, n, nl ? 1 : r->chomped);
            break;
        }
        case 'q':
        case 'Q':
            /* As exit(): only the low 8 bits of the status survive. */
            r->status = c->num >= 0 ? (int)(c->num & 0xff) : 0;
            return c->name == 'q' ? END_QUIT : END_QUIT_SILENT;
        case 'r':
            rc = queue_file(r, c->text);
            break;
        case 'R':
            rc = queue_line(r, c);
            break;
        case 'W': {
            char *nl = memchr(r->ps.data, r->sep, r->ps.len);
            if (c->wfile == W_STDERR) {
                sh_write(r->p->err, r->ps.data, nl ? (size_t)(nl - r->ps.data) : r->ps.len);
                sh_write(r->p->err, &r->sep, 1);
            } else {
                rc = out_line(r, wout(r, c->wfile), r->ps.data,
                              nl ? (size_t)(nl - r->ps.data) : r->ps.len, 1);
            }
            break;
        }
        case 's': {
            int done = do_subst(r, c);
            if (done < 0)
                return END_ERROR;
            if (done) {
                r->tflag = 1;
                if (c->print)
                    rc = out_line(r, r->out, r->ps.data, r->ps.len, r->chomped);
                if (rc == 0 && c->wfile != W_NONE)
                    rc = write_wfile(r, c->wfile);
            }
            break;
        }
        case 'w':
            rc = write_wfile(r, c->wfile);
            break;
        case 'y':
            for (size_t i = 0; i < r->ps.len; i++)
                r->ps.data[i] = (char)c->ymap[(unsigned char)r->ps.data[i]];
            break;
        case 'z':
            r->ps.len = 0;
            break;
        }
        if (rc < 0)
            return END_ERROR;
        if (!sh_buf_cstr(&r->ps)) {
            oom_run(r);
            return END_ERROR;
        }
    }
    return END_PRINT;
}

/* Runs cycles over the lines of input files [fi, fi_end) until they end or a
 * q command. Returns 0, or -1 on a fatal error. */
static int run_cycles(sed_run *r)
{
    while (!r->quit && read_line(r, 0) > 0) {
        r->tflag = 0;
        int end;
        do {
            end = exec_script(r);
            if (end == END_ERROR)
                return -1;
            if (end == END_RESTART && flush_append(r) < 0)
                return -1;
        } while (end == END_RESTART);
        if (end == END_QUIT_SILENT) {
            r->quit = 1;
            break;
        }
        if ((end == END_PRINT || end == END_QUIT) && !r->quiet &&
            out_line(r, r->out, r->ps.data, r->ps.len, r->chomped) < 0)
            return -1;
        /* q ends a line left without its newline, as GNU's does. */
        if (end == END_QUIT)
            r->append_queued = 1;
        if (flush_append(r) < 0)
            return -1;
        if (end == END_QUIT)
            r->quit = 1;
    }
    return r->failed ? -1 : 0;
}

/* Makes input file i the whole input, for -s and -i: $ is its last line and
 * line numbers start again. */
static void select_file(sed_run *r, size_t i)
{
    r->fi = i;
    r->fi_end = i + 1;
    r->fpos = 0;
    r->line = 0;
}

/* The backup name for in-place editing: SUFFIX appended, or with '*' in it,
 * each '*' replaced by the file's base name (in the file's directory unless
 * the suffix names one). Caller frees; NULL when out of memory. */
static char *backup_name(const char *file, const char *suffix)
{
    sh_buf b = { 0 };
    int rc = 0;
    if (!strchr(suffix, '*')) {
        rc = sh_buf_adds(&b, file) < 0 || sh_buf_adds(&b, suffix) < 0 ? -1 : 0;
    } else {
        const char *slash = strrchr(file, '/');
        const char *base = slash ? slash + 1 : file;
        if (slash && !strchr(suffix, '/'))
            rc = sh_buf_add(&b, file, (size_t)(base - file));
        for (const char *s = suffix; rc == 0 && *s; s++)
            rc = *s == '*' ? sh_buf_adds(&b, base) : sh_buf_addc(&b, *s);
    }
    char *name = rc == 0 ? sh_buf_take(&b, NULL) : NULL;
    sh_buf_free(&b);
    return name;
}

/* Edits each input file in place: its output is collected and written over
 * it (after saving a backup when a suffix is given). */
static int run_in_place(sed_run *r, const char *suffix)
{
    for (size_t i = 0; i < r->nin && !r->quit; i++) {
        sed_input *f = &r->in[i];
        if (!f->ok)
            continue;
        select_file(r, i);
        r->file.buf.len = 0;
        r->file.missing_nl = 0;
        r->out = &r->file;
        if (run_cycles(r) < 0)
            return -1;
        if (suffix && *suffix) {
            char *bak = backup_name(f->name, suffix);
            if (!bak)
                return oom_run(r);
            int rc = sh_save(r->p, bak, f->data, f->len, 0);
            free(bak);
            if (rc < 0) {
                r->status = SED_PANIC;
                return -1;
            }
        }
        if (sh_save(r->p, f->name, r->file.buf.data, r->file.buf.len, 0) < 0) {
            r->status = SED_PANIC;
            return -1;
        }
    }
    return 0;
}

/* Loads the input files; unreadable ones are reported (status 2) and skipped. */
static int load_inputs(sed_run *r, char **names, size_t n, int in_place)
{
    size_t count = n ? n : 1;
    r->in = calloc(count, sizeof(*r->in));
    if (!r->in)
        return oom_run(r);
    r->nin = count;
    for (size_t i = 0; i < count; i++) {
        sed_input *f = &r->in[i];
        const char *name = n ? names[i] : "-";
        f->name = name;
        int is_stdin = strcmp(name, "-") == 0;
        if (in_place && is_stdin) {
            sh_err(r->p, "couldn't edit -: not a regular file");
            r->status = SED_PANIC;
            continue;
        }
        if (!is_stdin) {
            struct stat st;
            int e = stat_path(r->p, name, &st);
            if (e) {
                sh_err(r->p, "can't read %s: %s", name, strerror(e));
                r->status = SED_BAD_INPUT;
                continue;
            }
            if (S_ISDIR(st.st_mode)) {
                if (in_place)
                    sh_err(r->p, "couldn't edit %s: not a regular file", name);
                else
                    sh_err(r->p, "read error on %s: Is a directory", name);
                r->status = SED_PANIC;
                continue;
            }
        }
        if (sh_load(r->p, name, &f->data, &f->len) < 0) {
            r->status = SED_BAD_INPUT;
            continue;
        }
        f->ok = 1;
    }
    return 0;
}

/* Runs the compiled program over the inputs and writes the w files. */
static int run_program(sed_run *r, char **files, size_t nfiles, int in_place, const char *suffix)
{
    r->std.direct = 1;
    r->wstdout.direct = 1;
    r->out = &r->std;
    int rc = load_inputs(r, files, nfiles, in_place);
    if (rc == 0 && in_place) {
        rc = run_in_place(r, suffix);
    } else if (rc == 0 && r->separate) {
        for (size_t i = 0; rc == 0 && i < r->nin && !r->quit; i++) {
            select_file(r, i);
            rc = run_cycles(r);
        }
    } else if (rc == 0) {
        r->fi = 0;
        r->fi_end = r->nin;
        rc = run_cycles(r);
    }
    for (size_t i = 0; i < r->prog->nw; i++) {
        sed_out *o = r->prog->wfiles[i];
        if (sh_save(r->p, o->name, o->buf.data, o->buf.len, 0) < 0 && !r->failed)
            r->status = SED_PANIC;
    }
    for (size_t i = 0; i < r->nin; i++)
        free(r->in[i].data);
    free(r->in);
    sh_buf_free(&r->ps);
    sh_buf_free(&r->hs);
    sh_buf_free(&r->tmp);
    sh_buf_free(&r->append);
    sh_buf_free(&r->file.buf);
    return rc;
}

/* Prints the usage: the full text on stdout for --help, the first line on
 * stderr after a usage error. Returns the exit status. */
static int usage(sh_proc *p, int help)
{
    static const char text[] =
        "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...\n"
        "\n"
        "  -n, --quiet, --silent\n"
        "                 suppress automatic printing of pattern space\n"
        "  -e script, --expression=script\n"
        "                 add the script to the commands to be executed\n"
        "  -f script-file, --file=script-file\n"
        "                 add the contents of script-file to the commands to be executed\n"
        "  -i[SUFFIX], --in-place[=SUFFIX]\n"
        "                 edit files in place (makes backup if SUFFIX supplied)\n"
        "  -l N, --line-length=N\n"
        "                 specify the desired line-wrap length for the `l' command\n"
        "  -E, -r, --regexp-extended\n"
        "                 use extended regular expressions in the script\n"
        "  -s, --separate\n"
        "                 consider files as separate rather than as a single,\n"
        "                 continuous long stream.\n"
        "  -z, --null-data\n"
        "                 separate lines by NUL characters\n"
        "      --help     display this help and exit\n"
        "      --version  output version information and exit\n";
    if (help)
        return sh_outs(p, text) < 0 ? SH_STATUS_PIPE : -1;
    sh_write(p->err, text, (size_t)(strchr(text, '\n') + 1 - text));
    return SED_BAD_USAGE;
}

/* Adds one script part (an -e expression or a -f file's text) to the joined
 * script, recording where it starts for error messages. */
static int add_piece(sh_buf *script, sed_piece **pieces, size_t *n, const char *text, size_t len,
                     const char *file)
{
    sed_piece *grown = realloc(*pieces, (*n + 1) * sizeof(*grown));
    if (!grown)
        return -1;
    *pieces = grown;
    grown[*n].start = script->len;
    grown[*n].file = file;
    (*n)++;
    if (sh_buf_add(script, text, len) < 0 || sh_buf_addc(script, '\n') < 0)
        return -1;
    return 0;
}

static int sed_main(sh_proc *p, int argc, char **argv)
{
    static const sh_longopt longs[] = {
        { "quiet", 0, 'n' },           { "silent", 0, 'n' },
        { "expression", 1, 'e' },      { "file", 1, 'f' },
        { "regexp-extended", 0, 'E' }, { "in-place", 2, 'i' },
        { "separate", 0, 's' },        { "null-data", 0, 'z' },
        { "zero-terminated", 0, 'z' }, { "line-length", 1, 'l' },
        { "posix", 0, 'P' },           { "unbuffered", 0, 'u' },
        { "debug", 0, 'D' },           { "sandbox", 0, 'S' },
        { "follow-symlinks", 0, 'L' }, { "help", 0, 'h' },
        { "version", 0, 'V' },         { NULL, 0, 0 },
    };
    sed_run r = { .p = p, .sep = '\n', .line_len = 70, .hs_chomped = 1 };
    sed_prog prog = { 0 };
    sh_buf script = { 0 };
    sed_piece *pieces = NULL;
    size_t npieces = 0;
    char **loaded = NULL;
    size_t nloaded = 0;
    int ere = 0, in_place = 0, status = SED_OK, oom = 0;
    const char *suffix = NULL;
    sh_opt o = { 1, 0, NULL };
    int c;
    while (status == SED_OK && (c = sh_getopt(p, &o, argc, argv, "ne:f:Erisuzl:", longs)) != -1) {
        switch (c) {
        case 'n':
            r.quiet = 1;
            break;
        case 'e':
            oom = add_piece(&script, &pieces, &npieces, o.arg, strlen(o.arg), NULL) < 0;
            break;
        case 'f': {
            char *text;
            size_t len;
            char **grown = realloc(loaded, (nloaded + 1) * sizeof(*grown));
            if (!grown) {
                oom = 1;
                break;
            }
            loaded = grown;
            struct stat st;
            int e = strcmp(o.arg, "-") == 0 ? 0 : stat_path(p, o.arg, &st);
            if (e) {
                sh_err(p, "couldn't open file %s: %s", o.arg, strerror(e));
                status = SED_PANIC;
                break;
            }
            if (sh_load(p, o.arg, &text, &len) < 0) {
                status = SED_PANIC;
                break;
            }
            loaded[nloaded++] = text;
            if (len > 0 && text[len - 1] == '\n')
                len--;
            oom = add_piece(&script, &pieces, &npieces, text, len, o.arg) < 0;
            break;
        }
        case 'E':
        case 'r':
            ere = 1;
            break;
        case 'i':
            /* -i takes an optional suffix glued to it: the rest of the cluster. */
            in_place = 1;
            r.separate = 1;
            suffix = o.arg;
            if (!suffix && o.pos > 0) {
                suffix = argv[o.ind] + o.pos;
                o.ind++;
                o.pos = 0;
            }
            break;
        case 's':
            r.separate = 1;
            break;
        case 'z':
            r.sep = '\0';
            break;
        case 'l': {
            char *end;
            long v = strtol(o.arg, &end, 10);
            if (*o.arg == '\0' || *end || v < 0) {
                sh_err(p, "invalid line length: %s", o.arg);
                status = SED_BAD_USAGE;
            }
            r.line_len = v;
            break;
        }
        case 'h':
            status = usage(p, 1);
            break;
        case 'V':
            if (sh_outs(p, "sed (GNU sed) 4.9\n") < 0)
                status = SH_STATUS_PIPE;
            else
                status = -1;
            break;
        case 'P':
        case 'u':
        case 'D':
        case 'S':
        case 'L':
            break;
        default:
            status = usage(p, 0);
        }
        if (oom) {
            sh_oom(p);
            status = SED_PANIC;
        }
    }
    if (status == SED_OK && npieces == 0) {
        if (o.ind >= argc) {
            status = usage(p, 0);
        } else if (add_piece(&script, &pieces, &npieces, argv[o.ind], strlen(argv[o.ind]), NULL) < 0) {
            sh_oom(p);
            status = SED_PANIC;
        } else {
            o.ind++;
        }
    }
    if (status == SED_OK && !sh_buf_cstr(&script)) {
        sh_oom(p);
        status = SED_PANIC;
    }
    if (status == SED_OK) {
        /* "#n" alone on the script's first line is the same as -n. */
        if (script.len >= 3 && memcmp(script.data, "#n\n", 3) == 0)
            r.quiet = 1;
        sed_parser ps = { p, script.data, script.len, 0, pieces, npieces, ere, &prog };
        int rc = compile(&ps);
        if (rc < 0)
            status = rc == -2 ? SED_PANIC : SED_BAD_USAGE;
    }
    if (status == SED_OK && in_place && o.ind >= argc) {
        sh_err(p, "no input files");
        status = SED_PANIC;
    }
    if (status == SED_OK) {
        r.prog = &prog;
        run_program(&r, argv + o.ind, (size_t)(argc - o.ind), in_place, suffix);
        status = r.status;
    }
    free_prog(&prog);
    sh_buf_free(&script);
    free(pieces);
    for (size_t i = 0; i < nloaded; i++)
        free(loaded[i]);
    free(loaded);
    return status < 0 ? SED_OK : status;
}

const sh_applet sh_applets_sed[] = {
    { "sed", sed_main, "stream editor: filter and transform text" },
    { NULL, NULL, NULL },
};
