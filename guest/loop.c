/* The guest's event loop, in Node's order: process.nextTick callbacks, then
 * microtasks until none is left, the outcomes of tool calls the host has ready
 * (guest/tools.c), then the next timer or immediate callback (web.js's tick()
 * decides which), sleeping while the next timer is not due. One loop serves a run
 * (capsa_loop_run) and a shell command that waits for JS (capsa_loop_await).
 * process.exit() stops it at once (capsa_loop_exit). */
#include <time.h>

#include "abi.h"
#include "loop.h"
#include "tools.h"
#include "web.h"

static JSRuntime *rt;
static JSContext *ctx;
/* web.js's exports: tick() runs the next timer or immediate callback and says
 * what comes next; cancel() drops every pending timer and immediate. */
static JSValue web_tick = JS_UNDEFINED, web_cancel = JS_UNDEFINED;
/* web.js's runTicks(): runs the queued process.nextTick callbacks. */
static JSValue web_run_ticks = JS_UNDEFINED;

/* The run's exit: process.exit() was called (exiting), and the exit code it gave
 * or process.exitCode set (-1: none); run_id counts the runs. */
static int exiting, exit_code = -1;
static uint32_t run_id;
/* The error process.exit() throws: uncatchable, never anyone's error. */
static JSValue exit_error = JS_UNDEFINED;

/* The first exception of the run that nothing could catch (thrown by a timer,
 * immediate or queueMicrotask callback): it ends the run as its error, as it
 * ends a Node process. */
static JSValue uncaught = JS_UNDEFINED;
static int has_uncaught;

int capsa_loop_init(JSRuntime *r, JSContext *c, JSValueConst web_api)
{
    rt = r;
    ctx = c;
    web_tick = JS_GetPropertyStr(c, web_api, "tick");
    web_cancel = JS_GetPropertyStr(c, web_api, "cancel");
    web_run_ticks = JS_GetPropertyStr(c, web_api, "runTicks");
    exit_error = JS_NewError(c);
    if (!JS_IsException(exit_error))
        JS_DefinePropertyValueStr(c, exit_error, "message", JS_NewString(c, "process.exit()"),
                                  JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE);
    return JS_IsException(web_tick) || JS_IsException(web_cancel) ||
           JS_IsException(web_run_ticks) || JS_IsException(exit_error) ? -1 : 0;
}

void capsa_loop_start_run(void)
{
    exiting = 0;
    exit_code = -1;
    run_id++;
}

uint32_t capsa_loop_run_id(void)
{
    return run_id;
}

JSValue capsa_loop_exit(int code)
{
    exiting = 1;
    exit_code = code & 255;
    JS_SetUncatchableError(ctx, exit_error, 1);
    return JS_Throw(ctx, JS_DupValue(ctx, exit_error));
}

void capsa_loop_set_exit_code(int code)
{
    exit_code = code < 0 ? -1 : code & 255;
}

int capsa_loop_exit_code(void)
{
    return exit_code;
}

int capsa_loop_exited(void)
{
    return exiting;
}

int capsa_loop_is_exit(JSValueConst v)
{
    return JS_IsObject(v) && JS_VALUE_GET_PTR(v) == JS_VALUE_GET_PTR(exit_error);
}

void capsa_loop_end_exit(void)
{
    exiting = 0;
    exit_code = -1;
    run_id++; /* the next command's process.exitCode starts undefined */
}

/* Keeps the first uncaught exception of the run (the pending one) and drops the
 * others, and process.exit()'s. */
static void note_uncaught(void)
{
    JSValue err = JS_GetException(ctx);
    if (has_uncaught || exiting || capsa_loop_is_exit(err)) {
        JS_FreeValue(ctx, err);
        return;
    }
    uncaught = err;
    has_uncaught = 1;
}

void capsa_loop_set_uncaught(JSValueConst err)
{
    if (has_uncaught)
        return;
    uncaught = JS_DupValue(ctx, err);
    has_uncaught = 1;
}

int capsa_loop_take_uncaught(JSValue *err)
{
    if (!has_uncaught)
        return 0;
    *err = uncaught;
    uncaught = JS_UNDEFINED;
    has_uncaught = 0;
    return 1;
}

/* Runs the process.nextTick callbacks queued; what one throws is the run's
 * uncaught error (the others stay queued until the run's end drops them). */
static void run_ticks(void)
{
    JSValue r = JS_Call(ctx, web_run_ticks, JS_UNDEFINED, 0, NULL);
    if (JS_IsException(r))
        note_uncaught();
    JS_FreeValue(ctx, r);
}

/* As Node does: the nextTick queue, then every microtask (those they queue too),
 * again while callbacks queued more ticks. A job that throws is a
 * queueMicrotask callback (promise jobs turn their exceptions into rejections)
 * or an allocation failure: the run's uncaught error. Nothing runs once
 * process.exit() was called. */
void capsa_loop_drain(void)
{
    JSContext *c;
    while (!exiting) {
        int ticks = capsa_web_take_ticks(), jobs = 0;
        if (ticks)
            run_ticks();
        while (!exiting) {
            int r = JS_ExecutePendingJob(rt, &c);
            if (r == 0)
                break;
            jobs = 1;
            if (r < 0)
                note_uncaught();
        }
        if (!ticks && !jobs)
            break;
    }
}

/* Calls one of web.js's exported functions; its result, or JS_EXCEPTION with the
 * exception pending. */
static JSValue call_web(JSValueConst fn)
{
    return JS_IsFunction(ctx, fn) ? JS_Call(ctx, fn, JS_UNDEFINED, 0, NULL) : JS_UNDEFINED;
}

/* The time of the timer due at `next` ms of performance.now(), as the host's
 * CLOCK_MONOTONIC nanoseconds; 0 when next <= 0 (no timer, or one due now). */
static uint64_t wake_time(double next)
{
    if (next <= 0)
        return 0;
    double ns = next * 1e6;
    return capsa_web_origin_ns() + (ns >= 1.8e19 ? (uint64_t)1.8e19 : (uint64_t)ns + 1);
}

/* Sleeps until performance.now() reaches `ms` (> 0). wasi-libc turns this into
 * a WASI poll_oneoff on the monotonic clock, which the host never lets wait past
 * the run's deadline. */
static void sleep_until(double ms)
{
    uint64_t t = wake_time(ms);
    struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* One turn of an event loop after its jobs ran: delivers the tool outcomes the
 * host has ready, else runs the next timer or immediate callback (web.js's tick
 * decides which, in Node's order). 1 when something ran; 0 when nothing could,
 * with *next set to when the next timer is due (ms of performance.now(), -1 when
 * none is). */
static int run_ready(double *next)
{
    *next = -1;
    if (capsa_tools_pending() > 0 && capsa_tools_deliver() > 0)
        return 1;
    JSValue r = call_web(web_tick);
    if (JS_IsException(r)) {
        note_uncaught();
        return 1;
    }
    if (JS_IsNumber(r))
        JS_ToFloat64(ctx, next, r);
    JS_FreeValue(ctx, r);
    return *next == 0;
}

/* Drops every timer, immediate and tool call still pending (and the jobs left
 * after process.exit(): nothing may run after it); an exception of web.js's
 * cancel() becomes the run's uncaught error when keep_error is 1. */
static void cancel_all(int keep_error)
{
    if (exiting)
        JS_DropPendingJobs(rt);
    JSValue r = call_web(web_cancel);
    if (JS_IsException(r)) {
        if (keep_error)
            note_uncaught();
        else
            JS_FreeValue(ctx, JS_GetException(ctx));
    }
    JS_FreeValue(ctx, r);
    capsa_tools_cancel();
}

/* It ends (CAPSA_GUEST_OK) when nothing more can happen: no tool call pending and
 * no timer or immediate that keeps the loop alive, when a callback throws (the
 * run's error) or when the run's own promise is rejected (as an uncaught error
 * ends a Node process). Callbacks may still run after the run's promise is
 * fulfilled: the run waits for them, up to its time limit. What is left then
 * (timers that do not keep the loop alive, calls whose outcome will not be
 * awaited) is cancelled, so no run inherits another's timers. When tool calls are
 * pending and nothing can run, it tells the host when the next timer is due and
 * returns CAPSA_GUEST_PENDING: the host waits for results (or the timer) and
 * calls capsa_continue. */
int32_t capsa_loop_run(JSValueConst run_promise)
{
    for (;;) {
        capsa_loop_drain();
        if (exiting || has_uncaught || JS_PromiseState(ctx, run_promise) == JS_PROMISE_REJECTED)
            break;
        double next;
        if (run_ready(&next))
            continue;
        if (capsa_tools_pending() > 0) {
            capsa_host_pending(wake_time(next));
            return CAPSA_GUEST_PENDING;
        }
        if (next < 0)
            break;
        sleep_until(next);
    }
    /* The job queue is empty here: every way out of the loop follows the drain. */
    cancel_all(1);
    return CAPSA_GUEST_OK;
}

int capsa_loop_await(JSValueConst promise)
{
    for (;;) {
        capsa_loop_drain();
        if (exiting)
            return -3;
        int state = JS_PromiseState(ctx, promise);
        if (state == JS_PROMISE_FULFILLED)
            return 0;
        if (state != JS_PROMISE_PENDING)
            return 1;
        double next;
        if (run_ready(&next))
            continue;
        if (capsa_tools_pending() > 0) {
            int32_t w = capsa_host_tool_wait(wake_time(next));
            if (w == CAPSA_TOOL_WAIT_EXTERNAL)
                return -2;
            if (w == CAPSA_TOOL_WAIT_NONE && next < 0)
                return -1;
            continue;
        }
        if (next < 0)
            return -1;
        sleep_until(next);
    }
}

void capsa_loop_cancel(void)
{
    capsa_loop_drain();
    cancel_all(0);
}
