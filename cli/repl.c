/* The interactive capsa shell (see repl.h). Line editing and history come from
 * libedit (BSD licence) through its readline interface, loaded when the shell is
 * on a terminal (net/lazylibs.c; without it, plain lines). Ctrl-C: the signal
 * handler only writes a byte to a pipe; a thread of ours reads it and calls
 * capsa_interrupt, which is safe from any thread but not from a signal handler.
 * A command line is complete when the shell parses it: the shell parses a whole
 * command line before it runs any of it, so a line it rejects for ending too
 * early (an if without fi, an open quote, a trailing |) has run nothing, and
 * the next line is appended to it. */
#define _GNU_SOURCE
#include "repl.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../net/lazylibs.h" /* libedit, loaded when the shell is on a terminal */
#include "opts.h"

/* The longest command line the loop gathers. */
#define REPL_MAX_INPUT (1u << 20)

/* ---- output ------------------------------------------------------------------------- */

/* While a command line runs, its first stderr bytes are held back (up to HOLD_MAX,
 * until it writes to stdout, or until it ends) in case they are the parser's
 * complaint about a command line that is not finished. */
#define HOLD_MAX 1024
static char held[HOLD_MAX];
static size_t held_len;
static int holding;

static void flush_held(void)
{
    if (held_len)
        fwrite(held, 1, held_len, stderr);
    fflush(stderr);
    held_len = 0;
    holding = 0;
}

void cli_repl_output(void *ud, int stream, const char *data, size_t len)
{
    (void)ud;
    if (stream == CAPSA_STDERR && holding && held_len + len <= HOLD_MAX) {
        memcpy(held + held_len, data, len);
        held_len += len;
        return;
    }
    flush_held();
    FILE *f = stream == CAPSA_STDERR ? stderr : stdout;
    fwrite(data, 1, len, f);
    fflush(f);
}

/* Whether the command line's outcome says that it stopped before its end: a
 * syntax error (status 2, nothing on stdout) at the end of the input. */
static int unfinished(int rc, const capsa_result *r)
{
    if (rc != CAPSA_OK || capsa_result_exit_code(r) != 2)
        return 0;
    size_t out_len = 0, err_len = 0;
    capsa_result_stdout(r, &out_len);
    const char *err = capsa_result_stderr(r, &err_len);
    if (out_len || !err || err_len > HOLD_MAX || strncmp(err, "sh: line ", 9) != 0)
        return 0;
    return strstr(err, "unexpected end of input") || strstr(err, "delimited by end of input") ||
           strstr(err, ": unclosed ");
}

int cli_shell_status(capsa_sandbox *sb, int rc, const capsa_result *r)
{
    if (rc == CAPSA_OK && capsa_result_exit_code(r) >= 0)
        return capsa_result_exit_code(r);
    if (r && (rc == CAPSA_ETRAP || rc == CAPSA_ETIMEOUT || rc == CAPSA_EFUEL ||
              rc == CAPSA_EINTERRUPTED))
        fprintf(stderr, "capsa: %s\n", capsa_errmsg(sb));
    else if (r)
        cli_print_error(r);
    else
        fprintf(stderr, "capsa: %s\n", capsa_errmsg(sb));
    return rc == CAPSA_EINTERRUPTED ? 130 : rc == CAPSA_ETIMEOUT || rc == CAPSA_EFUEL ? 124 : 125;
}

/* ---- Ctrl-C ------------------------------------------------------------------------- */

static int sig_pipe[2] = { -1, -1 };
static volatile sig_atomic_t sigint_seen;

static void on_sigint(int sig)
{
    (void)sig;
    int saved = errno;
    sigint_seen = 1;
    char c = 'i';
    if (write(sig_pipe[1], &c, 1) < 0) {
        /* a full pipe already holds an interrupt */
    }
    errno = saved;
}

/* Reads the pipe: each byte interrupts the run in progress, if any; 'q' ends. */
static void *interrupter(void *arg)
{
    capsa_sandbox *sb = arg;
    char c;
    while (read(sig_pipe[0], &c, 1) == 1 && c != 'q')
        capsa_interrupt(sb);
    return NULL;
}

/* ---- the loop ----------------------------------------------------------------------- */

/* The history file: $CAPSA_HISTFILE (empty: none), else $HOME/.capsa_history. */
static char *history_path(void)
{
    const char *h = getenv("CAPSA_HISTFILE");
    if (h)
        return *h ? strdup(h) : NULL;
    const char *home = getenv("HOME");
    char *p = NULL;
    if (home && *home && asprintf(&p, "%s/.capsa_history", home) < 0)
        p = NULL;
    return p;
}

/* Reads one line (without its newline) into a new string: with line editing (ed,
 * libedit's functions) on a terminal, else from stdin, after the prompt when on a
 * terminal without ed. NULL at the end of input; *interrupted when Ctrl-C dropped
 * the line being typed. */
static char *read_line(const lazylibs_edit *ed, int tty, const char *prompt, int *interrupted)
{
    *interrupted = 0;
    if (ed) {
        sigint_seen = 0;
        char *line = ed->readline(prompt);
        if (!line && sigint_seen) {
            *interrupted = 1;
            fputc('\n', stderr);
        }
        return line;
    }
    if (tty) {
        fputs(prompt, stderr);
        fflush(stderr);
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, stdin);
    if (n < 0) {
        free(line);
        return NULL;
    }
    if (n > 0 && line[n - 1] == '\n')
        line[--n] = '\0';
    return line;
}

/* Appends "\n" (when text is not empty) and line to *text. Returns 0, or -1 when
 * the command line would be over REPL_MAX_INPUT or memory is short. */
static int append_line(char **text, size_t *len, const char *line)
{
    size_t l = strlen(line), need = *len + (*len ? 1 : 0) + l + 1;
    if (need > REPL_MAX_INPUT)
        return -1;
    char *t = realloc(*text, need);
    if (!t)
        return -1;
    if (*len)
        t[(*len)++] = '\n';
    memcpy(t + *len, line, l + 1);
    *len += l;
    *text = t;
    return 0;
}

int cli_repl(capsa_sandbox *sb, void (*before)(void *ud), void *ud)
{
    int tty = isatty(0), status = 0;
    char *hist = NULL;
    pthread_t thread;
    int have_thread = 0;
    struct sigaction old_int;
    if (pipe(sig_pipe) == 0 && pthread_create(&thread, NULL, interrupter, sb) == 0) {
        have_thread = 1;
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_sigint;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old_int); /* no SA_RESTART: a read gives EINTR */
    }
    const lazylibs_edit *ed = NULL;
    if (tty) {
        char why[256];
        if (!(ed = lazylibs_edit_get(why, sizeof(why))))
            fprintf(stderr, "capsa: no line editing or history: %s\n", why);
    }
    if (ed) {
        *ed->outstream = stderr; /* prompts and editing on stderr; stdout is the commands' */
        ed->using_history();
        hist = history_path();
        if (hist)
            ed->read_history(hist);
    }
    char *text = NULL;
    size_t len = 0;
    for (;;) {
        int interrupted;
        char *line = read_line(ed, tty, len ? "> " : "$ ", &interrupted);
        if (!line) {
            if (interrupted) {
                free(text);
                text = NULL;
                len = 0;
                continue;
            }
            break;
        }
        if (strlen(line) == 0 && len == 0) {
            free(line);
            continue;
        }
        int bad = append_line(&text, &len, line);
        free(line);
        if (bad) {
            fprintf(stderr, "capsa: a command line over 1 MiB; dropped\n");
            free(text);
            text = NULL;
            len = 0;
            continue;
        }
        if (before)
            before(ud);
        const capsa_result *r = NULL;
        holding = 1;
        int rc = capsa_shell(sb, text, NULL, 0, &r);
        if (unfinished(rc, r)) {
            held_len = 0; /* the parser's complaint: the next line continues it */
            holding = 0;
            continue;
        }
        flush_held();
        if (ed)
            ed->add_history(text);
        free(text);
        text = NULL;
        len = 0;
        status = cli_shell_status(sb, rc, r);
        fflush(stdout);
        if (rc == CAPSA_OK && capsa_result_shell_exited(r))
            break;
    }
    if (text) {
        /* The input ended inside a command line: run it for its error. */
        const capsa_result *r = NULL;
        int rc = capsa_shell(sb, text, NULL, 0, &r);
        flush_held();
        status = cli_shell_status(sb, rc, r);
        free(text);
    }
    if (ed && hist)
        ed->write_history(hist);
    free(hist);
    if (tty)
        fputc('\n', stderr);
    if (have_thread) {
        sigaction(SIGINT, &old_int, NULL);
        char q = 'q';
        if (write(sig_pipe[1], &q, 1) == 1)
            pthread_join(thread, NULL);
    }
    if (sig_pipe[0] >= 0) {
        close(sig_pipe[0]);
        close(sig_pipe[1]);
        sig_pipe[0] = sig_pipe[1] = -1;
    }
    return status;
}
