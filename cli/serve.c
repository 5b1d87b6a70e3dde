/* capsa serve: the /v1 HTTP API of net/serve.c over a session store
 * (net/store.h), with the command tools, the upstream MCP servers' tools and the
 * policy of cli/tools.c in every session's sandbox, the server's limits as every session's maximums, the
 * tenants' tokens from --token-file, and the MCP endpoint at /mcp. Built on
 * include/capsa.h and net/. */
#define _GNU_SOURCE
#include "serve.h"

#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../net/http.h"
#include "../net/mcp_server.h"
#include "../net/serve.h"
#include "../net/store.h"
#include "capsa.h"
#include "opts.h"
#include "tools.h"

#define MAX_TOKENS 1024

static const char serve_usage[] =
    "usage: capsa serve --http [HOST:]PORT [--store URL] [options]\n"
    "\n"
    "Serves sessions over HTTP/JSON: each session is a sandbox whose JS state and\n"
    "files persist from run to run, kept in a store that any number of capsa serve\n"
    "replicas (behind a load balancer) share, so none holds state another needs.\n"
    "  POST   /v1/sessions                {\"limits\":{...},\"policy\":{...}} -> 201 {\"id\"}\n"
    "  POST   /v1/sessions/ID/run         {\"code\",\"language\":\"javascript\"|\"shell\"}\n"
    "  GET|PUT|DELETE /v1/sessions/ID/files/PATH   raw bytes (a directory: JSON list)\n"
    "  GET    /v1/sessions[?after=ID&limit=N], /v1/sessions/ID, /v1/sessions/ID/audit\n"
    "  DELETE /v1/sessions/ID\n"
    "  GET    /healthz, /metrics (Prometheus), /v1/openapi.json\n"
    "  POST   /mcp                        MCP Streamable HTTP (on the same sessions)\n"
    "Errors are {\"error\":{\"code\",\"message\"}}: 400, 401, 404, 409 (busy, with\n"
    "Retry-After; or incompatible_session), 413, 422, 429, 503 (retryable).\n"
    "\n"
    "server:\n"
    "  --http [HOST:]PORT  the address (HOST 127.0.0.1 unless given; [::1]:PORT for\n"
    "                  IPv6; PORT 0: any free port). It is printed on stderr\n"
    "  --store URL     where sessions live: dir:PATH (the default, dir:capsa-sessions:\n"
    "                  files in PATH, one machine) or redis://HOST[:PORT][/DB]\n"
    "  --token-file FILE  the tenants' bearer tokens, one a line (at least 16\n"
    "                  characters; blank lines and # comments skipped): each token\n"
    "                  sees only the sessions it made. Required unless HOST is\n"
    "                  loopback\n"
    "  --session-ttl TIME  a session not run or written this long expires\n"
    "                  (default 24h)\n"
    "  --lease-wait TIME  how long a request waits for a session another request\n"
    "                  is running in before its 409 (default 0: not at all)\n"
    "  --max-sessions N  sessions per tenant (default 1000; then 429)\n"
    "  --max-body SIZE  the largest request body (default 4M; over: 413)\n"
    "\n"
    "each session's limits (defaults and maximums: a session may ask for less):\n"
    "  --timeout TIME  wall-clock limit of a run (default 30s; 0: none)\n"
    "  --memory SIZE   guest memory limit (default 256M, 8M..4G)\n"
    "  --fuel N        instruction budget of a run (default: none)\n"
    "  --max-output SIZE  stdout and stderr kept per run (default 16M)\n"
    "  --disk SIZE     the session's filesystem quota (default 64M)\n"
    "\n"
    "tools (as for capsa run; the only ones any session has):\n"
    "  --tools FILE    host tools that are external commands; repeatable\n"
    "  --policy FILE   the default capabilities (a session's \"policy\" replaces them)\n"
    "  --allow PATTERN allow the tools matching PATTERN by default; repeatable\n"
    "  --mcp-config FILE  upstream MCP servers (the mcpServers format: stdio\n"
    "                  \"command\"/\"args\"/\"env\", or HTTP \"url\"/\"headers\"),\n"
    "                  started once and shared by every session: tool T of\n"
    "                  server S is the host tool S.T, checked by the policy and\n"
    "                  audited; a session saved with a tool must find it again\n"
    "                  (by name) when loaded; repeatable\n"
    "  --mcp-log FILE  append the MCP servers' stderr and log messages to FILE\n"
    "  --audit FILE    append every session's audit lines to FILE (- : stderr),\n"
    "                  each with its \"session\" id\n"
    "\n"
    "  -h, --help      show this help\n"
    "\n"
    "A run that did not finish (a limit, a lost lease) is not written back. A\n"
    "session saved by another build of capsa answers 409 incompatible_session.\n"
    "exit status: 0 on SIGINT or SIGTERM, 2 usage or configuration error, 1 failure.\n";

typedef struct serve_opts {
    cli_tool_opts t;
    capsa_options limits;
    const char *http, *store, *token_file;
    double ttl_s, lease_wait_s;
    uint64_t max_sessions, max_body;
} serve_opts;

enum { OPT_HTTP = 256, OPT_STORE, OPT_TOKEN_FILE, OPT_TTL, OPT_LEASE_WAIT, OPT_MAX_SESSIONS,
       OPT_MAX_BODY };

static const struct option serve_long[] = {
    CLI_TOOL_LONG_OPTIONS,
    CLI_LIMIT_LONG_OPTIONS,
    { "http", required_argument, NULL, OPT_HTTP },
    { "store", required_argument, NULL, OPT_STORE },
    { "token-file", required_argument, NULL, OPT_TOKEN_FILE },
    { "session-ttl", required_argument, NULL, OPT_TTL },
    { "lease-wait", required_argument, NULL, OPT_LEASE_WAIT },
    { "max-sessions", required_argument, NULL, OPT_MAX_SESSIONS },
    { "max-body", required_argument, NULL, OPT_MAX_BODY },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* Reads argv (argv[0] "serve") into o. Returns 0 (*done after the help), or a
 * usage error's status. */
static int parse(serve_opts *o, int argc, char **argv, int *done)
{
    *done = 0;
    optind = 1;
    opterr = 0;
    int c;
    uint64_t n;
    while ((c = getopt_long(argc, argv, ":h", serve_long, NULL)) != -1) {
        const char *v = optarg;
        switch (c) {
        case 'h':
            fputs(serve_usage, stdout);
            *done = 1;
            return 0;
        case OPT_HTTP:
            o->http = v;
            break;
        case OPT_STORE:
            o->store = v;
            break;
        case OPT_TOKEN_FILE:
            o->token_file = v;
            break;
        case OPT_TTL:
            if (cli_parse_seconds(v, 1, 1e9, &o->ttl_s) != 0)
                return cli_usage("--session-ttl wants a time from 1s (as 3600, 30m, 24h), not '%s'",
                                 v);
            break;
        case OPT_LEASE_WAIT:
            if (cli_parse_seconds(v, 0, 3600, &o->lease_wait_s) != 0)
                return cli_usage("--lease-wait wants a time from 0 to 1h (as 2s, 500ms), not '%s'",
                                 v);
            break;
        case OPT_MAX_SESSIONS:
            if (cli_parse_count(v, 1, 1000000, &n) != 0)
                return cli_usage("--max-sessions wants a number from 1 to 1000000, not '%s'", v);
            o->max_sessions = n;
            break;
        case OPT_MAX_BODY:
            if (cli_parse_size(v, 1, 1024, 1ull << 30, &n) != 0)
                return cli_usage("--max-body wants a size from 1K to 1G (a number alone is "
                                 "bytes), not '%s'", v);
            o->max_body = n;
            break;
        default: {
            int st = cli_shared_option(&o->limits, &o->t, c, v, argv, serve_long);
            if (st)
                return st;
            break;
        }
        }
    }
    if (optind < argc)
        return cli_usage("unexpected argument '%s'", argv[optind]);
    if (!o->http)
        return cli_usage("--http [HOST:]PORT is required");
    return 0;
}

/* The tokens of --token-file: *n of them into tokens (strings in *buf, which
 * the caller frees). Returns 0, or -1 after saying what is wrong. */
static int read_tokens(const char *file, char **buf, const char **tokens, size_t *n)
{
    size_t len = 0;
    *n = 0;
    if (!(*buf = cli_read_file("--token-file", file, &len)))
        return -1;
    int line = 0;
    for (char *p = *buf, *next; p && *p; p = next) {
        line++;
        next = strchr(p, '\n');
        if (next)
            *next++ = '\0';
        size_t l = strlen(p);
        if (l && p[l - 1] == '\r')
            p[--l] = '\0';
        if (l == 0 || p[0] == '#')
            continue;
        if (l < 16 || strcspn(p, " \t") != l) {
            cli_error("--token-file %s: line %d: a token must be at least 16 characters "
                      "without spaces", file, line);
            return -1;
        }
        if (*n >= MAX_TOKENS) {
            cli_error("--token-file %s: more than %d tokens", file, MAX_TOKENS);
            return -1;
        }
        for (size_t i = 0; i < *n; i++) {
            if (strcmp(tokens[i], p) == 0) {
                cli_error("--token-file %s: line %d: the same token twice", file, line);
                return -1;
            }
        }
        tokens[(*n)++] = p;
    }
    if (*n == 0) {
        cli_error("--token-file %s: no tokens in it", file);
        return -1;
    }
    return 0;
}

static int setup_sandbox(void *ud, capsa_sandbox *sb)
{
    return cli_tools_apply(ud, sb, NULL);
}

/* The MCP sessions' sandboxes (/mcp) get the same tools and policy, and the
 * upstream servers' tools that appear later. */
static int setup_mcp_sandbox(void *ud, capsa_sandbox *sb, uint64_t *generation)
{
    return cli_tools_apply(ud, sb, generation);
}

static void refresh_mcp_sandbox(void *ud, capsa_sandbox *sb, uint64_t *generation)
{
    cli_tools_refresh(ud, sb, generation);
}

/* The definitions a session is loaded with, bound by name: the --tools
 * commands' and the --mcp-config servers' tools as they are at start, in *defs
 * (the caller frees it; the strings are tools'). Returns their number, or -1
 * after saying so. */
static long load_defs(const cli_tools *tools, capsa_tool_def **defs)
{
    capsa_tool_def *mcp = NULL;
    long n_mcp = cli_tools_mcp_defs(tools, &mcp, NULL);
    *defs = n_mcp >= 0 ? malloc((CLI_MAX_TOOLS + (size_t)n_mcp) * sizeof(**defs)) : NULL;
    if (!*defs) {
        free(mcp);
        cli_error("out of memory");
        return -1;
    }
    long n = cli_tools_defs(tools, *defs);
    if (n_mcp)
        memcpy(*defs + n, mcp, (size_t)n_mcp * sizeof(*mcp));
    free(mcp);
    return n + n_mcp;
}

static void write_audit(void *ud, const char *session, const char *line, size_t len)
{
    cli_audit_write(session, line, len);
}

/* Serves until SIGINT or SIGTERM; idle /mcp sessions expire on the way.
 * Returns the exit status. */
static int run_server(serve_config *cfg, const char *host)
{
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    /* The signals are this thread's alone (sigwait), not the server's threads'. */
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    char err[512] = "";
    serve *s = serve_start(cfg, err, sizeof(err));
    if (!s) {
        cli_error("%s", err);
        return 2;
    }
    int v6 = strchr(host, ':') != NULL;
    fprintf(stderr, "capsa serve: serving http://%s%s%s:%u (store %s)\n", v6 ? "[" : "", host,
            v6 ? "]" : "", (unsigned)serve_port(s), store_url(cfg->store));
    struct timespec second = { 1, 0 };
    while (sigtimedwait(&sigs, NULL, &second) < 0)
        serve_expire(s);
    fprintf(stderr, "capsa serve: stopping\n");
    serve_free(s);
    return 0;
}

int cli_serve(int argc, char **argv)
{
    cli_set_program("capsa serve", "serve");
    serve_opts o;
    memset(&o, 0, sizeof(o));
    capsa_options_init(&o.limits);
    int done = 0, status = parse(&o, argc, argv, &done);
    if (status || done)
        return status;
    char host[256];
    uint16_t port;
    if ((status = cli_parse_listen(o.http, host, sizeof(host), &port)) != 0)
        return status;
    cli_tools *tools = NULL;
    capsa_engine *engine = NULL;
    store *st = NULL;
    char *token_buf = NULL;
    static const char *tokens[MAX_TOKENS];
    size_t n_tokens = 0;
    capsa_tool_def *defs = NULL;
    status = 2;
    if (o.token_file && read_tokens(o.token_file, &token_buf, tokens, &n_tokens) != 0)
        goto out;
    uint64_t max_result = o.limits.tool_max_result ? o.limits.tool_max_result : 16u << 20;
    if (cli_tools_load(o.t.tool_files, o.t.n_tool_files, o.t.policy_file, o.t.allows,
                       o.t.n_allows, max_result, &tools) != 0 ||
        cli_tools_mcp(tools, o.t.mcp_files, o.t.n_mcp_files, o.t.mcp_log) != 0)
        goto out;
    long n_defs = load_defs(tools, &defs);
    if (n_defs < 0)
        goto out;
    if (o.t.audit_file) {
        if (cli_audit_open(o.t.audit_file) != 0)
            goto out;
        o.limits.audit_max_bytes = CLI_AUDIT_MAX;
    }
    char err[512] = "";
    if (!(st = store_open(o.store ? o.store : "dir:capsa-sessions", err, sizeof(err)))) {
        cli_error("--store: %s", err);
        goto out;
    }
    int rc = capsa_engine_new(NULL, &engine);
    if (rc != CAPSA_OK) {
        cli_error("cannot start the engine: %s", capsa_errstr(rc));
        status = 1;
        goto out;
    }
    serve_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.http.host = host;
    cfg.http.port = port;
    cfg.http.max_body = (size_t)o.max_body;
    cfg.store = st;
    cfg.engine = engine;
    cfg.limits = o.limits;
    cfg.tokens = tokens;
    cfg.n_tokens = n_tokens;
    cfg.setup = setup_sandbox;
    cfg.setup_ud = tools;
    cfg.tools = defs;
    cfg.n_tools = (size_t)n_defs;
    cfg.audit = cli_audit_active() ? write_audit : NULL;
    cfg.session_ttl_ms = (uint64_t)(o.ttl_s * 1000);
    cfg.lease_wait_ms = (uint64_t)(o.lease_wait_s * 1000);
    cfg.max_sessions = (size_t)o.max_sessions;
    mcp_server_config mc;
    memset(&mc, 0, sizeof(mc));
    mc.engine = engine;
    mc.sandbox = o.limits;
    mc.setup = setup_mcp_sandbox;
    mc.refresh = refresh_mcp_sandbox;
    mc.setup_ud = tools;
    mc.audit = cfg.audit;
    mc.max_message = (size_t)o.max_body;
    cfg.mcp = &mc;
    status = run_server(&cfg, host);
out:
    capsa_engine_free(engine);
    store_close(st);
    cli_tools_free(tools);
    cli_audit_close();
    free(defs);
    free(token_buf);
    return status;
}
