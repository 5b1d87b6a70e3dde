/* The MCP client (include/capsa_net.h): upstream MCP servers, as stdio children or
 * Streamable HTTP endpoints (mcp_client_http.c), whose tools are registered in
 * sandboxes as host tools. Here: the mcpServers configuration, the tools' names,
 * the children (spawned without a shell, read by a thread each), requests and
 * their answers, cancellation, the servers' lifecycle (start, death, restart with
 * backoff, list refresh) and the mapping of tool results. */
#define _GNU_SOURCE
#include "mcp_client.h"
#include "../src/json_write.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_START_TIMEOUT_MS 30000
#define DEFAULT_CALL_TIMEOUT_MS 60000
#define DEFAULT_MAX_MESSAGE (32u << 20)
#define MAX_SERVERS 64
#define MAX_TOOLS_PER_SERVER 2000
#define MAX_LIST_PAGES 1000
/* Longest server namespace; tool names are at most 128 bytes in all. */
#define NS_MAX 48
#define NAME_MAX_BYTES 128
/* What a server's stderr and log messages may pass to on_log over its life. */
#define LOG_BUDGET (8u << 20)
#define LOG_LINE_MAX 4096
/* Messages dropped (invalid, unknown ids) that are logged one by one. */
#define BAD_LOGGED 20
/* Restart delays: the first, the longest, and how long a server must have run for
 * its next death to count as a first one again. */
#define BACKOFF_FIRST_MS 200
#define BACKOFF_MAX_MS 30000
#define BACKOFF_RESET_MS 30000
/* How long a stopping child gets after its stdin closes, then after SIGTERM. */
#define STOP_GRACE_MS 500
#define TERM_GRACE_MS 1000
/* A short wait, for notifications and declined requests. */
#define SHORT_SEND_MS 1000

static const char *const versions[] = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05" };

/* One upstream tool, as registered. Never freed before the client (sandboxes
 * hold it as their tool's ud). name, remote and up are immutable; the rest is
 * guarded by the client's lock. */
typedef struct mcpc_tool {
    mcpc_up *up;
    char *remote;      /* the server's name for it */
    char *name;        /* capsa's: "S.T" */
    char *flat;        /* its flat form, "S_T", to keep flat names unique */
    char *description;
    char *schema;      /* inputSchema, compact */
    char *returns;     /* outputSchema, compact, or NULL */
    uint64_t generation;
    int gone;          /* no longer listed */
    int listed;        /* in the listing being read */
} mcpc_tool;

struct capsa_mcp_client {
    capsa_mcp_options opts;
    pthread_mutex_t lock;   /* the servers' list, the tools, generation, errmsg */
    pthread_cond_t kcv;     /* wakes the keeper */
    mcpc_up *ups[MAX_SERVERS];
    size_t n_ups;
    mcpc_tool **tools;
    size_t n_tools, cap_tools;
    uint64_t generation;
    pthread_t keeper;       /* refreshes lists on tools/list_changed */
    int keeper_running, stop;
    int refreshing;         /* the keeper is listing a server */
    char errmsg[1024];
};

/* An answer waited for. */
typedef struct mcpc_pending {
    json_t *response; /* the whole message */
    int done;
    char error[512];  /* done without a response: why */
} mcpc_pending;

uint64_t mcpc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

size_t mcpc_max_message(const mcpc_up *up)
{
    return (size_t)up->client->opts.max_message;
}

static void set_errmsg(capsa_mcp_client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_errmsg(capsa_mcp_client *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&c->lock);
    vsnprintf(c->errmsg, sizeof(c->errmsg), fmt, ap);
    pthread_mutex_unlock(&c->lock);
    va_end(ap);
}

void mcpc_log(mcpc_up *up, int kind, const char *text, size_t len)
{
    const capsa_mcp_options *o = &up->client->opts;
    if (!o->on_log)
        return;
    if (len > LOG_LINE_MAX)
        len = LOG_LINE_MAX;
    if (kind == CAPSA_MCP_LOG_STDERR || kind == CAPSA_MCP_LOG_MESSAGE) {
        pthread_mutex_lock(&up->lock);
        uint64_t before = up->log_bytes;
        up->log_bytes += len;
        pthread_mutex_unlock(&up->lock);
        if (before >= LOG_BUDGET)
            return;
        if (before + len >= LOG_BUDGET) {
            static const char note[] = "the server's stderr and log messages are over 8 MiB: the "
                                       "rest is dropped";
            o->on_log(o->on_log_ud, up->name, CAPSA_MCP_LOG_EVENT, note, sizeof(note) - 1);
            return;
        }
    }
    o->on_log(o->on_log_ud, up->name, kind, text, len);
}

void mcpc_logf(mcpc_up *up, int kind, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n > 0)
        mcpc_log(up, kind, line, strlen(line));
}

/* A dropped message: logged the first BAD_LOGGED times. */
static void bad_message(mcpc_up *up, const char *what)
{
    pthread_mutex_lock(&up->lock);
    uint64_t n = ++up->bad_messages;
    pthread_mutex_unlock(&up->lock);
    if (n < BAD_LOGGED)
        mcpc_logf(up, CAPSA_MCP_LOG_EVENT, "dropped a message: %s", what);
    else if (n == BAD_LOGGED)
        mcpc_logf(up, CAPSA_MCP_LOG_EVENT, "dropped a message: %s (further ones are not logged)", what);
}

int mcpc_wait_over(mcpc_up *up, const mcpc_wait *w)
{
    if (__atomic_load_n(&up->stopping, __ATOMIC_ACQUIRE))
        return MCPC_STOPPING;
    if (w->reply && capsa_tool_reply_cancelled(w->reply))
        return MCPC_CANCELLED;
    if (mcpc_now_ms() >= w->deadline_ms)
        return MCPC_TIMED_OUT;
    return MCPC_GO_ON;
}

/* The time ms from now on clock, as the pthread timed waits take it. */
static struct timespec time_in(clockid_t clock, uint64_t ms)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    ts.tv_sec += (time_t)(ms / 1000);
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

/* Waits on up->cv (held) for at most ms. */
static void cv_wait_ms(mcpc_up *up, uint64_t ms)
{
    struct timespec ts = time_in(CLOCK_MONOTONIC, ms);
    pthread_cond_timedwait(&up->cv, &up->lock, &ts);
}

static void free_strv(char **v)
{
    for (char **p = v; p && *p; p++)
        free(*p);
    free(v);
}

/* ---- configuration ------------------------------------------------------------------- */

/* s made a JS identifier of at most max bytes: characters outside [A-Za-z0-9_]
 * become '_', a leading digit gets '_' before it, an empty name is "_". */
static void identifier(const char *s, char *out, size_t max)
{
    size_t n = 0;
    if (*s >= '0' && *s <= '9')
        out[n++] = '_';
    for (; *s && n < max; s++) {
        unsigned char ch = (unsigned char)*s;
        int word = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        out[n++] = word ? (char)ch : '_';
    }
    if (n == 0)
        out[n++] = '_';
    out[n] = '\0';
}

static void up_free(mcpc_up *up)
{
    if (!up)
        return;
    free(up->name);
    free(up->ns);
    free_strv(up->argv);
    free_strv(up->envp);
    free(up->cwd);
    free(up->url);
    free_strv(up->headers);
    free(up->session_id);
    json_decref(up->server_info);
    jrpc_ids_free(up->pending);
    pthread_mutex_destroy(&up->lock);
    pthread_mutex_destroy(&up->wlock);
    pthread_cond_destroy(&up->cv);
    free(up);
}

/* The executable that name names on the search path path ("a:b:c"), as a new
 * string; a name with a '/' is taken as it is. NULL when none is found. */
static char *find_program(const char *name, const char *path)
{
    if (strchr(name, '/'))
        return strdup(name);
    for (const char *p = path; p && *p;) {
        size_t n = strcspn(p, ":");
        char buf[4096];
        if (n > 0 && n + strlen(name) + 2 < sizeof(buf)) {
            snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, name);
            struct stat st;
            if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
                return strdup(buf);
        }
        p += n;
        if (*p == ':')
            p++;
    }
    return NULL;
}

/* The string value of the environment entry "NAME=value" in envp, or NULL. */
static const char *env_get(char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (; envp && *envp; envp++) {
        if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=')
            return *envp + n + 1;
    }
    return NULL;
}

/* Reads one server's entry into a new mcpc_up. Returns it, or NULL after putting
 * the field at fault into err. */
static mcpc_up *parse_server(const char *name, json_t *e, char *err, size_t errsize)
{
    static const char *const known[] = { "command", "args", "env", "cwd", "type", "url",
                                         "headers", "timeout_ms", "start_timeout_ms", "disabled" };
    char where[160];
    snprintf(where, sizeof(where), "mcpServers.%.100s", name);
    if (!name[0] || strlen(name) > 100) {
        snprintf(err, errsize, "mcpServers: a server's name must be 1 to 100 bytes");
        return NULL;
    }
    if (!json_is_object(e)) {
        snprintf(err, errsize, "%s: must be an object", where);
        return NULL;
    }
    const char *key;
    json_t *v;
    json_object_foreach(e, key, v) {
        size_t i = 0;
        while (i < sizeof(known) / sizeof(known[0]) && strcmp(key, known[i]) != 0)
            i++;
        if (i == sizeof(known) / sizeof(known[0])) {
            snprintf(err, errsize, "%s.%.60s: unknown field (known: command, args, env, cwd, type, "
                                   "url, headers, timeout_ms, start_timeout_ms, disabled)", where, key);
            return NULL;
        }
    }
    json_t *command = json_object_get(e, "command"), *args = json_object_get(e, "args");
    json_t *env = json_object_get(e, "env"), *cwd = json_object_get(e, "cwd");
    json_t *type = json_object_get(e, "type"), *url = json_object_get(e, "url");
    json_t *headers = json_object_get(e, "headers"), *timeout = json_object_get(e, "timeout_ms");
    json_t *disabled = json_object_get(e, "disabled");
    json_t *start_timeout = json_object_get(e, "start_timeout_ms");
    int http;
    if (type) {
        const char *t = json_string_value(type);
        if (t && strcmp(t, "stdio") == 0) {
            http = 0;
        } else if (t && (strcmp(t, "http") == 0 || strcmp(t, "streamable-http") == 0 ||
                         strcmp(t, "streamableHttp") == 0)) {
            http = 1;
        } else {
            snprintf(err, errsize, "%s.type: must be \"stdio\" or \"http\"%s", where,
                     t && strcmp(t, "sse") == 0 ? " (the older SSE transport is not supported: use "
                                                  "the server's Streamable HTTP endpoint)" : "");
            return NULL;
        }
    } else if (command && url) {
        snprintf(err, errsize, "%s: has both \"command\" and \"url\": give one (or \"type\")", where);
        return NULL;
    } else {
        http = url != NULL;
    }
    const char *bad = NULL;
    char field[40] = "";
    if (disabled && !json_is_boolean(disabled)) {
        snprintf(field, sizeof(field), "disabled");
        bad = "must be true or false";
    } else if (timeout && (!json_is_integer(timeout) || json_integer_value(timeout) < 1 ||
                           json_integer_value(timeout) > 86400000)) {
        snprintf(field, sizeof(field), "timeout_ms");
        bad = "must be a whole number of milliseconds from 1 to 86400000";
    } else if (start_timeout && (!json_is_integer(start_timeout) || json_integer_value(start_timeout) < 1 ||
                                 json_integer_value(start_timeout) > 3600000)) {
        snprintf(field, sizeof(field), "start_timeout_ms");
        bad = "must be a whole number of milliseconds from 1 to 3600000";
    } else if (http) {
        const char *u = json_string_value(url);
        if (!u) {
            snprintf(field, sizeof(field), "url");
            bad = url ? "must be a string" : "is required for an HTTP server";
        } else if (strncmp(u, "http://", 7) != 0 && strncmp(u, "https://", 8) != 0) {
            snprintf(field, sizeof(field), "url");
            bad = "must start with http:// or https://";
        } else if (strlen(u) != json_string_length(url) || strpbrk(u, " \t\r\n")) {
            snprintf(field, sizeof(field), "url");
            bad = "must not hold spaces or NUL bytes";
        } else if (command || args || env || cwd) {
            snprintf(field, sizeof(field), "%s", command ? "command" : args ? "args" : env ? "env" : "cwd");
            bad = "is for stdio servers, not HTTP ones";
        } else if (headers && !json_is_object(headers)) {
            snprintf(field, sizeof(field), "headers");
            bad = "must be an object of strings";
        }
        json_object_foreach(bad ? NULL : headers, key, v) {
            const char *s = json_string_value(v);
            if (!s || strlen(s) != json_string_length(v) || strpbrk(s, "\r\n") || !key[0] ||
                strpbrk(key, ": \t\r\n")) {
                snprintf(field, sizeof(field), "headers.%.30s", key);
                bad = "must be a string without line breaks, under a name without ':' or spaces";
                break;
            }
        }
    } else {
        const char *cmd = json_string_value(command);
        if (!cmd || !cmd[0] || strlen(cmd) != json_string_length(command)) {
            snprintf(field, sizeof(field), "command");
            bad = command ? "must be a non-empty string (a program; no shell)"
                          : "is required (or \"url\" for an HTTP server)";
        } else if (args && (!json_is_array(args) || json_array_size(args) > 1000)) {
            snprintf(field, sizeof(field), "args");
            bad = "must be an array of strings";
        } else if (env && !json_is_object(env)) {
            snprintf(field, sizeof(field), "env");
            bad = "must be an object of strings";
        } else if (cwd && (!json_is_string(cwd) || !json_string_value(cwd)[0] ||
                           strlen(json_string_value(cwd)) != json_string_length(cwd))) {
            snprintf(field, sizeof(field), "cwd");
            bad = "must be a directory's path";
        } else if (headers) {
            snprintf(field, sizeof(field), "headers");
            bad = "is for HTTP servers, not stdio ones";
        }
        size_t i;
        json_array_foreach(bad ? NULL : args, i, v) {
            if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v)) {
                snprintf(field, sizeof(field), "args[%zu]", i);
                bad = "must be a string without NUL bytes";
                break;
            }
        }
        json_object_foreach(bad ? NULL : env, key, v) {
            if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v) ||
                !key[0] || strchr(key, '=')) {
                snprintf(field, sizeof(field), "env.%.30s", key);
                bad = "must be a string, under a name without '='";
                break;
            }
        }
    }
    if (bad) {
        snprintf(err, errsize, "%s.%s: %s", where, field, bad);
        return NULL;
    }
    mcpc_up *up = calloc(1, sizeof(*up));
    if (!up) {
        snprintf(err, errsize, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&up->lock, NULL);
    pthread_mutex_init(&up->wlock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&up->cv, &ca);
    pthread_condattr_destroy(&ca);
    up->in_fd = up->out_fd = up->err_fd = up->wake[0] = up->wake[1] = -1;
    up->http = http;
    up->state = json_is_true(disabled) ? MCPC_DISABLED : MCPC_IDLE;
    up->timeout_ms = timeout ? (uint64_t)json_integer_value(timeout) : 0;
    up->start_timeout_ms = start_timeout ? (uint64_t)json_integer_value(start_timeout) : 0;
    up->name = strdup(name);
    up->pending = jrpc_ids_new();
    int nomem = !up->name || !up->pending;
    if (http) {
        up->url = strdup(json_string_value(url));
        up->headers = calloc(json_object_size(headers) + 1, sizeof(char *));
        nomem |= !up->url || !up->headers;
        size_t k = 0;
        json_object_foreach(nomem ? NULL : headers, key, v) {
            if (asprintf(&up->headers[k], "%s: %s", key, json_string_value(v)) < 0) {
                up->headers[k] = NULL;
                nomem = 1;
                break;
            }
            k++;
        }
    } else {
        size_t na = json_array_size(args), ne = json_object_size(env);
        up->argv = calloc(na + 2, sizeof(char *));
        up->envp = calloc(ne + 2, sizeof(char *));
        nomem |= !up->argv || !up->envp;
        if (!nomem) {
            up->argv[0] = strdup(json_string_value(command));
            nomem |= !up->argv[0];
            for (size_t i = 0; i < na && !nomem; i++)
                nomem |= !(up->argv[i + 1] = strdup(json_string_value(json_array_get(args, i))));
            size_t k = 0;
            json_object_foreach(nomem ? NULL : env, key, v) {
                if (asprintf(&up->envp[k], "%s=%s", key, json_string_value(v)) < 0) {
                    up->envp[k] = NULL;
                    nomem = 1;
                    break;
                }
                k++;
            }
            if (!nomem && !env_get(up->envp, "PATH")) {
                const char *path = getenv("PATH");
                if (asprintf(&up->envp[k], "PATH=%s", path && path[0] ? path : "/usr/local/bin:/usr/bin:/bin") < 0) {
                    up->envp[k] = NULL;
                    nomem = 1;
                }
            }
        }
        if (cwd && !nomem)
            nomem |= !(up->cwd = strdup(json_string_value(cwd)));
    }
    if (nomem) {
        up_free(up);
        snprintf(err, errsize, "out of memory");
        return NULL;
    }
    return up;
}

/* Whether ns is the namespace of one of the client's servers, or a name that
 * `tools` keeps for itself. Client lock held. */
static int ns_taken(const capsa_mcp_client *c, mcpc_up *const *extra, size_t n_extra, const char *ns)
{
    if (strcmp(ns, "list") == 0 || strcmp(ns, "describe") == 0 || strcmp(ns, "call") == 0)
        return 1;
    for (size_t i = 0; i < c->n_ups; i++) {
        if (strcmp(c->ups[i]->ns, ns) == 0)
            return 1;
    }
    for (size_t i = 0; i < n_extra; i++) {
        if (extra[i]->ns && strcmp(extra[i]->ns, ns) == 0)
            return 1;
    }
    return 0;
}

CAPSA_API int capsa_mcp_client_configure(capsa_mcp_client *c, const char *json, size_t len)
{
    if (!c)
        return CAPSA_EINVAL;
    if (!json) {
        set_errmsg(c, "no configuration");
        return CAPSA_EINVAL;
    }
    json_error_t jerr;
    json_t *doc = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc) {
        set_errmsg(c, "the MCP configuration is not JSON: line %d column %d: %s", jerr.line,
                   jerr.column, jerr.text);
        return CAPSA_EINVAL;
    }
    json_t *servers = json_object_get(doc, "mcpServers");
    const char *key;
    json_t *v;
    int rc = CAPSA_OK;
    json_object_foreach(doc, key, v) {
        if (strcmp(key, "mcpServers") != 0) {
            set_errmsg(c, "%.60s: unknown field (the file holds {\"mcpServers\": {NAME: {...}}})", key);
            rc = CAPSA_EINVAL;
            break;
        }
    }
    if (rc == CAPSA_OK && !json_is_object(servers)) {
        set_errmsg(c, "mcpServers: %s", servers ? "must be an object of servers by name"
                                                : "is required ({\"mcpServers\": {NAME: {...}}})");
        rc = CAPSA_EINVAL;
    }
    mcpc_up *added[MAX_SERVERS];
    size_t n_added = 0;
    char err[512];
    json_object_foreach(rc == CAPSA_OK ? servers : NULL, key, v) {
        pthread_mutex_lock(&c->lock);
        size_t have = c->n_ups;
        int dup = 0;
        for (size_t i = 0; i < c->n_ups; i++)
            dup |= strcmp(c->ups[i]->name, key) == 0;
        pthread_mutex_unlock(&c->lock);
        if (dup) {
            set_errmsg(c, "mcpServers.%.100s: a server of that name was added before", key);
            rc = CAPSA_EEXIST;
            break;
        }
        if (have + n_added >= MAX_SERVERS) {
            set_errmsg(c, "mcpServers: at most %d servers", MAX_SERVERS);
            rc = CAPSA_EINVAL;
            break;
        }
        mcpc_up *up = parse_server(key, v, err, sizeof(err));
        if (!up) {
            set_errmsg(c, "%s", err);
            rc = strcmp(err, "out of memory") == 0 ? CAPSA_ENOMEM : CAPSA_EINVAL;
            break;
        }
        up->client = c;
        added[n_added++] = up;
        /* Its namespace: the name as an identifier, made unique. */
        char base[NS_MAX + 1], ns[NS_MAX + 16];
        identifier(key, base, NS_MAX);
        snprintf(ns, sizeof(ns), "%s", base);
        pthread_mutex_lock(&c->lock);
        for (int k = 2; ns_taken(c, added, n_added - 1, ns); k++)
            snprintf(ns, sizeof(ns), "%s_%d", base, k);
        pthread_mutex_unlock(&c->lock);
        if (!(up->ns = strdup(ns))) {
            set_errmsg(c, "out of memory");
            rc = CAPSA_ENOMEM;
            break;
        }
    }
    json_decref(doc);
    if (rc != CAPSA_OK) {
        for (size_t i = 0; i < n_added; i++)
            up_free(added[i]);
        return rc;
    }
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < n_added; i++)
        c->ups[c->n_ups++] = added[i];
    pthread_mutex_unlock(&c->lock);
    return CAPSA_OK;
}

/* ---- the child of a stdio server ------------------------------------------------------- */

static int send_all(int fd, const char *p, size_t n, const mcpc_wait *w, mcpc_up *up)
{
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k > 0) {
            p += k;
            n -= (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (mcpc_wait_over(up, w) != MCPC_GO_ON)
                return -2;
            struct pollfd pf = { fd, POLLOUT, 0 };
            poll(&pf, 1, 20);
            continue;
        }
        return -1;
    }
    return 0;
}

/* Sends one message line to the server (stdio: a write of text and a newline;
 * HTTP: a POST, whose response is handled). Returns 0, -1 (err says why), or -2
 * when the server is gone. */
static int up_send(mcpc_up *up, const char *text, size_t len, const mcpc_wait *w, char *err,
                   size_t errsize)
{
    if (up->http)
        return mcpc_http_post(up, text, len, w, err, errsize);
    char *line = malloc(len + 1);
    if (!line) {
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    memcpy(line, text, len);
    line[len] = '\n';
    pthread_mutex_lock(&up->wlock);
    int rc = up->in_fd >= 0 ? send_all(up->in_fd, line, len + 1, w, up) : -1;
    pthread_mutex_unlock(&up->wlock);
    free(line);
    if (rc == -2) {
        snprintf(err, errsize, "server '%s' does not read its input: the message could not be sent "
                               "in time", up->name);
        return -1;
    }
    if (rc != 0) {
        snprintf(err, errsize, "closed its input");
        return -2;
    }
    return 0;
}

/* Sends the message msg (stolen) with a short deadline, answering nobody. */
static void send_message(mcpc_up *up, json_t *msg)
{
    size_t len;
    char *text = msg ? jrpc_dump(msg, &len) : NULL;
    json_decref(msg);
    if (!text)
        return;
    mcpc_wait w = { mcpc_now_ms() + SHORT_SEND_MS, NULL };
    char err[256];
    up_send(up, text, len, &w, err, sizeof(err));
    free(text);
}

/* Reaps the child: it has exited or closed its output. Kills what is left of its
 * process group first (while the leader is unreaped its pid cannot be reused),
 * then reaps the leader. Puts how it ended into how. Reader thread only. */
static void reap_child(mcpc_up *up, char *how, size_t howsize)
{
    siginfo_t si;
    memset(&si, 0, sizeof(si));
    for (int i = 0; i < 20; i++) {
        if (waitid(P_PID, (id_t)up->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == up->pid)
            break;
        usleep(10000);
    }
    int exited = si.si_pid == up->pid;
    kill(-up->pid, SIGKILL);
    int status = 0;
    while (waitpid(up->pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!exited)
        snprintf(how, howsize, "closed its output (it was killed)");
    else if (WIFEXITED(status))
        snprintf(how, howsize, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(how, howsize, "was killed by signal %d", WTERMSIG(status));
    else
        snprintf(how, howsize, "ended");
}

/* Appends data[0..n) to the line buffer, handling each complete line with fn.
 * Over max bytes without a newline: returns -1. */
typedef struct linebuf {
    char *data;
    size_t len, cap;
} linebuf;

static int lines_feed(linebuf *b, const char *data, size_t n, size_t max, mcpc_up *up,
                      void (*fn)(mcpc_up *, char *, size_t))
{
    while (n > 0) {
        const char *nl = memchr(data, '\n', n);
        size_t take = nl ? (size_t)(nl - data) : n;
        if (b->len + take > max)
            return -1;
        if (b->len + take + 1 > b->cap) {
            size_t c = b->cap ? b->cap : 4096;
            while (c < b->len + take + 1)
                c *= 2;
            char *d = realloc(b->data, c);
            if (!d)
                return -1;
            b->data = d;
            b->cap = c;
        }
        memcpy(b->data + b->len, data, take);
        b->len += take;
        b->data[b->len] = '\0';
        if (!nl)
            break;
        size_t l = b->len;
        if (l && b->data[l - 1] == '\r')
            b->data[--l] = '\0';
        fn(up, b->data, l);
        b->len = 0;
        data += take + 1;
        n -= take + 1;
    }
    return 0;
}

static void stdout_line(mcpc_up *up, char *line, size_t len)
{
    size_t i = 0;
    while (i < len && strchr(" \t", line[i]))
        i++;
    if (i < len)
        mcpc_dispatch_text(up, line + i, len - i);
}

static void stderr_line(mcpc_up *up, char *line, size_t len)
{
    mcpc_log(up, CAPSA_MCP_LOG_STDERR, line, len);
}

/* The reader thread of a stdio server: its stdout (messages) and stderr (log
 * lines), until its stdout ends; then it reaps the child and declares the server
 * dead (unless the client is stopping it). */
static void *reader_main(void *arg)
{
    mcpc_up *up = arg;
    linebuf out = { 0 }, errb = { 0 };
    size_t max = mcpc_max_message(up);
    char *chunk = malloc(65536);
    char why[600] = "";
    while (chunk) {
        struct pollfd p[3] = { { up->out_fd, POLLIN, 0 }, { up->err_fd, POLLIN, 0 },
                               { up->wake[0], POLLIN, 0 } };
        if (poll(p, 3, -1) < 0) {
            if (errno == EINTR)
                continue;
            snprintf(why, sizeof(why), "cannot wait for its output: %s", strerror(errno));
            break;
        }
        if (p[2].revents) {
            snprintf(why, sizeof(why), "was stopped");
            break;
        }
        if (p[1].revents && up->err_fd >= 0) {
            ssize_t r = read(up->err_fd, chunk, 65536);
            if (r <= 0) {
                close(up->err_fd);
                up->err_fd = -1;
            } else if (lines_feed(&errb, chunk, (size_t)r, LOG_LINE_MAX, up, stderr_line) != 0) {
                stderr_line(up, errb.data, errb.len); /* a long line: passed on cut */
                errb.len = 0;
            }
        }
        if (p[0].revents) {
            ssize_t r = recv(up->out_fd, chunk, 65536, 0);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            if (lines_feed(&out, chunk, (size_t)r, max, up, stdout_line) != 0) {
                snprintf(why, sizeof(why), "sent a message over %zu bytes (it was stopped)", max);
                break;
            }
        }
    }
    if (!chunk)
        snprintf(why, sizeof(why), "out of memory reading its output");
    char how[128];
    if (why[0])
        kill(-up->pid, SIGKILL); /* it broke the protocol, or the client stops it */
    reap_child(up, how, sizeof(how));
    if (!why[0])
        snprintf(why, sizeof(why), "%s", how);
    if (!__atomic_load_n(&up->stopping, __ATOMIC_ACQUIRE))
        mcpc_died(up, why);
    free(chunk);
    free(out.data);
    free(errb.data);
    return NULL;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Stops the reader of a dead or stopping child and closes its descriptors. */
static void child_teardown(mcpc_up *up)
{
    if (up->reader_running) {
        if (up->wake[1] >= 0) {
            char b = 1;
            ssize_t w = write(up->wake[1], &b, 1);
            (void)w;
        }
        pthread_join(up->reader, NULL);
        up->reader_running = 0;
    }
    pthread_mutex_lock(&up->wlock);
    close_fd(&up->in_fd);
    pthread_mutex_unlock(&up->wlock);
    close_fd(&up->out_fd);
    close_fd(&up->err_fd);
    close_fd(&up->wake[0]);
    close_fd(&up->wake[1]);
    up->pid = 0;
}

/* Waits up to ms for the reader to end (it does once the child is gone). */
static int reader_gone_within(mcpc_up *up, uint64_t ms)
{
    struct timespec ts = time_in(CLOCK_REALTIME, ms);
    if (pthread_timedjoin_np(up->reader, NULL, &ts) == 0) {
        up->reader_running = 0;
        return 1;
    }
    return 0;
}

/* Stopping a child for good, in two steps so that many stop at once: its stdin
 * is closed (a well-behaved server exits), then, past deadline_ms, SIGTERM to its
 * process group and after TERM_GRACE_MS SIGKILL; the reader reaps it. */
static void child_stop_begin(mcpc_up *up)
{
    pthread_mutex_lock(&up->wlock);
    if (up->in_fd >= 0)
        shutdown(up->in_fd, SHUT_WR);
    pthread_mutex_unlock(&up->wlock);
}

static void child_stop_end(mcpc_up *up, uint64_t deadline_ms)
{
    if (up->reader_running) {
        uint64_t now = mcpc_now_ms();
        if (!reader_gone_within(up, deadline_ms > now ? deadline_ms - now : 0)) {
            kill(-up->pid, SIGTERM);
            if (!reader_gone_within(up, TERM_GRACE_MS))
                kill(-up->pid, SIGKILL); /* the reader then sees the end of its output */
        }
    }
    child_teardown(up);
}

static void child_stop(mcpc_up *up)
{
    child_stop_begin(up);
    child_stop_end(up, mcpc_now_ms() + STOP_GRACE_MS);
}

/* Spawns the child of a stdio server and its reader. Returns 0, or -1 with err. */
static int child_start(mcpc_up *up, char *err, size_t errsize)
{
    char *prog = find_program(up->argv[0], env_get(up->envp, "PATH"));
    if (!prog) {
        snprintf(err, errsize, "cannot start '%s': not found on its PATH", up->argv[0]);
        return -1;
    }
    struct stat st;
    if (up->cwd && (stat(up->cwd, &st) != 0 || !S_ISDIR(st.st_mode))) {
        snprintf(err, errsize, "cannot start '%s': its cwd '%s' is not a directory", up->argv[0], up->cwd);
        free(prog);
        return -1;
    }
    int in[2] = { -1, -1 }, out[2] = { -1, -1 }, er[2] = { -1, -1 };
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0 ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, out) != 0 || pipe2(er, O_CLOEXEC) != 0 ||
        pipe2(up->wake, O_CLOEXEC) != 0) {
        snprintf(err, errsize, "cannot make its pipes: %s", strerror(errno));
        for (int i = 0; i < 2; i++) {
            close_fd(&in[i]);
            close_fd(&out[i]);
            close_fd(&er[i]);
            close_fd(&up->wake[i]);
        }
        free(prog);
        return -1;
    }
    /* Half-duplex: the child reads one socket and writes the other. */
    shutdown(in[1], SHUT_WR);
    shutdown(out[1], SHUT_RD);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[1], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, er[1], 2);
    if (up->cwd)
        posix_spawn_file_actions_addchdir_np(&fa, up->cwd);
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid;
    int rc = posix_spawn(&pid, prog, &fa, &at, up->argv, up->envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(in[1]);
    close(out[1]);
    close(er[1]);
    if (rc != 0) {
        snprintf(err, errsize, "cannot start '%s': %s", prog, strerror(rc));
        close(in[0]);
        close(out[0]);
        close(er[0]);
        close_fd(&up->wake[0]);
        close_fd(&up->wake[1]);
        free(prog);
        return -1;
    }
    free(prog);
    up->pid = pid;
    up->in_fd = in[0];
    up->out_fd = out[0];
    up->err_fd = er[0];
    if (pthread_create(&up->reader, NULL, reader_main, up) != 0) {
        snprintf(err, errsize, "cannot start its reader thread");
        kill(-pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
        }
        child_teardown(up);
        return -1;
    }
    up->reader_running = 1;
    return 0;
}

/* ---- requests and answers ------------------------------------------------------------ */

static void fail_pending(void *ud, const json_t *id, void *value)
{
    mcpc_pending *p = value;
    if (!p->done) {
        snprintf(p->error, sizeof(p->error), "%s", (const char *)ud);
        p->done = 1;
    }
}

void mcpc_died(mcpc_up *up, const char *why)
{
    pthread_mutex_lock(&up->lock);
    if (up->state != MCPC_READY && up->state != MCPC_STARTING) {
        pthread_mutex_unlock(&up->lock);
        return;
    }
    int was_ready = up->state == MCPC_READY;
    up->state = MCPC_DEAD;
    snprintf(up->error, sizeof(up->error), "server '%s' %s", up->name, why);
    uint64_t now = mcpc_now_ms();
    if (now - up->started_ms >= BACKOFF_RESET_MS || up->session_lost)
        up->crashes = 0; /* an HTTP session that ended is no crash: a new one at once */
    up->crashes += !up->session_lost;
    uint64_t delay = up->session_lost ? 0 : BACKOFF_FIRST_MS;
    for (unsigned i = 1; i < up->crashes && delay < BACKOFF_MAX_MS; i++)
        delay *= 2;
    if (delay > BACKOFF_MAX_MS)
        delay = BACKOFF_MAX_MS;
    up->next_start_ms = now + delay;
    jrpc_ids_each(up->pending, fail_pending, up->error);
    pthread_cond_broadcast(&up->cv);
    char msg[sizeof(up->error) + 128];
    snprintf(msg, sizeof(msg), "%s; it is started again on its next call, after a backoff of %llu ms",
             up->error, (unsigned long long)delay);
    pthread_mutex_unlock(&up->lock);
    if (was_ready) /* a start that fails is reported by its starter */
        mcpc_log(up, CAPSA_MCP_LOG_EVENT, msg, strlen(msg));
}

/* The outcome of a request. */
enum { REQ_OK = 0, REQ_FAILED, REQ_GONE, REQ_CANCELLED, REQ_TIMED_OUT };

/* Sends the request method with params (JSON text, or NULL) and waits for its
 * answer. any_state lets it go out while the server starts. REQ_OK with
 * *response (the whole message; the caller decrefs it), or another outcome with
 * err. A request given up on (cancelled, timed out) is cancelled upstream. */
static int up_request(mcpc_up *up, const char *method, const char *params, int any_state,
                      const mcpc_wait *w, json_t **response, char *err, size_t errsize)
{
    *response = NULL;
    mcpc_pending p;
    memset(&p, 0, sizeof(p));
    pthread_mutex_lock(&up->lock);
    if (!(up->state == MCPC_READY || (any_state && up->state == MCPC_STARTING))) {
        snprintf(err, errsize, "%s", up->error[0] ? up->error : "the server is not running");
        pthread_mutex_unlock(&up->lock);
        return REQ_GONE;
    }
    json_int_t n = ++up->next_id;
    json_t *id = json_integer(n);
    int added = id ? jrpc_ids_add(up->pending, id, &p) : -1;
    pthread_mutex_unlock(&up->lock);
    char *text = NULL;
    size_t len = 0;
    if (added == 0) {
        const char *sep = params ? ",\"params\":" : "";
        int k = asprintf(&text, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"%s\"%s%s}", (long long)n,
                         method, sep, params ? params : "");
        if (k < 0)
            text = NULL;
        len = text ? (size_t)k : 0;
    }
    if (!text) {
        pthread_mutex_lock(&up->lock);
        if (added == 0)
            jrpc_ids_take(up->pending, id);
        pthread_mutex_unlock(&up->lock);
        json_decref(id);
        snprintf(err, errsize, "out of memory");
        return REQ_FAILED;
    }
    int sent = up_send(up, text, len, w, err, errsize);
    free(text);
    int over = MCPC_GO_ON;
    pthread_mutex_lock(&up->lock);
    while (sent == 0 && !p.done && (over = mcpc_wait_over(up, w)) == MCPC_GO_ON)
        cv_wait_ms(up, 20);
    jrpc_ids_take(up->pending, id);
    pthread_mutex_unlock(&up->lock);
    json_decref(id);
    if (sent == -2) {
        mcpc_died(up, err);
        pthread_mutex_lock(&up->lock);
        snprintf(err, errsize, "%s", up->error);
        pthread_mutex_unlock(&up->lock);
        return REQ_GONE;
    }
    if (sent != 0)
        return REQ_FAILED;
    if (p.done && p.response) {
        *response = p.response;
        return REQ_OK;
    }
    if (p.done) {
        snprintf(err, errsize, "%s", p.error);
        return REQ_GONE;
    }
    /* Given up on: tell the server. */
    const char *reason = over == MCPC_CANCELLED ? "the sandbox no longer waits for the call"
                         : over == MCPC_STOPPING ? "the client is stopping"
                                                 : "the call timed out";
    json_t *cn = json_pack("{sIss}", "requestId", (json_int_t)n, "reason", reason);
    if (over != MCPC_STOPPING)
        send_message(up, jrpc_notification("notifications/cancelled", cn));
    else
        json_decref(cn);
    snprintf(err, errsize, "server '%s' did not answer %s in time", up->name, method);
    return over == MCPC_TIMED_OUT ? REQ_TIMED_OUT : REQ_CANCELLED;
}

/* Answers a request the server made of capsa: ping with {}, the rest declined. */
static void server_request(mcpc_up *up, const jrpc_msg *m)
{
    if (strcmp(m->method, "ping") == 0) {
        send_message(up, jrpc_result(m->id, NULL));
        return;
    }
    char msg[256];
    snprintf(msg, sizeof(msg), "capsa does not support '%.100s' (its client declares no "
                               "capabilities: no sampling, elicitation or roots)", m->method);
    send_message(up, jrpc_error(m->id, JRPC_METHOD_NOT_FOUND, msg, NULL));
    mcpc_logf(up, CAPSA_MCP_LOG_EVENT, "declined its request '%.100s'", m->method);
}

/* Handles one message; an answer waited for is handed to its waiter whole: msg
 * itself when owned (the caller then lets go of it: 1 is returned), else a copy,
 * so that no JSON is ever shared between threads (jansson's reference counts do
 * not order the frees of one thread after the reads of another). */
static int dispatch_one(mcpc_up *up, json_t *msg, int owned)
{
    jrpc_msg m;
    int taken = 0;
    switch (jrpc_classify(msg, &m)) {
    case JRPC_RESPONSE: {
        pthread_mutex_lock(&up->lock);
        mcpc_pending *p = m.id ? jrpc_ids_get(up->pending, m.id) : NULL;
        if (p && !p->done) {
            p->response = owned ? msg : json_deep_copy(msg);
            taken = owned;
            if (!p->response)
                snprintf(p->error, sizeof(p->error), "out of memory reading the answer");
            p->done = 1;
            pthread_cond_broadcast(&up->cv);
        }
        pthread_mutex_unlock(&up->lock);
        if (!p)
            bad_message(up, "an answer to no request capsa is waiting for");
        break;
    }
    case JRPC_REQUEST:
        server_request(up, &m);
        break;
    case JRPC_NOTIFICATION:
        if (strcmp(m.method, "notifications/tools/list_changed") == 0) {
            capsa_mcp_client *c = up->client;
            pthread_mutex_lock(&c->lock);
            up->stale = 1;
            pthread_cond_signal(&c->kcv);
            pthread_mutex_unlock(&c->lock);
        } else if (strcmp(m.method, "notifications/message") == 0 && m.params) {
            char *t = capsa__json_dumps(m.params, JSON_COMPACT);
            if (t)
                mcpc_log(up, CAPSA_MCP_LOG_MESSAGE, t, strlen(t));
            free(t);
        }
        break;
    default:
        bad_message(up, m.error_message);
        break;
    }
    return taken;
}

void mcpc_dispatch_text(mcpc_up *up, const char *text, size_t len)
{
    jrpc_limits lim = { mcpc_max_message(up), 1024, 1 };
    json_t *error = NULL;
    json_t *root = jrpc_parse(text, len, &lim, &error);
    const char *why = json_string_value(json_object_get(json_object_get(error, "error"), "message"));
    if (!root && why && strstr(why, "too big")) {
        /* An integer beyond 64 bits, legitimate JSON that jansson will not read as
           one: read as a double, as the script's JSON.parse would. */
        json_decref(error);
        error = NULL;
        root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, NULL);
        if (root && !json_is_object(root) && !json_is_array(root)) {
            json_decref(root);
            root = NULL;
        }
        /* The ids were read as doubles too: ids are integers again. */
        for (size_t i = 0; root && i < (json_is_array(root) ? json_array_size(root) : 1); i++) {
            json_t *m = json_is_array(root) ? json_array_get(root, i) : root;
            json_t *id = json_object_get(m, "id");
            double d = json_real_value(id);
            if (json_is_real(id) && d >= -9.2e18 && d <= 9.2e18 && d == (double)(json_int_t)d)
                json_object_set_new(m, "id", json_integer((json_int_t)d));
        }
    }
    if (!root) {
        const char *m = json_string_value(json_object_get(json_object_get(error, "error"), "message"));
        bad_message(up, m ? m : "not JSON");
        json_decref(error);
        return;
    }
    if (json_is_array(root)) {
        size_t i;
        json_t *v;
        json_array_foreach(root, i, v)
            dispatch_one(up, v, 0);
    } else if (dispatch_one(up, root, 1)) {
        return;
    }
    json_decref(root);
}

/* ---- the tools ------------------------------------------------------------------------- */

static void tool_free(mcpc_tool *t)
{
    if (!t)
        return;
    free(t->remote);
    free(t->name);
    free(t->flat);
    free(t->description);
    free(t->schema);
    free(t->returns);
    free(t);
}

/* Whether name or flat is a tool name the client has. Client lock held. */
static int name_taken(const capsa_mcp_client *c, const char *name, const char *flat)
{
    for (size_t i = 0; i < c->n_tools; i++) {
        if (strcmp(c->tools[i]->name, name) == 0 || strcmp(c->tools[i]->flat, flat) == 0)
            return 1;
    }
    return 0;
}

/* The description of an upstream tool: its own (or title) and the names it came
 * by (its outputSchema is the declarations' return type). A new string. */
static char *describe(const mcpc_up *up, const char *remote, json_t *tool)
{
    const char *d = json_string_value(json_object_get(tool, "description"));
    if (!d)
        d = json_string_value(json_object_get(tool, "title"));
    char *s = NULL;
    if (asprintf(&s, "%s%s(MCP server '%s', tool '%s')", d ? d : "", d && d[0] ? "\n\n" : "",
                 up->name, remote) < 0)
        s = NULL;
    return s;
}

/* Adds a listed tool to the client's records (or updates its record). Client
 * lock held. Returns 0, or -1 after logging why it is left out. */
static int record_tool(capsa_mcp_client *c, mcpc_up *up, json_t *tool)
{
    const char *remote = json_string_value(json_object_get(tool, "name"));
    if (!remote || !remote[0] || strlen(remote) != json_string_length(json_object_get(tool, "name")) ||
        strlen(remote) > 1024) {
        mcpc_logf(up, CAPSA_MCP_LOG_EVENT, "a listed tool without a valid name is left out");
        return -1;
    }
    json_t *is = json_object_get(tool, "inputSchema");
    char *schema = json_is_object(is) ? capsa__json_dumps(is, JSON_COMPACT) : strdup("{\"type\":\"object\"}");
    json_t *os = json_object_get(tool, "outputSchema");
    char *returns = json_is_object(os) ? capsa__json_dumps(os, JSON_COMPACT) : NULL;
    char *desc = describe(up, remote, tool);
    if (!schema || !desc || (json_is_object(os) && !returns)) {
        free(schema);
        free(returns);
        free(desc);
        return -1;
    }
    for (size_t i = 0; i < c->n_tools; i++) {
        mcpc_tool *t = c->tools[i];
        if (t->up == up && strcmp(t->remote, remote) == 0) {
            if (t->gone)
                t->generation = ++c->generation; /* back again: registered anew where missing */
            t->gone = 0;
            t->listed = 1;
            free(t->schema);
            free(t->returns);
            free(t->description);
            t->schema = schema;
            t->returns = returns;
            t->description = desc;
            return 0;
        }
    }
    char base[NAME_MAX_BYTES + 1], name[NAME_MAX_BYTES + 16], flat[NAME_MAX_BYTES + 16];
    size_t room = NAME_MAX_BYTES - strlen(up->ns) - 1 - 6; /* 6: a "_NNNNN" suffix */
    identifier(remote, base, room);
    snprintf(name, sizeof(name), "%s.%s", up->ns, base);
    snprintf(flat, sizeof(flat), "%s_%s", up->ns, base);
    for (int k = 2; name_taken(c, name, flat) && k < 100000; k++) {
        snprintf(name, sizeof(name), "%s.%s_%d", up->ns, base, k);
        snprintf(flat, sizeof(flat), "%s_%s_%d", up->ns, base, k);
    }
    mcpc_tool *t = calloc(1, sizeof(*t));
    if (t) {
        t->up = up;
        t->remote = strdup(remote);
        t->name = strdup(name);
        t->flat = strdup(flat);
        t->schema = schema;
        t->returns = returns;
        t->description = desc;
    }
    if (t && c->n_tools == c->cap_tools) {
        size_t cap = c->cap_tools ? c->cap_tools * 2 : 32;
        mcpc_tool **nt = realloc(c->tools, cap * sizeof(*nt));
        if (nt) {
            c->tools = nt;
            c->cap_tools = cap;
        }
    }
    if (!t || !t->remote || !t->name || !t->flat || c->n_tools == c->cap_tools) {
        if (t)
            tool_free(t);
        else {
            free(schema);
            free(returns);
            free(desc);
        }
        mcpc_logf(up, CAPSA_MCP_LOG_EVENT, "out of memory: tool '%.200s' is left out", remote);
        return -1;
    }
    t->generation = ++c->generation;
    t->listed = 1;
    c->tools[c->n_tools++] = t;
    return 0;
}

/* tools/list, every page, into the client's records: tools no longer listed are
 * marked gone. Returns 0, or -1 with err. */
static int list_tools(mcpc_up *up, const mcpc_wait *w, int any_state, char *err, size_t errsize)
{
    json_t *all = json_array();
    char *cursor = NULL;
    int rc = all ? 0 : -1;
    if (!all)
        snprintf(err, errsize, "out of memory");
    for (int page = 0; rc == 0; page++) {
        if (page >= MAX_LIST_PAGES) {
            snprintf(err, errsize, "tools/list: over %d pages", MAX_LIST_PAGES);
            rc = -1;
            break;
        }
        char *params = NULL;
        if (cursor) {
            json_t *pj = json_pack("{ss}", "cursor", cursor);
            params = pj ? capsa__json_dumps(pj, JSON_COMPACT) : NULL;
            json_decref(pj);
        }
        json_t *resp;
        int r = up_request(up, "tools/list", cursor ? params : "{}", any_state, w, &resp, err, errsize);
        free(params);
        if (r != REQ_OK) {
            rc = -1;
            break;
        }
        json_t *result = json_object_get(resp, "result"), *e = json_object_get(resp, "error");
        json_t *tools = json_object_get(result, "tools");
        json_t *next = json_object_get(result, "nextCursor");
        if (e) {
            snprintf(err, errsize, "tools/list failed: %.300s", json_string_value(json_object_get(e, "message")));
            rc = -1;
        } else if (!json_is_array(tools)) {
            snprintf(err, errsize, "tools/list: the result has no \"tools\" array");
            rc = -1;
        } else if (json_array_size(all) + json_array_size(tools) > MAX_TOOLS_PER_SERVER) {
            snprintf(err, errsize, "tools/list: over %d tools", MAX_TOOLS_PER_SERVER);
            rc = -1;
        } else {
            json_array_extend(all, tools);
            const char *nc = json_string_value(next);
            if (nc && cursor && strcmp(nc, cursor) == 0) {
                snprintf(err, errsize, "tools/list: the server gave the same cursor twice");
                rc = -1;
            }
            free(cursor);
            cursor = nc && nc[0] && rc == 0 ? strdup(nc) : NULL;
            if (!cursor) {
                json_decref(resp);
                break;
            }
        }
        json_decref(resp);
    }
    free(cursor);
    if (rc == 0)
        mcpc_record_listing(up, all);
    json_decref(all);
    return rc;
}

void mcpc_record_listing(mcpc_up *up, const json_t *tools)
{
    capsa_mcp_client *c = up->client;
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->n_tools; i++)
        c->tools[i]->listed = 0;
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t) {
        if (json_is_object(t))
            record_tool(c, up, t);
    }
    for (size_t k = 0; k < c->n_tools; k++) {
        if (c->tools[k]->up == up && !c->tools[k]->listed)
            c->tools[k]->gone = 1;
    }
    pthread_mutex_unlock(&c->lock);
}

static uint64_t start_timeout(const mcpc_up *up)
{
    return up->start_timeout_ms ? up->start_timeout_ms : up->client->opts.start_timeout_ms;
}

/* Starts the server: spawn or connect, initialize, notifications/initialized,
 * tools/list. Called with its state STARTING by the one thread that starts it:
 * capsa_mcp_client_start (call NULL), or a call that found it dead. Returns 0
 * (it may be READY), or -1 with err (its child stopped). */
static int up_start(mcpc_up *up, const mcpc_wait *call, char *err, size_t errsize)
{
    /* Within the start timeout, and for a restart within the call that needs it
       (a call the sandbox gives up on stops the restart too). */
    uint64_t timeout_ms = start_timeout(up);
    mcpc_wait w = { mcpc_now_ms() + timeout_ms, call ? call->reply : NULL };
    if (call && call->deadline_ms < w.deadline_ms)
        w.deadline_ms = call->deadline_ms;
    pthread_mutex_lock(&up->lock);
    up->bad_messages = 0;
    up->session_lost = 0;
    free(up->session_id);
    up->session_id = NULL;
    up->protocol_version[0] = '\0';
    pthread_mutex_unlock(&up->lock);
    if (!up->http && child_start(up, err, errsize) != 0)
        return -1;
    char params[512];
    snprintf(params, sizeof(params),
             "{\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":{\"name\":\"capsa\","
             "\"version\":\"%s\"}}", versions[0], capsa_version());
    json_t *resp = NULL;
    int r = up_request(up, "initialize", params, 1, &w, &resp, err, errsize);
    int rc = -1;
    json_t *result = json_object_get(resp, "result");
    const char *version = json_string_value(json_object_get(result, "protocolVersion"));
    if (r != REQ_OK) {
        if (r == REQ_TIMED_OUT && !call)
            snprintf(err, errsize, "did not answer initialize within %llu ms", (unsigned long long)timeout_ms);
        else if (r == REQ_TIMED_OUT || r == REQ_CANCELLED)
            snprintf(err, errsize, "did not answer initialize before the call gave up");
    } else if (json_object_get(resp, "error")) {
        snprintf(err, errsize, "initialize failed: %.300s",
                 json_string_value(json_object_get(json_object_get(resp, "error"), "message")));
    } else if (!version) {
        snprintf(err, errsize, "its initialize result has no protocolVersion");
    } else {
        size_t i = 0;
        while (i < sizeof(versions) / sizeof(versions[0]) && strcmp(version, versions[i]) != 0)
            i++;
        if (i == sizeof(versions) / sizeof(versions[0]))
            snprintf(err, errsize, "it speaks MCP %.40s, which capsa does not (it speaks 2025-11-25, "
                                   "2025-06-18, 2025-03-26 and 2024-11-05)", version);
        else
            rc = 0;
    }
    if (rc == 0) {
        pthread_mutex_lock(&up->lock);
        snprintf(up->protocol_version, sizeof(up->protocol_version), "%s", version);
        json_decref(up->server_info);
        up->server_info = json_deep_copy(json_object_get(result, "serverInfo"));
        pthread_mutex_unlock(&up->lock);
        send_message(up, jrpc_notification("notifications/initialized", NULL));
        if (up->http)
            mcpc_http_open_stream(up);
        if (json_object_get(json_object_get(result, "capabilities"), "tools"))
            rc = list_tools(up, &w, 1, err, errsize);
    }
    json_decref(resp);
    if (rc != 0) {
        if (up->http)
            mcpc_http_close(up);
        else
            child_stop(up);
        return -1;
    }
    return 0;
}

/* Makes sure the server is READY for a call waiting with w: waits for a start in
 * progress, or starts a dead server again once its backoff has passed. Returns 0,
 * or -1 with err. */
static int ensure_ready(mcpc_up *up, const mcpc_wait *w, char *err, size_t errsize)
{
    pthread_mutex_lock(&up->lock);
    for (;;) {
        if (up->state == MCPC_READY) {
            pthread_mutex_unlock(&up->lock);
            return 0;
        }
        int over = mcpc_wait_over(up, w);
        if (up->state == MCPC_FAILED || up->state == MCPC_IDLE || up->state == MCPC_DISABLED ||
            over != MCPC_GO_ON) {
            if (over == MCPC_TIMED_OUT || over == MCPC_CANCELLED)
                snprintf(err, errsize, "server '%s' is not running (%s); the call's time ran out "
                                       "waiting for its restart", up->name, up->error);
            else
                snprintf(err, errsize, "%s", up->error[0] ? up->error : "the server is not running");
            pthread_mutex_unlock(&up->lock);
            return -1;
        }
        uint64_t now = mcpc_now_ms();
        if (up->state == MCPC_DEAD && now >= up->next_start_ms)
            break;
        cv_wait_ms(up, 20);
    }
    up->state = MCPC_STARTING;
    up->restarts++;
    pthread_mutex_unlock(&up->lock);
    if (up->http)
        mcpc_http_close(up); /* the old session, if the server still knows it */
    else
        child_teardown(up); /* the dead child's reader ends, if it has not */
    mcpc_logf(up, CAPSA_MCP_LOG_EVENT, "starting it again (restart %u)", up->restarts);
    char why[512];
    int rc = up_start(up, w, why, sizeof(why));
    pthread_mutex_lock(&up->lock);
    if (rc == 0) {
        up->state = MCPC_READY;
        up->started_ms = mcpc_now_ms();
        up->error[0] = '\0';
    } else {
        /* Dead again, with a longer backoff (unless it died during the start,
           which mcpc_died has recorded already). */
        if (up->state == MCPC_STARTING) {
            pthread_mutex_unlock(&up->lock);
            mcpc_died(up, why);
            pthread_mutex_lock(&up->lock);
        }
        snprintf(err, errsize, "%s", up->error);
    }
    pthread_cond_broadcast(&up->cv);
    pthread_mutex_unlock(&up->lock);
    if (rc != 0)
        mcpc_logf(up, CAPSA_MCP_LOG_EVENT, "its restart failed: %.400s", why);
    return rc;
}

/* ---- tool calls and their results -------------------------------------------------------- */

/* The JSON value for one content block: text parsed as JSON when it is JSON,
 * else the string; images and audio as {type, mimeType, data}; others as they
 * are. A new reference. */
static json_t *content_value(json_t *item)
{
    const char *type = json_string_value(json_object_get(item, "type"));
    if (type && strcmp(type, "text") == 0 && json_is_string(json_object_get(item, "text"))) {
        json_t *text = json_object_get(item, "text");
        json_t *v = json_loadb(json_string_value(text), json_string_length(text),
                               JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, NULL);
        return v ? v : json_incref(text);
    }
    if (type && (strcmp(type, "image") == 0 || strcmp(type, "audio") == 0))
        return json_pack("{sOsOsO}", "type", json_object_get(item, "type"), "mimeType",
                         json_object_get(item, "mimeType") ? json_object_get(item, "mimeType") : json_null(),
                         "data", json_object_get(item, "data") ? json_object_get(item, "data") : json_null());
    return json_incref(item);
}

/* The texts of a result's content, joined by newlines (a new string). */
static char *content_texts(json_t *content)
{
    size_t i, n = 0;
    json_t *item;
    json_array_foreach(content, i, item) {
        json_t *t = json_object_get(item, "text");
        if (json_is_string(t))
            n += json_string_length(t) + 1;
    }
    char *s = malloc(n + 1), *p = s;
    if (!s)
        return NULL;
    json_array_foreach(content, i, item) {
        json_t *t = json_object_get(item, "text");
        if (!json_is_string(t))
            continue;
        if (p != s)
            *p++ = '\n';
        memcpy(p, json_string_value(t), json_string_length(t));
        p += json_string_length(t);
    }
    *p = '\0';
    return s;
}

int mcpc_map_result(const json_t *resp, const char *tool, const char *server, json_t **value,
                    char *code, size_t codesize, char *msg, size_t msgsize)
{
    *value = NULL;
    json_t *e = json_object_get(resp, "error");
    json_t *result = json_object_get(resp, "result");
    if (e) {
        const char *m = json_string_value(json_object_get(e, "message"));
        snprintf(code, codesize, "upstream_error");
        snprintf(msg, msgsize, "%s: server '%s' answered error %lld: %.3900s", tool, server,
                 (long long)json_integer_value(json_object_get(e, "code")), m ? m : "");
        return -1;
    }
    if (!json_is_object(result)) {
        snprintf(code, codesize, "upstream_error");
        snprintf(msg, msgsize, "%s: server '%s' answered with a result that is not an object", tool,
                 server);
        return -1;
    }
    json_t *content = json_object_get(result, "content");
    if (json_is_true(json_object_get(result, "isError"))) {
        char *texts = content_texts(content);
        snprintf(code, codesize, "tool_error");
        snprintf(msg, msgsize, "%s", texts && texts[0] ? texts : "the tool failed");
        free(texts);
        return -1;
    }
    json_t *v = json_object_get(result, "structuredContent");
    if (v) {
        json_incref(v);
    } else if (json_array_size(content) == 1) {
        v = content_value(json_array_get(content, 0));
    } else if (json_is_array(content) && json_array_size(content) > 1) {
        v = json_array();
        size_t i;
        json_t *item;
        json_array_foreach(content, i, item) {
            if (!v || json_array_append_new(v, content_value(item)) != 0) {
                json_decref(v);
                v = NULL;
                break;
            }
        }
    } else {
        v = json_null();
    }
    if (!v) {
        snprintf(code, codesize, "tool_error");
        snprintf(msg, msgsize, "out of memory mapping the result");
        return -1;
    }
    *value = v;
    return 0;
}

/* Answers the sandbox's call with the server's response resp. */
static void reply_response(const mcpc_tool *t, json_t *resp, capsa_tool_reply *reply)
{
    char code[48], msg[4200];
    json_t *value;
    if (mcpc_map_result(resp, t->name, t->up->name, &value, code, sizeof(code), msg, sizeof(msg)) != 0) {
        capsa_tool_reply_error(reply, code, msg);
        return;
    }
    char *text = capsa__json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref(value);
    if (!text) {
        capsa_tool_reply_error(reply, "tool_error", "out of memory mapping the result");
        return;
    }
    capsa_tool_reply_json(reply, text, strlen(text));
    free(text);
}

/* The callback of every upstream tool: on one of the sandbox's worker threads. */
static void tool_call(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    const mcpc_tool *t = ud;
    mcpc_up *up = t->up;
    uint64_t limit = up->timeout_ms ? up->timeout_ms : up->client->opts.call_timeout_ms;
    /* The sandbox times the call out first (the tool's timeout_ms is the same);
       this later deadline is a backstop, so capsa never waits forever. */
    mcpc_wait w = { mcpc_now_ms() + limit + 2000, reply };
    char err[600] = "";
    if (ensure_ready(up, &w, err, sizeof(err)) != 0) {
        capsa_tool_reply_error(reply, "upstream_unavailable", err);
        return;
    }
    /* The arguments go on exactly as the policy checked them; a raw line break can
       only be whitespace between tokens in JSON, and would end a stdio message. */
    json_t *name = json_string(t->remote);
    char *qname = name ? capsa__json_dumps(name, JSON_ENCODE_ANY) : NULL;
    json_decref(name);
    char *params = NULL;
    if (qname && asprintf(&params, "{\"name\":%s,\"arguments\":%s}", qname, call->args) < 0)
        params = NULL;
    free(qname);
    if (!params) {
        capsa_tool_reply_error(reply, "tool_error", "out of memory");
        return;
    }
    for (char *p = params; *p; p++) {
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    }
    json_t *resp = NULL;
    int r = up_request(up, "tools/call", params, 0, &w, &resp, err, sizeof(err));
    pthread_mutex_lock(&up->lock);
    int lost = up->session_lost;
    pthread_mutex_unlock(&up->lock);
    if (r == REQ_GONE && lost) {
        /* The server forgot the session before it saw the call: once more, in a
           new session. */
        if (ensure_ready(up, &w, err, sizeof(err)) == 0)
            r = up_request(up, "tools/call", params, 0, &w, &resp, err, sizeof(err));
    }
    free(params);
    switch (r) {
    case REQ_OK:
        reply_response(t, resp, reply);
        json_decref(resp);
        break;
    case REQ_TIMED_OUT:
        capsa_tool_reply_error(reply, "timeout", err);
        break;
    case REQ_CANCELLED:
        capsa_tool_reply_error(reply, "cancelled", err);
        break;
    case REQ_GONE:
        capsa_tool_reply_error(reply, "upstream_unavailable", err);
        break;
    default:
        capsa_tool_reply_error(reply, "upstream_error", err);
        break;
    }
}

/* ---- the keeper: lists refreshed on tools/list_changed --------------------------------------- */

static void *keeper_main(void *arg)
{
    capsa_mcp_client *c = arg;
    pthread_mutex_lock(&c->lock);
    while (!c->stop) {
        mcpc_up *up = NULL;
        for (size_t i = 0; i < c->n_ups && !up; i++) {
            if (c->ups[i]->stale)
                up = c->ups[i];
        }
        if (!up) {
            pthread_cond_wait(&c->kcv, &c->lock);
            continue;
        }
        up->stale = 0;
        c->refreshing = 1;
        uint64_t before = c->generation;
        pthread_mutex_unlock(&c->lock);
        pthread_mutex_lock(&up->lock);
        int ready = up->state == MCPC_READY;
        pthread_mutex_unlock(&up->lock);
        if (ready) {
            mcpc_wait w = { mcpc_now_ms() + start_timeout(up), NULL };
            char err[512];
            if (list_tools(up, &w, 0, err, sizeof(err)) != 0)
                mcpc_logf(up, CAPSA_MCP_LOG_EVENT, "its tools changed, but listing them failed: %s", err);
            else
                mcpc_logf(up, CAPSA_MCP_LOG_INFO, "its tools changed: listed again (%llu new)",
                          (unsigned long long)(__atomic_load_n(&c->generation, __ATOMIC_RELAXED) - before));
        }
        pthread_mutex_lock(&c->lock);
        c->refreshing = 0;
        pthread_cond_broadcast(&c->kcv); /* attach waits for it */
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* ---- the public API ------------------------------------------------------------------- */

CAPSA_API void capsa_mcp_options_init(capsa_mcp_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof(*opts));
    opts->struct_size = sizeof(*opts);
    opts->start_timeout_ms = DEFAULT_START_TIMEOUT_MS;
    opts->call_timeout_ms = DEFAULT_CALL_TIMEOUT_MS;
    opts->max_message = DEFAULT_MAX_MESSAGE;
}

CAPSA_API int capsa_mcp_client_new(const capsa_mcp_options *opts, capsa_mcp_client **out)
{
    if (!out)
        return CAPSA_EINVAL;
    *out = NULL;
    capsa_mcp_options o;
    capsa_mcp_options_init(&o);
    if (opts) {
        if (opts->struct_size < offsetof(capsa_mcp_options, start_timeout_ms) ||
            opts->struct_size > sizeof(o))
            return CAPSA_EINVAL;
        memcpy(&o, opts, opts->struct_size);
        o.struct_size = sizeof(o);
    }
    if (!o.start_timeout_ms)
        o.start_timeout_ms = DEFAULT_START_TIMEOUT_MS;
    if (!o.call_timeout_ms)
        o.call_timeout_ms = DEFAULT_CALL_TIMEOUT_MS;
    if (!o.max_message)
        o.max_message = DEFAULT_MAX_MESSAGE;
    if (o.max_message < 1024 || o.max_message > (1ull << 32))
        return CAPSA_EINVAL;
    capsa_mcp_client *c = calloc(1, sizeof(*c));
    if (!c)
        return CAPSA_ENOMEM;
    c->opts = o;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->kcv, NULL);
    if (pthread_create(&c->keeper, NULL, keeper_main, c) != 0) {
        pthread_mutex_destroy(&c->lock);
        pthread_cond_destroy(&c->kcv);
        free(c);
        return CAPSA_ENOMEM;
    }
    c->keeper_running = 1;
    *out = c;
    return CAPSA_OK;
}

static void *start_main(void *arg)
{
    mcpc_up *up = arg;
    char err[512];
    int rc = up_start(up, NULL, err, sizeof(err));
    pthread_mutex_lock(&up->lock);
    if (rc == 0) {
        up->state = MCPC_READY;
        up->started_ms = mcpc_now_ms();
    } else {
        up->state = MCPC_FAILED;
        snprintf(up->error, sizeof(up->error), "server '%s' failed to start: %.400s", up->name, err);
    }
    pthread_cond_broadcast(&up->cv);
    pthread_mutex_unlock(&up->lock);
    if (rc == 0)
        mcpc_logf(up, CAPSA_MCP_LOG_INFO, "started (%s, MCP %s)", up->http ? up->url : up->argv[0], up->protocol_version);
    else
        mcpc_log(up, CAPSA_MCP_LOG_EVENT, up->error, strlen(up->error));
    return NULL;
}

CAPSA_API int capsa_mcp_client_start(capsa_mcp_client *c)
{
    if (!c)
        return CAPSA_EINVAL;
    mcpc_up *todo[MAX_SERVERS];
    pthread_t th[MAX_SERVERS];
    int running[MAX_SERVERS] = { 0 };
    size_t n = 0;
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->n_ups; i++) {
        mcpc_up *up = c->ups[i];
        pthread_mutex_lock(&up->lock);
        if (up->state == MCPC_IDLE) {
            up->state = MCPC_STARTING;
            todo[n++] = up;
        }
        pthread_mutex_unlock(&up->lock);
    }
    pthread_mutex_unlock(&c->lock);
    for (size_t i = 0; i < n; i++)
        running[i] = pthread_create(&th[i], NULL, start_main, todo[i]) == 0;
    for (size_t i = 0; i < n; i++) {
        if (running[i])
            pthread_join(th[i], NULL);
        else
            start_main(todo[i]); /* no thread to spare: one at a time */
    }
    return CAPSA_OK;
}

/* Waits (c->lock held) for lists the servers said changed, up to
   start_timeout_ms, so that a sandbox brought up to date after a call that
   changed one sees the change. */
static void wait_for_lists(capsa_mcp_client *c)
{
    uint64_t until = mcpc_now_ms() + c->opts.start_timeout_ms;
    for (;;) {
        int stale = c->refreshing;
        for (size_t i = 0; i < c->n_ups && !stale; i++)
            stale = c->ups[i]->stale;
        if (!stale || c->stop || mcpc_now_ms() >= until)
            break;
        struct timespec ts = time_in(CLOCK_REALTIME, 20);
        pthread_cond_timedwait(&c->kcv, &c->lock, &ts);
    }
}

/* The definition that registers upstream tool t. */
static void tool_def_of(const capsa_mcp_client *c, mcpc_tool *t, capsa_tool_def *d)
{
    capsa_tool_def_init(d);
    d->name = t->name;
    d->description = t->description;
    d->parameters = t->schema;
    d->fn = tool_call;
    d->ud = t;
    d->timeout_ms = t->up->timeout_ms ? t->up->timeout_ms : c->opts.call_timeout_ms;
    d->returns = t->returns;
}

CAPSA_API int capsa_mcp_client_attach(capsa_mcp_client *c, capsa_sandbox *sb, uint64_t *generation)
{
    if (!c || !sb)
        return CAPSA_EINVAL;
    uint64_t since = generation ? *generation : 0;
    int first_rc = CAPSA_OK;
    pthread_mutex_lock(&c->lock);
    wait_for_lists(c);
    for (size_t i = 0; i < c->n_tools; i++) {
        mcpc_tool *t = c->tools[i];
        if (t->gone || t->generation <= since)
            continue;
        capsa_tool_def d;
        tool_def_of(c, t, &d);
        int rc = capsa_tool_add(sb, &d);
        if (rc == CAPSA_EINVAL && d.returns && strstr(capsa_errmsg(sb), "': returns: ")) {
            /* An outputSchema capsa cannot declare: the tool is still callable. */
            char msg[sizeof(c->errmsg)];
            snprintf(msg, sizeof(msg), "tool '%.200s' (%s) is declared without its outputSchema: %.600s",
                     t->remote, t->name, capsa_errmsg(sb));
            mcpc_log(t->up, CAPSA_MCP_LOG_EVENT, msg, strlen(msg));
            d.returns = NULL;
            rc = capsa_tool_add(sb, &d);
        }
        if (rc != CAPSA_OK) {
            char msg[sizeof(c->errmsg)];
            snprintf(msg, sizeof(msg), "tool '%.200s' (%s) is left out: %.600s", t->remote, t->name,
                     capsa_errmsg(sb));
            mcpc_log(t->up, CAPSA_MCP_LOG_EVENT, msg, strlen(msg));
            if (first_rc == CAPSA_OK) {
                first_rc = rc;
                snprintf(c->errmsg, sizeof(c->errmsg), "server '%s': %s", t->up->name, msg);
            }
        }
    }
    if (generation)
        *generation = c->generation;
    pthread_mutex_unlock(&c->lock);
    return first_rc;
}

CAPSA_API size_t capsa_mcp_client_defs(capsa_mcp_client *c, capsa_tool_def *defs, size_t cap,
                                       uint64_t *generation)
{
    if (!c || (cap && !defs))
        return 0;
    size_t n = 0;
    pthread_mutex_lock(&c->lock);
    wait_for_lists(c);
    for (size_t i = 0; i < c->n_tools; i++) {
        if (c->tools[i]->gone)
            continue;
        if (n < cap)
            tool_def_of(c, c->tools[i], &defs[n]);
        n++;
    }
    if (generation)
        *generation = c->generation;
    pthread_mutex_unlock(&c->lock);
    return n;
}

static const char *state_name(mcpc_state s)
{
    switch (s) {
    case MCPC_IDLE: return "idle";
    case MCPC_STARTING: return "starting";
    case MCPC_READY: return "ready";
    case MCPC_DEAD: return "exited";
    case MCPC_FAILED: return "failed";
    case MCPC_DISABLED: return "disabled";
    }
    return "unknown";
}

CAPSA_API char *capsa_mcp_client_status_json(capsa_mcp_client *c)
{
    if (!c)
        return NULL;
    json_t *all = json_array();
    int bad = !all;
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->n_ups && !bad; i++) {
        mcpc_up *up = c->ups[i];
        json_t *names = json_array();
        for (size_t k = 0; k < c->n_tools && names; k++) {
            if (c->tools[k]->up == up && !c->tools[k]->gone)
                bad |= json_array_append_new(names, json_string(c->tools[k]->name)) != 0;
        }
        pthread_mutex_lock(&up->lock);
        json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s?, s:O, s:I, s:O, s:s?}", "name", up->name, "namespace", up->ns,
                              "transport", up->http ? "http" : "stdio", "state", state_name(up->state),
                              "error", up->error[0] ? up->error : NULL, "tools", names ? names : json_null(),
                              "restarts", (json_int_t)up->restarts, "server",
                              up->server_info ? up->server_info : json_null(), "protocol_version",
                              up->protocol_version[0] ? up->protocol_version : NULL);
        pthread_mutex_unlock(&up->lock);
        json_decref(names);
        bad |= !o || json_array_append_new(all, o) != 0;
    }
    pthread_mutex_unlock(&c->lock);
    char *s = bad ? NULL : capsa__json_dumps(all, JSON_COMPACT);
    json_decref(all);
    return s;
}

mcpc_up *mcpc_server(capsa_mcp_client *c, size_t i)
{
    pthread_mutex_lock(&c->lock);
    mcpc_up *up = i < c->n_ups ? c->ups[i] : NULL;
    pthread_mutex_unlock(&c->lock);
    return up;
}

CAPSA_API const char *capsa_mcp_client_errmsg(const capsa_mcp_client *c)
{
    return c ? c->errmsg : "no client";
}

CAPSA_API void capsa_mcp_client_free(capsa_mcp_client *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    c->stop = 1;
    pthread_cond_broadcast(&c->kcv);
    pthread_mutex_unlock(&c->lock);
    for (size_t i = 0; i < c->n_ups; i++) {
        mcpc_up *up = c->ups[i];
        pthread_mutex_lock(&up->lock);
        pthread_cond_broadcast(&up->cv);
        pthread_mutex_unlock(&up->lock);
    }
    /* Every server at once: the keeper's request (if any) ends as its server
       stops; the children get their stdin closed together, then their grace. */
    for (size_t i = 0; i < c->n_ups; i++) {
        __atomic_store_n(&c->ups[i]->stopping, 1, __ATOMIC_RELEASE);
        if (!c->ups[i]->http)
            child_stop_begin(c->ups[i]);
    }
    uint64_t deadline = mcpc_now_ms() + STOP_GRACE_MS;
    for (size_t i = 0; i < c->n_ups; i++) {
        if (c->ups[i]->http)
            mcpc_http_close(c->ups[i]);
        else
            child_stop_end(c->ups[i], deadline);
    }
    if (c->keeper_running)
        pthread_join(c->keeper, NULL);
    for (size_t i = 0; i < c->n_ups; i++)
        up_free(c->ups[i]);
    for (size_t i = 0; i < c->n_tools; i++)
        tool_free(c->tools[i]);
    free(c->tools);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->kcv);
    free(c);
}
