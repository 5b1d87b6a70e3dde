/* The MCP server (see mcp_server.h): message dispatch, the execute tool and the
 * exposed host tools, resources, and the sessions with their worker threads.
 * Requests that touch the sandbox (tools/call, resources/list, resources/read)
 * run on the session's worker, one at a time; the others are answered at once on
 * the transport's thread, so that ping and cancellation work while code runs. */
#define _GNU_SOURCE
#include "mcp_server.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "jsonrpc.h"
#include "../src/json_write.h"

#define DEFAULT_MAX_TEXT (64u << 10)
#define DEFAULT_MAX_QUEUE 1024
#define DEFAULT_MAX_MESSAGE (4u << 20)
/* Files resources/read returns whole; larger ones are refused. */
#define MAX_RESOURCE_BYTES (16u << 20)
#define RESOURCES_PAGE 200
/* MCP's "resource not found". */
#define MCP_RESOURCE_NOT_FOUND (-32002)

static const char *const versions[] = { "2025-11-25", "2025-06-18", "2025-03-26" };

static const char *const log_levels[] = { "debug", "info", "notice", "warning",
                                          "error", "critical", "alert", "emergency" };
enum { LOG_INFO = 1, LOG_WARNING = 3 };

int mcp_version_supported(const char *version)
{
    for (size_t i = 0; version && i < sizeof(versions) / sizeof(versions[0]); i++) {
        if (strcmp(version, versions[i]) == 0)
            return 1;
    }
    return 0;
}

void mcp_sink_hold(mcp_sink *sink)
{
    __atomic_add_fetch(&sink->refs, 1, __ATOMIC_RELAXED);
}

void mcp_sink_drop(mcp_sink *sink)
{
    if (sink && __atomic_sub_fetch(&sink->refs, 1, __ATOMIC_ACQ_REL) == 0)
        sink->destroy(sink);
}

/* Sends msg (stolen) to sink. */
static void emit(mcp_sink *sink, json_t *msg, int is_response)
{
    size_t len = 0;
    char *text = msg ? jrpc_dump(msg, &len) : NULL;
    if (text) {
        sink->emit(sink, text, len, is_response);
    } else if (is_response) {
        /* Out of memory building the answer: say so in the fewest bytes. */
        static const char nomem[] =
            "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"out of memory\"}}";
        sink->emit(sink, nomem, sizeof(nomem) - 1, 1);
    }
    free(text);
    json_decref(msg);
}

/* ---- text ----------------------------------------------------------------------------- */

typedef struct sbuf {
    char *data;
    size_t len, cap;
    int failed; /* out of memory once: the text is incomplete */
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->failed || n == 0)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap : 256;
        while (c < b->len + n + 1)
            c *= 2;
        char *d = realloc(b->data, c);
        if (!d) {
            b->failed = 1;
            return;
        }
        b->data = d;
        b->cap = c;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void sb_str(sbuf *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

static void sb_free(sbuf *b)
{
    free(b->data);
    memset(b, 0, sizeof(*b));
}

/* The length of the valid UTF-8 sequence at s[0..n), or 0 when it is not one. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return c ? 1 : 0;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    unsigned cp = c & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

/* Appends s[0..n) to b as valid UTF-8 (each bad byte or NUL as U+FFFD), at most
 * max bytes of b in all; returns the bytes of s not taken. */
static size_t sb_utf8(sbuf *b, const char *s, size_t n, size_t max)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        size_t k = utf8_seq(p + i, n - i);
        size_t out = k ? k : 3;
        if (b->len + out > max)
            break;
        if (k)
            sb_put(b, s + i, k);
        else
            sb_put(b, "\xEF\xBF\xBD", 3);
        i += k ? k : 1;
    }
    return n - i;
}

static int valid_utf8(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq((const unsigned char *)s + i, n - i);
        if (!k)
            return 0;
        i += k;
    }
    return 1;
}

/* A JSON string of s[0..n), made valid UTF-8. */
static json_t *json_text(const char *s, size_t n)
{
    if (valid_utf8(s, n))
        return json_stringn(s, n);
    sbuf b = { 0 };
    sb_utf8(&b, s, n, (size_t)-1);
    json_t *j = b.failed ? NULL : json_stringn(b.data ? b.data : "", b.len);
    sb_free(&b);
    return j;
}

static void base64(sbuf *b, const unsigned char *p, size_t n)
{
    static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char q[4];
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        q[0] = tbl[v >> 18 & 63];
        q[1] = tbl[v >> 12 & 63];
        q[2] = i + 1 < n ? tbl[v >> 6 & 63] : '=';
        q[3] = i + 2 < n ? tbl[v & 63] : '=';
        sb_put(b, q, 4);
    }
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- the server -------------------------------------------------------------------- */

/* A host tool listed as an MCP tool of its own (expose_tools). */
typedef struct exposed {
    char *mcp_name; /* its name for MCP clients */
    char *name;     /* its registered name */
} exposed;

struct mcp_server {
    mcp_server_config cfg;
    char *tool_name, *server_version;
    char *tools_json;   /* the tools/list result */
    json_t *tools_list; /* the same, parsed */
    exposed *exposed;
    size_t n_exposed;
};

const char *mcp_server_tools_json(const mcp_server *srv)
{
    return srv->tools_json;
}

size_t mcp_server_max_message(const mcp_server *srv)
{
    return srv->cfg.max_message;
}

static const char execute_intro[] =
    "Runs JavaScript (or, with language \"shell\", a POSIX shell command line) in a capsa "
    "sandbox: WebAssembly-isolated, no network, an in-memory filesystem of its own, and only "
    "the host tools declared below, each call checked against a capability policy and "
    "audited.\n"
    "- The code is the body of an async function: use await at the top level and `return` a "
    "value; it comes back as JSON after the console output (console.log and friends print as "
    "in Node.js).\n"
    "- Call a tool with `await tools.<namespace>.<action>(args)` or its flat name as declared "
    "below; run independent calls at once with `await Promise.all([...])`. A refused or "
    "failed call throws a ToolError whose `code` says why (permission_denied, timeout, "
    "invalid_arguments, ...).\n"
    "- Globals and the files under /workspace (the working directory; Node's `fs` API, "
    "`require('fs')`) persist from one call to the next; the client can read the files as "
    "resources (file:///workspace/...).\n"
    "- Each call has limits on time, memory and output; a call stopped by one loses the JS "
    "globals, not the files. There is no npm, no network, no process.\n";

/* The declarations of a tool, from /tools/<name>.d.ts of sb, without the generated
 * header comment and with `export` dropped; appended to b. */
static void add_declarations(sbuf *b, capsa_sandbox *sb, const char *path)
{
    char *data = NULL;
    size_t len = 0;
    if (capsa_fs_read(sb, path, &data, &len) != CAPSA_OK)
        return;
    const char *p = data, *end = data + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = nl ? nl : end;
        size_t n = (size_t)(line_end - p);
        if (!(n >= 2 && p[0] == '/' && p[1] == '/')) {
            if (n >= 7 && memcmp(p, "export ", 7) == 0) {
                p += 7;
                n -= 7;
            }
            if (n || b->len == 0 || b->data[b->len - 1] != '\n' ||
                (b->len >= 2 && b->data[b->len - 2] != '\n'))
                sb_put(b, p, n), sb_put(b, "\n", 1);
        }
        p = nl ? nl + 1 : end;
    }
    capsa_free(data);
}

/* Whether sb's policy can allow some call of tool name: a capability's pattern
 * matches it (its constraints may still refuse a call). The policy's answer for
 * a name no pattern matches starts "No capability authorizes" (src/policy.c). */
static int granted(capsa_sandbox *sb, const char *name)
{
    int allowed = 0;
    char msg[64];
    if (capsa_policy_check(sb, name, "{}", 2, &allowed, msg, sizeof(msg)) != CAPSA_OK)
        return 0;
    return allowed || strncmp(msg, "No capability authorizes", 24) != 0;
}

/* The MCP name of a host tool: its name with anything outside [A-Za-z0-9_-]
 * (what every model API accepts) as '_'. */
static char *mcp_name_of(const char *name)
{
    char *s = strdup(name);
    for (char *p = s; p && *p; p++) {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-'))
            *p = '_';
    }
    return s;
}

static json_t *output_schema(void)
{
    json_error_t jerr;
    return json_loads(
        "{\"type\":\"object\",\"properties\":{"
        "\"result\":{\"description\":\"the value the code returned (null: none, or over the "
        "size limit; see truncated)\"},"
        "\"stdout\":{\"type\":\"string\"},\"stderr\":{\"type\":\"string\"},"
        "\"status\":{\"type\":\"string\",\"enum\":[\"ok\",\"error\",\"timeout\",\"fuel\","
        "\"trap\",\"cancelled\",\"memory\",\"invalid\"]},"
        "\"tool_calls\":{\"type\":\"integer\",\"description\":\"tool calls the code made, "
        "refused ones included\"},"
        "\"duration_ms\":{\"type\":\"number\"},"
        "\"exit_code\":{\"type\":[\"integer\",\"null\"],\"description\":\"a shell command "
        "line's exit status\"},"
        "\"error\":{\"type\":[\"object\",\"null\"],\"properties\":{\"name\":{\"type\":"
        "\"string\"},\"message\":{\"type\":\"string\"},\"code\":{\"type\":[\"string\",\"null\"]}}},"
        "\"truncated\":{\"type\":\"boolean\",\"description\":\"stdout, stderr or the result "
        "were cut at the size limit\"}},"
        "\"required\":[\"result\",\"stdout\",\"stderr\",\"status\",\"tool_calls\",\"duration_ms\"]}",
        0, &jerr);
}

/* Builds the tools/list result from a sandbox set up as every session's is. */
static int build_tools(mcp_server *srv, capsa_sandbox *sb, char *err, size_t errsize)
{
    static const char list_code[] =
        "return tools.list().map(t => { const d = tools.describe(t.name); "
        "return [d.name, d.description || '', d.parameters || {type: 'object'}, d.types || ''] })";
    const capsa_result *r = NULL;
    int rc = capsa_run(sb, list_code, sizeof(list_code) - 1, "<mcp>", &r);
    json_error_t jerr;
    json_t *list = rc == CAPSA_OK ? json_loads(capsa_result_value(r), 0, &jerr) : NULL;
    if (!json_is_array(list)) {
        snprintf(err, errsize, "cannot list the tools: %s", capsa_errmsg(sb));
        json_decref(list);
        return -1;
    }
    sbuf desc = { 0 };
    sb_str(&desc, execute_intro);
    json_t *tools = json_array();
    size_t i, n_granted = 0;
    json_t *t;
    srv->exposed = calloc(json_array_size(list) + 1, sizeof(exposed));
    json_array_foreach(list, i, t) {
        const char *name = json_string_value(json_array_get(t, 0));
        if (!name || !granted(sb, name))
            continue;
        if (n_granted++ == 0)
            sb_str(&desc, "\nThe granted tools (TypeScript; the flat function names are globals "
                          "too):\n```ts\n");
        sb_str(&desc, "// ");
        sb_str(&desc, name);
        sb_str(&desc, "\n");
        add_declarations(&desc, sb, json_string_value(json_array_get(t, 3)));
        if (!srv->cfg.expose_tools || !srv->exposed)
            continue;
        char *mname = mcp_name_of(name);
        int taken = !mname || strcmp(mname, srv->tool_name) == 0;
        for (size_t k = 0; !taken && k < srv->n_exposed; k++)
            taken = strcmp(srv->exposed[k].mcp_name, mname) == 0;
        if (taken) {
            fprintf(stderr, "capsa mcp: tool '%s' is not exposed: its MCP name '%s' is taken\n",
                    name, mname ? mname : "");
            free(mname);
            continue;
        }
        json_t *entry = json_pack("{s:s, s:O, s:O}", "name", mname, "description",
                                  json_array_get(t, 1), "inputSchema", json_array_get(t, 2));
        json_array_append_new(tools, entry);
        srv->exposed[srv->n_exposed].mcp_name = mname;
        srv->exposed[srv->n_exposed++].name = strdup(name);
    }
    if (n_granted)
        sb_str(&desc, "```\n");
    else
        sb_str(&desc, "\nNo host tools are granted: the code can compute and use its files "
                      "only.\n");
    json_decref(list);
    json_t *exec = json_pack(
        "{s:s, s:s, s:s?, s:{s:s, s:{s:{s:s, s:s}, s:{s:s, s:[ss], s:s}}, s:[s], "
        "s:b}, s:o}",
        "name", srv->tool_name, "title", "Run code in the capsa sandbox", "description", desc.data,
        "inputSchema", "type", "object", "properties", "code", "type", "string", "description",
        "JavaScript (the body of an async function) or, with language \"shell\", a shell "
        "command line",
        "language", "type", "string", "enum", "javascript", "shell", "description",
        "default: javascript",
        "required", "code", "additionalProperties", 0, "outputSchema", output_schema());
    sb_free(&desc);
    if (!exec || !tools || json_array_insert_new(tools, 0, exec) != 0) {
        json_decref(tools);
        snprintf(err, errsize, "out of memory describing the tools");
        return -1;
    }
    srv->tools_list = json_pack("{s:o}", "tools", tools);
    srv->tools_json = srv->tools_list ? capsa__json_dumps(srv->tools_list, JSON_COMPACT) : NULL;
    if (!srv->tools_json) {
        snprintf(err, errsize, "out of memory describing the tools");
        return -1;
    }
    return 0;
}

int mcp_server_new(const mcp_server_config *cfg, mcp_server **out, char *err, size_t errsize)
{
    *out = NULL;
    mcp_server *srv = calloc(1, sizeof(*srv));
    if (!srv) {
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    srv->cfg = *cfg;
    srv->tool_name = strdup(cfg->tool_name ? cfg->tool_name : "execute");
    srv->server_version = strdup(cfg->server_version ? cfg->server_version : capsa_version());
    if (!srv->cfg.max_text)
        srv->cfg.max_text = DEFAULT_MAX_TEXT;
    if (!srv->cfg.max_queue)
        srv->cfg.max_queue = DEFAULT_MAX_QUEUE;
    if (!srv->cfg.max_message)
        srv->cfg.max_message = DEFAULT_MAX_MESSAGE;
    srv->cfg.tool_name = srv->tool_name;
    srv->cfg.server_version = srv->server_version;
    capsa_sandbox *sb = NULL;
    capsa_options o = cfg->sandbox;
    o.on_output = NULL;
    o.on_audit = NULL;
    o.audit_flags |= CAPSA_AUDIT_NO_FILE;
    int rc = srv->tool_name && srv->server_version ? capsa_sandbox_new(cfg->engine, &o, &sb)
                                                   : CAPSA_ENOMEM;
    if (rc != CAPSA_OK) {
        snprintf(err, errsize, "cannot create a sandbox: %s", capsa_errstr(rc));
        mcp_server_free(srv);
        return -1;
    }
    uint64_t generation = 0;
    if ((cfg->setup && cfg->setup(cfg->setup_ud, sb, &generation) != 0) ||
        build_tools(srv, sb, err, errsize) != 0) {
        if (cfg->setup && !err[0])
            snprintf(err, errsize, "the tools could not be set up");
        capsa_sandbox_free(sb);
        mcp_server_free(srv);
        return -1;
    }
    capsa_sandbox_free(sb);
    *out = srv;
    return 0;
}

void mcp_server_free(mcp_server *srv)
{
    if (!srv)
        return;
    for (size_t i = 0; i < srv->n_exposed; i++) {
        free(srv->exposed[i].mcp_name);
        free(srv->exposed[i].name);
    }
    free(srv->exposed);
    free(srv->tools_json);
    json_decref(srv->tools_list);
    free(srv->tool_name);
    free(srv->server_version);
    free(srv);
}

/* ---- sessions ------------------------------------------------------------------------- */

enum { JOB_EXECUTE, JOB_HOST_TOOL, JOB_RESOURCES_LIST, JOB_RESOURCES_READ };

/* A request for the worker. */
typedef struct job {
    struct job *next;
    int kind;
    uint64_t seq;
    json_t *id;             /* owned */
    json_t *params;         /* owned reference */
    json_t *progress_token; /* borrowed from params; NULL: none */
    const exposed *tool;    /* JOB_HOST_TOOL */
    mcp_sink *sink;         /* held */
    int started;            /* its code runs (capsa_run may be in progress) */
    int cancelled;
} job;

struct mcp_session {
    mcp_server *srv;
    char *id;
    capsa_sandbox *sb;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    pthread_t worker;
    int worker_started;
    int closing;
    int initialized;        /* initialize answered */
    char version[16];
    int log_level;          /* notifications/message at or above it */
    jrpc_ids *inflight;     /* id -> job (NULL value: answered at once) */
    job *q_head, *q_tail;
    size_t queued;
    job *running;           /* the worker's job, NULL between jobs */
    uint64_t seq;
    uint64_t tools_generation; /* the setup's and refresh's (the worker's) */
    /* The worker's, during a run: */
    sbuf console;           /* stdout and stderr as they came, up to max_text */
    uint64_t console_dropped;
    uint64_t progress;
    int run_rc;             /* the job's run (give_back): -1 none */
    const capsa_result *run_r;
    double run_ms;
};

static void *worker_main(void *arg);

/* What the sandbox writes: kept for the result's text, and sent as log
 * notifications when the server does so. Runs on the worker. */
static void on_output(void *ud, int stream, const char *data, size_t len)
{
    mcp_session *ss = ud;
    size_t max = ss->srv->cfg.max_text;
    ss->console_dropped += sb_utf8(&ss->console, data, len, max);
    job *j = ss->running;
    int level = stream == CAPSA_STDERR ? LOG_WARNING : LOG_INFO;
    if (!j || !ss->srv->cfg.log_output || level < __atomic_load_n(&ss->log_level, __ATOMIC_RELAXED))
        return;
    json_t *text = json_text(data, len);
    json_t *params = json_pack("{s:s, s:s, s:o}", "level", log_levels[level], "logger",
                               stream == CAPSA_STDERR ? "stderr" : "stdout", "data", text);
    emit(j->sink, jrpc_notification("notifications/message", params), 0);
}

/* Every audit line goes to the server's audit hook; a tool call of a request with
 * a progress token is also a progress notification. Runs on the worker. */
static void on_audit(void *ud, const char *line, size_t len)
{
    mcp_session *ss = ud;
    if (ss->srv->cfg.audit)
        ss->srv->cfg.audit(ss->srv->cfg.audit_ud, ss->id, line, len);
    job *j = ss->running;
    if (!j || !j->progress_token)
        return;
    json_error_t jerr;
    json_t *a = json_loadb(line, len, 0, &jerr);
    const char *event = json_string_value(json_object_get(a, "event"));
    if (event && strcmp(event, "tool_call") == 0) {
        char msg[256];
        const char *outcome = json_string_value(json_object_get(a, "outcome"));
        snprintf(msg, sizeof(msg), "tool %.120s: %s%s%s",
                 json_string_value(json_object_get(a, "tool")) ?: "?",
                 json_string_value(json_object_get(a, "decision")) ?: "?", outcome ? ", " : "",
                 outcome ? outcome : "");
        json_t *params = json_pack("{s:O, s:I, s:s}", "progressToken", j->progress_token,
                                   "progress", (json_int_t)++ss->progress, "message", msg);
        emit(j->sink, jrpc_notification("notifications/progress", params), 0);
    }
    json_decref(a);
}

int mcp_session_new(mcp_server *srv, const char *id, mcp_session **out, char *err, size_t errsize)
{
    *out = NULL;
    mcp_session *ss = calloc(1, sizeof(*ss));
    if (!ss || !(ss->id = strdup(id)) || !(ss->inflight = jrpc_ids_new())) {
        snprintf(err, errsize, "out of memory");
        goto fail;
    }
    pthread_mutex_init(&ss->lock, NULL);
    pthread_cond_init(&ss->cv, NULL);
    ss->srv = srv;
    ss->log_level = LOG_INFO;
    capsa_options o = srv->cfg.sandbox;
    o.on_output = on_output;
    o.on_output_ud = ss;
    o.on_audit = on_audit;
    o.on_audit_ud = ss;
    int rc = srv->cfg.borrow ? CAPSA_OK : capsa_sandbox_new(srv->cfg.engine, &o, &ss->sb);
    if (rc != CAPSA_OK) {
        snprintf(err, errsize, "cannot create a sandbox: %s", capsa_errstr(rc));
        goto fail;
    }
    if (!srv->cfg.borrow && srv->cfg.setup &&
        srv->cfg.setup(srv->cfg.setup_ud, ss->sb, &ss->tools_generation) != 0) {
        snprintf(err, errsize, "the tools could not be set up");
        goto fail;
    }
    if (pthread_create(&ss->worker, NULL, worker_main, ss) != 0) {
        snprintf(err, errsize, "cannot start the session's thread");
        goto fail;
    }
    ss->worker_started = 1;
    *out = ss;
    return 0;
fail:
    mcp_session_free(ss);
    return -1;
}

static void job_free(job *j)
{
    if (!j)
        return;
    json_decref(j->id);
    json_decref(j->params);
    mcp_sink_drop(j->sink);
    free(j);
}

/* Asks the running code of job seq to stop, with ss->lock held. capsa_interrupt
 * answers CAPSA_ENOENT in the moments before the run starts and after it ends:
 * try again until it takes or the worker has moved on. */
static void interrupt_job(mcp_session *ss, uint64_t seq)
{
    while (ss->running && ss->running->seq == seq && ss->running->started &&
           capsa_interrupt(ss->sb) == CAPSA_ENOENT) {
        pthread_mutex_unlock(&ss->lock);
        struct timespec ts = { 0, 200000 };
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&ss->lock);
    }
}

void mcp_session_free(mcp_session *ss)
{
    if (!ss)
        return;
    if (ss->worker_started) {
        pthread_mutex_lock(&ss->lock);
        ss->closing = 1;
        for (job *j = ss->q_head, *next; j; j = next) {
            next = j->next;
            emit(j->sink, NULL, 1);
            jrpc_ids_take(ss->inflight, j->id);
            job_free(j);
        }
        ss->q_head = ss->q_tail = NULL;
        ss->queued = 0;
        if (ss->running) {
            ss->running->cancelled = 1;
            interrupt_job(ss, ss->running->seq);
        }
        pthread_cond_broadcast(&ss->cv);
        pthread_mutex_unlock(&ss->lock);
        pthread_join(ss->worker, NULL);
    }
    capsa_sandbox_free(ss->sb);
    if (ss->inflight) {
        jrpc_ids_free(ss->inflight);
        pthread_mutex_destroy(&ss->lock);
        pthread_cond_destroy(&ss->cv);
    }
    sb_free(&ss->console);
    free(ss->id);
    free(ss);
}

void mcp_session_drain(mcp_session *ss)
{
    pthread_mutex_lock(&ss->lock);
    while (ss->q_head || ss->running)
        pthread_cond_wait(&ss->cv, &ss->lock);
    pthread_mutex_unlock(&ss->lock);
}

int mcp_session_resume(mcp_session *ss, const char *version)
{
    if (!version || !mcp_version_supported(version))
        return -1;
    pthread_mutex_lock(&ss->lock);
    snprintf(ss->version, sizeof(ss->version), "%s", version);
    ss->initialized = 1;
    pthread_mutex_unlock(&ss->lock);
    return 0;
}

const char *mcp_session_version(mcp_session *ss)
{
    return ss->version;
}

int mcp_session_ready(mcp_session *ss)
{
    pthread_mutex_lock(&ss->lock);
    int ready = ss->initialized;
    pthread_mutex_unlock(&ss->lock);
    return ready;
}

/* ---- the execute tool and the exposed tools (worker) ------------------------------- */

/* A tool result: content text, and structured content when given (stolen). */
static json_t *tool_result(const char *text, size_t len, json_t *structured, int is_error)
{
    json_t *content = json_pack("[{s:s, s:o}]", "type", "text", "text", json_text(text, len));
    json_t *r = json_pack("{s:o, s:b}", "content", content, "isError", is_error);
    if (r && structured)
        json_object_set_new(r, "structuredContent", structured);
    else
        json_decref(structured);
    return r;
}

const char *mcp_status_name(int rc)
{
    switch (rc) {
    case CAPSA_OK: return "ok";
    case CAPSA_ESCRIPT: return "error";
    case CAPSA_ETIMEOUT: return "timeout";
    case CAPSA_EFUEL: return "fuel";
    case CAPSA_ETRAP: return "trap";
    case CAPSA_EINTERRUPTED: return "cancelled";
    case CAPSA_ENOMEM: return "memory";
    default: return "invalid";
    }
}

/* The value JSON text as JSON (big integers as reals), or NULL. */
static json_t *parse_value(const char *v)
{
    json_error_t jerr;
    json_t *j = v ? json_loads(v, JSON_DECODE_ANY, &jerr) : NULL;
    if (!j && v)
        j = json_loads(v, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, &jerr);
    return j;
}

/* Appends the text of a thrown error or a stopped run. */
static void error_text(sbuf *t, capsa_sandbox *sb, int rc, const capsa_result *r)
{
    const char *name = r ? capsa_result_error_name(r) : NULL;
    const char *msg = r ? capsa_result_error_message(r) : NULL;
    const char *stack = r ? capsa_result_error_stack(r) : NULL;
    if (t->len && t->data[t->len - 1] != '\n')
        sb_str(t, "\n");
    if (rc == CAPSA_ESCRIPT) {
        sb_str(t, name ? name : "Error");
        if (msg && *msg)
            sb_str(t, ": "), sb_str(t, msg);
        sb_str(t, "\n");
        if (stack && *stack)
            sb_str(t, stack);
    } else {
        sb_str(t, "[capsa: ");
        sb_str(t, capsa_errmsg(sb));
        sb_str(t, "]");
    }
}

/* The result of an execute call whose run returned rc. */
static json_t *execute_result(mcp_session *ss, int rc, const capsa_result *r, double ms, int shell)
{
    size_t max = ss->srv->cfg.max_text;
    int truncated = ss->console_dropped > 0;
    sbuf text = { 0 };
    sb_put(&text, ss->console.data ? ss->console.data : "", ss->console.len);
    const char *value = rc == CAPSA_OK && r ? capsa_result_value(r) : NULL;
    json_t *result = NULL;
    int exit_code = shell && r ? capsa_result_exit_code(r) : -1;
    int failed = rc != CAPSA_OK || (shell && exit_code != 0);
    if (value && !shell) {
        result = parse_value(value);
        char *pretty = result ? capsa__json_dumps(result, JSON_INDENT(2) | JSON_ENCODE_ANY) : NULL;
        if (text.len && text.data[text.len - 1] != '\n')
            sb_str(&text, "\n");
        sb_str(&text, pretty ? pretty : value);
        free(pretty);
        if (strlen(value) > max) {
            json_decref(result);
            result = NULL;
            truncated = 1;
        }
    } else if (rc != CAPSA_OK) {
        error_text(&text, ss->sb, rc, r);
    } else if (shell && exit_code != 0) {
        char line[64];
        snprintf(line, sizeof(line), "%s[exit status %d]", text.len && text.data[text.len - 1] != '\n'
                                                               ? "\n" : "", exit_code);
        sb_str(&text, line);
    }
    sbuf shown = { 0 };
    size_t left = sb_utf8(&shown, text.data ? text.data : "", text.len, max);
    if (left || ss->console_dropped) {
        char marker[160];
        snprintf(marker, sizeof(marker),
                 "\n[capsa: the text is cut at %zu bytes; %llu more were not shown]", max,
                 (unsigned long long)(left + ss->console_dropped));
        sb_str(&shown, marker);
        truncated = 1;
    }
    size_t olen = 0, elen = 0;
    const char *out = r ? capsa_result_stdout(r, &olen) : "";
    const char *errs = r ? capsa_result_stderr(r, &elen) : "";
    sbuf o = { 0 }, e = { 0 };
    truncated |= sb_utf8(&o, out, olen, max) > 0;
    truncated |= sb_utf8(&e, errs, elen, max) > 0;
    capsa_stats st;
    memset(&st, 0, sizeof(st));
    st.struct_size = sizeof(st);
    if (r)
        capsa_result_stats(r, &st);
    json_t *error = json_null();
    if (rc != CAPSA_OK) {
        const char *code = r ? capsa_result_error_code(r) : NULL;
        const char *name = r ? capsa_result_error_name(r) : NULL;
        const char *msg = r ? capsa_result_error_message(r) : NULL;
        json_decref(error);
        error = json_pack("{s:s, s:s, s:s?}", "name", name ? name : capsa_errname(rc), "message",
                          msg ? msg : capsa_errmsg(ss->sb), "code", code);
    }
    json_t *structured = json_pack(
        "{s:o, s:o, s:o, s:s, s:I, s:f, s:o, s:o, s:b}", "result", result ? result : json_null(),
        "stdout", json_stringn(o.data ? o.data : "", o.len), "stderr",
        json_stringn(e.data ? e.data : "", e.len), "status",
        shell && rc == CAPSA_OK && exit_code != 0 ? "error" : mcp_status_name(rc), "tool_calls",
        (json_int_t)st.tool_calls, "duration_ms", ms, "exit_code",
        exit_code >= 0 ? json_integer(exit_code) : json_null(), "error", error ? error : json_null(),
        "truncated", truncated);
    json_t *res = tool_result(shown.data ? shown.data : "", shown.len, structured, failed);
    sb_free(&text);
    sb_free(&shown);
    sb_free(&o);
    sb_free(&e);
    return res;
}

/* Empties /workspace and /tmp (fresh_each_call). */
static int remove_entry(void *ud, const char *name, const capsa_file_info *info)
{
    sbuf *names = ud;
    sb_put(names, name, strlen(name) + 1);
    return 0;
}

static void empty_dir(capsa_sandbox *sb, const char *dir)
{
    sbuf names = { 0 };
    capsa_fs_list(sb, dir, remove_entry, &names);
    for (size_t i = 0; i < names.len; i += strlen(names.data + i) + 1) {
        char path[4200];
        snprintf(path, sizeof(path), "%s/%s", dir, names.data + i);
        capsa_fs_remove(sb, path, 1);
    }
    sb_free(&names);
}

/* Starts the run of job j: its output and progress count from zero, and from now
 * on a cancellation interrupts the code. Returns 0 when it was cancelled before. */
static int begin_run(mcp_session *ss, job *j)
{
    sb_free(&ss->console);
    ss->console_dropped = 0;
    ss->progress = 0;
    pthread_mutex_lock(&ss->lock);
    int cancelled = j->cancelled;
    j->started = !cancelled;
    pthread_mutex_unlock(&ss->lock);
    return !cancelled;
}

/* Runs a tools/call of the code tool; returns the result, or NULL with *error set
 * for a JSON-RPC error. */
static json_t *run_execute(mcp_session *ss, job *j, json_t **error)
{
    json_t *args = json_object_get(j->params, "arguments");
    json_t *code = json_object_get(args, "code"), *lang = json_object_get(args, "language");
    const char *bad = NULL;
    const char *key;
    json_t *v;
    json_object_foreach(args, key, v) {
        if (strcmp(key, "code") != 0 && strcmp(key, "language") != 0)
            bad = "unknown argument: the arguments are code and language";
    }
    if (!json_is_string(code))
        bad = code ? "the argument code must be a string" : "the argument code is required";
    else if (lang && !(json_is_string(lang) && (strcmp(json_string_value(lang), "javascript") == 0 ||
                                                strcmp(json_string_value(lang), "shell") == 0)))
        bad = "the argument language must be \"javascript\" or \"shell\"";
    int shell = lang && strcmp(json_string_value(lang), "shell") == 0;
    if (!bad && shell && strlen(json_string_value(code)) != json_string_length(code))
        bad = "a shell command line cannot hold a NUL character";
    if (bad) {
        /* Input the model can correct is a tool error, not a protocol one. */
        (void)error;
        return tool_result(bad, strlen(bad), NULL, 1);
    }
    if (ss->srv->cfg.fresh_each_call) {
        capsa_reset(ss->sb);
        empty_dir(ss->sb, "/workspace");
        empty_dir(ss->sb, "/tmp");
    }
    if (!begin_run(ss, j))
        return NULL;
    if (j->progress_token) {
        json_t *params = json_pack("{s:O, s:i, s:s}", "progressToken", j->progress_token,
                                   "progress", 0, "message", "running");
        emit(j->sink, jrpc_notification("notifications/progress", params), 0);
    }
    const capsa_result *r = NULL;
    double t0 = now_ms();
    int rc = shell ? capsa_shell(ss->sb, json_string_value(code), NULL, 0, &r)
                   : capsa_run(ss->sb, json_string_value(code), json_string_length(code), "<mcp>", &r);
    double ms = now_ms() - t0;
    ss->run_rc = rc;
    ss->run_r = r;
    ss->run_ms = ms;
    return execute_result(ss, rc, r, ms, shell);
}

/* Runs a tools/call of an exposed host tool: through the sandbox, so that the
 * policy, the budgets and the audit apply as to calls from code. */
static json_t *run_host_tool(mcp_session *ss, job *j)
{
    json_t *args = json_object_get(j->params, "arguments");
    char *args_text = args ? capsa__json_dumps(args, JSON_COMPACT) : NULL;
    json_t *name = json_string(j->tool->name), *atext = json_string(args_text ? args_text : "{}");
    char *qname = capsa__json_dumps(name, JSON_ENCODE_ANY), *qargs = capsa__json_dumps(atext, JSON_ENCODE_ANY);
    sbuf code = { 0 };
    sb_str(&code, "return await tools.call(");
    sb_str(&code, qname ? qname : "\"\"");
    sb_str(&code, ", ");
    sb_str(&code, qargs ? qargs : "\"{}\"");
    sb_str(&code, ")");
    free(args_text);
    free(qname);
    free(qargs);
    json_decref(name);
    json_decref(atext);
    if (!begin_run(ss, j) || code.failed) {
        sb_free(&code);
        return NULL;
    }
    const capsa_result *r = NULL;
    double t0 = now_ms();
    int rc = capsa_run(ss->sb, code.data, code.len, "<mcp>", &r);
    ss->run_rc = rc;
    ss->run_r = r;
    ss->run_ms = now_ms() - t0;
    sb_free(&code);
    sbuf text = { 0 };
    if (rc == CAPSA_OK) {
        json_t *value = parse_value(capsa_result_value(r));
        char *pretty = value ? capsa__json_dumps(value, JSON_INDENT(2) | JSON_ENCODE_ANY) : NULL;
        sb_str(&text, pretty ? pretty : "null");
        free(pretty);
        json_decref(value);
    } else if (rc == CAPSA_ESCRIPT && capsa_result_error_code(r)) {
        sb_str(&text, capsa_result_error_code(r));
        sb_str(&text, ": ");
        sb_str(&text, capsa_result_error_message(r) ? capsa_result_error_message(r) : "");
    } else {
        error_text(&text, ss->sb, rc, r);
    }
    sbuf shown = { 0 };
    if (sb_utf8(&shown, text.data ? text.data : "", text.len, ss->srv->cfg.max_text)) {
        char marker[96];
        snprintf(marker, sizeof(marker), "\n[capsa: the text is cut at %zu bytes]",
                 ss->srv->cfg.max_text);
        sb_str(&shown, marker);
    }
    json_t *res = tool_result(shown.data ? shown.data : "", shown.len, NULL, rc != CAPSA_OK);
    sb_free(&text);
    sb_free(&shown);
    return res;
}

/* ---- resources (worker) ------------------------------------------------------------ */

static const char *mime_of(const char *path, int text)
{
    static const char *const map[][2] = {
        { ".json", "application/json" }, { ".js", "text/javascript" }, { ".mjs", "text/javascript" },
        { ".ts", "text/typescript" },    { ".md", "text/markdown" },   { ".csv", "text/csv" },
        { ".html", "text/html" },        { ".css", "text/css" },       { ".xml", "application/xml" },
        { ".svg", "image/svg+xml" },     { ".png", "image/png" },      { ".jpg", "image/jpeg" },
        { ".jpeg", "image/jpeg" },       { ".gif", "image/gif" },      { ".pdf", "application/pdf" },
        { ".jsonl", "application/jsonl" }, { ".yaml", "application/yaml" }, { ".sh", "text/x-shellscript" },
    };
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    for (size_t i = 0; dot && dot > slash && i < sizeof(map) / sizeof(map[0]); i++) {
        if (strcasecmp(dot, map[i][0]) == 0)
            return map[i][1];
    }
    return text ? "text/plain" : "application/octet-stream";
}

/* file:///workspace/<path>, the path percent-encoded (all but unreserved and '/'). */
static void uri_of(sbuf *b, const char *path)
{
    sb_str(b, "file://");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p)) {
            sb_put(b, (const char *)p, 1);
        } else {
            char e[4];
            snprintf(e, sizeof(e), "%%%02X", *p);
            sb_put(b, e, 3);
        }
    }
}

typedef struct walk {
    json_t *files;   /* [path, size] of every file, in name order, depth first */
    sbuf dirs;       /* subdirectories of the directory being listed, NUL-separated */
    const char *dir;
} walk;

static int walk_entry(void *ud, const char *name, const capsa_file_info *info)
{
    walk *w = ud;
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s", w->dir, name);
    if (info->type == CAPSA_DIRECTORY)
        sb_put(&w->dirs, path, strlen(path) + 1);
    else if (info->type == CAPSA_FILE)
        json_array_append_new(w->files, json_pack("[s, I]", path, (json_int_t)info->size));
    return 0;
}

static void walk_dir(capsa_sandbox *sb, json_t *files, const char *dir, int depth)
{
    walk w = { files, { 0 }, dir };
    if (depth > 64 || capsa_fs_list(sb, dir, walk_entry, &w) != CAPSA_OK) {
        sb_free(&w.dirs);
        return;
    }
    for (size_t i = 0; i < w.dirs.len; i += strlen(w.dirs.data + i) + 1)
        walk_dir(sb, files, w.dirs.data + i, depth + 1);
    sb_free(&w.dirs);
}

static json_t *resources_list(mcp_session *ss, job *j, json_t **error)
{
    json_t *cursor = json_object_get(j->params, "cursor");
    size_t start = 0;
    if (cursor) {
        char *end = NULL;
        const char *c = json_string_value(cursor);
        unsigned long long n = c ? strtoull(c, &end, 10) : 0;
        if (!c || !*c || *end || n > 1000000) {
            *error = jrpc_error(j->id, JRPC_INVALID_PARAMS, "Invalid params: unknown cursor", NULL);
            return NULL;
        }
        start = (size_t)n;
    }
    json_t *files = json_array();
    walk_dir(ss->sb, files, "/workspace", 0);
    json_t *list = json_array();
    size_t i;
    json_t *f;
    json_array_foreach(files, i, f) {
        if (i < start)
            continue;
        if (i >= start + RESOURCES_PAGE)
            break;
        const char *path = json_string_value(json_array_get(f, 0));
        sbuf uri = { 0 };
        uri_of(&uri, path);
        json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:I}", "uri", uri.data ? uri.data : "",
                                              "name", path + strlen("/workspace/"), "mimeType",
                                              mime_of(path, 1), "size",
                                              json_integer_value(json_array_get(f, 1))));
        sb_free(&uri);
    }
    json_t *res = json_pack("{s:o}", "resources", list);
    if (res && json_array_size(files) > start + RESOURCES_PAGE) {
        char next[32];
        snprintf(next, sizeof(next), "%zu", start + RESOURCES_PAGE);
        json_object_set_new(res, "nextCursor", json_string(next));
    }
    json_decref(files);
    return res;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The guest path of a resource URI, or NULL when it does not name a file under
 * /workspace in plain segments (no ".", "..", empty segment or NUL). The caller
 * frees it. */
static char *resource_path(const char *uri)
{
    static const char prefix[] = "file:///workspace/";
    if (strncmp(uri, prefix, sizeof(prefix) - 1) != 0)
        return NULL;
    size_t n = strlen(uri);
    char *path = malloc(n + 1);
    if (!path)
        return NULL;
    size_t k = 0;
    for (const char *p = uri + strlen("file://"); *p; p++) {
        if (*p == '%') {
            int hi = hexval(p[1]), lo = hi >= 0 ? hexval(p[2]) : -1;
            if (lo < 0 || (hi == 0 && lo == 0)) {
                free(path);
                return NULL;
            }
            path[k++] = (char)(hi * 16 + lo);
            p += 2;
        } else if (*p == '?' || *p == '#') {
            free(path);
            return NULL;
        } else {
            path[k++] = *p;
        }
    }
    path[k] = '\0';
    for (char *seg = path + strlen("/workspace/");;) {
        char *slash = strchr(seg, '/');
        size_t len = slash ? (size_t)(slash - seg) : strlen(seg);
        if (len == 0 || (len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.')) {
            free(path);
            return NULL;
        }
        if (!slash)
            break;
        seg = slash + 1;
    }
    return path;
}

/* Whether every component of path below /workspace is a plain directory and the
 * last a file: a symlink, which could name something outside /workspace, is not
 * followed. */
static int plain_file(capsa_sandbox *sb, char *path)
{
    for (char *p = path + strlen("/workspace/");; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            capsa_file_info info;
            memset(&info, 0, sizeof(info));
            info.struct_size = sizeof(info);
            int rc = capsa_fs_stat(sb, path, &info);
            *p = c;
            if (rc != CAPSA_OK || info.type != (c ? CAPSA_DIRECTORY : CAPSA_FILE))
                return 0;
            if (!c)
                return 1;
        }
    }
}

static json_t *resources_read(mcp_session *ss, job *j, json_t **error)
{
    const char *uri = json_string_value(json_object_get(j->params, "uri"));
    if (!uri) {
        *error = jrpc_error(j->id, JRPC_INVALID_PARAMS, "Invalid params: uri must be a string", NULL);
        return NULL;
    }
    char *path = resource_path(uri);
    char *data = NULL;
    size_t len = 0;
    capsa_file_info info;
    memset(&info, 0, sizeof(info));
    info.struct_size = sizeof(info);
    if (!path || !plain_file(ss->sb, path) || capsa_fs_stat(ss->sb, path, &info) != CAPSA_OK) {
        free(path);
        *error = jrpc_error(j->id, MCP_RESOURCE_NOT_FOUND,
                            "Resource not found: not a file under file:///workspace/",
                            json_pack("{s:s}", "uri", uri));
        return NULL;
    }
    if (info.size > MAX_RESOURCE_BYTES) {
        free(path);
        char msg[128];
        snprintf(msg, sizeof(msg), "the file is %llu bytes, over the limit of %u for a resource",
                 (unsigned long long)info.size, MAX_RESOURCE_BYTES);
        *error = jrpc_error(j->id, JRPC_INVALID_PARAMS, msg, json_pack("{s:s}", "uri", uri));
        return NULL;
    }
    if (capsa_fs_read(ss->sb, path, &data, &len) != CAPSA_OK) {
        *error = jrpc_error(j->id, MCP_RESOURCE_NOT_FOUND, capsa_errmsg(ss->sb),
                            json_pack("{s:s}", "uri", uri));
        free(path);
        return NULL;
    }
    int text = valid_utf8(data, len);
    json_t *content;
    if (text) {
        content = json_pack("{s:s, s:s, s:s%}", "uri", uri, "mimeType", mime_of(path, 1), "text",
                            data, len);
    } else {
        sbuf b = { 0 };
        base64(&b, (const unsigned char *)data, len);
        content = json_pack("{s:s, s:s, s:s%}", "uri", uri, "mimeType", mime_of(path, 0), "blob",
                            b.data ? b.data : "", b.len);
        sb_free(&b);
    }
    capsa_free(data);
    free(path);
    return json_pack("{s:[o]}", "contents", content);
}

/* ---- the worker --------------------------------------------------------------------- */

static void *worker_main(void *arg)
{
    mcp_session *ss = arg;
    pthread_mutex_lock(&ss->lock);
    for (;;) {
        while (!ss->q_head && !ss->closing)
            pthread_cond_wait(&ss->cv, &ss->lock);
        if (ss->closing)
            break;
        job *j = ss->q_head;
        ss->q_head = j->next;
        if (!ss->q_head)
            ss->q_tail = NULL;
        ss->queued--;
        ss->running = j;
        pthread_mutex_unlock(&ss->lock);
        json_t *error = NULL, *result = NULL;
        void *token = NULL;
        if (ss->srv->cfg.borrow) {
            char why[512] = "";
            capsa_sandbox *sb = NULL;
            if (ss->srv->cfg.borrow(ss->srv->cfg.borrow_ud, ss->id, on_output, on_audit, ss, &sb,
                                    &token, why, sizeof(why)) != 0) {
                error = jrpc_error(j->id, JRPC_INTERNAL_ERROR, why, NULL);
            } else {
                pthread_mutex_lock(&ss->lock);
                ss->sb = sb;
                pthread_mutex_unlock(&ss->lock);
            }
        }
        ss->run_rc = -1;
        ss->run_r = NULL;
        ss->run_ms = 0;
        if (!error && ss->srv->cfg.refresh)
            ss->srv->cfg.refresh(ss->srv->cfg.setup_ud, ss->sb, &ss->tools_generation);
        if (!error) {
            switch (j->kind) {
            case JOB_EXECUTE: result = run_execute(ss, j, &error); break;
            case JOB_HOST_TOOL: result = run_host_tool(ss, j); break;
            case JOB_RESOURCES_LIST: result = resources_list(ss, j, &error); break;
            default: result = resources_read(ss, j, &error); break;
            }
        }
        if (token) {
            pthread_mutex_lock(&ss->lock);
            ss->sb = NULL;
            pthread_mutex_unlock(&ss->lock);
            char why[512] = "";
            if (ss->srv->cfg.give_back(ss->srv->cfg.borrow_ud, token, ss->run_rc, ss->run_r,
                                       ss->run_ms / 1000, why, sizeof(why)) != 0 && !error) {
                json_decref(result);
                result = NULL;
                error = jrpc_error(j->id, JRPC_INTERNAL_ERROR, why, NULL);
            }
        }
        pthread_mutex_lock(&ss->lock);
        ss->running = NULL;
        int cancelled = j->cancelled;
        jrpc_ids_take(ss->inflight, j->id);
        pthread_mutex_unlock(&ss->lock);
        if (cancelled) {
            json_decref(result);
            json_decref(error);
            emit(j->sink, NULL, 1);
        } else if (error) {
            json_decref(result);
            emit(j->sink, error, 1);
        } else {
            emit(j->sink, result ? jrpc_result(j->id, result)
                                 : jrpc_error(j->id, JRPC_INTERNAL_ERROR, "out of memory", NULL),
                 1);
        }
        job_free(j);
        pthread_mutex_lock(&ss->lock);
        if (!ss->q_head)
            pthread_cond_broadcast(&ss->cv); /* mcp_session_drain */
    }
    pthread_mutex_unlock(&ss->lock);
    return NULL;
}

/* ---- dispatch ------------------------------------------------------------------------ */

static json_t *invalid_params(const json_t *id, const char *why)
{
    char msg[256];
    snprintf(msg, sizeof(msg), "Invalid params: %s", why);
    return jrpc_error(id, JRPC_INVALID_PARAMS, msg, NULL);
}

static json_t *initialize(mcp_session *ss, const jrpc_msg *m)
{
    json_t *p = m->params;
    json_t *version = json_object_get(p, "protocolVersion");
    json_t *caps = json_object_get(p, "capabilities"), *info = json_object_get(p, "clientInfo");
    if (!json_is_object(p) || !json_is_string(version))
        return invalid_params(m->id, "initialize needs an object with a string protocolVersion");
    if ((caps && !json_is_object(caps)) || (info && !json_is_object(info)))
        return invalid_params(m->id, "capabilities and clientInfo must be objects");
    pthread_mutex_lock(&ss->lock);
    if (ss->initialized) {
        pthread_mutex_unlock(&ss->lock);
        return jrpc_error(m->id, JRPC_INVALID_REQUEST, "Invalid Request: the session is already "
                                                       "initialized", NULL);
    }
    const char *v = json_string_value(version);
    snprintf(ss->version, sizeof(ss->version), "%s", mcp_version_supported(v) ? v : MCP_LATEST_VERSION);
    ss->initialized = 1;
    pthread_mutex_unlock(&ss->lock);
    json_t *result = json_pack(
        "{s:s, s:{s:{s:b}, s:{s:b, s:b}, s:{}}, s:{s:s, s:s, s:s}, s:s}", "protocolVersion",
        ss->version, "capabilities", "tools", "listChanged", 0, "resources", "subscribe", 0,
        "listChanged", 0, "logging", "serverInfo", "name", "capsa", "title",
        "capsa: code mode in a capability-secured sandbox", "version", ss->srv->server_version,
        "instructions",
        "Use the code tool to run JavaScript (or shell) in a sandbox that can call the granted "
        "host tools; its description declares them. Files the code writes under /workspace are "
        "resources.");
    if (result && strcmp(ss->version, "2025-03-26") == 0) /* title came with 2025-06-18 */
        json_object_del(json_object_get(result, "serverInfo"), "title");
    return jrpc_result(m->id, result);
}

static json_t *set_level(mcp_session *ss, const jrpc_msg *m)
{
    const char *level = json_string_value(json_object_get(m->params, "level"));
    for (int i = 0; level && i < (int)(sizeof(log_levels) / sizeof(log_levels[0])); i++) {
        if (strcmp(level, log_levels[i]) == 0) {
            __atomic_store_n(&ss->log_level, i, __ATOMIC_RELAXED);
            return jrpc_result(m->id, json_object());
        }
    }
    return invalid_params(m->id, "level must be one of debug, info, notice, warning, error, "
                                 "critical, alert, emergency");
}

static json_t *templates_list(const jrpc_msg *m)
{
    return jrpc_result(m->id, json_pack("{s:[{s:s, s:s, s:s, s:s}]}", "resourceTemplates",
                                        "uriTemplate", "file:///workspace/{+path}", "name",
                                        "workspace", "title", "A file under /workspace",
                                        "description",
                                        "A file the code wrote (or was given) in the session's "
                                        "/workspace; path is relative to it"));
}

/* Queues a request for the worker; returns an error to answer now, or NULL when
 * the worker will answer. */
static json_t *enqueue(mcp_session *ss, const jrpc_msg *m, int kind, const exposed *tool,
                       mcp_sink *sink)
{
    job *j = calloc(1, sizeof(*j));
    if (!j || !(j->id = json_deep_copy(m->id))) {
        free(j);
        return jrpc_error(m->id, JRPC_INTERNAL_ERROR, "out of memory", NULL);
    }
    j->kind = kind;
    j->tool = tool;
    j->params = json_incref(m->params);
    json_t *meta = json_object_get(m->params, "_meta");
    json_t *token = json_object_get(meta, "progressToken");
    if (json_is_string(token) || json_is_integer(token))
        j->progress_token = token;
    pthread_mutex_lock(&ss->lock);
    const char *why = NULL;
    int added = -1;
    if (ss->queued >= ss->srv->cfg.max_queue)
        why = "too many requests are queued in this session";
    else if ((added = jrpc_ids_add(ss->inflight, m->id, j)) == 1)
        why = "Invalid Request: the request id is already in use by a pending request";
    else if (added < 0)
        why = "out of memory";
    if (why) {
        pthread_mutex_unlock(&ss->lock);
        job_free(j);
        return jrpc_error(m->id, added == 1 ? JRPC_INVALID_REQUEST : JRPC_INTERNAL_ERROR, why, NULL);
    }
    j->seq = ++ss->seq;
    mcp_sink_hold(sink);
    j->sink = sink;
    if (ss->q_tail)
        ss->q_tail->next = j;
    else
        ss->q_head = j;
    ss->q_tail = j;
    ss->queued++;
    pthread_cond_signal(&ss->cv);
    pthread_mutex_unlock(&ss->lock);
    return NULL;
}

static json_t *tools_call(mcp_session *ss, const jrpc_msg *m, mcp_sink *sink)
{
    json_t *p = m->params;
    const char *name = json_string_value(json_object_get(p, "name"));
    json_t *args = json_object_get(p, "arguments");
    if (!json_is_object(p) || !name)
        return invalid_params(m->id, "tools/call needs an object with a string name");
    if (args && !json_is_object(args))
        return invalid_params(m->id, "arguments must be an object");
    if (strcmp(name, ss->srv->tool_name) == 0)
        return enqueue(ss, m, JOB_EXECUTE, NULL, sink);
    for (size_t i = 0; i < ss->srv->n_exposed; i++) {
        if (strcmp(name, ss->srv->exposed[i].mcp_name) == 0)
            return enqueue(ss, m, JOB_HOST_TOOL, &ss->srv->exposed[i], sink);
    }
    char why[200];
    snprintf(why, sizeof(why), "unknown tool '%.100s'", name);
    return invalid_params(m->id, why);
}

/* notifications/cancelled: a queued request is dropped, running code is
 * interrupted; neither is answered. */
static void cancel(mcp_session *ss, const jrpc_msg *m)
{
    json_t *id = json_object_get(m->params, "requestId");
    pthread_mutex_lock(&ss->lock);
    job *j = jrpc_ids_get(ss->inflight, id);
    if (!j) {
        pthread_mutex_unlock(&ss->lock);
        return;
    }
    j->cancelled = 1;
    if (ss->running == j) {
        interrupt_job(ss, j->seq);
        pthread_mutex_unlock(&ss->lock);
        return;
    }
    for (job **p = &ss->q_head, *prev = NULL; *p; prev = *p, p = &(*p)->next) {
        if (*p == j) {
            *p = j->next;
            if (ss->q_tail == j)
                ss->q_tail = prev;
            ss->queued--;
            break;
        }
    }
    jrpc_ids_take(ss->inflight, id);
    pthread_mutex_unlock(&ss->lock);
    emit(j->sink, NULL, 1);
    job_free(j);
}

/* Handles one classified message; *requests counts the answers it will give. */
static void handle_one(mcp_session *ss, json_t *msg, mcp_sink *sink, mcp_handled *info)
{
    jrpc_msg m;
    jrpc_kind kind = jrpc_classify(msg, &m);
    if (kind == JRPC_RESPONSE)
        return; /* this server sends no requests: nothing waits for an answer */
    if (kind == JRPC_INVALID) {
        info->requests++;
        emit(sink, jrpc_error(m.id, m.error_code, m.error_message, NULL), 1);
        return;
    }
    if (kind == JRPC_NOTIFICATION) {
        if (strcmp(m.method, "notifications/cancelled") == 0)
            cancel(ss, &m);
        return; /* notifications/initialized and others need nothing */
    }
    info->requests++;
    json_t *answer = NULL;
    pthread_mutex_lock(&ss->lock);
    int ready = ss->initialized, reused = jrpc_ids_get(ss->inflight, m.id) != NULL;
    pthread_mutex_unlock(&ss->lock);
    if (reused) {
        answer = jrpc_error(m.id, JRPC_INVALID_REQUEST,
                            "Invalid Request: the request id is already in use by a pending "
                            "request", NULL);
    } else if (strcmp(m.method, "initialize") == 0) {
        info->initialize = 1;
        answer = initialize(ss, &m);
    } else if (strcmp(m.method, "ping") == 0) {
        answer = jrpc_result(m.id, json_object());
    } else if (!ready) {
        answer = jrpc_error(m.id, JRPC_INVALID_REQUEST,
                            "Invalid Request: the session is not initialized: send initialize "
                            "first", NULL);
    } else if (m.params && !json_is_object(m.params)) {
        answer = invalid_params(m.id, "params must be an object");
    } else if (strcmp(m.method, "tools/list") == 0) {
        json_t *cursor = json_object_get(m.params, "cursor");
        answer = cursor && !json_is_string(cursor)
                     ? invalid_params(m.id, "cursor must be a string")
                     : jrpc_result(m.id, json_deep_copy(ss->srv->tools_list));
    } else if (strcmp(m.method, "tools/call") == 0) {
        json_t *meta = json_object_get(m.params, "_meta");
        if (ss->srv->cfg.log_output || json_object_get(meta, "progressToken"))
            info->streamable = 1;
        answer = tools_call(ss, &m, sink);
    } else if (strcmp(m.method, "resources/list") == 0) {
        answer = enqueue(ss, &m, JOB_RESOURCES_LIST, NULL, sink);
    } else if (strcmp(m.method, "resources/read") == 0) {
        answer = json_is_string(json_object_get(m.params, "uri"))
                     ? enqueue(ss, &m, JOB_RESOURCES_READ, NULL, sink)
                     : invalid_params(m.id, "resources/read needs a string uri");
    } else if (strcmp(m.method, "resources/templates/list") == 0) {
        answer = templates_list(&m);
    } else if (strcmp(m.method, "logging/setLevel") == 0) {
        answer = set_level(ss, &m);
    } else {
        char why[200];
        snprintf(why, sizeof(why), "Method not found: %.120s", m.method);
        answer = jrpc_error(m.id, JRPC_METHOD_NOT_FOUND, why, NULL);
    }
    if (answer)
        emit(sink, answer, 1);
}

void mcp_session_handle(mcp_session *ss, const char *text, size_t len, mcp_sink *sink,
                        mcp_handled *info)
{
    mcp_handled local;
    if (!info)
        info = &local;
    memset(info, 0, sizeof(*info));
    /* Batches (2025-03-26 only) are refused with -32600: the later revisions
       removed them, and clients do not send them. */
    jrpc_limits limits = { ss->srv->cfg.max_message, 0, 0 };
    json_t *error = NULL;
    json_t *root = jrpc_parse(text, len, &limits, &error);
    if (!root) {
        info->requests = 1;
        emit(sink, error, 1);
        return;
    }
    mcp_sink_hold(sink); /* answers from the worker may come while this runs */
    handle_one(ss, root, sink, info);
    mcp_sink_drop(sink);
    json_decref(root);
}

int mcp_is_initialize(const char *text, size_t len)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    jrpc_msg m;
    int yes = root && jrpc_classify(root, &m) == JRPC_REQUEST && strcmp(m.method, "initialize") == 0;
    json_decref(root);
    return yes;
}
