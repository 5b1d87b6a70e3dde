/* Natives of web.js (guest/web.c): what the web and Node globals need from C. */
#ifndef CAPSA_GUEST_WEB_H
#define CAPSA_GUEST_WEB_H

#include <stdint.h>

#include "quickjs.h"

/* Adds web.js's natives to obj, the host object web.js captures. */
void capsa_web_add_natives(JSContext *ctx, JSValueConst obj);

/* Makes now the time origin of performance.now() and performance.timeOrigin. */
void capsa_web_set_origin(void);

/* 1 when process.nextTick queued callbacks since the last call, else 0. */
int capsa_web_take_ticks(void);

/* CLOCK_MONOTONIC nanoseconds: now, and at the time origin. */
uint64_t capsa_web_monotonic_ns(void);
uint64_t capsa_web_origin_ns(void);

#endif
