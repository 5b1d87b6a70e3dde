/* The MCP stdio transport: newline-delimited JSON-RPC messages on one file
 * descriptor in, answers and notifications on another out, one session for the
 * whole stream. Diagnostics are the caller's (stderr). */
#ifndef CAPSA_NET_MCP_STDIO_H
#define CAPSA_NET_MCP_STDIO_H

#include "mcp_server.h"

/* Serves one session (id names it in the audit) on in_fd and out_fd until the
 * input ends; the answers owed are sent before it returns. A line over the
 * server's message limit is answered with a parse error and skipped. Returns 0, or
 * -1 when the session could not be made or the input failed (stderr says why). */
int mcp_serve_stdio(mcp_server *srv, int in_fd, int out_fd, const char *id);

#endif
