/* The sqlite3 applet: SQLite's own command-line shell (sqlite3_cli.c) run as a
 * command of ours, with its standard input over the applet's input, its output
 * and errors into the applet's streams, the shell's working directory and
 * variables, and exit() ending the run instead of the process. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fopencookie (the guest is built with it) */
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "sh.h"
#include "sqlite3_cli.h"

/* One run of the command. shell.c keeps its state in file-scope variables, so
 * there is one run at a time in a process (the guest is one thread); `run` is
 * the one in progress, NULL between runs. */
typedef struct sqlite3_run {
    sh_proc *p;
    FILE *std[3];
    const char *in;
    size_t in_len, in_pos;
    int stopped, status; /* exit() was called, with this status */
    int broken;          /* a write to out or err failed */
} sqlite3_run;

static sqlite3_run *run;

static ssize_t stdin_read(void *cookie, char *buf, size_t n)
{
    sqlite3_run *r = cookie;
    if (r->stopped)
        return 0;
    size_t left = r->in_len - r->in_pos;
    if (n > left)
        n = left;
    memcpy(buf, r->in + r->in_pos, n);
    r->in_pos += n;
    return (ssize_t)n;
}

/* Writes go to the applet's stream; once exit() was called they are dropped,
 * as the real command's process would be gone. */
static ssize_t stream_write(sqlite3_run *r, sh_stream *s, const char *buf, size_t n)
{
    if (r->stopped)
        return (ssize_t)n;
    if (sh_write(s, buf, n) < 0) {
        r->broken = 1;
        return -1;
    }
    return (ssize_t)n;
}

static ssize_t stdout_write(void *cookie, const char *buf, size_t n)
{
    sqlite3_run *r = cookie;
    return stream_write(r, r->p->out, buf, n);
}

static ssize_t stderr_write(void *cookie, const char *buf, size_t n)
{
    sqlite3_run *r = cookie;
    return stream_write(r, r->p->err, buf, n);
}

FILE *sh_sqlite3_stdio(int fd)
{
    return run->std[fd];
}

void sh_sqlite3_exit(int status)
{
    if (run->stopped)
        return;
    fflush(run->std[1]);
    run->stopped = 1;
    run->status = status;
}

int sh_sqlite3_stopped(void)
{
    return run->stopped;
}

int sh_sqlite3_isatty(int fd)
{
    return 0;
}

char *sh_sqlite3_getenv(const char *name)
{
    return (char *)sh_getenv(run->p, name);
}

FILE *sh_sqlite3_fopen(const char *path, const char *mode)
{
    if (run->stopped) {
        errno = ECANCELED;
        return NULL;
    }
    return fopen(path, mode);
}

int sh_sqlite3_refused(const char *cmd)
{
    size_t n = strlen(cmd);
    const char *why = NULL;
    if (n >= 2 && (strncmp(cmd, "shell", n) == 0 || strncmp(cmd, "system", n) == 0))
        why = "it runs no other programs";
    else if (n >= 2 && strncmp(cmd, "load", n) == 0)
        why = "extensions cannot be loaded";
    if (!why)
        return 0;
    fprintf(run->std[2], "Error: .%s is not available in the sandbox: %s\n", cmd, why);
    return 1;
}

void sh_sqlite3_out_of_memory(void)
{
    /* shell.c's callers go on with the NULL pointer once exit() returns;
       stopping here is the only safe way out. */
    abort();
}

static int sqlite3_main(sh_proc *p, int argc, char **argv)
{
    if (run) {
        sh_err(p, "cannot run inside another sqlite3");
        return 1;
    }
    sqlite3_run r = { .p = p, .in = p->in, .in_len = p->in_len };
    /* Relative names (the database, .read, .import) are the shell's: shell.c
       opens them through the process's working directory, set for the run. */
    char *cwd = getcwd(NULL, 0);
    /* shell.c reads argv[argc] when an option's argument is missing (after its
       exit() returned): a copy whose last element is "". */
    char **args = malloc(((size_t)argc + 1) * sizeof(*args));
    if (!cwd || !args) {
        free(cwd);
        free(args);
        return sh_oom(p);
    }
    memcpy(args, argv, (size_t)argc * sizeof(*args));
    args[argc] = "";
    if (chdir(sh_cwd(p)) != 0) {
        sh_err_path(p, sh_cwd(p));
        free(cwd);
        free(args);
        return 1;
    }
    r.std[0] = fopencookie(&r, "r", (cookie_io_functions_t){ .read = stdin_read });
    r.std[1] = fopencookie(&r, "w", (cookie_io_functions_t){ .write = stdout_write });
    r.std[2] = fopencookie(&r, "w", (cookie_io_functions_t){ .write = stderr_write });
    int status;
    if (r.std[0] && r.std[1] && r.std[2]) {
        run = &r;
        sh_sqlite3_cli_reset();
        status = sh_sqlite3_cli_main(argc, args);
        if (r.stopped)
            status = r.status;
        fflush(r.std[1]);
        run = NULL;
    } else {
        status = sh_oom(p);
    }
    for (int i = 0; i < 3; i++)
        if (r.std[i])
            fclose(r.std[i]);
    if (chdir(cwd) != 0)
        errno = 0;
    free(cwd);
    free(args);
    if (r.broken && status == 0)
        status = SH_STATUS_PIPE;
    return status & 0xff;
}

const sh_applet sh_applets_sqlite3[] = {
    { "sqlite3", sqlite3_main, "SQLite's command-line shell, on the sandbox's files" },
    { NULL, NULL, NULL },
};
