/* The MCP client's Streamable HTTP transport (see mcp_client.h), on libcurl: each
 * message is a POST whose response is JSON or an SSE stream of messages; the
 * session id comes back on initialize and goes with every later request; a GET
 * stream carries what the server sends on its own; DELETE ends the session.
 * Redirects are not followed, only http and https are spoken, and no body or
 * event is kept past the client's max_message. */
#define _GNU_SOURCE
#include "mcp_client.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "lazylibs.h"

/* The GET stream's reopening delays. */
#define STREAM_RETRY_FIRST_MS 1000
#define STREAM_RETRY_MAX_MS 30000
#define CLOSE_TIMEOUT_MS 1000
#define ERROR_BODY_MAX 512

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static const lazylibs_curl *cu; /* libcurl's functions, once global_init found them */
static char global_err[256];

static void global_init(void)
{
    const lazylibs_curl *c = lazylibs_curl_get(global_err, sizeof(global_err));
    if (c && c->global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        snprintf(global_err, sizeof(global_err), "cannot set up libcurl (curl_global_init)");
    else
        cu = c;
}

int mcpc_http_global(char *err, size_t errsize)
{
    pthread_once(&global_once, global_init);
    if (cu)
        return 0;
    snprintf(err, errsize, "%s", global_err);
    return -1;
}

/* What one transfer reads. */
typedef struct xfer {
    mcpc_up *up;
    const mcpc_wait *w;   /* NULL: only the client's stopping ends it */
    int stream_only;      /* the GET stream: no deadline */
    int kind;             /* 0 not known yet, 1 JSON, 2 SSE, 3 other (an error body) */
    char *buf;            /* the JSON body, or the SSE line being read */
    size_t len, cap;
    char *data;           /* the SSE event's data so far */
    size_t dlen, dcap;
    char session[256];    /* Mcp-Session-Id of the response */
    int over;             /* a body or event over max_message */
    int messages;         /* messages handled */
} xfer;

static int grow(char **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 4096;
    while (c < need)
        c *= 2;
    char *n = realloc(*p, c);
    if (!n)
        return -1;
    *p = n;
    *cap = c;
    return 0;
}

static size_t on_header(char *line, size_t size, size_t n, void *ud)
{
    xfer *x = ud;
    size_t len = size * n;
    static const char name[] = "mcp-session-id:";
    if (len > sizeof(name) - 1 && strncasecmp(line, name, sizeof(name) - 1) == 0) {
        const char *v = line + sizeof(name) - 1;
        size_t vl = len - (sizeof(name) - 1);
        while (vl && (*v == ' ' || *v == '\t')) {
            v++;
            vl--;
        }
        while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' '))
            vl--;
        /* Visible ASCII only (the spec's rule): it is sent back in a header. */
        int ok = vl > 0 && vl < sizeof(x->session);
        for (size_t i = 0; ok && i < vl; i++)
            ok = v[i] > 0x20 && v[i] < 0x7F;
        if (ok)
            snprintf(x->session, sizeof(x->session), "%.*s", (int)vl, v);
    }
    return len;
}

/* One line of an SSE stream: data lines gather, a blank line ends the event. */
static int sse_line(xfer *x, const char *line, size_t len)
{
    if (len && line[len - 1] == '\r')
        len--;
    if (len == 0) {
        if (x->dlen) {
            mcpc_dispatch_text(x->up, x->data, x->dlen);
            x->messages++;
        }
        x->dlen = 0;
        return 0;
    }
    if (len >= 5 && memcmp(line, "data:", 5) == 0) {
        const char *v = line + 5;
        size_t vl = len - 5;
        if (vl && *v == ' ') {
            v++;
            vl--;
        }
        if (x->dlen + vl + 1 > mcpc_max_message(x->up)) {
            x->over = 1;
            return -1;
        }
        if (grow(&x->data, &x->dcap, x->dlen + vl + 2) != 0)
            return -1;
        if (x->dlen)
            x->data[x->dlen++] = '\n';
        memcpy(x->data + x->dlen, v, vl);
        x->dlen += vl;
    }
    return 0; /* event:, id:, retry: and comments need nothing */
}

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    xfer *x = ud;
    size_t len = size * n;
    if (x->kind == 2) {
        for (size_t i = 0; i < len;) {
            const char *nl = memchr(p + i, '\n', len - i);
            size_t take = nl ? (size_t)(nl - (p + i)) : len - i;
            if (x->len + take > mcpc_max_message(x->up)) {
                x->over = 1;
                return 0;
            }
            if (grow(&x->buf, &x->cap, x->len + take + 1) != 0)
                return 0;
            memcpy(x->buf + x->len, p + i, take);
            x->len += take;
            i += take;
            if (!nl)
                break;
            i++;
            if (sse_line(x, x->buf, x->len) != 0)
                return 0;
            x->len = 0;
        }
        return len;
    }
    size_t max = x->kind == 1 ? mcpc_max_message(x->up) : ERROR_BODY_MAX;
    if (x->len + len > max) {
        if (x->kind == 1) {
            x->over = 1;
            return 0;
        }
        len = max > x->len ? max - x->len : 0; /* an error body: its start is enough */
        if (len == 0)
            return size * n;
    }
    if (grow(&x->buf, &x->cap, x->len + len + 1) != 0)
        return 0;
    memcpy(x->buf + x->len, p, len);
    x->len += len;
    x->buf[x->len] = '\0';
    return size * n;
}

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    xfer *x = ud;
    if (x->w)
        return mcpc_wait_over(x->up, x->w) != MCPC_GO_ON;
    return __atomic_load_n(&x->up->stopping, __ATOMIC_ACQUIRE) ||
           __atomic_load_n(&x->up->stream_running, __ATOMIC_ACQUIRE) == 2;
}

typedef struct req {
    CURL *h;
    struct curl_slist *hdrs;
    xfer x;
} req;

/* The kind of the response, from its status and Content-Type, once the body
 * starts; then on_body. */
static size_t on_body_first(char *p, size_t size, size_t n, void *ud)
{
    req *r = ud;
    if (r->x.kind == 0) {
        long code = 0;
        char *ct = NULL;
        cu->easy_getinfo(r->h, CURLINFO_RESPONSE_CODE, &code);
        cu->easy_getinfo(r->h, CURLINFO_CONTENT_TYPE, &ct);
        if (code / 100 != 2)
            r->x.kind = 3;
        else if (ct && strncasecmp(ct, "text/event-stream", 17) == 0)
            r->x.kind = 2;
        else if (ct && strncasecmp(ct, "application/json", 16) == 0)
            r->x.kind = 1;
        else
            r->x.kind = 3;
    }
    return on_body(p, size, n, &r->x);
}

/* A request to the server's URL: method, with accept (NULL: none), the session's
 * headers and the configuration's. 0, or -1 when out of memory. */
static int req_init(req *r, mcpc_up *up, const char *method, const char *accept)
{
    memset(r, 0, sizeof(*r));
    r->x.up = up;
    r->h = cu->easy_init();
    if (!r->h)
        return -1;
    char line[512];
    int bad = 0;
    if (accept) {
        snprintf(line, sizeof(line), "Accept: %s", accept);
        bad |= !(r->hdrs = cu->slist_append(r->hdrs, line));
    }
    pthread_mutex_lock(&up->lock);
    if (up->session_id) {
        snprintf(line, sizeof(line), "Mcp-Session-Id: %s", up->session_id);
        struct curl_slist *l = cu->slist_append(r->hdrs, line);
        bad |= !l;
        r->hdrs = l ? l : r->hdrs;
    }
    if (up->protocol_version[0]) {
        snprintf(line, sizeof(line), "MCP-Protocol-Version: %s", up->protocol_version);
        struct curl_slist *l = cu->slist_append(r->hdrs, line);
        bad |= !l;
        r->hdrs = l ? l : r->hdrs;
    }
    pthread_mutex_unlock(&up->lock);
    for (char **hp = up->headers; hp && *hp; hp++) {
        struct curl_slist *l = cu->slist_append(r->hdrs, *hp);
        bad |= !l;
        r->hdrs = l ? l : r->hdrs;
    }
    if (bad) {
        cu->slist_free_all(r->hdrs);
        cu->easy_cleanup(r->h);
        return -1;
    }
    CURL *h = r->h;
    cu->easy_setopt(h, CURLOPT_URL, up->url);
    cu->easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    cu->easy_setopt(h, CURLOPT_HTTPHEADER, r->hdrs);
    cu->easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    cu->easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    cu->easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    cu->easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    cu->easy_setopt(h, CURLOPT_HEADERDATA, &r->x);
    cu->easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body_first);
    cu->easy_setopt(h, CURLOPT_WRITEDATA, r);
    cu->easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    cu->easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    cu->easy_setopt(h, CURLOPT_XFERINFODATA, &r->x);
    cu->easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    cu->easy_setopt(h, CURLOPT_USERAGENT, "capsa");
    return 0;
}

static void req_free(req *r)
{
    cu->slist_free_all(r->hdrs);
    cu->easy_cleanup(r->h);
    free(r->x.buf);
    free(r->x.data);
}

int mcpc_http_post(mcpc_up *up, const char *text, size_t len, const mcpc_wait *w, char *err,
                   size_t errsize)
{
    char why[256];
    if (mcpc_http_global(why, sizeof(why)) != 0) {
        snprintf(err, errsize, "cannot be reached: %s", why);
        return -2; /* no libcurl: not now, nor later */
    }
    req r;
    if (req_init(&r, up, "POST", "application/json, text/event-stream") != 0) {
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    struct curl_slist *l = cu->slist_append(r.hdrs, "Content-Type: application/json");
    if (!l) {
        req_free(&r);
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    r.hdrs = l;
    cu->easy_setopt(r.h, CURLOPT_HTTPHEADER, r.hdrs);
    cu->easy_setopt(r.h, CURLOPT_POSTFIELDS, text);
    cu->easy_setopt(r.h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    r.x.w = w;
    uint64_t now = mcpc_now_ms();
    long left = w->deadline_ms > now ? (long)(w->deadline_ms - now) : 1;
    cu->easy_setopt(r.h, CURLOPT_TIMEOUT_MS, left);
    CURLcode cc = cu->easy_perform(r.h);
    long code = 0;
    cu->easy_getinfo(r.h, CURLINFO_RESPONSE_CODE, &code);
    int rc = 0;
    int had_session;
    pthread_mutex_lock(&up->lock);
    had_session = up->session_id != NULL;
    if (!had_session && r.x.session[0])
        up->session_id = strdup(r.x.session);
    pthread_mutex_unlock(&up->lock);
    if (r.x.over) {
        snprintf(err, errsize, "server '%s' sent a message over %zu bytes", up->name, mcpc_max_message(up));
        rc = -1;
    } else if (cc == CURLE_ABORTED_BY_CALLBACK || cc == CURLE_OPERATION_TIMEDOUT) {
        rc = 0; /* the caller's wait says why */
    } else if (cc == CURLE_COULDNT_CONNECT || cc == CURLE_COULDNT_RESOLVE_HOST || cc == CURLE_GOT_NOTHING ||
               cc == CURLE_RECV_ERROR || cc == CURLE_SEND_ERROR) {
        snprintf(err, errsize, "is unreachable at %s: %s", up->url, cu->easy_strerror(cc));
        rc = -2;
    } else if (cc != CURLE_OK && cc != CURLE_WRITE_ERROR) {
        snprintf(err, errsize, "HTTP request to %s failed: %s", up->url, cu->easy_strerror(cc));
        rc = -1;
    } else if (code == 404 && had_session) {
        snprintf(err, errsize, "ended its session (HTTP 404)");
        pthread_mutex_lock(&up->lock);
        up->session_lost = 1;
        pthread_mutex_unlock(&up->lock);
        rc = -2;
    } else if (code / 100 != 2) {
        snprintf(err, errsize, "HTTP %ld from %s%s%.300s", code, up->url, r.x.len ? ": " : "",
                 r.x.len && r.x.kind == 3 ? r.x.buf : "");
        for (char *p = err; *p; p++) {
            if (*p == '\n' || *p == '\r')
                *p = ' ';
        }
        rc = -1;
    } else if (r.x.kind == 1 && r.x.len) {
        mcpc_dispatch_text(up, r.x.buf, r.x.len);
    } else if (r.x.kind == 2 && r.x.dlen) {
        mcpc_dispatch_text(up, r.x.data, r.x.dlen); /* a last event without its blank line */
    }
    req_free(&r);
    return rc;
}

static void *stream_main(void *arg)
{
    mcpc_up *up = arg;
    uint64_t delay = STREAM_RETRY_FIRST_MS;
    while (!__atomic_load_n(&up->stopping, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&up->lock);
        int go = up->state == MCPC_READY || up->state == MCPC_STARTING;
        pthread_mutex_unlock(&up->lock);
        int stop = __atomic_load_n(&up->stream_running, __ATOMIC_ACQUIRE) == 2;
        if (stop || !go)
            break;
        req r;
        if (req_init(&r, up, "GET", "text/event-stream") != 0)
            break;
        r.x.stream_only = 1;
        CURLcode cc = cu->easy_perform(r.h);
        long code = 0;
        cu->easy_getinfo(r.h, CURLINFO_RESPONSE_CODE, &code);
        int messages = r.x.messages;
        req_free(&r);
        if (code == 405 || code == 404 || (code / 100 == 4))
            break; /* no such stream: the server sends everything on POSTs */
        if (messages)
            delay = STREAM_RETRY_FIRST_MS;
        (void)cc;
        /* Reopened after a delay, checked every 50 ms. */
        for (uint64_t t = 0; t < delay; t += 50) {
            stop = __atomic_load_n(&up->stream_running, __ATOMIC_ACQUIRE) == 2 ||
                   __atomic_load_n(&up->stopping, __ATOMIC_ACQUIRE);
            if (stop)
                break;
            usleep(50000);
        }
        delay = delay * 2 > STREAM_RETRY_MAX_MS ? STREAM_RETRY_MAX_MS : delay * 2;
    }
    return NULL;
}

/* stream_running: 0 none, 1 running, 2 asked to end (seen by on_progress).
 * Only the server's starter and closer change it, never at once. */
void mcpc_http_open_stream(mcpc_up *up)
{
    if (__atomic_load_n(&up->stream_running, __ATOMIC_ACQUIRE))
        return;
    __atomic_store_n(&up->stream_running, 1, __ATOMIC_RELEASE);
    if (pthread_create(&up->stream, NULL, stream_main, up) != 0)
        __atomic_store_n(&up->stream_running, 0, __ATOMIC_RELEASE);
}

void mcpc_http_close(mcpc_up *up)
{
    if (__atomic_load_n(&up->stream_running, __ATOMIC_ACQUIRE)) {
        /* Its transfer ends at its next progress check (about every second,
           and whenever data comes). */
        __atomic_store_n(&up->stream_running, 2, __ATOMIC_RELEASE);
        pthread_join(up->stream, NULL);
        __atomic_store_n(&up->stream_running, 0, __ATOMIC_RELEASE);
    }
    pthread_mutex_lock(&up->lock);
    char *session = up->session_id;
    pthread_mutex_unlock(&up->lock);
    if (session) {
        req r;
        if (req_init(&r, up, "DELETE", NULL) == 0) {
            /* stopping may be set: this transfer is bounded by its timeout only. */
            cu->easy_setopt(r.h, CURLOPT_NOPROGRESS, 1L);
            cu->easy_setopt(r.h, CURLOPT_TIMEOUT_MS, (long)CLOSE_TIMEOUT_MS);
            cu->easy_perform(r.h);
            req_free(&r);
        }
        pthread_mutex_lock(&up->lock);
        free(up->session_id);
        up->session_id = NULL;
        pthread_mutex_unlock(&up->lock);
    }
}
