/* capsa mcp: the MCP server on stdio (default) or Streamable HTTP (--http), with
 * the command tools, the upstream MCP servers' tools and the policy of
 * cli/tools.c in every session's sandbox and the audit of all sessions in one
 * file. Built on include/capsa.h and net/. */
#define _GNU_SOURCE
#include "mcp.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../net/http.h"
#include "../net/mcp_http.h"
#include "../net/mcp_server.h"
#include "../net/mcp_stdio.h"
#include "capsa.h"
#include "opts.h"
#include "tools.h"

#define MAX_ORIGINS 16

static const char mcp_usage[] =
    "usage: capsa mcp [options]\n"
    "\n"
    "Serves the Model Context Protocol (revision 2025-11-25; 2025-06-18 and\n"
    "2025-03-26 too) so that any MCP client gets code mode: one tool, `execute`, runs\n"
    "JavaScript (or a shell command line) in a capsa sandbox that may call the host\n"
    "tools of --tools as far as the policy allows. The tool's description declares\n"
    "them in TypeScript. Each session has its own sandbox, whose globals and files\n"
    "persist from call to call; the files under /workspace are resources\n"
    "(file:///workspace/...). Diagnostics go to stderr only.\n"
    "\n"
    "transport:\n"
    "  (default)       stdio: one JSON-RPC message per line on stdin and stdout\n"
    "  --http [HOST:]PORT\n"
    "                  Streamable HTTP at http://HOST:PORT/mcp instead (HOST\n"
    "                  127.0.0.1 unless given; [::1]:PORT for IPv6; PORT 0: any\n"
    "                  free port). The address is printed on stderr. A POST is\n"
    "                  answered with JSON, or an SSE stream when the call sends\n"
    "                  progress or log notifications; GET opens the session's\n"
    "                  stream; DELETE ends the session. Each Mcp-Session-Id is a\n"
    "                  session of its own (sandbox, files, budgets)\n"
    "  --token-file FILE  require \"Authorization: Bearer TOKEN\" with the token\n"
    "                  in FILE (else the environment variable CAPSA_MCP_TOKEN; at\n"
    "                  least 16 characters); required when HOST is not loopback\n"
    "  --allow-origin ORIGIN  a browser Origin allowed besides loopback ones\n"
    "                  (others get 403); repeatable\n"
    "  --max-sessions N  live HTTP sessions (default 100; then 503)\n"
    "  --session-idle TIME  an HTTP session unused this long ends (default 30m)\n"
    "  --max-body BYTES  the largest message (default 4194304; over: HTTP 413,\n"
    "                  or on stdio a parse error)\n"
    "\n"
    "tools (as for capsa run):\n"
    "  --tools FILE    host tools that are external commands; repeatable\n"
    "  --policy FILE   the capabilities that allow tool calls (none: all denied)\n"
    "  --allow PATTERN allow the tools matching PATTERN; repeatable\n"
    "  --mcp-config FILE  upstream MCP servers (the mcpServers format: stdio\n"
    "                  \"command\"/\"args\"/\"env\", or HTTP \"url\"/\"headers\"),\n"
    "                  started once and shared by every session: tool T of\n"
    "                  server S is the host tool S.T, so one execute call can\n"
    "                  call many upstream tools, each checked by the policy and\n"
    "                  audited; repeatable\n"
    "  --mcp-log FILE  append the MCP servers' stderr and log messages to FILE\n"
    "  --audit FILE    append every session's audit lines to FILE (- : stderr),\n"
    "                  each with its \"session\" id\n"
    "  --expose-tools  also list each granted host tool as an MCP tool of its own\n"
    "                  (its name with characters outside [A-Za-z0-9_-] as _),\n"
    "                  still checked by the policy and audited\n"
    "  --tool-name NAME  the code tool's name (default execute; [A-Za-z0-9_-], 1-64)\n"
    "\n"
    "each call (as for capsa run):\n"
    "  --timeout TIME  wall-clock limit of a call (default 30s; 0: none; as 1.5s,\n"
    "                  200ms, 2m)\n"
    "  --memory SIZE   guest memory limit (default 256M, 8M..4G; as 64M, 1G)\n"
    "  --fuel N        instruction budget of a call (default: none)\n"
    "  --max-output SIZE  stdout and stderr kept per call (default 16M)\n"
    "  --disk SIZE     the session's filesystem quota (default 64M)\n"
    "  --max-text BYTES  bytes of a result's text (console output, then the value\n"
    "                  as JSON) and of its stdout and stderr, then a marker\n"
    "                  (default 65536)\n"
    "  --fresh-each-call  every call starts from fresh JS state and empty\n"
    "                  /workspace and /tmp (budgets still span the session)\n"
    "  --log-output    also stream console output as notifications/message\n"
    "                  (stdout at level info, stderr at warning)\n"
    "\n"
    "  -h, --help      show this help\n"
    "\n"
    "A call the code does not survive (an exception, a limit, a refused tool) is a\n"
    "tool result with isError: true. notifications/cancelled stops the running code\n"
    "(the sandbox's JS state is then reset; its files stay). exit status: 0 after\n"
    "the input ends (stdio) or on SIGINT or SIGTERM (HTTP), 2 usage or\n"
    "configuration error, 1 failure.\n";

typedef struct mcp_opts {
    cli_tool_opts t; /* --tools, --policy, --allow, --audit, --mcp-config */
    const char *tool_name;
    int expose_tools, fresh_each_call, log_output;
    uint64_t max_text;
    capsa_options sandbox;
    const char *http;          /* --http [HOST:]PORT */
    const char *token_file;
    const char *origins[MAX_ORIGINS];
    int n_origins;
    uint64_t max_sessions, max_body;
    double idle_s;
} mcp_opts;

/* Each line of the shared --audit file gets the session's id as its first field. */
static void write_audit(void *ud, const char *session, const char *line, size_t len)
{
    (void)ud;
    cli_audit_write(session, line, len);
}

/* ---- sessions' sandboxes ---------------------------------------------------------------- */

static int setup_sandbox(void *ud, capsa_sandbox *sb, uint64_t *generation)
{
    return cli_tools_apply(ud, sb, generation);
}

static void refresh_sandbox(void *ud, capsa_sandbox *sb, uint64_t *generation)
{
    cli_tools_refresh(ud, sb, generation);
}

/* ---- options ------------------------------------------------------------------------ */

enum {
    OPT_TOOL_NAME = 256, OPT_MAX_TEXT, OPT_HTTP, OPT_TOKEN_FILE, OPT_ORIGIN,
    OPT_MAX_SESSIONS, OPT_MAX_BODY, OPT_IDLE, OPT_EXPOSE, OPT_FRESH, OPT_LOG_OUTPUT,
};

static const struct option mcp_long[] = {
    CLI_TOOL_LONG_OPTIONS,
    { "tool-name", required_argument, NULL, OPT_TOOL_NAME },
    CLI_LIMIT_LONG_OPTIONS,
    { "max-text", required_argument, NULL, OPT_MAX_TEXT },
    { "http", required_argument, NULL, OPT_HTTP },
    { "token-file", required_argument, NULL, OPT_TOKEN_FILE },
    { "allow-origin", required_argument, NULL, OPT_ORIGIN },
    { "max-sessions", required_argument, NULL, OPT_MAX_SESSIONS },
    { "max-body", required_argument, NULL, OPT_MAX_BODY },
    { "session-idle", required_argument, NULL, OPT_IDLE },
    { "expose-tools", no_argument, NULL, OPT_EXPOSE },
    { "fresh-each-call", no_argument, NULL, OPT_FRESH },
    { "log-output", no_argument, NULL, OPT_LOG_OUTPUT },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* Reads argv (argv[0] "mcp") into o. Returns 0 (*done after the help), or a
 * usage error's status. */
static int parse(mcp_opts *o, int argc, char **argv, int *done)
{
    *done = 0;
    optind = 1;
    opterr = 0;
    int c;
    uint64_t n;
    while ((c = getopt_long(argc, argv, ":h", mcp_long, NULL)) != -1) {
        const char *v = optarg;
        switch (c) {
        case 'h':
            fputs(mcp_usage, stdout);
            *done = 1;
            return 0;
        case OPT_EXPOSE:
            o->expose_tools = 1;
            break;
        case OPT_FRESH:
            o->fresh_each_call = 1;
            break;
        case OPT_LOG_OUTPUT:
            o->log_output = 1;
            break;
        case OPT_TOOL_NAME: {
            size_t k = strspn(v, "abcdefghijklmnopqrstuvwxyz"
                                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
            if (!v[0] || v[k] || k > 64)
                return cli_usage("--tool-name wants 1 to 64 of A-Z a-z 0-9 _ -, not '%s'", v);
            o->tool_name = v;
            break;
        }
        case OPT_MAX_TEXT:
            if (cli_parse_size(v, 1, 256, 1ull << 30, &n) != 0)
                return cli_usage("--max-text wants a size from 256 to 1G (a number alone is "
                                 "bytes), not '%s'", v);
            o->max_text = n;
            break;
        case OPT_HTTP:
            o->http = v;
            break;
        case OPT_TOKEN_FILE:
            o->token_file = v;
            break;
        case OPT_ORIGIN:
            if (o->n_origins >= MAX_ORIGINS)
                return cli_usage("at most 16 of --allow-origin");
            o->origins[o->n_origins++] = v;
            break;
        case OPT_MAX_SESSIONS:
            if (cli_parse_count(v, 1, 10000, &n) != 0)
                return cli_usage("--max-sessions wants a number from 1 to 10000, not '%s'", v);
            o->max_sessions = n;
            break;
        case OPT_MAX_BODY:
            if (cli_parse_size(v, 1, 1024, 1ull << 30, &n) != 0)
                return cli_usage("--max-body wants a size from 1K to 1G (a number alone is "
                                 "bytes), not '%s'", v);
            o->max_body = n;
            break;
        case OPT_IDLE:
            if (cli_parse_seconds(v, 0, 1e7, &o->idle_s) != 0 || !(o->idle_s > 0))
                return cli_usage("--session-idle wants a time above 0 (as 1800, 30m, 1h), not '%s'",
                                 v);
            break;
        default: {
            int st = cli_shared_option(&o->sandbox, &o->t, c, v, argv, mcp_long);
            if (st)
                return st;
            break;
        }
        }
    }
    if (optind < argc)
        return cli_usage("unexpected argument '%s'", argv[optind]);
    return 0;
}

/* The bearer token: --token-file's first line, else $CAPSA_MCP_TOKEN, else NULL.
 * *bad is set after saying what is wrong. The caller frees it. */
static char *read_token(const char *file, int *bad)
{
    *bad = 0;
    char *t = NULL;
    if (file) {
        size_t len = 0;
        if (!(t = cli_read_file("--token-file", file, &len))) {
            *bad = 1;
            return NULL;
        }
        t[strcspn(t, "\r\n")] = '\0';
    } else if (getenv("CAPSA_MCP_TOKEN") && getenv("CAPSA_MCP_TOKEN")[0]) {
        t = strdup(getenv("CAPSA_MCP_TOKEN"));
    } else {
        return NULL;
    }
    if (!t || strlen(t) < 16 || strcspn(t, " \t") != strlen(t)) {
        fprintf(stderr, "capsa mcp: the token must be at least 16 characters without spaces\n");
        free(t);
        *bad = 1;
        return NULL;
    }
    return t;
}

/* capsa mcp --http: serves until SIGINT or SIGTERM; idle sessions expire on the
 * way. Returns the exit status. */
static int serve_http(const mcp_opts *o, mcp_server *srv)
{
    char host[256];
    uint16_t port;
    int st = cli_parse_listen(o->http, host, sizeof(host), &port);
    if (st)
        return st;
    int bad;
    char *token = read_token(o->token_file, &bad);
    if (bad)
        return 2;
    mcp_http_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.http.host = host;
    cfg.http.port = port;
    cfg.http.token = token;
    cfg.http.origins = o->origins;
    cfg.http.n_origins = (size_t)o->n_origins;
    cfg.http.max_body = (size_t)o->max_body;
    cfg.max_sessions = (size_t)o->max_sessions;
    cfg.idle_s = o->idle_s;
    /* The signals are taken by this thread alone (sigtimedwait), not by the
       server's threads, which inherit the mask. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    char err[512] = "";
    mcp_http *h = mcp_http_start(srv, &cfg, err, sizeof(err));
    free(token);
    if (!h) {
        fprintf(stderr, "capsa mcp: %s\n", err);
        return 2;
    }
    fprintf(stderr, "capsa mcp: serving http://%s%s%s:%u/mcp\n", strchr(host, ':') ? "[" : "", host,
            strchr(host, ':') ? "]" : "", (unsigned)mcp_http_port(h));
    struct timespec second = { 1, 0 };
    while (sigtimedwait(&sigs, NULL, &second) < 0)
        mcp_http_expire(h);
    fprintf(stderr, "capsa mcp: stopping\n");
    mcp_http_free(h);
    return 0;
}

int cli_mcp(int argc, char **argv)
{
    cli_set_program("capsa mcp", "mcp");
    mcp_opts o;
    memset(&o, 0, sizeof(o));
    capsa_options_init(&o.sandbox);
    int done = 0, status = parse(&o, argc, argv, &done);
    if (status || done)
        return status;
    cli_tools *tools = NULL;
    capsa_engine *engine = NULL;
    mcp_server *srv = NULL;
    status = 2;
    uint64_t max_result = o.sandbox.tool_max_result ? o.sandbox.tool_max_result : 16u << 20;
    if (cli_tools_load(o.t.tool_files, o.t.n_tool_files, o.t.policy_file, o.t.allows,
                       o.t.n_allows, max_result, &tools) != 0 ||
        cli_tools_mcp(tools, o.t.mcp_files, o.t.n_mcp_files, o.t.mcp_log) != 0)
        goto out;
    if (o.t.audit_file) {
        if (cli_audit_open(o.t.audit_file) != 0)
            goto out;
        /* Each session's sandbox fails closed past the cap, as capsa run's does. */
        o.sandbox.audit_max_bytes = CLI_AUDIT_MAX;
    }
    int rc = capsa_engine_new(NULL, &engine);
    if (rc != CAPSA_OK) {
        fprintf(stderr, "capsa mcp: cannot start the engine: %s\n", capsa_errstr(rc));
        status = 1;
        goto out;
    }
    mcp_server_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.engine = engine;
    cfg.sandbox = o.sandbox;
    cfg.setup = setup_sandbox;
    cfg.refresh = refresh_sandbox;
    cfg.setup_ud = tools;
    cfg.audit = cli_audit_active() ? write_audit : NULL;
    cfg.tool_name = o.tool_name;
    cfg.expose_tools = o.expose_tools;
    cfg.fresh_each_call = o.fresh_each_call;
    cfg.log_output = o.log_output;
    cfg.max_text = (size_t)o.max_text;
    cfg.max_message = (size_t)o.max_body; /* a stdio line, an HTTP body */
    char err[512] = "";
    if (mcp_server_new(&cfg, &srv, err, sizeof(err)) != 0) {
        fprintf(stderr, "capsa mcp: %s\n", err);
        goto out;
    }
    if (o.http) {
        status = serve_http(&o, srv);
        goto out;
    }
    char id[40];
    if (http_random_id(id, sizeof(id)) != 0) {
        fprintf(stderr, "capsa mcp: no random bytes for a session id\n");
        status = 1;
        goto out;
    }
    status = mcp_serve_stdio(srv, 0, 1, id) == 0 ? 0 : 1;
out:
    mcp_server_free(srv);
    capsa_engine_free(engine);
    cli_tools_free(tools);
    cli_audit_close();
    return status;
}
