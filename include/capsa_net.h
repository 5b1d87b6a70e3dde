/* capsa_net.h: the public API of libcapsa-net, what reaches capsa from outside,
 * beside the core's include/capsa.h (which it includes). So far: upstream MCP
 * servers made tools of sandboxes (the MCP client).
 *
 * Why a second header: everything declared in capsa.h links with libcapsa alone,
 * and the core has no sockets or child processes. The functions here live in
 * libcapsa-net (build/libcapsa-net.a or .so), which spawns processes and speaks
 * HTTP (libcurl); a program that includes this header links
 * -lcapsa-net -lcapsa -lcurl -lmicrohttpd -ljansson -lpthread. Their return
 * codes are capsa's (CAPSA_OK, CAPSA_E*); strings they return are freed with
 * capsa_free. */
#ifndef CAPSA_NET_H
#define CAPSA_NET_H

#include "capsa.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- upstream MCP servers --------------------------------------------------------- */

/* An MCP client: a set of upstream MCP servers, each a child process spoken to over
 * stdio or a Streamable HTTP endpoint, whose tools it registers in sandboxes as
 * host tools (capsa_tool_add), so that every call passes the sandbox's policy and
 * audit before it is sent. Tool T of server S becomes the tool "S.T" (both made
 * JavaScript identifiers: other characters become '_', a leading digit gets a
 * '_' before it; names made unique with "_2", "_3"; the original names are kept in
 * the description), with the server's inputSchema as its parameters.
 *
 * The configuration is the mcpServers format MCP clients use:
 *   {"mcpServers": {
 *     "files": {"command": "npx", "args": ["-y", "pkg"], "env": {"K": "V"},
 *               "cwd": "/dir"},                                      (stdio)
 *     "remote": {"type": "http", "url": "http://127.0.0.1:3001/mcp",
 *                "headers": {"Authorization": "Bearer ..."}}}}       (HTTP)
 * "type" may be "stdio" or "http" (guessed from "command" or "url" when absent);
 * "timeout_ms" sets the server's per-call limit, "start_timeout_ms" its start's;
 * "disabled": true skips it. Any other field is an error. A stdio server runs without a shell, in its own process
 * group, with only the configuration's environment plus PATH (the host's unless
 * given), every other file descriptor closed; its stderr goes to on_log.
 *
 * One client may serve any number of sandboxes, on any threads at once (each
 * call is its own request; calls made together go out together on one
 * connection). Calls are bounded by the sandbox's tool limits: its worker
 * threads (tool_concurrency), its per-call timeout, its result budget; a call the
 * sandbox stops waiting for (its timeout, capsa_interrupt, the end of the run) is
 * cancelled upstream with notifications/cancelled. A server that dies fails its
 * calls at once and is started again on its next call, after a delay that starts
 * at 200 ms and doubles, up to 30 s, while it keeps dying within 30 s of its
 * start. Requests a server makes of the client (sampling, elicitation, roots) are
 * declined with a JSON-RPC error; ping is answered. */
typedef struct capsa_mcp_client capsa_mcp_client;

/* What on_log gets. */
enum {
    CAPSA_MCP_LOG_EVENT = 1,   /* capsa's, worth a look: a server failed, exited, was
                                  restarted, broke the protocol, made a request
                                  that was declined */
    CAPSA_MCP_LOG_STDERR = 2,  /* one line a stdio server wrote to its stderr */
    CAPSA_MCP_LOG_MESSAGE = 3, /* a notifications/message the server sent (as JSON) */
    CAPSA_MCP_LOG_INFO = 4,    /* capsa's, routine: a server started, its list was
                                  refreshed */
};

/* Called from the client's threads (any of them, several at once): server is the
 * configuration's name, text[0..len) one line (no newline), valid during the call. */
typedef void (*capsa_mcp_log_fn)(void *ud, const char *server, int kind, const char *text,
                                 size_t len);

typedef struct capsa_mcp_options {
    size_t struct_size;        /* set by capsa_mcp_options_init */
    uint64_t start_timeout_ms; /* a server's start: spawn or connect, initialize and
                                  the tools' list; default 30000 */
    uint64_t call_timeout_ms;  /* a call's limit unless its server sets timeout_ms
                                  (it becomes the tool's capsa_tool_def.timeout_ms);
                                  default 60000 */
    uint64_t max_message;      /* bytes of one message from a server; a server that
                                  sends more is stopped (its calls fail) and
                                  restarted on its next call; default 32 MiB */
    capsa_mcp_log_fn on_log;   /* NULL: nothing is logged */
    void *on_log_ud;
} capsa_mcp_options;

/* Fills *opts with the defaults. */
CAPSA_API void capsa_mcp_options_init(capsa_mcp_options *opts);

/* Creates a client without servers; opts may be NULL for the defaults (copied).
 * On success *out owns it (free with capsa_mcp_client_free); on failure
 * (CAPSA_ENOMEM, CAPSA_EINVAL for bad options) it is NULL. */
CAPSA_API int capsa_mcp_client_new(const capsa_mcp_options *opts, capsa_mcp_client **out);

/* Adds the servers of the configuration json[0..len) (the format above; copied).
 * A malformed one is CAPSA_EINVAL and adds nothing: capsa_mcp_client_errmsg names
 * the field ("mcpServers.files.args[1]: must be a string"). A name already added
 * is CAPSA_EEXIST. Nothing is started yet. */
CAPSA_API int capsa_mcp_client_configure(capsa_mcp_client *c, const char *json, size_t len);

/* Starts the servers not started yet, all at once, each within start_timeout_ms:
 * spawn or connect, initialize, and tools/list (every page). Returns CAPSA_OK when
 * it is done, whether or not each server came up: one that failed is reported to
 * on_log and in capsa_mcp_client_status_json, and its tools are absent. */
CAPSA_API int capsa_mcp_client_start(capsa_mcp_client *c);

/* Registers the tools of the started servers in sb (capsa_tool_add; sb must not
 * be running). With generation NULL or *generation 0, every tool; otherwise only
 * the tools that appeared after that generation (a server's list changed, or it
 * was restarted with new tools). *generation (if not NULL) is then set to the
 * client's current one: keep it per sandbox and pass it again to bring the
 * sandbox up to date before a run (a list being refreshed after a server's
 * tools/list_changed is waited for first, up to start_timeout_ms). A tool whose
 * name is taken in sb (a host tool of the same name) or that capsa_tool_add
 * refuses is left out, reported to on_log: the others are registered, the first
 * such failure's code is returned and capsa_mcp_client_errmsg says which tool and
 * why. The client must outlive sb
 * (free sb first): the tools' callbacks use it. */
CAPSA_API int capsa_mcp_client_attach(capsa_mcp_client *c, capsa_sandbox *sb,
                                      uint64_t *generation);

/* For capsa_sandbox_restore, which binds a checkpoint's tools by name: fills
 * defs[0..cap) with the definitions of the started servers' tools, as attach
 * registers them (a list being refreshed is waited for first, as there), and
 * returns how many there are (past cap, only cap are filled: call again with
 * room). Their strings and callbacks are the client's: valid while it lives, which
 * must be longer than the sandboxes restored with them. *generation (if not NULL)
 * is set to the client's current one, for capsa_mcp_client_attach to bring the
 * restored sandbox up to date later. A tool a server lists now that the
 * checkpoint did not have is not registered by the restore. 0 when c is NULL. */
CAPSA_API size_t capsa_mcp_client_defs(capsa_mcp_client *c, capsa_tool_def *defs, size_t cap,
                                       uint64_t *generation);

/* The servers' state as JSON: [{"name", "namespace", "transport": "stdio"|"http",
 * "state": "ready"|"failed"|"exited"|"starting"|"idle"|"disabled", "error" (or
 * null), "tools" (their capsa names), "restarts", "server" (serverInfo, or null),
 * "protocol_version"}]. A new string the caller frees with capsa_free; NULL when
 * out of memory. */
CAPSA_API char *capsa_mcp_client_status_json(capsa_mcp_client *c);

/* The message of the last failure of configure, start or attach on c; valid until
 * the next of those calls. Never NULL. */
CAPSA_API const char *capsa_mcp_client_errmsg(const capsa_mcp_client *c);

/* Stops every server and frees the client: stdio servers get their stdin closed
 * and SIGTERM, then SIGKILL after 1 s, to their whole process group, and are
 * reaped; HTTP sessions are ended (DELETE). Every sandbox it was attached to must
 * have been freed before. NULL is a no-op. */
CAPSA_API void capsa_mcp_client_free(capsa_mcp_client *c);

#ifdef __cplusplus
}
#endif

#endif /* CAPSA_NET_H */
