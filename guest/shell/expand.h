/* Word expansion (expand.c) and shell arithmetic (arith.c): the layer above the
 * parser. Command substitution runs command lines through the capture hook
 * (state.h), never exec.c directly. */
#ifndef CAPSA_SHELL_EXPAND_H
#define CAPSA_SHELL_EXPAND_H

#include "state.h"

/* Each returns -1 (or NULL) after reporting an error on io->err (the status is
 * then set in sh->status). */

/* Expands words into fields (argv NULL-terminated, *argc of them; the caller
 * frees it with sh_free_argv): parameters, substitutions, arithmetic, field
 * splitting, globbing and quote removal. */
int sh_expand_words(sh_shell *sh, sh_io *io, sh_word *words, char ***argv, int *argc);
void sh_free_argv(char **argv);
/* One word to one string (caller frees), without splitting or globbing. */
char *sh_expand_string(sh_shell *sh, sh_io *io, const char *word);
/* A here-document's body: only $, ` and \ are special. */
char *sh_expand_heredoc(sh_shell *sh, sh_io *io, const char *body);
/* A word as a pattern for fnmatch (case, ${x#pat}): quoted characters escaped. */
char *sh_expand_pattern(sh_shell *sh, sh_io *io, const char *word);

/* Evaluates the arithmetic expression expr into *value (arith.c): 0, or -1
 * after reporting. */
int sh_arith(sh_shell *sh, sh_io *io, const char *expr, long long *value);

#endif
