/* The guest's event loop (guest/loop.c): the job queue, tool outcomes, timers
 * and immediates, sleeping until the next timer, and the first uncaught error of
 * a run. Used by the run's exports (main.c) and by the shell's commands that
 * wait for JS (bridge.c). */
#ifndef CAPSA_GUEST_LOOP_H
#define CAPSA_GUEST_LOOP_H

#include <stdint.h>

#include "quickjs.h"

/* Takes web.js's completion value: its tick() runs the next timer or immediate
 * callback and says when the next one is due, cancel() drops every pending
 * timer and immediate. Kept for the life of the instance. 0, or -1 when out of
 * memory. */
int capsa_loop_init(JSRuntime *rt, JSContext *ctx, JSValueConst web_api);

/* Runs the process.nextTick callbacks and every pending job (promise reactions,
 * queueMicrotask callbacks) until none is left, or process.exit() was called. */
void capsa_loop_drain(void);

/* A run (or a shell command line) starts: no exit, no exit code; the run's
 * number goes up. */
void capsa_loop_start_run(void);

/* The number of the run in progress (it changes with each run). */
uint32_t capsa_loop_run_id(void);

/* process.exit(code): the run ends at once with exit code code & 255. Returns
 * JS_EXCEPTION with the uncatchable error that unwinds the script pending. */
JSValue capsa_loop_exit(int code);

/* process.exitCode = code (-1 for undefined): the run's exit code when it ends. */
void capsa_loop_set_exit_code(int code);

/* The run's exit code (0-255), or -1 when the script neither called
 * process.exit() nor set process.exitCode. */
int capsa_loop_exit_code(void);

/* 1 once process.exit() was called in this run (or shell command). */
int capsa_loop_exited(void);

/* Whether v is the error process.exit() throws. */
int capsa_loop_is_exit(JSValueConst v);

/* Forgets the exit and exit code of a shell command's JavaScript: the shell goes
 * on, and its next command counts as a new run. */
void capsa_loop_end_exit(void);

/* The event loop of a run whose promise is run_promise: jobs, tool outcomes,
 * timers, until nothing more can happen (CAPSA_GUEST_OK, with what is left
 * cancelled), or until only tool calls are pending (CAPSA_GUEST_PENDING after
 * capsa.pending: the run's state is kept and a later call goes on). */
int32_t capsa_loop_run(JSValueConst run_promise);

/* Runs the event loop until promise settles, for a shell command waiting for
 * JS: 0 fulfilled, 1 rejected, -1 when nothing can ever settle it, -2 when it
 * waits for tool calls that the host resolves itself (step mode), -3 when the
 * script called process.exit(). */
int capsa_loop_await(JSValueConst promise);

/* Drops what a shell command line's JavaScript left behind (timers, immediates,
 * calls that will not be awaited), as the end of a run does; an exception of
 * web.js's cancel() is dropped too. */
void capsa_loop_cancel(void);

/* The first exception of the run that nothing could catch (thrown by a timer,
 * immediate or queueMicrotask callback): 1 and the value in *err (the caller
 * frees it), or 0 when there was none. The next run starts without. */
int capsa_loop_take_uncaught(JSValue *err);

/* Makes err (duplicated) the run's uncaught error unless it has one: the loop
 * then ends at its next turn, as when a callback throws. */
void capsa_loop_set_uncaught(JSValueConst err);

#endif
