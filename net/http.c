/* The HTTP server (see http.h): libmicrohttpd with a thread per connection; the
 * checks of every request in one place (check_request), bodies gathered within
 * their limit, streamed answers, and the session table. */
#define _GNU_SOURCE
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>

#include "lazylibs.h"

#define DEFAULT_MAX_BODY (4u << 20)
#define DEFAULT_MAX_CONNECTIONS 512
#define MAX_ROUTES 16
#define MAX_HEADERS 8
#define IDLE_CONNECTION_S 120

/* libmicrohttpd's functions, loaded by the first server's start. */
static pthread_once_t mhd_once = PTHREAD_ONCE_INIT;
static const lazylibs_mhd *mhd;
static char mhd_err[256];

static void mhd_load(void)
{
    mhd = lazylibs_mhd_get(mhd_err, sizeof(mhd_err));
}

int http_random_id(char *out, size_t size)
{
    unsigned char b[16];
    size_t got = 0;
    if (size < 2 * sizeof(b) + 1)
        return -1;
    while (got < sizeof(b)) {
        ssize_t n = getrandom(b + got, sizeof(b) - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof(b); i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    return 0;
}

typedef struct route {
    char *method, *path;
    size_t prefix; /* a prefix route: the bytes of path to match; 0: exact */
    http_handler fn;
    void *ud;
} route;

struct http_server {
    struct MHD_Daemon *daemon;
    char *host;
    uint16_t port;
    char *token;
    char **origins;
    size_t n_origins;
    size_t max_body;
    unsigned max_connections;
    int loopback;
    int handler_auth, json_errors;
    route routes[MAX_ROUTES];
    size_t n_routes;
};

struct http_request {
    http_server *srv;
    struct MHD_Connection *conn;
    const char *method;
    const char *url;
    const route *route;
    char *body;
    size_t len, cap;
    int too_big;
    struct MHD_Response *resp;
    unsigned status;
    char *headers[MAX_HEADERS][2];
    size_t n_headers;
};

/* ---- names of hosts ------------------------------------------------------------ */

/* Whether host (no port, IPv6 without brackets) names this machine's loopback. */
static int loopback_name(const char *host, size_t n)
{
    char h[64];
    if (n == 0 || n >= sizeof(h))
        return 0;
    memcpy(h, host, n);
    h[n] = '\0';
    if (strcasecmp(h, "localhost") == 0 || strcmp(h, "::1") == 0)
        return 1;
    struct in_addr a;
    return inet_pton(AF_INET, h, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

int http_host_is_loopback(const char *host)
{
    return !host || loopback_name(host, strlen(host));
}

/* The host part of "host[:port]" or "[v6][:port]": *start and its length. */
static size_t host_part(const char *hp, const char **start)
{
    if (hp[0] == '[') {
        const char *end = strchr(hp, ']');
        *start = hp + 1;
        return end ? (size_t)(end - hp - 1) : 0;
    }
    *start = hp;
    const char *colon = strchr(hp, ':');
    return colon ? (size_t)(colon - hp) : strlen(hp);
}

/* ---- the checks ------------------------------------------------------------------- */

/* Compares without an early exit, so that the time taken says nothing of where
 * two tokens differ. */
static int same_secret(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char diff = (unsigned char)(la != lb);
    for (size_t i = 0; i < la; i++)
        diff |= (unsigned char)(a[i] ^ b[i % (lb ? lb : 1)]);
    return diff == 0;
}

/* The refusal of a request before any handler sees it: its status and message,
 * or 0 when it may go on. Every request passes through here. */
static unsigned check_request(http_server *s, struct MHD_Connection *c, const char **why)
{
    const char *host = mhd->lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    const char *origin = mhd->lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ORIGIN);
    const char *start;
    if (s->loopback && host && !loopback_name(start = host, host_part(host, &start))) {
        *why = "403 Forbidden: the Host header does not name this loopback server "
               "(DNS rebinding?)\n";
        return MHD_HTTP_FORBIDDEN;
    }
    if (origin) {
        int ok = 0;
        for (size_t i = 0; i < s->n_origins && !ok; i++)
            ok = strcmp(origin, s->origins[i]) == 0;
        const char *rest = strstr(origin, "://");
        if (!ok && rest && (strncmp(origin, "http://", 7) == 0 || strncmp(origin, "https://", 8) == 0)) {
            size_t n = host_part(rest + 3, &start);
            ok = loopback_name(start, n);
        }
        if (!ok) {
            *why = "403 Forbidden: this Origin is not allowed (see --allow-origin)\n";
            return MHD_HTTP_FORBIDDEN;
        }
    }
    if (s->token && !s->handler_auth) {
        const char *auth = mhd->lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
        if (!auth || strncasecmp(auth, "Bearer ", 7) != 0 || !same_secret(auth + 7, s->token)) {
            *why = "401 Unauthorized: a bearer token is required\n";
            return MHD_HTTP_UNAUTHORIZED;
        }
    }
    return 0;
}

/* ---- answers --------------------------------------------------------------------- */

/* The code of a refusal's JSON error object. */
static const char *status_code_name(unsigned status)
{
    switch (status) {
    case MHD_HTTP_UNAUTHORIZED: return "unauthorized";
    case MHD_HTTP_FORBIDDEN: return "forbidden";
    case MHD_HTTP_NOT_FOUND: return "not_found";
    case MHD_HTTP_METHOD_NOT_ALLOWED: return "method_not_allowed";
    case MHD_HTTP_CONTENT_TOO_LARGE: return "too_large";
    default: return "internal";
    }
}

/* Answers a refusal: text ("STATUS Reason: why\n"), or under json_errors the
 * same words as {"error":{"code","message"}}. */
static enum MHD_Result queue_text(http_server *s, struct MHD_Connection *c, unsigned status,
                                  const char *text)
{
    char json[512];
    int is_json = s && s->json_errors;
    if (is_json) {
        const char *why = strchr(text, ' ') ? strchr(text, ' ') + 1 : text;
        size_t n = strcspn(why, "\n\"\\");
        snprintf(json, sizeof(json), "{\"error\":{\"code\":\"%s\",\"message\":\"%.*s\"}}\n",
                 status_code_name(status), (int)(n > 400 ? 400 : n), why);
    }
    struct MHD_Response *r =
        is_json ? mhd->create_response_from_buffer(strlen(json), json, MHD_RESPMEM_MUST_COPY)
                : mhd->create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                            is_json ? "application/json" : "text/plain; charset=utf-8");
    if (status == MHD_HTTP_UNAUTHORIZED)
        mhd->add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
    enum MHD_Result rc = mhd->queue_response(c, status, r);
    mhd->destroy_response(r);
    return rc;
}

void http_add_header(http_request *req, const char *name, const char *value)
{
    if (req->n_headers >= MAX_HEADERS)
        return;
    char *n = strdup(name), *v = strdup(value);
    if (!n || !v) {
        free(n);
        free(v);
        return;
    }
    req->headers[req->n_headers][0] = n;
    req->headers[req->n_headers++][1] = v;
}

const char *http_added_header(http_request *req, const char *name)
{
    for (size_t i = 0; i < req->n_headers; i++) {
        if (strcasecmp(req->headers[i][0], name) == 0)
            return req->headers[i][1];
    }
    return NULL;
}

static void finish(http_request *req, struct MHD_Response *r, unsigned status, const char *type)
{
    if (!r)
        return;
    if (type)
        mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    for (size_t i = 0; i < req->n_headers; i++)
        mhd->add_response_header(r, req->headers[i][0], req->headers[i][1]);
    if (req->resp)
        mhd->destroy_response(req->resp);
    req->resp = r;
    req->status = status;
}

void http_respond(http_request *req, unsigned status, const char *content_type,
                  const char *body, size_t len)
{
    finish(req, mhd->create_response_from_buffer(len, (void *)(body ? body : ""),
                                                MHD_RESPMEM_MUST_COPY),
           status, content_type);
}

typedef struct stream {
    http_reader read;
    void (*done)(void *ud);
    void *ud;
} stream;

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    stream *st = cls;
    ssize_t n = st->read(st->ud, buf, max);
    return n < 0 ? MHD_CONTENT_READER_END_OF_STREAM : n;
}

static void stream_free(void *cls)
{
    stream *st = cls;
    st->done(st->ud);
    free(st);
}

void http_stream(http_request *req, unsigned status, const char *content_type,
                 http_reader read, void (*done)(void *ud), void *ud)
{
    stream *st = malloc(sizeof(*st));
    struct MHD_Response *r = st ? mhd->create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024,
                                                                    stream_read, st, stream_free)
                                : NULL;
    if (!r) {
        free(st);
        done(ud);
        return;
    }
    st->read = read;
    st->done = done;
    st->ud = ud;
    finish(req, r, status, content_type);
}

const char *http_method(http_request *req)
{
    return req->method;
}

const char *http_header(http_request *req, const char *name)
{
    return mhd->lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

const char *http_path(http_request *req)
{
    return req->url;
}

const char *http_query(http_request *req, const char *name)
{
    return mhd->lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
}

long http_bearer(http_request *req, const char *const *tokens, size_t n)
{
    const char *auth = http_header(req, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!auth || strncasecmp(auth, "Bearer ", 7) != 0)
        return -1;
    long found = -1;
    for (size_t i = 0; i < n; i++) { /* every one compared: the time says nothing */
        if (same_secret(auth + 7, tokens[i]) && found < 0)
            found = (long)i;
    }
    return found;
}

const char *http_body(http_request *req, size_t *len)
{
    if (len)
        *len = req->len;
    return req->body ? req->body : "";
}

int http_accepts(const char *value, const char *type)
{
    size_t n = strlen(type);
    for (const char *p = value; p && *p;) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (strncasecmp(p, type, n) == 0 && strchr(" \t;,", p[n] ? p[n] : ','))
            return 1;
        p = strchr(p, ',');
    }
    return 0;
}

/* ---- the daemon ---------------------------------------------------------------- */

static const route *find_route(http_server *s, const char *method, const char *url, int *path_known)
{
    *path_known = 0;
    for (int pass = 0; pass < 2; pass++) { /* exact routes, then prefix ones */
        for (size_t i = 0; i < s->n_routes; i++) {
            const route *r = &s->routes[i];
            if (pass == 0 ? r->prefix || strcmp(r->path, url) != 0
                          : !r->prefix || strncmp(r->path, url, r->prefix) != 0)
                continue;
            *path_known = 1;
            if (strcmp(r->method, method) == 0)
                return r;
        }
        if (*path_known)
            return NULL;
    }
    return NULL;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    http_server *s = cls;
    http_request *req = *con_cls;
    if (!req) {
        const char *why = NULL;
        unsigned status = check_request(s, c, &why);
        if (status)
            return queue_text(s, c, status, why);
        int known;
        const route *r = find_route(s, method, url, &known);
        if (!r)
            return queue_text(s, c, known ? MHD_HTTP_METHOD_NOT_ALLOWED : MHD_HTTP_NOT_FOUND,
                              known ? "405 Method Not Allowed\n" : "404 Not Found\n");
        const char *cl = mhd->lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > s->max_body)
            return queue_text(s, c, MHD_HTTP_CONTENT_TOO_LARGE, "413 Payload Too Large\n");
        req = calloc(1, sizeof(*req));
        if (!req)
            return MHD_NO;
        req->srv = s;
        req->conn = c;
        req->method = method;
        req->url = url;
        req->route = r;
        *con_cls = req;
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (req->too_big || req->len + n > s->max_body) {
            req->too_big = 1; /* the rest is read and dropped: then 413 */
            return MHD_YES;
        }
        if (req->len + n + 1 > req->cap) {
            size_t cap = req->cap ? req->cap : 4096;
            while (cap < req->len + n + 1)
                cap *= 2;
            char *b = realloc(req->body, cap);
            if (!b)
                return MHD_NO;
            req->body = b;
            req->cap = cap;
        }
        memcpy(req->body + req->len, upload, n);
        req->len += n;
        req->body[req->len] = '\0';
        return MHD_YES;
    }
    if (req->too_big)
        return queue_text(s, c, MHD_HTTP_CONTENT_TOO_LARGE, "413 Payload Too Large\n");
    req->route->fn(req->route->ud, req);
    if (!req->resp)
        return queue_text(s, c, MHD_HTTP_INTERNAL_SERVER_ERROR, "500 Internal Server Error\n");
    enum MHD_Result rc = mhd->queue_response(c, req->status, req->resp);
    mhd->destroy_response(req->resp);
    req->resp = NULL;
    return rc;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    http_request *req = *con_cls;
    if (!req)
        return;
    if (req->resp)
        mhd->destroy_response(req->resp);
    for (size_t i = 0; i < req->n_headers; i++) {
        free(req->headers[i][0]);
        free(req->headers[i][1]);
    }
    free(req->body);
    free(req);
    *con_cls = NULL;
}

http_server *http_server_new(const http_config *cfg, char *err, size_t errsize)
{
    http_server *s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, errsize, "out of memory");
        return NULL;
    }
    s->host = strdup(cfg->host ? cfg->host : "127.0.0.1");
    s->port = cfg->port;
    s->token = cfg->token ? strdup(cfg->token) : NULL;
    s->max_body = cfg->max_body ? cfg->max_body : DEFAULT_MAX_BODY;
    s->max_connections = cfg->max_connections ? cfg->max_connections : DEFAULT_MAX_CONNECTIONS;
    s->loopback = http_host_is_loopback(s->host);
    s->handler_auth = cfg->handler_auth;
    s->json_errors = cfg->json_errors;
    s->origins = cfg->n_origins ? calloc(cfg->n_origins, sizeof(char *)) : NULL;
    int nomem = !s->host || (cfg->token && !s->token) || (cfg->n_origins && !s->origins);
    for (size_t i = 0; !nomem && i < cfg->n_origins; i++) {
        nomem = !(s->origins[i] = strdup(cfg->origins[i]));
        s->n_origins += !nomem;
    }
    if (nomem) {
        snprintf(err, errsize, "out of memory");
        http_server_free(s);
        return NULL;
    }
    if (!s->loopback && !s->token && !s->handler_auth) {
        snprintf(err, errsize, "%s is not a loopback address: a bearer token is required", s->host);
        http_server_free(s);
        return NULL;
    }
    return s;
}

int http_route(http_server *s, const char *method, const char *path, http_handler fn, void *ud)
{
    if (s->n_routes >= MAX_ROUTES)
        return -1;
    route *r = &s->routes[s->n_routes];
    r->method = strdup(method);
    r->path = strdup(path);
    r->fn = fn;
    r->ud = ud;
    size_t n = strlen(path);
    r->prefix = n && path[n - 1] == '*' ? n - 1 : 0;
    if (!r->method || !r->path) {
        free(r->method);
        free(r->path);
        return -1;
    }
    s->n_routes++;
    return 0;
}

static size_t keep_escaped(void *cls, struct MHD_Connection *c, char *s)
{
    return strlen(s);
}

int http_server_start(http_server *s, char *err, size_t errsize)
{
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    struct sockaddr *addr;
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL;
    const char *h = strcasecmp(s->host, "localhost") == 0 ? "127.0.0.1" : s->host;
    pthread_once(&mhd_once, mhd_load);
    if (!mhd) {
        snprintf(err, errsize, "%s", mhd_err);
        return -1;
    }
    memset(&v4, 0, sizeof(v4));
    memset(&v6, 0, sizeof(v6));
    if (inet_pton(AF_INET, h, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(s->port);
        addr = (struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, h, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(s->port);
        addr = (struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(err, errsize, "'%s' is not an IP address (nor localhost)", s->host);
        return -1;
    }
    s->daemon = mhd->start_daemon(flags, s->port, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR,
                                 addr, MHD_OPTION_CONNECTION_LIMIT, s->max_connections,
                                 MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                                 /* A connection that sends nothing for this long is
                                    closed (a handler at work does not count). */
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_CONNECTION_S,
                                 /* Paths and query values reach the handlers as
                                    sent: they decode them (http_path). */
                                 MHD_OPTION_UNESCAPE_CALLBACK, keep_escaped, NULL,
                                 MHD_OPTION_END);
    if (!s->daemon) {
        snprintf(err, errsize, "cannot listen on %s port %u (taken, or not an address of this "
                               "machine)", s->host, (unsigned)s->port);
        return -1;
    }
    const union MHD_DaemonInfo *info = mhd->get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    if (info)
        s->port = info->port;
    return 0;
}

uint16_t http_server_port(const http_server *s)
{
    return s->port;
}

void http_server_free(http_server *s)
{
    if (!s)
        return;
    if (s->daemon)
        mhd->stop_daemon(s->daemon);
    for (size_t i = 0; i < s->n_routes; i++) {
        free(s->routes[i].method);
        free(s->routes[i].path);
    }
    for (size_t i = 0; i < s->n_origins; i++)
        free(s->origins[i]);
    free(s->origins);
    free(s->token);
    free(s->host);
    free(s);
}

/* ---- sessions ---------------------------------------------------------------------- */

typedef struct session {
    char id[33];
    void *value;
    int holds;
    int removed;
    double last_used;
} session;

struct http_sessions {
    pthread_mutex_t lock;
    session *s;
    size_t n, max;
    double idle_s;
    void (*free_fn)(void *);
};

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

http_sessions *http_sessions_new(size_t max, double idle_s, void (*free_fn)(void *value))
{
    http_sessions *t = calloc(1, sizeof(*t));
    if (!t || !(t->s = calloc(max ? max : 1, sizeof(session)))) {
        free(t);
        return NULL;
    }
    pthread_mutex_init(&t->lock, NULL);
    t->max = max;
    t->idle_s = idle_s;
    t->free_fn = free_fn;
    return t;
}

/* Takes entry i out of the table when it is removed and unheld; returns its value
 * to free (outside the lock), or NULL. */
static void *reap(http_sessions *t, size_t i)
{
    if (!t->s[i].removed || t->s[i].holds > 0)
        return NULL;
    void *v = t->s[i].value;
    t->s[i] = t->s[--t->n];
    return v;
}

void http_sessions_free(http_sessions *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        t->free_fn(t->s[i].value);
    pthread_mutex_destroy(&t->lock);
    free(t->s);
    free(t);
}

static long find_session(http_sessions *t, const char *id);

int http_sessions_add(http_sessions *t, void *value, char id[33])
{
    if (http_random_id(id, 33) != 0)
        return -1;
    return http_sessions_put(t, value, id);
}

int http_sessions_put(http_sessions *t, void *value, const char *id)
{
    if (strlen(id) != 32)
        return -1;
    pthread_mutex_lock(&t->lock);
    if (find_session(t, id) >= 0) {
        pthread_mutex_unlock(&t->lock);
        return 2;
    }
    if (t->n >= t->max) {
        pthread_mutex_unlock(&t->lock);
        return 1;
    }
    session *s = &t->s[t->n++];
    memcpy(s->id, id, 33);
    s->value = value;
    s->holds = 1;
    s->removed = 0;
    s->last_used = mono_s();
    pthread_mutex_unlock(&t->lock);
    return 0;
}

static long find_session(http_sessions *t, const char *id)
{
    for (size_t i = 0; id && i < t->n; i++) {
        if (!t->s[i].removed && same_secret(t->s[i].id, id))
            return (long)i;
    }
    return -1;
}

void *http_sessions_get(http_sessions *t, const char *id)
{
    pthread_mutex_lock(&t->lock);
    long i = find_session(t, id);
    void *v = NULL;
    if (i >= 0) {
        t->s[i].holds++;
        t->s[i].last_used = mono_s();
        v = t->s[i].value;
    }
    pthread_mutex_unlock(&t->lock);
    return v;
}

void http_sessions_release(http_sessions *t, const char *id)
{
    void *v = NULL;
    pthread_mutex_lock(&t->lock);
    for (size_t i = 0; i < t->n; i++) {
        if (strcmp(t->s[i].id, id) == 0) {
            t->s[i].holds--;
            t->s[i].last_used = mono_s();
            v = reap(t, i);
            break;
        }
    }
    pthread_mutex_unlock(&t->lock);
    if (v)
        t->free_fn(v);
}

int http_sessions_remove(http_sessions *t, const char *id)
{
    pthread_mutex_lock(&t->lock);
    long i = find_session(t, id);
    void *v = NULL;
    if (i >= 0) {
        t->s[i].removed = 1;
        v = reap(t, (size_t)i);
    }
    pthread_mutex_unlock(&t->lock);
    if (v)
        t->free_fn(v);
    return i >= 0 ? 0 : -1;
}

/* Removes the unheld sessions idle for over idle_s seconds (all: a negative
 * idle_s), freeing each outside the lock. */
static void remove_idle(http_sessions *t, double idle_s)
{
    for (;;) {
        void *v = NULL;
        double now = mono_s();
        pthread_mutex_lock(&t->lock);
        if (idle_s < 0) {
            for (size_t i = 0; i < t->n; i++)
                t->s[i].removed = 1;
        }
        for (size_t i = 0; i < t->n && !v; i++) {
            if (t->s[i].holds == 0 && (idle_s < 0 || now - t->s[i].last_used > idle_s)) {
                t->s[i].removed = 1;
                v = reap(t, i);
            }
        }
        pthread_mutex_unlock(&t->lock);
        if (!v)
            return;
        t->free_fn(v);
    }
}

void http_sessions_expire(http_sessions *t)
{
    remove_idle(t, t->idle_s);
}

void http_sessions_remove_all(http_sessions *t)
{
    remove_idle(t, -1);
}

size_t http_sessions_count(http_sessions *t)
{
    pthread_mutex_lock(&t->lock);
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += !t->s[i].removed;
    pthread_mutex_unlock(&t->lock);
    return n;
}
