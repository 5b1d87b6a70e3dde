/* The MCP server, transport-neutral: the lifecycle and version negotiation
 * (2025-11-25, 2025-06-18, 2025-03-26), ping, tools/list and tools/call (the
 * execute tool, and with expose_tools each granted host tool), the session's files
 * under /workspace as resources, cancellation (notifications/cancelled interrupts
 * the running code), progress, and console output as log notifications. Each
 * session has its own sandbox (or borrows its embedder's for each request), whose JS globals and files persist from call to
 * call, and a worker thread that runs its calls in order; the transport hands it
 * message texts and gets back what to send through a sink. Built on
 * include/capsa.h and net/jsonrpc.h. */
#ifndef CAPSA_NET_MCP_SERVER_H
#define CAPSA_NET_MCP_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "capsa.h"

/* The protocol revisions served, newest first. */
#define MCP_LATEST_VERSION "2025-11-25"

/* Where the messages that one incoming message causes go: its responses, and the
 * notifications (progress, log messages) of the requests it carried. Written by
 * the transport; the server holds a reference while a request of it is pending.
 * emit may be called from the session's worker thread and the transport's thread
 * at once: it must lock what it shares. */
typedef struct mcp_sink mcp_sink;
struct mcp_sink {
    /* One message, json[0..len) (one line, no newline). is_response: it answers
     * one of the requests (json NULL: that request was cancelled, and its answer
     * is withheld). */
    void (*emit)(mcp_sink *sink, const char *json, size_t len, int is_response);
    /* Called when the last reference goes. */
    void (*destroy)(mcp_sink *sink);
    int refs; /* set to 1 by the transport; atomic */
};
void mcp_sink_hold(mcp_sink *sink);
void mcp_sink_drop(mcp_sink *sink);

/* What the server does; strings are copied. */
typedef struct mcp_server_config {
    capsa_engine *engine;       /* shared by the sessions' sandboxes; not owned */
    capsa_options sandbox;      /* each session's sandbox (limits apply to each call);
                                   on_output and on_audit are the server's */
    /* Registers the host tools and the policy in a new sandbox: 0, or -1 after
       saying why on stderr. Called for every session, from any thread.
       *generation (0 at first) is the session's to keep: the setup may record
       in it what it registered (the MCP client's tool generation). */
    int (*setup)(void *ud, capsa_sandbox *sb, uint64_t *generation);
    /* NULL, or called on the session's worker before each call that runs in the
       sandbox, with the same *generation: registers the tools that appeared
       since (upstream MCP servers whose lists changed). Its failure is not the
       call's. */
    void (*refresh)(void *ud, capsa_sandbox *sb, uint64_t *generation);
    void *setup_ud;
    /* Every audit line of every session (NULL: none), with the session's id;
       from the sessions' worker threads at once. */
    void (*audit)(void *ud, const char *session, const char *line, size_t len);
    void *audit_ud;
    const char *tool_name;      /* the code tool; NULL: "execute" */
    int expose_tools;           /* list each granted host tool as an MCP tool too */
    int fresh_each_call;        /* reset JS state and files before every call */
    int log_output;             /* console output as notifications/message */
    size_t max_text;            /* bytes of a result's text; 0: 64 KiB */
    size_t max_queue;           /* requests queued per session; 0: 1024 */
    size_t max_message;         /* bytes of one incoming message; 0: 4 MiB */
    const char *server_version; /* serverInfo.version; NULL: capsa's */
    /* NULL, or the sessions' sandboxes are the embedder's (capsa serve keeps
       them in its store): a session has none of its own, and setup is not
       called. Before each request that needs one, from the session's worker,
       borrow lends the sandbox of session id: 0 with *sb and *token, output and
       audit (with cb_ud) to be called with what it writes while lent; or -1
       with why filled (the request answers a JSON-RPC error: busy, gone).
       give_back(ud, token, rc, r, secs, why, size) returns it after the
       request, before its answer goes: rc and r are the run's capsa_run or
       capsa_shell result, taking secs; rc < 0: nothing ran (a resource read).
       It returns 0, or -1 with why filled when what the run did is lost (it
       could not be written back): the request answers that JSON-RPC error. */
    int (*borrow)(void *ud, const char *id, capsa_output_fn output, capsa_audit_fn audit,
                  void *cb_ud, capsa_sandbox **sb, void **token, char *why, size_t size);
    int (*give_back)(void *ud, void *token, int rc, const capsa_result *r, double secs,
                     char *why, size_t size);
    void *borrow_ud;
} mcp_server_config;

typedef struct mcp_server mcp_server;

/* Creates a server: makes one sandbox to learn the tools' declarations for the
 * tool descriptions. On success *out owns it (free with mcp_server_free); on
 * failure *out is NULL and err says why. */
int mcp_server_new(const mcp_server_config *cfg, mcp_server **out, char *err, size_t errsize);
/* Frees the server; its sessions must have been freed. NULL is a no-op. */
void mcp_server_free(mcp_server *srv);

/* The tools/list result, as JSON text (owned by the server). */
const char *mcp_server_tools_json(const mcp_server *srv);

/* The largest message text the server takes (its max_message). */
size_t mcp_server_max_message(const mcp_server *srv);

typedef struct mcp_session mcp_session;

/* A new session with its own sandbox and worker thread; id (copied) names it in
 * the audit. On success *out owns it (mcp_session_free); on failure *out is NULL
 * and err says why. */
int mcp_session_new(mcp_server *srv, const char *id, mcp_session **out, char *err, size_t errsize);

/* Takes up session ss as one initialized elsewhere with version (capsa serve:
 * an MCP session opened on another replica): it answers requests without an
 * initialize of its own. Returns 0, or -1 when version is not one served. */
int mcp_session_resume(mcp_session *ss, const char *version);

/* Ends the session: the running call is interrupted, queued ones are dropped
 * (their answers withheld), the worker is joined and the sandbox freed. NULL is a
 * no-op. */
void mcp_session_free(mcp_session *ss);

/* Waits until the session has no request queued or running (a transport whose
 * input ended lets the answers it owes go out first). */
void mcp_session_drain(mcp_session *ss);

/* What one incoming message held (for a transport that must decide how to
 * answer, as Streamable HTTP does). */
typedef struct mcp_handled {
    int requests;     /* responses that will reach the sink (cancelled ones as NULL) */
    int initialize;   /* it held an initialize request */
    int streamable;   /* a request may send notifications before its answer
                         (a tools/call with a progress token or log output) */
} mcp_handled;

/* Handles one message text (one message: batches, which only 2025-03-26 had,
 * are refused with -32600). Answers and notifications go to sink, now or later
 * from the worker (it is held as long as needed). *info (may be NULL) says what
 * it held. */
void mcp_session_handle(mcp_session *ss, const char *text, size_t len, mcp_sink *sink,
                        mcp_handled *info);

/* Whether text is one initialize request (what may open a session). */
int mcp_is_initialize(const char *text, size_t len);

/* The session's negotiated version ("" before initialize) and whether it has
 * been initialized. */
const char *mcp_session_version(mcp_session *ss);
int mcp_session_ready(mcp_session *ss);

/* The name of a run's outcome by capsa_run's code, as the execute tool's
 * structuredContent and capsa serve's runs report it: ok, error, timeout, fuel,
 * trap, cancelled (interrupted), memory, invalid. A static string. */
const char *mcp_status_name(int rc);

/* Whether a protocol version is one this server speaks. */
int mcp_version_supported(const char *version);

#endif
