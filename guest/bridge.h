/* The shell inside the guest (guest/shell/) and its bridges to the JS runtime:
 * the `shell()` global, the `js`/`node` and `tool` commands, and the entry the
 * host's capsa_shell uses (main.c's capsa_shell export). */
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

/* From guest/main.c, for the bridge. */

/* Runs the event loop (jobs, timers, tool outcomes) until promise settles: 0
 * fulfilled, 1 rejected, -1 when nothing can ever settle it, -2 when it waits for
 * tool calls that the host resolves itself (step mode). */
int capsa_guest_await(JSValueConst promise);
/* The calls a command started: capsa_guest_calls_mark before it, and when it
 * gives up waiting (step mode), capsa_guest_forget_calls_after(mark) drops the
 * calls started since, so that they do not keep the run waiting for them (the
 * host audits them as cancelled when the run ends). */
uint32_t capsa_guest_calls_mark(void);
void capsa_guest_forget_calls_after(uint32_t mark);
/* Sends the console's output (what __capsa.write writes) to these streams
 * instead of the run's stdout and stderr; NULL, NULL sends it back. The bridge
 * alone calls it, and restores what it replaced. */
void capsa_guest_redirect(sh_stream *out, sh_stream *err);

#endif
