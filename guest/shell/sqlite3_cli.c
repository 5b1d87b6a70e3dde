/* SQLite's own command-line shell (build/sqlite/shell.c, the sqlite3 command of
 * the pinned SQLite, patched by deps/sqlite/shell-embed.patch) compiled as the
 * engine of the sqlite3 applet: the macros below send its process-level calls to
 * sqlite3_applet.c (sqlite3_cli.h). Third-party code is compiled without our warnings. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqlite3.h"
#include "sqlite3_cli.h"

/* No processes in the sandbox: no .shell/.system/.excel, no pipes (shell.c then
 * says "pipes are not supported"); no terminal. */
#define SQLITE_NOHAVE_SYSTEM 1
#define SQLITE_OMIT_POPEN 1
#define SQLITE_WASI 1 /* no getpwuid: the home directory is $HOME only */
#define SQLITE_SHELL_REFUSED sh_sqlite3_refused
#define SQLITE_SHELL_OUT_OF_MEMORY sh_sqlite3_out_of_memory

#undef stdin
#undef stdout
#undef stderr
#define stdin (sh_sqlite3_stdio(0))
#define stdout (sh_sqlite3_stdio(1))
#define stderr (sh_sqlite3_stdio(2))
static void cli_process_exit(int status);
#define exit cli_process_exit
#define atexit(f) 0
#define signal(sig, handler) SIG_DFL
#define isatty sh_sqlite3_isatty
#define getenv sh_sqlite3_getenv
#define fopen sh_sqlite3_fopen
#define main sh_sqlite3_shell_main

#ifdef __wasi__
/* What WASI has not: file modes (writefile() with a mode then fails as where
 * chmod is refused) and realpath (the realpath() SQL function gives NULL). */
static int cli_chmod(const char *path, mode_t mode)
{
    errno = ENOTSUP;
    return -1;
}
static char *cli_realpath(const char *path, char *resolved)
{
    errno = ENOTSUP;
    return NULL;
}
#define chmod cli_chmod
#define realpath cli_realpath
#endif

/* The library is the guest's, shared with the JS APIs and already initialised:
 * shell.c's global configuration (its log callback, which points into main's
 * frame, URI names, heap and page cache options) is not applied, and the check
 * of "configured after initialisation" passes. URI file names are enabled for
 * each connection the shell opens instead. */
static int cli_config(int op, ...)
{
    return op == -1 ? SQLITE_OK : SQLITE_MISUSE;
}
#define sqlite3_config cli_config
#define sqlite3_shutdown() SQLITE_OK

/* Once exit() was called, shell.c runs on to its own return: it then opens no
 * file (a database name gives an in-memory database), and no statement
 * prepares or steps. */
static int cli_open_v2(const char *name, sqlite3 **db, int flags, const char *vfs)
{
    if (sh_sqlite3_stopped()) {
        name = ":memory:";
        vfs = NULL;
    }
    return sqlite3_open_v2(name, db, flags | SQLITE_OPEN_URI, vfs);
}
static int cli_open(const char *name, sqlite3 **db)
{
    return cli_open_v2(name, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
}
static int cli_prepare_v2(sqlite3 *db, const char *sql, int n, sqlite3_stmt **st,
                          const char **tail)
{
    if (sh_sqlite3_stopped()) {
        *st = NULL;
        return SQLITE_INTERRUPT;
    }
    return sqlite3_prepare_v2(db, sql, n, st, tail);
}
static int cli_prepare(sqlite3 *db, const char *sql, int n, sqlite3_stmt **st,
                       const char **tail)
{
    return cli_prepare_v2(db, sql, n, st, tail);
}
static int cli_step(sqlite3_stmt *st)
{
    return sh_sqlite3_stopped() ? SQLITE_INTERRUPT : sqlite3_step(st);
}
static int cli_exec(sqlite3 *db, const char *sql, int (*cb)(void *, int, char **, char **),
                    void *arg, char **err)
{
    if (sh_sqlite3_stopped()) {
        if (err)
            *err = sqlite3_mprintf("interrupted");
        return SQLITE_INTERRUPT;
    }
    return sqlite3_exec(db, sql, cb, arg, err);
}
#define sqlite3_open_v2 cli_open_v2
#define sqlite3_open cli_open
#define sqlite3_prepare_v2 cli_prepare_v2
#define sqlite3_prepare cli_prepare
#define sqlite3_step cli_step
#define sqlite3_exec cli_exec

/* SQLite's, from -I build/sqlite (guest/shell/shell.c is the interpreter's). */
#include <shell.c>

/* exit() after cli_exit() has printed and freed the captured output of
 * ".output memory": shell.c runs on, and must not touch it again. (After any
 * other exit() that output is dropped, as the real command drops it.) */
static void cli_process_exit(int status)
{
    cli_output_capture = 0;
    sh_sqlite3_exit(status);
}

#undef main
int sh_sqlite3_cli_main(int argc, char **argv)
{
    return sh_sqlite3_shell_main(argc, argv);
}

/* Every file-scope variable of shell.c that a run changes, as it starts (and
 * home_dir through find_home_dir). tests/sqlite/statics.sh checks that each
 * writable variable of this object is reset here or listed there as one that no
 * run changes in a way the next one sees. */
void sh_sqlite3_cli_reset(void)
{
    bail_on_error = 0;
    stdin_is_interactive = 1;
    stdout_is_console = 1;
    stdout_tty_width = -1;
    globalDb = 0;
    seenInterrupt = 0;
    Argv0 = 0;
    if (cli_output_capture)
        sqlite3_str_free(cli_output_capture);
    cli_output_capture = 0;
    memset(&dynPrompt, 0, sizeof(dynPrompt));
    memset(&faultsim_state, 0, sizeof(faultsim_state));
    faultsim_state.iId = -1;
    memset(mainPrompt, 0, sizeof(mainPrompt));
    memset(continuePrompt, 0, sizeof(continuePrompt));
    savedSelectTrace = 0;
    savedWhereTrace = 0;
    memtraceOut = 0; /* -memtrace's stream: unused, as its allocator is never installed */
    pcachetraceOut = 0;
    (void)find_home_dir(1);
}
