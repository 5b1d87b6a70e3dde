/* The MCP client's insides, shared by mcp_client.c (configuration, the servers'
 * lifecycle, stdio children, requests, the tools) and mcp_client_http.c (the
 * Streamable HTTP transport, on libcurl). The public API is include/capsa_net.h. */
#ifndef CAPSA_NET_MCP_CLIENT_H
#define CAPSA_NET_MCP_CLIENT_H

#include <jansson.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "capsa_net.h"
#include "jsonrpc.h"

/* A server's state. */
typedef enum mcpc_state {
    MCPC_IDLE = 0,  /* configured, not started */
    MCPC_STARTING,  /* being started (initialize, tools/list) */
    MCPC_READY,
    MCPC_DEAD,      /* it exited or broke the protocol after it was ready: started
                       again on its next call */
    MCPC_FAILED,    /* its first start failed: its tools are absent */
    MCPC_DISABLED,  /* "disabled": true */
} mcpc_state;

/* How long a request may wait, and for whom: deadline on the monotonic clock (ms),
 * and the sandbox's reply (NULL: none) whose cancellation ends the wait. */
typedef struct mcpc_wait {
    uint64_t deadline_ms;
    const capsa_tool_reply *reply;
} mcpc_wait;

/* Why a wait ended early (mcpc_wait_over). */
enum { MCPC_GO_ON = 0, MCPC_CANCELLED, MCPC_TIMED_OUT, MCPC_STOPPING };

typedef struct mcpc_up mcpc_up;

/* One upstream server. Configuration fields are set once (configure) and then
 * only read; the rest is guarded by lock unless said otherwise. */
struct mcpc_up {
    capsa_mcp_client *client;
    char *name;       /* the configuration's name */
    char *ns;         /* its namespace in tool names: a JS identifier */
    int http;         /* Streamable HTTP, else stdio */
    uint64_t timeout_ms;       /* per call; 0: the client's */
    uint64_t start_timeout_ms; /* 0: the client's */
    /* stdio */
    char **argv;      /* NULL-terminated; argv[0] as configured */
    char **envp;      /* NULL-terminated: the configuration's env plus PATH */
    char *cwd;        /* NULL: capsa's */
    /* http */
    char *url;
    char **headers;   /* "Name: value", NULL-terminated */

    pthread_mutex_t lock;
    pthread_cond_t cv;        /* state changes and answers (CLOCK_MONOTONIC) */
    mcpc_state state;
    int stopping;             /* the client is being freed */
    char error[512];          /* why it failed or died */
    unsigned restarts, crashes;
    uint64_t started_ms, next_start_ms;
    jrpc_ids *pending;        /* request id -> mcpc_pending */
    int64_t next_id;
    char protocol_version[32];
    json_t *server_info;      /* serverInfo of the last initialize, or NULL */
    uint64_t bad_messages;    /* messages dropped (invalid, unknown ids): logged 20 times */
    uint64_t log_bytes;       /* stderr and log messages passed to on_log */
    int stale;                /* it sent tools/list_changed (guarded by the
                                 client's lock: the keeper lists it again) */

    /* the child (stdio): written by its starter, read by the reader thread */
    pid_t pid;
    int in_fd, out_fd, err_fd, wake[2];
    pthread_t reader;
    int reader_running;       /* joinable */
    pthread_mutex_t wlock;    /* one writer of in_fd at a time */

    /* the session (http) */
    char *session_id;         /* under lock */
    int session_lost;         /* the server answered 404 to it (under lock): a new
                                 session is started at once, the call retried */
    pthread_t stream;         /* the GET stream's thread */
    int stream_running;
};

/* The monotonic clock in milliseconds. */
uint64_t mcpc_now_ms(void);

/* Whether the wait w should end now: MCPC_GO_ON or why not. */
int mcpc_wait_over(mcpc_up *up, const mcpc_wait *w);

/* Handles one message text (or a batch) a server sent: answers, notifications,
 * its requests. Any thread; takes the locks it needs. */
void mcpc_dispatch_text(mcpc_up *up, const char *text, size_t len);

/* The server died or broke the protocol (why: a sentence): it becomes DEAD, its
 * waiting requests fail with why, and it is started again on its next call. */
void mcpc_died(mcpc_up *up, const char *why);

/* Passes one line to the client's on_log (kind CAPSA_MCP_LOG_*), within the
 * server's log budget for STDERR and MESSAGE lines; mcpc_logf formats it. */
void mcpc_log(mcpc_up *up, int kind, const char *text, size_t len);
void mcpc_logf(mcpc_up *up, int kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The most bytes of one message from a server. */
size_t mcpc_max_message(const mcpc_up *up);

/* What a tools/call response resp of tool (capsa's name) from server means for
 * the script: 0 with *value (a new reference: structuredContent, else the
 * content, mapped), or -1 with the ToolError's code and message. */
int mcpc_map_result(const json_t *resp, const char *tool, const char *server, json_t **value,
                    char *code, size_t codesize, char *msg, size_t msgsize);

/* Takes a server's whole tools/list (an array of tools) into the client's
 * records: capsa names made for the new ones, those no longer listed gone. */
void mcpc_record_listing(mcpc_up *up, const json_t *tools);

/* The client's server i in configuration order, or NULL (for the fuzzer). */
mcpc_up *mcpc_server(capsa_mcp_client *c, size_t i);

/* ---- the Streamable HTTP transport (mcp_client_http.c) --------------------------- */

/* Loads and sets up libcurl for the process (once; lazylibs.h). 0, or -1 with
 * why in err (size errsize) when it cannot. mcpc_http_post calls it first. */
int mcpc_http_global(char *err, size_t errsize);

/* POSTs the message text[0..len) and handles what the response carries (JSON,
 * or an SSE stream of messages) through mcpc_dispatch_text, until it ends or w
 * says stop. Returns 0; -1 after putting why into err when the request failed
 * (the server stays as it is); -2 when the server is gone (refused connection,
 * its session ended): the caller declares it dead. */
int mcpc_http_post(mcpc_up *up, const char *text, size_t len, const mcpc_wait *w, char *err,
                   size_t errsize);

/* Opens the session's GET stream for the messages the server sends on its own
 * (tools/list_changed), on a thread of its own, kept open (reopened after a
 * delay) until mcpc_http_close. A server that has none (405) is fine. */
void mcpc_http_open_stream(mcpc_up *up);

/* Ends the session: the stream's thread is joined, then DELETE. */
void mcpc_http_close(mcpc_up *up);

#endif
