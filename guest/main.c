/* The guest's entry points: one QuickJS runtime and context per instance, the
 * capsa JS runtime on top, and a run entry that evaluates code as the body of an
 * async function. Built as a wasm32-wasi reactor; the host calls the exports. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "quickjs.h"
#include "abi.h"
#include "runtime_js.h" /* generated from the guest's .js files: capsa_js_files[] */

#define EXPORT(name) __attribute__((export_name(name)))
#define IMPORT(name) __attribute__((import_module("capsa"), import_name(name)))

IMPORT("result") void capsa_host_result(uint32_t kind, const char *data, uint32_t len);

/* The shadow stack is placed first in linear memory (wasm-ld --stack-first) and
 * sized at link time; QuickJS's own limit sits below it so that deep recursion
 * becomes a catchable error instead of running off the stack. */
#define GUEST_STACK_LIMIT (896 * 1024)

static JSRuntime *rt;
static JSContext *ctx;
/* The completion value of each file of the JS runtime, in capsa_js_files order;
 * runtime.js gives { formatError, inspect, format }. */
#define N_JS_FILES (sizeof(capsa_js_files) / sizeof(capsa_js_files[0]))
static JSValue js_exports[N_JS_FILES];
static JSValue runtime_api;
/* web.js's exports: tick() runs the next timer or immediate callback and says
 * what comes next; cancel() drops every pending timer and immediate. */
static JSValue web_tick, web_cancel;

/* The sandbox's time origin, set when an instance is configured: performance.now()
 * counts from origin_ns (CLOCK_MONOTONIC) and performance.timeOrigin is
 * origin_unix_ms (the wall clock at the same moment). */
static uint64_t origin_ns;
static double origin_unix_ms;

/* The first exception of the run that nothing could catch (thrown by a timer,
 * immediate or queueMicrotask callback): it ends the run as its error, as it
 * ends a Node process. */
static JSValue uncaught;
static int has_uncaught;

/* Promises rejected while nothing handles them, reported at the end of a run the
 * way a browser console does: "Uncaught (in promise) ...". */
#define MAX_UNHANDLED 100
static struct { JSValue promise, reason; } unhandled[MAX_UNHANDLED];
static int n_unhandled, n_unhandled_dropped;

static void report(uint32_t kind, const char *s, size_t len)
{
    capsa_host_result(kind, s, (uint32_t)len);
}

static void report_js_string(uint32_t kind, JSValueConst v)
{
    size_t len;
    const char *s = JS_ToCStringLen(ctx, &len, v);
    if (!s) {
        JS_FreeValue(ctx, JS_GetException(ctx));
        return;
    }
    report(kind, s, len);
    JS_FreeCString(ctx, s);
}

/* At most this many stack frames are reported; deep recursion makes thousands. */
#define MAX_STACK_FRAMES 50

/* Reports a stack, cut after MAX_STACK_FRAMES frames with a line that says so. */
static void report_stack(JSValueConst stack)
{
    size_t len;
    const char *s = JS_ToCStringLen(ctx, &len, stack);
    if (!s) {
        JS_FreeValue(ctx, JS_GetException(ctx));
        return;
    }
    size_t keep = len, frames = 0, more = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '\n')
            continue;
        frames++;
        if (frames == MAX_STACK_FRAMES)
            keep = i + 1;
        else if (frames > MAX_STACK_FRAMES)
            more++;
    }
    if (keep < len && len > 0 && s[len - 1] != '\n')
        more++;
    if (keep < len) {
        char tail[64];
        int n = snprintf(tail, sizeof(tail), "    ... %zu more frames\n", more);
        char *cut = malloc(keep + (size_t)n);
        if (cut) {
            memcpy(cut, s, keep);
            memcpy(cut + keep, tail, (size_t)n);
            report(CAPSA_RESULT_ERROR_STACK, cut, keep + (size_t)n);
            free(cut);
        } else {
            report(CAPSA_RESULT_ERROR_STACK, s, keep);
        }
    } else {
        report(CAPSA_RESULT_ERROR_STACK, s, len);
    }
    JS_FreeCString(ctx, s);
}

/* Reports what the runtime's inspect() prints for v, as the error message. */
static void report_inspected(JSValueConst v)
{
    JSValue inspect = JS_GetPropertyStr(ctx, runtime_api, "inspect");
    JSValue text = JS_Call(ctx, inspect, JS_UNDEFINED, 1, &v);
    if (JS_IsException(text)) {
        JS_FreeValue(ctx, JS_GetException(ctx));
        report_js_string(CAPSA_RESULT_ERROR_MESSAGE, v);
    } else {
        report_js_string(CAPSA_RESULT_ERROR_MESSAGE, text);
    }
    JS_FreeValue(ctx, text);
    JS_FreeValue(ctx, inspect);
}

/* Reports the parts of a thrown value. Anything but an Error (throw "x", throw
 * {code: 1}) has no name or stack: it is reported as "Uncaught" with the value
 * as message, inspected when it is an object. */
static void report_error(JSValueConst err)
{
    if (!JS_IsError(ctx, err)) {
        report(CAPSA_RESULT_ERROR_NAME, "Uncaught", 8);
        if (JS_IsObject(err))
            report_inspected(err);
        else
            report_js_string(CAPSA_RESULT_ERROR_MESSAGE, err);
        return;
    }
    static const struct { uint32_t kind; const char *prop; } parts[] = {
        { CAPSA_RESULT_ERROR_NAME, "name" },
        { CAPSA_RESULT_ERROR_MESSAGE, "message" },
        { CAPSA_RESULT_ERROR_STACK, "stack" },
    };
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        JSValue v = JS_GetPropertyStr(ctx, err, parts[i].prop);
        if (JS_IsException(v))
            JS_FreeValue(ctx, JS_GetException(ctx));
        else if (parts[i].kind == CAPSA_RESULT_ERROR_STACK && JS_IsString(v))
            report_stack(v);
        else if (parts[i].kind != CAPSA_RESULT_ERROR_STACK && !JS_IsUndefined(v))
            report_js_string(parts[i].kind, v); /* an error made out of memory has no stack */
        JS_FreeValue(ctx, v);
    }
}

/* __capsa.write(fd, string): the runtime's only way out, to stdout or stderr. */
static JSValue js_write(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    int32_t fd;
    size_t len;
    (void)this_val;
    if (argc < 2 || JS_ToInt32(c, &fd, argv[0]) || (fd != 1 && fd != 2))
        return JS_ThrowTypeError(c, "write: bad file descriptor");
    const char *s = JS_ToCStringLen(c, &len, argv[1]);
    if (!s)
        return JS_EXCEPTION;
    const char *p = s;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n <= 0)
            break;
        p += n;
        len -= (size_t)n;
    }
    JS_FreeCString(c, s);
    return JS_UNDEFINED;
}

/* __capsa.promiseState(p): 0 pending, 1 fulfilled, 2 rejected, -1 not a promise. */
static JSValue js_promise_state(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    return JS_NewInt32(c, argc < 1 ? -1 : JS_PromiseState(c, argv[0]));
}

/* __capsa.promiseResult(p): the value or reason of a settled promise. */
static JSValue js_promise_result(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    return argc < 1 ? JS_UNDEFINED : JS_PromiseResult(c, argv[0]);
}

static const JSCFunctionListEntry host_funcs[] = {
    JS_CFUNC_DEF("write", 2, js_write),
    JS_CFUNC_DEF("promiseState", 1, js_promise_state),
    JS_CFUNC_DEF("promiseResult", 1, js_promise_result),
};

/* ---- natives of web.js --------------------------------------------------------------
 * Installed as globalThis.__capsaWeb just before web.js is evaluated; web.js captures
 * and deletes it (capsa_init removes it in any case). None of them reaches the host
 * beyond WASI's clocks, random_get and the standard streams. */

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* __capsaWeb.now(): milliseconds since the sandbox's time origin, with
 * nanosecond resolution (monotonic). */
static JSValue js_web_now(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    (void)argc;
    (void)argv;
    return JS_NewFloat64(c, (double)(monotonic_ns() - origin_ns) / 1e6);
}

/* __capsaWeb.timeOrigin(): the Unix time in milliseconds of the time origin. */
static JSValue js_web_time_origin(JSContext *c, JSValueConst this_val, int argc,
                                  JSValueConst *argv)
{
    (void)this_val;
    (void)argc;
    (void)argv;
    return JS_NewFloat64(c, origin_unix_ms);
}

/* The bytes a typed array views, or NULL (with *len 0) for anything else and for
 * a detached buffer. The pointer is valid until the buffer is next touched by JS. */
static uint8_t *typed_array_bytes(JSContext *c, JSValueConst v, size_t *len)
{
    size_t offset, length, bpe, size;
    *len = 0;
    if (!JS_IsObject(v))
        return NULL;
    JSValue buf = JS_GetTypedArrayBuffer(c, v, &offset, &length, &bpe);
    if (JS_IsException(buf)) {
        JS_FreeValue(c, JS_GetException(c));
        return NULL;
    }
    uint8_t *p = JS_GetArrayBuffer(c, &size, buf);
    JS_FreeValue(c, buf);
    if (!p) {
        JS_FreeValue(c, JS_GetException(c));
        return NULL;
    }
    if (offset > size || length > size - offset)
        return NULL;
    *len = length;
    return p + offset;
}

/* __capsaWeb.getRandomValues(typedArray): fills the array's bytes from WASI's
 * random_get (through getentropy, at most 256 bytes a call) and returns it. The
 * caller checks the kind of array and the 65536-byte quota. */
static JSValue js_web_random(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    size_t len;
    (void)this_val;
    uint8_t *p = argc > 0 ? typed_array_bytes(c, argv[0], &len) : NULL;
    if (!p)
        return argc > 0 && JS_IsObject(argv[0]) ? JS_DupValue(c, argv[0])
                                                : JS_ThrowTypeError(c, "not a typed array");
    for (size_t done = 0; done < len;) {
        size_t n = len - done < 256 ? len - done : 256;
        if (getentropy(p + done, n) != 0)
            return JS_ThrowInternalError(c, "no random source");
        done += n;
    }
    return JS_DupValue(c, argv[0]);
}

/* Runs one queueMicrotask callback: argv[0] is the function. */
static JSValue microtask_job(JSContext *c, int argc, JSValueConst *argv)
{
    (void)argc;
    return JS_Call(c, argv[0], JS_UNDEFINED, 0, NULL);
}

/* __capsaWeb.enqueueJob(fn): queues fn as a microtask, in the queue promise
 * reactions use. What fn throws is the run's uncaught error (see drain_jobs). */
static JSValue js_web_enqueue(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    if (argc < 1 || !JS_IsFunction(c, argv[0]))
        return JS_ThrowTypeError(c, "not a function");
    if (JS_EnqueueJob(c, microtask_job, 1, argv) < 0)
        return JS_EXCEPTION;
    return JS_UNDEFINED;
}

/* __capsaWeb.detach(arrayBuffer): detaches a transferred buffer. */
static JSValue js_web_detach(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    if (argc > 0)
        JS_DetachArrayBuffer(c, argv[0]);
    return JS_UNDEFINED;
}

/* QuickJS writes a lone surrogate as its own 3-byte sequence (ED A0..BF xx); the
 * Encoding standard wants U+FFFD (EF BF BD), which has the same length. */
static void replace_lone_surrogates(uint8_t *p, size_t len)
{
    for (size_t i = 0; i + 2 < len; i++) {
        if (p[i] == 0xED && p[i + 1] >= 0xA0) {
            p[i] = 0xEF;
            p[i + 1] = 0xBF;
            p[i + 2] = 0xBD;
            i += 2;
        }
    }
}

/* The string's UTF-8 bytes in a buffer of our own (the caller frees it with
 * js_free), lone surrogates replaced; NULL with an exception pending. */
static uint8_t *utf8_of(JSContext *c, JSValueConst v, size_t *len)
{
    const char *s = JS_ToCStringLen(c, len, v);
    if (!s)
        return NULL;
    uint8_t *copy = js_malloc(c, *len + 1);
    if (copy) {
        memcpy(copy, s, *len);
        replace_lone_surrogates(copy, *len);
    }
    JS_FreeCString(c, s);
    return copy;
}

/* __capsaWeb.utf8Encode(string): an ArrayBuffer with the string's UTF-8. */
static JSValue js_web_utf8_encode(JSContext *c, JSValueConst this_val, int argc,
                                  JSValueConst *argv)
{
    size_t len;
    (void)this_val;
    uint8_t *p = utf8_of(c, argc > 0 ? argv[0] : JS_UNDEFINED, &len);
    if (!p)
        return JS_EXCEPTION;
    JSValue buf = JS_NewArrayBufferCopy(c, p, len);
    js_free(c, p);
    return buf;
}

/* __capsaWeb.utf8EncodeInto(string, uint8Array): writes the whole code points
 * that fit; returns [UTF-16 units read, bytes written]. */
static JSValue js_web_utf8_encode_into(JSContext *c, JSValueConst this_val, int argc,
                                       JSValueConst *argv)
{
    size_t len, room;
    (void)this_val;
    if (argc < 2)
        return JS_ThrowTypeError(c, "two arguments expected");
    uint8_t *src = utf8_of(c, argv[0], &len);
    if (!src)
        return JS_EXCEPTION;
    uint8_t *dst = typed_array_bytes(c, argv[1], &room);
    size_t in = 0, out = 0, units = 0;
    while (in < len) {
        uint8_t b = src[in];
        size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
        if (n > len - in || n > room - out)
            break;
        memcpy(dst + out, src + in, n);
        in += n;
        out += n;
        units += n == 4 ? 2 : 1;
    }
    js_free(c, src);
    JSValue r = JS_NewArray(c);
    if (JS_IsException(r))
        return r;
    JS_SetPropertyUint32(c, r, 0, JS_NewInt64(c, (int64_t)units));
    JS_SetPropertyUint32(c, r, 1, JS_NewInt64(c, (int64_t)out));
    return r;
}

/* Decodes UTF-8 as the Encoding standard does: each maximal invalid subpart is
 * one U+FFFD. Writes valid UTF-8 to out (3 * len bytes are always enough) when
 * out is not NULL; returns its length, or -1 on the first error when out is NULL. */
static long utf8_sanitize(const uint8_t *p, size_t len, uint8_t *out)
{
    static const uint8_t fffd[3] = { 0xEF, 0xBF, 0xBD };
    size_t o = 0, start = 0;
    unsigned needed = 0, seen = 0;
    uint8_t lower = 0x80, upper = 0xBF;
    for (size_t i = 0; i < len; i++) {
        uint8_t b = p[i];
        if (needed == 0) {
            start = i;
            if (b < 0x80) {
                if (out)
                    out[o] = b;
                o++;
                continue;
            }
            if (b >= 0xC2 && b <= 0xDF) {
                needed = 1;
            } else if (b >= 0xE0 && b <= 0xEF) {
                lower = b == 0xE0 ? 0xA0 : 0x80;
                upper = b == 0xED ? 0x9F : 0xBF;
                needed = 2;
            } else if (b >= 0xF0 && b <= 0xF4) {
                lower = b == 0xF0 ? 0x90 : 0x80;
                upper = b == 0xF4 ? 0x8F : 0xBF;
                needed = 3;
            } else {
                if (!out)
                    return -1;
                memcpy(out + o, fffd, 3);
                o += 3;
            }
            continue;
        }
        if (b < lower || b > upper) {
            /* The sequence so far is one error; b starts afresh. */
            if (!out)
                return -1;
            memcpy(out + o, fffd, 3);
            o += 3;
            needed = seen = 0;
            lower = 0x80;
            upper = 0xBF;
            i--;
            continue;
        }
        lower = 0x80;
        upper = 0xBF;
        if (++seen == needed) {
            size_t n = i + 1 - start;
            if (out)
                memcpy(out + o, p + start, n);
            o += n;
            needed = seen = 0;
        }
    }
    if (needed) {
        if (!out)
            return -1;
        memcpy(out + o, fffd, 3);
        o += 3;
    }
    return (long)o;
}

/* __capsaWeb.utf8Decode(uint8Array, fatal): the text; with fatal, null when the
 * bytes are not valid UTF-8. A byte order mark is kept (the caller strips it). */
static JSValue js_web_utf8_decode(JSContext *c, JSValueConst this_val, int argc,
                                  JSValueConst *argv)
{
    size_t len;
    (void)this_val;
    if (argc < 2)
        return JS_ThrowTypeError(c, "two arguments expected");
    const uint8_t *p = typed_array_bytes(c, argv[0], &len);
    if (!p || len == 0)
        return JS_NewStringLen(c, "", 0);
    if (utf8_sanitize(p, len, NULL) >= 0)
        return JS_NewStringLen(c, (const char *)p, len);
    if (JS_ToBool(c, argv[1]))
        return JS_NULL;
    if (len > ((size_t)1 << 30))
        return JS_ThrowRangeError(c, "input too long");
    uint8_t *out = js_malloc(c, 3 * len);
    if (!out)
        return JS_EXCEPTION;
    long n = utf8_sanitize(p, len, out);
    JSValue s = JS_NewStringLen(c, (const char *)out, (size_t)n);
    js_free(c, out);
    return s;
}

static const char base64_chars[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* __capsaWeb.base64Encode(string): the base64 of a string of Latin-1 characters
 * (each one byte), or null if a character is above U+00FF. */
static JSValue js_web_base64_encode(JSContext *c, JSValueConst this_val, int argc,
                                    JSValueConst *argv)
{
    size_t len, n = 0;
    (void)this_val;
    const char *s = JS_ToCStringLen(c, &len, argc > 0 ? argv[0] : JS_UNDEFINED);
    if (!s)
        return JS_EXCEPTION;
    /* The UTF-8 of Latin-1 is ASCII or C2/C3 and one continuation byte. */
    uint8_t *bytes = js_malloc(c, len + 1);
    if (!bytes) {
        JS_FreeCString(c, s);
        return JS_EXCEPTION;
    }
    for (size_t i = 0; i < len; i++) {
        uint8_t b = (uint8_t)s[i];
        if (b < 0x80) {
            bytes[n++] = b;
        } else if ((b == 0xC2 || b == 0xC3) && i + 1 < len) {
            bytes[n++] = (uint8_t)((b & 3) << 6 | ((uint8_t)s[++i] & 0x3F));
        } else {
            js_free(c, bytes);
            JS_FreeCString(c, s);
            return JS_NULL;
        }
    }
    JS_FreeCString(c, s);
    size_t out_len = (n + 2) / 3 * 4;
    char *out = js_malloc(c, out_len + 1);
    if (!out) {
        js_free(c, bytes);
        return JS_EXCEPTION;
    }
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)bytes[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)bytes[i + 1] << 8;
        if (i + 2 < n)
            v |= bytes[i + 2];
        out[o++] = base64_chars[v >> 18];
        out[o++] = base64_chars[(v >> 12) & 63];
        out[o++] = i + 1 < n ? base64_chars[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? base64_chars[v & 63] : '=';
    }
    js_free(c, bytes);
    JSValue r = JS_NewStringLen(c, out, o);
    js_free(c, out);
    return r;
}

/* The value of a base64 character, -2 for ASCII whitespace, -3 for '=', -1 for
 * anything else. */
static int base64_value(uint8_t ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    if (ch == '+')
        return 62;
    if (ch == '/')
        return 63;
    if (ch == '\t' || ch == '\n' || ch == '\f' || ch == '\r' || ch == ' ')
        return -2;
    return ch == '=' ? -3 : -1;
}

/* __capsaWeb.base64Decode(string): forgiving-base64 decode with Node's checks; the
 * bytes as a string of Latin-1 characters, or -1 (a character that may not be
 * there) or -2 (a length that no base64 has). */
static JSValue js_web_base64_decode(JSContext *c, JSValueConst this_val, int argc,
                                    JSValueConst *argv)
{
    size_t len;
    (void)this_val;
    const char *s = JS_ToCStringLen(c, &len, argc > 0 ? argv[0] : JS_UNDEFINED);
    if (!s)
        return JS_EXCEPTION;
    size_t significant = 0, equals = 0;
    int error = 0;
    for (size_t i = 0; i < len && !error; i++) {
        int v = base64_value((uint8_t)s[i]);
        if (v == -1) {
            error = -1;
        } else if (v != -2) {
            significant++;
            if (v == -3)
                equals++;
            else if (equals)
                error = -1; /* '=' only at the end */
            if (equals > 2)
                error = -1;
        }
    }
    if (!error) {
        size_t remainder = significant % 4;
        if (!remainder)
            remainder = (significant - equals) % 4;
        else if (equals)
            error = -1;
        if (!error && remainder == 1)
            error = -2;
    }
    if (error) {
        JS_FreeCString(c, s);
        return JS_NewInt32(c, error);
    }
    /* Each byte is at most two bytes of UTF-8. */
    char *out = js_malloc(c, significant / 4 * 6 + 8);
    if (!out) {
        JS_FreeCString(c, s);
        return JS_EXCEPTION;
    }
    size_t o = 0;
    uint32_t bits = 0;
    int nbits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = base64_value((uint8_t)s[i]);
        if (v < 0)
            continue;
        bits = (bits << 6 | (uint32_t)v) & 0xFFFFFF;
        nbits += 6;
        if (nbits >= 8) {
            nbits -= 8;
            uint8_t b = (uint8_t)(bits >> nbits);
            if (b < 0x80) {
                out[o++] = (char)b;
            } else {
                out[o++] = (char)(0xC0 | b >> 6);
                out[o++] = (char)(0x80 | (b & 0x3F));
            }
        }
    }
    JS_FreeCString(c, s);
    JSValue r = JS_NewStringLen(c, out, o);
    js_free(c, out);
    return r;
}

static const JSCFunctionListEntry web_funcs[] = {
    JS_CFUNC_DEF("write", 2, js_write),
    JS_CFUNC_DEF("promiseState", 1, js_promise_state),
    JS_CFUNC_DEF("now", 0, js_web_now),
    JS_CFUNC_DEF("timeOrigin", 0, js_web_time_origin),
    JS_CFUNC_DEF("getRandomValues", 1, js_web_random),
    JS_CFUNC_DEF("enqueueJob", 1, js_web_enqueue),
    JS_CFUNC_DEF("detach", 1, js_web_detach),
    JS_CFUNC_DEF("utf8Encode", 1, js_web_utf8_encode),
    JS_CFUNC_DEF("utf8EncodeInto", 2, js_web_utf8_encode_into),
    JS_CFUNC_DEF("utf8Decode", 2, js_web_utf8_decode),
    JS_CFUNC_DEF("base64Encode", 1, js_web_base64_encode),
    JS_CFUNC_DEF("base64Decode", 1, js_web_base64_decode),
};

static void track_rejection(JSContext *c, JSValueConst promise, JSValueConst reason,
                            JS_BOOL is_handled, void *opaque)
{
    (void)opaque;
    if (!is_handled) {
        if (n_unhandled == MAX_UNHANDLED) {
            n_unhandled_dropped++;
            return;
        }
        unhandled[n_unhandled].promise = JS_DupValue(c, promise);
        unhandled[n_unhandled].reason = JS_DupValue(c, reason);
        n_unhandled++;
        return;
    }
    for (int i = 0; i < n_unhandled; i++) {
        if (JS_VALUE_GET_PTR(unhandled[i].promise) == JS_VALUE_GET_PTR(promise)) {
            JS_FreeValue(c, unhandled[i].promise);
            JS_FreeValue(c, unhandled[i].reason);
            unhandled[i] = unhandled[--n_unhandled];
            return;
        }
    }
}

static void write_stderr(const char *s, size_t len)
{
    while (len > 0) {
        ssize_t n = write(2, s, len);
        if (n <= 0)
            return;
        s += n;
        len -= (size_t)n;
    }
}

/* Writes every rejection still unhandled at the end of a run to stderr, except
 * the run's own promise (its rejection is the run's error). */
static void report_unhandled(JSValueConst run_promise)
{
    JSValue inspect = JS_GetPropertyStr(ctx, runtime_api, "inspect");
    for (int i = 0; i < n_unhandled; i++) {
        if (JS_VALUE_GET_PTR(unhandled[i].promise) != JS_VALUE_GET_PTR(run_promise)) {
            JSValue text = JS_Call(ctx, inspect, JS_UNDEFINED, 1, &unhandled[i].reason);
            size_t len;
            const char *s = JS_IsException(text) ? NULL : JS_ToCStringLen(ctx, &len, text);
            if (s) {
                write_stderr("Uncaught (in promise) ", 22);
                write_stderr(s, len);
                write_stderr("\n", 1);
                JS_FreeCString(ctx, s);
            } else {
                JS_FreeValue(ctx, JS_GetException(ctx));
            }
            JS_FreeValue(ctx, text);
        }
        JS_FreeValue(ctx, unhandled[i].promise);
        JS_FreeValue(ctx, unhandled[i].reason);
    }
    if (n_unhandled_dropped) {
        char msg[96];
        int len = snprintf(msg, sizeof(msg), "... and %d more unhandled rejections\n",
                           n_unhandled_dropped);
        write_stderr(msg, (size_t)len);
    }
    n_unhandled = n_unhandled_dropped = 0;
    JS_FreeValue(ctx, inspect);
}

/* Creates the runtime and context and evaluates the JS runtime. The host runs
 * this once and keeps the memory that results as the image every sandbox starts
 * from. Returns 0, or CAPSA_GUEST_NOMEM / CAPSA_GUEST_THREW (reported). */
EXPORT("capsa_init") int32_t capsa_init(void)
{
    runtime_api = web_tick = web_cancel = uncaught = JS_UNDEFINED;
    rt = JS_NewRuntime();
    if (!rt)
        return CAPSA_GUEST_NOMEM;
    JS_SetMaxStackSize(rt, GUEST_STACK_LIMIT);
    JS_SetHostPromiseRejectionTracker(rt, track_rejection, NULL);
    ctx = JS_NewContext(rt);
    if (!ctx)
        return CAPSA_GUEST_NOMEM;

    JSValue global = JS_GetGlobalObject(ctx);
    JSValue host = JS_NewObject(ctx);
    JS_SetPropertyFunctionList(ctx, host, host_funcs,
                               sizeof(host_funcs) / sizeof(host_funcs[0]));
    JS_SetPropertyStr(ctx, global, "__capsa", host);
    JS_FreeValue(ctx, global);

    for (size_t i = 0; i < N_JS_FILES; i++) {
        const struct capsa_js_file *f = &capsa_js_files[i];
        int is_web = strcmp(f->name, "web.js") == 0;
        if (is_web) {
            /* web.js's own natives, and runtime.js's exports (inspect, format)
               so that its messages print values as the console does. */
            global = JS_GetGlobalObject(ctx);
            JSValue web = JS_NewObject(ctx);
            JS_SetPropertyFunctionList(ctx, web, web_funcs,
                                       sizeof(web_funcs) / sizeof(web_funcs[0]));
            JS_SetPropertyStr(ctx, web, "runtime", JS_DupValue(ctx, runtime_api));
            JS_SetPropertyStr(ctx, global, "__capsaWeb", web);
            JS_FreeValue(ctx, global);
        }
        JSValue r = JS_Eval(ctx, (const char *)f->data, f->len, f->name, JS_EVAL_TYPE_GLOBAL);
        if (is_web) {
            global = JS_GetGlobalObject(ctx);
            JSAtom name = JS_NewAtom(ctx, "__capsaWeb");
            JS_DeleteProperty(ctx, global, name, 0);
            JS_FreeAtom(ctx, name);
            JS_FreeValue(ctx, global);
        }
        if (JS_IsException(r)) {
            JSValue err = JS_GetException(ctx);
            report_error(err);
            JS_FreeValue(ctx, err);
            return CAPSA_GUEST_THREW;
        }
        js_exports[i] = r;
        if (strcmp(f->name, "runtime.js") == 0)
            runtime_api = r;
        if (is_web) {
            web_tick = JS_GetPropertyStr(ctx, r, "tick");
            web_cancel = JS_GetPropertyStr(ctx, r, "cancel");
        }
    }
    if (JS_IsException(web_tick) || JS_IsException(web_cancel))
        return CAPSA_GUEST_NOMEM;
    /* The memory as it is now becomes every sandbox's image: collect the garbage
       of the setup first, and set the next collection well above what is live.
       Otherwise the first allocation of each run could start a collection that
       walks (and so copies, page by page) the whole heap of the image. */
    JS_RunGC(rt);
    JSMemoryUsage usage;
    JS_ComputeMemoryUsage(rt, &usage);
    JS_SetGCThreshold(rt, (size_t)usage.malloc_size + (size_t)usage.malloc_size / 2);
    return CAPSA_GUEST_OK;
}

/* Gives one sandbox made from the image its own settings: QuickJS's memory limit
 * (0: none), the seed of Math.random, and the time origin of performance.now(). */
EXPORT("capsa_configure") int32_t capsa_configure(uint32_t memory_limit, uint32_t seed_lo,
                                                  uint32_t seed_hi)
{
    if (!ctx)
        return CAPSA_GUEST_BADARG;
    JS_SetMemoryLimit(rt, memory_limit ? memory_limit : (size_t)-1);
    JS_SetRandomSeed(ctx, (uint64_t)seed_hi << 32 | seed_lo);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    origin_ns = monotonic_ns();
    origin_unix_ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
    return CAPSA_GUEST_OK;
}

EXPORT("capsa_alloc") void *capsa_alloc(uint32_t size)
{
    return malloc(size);
}

EXPORT("capsa_dealloc") void capsa_dealloc(void *p)
{
    free(p);
}

/* Keeps the first uncaught exception of the run (the pending one) and drops the
 * others. */
static void note_uncaught(void)
{
    JSValue err = JS_GetException(ctx);
    if (has_uncaught) {
        JS_FreeValue(ctx, err);
        return;
    }
    uncaught = err;
    has_uncaught = 1;
}

/* Runs every pending job (promise reactions, queueMicrotask callbacks) until none
 * is left. A job that throws is a queueMicrotask callback (promise jobs turn their
 * exceptions into rejections) or an allocation failure: the run's uncaught error. */
static void drain_jobs(void)
{
    JSContext *c;
    for (;;) {
        int r = JS_ExecutePendingJob(rt, &c);
        if (r == 0)
            break;
        if (r < 0)
            note_uncaught();
    }
}

/* Calls one of web.js's exported functions; its result, or JS_EXCEPTION with the
 * exception pending. */
static JSValue call_web(JSValueConst fn)
{
    return JS_IsFunction(ctx, fn) ? JS_Call(ctx, fn, JS_UNDEFINED, 0, NULL) : JS_UNDEFINED;
}

/* Sleeps until performance.now() reaches `ms`. wasi-libc turns this into a WASI
 * poll_oneoff on the monotonic clock, which the host never lets wait past the
 * run's deadline. */
static void sleep_until(double ms)
{
    double ns = ms * 1e6;
    uint64_t t = origin_ns + (ns >= 1.8e19 ? (uint64_t)1.8e19 : (uint64_t)ns + 1);
    struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* The event loop of a run: microtasks until none is left, then the next timer
 * or immediate callback (web.js's tick() decides which, in Node's order), again
 * and again, sleeping while the next timer is not due. It ends when nothing more
 * can happen (no timer or immediate that keeps the loop alive), when a callback
 * throws (the run's error) or when the run's own promise is rejected (as an
 * uncaught error ends a Node process). Callbacks may still run after the run's
 * promise is fulfilled: the run waits for them, up to its time limit. What is
 * left then (timers that do not keep the loop alive) is cancelled, so no run
 * inherits another's timers. */
static void run_event_loop(JSValueConst run_promise)
{
    for (;;) {
        drain_jobs();
        if (has_uncaught || JS_PromiseState(ctx, run_promise) == JS_PROMISE_REJECTED)
            break;
        JSValue r = call_web(web_tick);
        if (JS_IsException(r)) {
            note_uncaught();
            continue;
        }
        double next = -1;
        if (JS_IsNumber(r))
            JS_ToFloat64(ctx, &next, r);
        JS_FreeValue(ctx, r);
        if (next < 0)
            break;
        if (next > 0)
            sleep_until(next);
    }
    /* The job queue is empty here: every way out of the loop follows drain_jobs. */
    JSValue r = call_web(web_cancel);
    if (JS_IsException(r))
        note_uncaught();
    JS_FreeValue(ctx, r);
}

/* Reports the outcome of the run: its uncaught error if a callback threw, else
 * the settled value of its promise: JSON of a fulfilled value (nothing for
 * undefined), or the error of a rejection. */
static int32_t report_outcome(JSValueConst promise)
{
    if (has_uncaught) {
        report_error(uncaught);
        JS_FreeValue(ctx, uncaught);
        uncaught = JS_UNDEFINED;
        has_uncaught = 0;
        return CAPSA_GUEST_THREW;
    }
    int state = JS_PromiseState(ctx, promise);
    if (state == JS_PROMISE_PENDING) {
        static const char msg[] = "the script's last await can never resume: "
                                  "it waits for a promise that nothing settles";
        report(CAPSA_RESULT_ERROR_NAME, "Error", 5);
        report(CAPSA_RESULT_ERROR_MESSAGE, msg, sizeof(msg) - 1);
        return CAPSA_GUEST_THREW;
    }
    JSValue v = JS_PromiseResult(ctx, promise);
    int32_t status = CAPSA_GUEST_OK;
    if (state == JS_PROMISE_REJECTED) {
        report_error(v);
        status = CAPSA_GUEST_THREW;
    } else if (!JS_IsUndefined(v)) {
        JSValue json = JS_JSONStringify(ctx, v, JS_UNDEFINED, JS_UNDEFINED);
        if (JS_IsException(json)) {
            JSValue err = JS_GetException(ctx);
            report_error(err);
            JS_FreeValue(ctx, err);
            status = CAPSA_GUEST_THREW;
        } else if (!JS_IsUndefined(json)) {
            report_js_string(CAPSA_RESULT_VALUE, json);
        }
        JS_FreeValue(ctx, json);
    }
    JS_FreeValue(ctx, v);
    return status;
}

/* Evaluates code[0..len) (code[len] must be NUL) as the body of an async
 * function in the global scope, runs its event loop and reports the outcome. */
EXPORT("capsa_run") int32_t capsa_run(const char *code, uint32_t len,
                                      const char *filename)
{
    if (!ctx || !code || code[len] != '\0' || !filename)
        return CAPSA_GUEST_BADARG;
    JSValue promise = JS_Eval(ctx, code, len, filename,
                              JS_EVAL_TYPE_GLOBAL | JS_EVAL_FLAG_ASYNC);
    if (JS_IsException(promise)) {
        JSValue err = JS_GetException(ctx);
        report_error(err);
        JS_FreeValue(ctx, err);
        return CAPSA_GUEST_THREW;
    }
    run_event_loop(promise);
    report_unhandled(promise);
    int32_t status = report_outcome(promise);
    JS_FreeValue(ctx, promise);
    return status;
}
