/* The shell inside the guest (guest/shell/) and its bridges to the JS runtime
 * (guest/bridge.c): the `shell()` global, the `js`/`node` and `tool` commands,
 * the entry the host's capsa_shell uses (main.c's capsa_shell export), and where
 * the console writes while a command runs JS. */
#ifndef CAPSA_GUEST_BRIDGE_H
#define CAPSA_GUEST_BRIDGE_H

#include "quickjs.h"
#include "shell/sh.h"

/* Creates the guest's shell (working directory /workspace) and defines the
 * `shell` global. tools_api is tools.js's completion value (its `command` is the
 * `tool` command), runtime_api runtime.js's (formatError). 0, or -1 with an
 * exception pending. Called once, when the image is made. */
int capsa_bridge_init(JSContext *ctx, JSValueConst runtime_api, JSValueConst tools_api);

/* Runs the command line cmd (its standard input input[0..input_len)) for the
 * host's capsa_shell, output to the run's stdout and stderr: the exit status,
 * plus 256 when it ran `exit`. */
int capsa_bridge_shell(const char *cmd, const char *input, size_t input_len);

/* Where the console (__capsa.write, main.c) writes fd 1 or 2 while a shell
 * command runs JS: the command's stream, or NULL for the run's own stdout and
 * stderr. */
sh_stream *capsa_bridge_console(int fd);

#endif
