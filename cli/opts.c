/* What every capsa command shares on its command line (see opts.h): values with
 * units, errors on stderr or as JSON, the --audit file, --env and --env-file. */
#define _GNU_SOURCE
#include "opts.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "capsa.h"
#include "tools.h"
#include "../src/json_write.h"

/* ---- values with units ------------------------------------------------------------- */

/* A decimal number at the start of s (digits, at most one '.'; no sign, no
 * exponent): *end past it. Returns 0, or -1 when there is none. */
static int leading_number(const char *s, double *v, const char **end)
{
    const char *p = s;
    int digits = 0, dot = 0;
    for (; *p; p++) {
        if (*p >= '0' && *p <= '9')
            digits++;
        else if (*p == '.' && !dot)
            dot = 1;
        else
            break;
    }
    if (!digits)
        return -1;
    char buf[64];
    if ((size_t)(p - s) >= sizeof(buf))
        return -1;
    memcpy(buf, s, (size_t)(p - s));
    buf[p - s] = '\0';
    errno = 0;
    *v = strtod(buf, NULL);
    *end = p;
    return errno || !isfinite(*v) ? -1 : 0;
}

int cli_parse_size(const char *s, uint64_t unit, uint64_t lo, uint64_t hi, uint64_t *out)
{
    double v;
    const char *u;
    if (!s || leading_number(s, &v, &u) != 0)
        return -1;
    static const struct { const char *name; uint64_t mul; } units[] = {
        { "", 0 },  { "B", 1 },
        { "K", 1ull << 10 }, { "KB", 1ull << 10 }, { "KiB", 1ull << 10 },
        { "M", 1ull << 20 }, { "MB", 1ull << 20 }, { "MiB", 1ull << 20 },
        { "G", 1ull << 30 }, { "GB", 1ull << 30 }, { "GiB", 1ull << 30 },
        { "T", 1ull << 40 }, { "TB", 1ull << 40 }, { "TiB", 1ull << 40 },
    };
    uint64_t mul = 0;
    int found = 0;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcasecmp(u, units[i].name) == 0) {
            mul = units[i].mul ? units[i].mul : unit;
            found = 1;
            break;
        }
    }
    if (!found)
        return -1;
    double bytes = v * (double)mul;
    if (bytes != floor(bytes) || bytes > 1.8e19)
        return -1; /* a fraction of a byte, or past uint64_t */
    uint64_t n = (uint64_t)bytes;
    if (n < lo || n > hi)
        return -1;
    *out = n;
    return 0;
}

int cli_parse_seconds(const char *s, double lo, double hi, double *out)
{
    double v;
    const char *u;
    if (!s || leading_number(s, &v, &u) != 0)
        return -1;
    double mul;
    if (!*u || strcmp(u, "s") == 0)
        mul = 1;
    else if (strcmp(u, "ms") == 0)
        mul = 0.001;
    else if (strcmp(u, "m") == 0 || strcmp(u, "min") == 0)
        mul = 60;
    else if (strcmp(u, "h") == 0)
        mul = 3600;
    else
        return -1;
    v *= mul;
    if (!(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

int cli_parse_count(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(s, &end, 10);
    if (errno || *end || n < lo || n > hi)
        return -1;
    *out = n;
    return 0;
}

int cli_parse_listen(const char *v, char *host, size_t size, uint16_t *port)
{
    const char *port_s = v, *colon = strrchr(v, ':');
    snprintf(host, size, "127.0.0.1");
    if (v[0] == '[') {
        const char *end = strchr(v, ']');
        if (!end || end[1] != ':' || (size_t)(end - v) >= size)
            return cli_usage("--http wants [HOST:]PORT, not '%s'", v);
        snprintf(host, size, "%.*s", (int)(end - v - 1), v + 1);
        port_s = end + 2;
    } else if (colon) {
        if ((size_t)(colon - v) >= size || colon == v)
            return cli_usage("--http wants [HOST:]PORT, not '%s'", v);
        snprintf(host, size, "%.*s", (int)(colon - v), v);
        port_s = colon + 1;
    }
    uint64_t n;
    if (cli_parse_count(port_s, 0, 65535, &n) != 0)
        return cli_usage("--http wants a port from 0 to 65535, not '%s'", port_s);
    *port = (uint16_t)n;
    return 0;
}

int cli_limit_option(capsa_options *o, int c, const char *v)
{
    uint64_t n;
    double s;
    switch (c) {
    case CLI_OPT_MEMORY:
        if (cli_parse_size(v, 1u << 20, 8u << 20, 4ull << 30, &n) != 0)
            return cli_usage("--memory wants a size from 8M to 4G (a number alone is MiB), "
                             "not '%s'", v);
        o->memory_limit = n;
        return 0;
    case CLI_OPT_TIMEOUT:
        if (cli_parse_seconds(v, 0, 1e7, &s) != 0)
            return cli_usage("--timeout wants a time from 0 to 10000000s (as 30, 1.5s, 200ms, "
                             "2m), not '%s'", v);
        o->timeout_ms = (uint64_t)(s * 1000.0 + 0.5);
        if (s > 0 && o->timeout_ms == 0)
            o->timeout_ms = 1; /* a positive timeout below 0.5 ms still limits */
        return 0;
    case CLI_OPT_FUEL:
        if (cli_parse_count(v, 1, UINT64_MAX, &n) != 0)
            return cli_usage("--fuel wants a whole number above 0, not '%s'", v);
        o->fuel = n;
        return 0;
    case CLI_OPT_MAX_OUTPUT:
        if (cli_parse_size(v, 1, 1, UINT64_MAX, &n) != 0)
            return cli_usage("--max-output wants a size above 0 (a number alone is bytes), "
                             "not '%s'", v);
        o->max_output = n;
        return 0;
    case CLI_OPT_DISK:
        if (cli_parse_size(v, 1u << 20, 1u << 20, 1ull << 40, &n) != 0)
            return cli_usage("--disk wants a size from 1M to 1T (a number alone is MiB), "
                             "not '%s'", v);
        o->fs_max_bytes = n;
        return 0;
    default:
        return 1;
    }
}

char *cli_read_file(const char *opt, const char *path, size_t *len)
{
    const char *sep = *opt ? ": " : "";
    FILE *in = fopen(path, "rb");
    if (!in) {
        cli_error("%s%scannot open '%s': %s", opt, sep, path, strerror(errno));
        return NULL;
    }
    char *data = cli_read_all(in, len);
    int saved = errno;
    fclose(in);
    if (!data)
        cli_error("%s%scannot read '%s': %s", opt, sep, path,
                  saved == EFBIG ? "over 64 MiB" : strerror(saved));
    return data;
}

/* ---- errors ------------------------------------------------------------------------ */

static const char *prog_prefix = "capsa", *prog_command = "";
static int json_errors, json_printed, usage_kept;
static char *kept; /* the first error under --json */

void cli_set_program(const char *prefix, const char *command)
{
    prog_prefix = prefix;
    prog_command = command;
}

void cli_set_json_errors(int on)
{
    json_errors = on;
}

void cli_json_printed(void)
{
    json_printed = 1;
}

static void report(int usage, const char *fmt, va_list ap)
{
    if (json_errors && !json_printed) {
        if (!kept) {
            if (vasprintf(&kept, fmt, ap) < 0)
                kept = NULL;
            usage_kept = usage;
        }
        return;
    }
    fprintf(stderr, "%s: ", prog_prefix);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    if (usage)
        fprintf(stderr, "Try 'capsa %s%s--help'.\n", prog_command, *prog_command ? " " : "");
}

int cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(0, fmt, ap);
    va_end(ap);
    return CLI_EXIT_USAGE;
}

int cli_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(1, fmt, ap);
    va_end(ap);
    return CLI_EXIT_USAGE;
}

int cli_finish(int status)
{
    if (kept && !json_printed) {
        json_t *o = json_pack("{s:n, s:{s:s, s:s}, s:i}", "value", "error", "name",
                              usage_kept ? "UsageError" : "Error", "message", kept,
                              "exit_status", status);
        char *text = o ? capsa__json_dumps(o, JSON_COMPACT) : NULL;
        if (text)
            puts(text);
        else /* out of memory, or a message that is not UTF-8: said on stderr instead */
            fprintf(stderr, "%s: %s\n", prog_prefix, kept);
        free(text);
        json_decref(o);
        fflush(stdout);
    }
    free(kept);
    kept = NULL;
    json_errors = json_printed = 0;
    return status;
}

void cli_print_error(const capsa_result *r)
{
    const char *name = capsa_result_error_name(r);
    const char *message = capsa_result_error_message(r);
    const char *stack = capsa_result_error_stack(r);
    if (name && strcmp(name, "Uncaught") == 0)
        fprintf(stderr, "Uncaught %s\n", message ? message : "");
    else if (message && *message)
        fprintf(stderr, "%s: %s\n", name ? name : "Error", message);
    else
        fprintf(stderr, "%s\n", name ? name : "Error");
    if (stack && *stack)
        fprintf(stderr, "%s%s", stack, stack[strlen(stack) - 1] == '\n' ? "" : "\n");
}

int cli_getopt_error(int c, char **argv, const struct option *opts)
{
    if (c == ':') {
        for (const struct option *o = opts; o->name; o++) {
            if (o->val == optopt && optopt)
                return cli_usage("--%s needs a value", o->name);
        }
        if (optopt)
            return cli_usage("-%c needs a value", optopt);
        return cli_usage("%s needs a value", argv[optind - 1]);
    }
    if (c == '?') {
        if (optopt)
            return cli_usage("unknown option '-%c'", optopt);
        const char *a = argv[optind - 1];
        size_t n = strcspn(a, "=");
        /* getopt_long takes a unique prefix of a long option: one that is the
           prefix of several lands here too. */
        const char *name = a + strspn(a, "-");
        size_t nl = n - (size_t)(name - a);
        int matches = 0;
        for (const struct option *o = opts; o->name && nl; o++)
            matches += strncmp(o->name, name, nl) == 0;
        if (matches > 1)
            return cli_usage("ambiguous option '%.*s': give more of its name", (int)n, a);
        return cli_usage("unknown option '%.*s'", (int)n, a);
    }
    return -1;
}

int cli_wants_json(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "--json") == 0)
            return 1;
    }
    return 0;
}

/* ---- tools and capabilities ------------------------------------------------------- */

int cli_shared_option(capsa_options *limits, cli_tool_opts *t, int c, const char *v, char **argv,
                      const struct option *longs)
{
    int st = cli_limit_option(limits, c, v);
    if (st == 1)
        st = cli_tool_option(t, c, v);
    return st == 1 ? cli_getopt_error(c, argv, longs) : st;
}

int cli_tool_option(cli_tool_opts *t, int c, const char *v)
{
    static const char *const names[] = { "tools", "policy", "allow", "audit", "mcp-config",
                                         "mcp-log" };
    if (c < CLI_OPT_TOOLS || c > CLI_OPT_MCP_LOG)
        return 1;
    const char *name = names[c - CLI_OPT_TOOLS];
    if (!v[0])
        return cli_usage("--%s needs %s", name, c == CLI_OPT_ALLOW ? "a pattern" : "a file");
    switch (c) {
    case CLI_OPT_TOOLS:
        if (t->n_tool_files >= CLI_MAX_TOOL_FILES)
            return cli_usage("at most %d of --tools", CLI_MAX_TOOL_FILES);
        t->tool_files[t->n_tool_files++] = v;
        break;
    case CLI_OPT_POLICY:
        if (t->policy_file)
            return cli_usage("give one --policy (add patterns with --allow)");
        t->policy_file = v;
        break;
    case CLI_OPT_ALLOW:
        if (t->n_allows >= CLI_MAX_ALLOWS)
            return cli_usage("at most %d of --allow", CLI_MAX_ALLOWS);
        t->allows[t->n_allows++] = v;
        break;
    case CLI_OPT_AUDIT:
        t->audit_file = v;
        break;
    case CLI_OPT_MCP_CONFIG:
        if (t->n_mcp_files >= CLI_MAX_TOOL_FILES)
            return cli_usage("at most %d of --mcp-config", CLI_MAX_TOOL_FILES);
        t->mcp_files[t->n_mcp_files++] = v;
        break;
    default:
        t->mcp_log = v;
        break;
    }
    return 0;
}

/* ---- the audit file ---------------------------------------------------------------- */

static FILE *audit_out;
static pthread_mutex_t audit_lock = PTHREAD_MUTEX_INITIALIZER;

int cli_audit_open(const char *path)
{
    audit_out = strcmp(path, "-") == 0 ? stderr : fopen(path, "a");
    if (!audit_out)
        return cli_error("--audit: cannot open '%s': %s", path, strerror(errno)), -1;
    return 0;
}

void cli_audit_write(const char *session, const char *line, size_t len)
{
    pthread_mutex_lock(&audit_lock);
    if (audit_out) {
        if (session && len > 1 && line[0] == '{') {
            fprintf(audit_out, "{\"session\":\"%s\",", session);
            fwrite(line + 1, 1, len - 1, audit_out);
        } else {
            fwrite(line, 1, len, audit_out);
        }
        fputc('\n', audit_out);
        fflush(audit_out);
    }
    pthread_mutex_unlock(&audit_lock);
}

int cli_audit_active(void)
{
    return audit_out != NULL;
}

void cli_audit_close(void)
{
    pthread_mutex_lock(&audit_lock);
    if (audit_out && audit_out != stderr)
        fclose(audit_out);
    audit_out = NULL;
    pthread_mutex_unlock(&audit_lock);
}

/* ---- the script's environment ------------------------------------------------------ */

/* Whether name[0..n) is a variable name: not empty, no '=' and no NUL. */
static int env_name_ok(const char *name, size_t n)
{
    return n > 0 && !memchr(name, '=', n);
}

/* Sets name[0..n)=value, replacing an earlier setting. Returns 0 or -1 (memory). */
static int env_set(cli_env *e, const char *name, size_t n, const char *value)
{
    char *var;
    if (asprintf(&var, "%.*s=%s", (int)n, name, value) < 0)
        return -1;
    for (size_t i = 0; i < e->n; i++) {
        if (strncmp(e->vars[i], name, n) == 0 && e->vars[i][n] == '=') {
            free(e->vars[i]);
            e->vars[i] = var;
            return 0;
        }
    }
    if (e->n == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 16;
        char **nv = realloc(e->vars, cap * sizeof(*nv));
        if (!nv) {
            free(var);
            return -1;
        }
        e->vars = nv;
        e->cap = cap;
    }
    e->vars[e->n++] = var;
    return 0;
}

int cli_env_add(cli_env *e, const char *spec)
{
    const char *eq = strchr(spec, '=');
    size_t n = eq ? (size_t)(eq - spec) : strlen(spec);
    if (!env_name_ok(spec, n))
        return cli_usage("--env wants NAME=VALUE or NAME, not '%s'", spec);
    const char *value = eq ? eq + 1 : getenv(spec);
    if (!value)
        return 0; /* --env NAME, and capsa has no NAME: the script has none either */
    if (env_set(e, spec, n, value) != 0)
        return cli_error("out of memory reading --env");
    return 0;
}

int cli_env_file(cli_env *e, const char *path)
{
    size_t len = 0;
    char *text = cli_read_file("--env-file", path, &len);
    if (!text)
        return CLI_EXIT_USAGE;
    if (strlen(text) != len) {
        free(text);
        return cli_error("--env-file %s: the file contains a NUL byte", path);
    }
    int status = 0, lineno = 0;
    for (char *line = text, *next; line && !status; line = next) {
        lineno++;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        size_t l = strlen(line);
        if (l && line[l - 1] == '\r')
            line[--l] = '\0';
        line += strspn(line, " \t");
        if (!*line || *line == '#')
            continue;
        if (strncmp(line, "export ", 7) == 0)
            line += 7 + strspn(line + 7, " \t");
        char *eq = strchr(line, '=');
        size_t n = eq ? (size_t)(eq - line) : 0;
        while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
            n--;
        if (!eq || !env_name_ok(line, n) || strcspn(line, " \t") < n) {
            status = cli_error("--env-file %s: line %d: expected NAME=VALUE", path, lineno);
            break;
        }
        char *value = eq + 1;
        size_t vl = strlen(value);
        if (vl >= 2 && (value[0] == '"' || value[0] == '\'') && value[vl - 1] == value[0]) {
            value[vl - 1] = '\0';
            value++;
        }
        if (env_set(e, line, n, value) != 0)
            status = cli_error("out of memory reading --env-file");
    }
    free(text);
    return status;
}

void cli_env_free(cli_env *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->vars[i]);
    free(e->vars);
    memset(e, 0, sizeof(*e));
}
