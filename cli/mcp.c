/* capsa mcp: the MCP server on stdio (default) or Streamable HTTP (--http), with
 * the command tools, the upstream MCP servers' tools and the policy of
 * cli/tools.c in every session's sandbox and the audit of all sessions in one
 * file. Built on include/capsa.h and net/. */
#define _GNU_SOURCE
#include "mcp.h"

#include <errno.h>
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
#include "tools.h"

#define MAX_TOOL_FILES 16
#define MAX_ALLOWS 64
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
    "  --session-idle SEC  an HTTP session unused this long ends (default 1800)\n"
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
    "  --timeout SEC   wall-clock limit of a call (default 30; 0: none)\n"
    "  --memory MIB    guest memory limit (default 256, 8..4096)\n"
    "  --fuel N        instruction budget of a call (default: none)\n"
    "  --max-output BYTES  stdout and stderr kept per call (default 16 MiB)\n"
    "  --disk MIB      the session's filesystem quota (default 64)\n"
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
    const char *tool_files[MAX_TOOL_FILES];
    int n_tool_files;
    const char *policy_file;
    const char *allows[MAX_ALLOWS];
    int n_allows;
    const char *audit_file;
    const char *mcp_files[MAX_TOOL_FILES];
    int n_mcp_files;
    const char *mcp_log;
    const char *tool_name;
    int expose_tools, fresh_each_call, log_output;
    unsigned long long max_text;
    capsa_options sandbox;
    const char *http;          /* --http [HOST:]PORT */
    const char *token_file;
    const char *origins[MAX_ORIGINS];
    int n_origins;
    unsigned long long max_sessions, max_body;
    double idle_s;
} mcp_opts;

static int usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "capsa mcp: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'capsa mcp --help'.\n");
    return 2;
}

/* A whole number in [lo, hi], or -1 with *ok 0. */
static unsigned long long number(const char *v, unsigned long long lo, unsigned long long hi, int *ok)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    *ok = !errno && end != v && !*end && v[0] != '-' && n >= lo && n <= hi;
    return n;
}

/* ---- the audit file ------------------------------------------------------------------ */

static FILE *audit_out;
static pthread_mutex_t audit_lock = PTHREAD_MUTEX_INITIALIZER;

/* Each line gets the session's id as its first field. */
static void write_audit(void *ud, const char *session, const char *line, size_t len)
{
    pthread_mutex_lock(&audit_lock);
    if (len > 1 && line[0] == '{') {
        fprintf(audit_out, "{\"session\":\"%s\",", session);
        fwrite(line + 1, 1, len - 1, audit_out);
    } else {
        fwrite(line, 1, len, audit_out);
    }
    fputc('\n', audit_out);
    fflush(audit_out);
    pthread_mutex_unlock(&audit_lock);
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

/* Whether a is an option that takes a value. */
static int value_option(const char *a)
{
    static const char *const names[] = {
        "--tools", "--allow", "--policy", "--audit", "--tool-name", "--timeout", "--memory",
        "--fuel", "--max-output", "--disk", "--max-text", "--http", "--token-file",
        "--allow-origin", "--max-sessions", "--max-body", "--session-idle", "--mcp-config",
        "--mcp-log",
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(a, names[i]) == 0)
            return 1;
    }
    return 0;
}

static int parse(mcp_opts *o, int argc, char **argv, int *done)
{
    *done = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int ok = 1;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(mcp_usage, stdout);
            *done = 1;
            return 0;
        } else if (strcmp(a, "--expose-tools") == 0) {
            o->expose_tools = 1;
        } else if (strcmp(a, "--fresh-each-call") == 0) {
            o->fresh_each_call = 1;
        } else if (strcmp(a, "--log-output") == 0) {
            o->log_output = 1;
        } else if (!value_option(a)) {
            return usage("unknown option '%s'", a);
        } else if (i + 1 >= argc) {
            return usage("%s needs a value", a);
        } else if (strcmp(a, "--tools") == 0) {
            if (o->n_tool_files >= MAX_TOOL_FILES)
                return usage("at most 16 of %s", a);
            o->tool_files[o->n_tool_files++] = argv[++i];
        } else if (strcmp(a, "--allow") == 0) {
            if (o->n_allows >= MAX_ALLOWS)
                return usage("at most 64 of %s", a);
            o->allows[o->n_allows++] = argv[++i];
        } else if (strcmp(a, "--policy") == 0) {
            if (o->policy_file)
                return usage("%s", "give one --policy (add patterns with --allow)");
            o->policy_file = argv[++i];
        } else if (strcmp(a, "--audit") == 0) {
            o->audit_file = argv[++i];
        } else if (strcmp(a, "--mcp-config") == 0) {
            if (o->n_mcp_files >= MAX_TOOL_FILES)
                return usage("at most 16 of %s", a);
            o->mcp_files[o->n_mcp_files++] = argv[++i];
        } else if (strcmp(a, "--mcp-log") == 0) {
            o->mcp_log = argv[++i];
        } else if (strcmp(a, "--tool-name") == 0) {
            const char *v = argv[++i];
            size_t n = strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
            if (!v[0] || v[n] || n > 64)
                return usage("--tool-name wants 1 to 64 of A-Z a-z 0-9 _ -, not '%s'", v);
            o->tool_name = v;
        } else if (strcmp(a, "--timeout") == 0) {
            char *end;
            errno = 0;
            double s = strtod(argv[++i], &end);
            if (errno || *end || end == argv[i] || !(s >= 0) || s > 1e7)
                return usage("--timeout wants seconds from 0 to 10000000, not '%s'", argv[i]);
            o->sandbox.timeout_ms = (uint64_t)(s * 1000.0 + 0.5);
            if (s > 0 && o->sandbox.timeout_ms == 0)
                o->sandbox.timeout_ms = 1;
        } else if (strcmp(a, "--memory") == 0) {
            o->sandbox.memory_limit = number(argv[++i], 8, 4096, &ok) << 20;
            if (!ok)
                return usage("--memory wants MiB from 8 to 4096, not '%s'", argv[i]);
        } else if (strcmp(a, "--fuel") == 0) {
            o->sandbox.fuel = number(argv[++i], 1, UINT64_MAX, &ok);
            if (!ok)
                return usage("--fuel wants a whole number above 0, not '%s'", argv[i]);
        } else if (strcmp(a, "--max-output") == 0) {
            o->sandbox.max_output = number(argv[++i], 1, UINT64_MAX, &ok);
            if (!ok)
                return usage("--max-output wants a whole number of bytes above 0, not '%s'", argv[i]);
        } else if (strcmp(a, "--disk") == 0) {
            o->sandbox.fs_max_bytes = number(argv[++i], 1, 1ull << 20, &ok) << 20;
            if (!ok)
                return usage("--disk wants MiB from 1 to 1048576, not '%s'", argv[i]);
        } else if (strcmp(a, "--max-text") == 0) {
            o->max_text = number(argv[++i], 256, 1ull << 30, &ok);
            if (!ok)
                return usage("--max-text wants bytes from 256 to 1073741824, not '%s'", argv[i]);
        } else if (strcmp(a, "--http") == 0) {
            o->http = argv[++i];
        } else if (strcmp(a, "--token-file") == 0) {
            o->token_file = argv[++i];
        } else if (strcmp(a, "--allow-origin") == 0) {
            if (o->n_origins >= MAX_ORIGINS)
                return usage("at most 16 of %s", a);
            o->origins[o->n_origins++] = argv[++i];
        } else if (strcmp(a, "--max-sessions") == 0) {
            o->max_sessions = number(argv[++i], 1, 10000, &ok);
            if (!ok)
                return usage("--max-sessions wants a number from 1 to 10000, not '%s'", argv[i]);
        } else if (strcmp(a, "--max-body") == 0) {
            o->max_body = number(argv[++i], 1024, 1ull << 30, &ok);
            if (!ok)
                return usage("--max-body wants bytes from 1024 to 1073741824, not '%s'", argv[i]);
        } else if (strcmp(a, "--session-idle") == 0) {
            char *end;
            errno = 0;
            o->idle_s = strtod(argv[++i], &end);
            if (errno || *end || end == argv[i] || !(o->idle_s > 0) || o->idle_s > 1e7)
                return usage("--session-idle wants seconds above 0, not '%s'", argv[i]);
        }
    }
    return 0;
}

/* The bearer token: --token-file's first line, else $CAPSA_MCP_TOKEN, else NULL.
 * *bad is set after saying what is wrong. The caller frees it. */
static char *read_token(const char *file, int *bad)
{
    *bad = 0;
    char *t = NULL;
    if (file) {
        FILE *f = fopen(file, "rb");
        size_t len = 0;
        t = f ? cli_read_all(f, &len) : NULL;
        if (f)
            fclose(f);
        if (!t) {
            fprintf(stderr, "capsa mcp: --token-file: cannot read '%s': %s\n", file, strerror(errno));
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
    char host[256] = "127.0.0.1";
    const char *port_s = o->http, *colon = strrchr(o->http, ':');
    if (o->http[0] == '[') {
        const char *end = strchr(o->http, ']');
        if (!end || end[1] != ':' || (size_t)(end - o->http) >= sizeof(host))
            return usage("--http wants [HOST:]PORT, not '%s'", o->http);
        snprintf(host, sizeof(host), "%.*s", (int)(end - o->http - 1), o->http + 1);
        port_s = end + 2;
    } else if (colon) {
        if ((size_t)(colon - o->http) >= sizeof(host) || colon == o->http)
            return usage("--http wants [HOST:]PORT, not '%s'", o->http);
        snprintf(host, sizeof(host), "%.*s", (int)(colon - o->http), o->http);
        port_s = colon + 1;
    }
    int ok;
    unsigned long long port = number(port_s, 0, 65535, &ok);
    if (!ok)
        return usage("--http wants a port from 0 to 65535, not '%s'", port_s);
    int bad;
    char *token = read_token(o->token_file, &bad);
    if (bad)
        return 2;
    mcp_http_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.http.host = host;
    cfg.http.port = (uint16_t)port;
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
    if (cli_tools_load(o.tool_files, o.n_tool_files, o.policy_file, o.allows, o.n_allows,
                       o.sandbox.tool_max_result ? o.sandbox.tool_max_result : 16u << 20, &tools) != 0 ||
        cli_tools_mcp(tools, o.mcp_files, o.n_mcp_files, o.mcp_log) != 0)
        goto out;
    if (o.audit_file) {
        audit_out = strcmp(o.audit_file, "-") == 0 ? stderr : fopen(o.audit_file, "a");
        if (!audit_out) {
            fprintf(stderr, "capsa mcp: --audit: cannot open '%s': %s\n", o.audit_file, strerror(errno));
            goto out;
        }
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
    cfg.audit = audit_out ? write_audit : NULL;
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
    if (audit_out && audit_out != stderr)
        fclose(audit_out);
    audit_out = NULL;
    return status;
}
