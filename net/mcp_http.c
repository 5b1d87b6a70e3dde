/* The MCP Streamable HTTP transport (see mcp_http.h). Each POST gets a sink that
 * gathers what its message causes: the handler waits for the answer (JSON), or
 * the SSE stream sends each message as it comes and ends after the answer. */
#define _GNU_SOURCE
#include "mcp_http.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jsonrpc.h"

#define DEFAULT_MAX_SESSIONS 100
#define DEFAULT_IDLE_S 1800.0
/* An SSE stream with nothing to say sends a comment this often, so that proxies
 * keep it open and a client that went away is noticed. */
#define KEEPALIVE_S 15

struct mcp_http {
    int own; /* the embedder's sessions (mcp_http_handle_session), under req's id */
    mcp_server *srv;
    http_server *http;
    http_sessions *sessions;
};

/* ---- sinks --------------------------------------------------------------------------- */

typedef struct msg {
    struct msg *next;
    char *text; /* NULL: a withheld answer */
    size_t len;
    int is_response;
} msg;

typedef struct hsink {
    mcp_sink base;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    msg *head, *tail;
    int answers;   /* answers received, withheld ones included */
    int expected;  /* answers to wait for; -1 until known (a GET stream: never) */
    int gone;      /* nobody reads any more: drop what comes */
    int closed;    /* a GET stream: its session ended */
    msg *cur;      /* the stream's message being written, and how far */
    size_t off;
    char *frame;   /* its SSE frame */
    size_t frame_len;
    http_sessions *hold_table; /* a session to release when the stream ends */
    char hold_id[33];
} hsink;

static void hsink_emit(mcp_sink *sink, const char *json, size_t len, int is_response)
{
    hsink *s = (hsink *)sink;
    pthread_mutex_lock(&s->lock);
    s->answers += is_response;
    msg *m = s->gone ? NULL : calloc(1, sizeof(*m));
    if (m) {
        m->is_response = is_response;
        m->len = len;
        m->text = json ? strndup(json, len) : NULL;
        if (s->tail)
            s->tail->next = m;
        else
            s->head = m;
        s->tail = m;
    }
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->lock);
}

static void msg_free(msg *m)
{
    if (m)
        free(m->text);
    free(m);
}

static void hsink_destroy(mcp_sink *sink)
{
    hsink *s = (hsink *)sink;
    for (msg *m = s->head, *next; m; m = next) {
        next = m->next;
        msg_free(m);
    }
    msg_free(s->cur);
    free(s->frame);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->cv);
    free(s);
}

static hsink *hsink_new(void)
{
    hsink *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->base.emit = hsink_emit;
    s->base.destroy = hsink_destroy;
    s->base.refs = 1;
    s->expected = -1;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cv, NULL);
    return s;
}

/* Waits, with s->lock held, until cond holds or seconds pass; 0 on timeout. */
static int wait_s(hsink *s, int seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += seconds;
    return pthread_cond_timedwait(&s->cv, &s->lock, &ts) == 0;
}

/* The SSE stream's reader: each message as an event, a keepalive comment when
 * there is none for a while, the end after the last answer (or, for a GET
 * stream, when the session ends). */
static ssize_t sse_read(void *ud, char *buf, size_t max)
{
    hsink *s = ud;
    pthread_mutex_lock(&s->lock);
    while (!s->frame) {
        msg *m = s->head;
        if (m) {
            s->head = m->next;
            if (!s->head)
                s->tail = NULL;
            if (!m->text) {
                msg_free(m);
                continue;
            }
            size_t n = m->len + 32;
            s->frame = malloc(n);
            if (s->frame)
                s->frame_len = (size_t)snprintf(s->frame, n, "event: message\ndata: %s\n\n", m->text);
            s->off = 0;
            msg_free(m);
            if (!s->frame) {
                pthread_mutex_unlock(&s->lock);
                return -1;
            }
            break;
        }
        if (s->closed || (s->expected >= 0 && s->answers >= s->expected)) {
            pthread_mutex_unlock(&s->lock);
            return -1;
        }
        if (!wait_s(s, KEEPALIVE_S) && !s->head) {
            static const char ka[] = ": keepalive\n\n";
            pthread_mutex_unlock(&s->lock);
            size_t n = sizeof(ka) - 1 < max ? sizeof(ka) - 1 : max;
            memcpy(buf, ka, n);
            return (ssize_t)n;
        }
    }
    size_t n = s->frame_len - s->off < max ? s->frame_len - s->off : max;
    memcpy(buf, s->frame + s->off, n);
    s->off += n;
    if (s->off == s->frame_len) {
        free(s->frame);
        s->frame = NULL;
    }
    pthread_mutex_unlock(&s->lock);
    return (ssize_t)n;
}

/* The stream ended (or its client went away): later messages are dropped. */
static void sse_done(void *ud)
{
    hsink *s = ud;
    pthread_mutex_lock(&s->lock);
    s->gone = 1;
    http_sessions *t = s->hold_table;
    s->hold_table = NULL;
    pthread_mutex_unlock(&s->lock);
    if (t)
        http_sessions_release(t, s->hold_id);
    mcp_sink_drop(&s->base);
}

/* ---- sessions ------------------------------------------------------------------------ */

typedef struct hsession {
    mcp_session *ss;
    hsink *get; /* the open GET stream, NULL: none */
} hsession;

static void hsession_free(void *v)
{
    hsession *h = v;
    if (h->get) {
        pthread_mutex_lock(&h->get->lock);
        h->get->closed = 1;
        pthread_cond_broadcast(&h->get->cv);
        pthread_mutex_unlock(&h->get->lock);
        mcp_sink_drop(&h->get->base);
    }
    mcp_session_free(h->ss);
    free(h);
}

/* ---- the endpoint ------------------------------------------------------------------ */

/* Answers with a JSON-RPC error (id null) and an HTTP status. */
static void rpc_error(http_request *req, unsigned status, int code, const char *message)
{
    json_t *e = jrpc_error(NULL, code, message, NULL);
    size_t len = 0;
    char *text = e ? jrpc_dump(e, &len) : NULL;
    http_respond(req, status, "application/json", text ? text : "", len);
    free(text);
    json_decref(e);
}

static hsession *take_up(mcp_http *h, http_request *req, const char *id);

/* The session a request names, held (release with http_sessions_release), or
 * NULL after answering 400 (no id) or 404 (unknown, ended or expired; the
 * embedder's sessions: see take_up). */
static hsession *named_session(mcp_http *h, http_request *req, const char **id)
{
    *id = http_header(req, "Mcp-Session-Id");
    if (*id && h->own)
        return take_up(h, req, *id);
    if (!*id) {
        rpc_error(req, 400, JRPC_INVALID_REQUEST,
                  "Bad Request: no Mcp-Session-Id header (send initialize first)");
        return NULL;
    }
    hsession *s = http_sessions_get(h->sessions, *id);
    if (!s)
        rpc_error(req, 404, JRPC_INVALID_REQUEST,
                  "Not Found: no such session (it ended or expired): initialize again");
    return s;
}

/* The embedder's session id, held: this process's, or taken up here as one
 * initialized elsewhere (with the request's MCP-Protocol-Version, or
 * 2025-03-26 when it has none, as the specification says). NULL after
 * answering. */
static hsession *take_up(mcp_http *h, http_request *req, const char *id)
{
    hsession *s = http_sessions_get(h->sessions, id);
    if (s)
        return s;
    const char *version = http_header(req, "MCP-Protocol-Version");
    char err[256] = "";
    s = calloc(1, sizeof(*s));
    if (!s || mcp_session_new(h->srv, id, &s->ss, err, sizeof(err)) != 0) {
        rpc_error(req, 500, JRPC_INTERNAL_ERROR, s ? err : "out of memory");
        free(s);
        return NULL;
    }
    if (mcp_session_resume(s->ss, version ? version : "2025-03-26") != 0) {
        char why[160];
        snprintf(why, sizeof(why), "Bad Request: MCP-Protocol-Version %.32s is not supported",
                 version);
        rpc_error(req, 400, JRPC_INVALID_REQUEST, why);
        hsession_free(s);
        return NULL;
    }
    int rc = http_sessions_put(h->sessions, s, id);
    if (rc == 0)
        return s;
    hsession_free(s);
    if (rc == 2 && (s = http_sessions_get(h->sessions, id))) /* taken up meanwhile */
        return s;
    rpc_error(req, 503, JRPC_INTERNAL_ERROR, "Service Unavailable: too many live sessions");
    return NULL;
}

/* Handles body in session s for req: JSON, an SSE stream, or 202. Takes over the
 * hold on the session (released here, or when the stream ends). */
static void serve(mcp_http *h, http_request *req, hsession *s, const char *id, int fresh)
{
    size_t len = 0;
    const char *body = http_body(req, &len);
    hsink *sink = hsink_new();
    if (!sink) {
        rpc_error(req, 500, JRPC_INTERNAL_ERROR, "out of memory");
        http_sessions_release(h->sessions, id);
        return;
    }
    mcp_handled info;
    mcp_session_handle(s->ss, body, len, &sink->base, &info);
    pthread_mutex_lock(&sink->lock);
    sink->expected = info.requests;
    pthread_mutex_unlock(&sink->lock);
    if (fresh && !mcp_session_ready(s->ss)) {
        /* initialize failed: answer with its error and forget the session. */
        pthread_mutex_lock(&sink->lock);
        msg *m = sink->head;
        pthread_mutex_unlock(&sink->lock);
        http_respond(req, 400, "application/json", m && m->text ? m->text : "", m ? m->len : 0);
        http_sessions_release(h->sessions, id);
        http_sessions_remove(h->sessions, id);
        mcp_sink_drop(&sink->base);
        return;
    }
    if (fresh)
        http_add_header(req, "Mcp-Session-Id", id);
    if (info.requests == 0) {
        http_respond(req, 202, NULL, "", 0);
        http_sessions_release(h->sessions, id);
        mcp_sink_drop(&sink->base);
        return;
    }
    if (info.streamable) {
        memcpy(sink->hold_id, id, 33);
        sink->hold_table = h->sessions;
        http_add_header(req, "Cache-Control", "no-cache");
        http_stream(req, 200, "text/event-stream", sse_read, sse_done, sink);
        return;
    }
    pthread_mutex_lock(&sink->lock);
    while (sink->answers < sink->expected)
        pthread_cond_wait(&sink->cv, &sink->lock);
    msg *answer = NULL;
    for (msg *m = sink->head; m; m = m->next) {
        if (m->is_response && m->text)
            answer = m;
    }
    pthread_mutex_unlock(&sink->lock);
    if (answer)
        http_respond(req, 200, "application/json", answer->text, answer->len);
    else
        http_respond(req, 202, NULL, "", 0); /* its request was cancelled */
    http_sessions_release(h->sessions, id);
    mcp_sink_drop(&sink->base);
}

/* A POST; new_id: an initialize opens the embedder's session new_id. */
static void post(mcp_http *h, http_request *req, const char *new_id)
{
    const char *accept = http_header(req, "Accept");
    const char *type = http_header(req, "Content-Type");
    if (!accept || !http_accepts(accept, "application/json") || !http_accepts(accept, "text/event-stream")) {
        rpc_error(req, 406, JRPC_INVALID_REQUEST,
                  "Not Acceptable: the client must accept both application/json and text/event-stream");
        return;
    }
    if (!type || !http_accepts(type, "application/json")) {
        rpc_error(req, 415, JRPC_INVALID_REQUEST, "Unsupported Media Type: the body must be application/json");
        return;
    }
    size_t len = 0;
    const char *body = http_body(req, &len);
    if (!http_header(req, "Mcp-Session-Id") && mcp_is_initialize(body, len)) {
        hsession *s = calloc(1, sizeof(*s));
        char id[33], err[256] = "";
        int rc = -1;
        if (s && new_id && strlen(new_id) == 32) {
            int put = http_sessions_put(h->sessions, s, memcpy(id, new_id, 33));
            rc = put == 0 ? 0 : put == 1 ? 1 : -1;
        }
        else if (s && !h->own)
            rc = http_sessions_add(h->sessions, s, id);
        if (rc != 0) {
            free(s);
            rpc_error(req, rc == 1 ? 503 : 500, JRPC_INTERNAL_ERROR,
                      rc == 1 ? "Service Unavailable: too many live sessions" : "out of memory");
            return;
        }
        if (mcp_session_new(h->srv, id, &s->ss, err, sizeof(err)) != 0) {
            fprintf(stderr, "capsa mcp: a new session failed: %s\n", err);
            rpc_error(req, 500, JRPC_INTERNAL_ERROR, err);
            http_sessions_release(h->sessions, id);
            http_sessions_remove(h->sessions, id);
            return;
        }
        serve(h, req, s, id, 1);
        return;
    }
    const char *id;
    hsession *s = named_session(h, req, &id);
    if (!s)
        return;
    const char *version = http_header(req, "MCP-Protocol-Version");
    if (version && !mcp_version_supported(version)) {
        char why[160];
        snprintf(why, sizeof(why), "Bad Request: MCP-Protocol-Version %.32s is not supported "
                 "(this session speaks %s)", version, mcp_session_version(s->ss));
        rpc_error(req, 400, JRPC_INVALID_REQUEST, why);
        http_sessions_release(h->sessions, id);
        return;
    }
    serve(h, req, s, id, 0);
}

static void on_post(void *ud, http_request *req)
{
    post(ud, req, NULL);
}

static void on_get(void *ud, http_request *req)
{
    mcp_http *h = ud;
    const char *accept = http_header(req, "Accept");
    if (!accept || !http_accepts(accept, "text/event-stream")) {
        rpc_error(req, 406, JRPC_INVALID_REQUEST, "Not Acceptable: GET opens a text/event-stream");
        return;
    }
    const char *id;
    hsession *s = named_session(h, req, &id);
    if (!s)
        return;
    int open = 0;
    if (s->get) {
        pthread_mutex_lock(&s->get->lock);
        open = !s->get->gone;
        pthread_mutex_unlock(&s->get->lock);
    }
    hsink *sink = open ? NULL : hsink_new();
    if (!sink) {
        rpc_error(req, open ? 409 : 500, JRPC_INVALID_REQUEST,
                  open ? "Conflict: the session's stream is already open" : "out of memory");
        http_sessions_release(h->sessions, id);
        return;
    }
    if (s->get)
        mcp_sink_drop(&s->get->base);
    mcp_sink_hold(&sink->base); /* one for the session, one for the stream */
    s->get = sink;
    http_add_header(req, "Cache-Control", "no-cache");
    http_stream(req, 200, "text/event-stream", sse_read, sse_done, sink);
    http_sessions_release(h->sessions, id);
}

static void on_delete(void *ud, http_request *req)
{
    mcp_http *h = ud;
    const char *id;
    hsession *s = named_session(h, req, &id);
    if (!s)
        return;
    http_sessions_release(h->sessions, id);
    http_sessions_remove(h->sessions, id);
    http_respond(req, 204, NULL, "", 0);
}

mcp_http *mcp_http_new(mcp_server *srv, const mcp_http_config *cfg, char *err, size_t errsize)
{
    mcp_http *h = calloc(1, sizeof(*h));
    if (h) {
        h->srv = srv;
        h->own = cfg->stored;
        h->sessions = http_sessions_new(cfg->max_sessions ? cfg->max_sessions : DEFAULT_MAX_SESSIONS,
                                        cfg->idle_s > 0 ? cfg->idle_s : DEFAULT_IDLE_S,
                                        hsession_free);
    }
    if (!h || !h->sessions) {
        snprintf(err, errsize, "out of memory");
        free(h);
        return NULL;
    }
    return h;
}

void mcp_http_handle_session(mcp_http *h, http_request *req, const char *new_id)
{
    if (strcmp(http_method(req), "POST") == 0)
        post(h, req, new_id);
    else
        mcp_http_handle(h, req);
}

void mcp_http_handle(mcp_http *h, http_request *req)
{
    const char *m = http_method(req);
    if (strcmp(m, "POST") == 0)
        on_post(h, req);
    else if (strcmp(m, "GET") == 0)
        on_get(h, req);
    else if (strcmp(m, "DELETE") == 0)
        on_delete(h, req);
    else
        http_respond(req, 405, "text/plain; charset=utf-8", "405 Method Not Allowed\n", 23);
}

mcp_http *mcp_http_start(mcp_server *srv, const mcp_http_config *cfg, char *err, size_t errsize)
{
    mcp_http *h = mcp_http_new(srv, cfg, err, errsize);
    if (!h)
        return NULL;
    http_config hc = cfg->http;
    if (!hc.max_body)
        hc.max_body = mcp_server_max_message(srv);
    h->http = http_server_new(&hc, err, errsize);
    if (!h->http || http_route(h->http, "POST", "/mcp", on_post, h) != 0 ||
        http_route(h->http, "GET", "/mcp", on_get, h) != 0 ||
        http_route(h->http, "DELETE", "/mcp", on_delete, h) != 0 ||
        http_server_start(h->http, err, errsize) != 0) {
        if (h->http && !err[0])
            snprintf(err, errsize, "out of memory");
        mcp_http_free(h);
        return NULL;
    }
    return h;
}

uint16_t mcp_http_port(const mcp_http *h)
{
    return http_server_port(h->http);
}

void mcp_http_expire(mcp_http *h)
{
    http_sessions_expire(h->sessions);
}

void mcp_http_free(mcp_http *h)
{
    if (!h)
        return;
    /* Sessions first: ending them ends their GET streams, so that the server's
       connection threads can be joined (those waiting for a call's answer end
       with it, and free their session then). */
    if (h->sessions)
        http_sessions_remove_all(h->sessions);
    http_server_free(h->http);
    http_sessions_free(h->sessions);
    free(h);
}
