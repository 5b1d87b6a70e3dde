/* Host tools that are external commands (--tools), upstream MCP servers
 * (--mcp-config) and the capabilities that allow them (--policy, --allow): the
 * files read once, then registered into each sandbox that needs them (see
 * cli/tools.h). A command runs without a shell, in a clean environment, with the
 * call's arguments on its stdin. */
#define _GNU_SOURCE
#include "tools.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "opts.h"

#include "capsa_net.h"
#include "../src/json_write.h"

/* Reads all of f into a new buffer (*len bytes, NUL-terminated). Returns NULL with
 * errno set on failure; EFBIG when over CLI_MAX_INPUT. */
char *cli_read_all(FILE *f, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    errno = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > CLI_MAX_INPUT) {
                free(buf);
                errno = EFBIG;
                return NULL;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                return NULL;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                int saved = errno ? errno : EIO; /* fread sets errno: EISDIR, ... */
                free(buf);
                errno = saved;
                return NULL;
            }
            break;
        }
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Stderr kept for a failed command's message. */
#define TOOL_STDERR_MAX 4096
#define DEFAULT_TOOL_TIMEOUT_MS 30000

typedef struct cmd_tool {
    char *name;
    char *description; /* NULL: none */
    char *schema;      /* the parameters' JSON text, NULL: none */
    char *file;        /* the tools file it came from, and its index there */
    size_t index;
    char **argv;       /* NULL-terminated */
    char *dir;         /* where it runs: the tools file's directory */
    uint64_t timeout_ms;
    uint64_t max_result;
} cmd_tool;

struct cli_tools {
    cmd_tool *tools[CLI_MAX_TOOLS];
    int n_tools;
    char *policy;      /* the --policy file's text, NULL: none */
    size_t policy_len;
    const char *policy_file;
    char **allows;
    int n_allows;
    capsa_mcp_client *mcp; /* the --mcp-config servers, NULL: none */
    FILE *mcp_log;         /* --mcp-log, NULL: none */
    pthread_mutex_t log_lock;
};

static void cmd_tool_free(cmd_tool *t)
{
    if (!t)
        return;
    free(t->name);
    free(t->description);
    free(t->schema);
    free(t->file);
    for (char **a = t->argv; a && *a; a++)
        free(*a);
    free(t->argv);
    free(t->dir);
    free(t);
}

void cli_tools_free(cli_tools *ts)
{
    if (!ts)
        return;
    for (int i = 0; i < ts->n_tools; i++)
        cmd_tool_free(ts->tools[i]);
    for (int i = 0; i < ts->n_allows; i++)
        free(ts->allows[i]);
    free(ts->allows);
    free(ts->policy);
    capsa_mcp_client_free(ts->mcp); /* stops and reaps the servers */
    if (ts->mcp_log)
        fclose(ts->mcp_log);
    pthread_mutex_destroy(&ts->log_lock);
    free(ts);
}

int cli_tools_count(const cli_tools *ts)
{
    return ts ? ts->n_tools : 0;
}

const char *cli_tools_name(const cli_tools *ts, int i)
{
    return ts && i >= 0 && i < ts->n_tools ? ts->tools[i]->name : NULL;
}

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Appends n bytes to *buf (of *len, capacity *cap); -1 when out of memory. */
static int grow_append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 4096;
        while (c < *len + n + 1)
            c *= 2;
        char *nb = realloc(*buf, c);
        if (!nb)
            return -1;
        *buf = nb;
        *cap = c;
    }
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = '\0';
    return 0;
}

/* The callback of a command tool: runs the command with the call's arguments on
 * its stdin and answers with its stdout (exit 0) or its stderr (otherwise). No
 * shell; a clean environment; killed at its timeout or when the script no longer
 * waits. Runs on the library's worker threads. */
/* How long after its timeout a command is killed if the library has not
 * cancelled its call by then. */
#define CANCEL_GRACE_MS 2000

static void run_command_tool(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    const cmd_tool *t = ud;
    int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
        capsa_tool_reply_error(reply, "tool_error", "cannot create pipes for the command");
        goto close_all;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    if (t->dir)
        posix_spawn_file_actions_addchdir_np(&fa, t->dir);
    char tool_env[300];
    snprintf(tool_env, sizeof(tool_env), "CAPSA_TOOL=%s", t->name);
    char *envp[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", tool_env, NULL };
    pid_t pid;
    int rc = posix_spawnp(&pid, t->argv[0], &fa, NULL, t->argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    close(err[1]);
    in[0] = out[1] = err[1] = -1;
    if (rc != 0) {
        char msg[512];
        snprintf(msg, sizeof(msg), "cannot run '%s': %s", t->argv[0], strerror(rc));
        capsa_tool_reply_error(reply, "tool_error", msg);
        goto close_all;
    }
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    char *obuf = NULL, ebuf[TOOL_STDERR_MAX + 1];
    size_t olen = 0, ocap = 0, elen = 0, sent = 0;
    const char *stop = NULL; /* why the command was killed */
    /* The library times the call out at timeout_ms and then reports it cancelled,
       which kills the command below; this later deadline is only a backstop, so
       that one clock, the library's, decides what the script is told. */
    uint64_t deadline = mono_ms() + t->timeout_ms + CANCEL_GRACE_MS;
    if (call->args_len == 0) {
        close(in[1]);
        in[1] = -1;
    }
    while (out[0] >= 0 || err[0] >= 0) {
        struct pollfd p[3];
        int n = 0, io = -1, ie = -1, ii = -1;
        if (out[0] >= 0) {
            p[n] = (struct pollfd){ out[0], POLLIN, 0 };
            io = n++;
        }
        if (err[0] >= 0) {
            p[n] = (struct pollfd){ err[0], POLLIN, 0 };
            ie = n++;
        }
        if (in[1] >= 0) {
            p[n] = (struct pollfd){ in[1], POLLOUT, 0 };
            ii = n++;
        }
        uint64_t now = mono_ms();
        if (now >= deadline) {
            stop = "timeout";
            break;
        }
        if (capsa_tool_reply_cancelled(reply)) {
            stop = "cancelled";
            break;
        }
        uint64_t wait = deadline - now < 50 ? deadline - now : 50;
        if (poll(p, (nfds_t)n, (int)wait) < 0 && errno != EINTR)
            break;
        char chunk[65536];
        if (ii >= 0 && (p[ii].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t w = write(in[1], call->args + sent, call->args_len - sent);
            if (w > 0)
                sent += (size_t)w;
            if (w < 0 && errno != EAGAIN) {
                close(in[1]); /* the command does not read its input: fine */
                in[1] = -1;
            } else if (sent == call->args_len) {
                close(in[1]);
                in[1] = -1;
            }
        }
        if (io >= 0 && (p[io].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t r = read(out[0], chunk, sizeof(chunk));
            if (r <= 0) {
                close(out[0]);
                out[0] = -1;
            } else if (olen + (size_t)r > t->max_result) {
                stop = "too_large";
                break;
            } else if (grow_append(&obuf, &olen, &ocap, chunk, (size_t)r) != 0) {
                stop = "nomem";
                break;
            }
        }
        if (ie >= 0 && (p[ie].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t r = read(err[0], chunk, sizeof(chunk));
            if (r <= 0) {
                close(err[0]);
                err[0] = -1;
            } else {
                size_t keep = elen + (size_t)r > TOOL_STDERR_MAX ? TOOL_STDERR_MAX - elen : (size_t)r;
                memcpy(ebuf + elen, chunk, keep);
                elen += keep;
            }
        }
    }
    if (stop)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    ebuf[elen] = '\0';
    while (elen > 0 && (ebuf[elen - 1] == '\n' || ebuf[elen - 1] == '\r'))
        ebuf[--elen] = '\0';
    char msg[TOOL_STDERR_MAX + 128];
    if (stop && strcmp(stop, "timeout") == 0) {
        snprintf(msg, sizeof(msg), "tool '%s' did not answer within %llu ms (its command was killed)",
                 t->name, (unsigned long long)t->timeout_ms);
        capsa_tool_reply_error(reply, "timeout", msg);
    } else if (stop && strcmp(stop, "too_large") == 0) {
        snprintf(msg, sizeof(msg), "the output of tool '%s' is over %llu bytes", t->name,
                 (unsigned long long)t->max_result);
        capsa_tool_reply_error(reply, "result_too_large", msg);
    } else if (stop) {
        capsa_tool_reply_error(reply, "cancelled", "the call was cancelled");
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        capsa_tool_reply_json(reply, obuf ? obuf : "", olen);
    } else {
        if (elen)
            snprintf(msg, sizeof(msg), "%s", ebuf);
        else if (WIFEXITED(status))
            snprintf(msg, sizeof(msg), "tool '%s' exited with status %d", t->name, WEXITSTATUS(status));
        else
            snprintf(msg, sizeof(msg), "tool '%s' was killed by signal %d", t->name,
                     WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        capsa_tool_reply_error(reply, "tool_error", msg);
    }
    free(obuf);
close_all:
    for (int i = 0; i < 2; i++) {
        if (in[i] >= 0)
            close(in[i]);
        if (out[i] >= 0)
            close(out[i]);
        if (err[i] >= 0)
            close(err[i]);
    }
}

/* Reads a tools file into ts. Returns 0, or -1 after saying what is wrong (the
 * line, or the field at fault). */
static int load_tools(cli_tools *ts, const char *path, uint64_t max_result)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc) {
        if (jerr.line < 1)
            cli_error("--tools %s: %s", path, jerr.text);
        else
            cli_error("--tools %s: line %d column %d: %s", path, jerr.line, jerr.column,
                    jerr.text);
        return -1;
    }
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir ? 1 : 0] = '\0';
    else
        snprintf(dir, sizeof(dir), ".");
    int status = -1;
    const char *key;
    json_t *v, *tools = json_object_get(doc, "tools");
    char field[96] = "";
    const char *problem = NULL;
    if (!json_is_object(doc)) {
        problem = "the file must hold a JSON object {\"tools\": [...]}";
    } else {
        json_object_foreach(doc, key, v) {
            if (strcmp(key, "tools") != 0) {
                snprintf(field, sizeof(field), "%.80s", key);
                problem = "unknown field";
                break;
            }
        }
        if (!problem && !json_is_array(tools)) {
            snprintf(field, sizeof(field), "tools");
            problem = "must be an array of tools";
        }
    }
    size_t i;
    json_t *t;
    json_array_foreach(problem ? NULL : tools, i, t) {
        if (!json_is_object(t)) {
            snprintf(field, sizeof(field), "tools[%zu]", i);
            problem = "must be an object";
            break;
        }
        json_object_foreach(t, key, v) {
            if (strcmp(key, "name") && strcmp(key, "description") && strcmp(key, "parameters") &&
                strcmp(key, "command") && strcmp(key, "timeout_ms")) {
                snprintf(field, sizeof(field), "tools[%zu].%.60s", i, key);
                problem = "unknown field";
                break;
            }
        }
        if (problem)
            break;
        json_t *name = json_object_get(t, "name"), *desc = json_object_get(t, "description");
        json_t *params = json_object_get(t, "parameters"), *cmd = json_object_get(t, "command");
        json_t *timeout = json_object_get(t, "timeout_ms");
        if (!json_is_string(name)) {
            snprintf(field, sizeof(field), "tools[%zu].name", i);
            problem = name ? "must be a string" : "is required";
            break;
        }
        if (desc && !json_is_string(desc)) {
            snprintf(field, sizeof(field), "tools[%zu].description", i);
            problem = "must be a string";
            break;
        }
        if (params && !json_is_object(params)) {
            snprintf(field, sizeof(field), "tools[%zu].parameters", i);
            problem = "must be a JSON Schema object";
            break;
        }
        int cmd_ok = json_is_array(cmd) && json_array_size(cmd) > 0 && json_array_size(cmd) < 256;
        size_t k;
        json_t *arg;
        json_array_foreach(cmd_ok ? cmd : NULL, k, arg) {
            if (!json_is_string(arg) || !json_string_value(arg)[0] ||
                strlen(json_string_value(arg)) != json_string_length(arg))
                cmd_ok = 0;
        }
        if (!cmd_ok) {
            snprintf(field, sizeof(field), "tools[%zu].command", i);
            problem = cmd ? "must be a non-empty array of non-empty strings (a program and its "
                            "arguments; no shell)"
                          : "is required";
            break;
        }
        if (timeout && (!json_is_integer(timeout) || json_integer_value(timeout) <= 0 ||
                        json_integer_value(timeout) > 86400000)) {
            snprintf(field, sizeof(field), "tools[%zu].timeout_ms", i);
            problem = "must be a whole number of milliseconds from 1 to 86400000";
            break;
        }
        if (ts->n_tools >= CLI_MAX_TOOLS) {
            snprintf(field, sizeof(field), "tools[%zu]", i);
            problem = "too many tools (at most 256)";
            break;
        }
        cmd_tool *ct = calloc(1, sizeof(*ct));
        char **argv = calloc(json_array_size(cmd) + 1, sizeof(char *));
        if (!ct || !argv) {
            free(ct);
            free(argv);
            problem = "out of memory";
            break;
        }
        ct->argv = argv;
        ts->tools[ts->n_tools++] = ct;
        ct->name = strdup(json_string_value(name));
        ct->description = desc ? strdup(json_string_value(desc)) : NULL;
        ct->schema = params ? capsa__json_dumps(params, JSON_COMPACT) : NULL;
        ct->file = strdup(path);
        ct->index = i;
        ct->dir = strdup(dir);
        int nomem = !ct->name || (desc && !ct->description) || (params && !ct->schema) ||
                    !ct->file || !ct->dir;
        json_array_foreach(cmd, k, arg) {
            argv[k] = strdup(json_string_value(arg));
            nomem |= !argv[k];
        }
        if (nomem) {
            problem = "out of memory";
            break;
        }
        ct->timeout_ms = timeout ? (uint64_t)json_integer_value(timeout) : DEFAULT_TOOL_TIMEOUT_MS;
        ct->max_result = max_result;
    }
    if (problem)
        cli_error("--tools %s: %s%s%s", path, field, field[0] ? ": " : "", problem);
    else
        status = 0;
    json_decref(doc);
    return status;
}

/* Reads the --policy file into ts. Returns 0, or -1 after saying why not. */
static int load_policy(cli_tools *ts, const char *path)
{
    if (!(ts->policy = cli_read_file("--policy", path, &ts->policy_len)))
        return -1;
    ts->policy_file = path;
    return 0;
}

int cli_tools_load(const char *const *tool_files, int n_tool_files, const char *policy_file,
                   const char *const *allows, int n_allows, uint64_t max_result, cli_tools **out)
{
    *out = NULL;
    cli_tools *ts = calloc(1, sizeof(*ts));
    if (ts)
        pthread_mutex_init(&ts->log_lock, NULL);
    if (!ts || (n_allows > 0 && !(ts->allows = calloc((size_t)n_allows, sizeof(char *))))) {
        cli_error("out of memory reading the tools");
        cli_tools_free(ts);
        return -1;
    }
    for (int i = 0; i < n_tool_files; i++) {
        if (load_tools(ts, tool_files[i], max_result) != 0) {
            cli_tools_free(ts);
            return -1;
        }
    }
    if (policy_file && load_policy(ts, policy_file) != 0) {
        cli_tools_free(ts);
        return -1;
    }
    for (int i = 0; i < n_allows; i++) {
        if (!(ts->allows[i] = strdup(allows[i]))) {
            cli_error("out of memory reading the tools");
            cli_tools_free(ts);
            return -1;
        }
        ts->n_allows++;
    }
    *out = ts;
    return 0;
}

/* The definition of command tool ct: its callback runs the command. */
static void cmd_tool_def(cmd_tool *ct, capsa_tool_def *def)
{
    capsa_tool_def_init(def);
    def->name = ct->name;
    def->description = ct->description;
    def->parameters = ct->schema;
    def->fn = run_command_tool;
    def->ud = ct;
    def->timeout_ms = ct->timeout_ms;
}

int cli_tools_defs(const cli_tools *ts, capsa_tool_def *defs)
{
    for (int i = 0; i < ts->n_tools; i++)
        cmd_tool_def(ts->tools[i], &defs[i]);
    return ts->n_tools;
}

long cli_tools_mcp_defs(const cli_tools *ts, capsa_tool_def **defs, uint64_t *mcp_generation)
{
    *defs = NULL;
    if (!ts->mcp)
        return 0;
    size_t room = capsa_mcp_client_defs(ts->mcp, NULL, 0, NULL);
    for (;;) { /* a list that grew meanwhile: again, with room for it */
        capsa_tool_def *d = malloc((room ? room : 1) * sizeof(*d));
        if (!d)
            return -1;
        size_t n = capsa_mcp_client_defs(ts->mcp, d, room, mcp_generation);
        if (n <= room) {
            *defs = d;
            return (long)n;
        }
        free(d);
        room = n;
    }
}

/* The MCP client's log: its warnings on stderr and in --mcp-log; routine events,
 * the servers' stderr and log messages in --mcp-log only. */
static void mcp_log(void *ud, const char *server, int kind, const char *text, size_t len)
{
    cli_tools *ts = ud;
    pthread_mutex_lock(&ts->log_lock);
    if (kind == CAPSA_MCP_LOG_EVENT)
        /* a warning, from the client's threads: not one of the command's errors */
        fprintf(stderr, "capsa: MCP server '%s': %.*s\n", server, (int)len, text);
    if (ts->mcp_log) {
        fprintf(ts->mcp_log, "[%s]%s %.*s\n", server,
                kind == CAPSA_MCP_LOG_EVENT || kind == CAPSA_MCP_LOG_INFO ? " capsa:"
                : kind == CAPSA_MCP_LOG_MESSAGE                          ? " log:" : "",
                (int)len, text);
        fflush(ts->mcp_log);
    }
    pthread_mutex_unlock(&ts->log_lock);
}

int cli_tools_mcp(cli_tools *ts, const char *const *files, int n_files, const char *log_file)
{
    if (n_files == 0)
        return 0;
    if (log_file && !(ts->mcp_log = fopen(log_file, "a"))) {
        cli_error("--mcp-log: cannot open '%s': %s", log_file, strerror(errno));
        return -1;
    }
    capsa_mcp_options o;
    capsa_mcp_options_init(&o);
    o.on_log = mcp_log;
    o.on_log_ud = ts;
    if (capsa_mcp_client_new(&o, &ts->mcp) != CAPSA_OK) {
        cli_error("cannot start the MCP client: out of memory");
        return -1;
    }
    for (int i = 0; i < n_files; i++) {
        FILE *f = fopen(files[i], "rb");
        size_t len = 0;
        char *text = f ? cli_read_all(f, &len) : NULL;
        int saved = errno;
        if (f)
            fclose(f);
        if (!text) {
            cli_error("--mcp-config: cannot read '%s': %s", files[i],
                      saved == EFBIG ? "over 64 MiB" : strerror(saved));
            return -1;
        }
        int rc = capsa_mcp_client_configure(ts->mcp, text, len);
        free(text);
        if (rc != CAPSA_OK) {
            cli_error("--mcp-config %s: %s", files[i], capsa_mcp_client_errmsg(ts->mcp));
            return -1;
        }
    }
    capsa_mcp_client_start(ts->mcp);
    return 0;
}

void cli_tools_refresh(const cli_tools *ts, capsa_sandbox *sb, uint64_t *mcp_generation)
{
    if (ts->mcp)
        capsa_mcp_client_attach(ts->mcp, sb, mcp_generation); /* failures: on the log */
}

int cli_tools_apply(const cli_tools *ts, capsa_sandbox *sb, uint64_t *mcp_generation)
{
    for (int i = 0; i < ts->n_tools; i++) {
        cmd_tool *ct = ts->tools[i];
        capsa_tool_def def;
        cmd_tool_def(ct, &def);
        if (capsa_tool_add(sb, &def) != CAPSA_OK) {
            cli_error("--tools %s: tools[%zu]: %s", ct->file, ct->index, capsa_errmsg(sb));
            return -1;
        }
    }
    /* An upstream tool that cannot be registered (its schema, its name taken by a
       --tools tool) is left out, reported by the client's log on stderr. */
    uint64_t none = 0;
    if (ts->mcp)
        capsa_mcp_client_attach(ts->mcp, sb, mcp_generation ? mcp_generation : &none);
    if (ts->policy && capsa_policy_set(sb, ts->policy, ts->policy_len) != CAPSA_OK) {
        cli_error("--policy %s: %s", ts->policy_file, capsa_errmsg(sb));
        return -1;
    }
    for (int i = 0; i < ts->n_allows; i++) {
        if (capsa_policy_add(sb, ts->allows[i], NULL, 0) != CAPSA_OK) {
            cli_error("--allow: %s", capsa_errmsg(sb));
            return -1;
        }
    }
    return 0;
}
