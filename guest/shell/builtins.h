/* The builtins (builtins.c): the commands that read or change the shell itself,
 * above the executor. */
#ifndef CAPSA_SHELL_BUILTINS_H
#define CAPSA_SHELL_BUILTINS_H

#include "exec.h"

/* The builtin called name, or NULL. The builtin hook of every shell (state.h). */
sh_builtin_fn sh_find_builtin(const char *name);

#endif
