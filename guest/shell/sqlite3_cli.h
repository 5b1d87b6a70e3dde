/* The sqlite3 applet's two halves and what each calls of the other: sqlite3_applet.c,
 * the applet (one run: its streams, working directory and exit status), and
 * sqlite3_cli.c, SQLite's own shell.c compiled with macros that send its
 * process-level calls (standard streams, exit, environment, terminal, files)
 * to sqlite3_applet.c. Only these two files include this header. */
#ifndef CAPSA_SHELL_SQLITE3_CLI_H
#define CAPSA_SHELL_SQLITE3_CLI_H

#include <stdio.h>

/* --- sqlite3_cli.c ------------------------------------------------------------ */

/* shell.c's main: the sqlite3 command. argv[argc] must be a valid string (see
 * sqlite3_applet.c: shell.c reads it after a missing option argument once exit() has
 * returned). Returns its exit status. */
int sh_sqlite3_cli_main(int argc, char **argv);
/* Puts shell.c's file-scope variables back to their initial values, before each
 * run: the applet runs many times in one process. */
void sh_sqlite3_cli_reset(void);

/* --- sqlite3_applet.c: what shell.c's process-level calls become --------------------- */

/* The run's standard streams (0 in, 1 out, 2 err): FILEs over the applet's
 * input and output, valid during a run. */
FILE *sh_sqlite3_stdio(int fd);
/* exit(): records the status (the first one counts) and stops the run: from then
 * on shell.c unwinds by its own returns, with no input, no output, no new file
 * and no SQL statement (sqlite3_cli.c). There is no setjmp in wasi-libc. */
void sh_sqlite3_exit(int status);
/* Whether exit() was called in this run. */
int sh_sqlite3_stopped(void);
/* No terminal: always 0, so the command is never interactive. */
int sh_sqlite3_isatty(int fd);
/* The shell's variables (HOME, for ~/.sqliterc), not the process's. */
char *sh_sqlite3_getenv(const char *name);
/* fopen, refused (NULL, errno ECANCELED) once the run is stopped. */
FILE *sh_sqlite3_fopen(const char *path, const char *mode);
/* For a dot-command shell.c does not know: 1 after printing why it is not
 * available, if it is one the sandbox leaves out (.shell, .system, .load);
 * 0 for shell.c's own "unknown command" message. */
int sh_sqlite3_refused(const char *cmd);
/* Out of memory inside shell.c, which cannot go on: ends the guest's run with a
 * trap (the host reports it and restores the sandbox's memory). */
void sh_sqlite3_out_of_memory(void) __attribute__((noreturn));

#endif
