/* The MCP Streamable HTTP transport on net/http.h: one endpoint (/mcp) where a
 * POST carries one message and is answered with JSON, or with an SSE stream when
 * the request may send notifications before its answer (progress, log output);
 * GET opens the session's own SSE stream; DELETE ends the session. A session is
 * opened by an initialize POST and named by the Mcp-Session-Id header from then
 * on; an MCP-Protocol-Version header must name a version the server speaks
 * (else 400). */
#ifndef CAPSA_NET_MCP_HTTP_H
#define CAPSA_NET_MCP_HTTP_H

#include "http.h"
#include "mcp_server.h"

typedef struct mcp_http_config {
    http_config http;     /* address, token, origins, body limit */
    size_t max_sessions;  /* live sessions; 0: 100 */
    double idle_s;        /* a session unused this long expires; 0: 1800 */
    int stored;           /* the sessions are the embedder's (mcp_http_handle_session) */
} mcp_http_config;

typedef struct mcp_http mcp_http;

/* Starts serving srv. On failure returns NULL with err set. */
mcp_http *mcp_http_start(mcp_server *srv, const mcp_http_config *cfg, char *err, size_t errsize);

/* The endpoint without a server of its own (cfg->http is not used), for a
 * server that routes /mcp to mcp_http_handle after its own checks (capsa
 * serve). On failure returns NULL with err set. */
mcp_http *mcp_http_new(mcp_server *srv, const mcp_http_config *cfg, char *err, size_t errsize);

/* Answers a request for the endpoint: POST, GET or DELETE (else 405). */
void mcp_http_handle(mcp_http *h, http_request *req);

/* Answers a request for the embedder's sessions (capsa serve, whose sessions
 * are in its store): an Mcp-Session-Id this process does not hold is one the
 * embedder has checked, taken up here as initialized elsewhere; an initialize
 * POST without one opens session new_id (32 characters). Every request of h
 * must then come through here. */
void mcp_http_handle_session(mcp_http *h, http_request *req, const char *new_id);

/* The port it listens on. */
uint16_t mcp_http_port(const mcp_http *h);

/* Ends the sessions idle for too long; call it now and then (every second). */
void mcp_http_expire(mcp_http *h);

/* Ends every session, stops listening (mcp_http_start's server), and frees h.
 * A server that mounted it must free h before itself (h's streams end first).
 * NULL is a no-op. */
void mcp_http_free(mcp_http *h);

#endif
