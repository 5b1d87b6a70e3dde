/* The shell's entry points (shell.h), its top layer: a new shell with the
 * hooks that let the lower layers reach the upper ones (state.h), and a command
 * line run with its EXIT trap. The only file that knows every layer. */
#include <stdlib.h>

#include "builtins.h"

sh_shell *sh_new(const char *cwd)
{
    sh_shell *sh = sh_state_new(cwd);
    if (sh)
        sh->hooks = (sh_hooks){ sh_capture, sh_find_builtin, sh_applet_find };
    return sh;
}

int sh_eval(sh_shell *sh, const char *src, sh_stream *out, sh_stream *err, const char *in,
            size_t in_len)
{
    sh_input input = { in, in_len, 0 };
    sh_io io = { &input, out, err };
    int status = sh_exec_source(sh, src, &io);
    if (sh->flow == FLOW_EXIT) {
        status = sh->flow_n;
        sh->exited = 1;
    }
    sh->flow = FLOW_NONE;
    sh->status = status;
    /* trap ... EXIT runs when a command line ends (each is a script's run). */
    if (sh->trap_exit) {
        char *trap = sh->trap_exit;
        sh->trap_exit = NULL;
        sh_exec_source(sh, trap, &io);
        if (sh->flow == FLOW_EXIT)
            status = sh->flow_n;
        sh->flow = FLOW_NONE;
        sh->status = status;
        free(trap);
    }
    return status;
}
