/* Natives of web.js: clocks, random bytes, microtasks and nextTick, buffer transfer, UTF-8
 * and base64, for the web and Node globals of the guest. web.js gets them on a host
 * object it captures and deletes; none reaches the host beyond WASI's clocks and
 * random_get. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "quickjs.h"
#include "web.h"

/* The sandbox's time origin, set when an instance is configured: performance.now()
 * counts from origin_ns (CLOCK_MONOTONIC) and performance.timeOrigin is
 * origin_unix_ms (the wall clock at the same moment). */
static uint64_t origin_ns;
static double origin_unix_ms;


uint64_t capsa_web_monotonic_ns(void)
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
    return JS_NewFloat64(c, (double)(capsa_web_monotonic_ns() - origin_ns) / 1e6);
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

/* Set when process.nextTick queued a callback; loop.c takes it. */
static int ticks_queued;

/* __capsaWeb.ticksQueued(): web.js's nextTick queued a callback, which
 * loop.c runs (web.js's runTicks) before the next microtask. */
static JSValue js_web_ticks_queued(JSContext *c, JSValueConst this_val, int argc,
                                   JSValueConst *argv)
{
    (void)c;
    (void)this_val;
    (void)argc;
    (void)argv;
    ticks_queued = 1;
    return JS_UNDEFINED;
}

int capsa_web_take_ticks(void)
{
    int r = ticks_queued;
    ticks_queued = 0;
    return r;
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
    JS_CFUNC_DEF("now", 0, js_web_now),
    JS_CFUNC_DEF("timeOrigin", 0, js_web_time_origin),
    JS_CFUNC_DEF("getRandomValues", 1, js_web_random),
    JS_CFUNC_DEF("enqueueJob", 1, js_web_enqueue),
    JS_CFUNC_DEF("ticksQueued", 0, js_web_ticks_queued),
    JS_CFUNC_DEF("detach", 1, js_web_detach),
    JS_CFUNC_DEF("utf8Encode", 1, js_web_utf8_encode),
    JS_CFUNC_DEF("utf8EncodeInto", 2, js_web_utf8_encode_into),
    JS_CFUNC_DEF("utf8Decode", 2, js_web_utf8_decode),
    JS_CFUNC_DEF("base64Encode", 1, js_web_base64_encode),
    JS_CFUNC_DEF("base64Decode", 1, js_web_base64_decode),
};


void capsa_web_add_natives(JSContext *c, JSValueConst obj)
{
    JS_SetPropertyFunctionList(c, obj, web_funcs, sizeof(web_funcs) / sizeof(web_funcs[0]));
}

void capsa_web_set_origin(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    origin_ns = capsa_web_monotonic_ns();
    origin_unix_ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

uint64_t capsa_web_origin_ns(void)
{
    return origin_ns;
}
