/* The executor (exec.c): runs syntax trees and command lines, above the expander.
 * It reaches the builtins and applets only through the hooks of state.h. */
#ifndef CAPSA_SHELL_EXEC_H
#define CAPSA_SHELL_EXEC_H

#include "expand.h"

/* The embedder's command or the applet called name (the embedder's first), or
 * NULL. */
const sh_applet *sh_find_command(sh_shell *sh, const char *name);
/* Runs applet a with argv and the streams of io; its exit status. */
int sh_run_applet(sh_shell *sh, sh_io *io, const sh_applet *a, int argc, char **argv);
/* Parses and runs src in this shell (eval, source, a command line); its exit
 * status, 2 after reporting a syntax error. */
int sh_exec_source(sh_shell *sh, const char *src, sh_io *io);
/* Runs src as a command substitution in a subshell: its output, trailing
 * newlines removed (caller frees), or NULL when out of memory. The capture
 * hook of every shell (state.h). */
char *sh_capture(sh_shell *sh, sh_io *io, const char *src);

#endif
