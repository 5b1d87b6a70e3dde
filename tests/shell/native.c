/* The shell's applets and interpreter built natively, for developing them and
 * comparing them with the system's tools. Called as `sh-native -c CMDLINE`,
 * `sh-native APPLET ARGS...`, or through a link named after an applet (as
 * busybox is). Standard input is read whole first, as the shell does for each
 * command. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sh.h"
#include "shell.h"

extern char **environ;

static int read_all(int fd, sh_buf *b)
{
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return (int)n;
        if (sh_buf_add(b, chunk, (size_t)n) < 0)
            return -1;
    }
}

int main(int argc, char **argv)
{
    char cwd[4096];
    if (!getcwd(cwd, sizeof(cwd)))
        return 125;
    sh_shell *sh = sh_new(cwd);
    if (!sh)
        return 125;
    for (char **e = environ; *e; e++) {
        char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        *eq = '\0';
        sh_setvar(sh, *e, eq + 1, 1);
        *eq = '=';
    }
    sh_stream out = { .fd = 1 }, err = { .fd = 2 };
    if (argc == 2 && strcmp(argv[1], "--applets") == 0) {
        for (size_t i = 0; sh_applet_at(i); i++)
            printf("%s\n", sh_applet_at(i)->name);
        sh_free(sh);
        return 0;
    }
    char *self = basename(argv[0]);
    int status;
    if (strcmp(self, "sh-native") == 0 && argc >= 3 && strcmp(argv[1], "-c") == 0) {
        status = sh_eval(sh, argv[2], &out, &err, "", 0);
    } else {
        char **args = argv;
        if (strcmp(self, "sh-native") == 0) {
            if (argc < 2) {
                fprintf(stderr, "usage: sh-native -c CMDLINE | APPLET [ARGS...]\n");
                return 2;
            }
            args = argv + 1;
        } else {
            args[0] = self;
        }
        sh_buf in = { 0 };
        if (!isatty(0))
            read_all(0, &in);
        sh_proc p = { sh, "sh", in.data ? in.data : "", in.len, &out, &err };
        status = sh_run(&p, args, NULL, p.in, p.in_len);
        sh_buf_free(&in);
    }
    sh_free(sh);
    return status;
}
