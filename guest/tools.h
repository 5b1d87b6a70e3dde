/* Natives of tools.js (guest/tools.c): tool calls handed to the host through the
 * capsa imports, the promises of the calls in flight, and the registry that
 * `tools` is built from. */
#ifndef CAPSA_GUEST_TOOLS_H
#define CAPSA_GUEST_TOOLS_H

#include <stdint.h>

#include "quickjs.h"

/* Adds tools.js's natives (call, bind) to obj, the host object tools.js
 * captures. */
void capsa_tools_add_natives(JSContext *ctx, JSValueConst obj);

/* Takes tools.js's completion value: makeError(code, message, tool) makes a
 * ToolError, argError(tool, args) the TypeError of arguments that are not an
 * object, refresh(list) rebuilds `tools` from the host's registry. Kept for the
 * life of the instance. */
void capsa_tools_init(JSContext *ctx, JSValueConst tools_api);

/* A run or shell command line starts: `tools` is brought up to date with the
 * host's registry when it changed (a failure leaves it as it was, and is tried
 * again next time), and the host numbers the new run's calls from 1. */
void capsa_tools_start_run(void);

/* How many calls the host took whose outcome has not been delivered yet: while
 * there are any, the run is not over. */
int capsa_tools_pending(void);

/* Delivers the outcomes the host has ready: each settles its call's promise (the
 * reactions run with the next drain of the job queue). Returns how many. */
int capsa_tools_deliver(void);

/* The run is over: the calls still in flight will never be awaited. */
void capsa_tools_cancel(void);

/* The calls a shell command started: capsa_tools_mark before it, and when it
 * gives up waiting (step mode), capsa_tools_forget_after(mark) drops the calls
 * started since, so that they do not keep the run waiting for them (the host
 * audits them as cancelled when the run ends). */
uint32_t capsa_tools_mark(void);
void capsa_tools_forget_after(uint32_t mark);

#endif
