/* The interactive capsa shell: command lines read one after another (edited and
 * recalled on a terminal), a command line left open continued on the next line,
 * Ctrl-C stopping the running command and not the shell. Built on
 * include/capsa.h and libedit. */
#ifndef CAPSA_CLI_REPL_H
#define CAPSA_CLI_REPL_H

#include "capsa.h"

/* The output callback a sandbox run by cli_repl must have as its on_output (ud
 * unused): it holds back what may be the shell's complaint about an unfinished
 * command line, which continues instead. */
void cli_repl_output(void *ud, int stream, const char *data, size_t len);

/* Runs command lines from stdin in sb until `exit` or the end of input; before
 * each, before(ud) when not NULL (to register tools that appeared since).
 * Returns the status of the last command line (cli_shell_status). */
int cli_repl(capsa_sandbox *sb, void (*before)(void *ud), void *ud);

/* The exit status of capsa shell for a command line's outcome (0-255 as the
 * command line ended; 124 when a limit stopped it, 130 when Ctrl-C did, 125 when
 * it could not run),
 * after saying on stderr what stopped it. */
int cli_shell_status(capsa_sandbox *sb, int rc, const capsa_result *r);

#endif
