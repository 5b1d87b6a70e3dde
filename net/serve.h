/* `capsa serve`: the /v1 HTTP API over sessions kept in a store (net/store.h),
 * so that any number of replicas can serve them. A session is a record: its
 * metadata (tenant, limits, usage) and its sandbox's checkpoint
 * (capsa_checkpoint). A request that changes a session (a run, a file written
 * or removed) takes the session's lease, renewed by a thread while it lasts,
 * loads the session (a sandbox kept loaded from an earlier request is reused
 * while the stored version is still the one it was loaded at), and writes it
 * back with compare-and-set on the version it read; a run that did not finish
 * is not written back. Tenants are bearer tokens: each sees only the sessions
 * it made. Also /healthz, /metrics (Prometheus text), /v1/openapi.json and
 * the MCP endpoint /mcp (net/mcp_http.h) on the same sessions. Built on include/capsa.h, net/http.h,
 * net/store.h and net/mcp_http.h. */
#ifndef CAPSA_NET_SERVE_H
#define CAPSA_NET_SERVE_H

#include <stddef.h>
#include <stdint.h>

#include "capsa.h"
#include "http.h"
#include "mcp_server.h"
#include "store.h"

typedef struct serve_config {
    http_config http;       /* address, body limit, connections (token, handler_auth
                               and json_errors are the server's to set) */
    store *store;           /* not owned; outlives the server */
    capsa_engine *engine;   /* not owned; outlives the server */
    /* The server's limits (memory_limit, timeout_ms, fuel, max_output,
       fs_max_bytes): each session's defaults, and its maximums: a request may
       ask for less, never more (422). The rest of the options are every
       session's; the callbacks are the server's. */
    capsa_options limits;
    const char *const *tokens; /* the tenants' bearer tokens (copied); none: one
                                  tenant without a token, on loopback only */
    size_t n_tokens;
    /* Registers the host tools and the default policy in a new session's
       sandbox: 0, or -1 after saying why on stderr. From any thread. */
    int (*setup)(void *ud, capsa_sandbox *sb);
    void *setup_ud;
    /* The tools' callbacks, bound by name when a session is loaded from its
       checkpoint (read during serve_start only: copied, not their ud). */
    const capsa_tool_def *tools;
    size_t n_tools;
    /* Every audit line of every session (NULL: none), with the session's id,
       from any thread. */
    void (*audit)(void *ud, const char *session, const char *line, size_t len);
    void *audit_ud;
    /* NULL, or the MCP server (its configuration; read during serve_start)
       whose Streamable HTTP endpoint is served at /mcp, for the tenants'
       tokens too. Its sessions are stored sessions: an initialize makes one
       (the Mcp-Session-Id is its id, also reachable under /v1/sessions), and
       each request that needs the sandbox borrows it as a /v1 run does
       (lease, load, write-back), so any replica serves it. Its borrow,
       give_back and audit are the server's. */
    const mcp_server_config *mcp;
    size_t mcp_max_sessions; /* live /mcp sessions; 0: 100 */
    uint64_t session_ttl_ms; /* a session not written for this long expires; 0: 24 h */
    uint64_t lease_wait_ms;  /* a busy session is waited for this long before the
                                409; 0: not at all */
    size_t max_sessions;     /* per tenant; 0: 1000 (then 429) */
    size_t max_loaded;       /* sandboxes kept loaded between requests; 0: 64 */
} serve_config;

typedef struct serve serve;

/* Starts serving: checks the configuration, learns this build's checkpoint
 * header (what a stored session must match) and listens. On failure returns
 * NULL with err set. The caller owns the server (serve_free). */
serve *serve_start(const serve_config *cfg, char *err, size_t errsize);

/* The port it listens on. */
uint16_t serve_port(const serve *s);

/* Forgets the /mcp sessions idle here for too long (their stored sessions
 * stay until their TTL); call it now and then (every second). */
void serve_expire(serve *s);

/* Stops listening, waits for the requests in progress, and frees the sandboxes
 * kept loaded and s. NULL is a no-op. */
void serve_free(serve *s);

#endif
