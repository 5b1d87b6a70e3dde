/* The shell interpreter as its embedder (guest/bridge.c, tests/shell/native.c)
 * sees it: one per guest, its variables, functions and working directory kept
 * between command lines. sh_new and sh_eval are shell.c's, the rest state.c's. */
#ifndef CAPSA_SHELL_SHELL_H
#define CAPSA_SHELL_SHELL_H

#include "sh.h"

typedef struct sh_shell sh_shell;

/* A new shell whose working directory is cwd (absolute). NULL when out of
 * memory. sh_free releases it. */
sh_shell *sh_new(const char *cwd);
void sh_free(sh_shell *sh);
/* Sets a variable (exported when export != 0). 0, or -1 when out of memory. */
int sh_setvar(sh_shell *sh, const char *name, const char *value, int export);
/* Runs the command line src with the given streams and standard input; returns
 * its exit status (2 for a syntax error, reported on err). */
int sh_eval(sh_shell *sh, const char *src, sh_stream *out, sh_stream *err, const char *in,
            size_t in_len);

/* Adds the embedder's commands (the guest's `js` and `tool`), found after the
 * builtins and before the applets. The table (ended by { NULL }) must outlive
 * the shell. */
void sh_set_commands(sh_shell *sh, const sh_applet *commands);
/* Whether `exit` ended the last command line (an interactive loop stops then);
 * the answer is given once. */
int sh_exited(sh_shell *sh);

#endif
