/* An HTTP server over libmicrohttpd, generic: routes of (method, path) to
 * handlers, and the checks every request passes before one runs: the Host and
 * Origin headers (a defence against DNS rebinding: on a loopback address only
 * loopback names, and a browser Origin only when it is loopback or listed), a
 * bearer token, the body's size limit. Also a table of sessions with ids from the
 * kernel's cryptographic random source, a limit of live ones and idle expiry.
 * Used by the MCP Streamable HTTP transport (net/mcp_http.c), and later by
 * `capsa serve`. Each connection has a thread of its own, so a handler may block
 * (wait for an answer) and a streamed body may be produced as it comes. */
#ifndef CAPSA_NET_HTTP_H
#define CAPSA_NET_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Writes 32 hex digits of the kernel's cryptographic random source (128 bits) and
 * a NUL to out[0..size). Returns 0, or -1 when size is under 33 or no random
 * bytes could be had. */
int http_random_id(char *out, size_t size);

typedef struct http_config {
    const char *host;         /* address to bind: an IPv4 or IPv6 literal or
                                 "localhost"; NULL: 127.0.0.1 */
    uint16_t port;            /* 0: any free port (http_server_port says which) */
    const char *token;        /* required as "Authorization: Bearer TOKEN"; NULL:
                                 none (only allowed on a loopback address) */
    const char *const *origins; /* Origins allowed beyond loopback ones */
    size_t n_origins;
    size_t max_body;          /* bytes of a request body; 0: 4 MiB */
    unsigned max_connections; /* open connections; 0: 512 */
    int handler_auth;         /* the handlers check the bearer tokens themselves
                                 (http_bearer: several tokens, one per tenant);
                                 token must then be NULL, and any address may be
                                 bound: the caller refuses a non-loopback one
                                 without tokens */
    int json_errors;          /* the refusals made before a handler runs (401,
                                 403, 404, 405, 413) answer the JSON object
                                 {"error":{"code","message"}} instead of text */
} http_config;

typedef struct http_server http_server;
typedef struct http_request http_request;

/* A handler answers its request with http_respond or http_stream (once); a
 * handler that returns without either answers 500. It runs on the connection's
 * thread with the whole body received. */
typedef void (*http_handler)(void *ud, http_request *req);

/* Makes a server (not yet listening). On failure returns NULL with err set. */
http_server *http_server_new(const http_config *cfg, char *err, size_t errsize);

/* Adds a route: requests for path (exact; or, when path ends in '*', every path
 * that starts with what comes before it) with method go to fn; other methods on
 * a known path get 405, unknown paths 404. Exact routes win over prefix ones.
 * Before http_server_start. 0 or -1. */
int http_route(http_server *s, const char *method, const char *path, http_handler fn, void *ud);

/* Starts listening. Returns 0, or -1 with err set (the address is taken, ...). */
int http_server_start(http_server *s, char *err, size_t errsize);

/* The port it listens on. */
uint16_t http_server_port(const http_server *s);

/* Whether the configured host is a loopback address. */
int http_host_is_loopback(const char *host);

/* Stops listening, waits for the connections' threads, and frees the server.
 * NULL is a no-op. */
void http_server_free(http_server *s);

/* The request's method, its header name (case-insensitive; NULL when absent), and
 * its body (*len bytes; NUL-terminated). Valid during the handler. */
const char *http_method(http_request *req);
const char *http_header(http_request *req, const char *name);
const char *http_body(http_request *req, size_t *len);

/* The request's path as sent (without the query; not percent-decoded: the
 * handler decodes it, so that "%2F" or "%00" cannot pass for something else),
 * and the raw value of query argument name (NULL when absent; "" for a bare
 * name). Valid during the handler. */
const char *http_path(http_request *req);
const char *http_query(http_request *req, const char *name);

/* Which of tokens[0..n) the request's "Authorization: Bearer TOKEN" names
 * (compared in constant time), or -1 when it names none or has none. */
long http_bearer(http_request *req, const char *const *tokens, size_t n);

/* Whether the comma-separated list of media types in header value lists type
 * (parameters ignored; "*\/ *" and "type/ *" do not count: the caller names them). */
int http_accepts(const char *value, const char *type);

/* Adds a header to the answer (copied); before http_respond or http_stream. */
void http_add_header(http_request *req, const char *name, const char *value);

/* The value of a header added to the answer (name case-insensitive), or NULL:
 * for a server that wraps another's handler. Valid during the handler. */
const char *http_added_header(http_request *req, const char *name);

/* Answers with status and body[0..len) (copied) of content_type (NULL: none). */
void http_respond(http_request *req, unsigned status, const char *content_type,
                  const char *body, size_t len);

/* Produces up to max bytes of a streamed body into buf: returns the bytes
 * written (never 0: wait instead), or -1 at its end. May block. */
typedef ssize_t (*http_reader)(void *ud, char *buf, size_t max);

/* Answers with status and a body of unknown length, sent chunked as read() gives
 * it; done(ud) is called once when the stream ends or the client goes away. */
void http_stream(http_request *req, unsigned status, const char *content_type,
                 http_reader read, void (*done)(void *ud), void *ud);

/* ---- sessions --------------------------------------------------------------------------- */

typedef struct http_sessions http_sessions;

/* A table of at most max live sessions, each a value of the caller's freed by
 * free_fn when the session is removed (or expires) and no request uses it. A
 * session no request has used for idle_s seconds expires at the next
 * http_sessions_expire. NULL when out of memory. */
http_sessions *http_sessions_new(size_t max, double idle_s, void (*free_fn)(void *value));

/* Frees every session and the table. NULL is a no-op. */
void http_sessions_free(http_sessions *t);

/* Adds value under a new random id (written to id[0..33)) and holds it for the
 * caller (release with http_sessions_release). Returns 0, 1 when the table is
 * full, -1 when out of memory or random bytes. */
int http_sessions_add(http_sessions *t, void *value, char id[33]);

/* Adds value under id (32 characters, the caller's) and holds it for the
 * caller. Returns 0, 1 when the table is full, 2 when id is live already (value
 * is not added), -1 when id is not 32 characters. */
int http_sessions_put(http_sessions *t, void *value, const char *id);

/* The value of session id, held for the caller, or NULL when there is none (never
 * was, removed, or expired). */
void *http_sessions_get(http_sessions *t, const char *id);

/* Releases a hold on session id (from _add or _get). */
void http_sessions_release(http_sessions *t, const char *id);

/* Removes session id (its value is freed once no request holds it). Returns 0, or
 * -1 when there is none. */
int http_sessions_remove(http_sessions *t, const char *id);

/* Removes every session (for a shutdown): those no request holds are freed now,
 * the others when their last hold is released. */
void http_sessions_remove_all(http_sessions *t);

/* Removes the sessions idle for longer than the table's idle time. */
void http_sessions_expire(http_sessions *t);

/* Live sessions. */
size_t http_sessions_count(http_sessions *t);

#endif
