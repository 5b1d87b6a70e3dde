/* capsa run and capsa shell: JavaScript, or shell command lines, in a sandbox
 * made from the command line's options (limits, files, tools and capabilities,
 * the script's arguments and environment), optionally kept across commands as a
 * checkpoint file (--session). Built on include/capsa.h only. */
#define _GNU_SOURCE
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capsa.h"
#include "opts.h"
#include "repl.h"
#include "tools.h"

/* ---- help --------------------------------------------------------------------------- */

/* The options run and shell share. */
#define SANDBOX_OPTIONS                                                                    \
    "limits (units: K, M, G for sizes; ms, s, m, h for times):\n"                          \
    "  --memory SIZE   guest memory limit (default 256M, 8M..4G; a number alone\n"         \
    "                  is MiB)\n"                                                          \
    "  --timeout TIME  wall-clock limit of the run (default 30s; 0: none; a number\n"      \
    "                  alone is seconds, fractions allowed)\n"                             \
    "  --fuel N        instruction budget: function entries and loop iterations\n"         \
    "                  the run may execute (default: none); deterministic\n"               \
    "  --max-output SIZE\n"                                                                \
    "                  bytes of stdout and of stderr let through (default 16M; a\n"        \
    "                  number alone is bytes); then a marker line, and the rest is\n"      \
    "                  only counted\n"                                                     \
    "  --disk SIZE     filesystem quota (default 64M; a number alone is MiB); over\n"      \
    "                  it, writes fail with ENOSPC\n"                                      \
    "  --max-files N   files, directories and symlinks the filesystem may hold\n"          \
    "                  (default 10000)\n"                                                  \
    "  --max-stdin SIZE\n"                                                                 \
    "                  bytes of standard input the program may read (default\n"           \
    "                  64M; a number alone is bytes); past them its read fails\n"         \
    "                  (EFBIG)\n"                                                          \
    "\n"                                                                                   \
    "files:\n"                                                                             \
    "  --mount HOST:GUEST[:ro|rw]\n"                                                       \
    "                  copy the host directory HOST into the sandbox at GUEST\n"           \
    "                  (read-only by default); with :rw the script may change it\n"        \
    "                  and its changes are written back to HOST after the run\n"           \
    "                  (files the script removed are removed); repeatable\n"               \
    "  --file HOST:GUEST\n"                                                                \
    "                  copy the host file HOST to GUEST (relative GUEST paths are\n"       \
    "                  under /workspace); repeatable\n"                                    \
    "  --out DIR       after the run, copy /workspace to the host directory DIR\n"         \
    "                  (created; files replaced, others left; symlinks skipped)\n"         \
    "  --session FILE  keep the sandbox in FILE across commands: a checkpoint of\n"        \
    "                  its JS state, files, limits, policy (with the calls each\n"         \
    "                  capability has allowed) and tools. Loaded when FILE exists\n"       \
    "                  (--tools and --mcp-config bind its tools again by name;\n"         \
    "                  its limits and policy stay, so --memory, --timeout,\n"              \
    "                  --fuel, --max-output, --disk, --max-files, --policy and\n"        \
    "                  --allow are ignored;\n"                                            \
    "                  --mount gives its mounts their host directories again),\n"          \
    "                  else a new session; saved after the run, atomically (a\n"          \
    "                  temporary file, fsync, rename). A FILE that is not a\n"             \
    "                  checkpoint of this build, or whose directory is missing\n"          \
    "                  or not writable, is an input error (status 2) found\n"              \
    "                  before anything runs\n"                                             \
    "\n"                                                                                   \
    "tools and capabilities:\n"                                                            \
    "  --tools FILE    host tools the script may call, each an external command:\n"        \
    "                  {\"tools\": [{\"name\": \"math.add\", \"description\": \"...\",\n"  \
    "                  \"parameters\": {JSON Schema}, \"command\": [\"prog\", \"arg\"],\n" \
    "                  \"timeout_ms\": 30000}]}. The command gets the call's JSON\n"       \
    "                  arguments on stdin and prints its JSON result on stdout; a\n"       \
    "                  non-zero exit fails the call with its stderr as message. It\n"      \
    "                  runs without a shell, in the file's directory, with only\n"         \
    "                  PATH and LANG set, and is killed at its timeout. Scripts\n"         \
    "                  call tools.math.add({...}) or math_add({...}); repeatable\n"        \
    "  --policy FILE   the capabilities that allow tool calls (none: every call\n"         \
    "                  is denied): {\"capabilities\": [{\"pattern\": \"math.**\",\n"       \
    "                  \"constraints\": [{\"param\": \"a\", \"op\": \"<=\", \"value\": 10}],\n" \
    "                  \"max_calls\": 3}]}\n"                                              \
    "  --allow PATTERN allow the tools matching PATTERN, without constraints\n"            \
    "                  (\"math.add\", \"github.*\", \"**\"; '/' is the same separator\n"   \
    "                  as '.': \"github/*\" is \"github.*\"); repeatable\n"                \
    "  --mcp-config FILE  upstream MCP servers whose tools the script may call,\n"      \
    "                  in the mcpServers format of MCP clients: {\"mcpServers\":\n"    \
    "                  {\"S\": {\"command\": \"prog\", \"args\": [...], \"env\": {...}}}}\n" \
    "                  for stdio servers, {\"url\": \"http://...\", \"headers\": {...}}\n" \
    "                  for Streamable HTTP ones. Tool T of server S is the tool\n"      \
    "                  S.T (tools.S.T({...}) in JS), checked by the policy like\n"      \
    "                  any other; servers start at once, one that fails is\n"          \
    "                  reported and its tools are absent; repeatable\n"                \
    "  --mcp-log FILE  append the MCP servers' stderr and log messages to FILE\n"       \
    "  --audit FILE    append the audit trail (one JSON line per tool call and\n"          \
    "                  run event, also in /log/actions.jsonl) to FILE; - : stderr.\n"      \
    "                  At most 64 MiB per command: past it, tool calls are\n"              \
    "                  refused (audit_unavailable: the audit fails closed)\n"              \
    "\n"                                                                                   \
    "output:\n"                                                                            \
    "  --json          print one JSON object {stdout, stderr, value, error, stats}\n"      \
    "                  instead of streaming the output; errors of capsa itself\n"          \
    "                  (usage, files) are then {\"value\": null, \"error\": {\"name\",\n"  \
    "                  \"message\"}, \"exit_status\"} too\n"                               \
    "  -h, --help      show this help\n"                                                   \
    "\n"                                                                                   \
    "Options come before the program; a long option's value may follow '=' (for\n"        \
    "--memory=64M), short options bundle, and -- ends the options.\n"

static const char run_usage[] =
    "usage: capsa run [options] FILE [ARG...]     run a JavaScript file\n"
    "       capsa run [options] -e CODE [ARG...]  run CODE\n"
    "       capsa run [options] - [ARG...]        run what standard input holds\n"
    "\n"
    "The code runs in a WebAssembly sandbox as the body of an async function:\n"
    "top-level await works and `return x` gives the run's value, printed as JSON\n"
    "after the script's own output. The sandbox has no network and only the memory\n"
    "it is given. It sees a filesystem of its own, in memory: / read-only,\n"
    "/workspace (the working directory) and /tmp read-write, /tools read-only,\n"
    "/log append-only, /dev/null; host files only where --mount and --file put\n"
    "them. The words after the program are the script's process.argv[2...]\n"
    "(options after the program are the script's too).\n"
    "\n"
    "the script:\n"
    "  -e, --eval CODE run CODE instead of a file\n"
    "  --env NAME=VALUE  set NAME in the script's process.env; --env NAME passes\n"
    "                  capsa's own NAME. Nothing of capsa's environment reaches\n"
    "                  the script unless named so; repeatable\n"
    "  --env-file FILE NAME=VALUE lines for process.env (# comments, blank lines,\n"
    "                  \"export \" and quotes around VALUE allowed); repeatable\n"
    "\n" SANDBOX_OPTIONS
    "\n"
    "exit status: 0 success, 1 the script threw (or the guest trapped),\n"
    "             2 usage or input error (or a host file error), 3 a limit\n"
    "             stopped the run (time, fuel); process.exit(N) and\n"
    "             process.exitCode give N\n";

static const char shell_usage[] =
    "usage: capsa shell [options] -c CMDLINE  run a shell command line (piped input\n"
    "                                         is its standard input)\n"
    "       capsa shell [options] FILE | -    run a shell script (a file, or stdin)\n"
    "       capsa shell [options]             interactive shell\n"
    "\n"
    "The shell runs inside the sandbox (it sees only the sandbox's files; `js -e\n"
    "CODE` runs JavaScript, `tool NAME --PARAM VALUE` calls a tool under the same\n"
    "policy, `help` lists every command). Its grammar is POSIX sh's: pipelines,\n"
    "&& || ;, ( ) { }, if, for, while, until, case, functions, redirections,\n"
    "here-documents, $(...), $((...)), set -e -u -o pipefail.\n"
    "\n"
    "Interactive (no -c, no FILE): one command line after another until `exit` or\n"
    "the end of input. On a terminal, lines can be edited and recalled (history\n"
    "in $HOME/.capsa_history; CAPSA_HISTFILE names another file, empty: none),\n"
    "a command line left open (an if without fi, an open quote, a trailing |)\n"
    "continues on the next line, and Ctrl-C stops the running command (or drops\n"
    "the line being typed), not the shell.\n"
    "\n"
    "the command line:\n"
    "  -c, --command CMDLINE  run CMDLINE\n"
    "\n" SANDBOX_OPTIONS
    "\n"
    "exit status: the command line's status (of the last one, interactive);\n"
    "             2 usage or input error; 124 a limit (time, fuel) stopped it;\n"
    "             125 the shell could not run it\n";

/* ---- options ------------------------------------------------------------------------ */

#define MAX_FS_ARGS 64

/* A --mount or --file: a host path, a guest path and (mounts) a mode. */
typedef struct fs_arg {
    char *host, *guest; /* one allocation, split at the colon */
    int mode;
} fs_arg;

typedef struct run_opts {
    int shell;             /* capsa shell: code_arg is -c's command line */
    int json;
    capsa_options limits;  /* --memory, --timeout, --fuel, --max-output, --disk,
                              --max-files: capsa_options_init's, changed by those */
    const char *code_arg;  /* -e CODE, -c CMDLINE */
    const char *path;      /* FILE, or "-" */
    char **args;           /* the script's arguments (into argv) */
    int n_args;
    cli_env env;
    fs_arg mounts[MAX_FS_ARGS], files[MAX_FS_ARGS];
    int n_mounts, n_files;
    const char *out_dir;   /* --out */
    cli_tool_opts t;       /* --tools, --policy, --allow, --audit, --mcp-config */
    uint64_t max_stdin;    /* --max-stdin; 0: the library's default */
    const char *session;   /* --session FILE */
    int limits_given;      /* an option that a loaded session ignores */
} run_opts;

static void run_opts_free(run_opts *o)
{
    for (int i = 0; i < o->n_mounts; i++)
        free(o->mounts[i].host);
    for (int i = 0; i < o->n_files; i++)
        free(o->files[i].host);
    cli_env_free(&o->env);
}

/* Splits "HOST:GUEST[:ro|rw]" (modes only when with_mode). Returns 0, or -1 when
 * either part is missing or out of memory. */
static int parse_fs_arg(const char *spec, int with_mode, fs_arg *out)
{
    char *copy = strdup(spec);
    if (!copy)
        return -1;
    out->mode = CAPSA_MOUNT_RO;
    char *last = strrchr(copy, ':');
    if (with_mode && last && (strcmp(last, ":ro") == 0 || strcmp(last, ":rw") == 0)) {
        out->mode = strcmp(last, ":rw") == 0 ? CAPSA_MOUNT_RW : CAPSA_MOUNT_RO;
        *last = '\0';
        last = strrchr(copy, ':');
    }
    if (!last || last == copy || last[1] == '\0' ||
        (with_mode && last[1] != '/' && memchr(copy, ':', (size_t)(last - copy)))) {
        /* "HOST:GUEST:rx" is a mistyped mode, not a mount of "HOST:GUEST" at "rx". */
        free(copy);
        return -1;
    }
    *last = '\0';
    out->host = copy;
    out->guest = last + 1;
    return 0;
}

enum {
    OPT_JSON = 256,
    OPT_MAX_FILES, OPT_MAX_STDIN, OPT_MOUNT, OPT_FILE, OPT_OUT, OPT_SESSION, OPT_ENV, OPT_ENV_FILE,
};

/* The long options run and shell share, and the end of the list. */
#define SHARED_LONG                                                                        \
    { "json", no_argument, NULL, OPT_JSON },                                               \
    CLI_LIMIT_LONG_OPTIONS,                                                                \
    { "max-files", required_argument, NULL, OPT_MAX_FILES },                               \
    { "max-stdin", required_argument, NULL, OPT_MAX_STDIN },                               \
    { "mount", required_argument, NULL, OPT_MOUNT },                                       \
    { "file", required_argument, NULL, OPT_FILE },                                         \
    { "out", required_argument, NULL, OPT_OUT },                                           \
    { "session", required_argument, NULL, OPT_SESSION },                                   \
    CLI_TOOL_LONG_OPTIONS,                                                                 \
    { "help", no_argument, NULL, 'h' },                                                    \
    { NULL, 0, NULL, 0 }

static const struct option run_long[] = {
    { "eval", required_argument, NULL, 'e' },
    { "env", required_argument, NULL, OPT_ENV },
    { "env-file", required_argument, NULL, OPT_ENV_FILE },
    SHARED_LONG
};

static const struct option shell_long[] = {
    { "command", required_argument, NULL, 'c' },
    SHARED_LONG
};

/* Reads argv (argv[0] the command's name) into o. Returns 0, -1 after printing
 * the help (done), or a usage error's status. */
static int parse_options(run_opts *o, int argc, char **argv)
{
    const struct option *longs = o->shell ? shell_long : run_long;
    /* '+': the first word that is not an option ends them (it is the program;
       what follows is the script's); ':': a missing value is reported as such. */
    const char *shorts = o->shell ? "+:hc:" : "+:he:";
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        const char *v = optarg;
        switch (c) {
        case 'h':
            fputs(o->shell ? shell_usage : run_usage, stdout);
            return -1;
        case 'e':
        case 'c':
            if (o->code_arg)
                return cli_usage("give one program: FILE, -%c %s or -", c,
                                 c == 'e' ? "CODE" : "CMDLINE");
            o->code_arg = v;
            break;
        case OPT_JSON:
            o->json = 1;
            break;
        case OPT_MAX_FILES:
            if (cli_parse_count(v, 1, 1ull << 32, &o->limits.fs_max_entries) != 0)
                return cli_usage("--max-files wants a whole number from 1 to 4294967296, "
                                 "not '%s'", v);
            o->limits_given = 1;
            break;
        case OPT_MAX_STDIN:
            if (cli_parse_size(v, 1, 1, UINT64_MAX, &o->max_stdin) != 0)
                return cli_usage("--max-stdin wants a size above 0 (a number alone is bytes), "
                                 "not '%s'", v);
            break;
        case OPT_MOUNT:
        case OPT_FILE: {
            int mount = c == OPT_MOUNT;
            int *n = mount ? &o->n_mounts : &o->n_files;
            if (*n >= MAX_FS_ARGS)
                return cli_usage("at most 64 of --%s", mount ? "mount" : "file");
            if (parse_fs_arg(v, mount, mount ? &o->mounts[*n] : &o->files[*n]) != 0)
                return cli_usage(mount ? "--mount wants HOST:GUEST[:ro|rw], not '%s'"
                                       : "--file wants HOST:GUEST, not '%s'", v);
            (*n)++;
            break;
        }
        case OPT_OUT:
            if (!v[0])
                return cli_usage("--out needs a host directory");
            o->out_dir = v;
            break;
        case OPT_SESSION:
            if (!v[0])
                return cli_usage("--session needs a file");
            o->session = v;
            break;
        case OPT_ENV: {
            int st = cli_env_add(&o->env, v);
            if (st)
                return st;
            break;
        }
        case OPT_ENV_FILE: {
            int st = cli_env_file(&o->env, v);
            if (st)
                return st;
            break;
        }
        default: {
            int st = cli_limit_option(&o->limits, c, v);
            if (st == 0)
                o->limits_given = 1;
            if (st == 1)
                st = cli_tool_option(&o->t, c, v);
            if (st == 1)
                return cli_getopt_error(c, argv, longs);
            if (st)
                return st;
            break;
        }
        }
    }
    /* The program, then the script's arguments. */
    if (!o->code_arg && optind < argc)
        o->path = argv[optind++];
    o->args = argv + optind;
    o->n_args = argc - optind;
    if (o->shell && o->n_args > 0)
        return cli_usage("a shell script takes no arguments: '%s'", o->args[0]);
    if (!o->code_arg && !o->path && !o->shell)
        return cli_usage("run needs a program: FILE, -e CODE or -");
    return 0;
}

/* ---- the sandbox -------------------------------------------------------------------- */

static void stream_output(void *ud, int stream, const char *data, size_t len)
{
    (void)ud;
    FILE *f = stream == CAPSA_STDERR ? stderr : stdout;
    fwrite(data, 1, len, f);
    fflush(f);
}

static void write_audit(void *ud, const char *line, size_t len)
{
    (void)ud;
    cli_audit_write(NULL, line, len);
}

/* Puts the --mount directories and --file files into the sandbox. Returns 0, or
 * -1 after saying what failed. */
static int seed_files(capsa_sandbox *sb, const run_opts *o)
{
    for (int i = 0; i < o->n_mounts; i++) {
        const fs_arg *m = &o->mounts[i];
        if (capsa_fs_mount(sb, m->host, m->guest, m->mode) != CAPSA_OK) {
            cli_error("--mount: %s", capsa_errmsg(sb));
            return -1;
        }
    }
    for (int i = 0; i < o->n_files; i++) {
        const fs_arg *f = &o->files[i];
        size_t len = 0;
        char *data = cli_read_file("--file", f->host, &len);
        if (!data)
            return -1;
        int rc = capsa_fs_write(sb, f->guest, data, len);
        free(data);
        if (rc != CAPSA_OK) {
            cli_error("--file: %s", capsa_errmsg(sb));
            return -1;
        }
    }
    return 0;
}

/* ---- sessions (--session) ----------------------------------------------------------- */

/* Reads the session file at path: 0 with *data its bytes, or NULL when there is
 * no such file (a new session); -1 after saying what failed. */
static int session_read(const char *path, char **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return 0;
    struct stat st;
    const char *why = fd < 0 || fstat(fd, &st) != 0 ? strerror(errno)
                    : !S_ISREG(st.st_mode) ? "not a regular file" : NULL;
    char *buf = why ? NULL : malloc(st.st_size ? (size_t)st.st_size : 1);
    if (!why && !buf)
        why = "out of memory";
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n <= 0) {
            why = n < 0 ? strerror(errno) : "it became shorter while being read";
            break;
        }
        got += (size_t)n;
    }
    if (fd >= 0)
        close(fd);
    if (why) {
        cli_error("--session: cannot read '%s': %s", path, why);
        free(buf);
        return -1;
    }
    *data = buf;
    *len = got;
    return 0;
}

/* The directory of path into dir (".": path has no slash). */
static void session_dir(const char *path, char *dir, size_t size)
{
    snprintf(dir, size, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, size, ".");
    else
        slash[slash == dir ? 1 : 0] = '\0';
}

/* Whether a session could be saved at path (its directory exists and this
 * process may make files in it): checked before the run, so that a session that
 * cannot be kept does not run at all. Returns 0, or -1 after saying why not. */
static int session_writable(const char *path)
{
    char dir[4096];
    const char *why = NULL;
    if (strlen(path) + sizeof(".XXXXXX") > sizeof(dir)) { /* session_write's new file */
        why = "the path is too long";
    } else {
        session_dir(path, dir, sizeof(dir));
        if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0)
            why = strerror(errno);
    }
    if (why)
        cli_error("--session: cannot save '%s': %s", path, why);
    return why ? -1 : 0;
}

/* Saves sb's checkpoint at path atomically: written to a new file beside it
 * (mode 0600: a session holds the script's data), synced, renamed over path, and
 * the directory synced, so that path holds the old session or the new one, never
 * a part. Returns 0, or -1 after saying what failed. */
static int session_write(capsa_sandbox *sb, const char *path)
{
    char *data = NULL;
    size_t len = 0;
    if (capsa_checkpoint(sb, &data, &len) != CAPSA_OK) {
        cli_error("--session: cannot checkpoint the sandbox: %s", capsa_errmsg(sb));
        return -1;
    }
    char tmp[4096], dir[4096];
    int n = snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
    int fd = n > 0 && (size_t)n < sizeof(tmp) ? mkstemp(tmp) : -1;
    const char *why = fd < 0 ? strerror(errno) : NULL;
    for (size_t done = 0; !why && done < len;) {
        ssize_t w = write(fd, data + done, len - done);
        if (w <= 0)
            why = strerror(w < 0 ? errno : EIO);
        else
            done += (size_t)w;
    }
    if (!why && fsync(fd) != 0)
        why = strerror(errno);
    if (fd >= 0 && close(fd) != 0 && !why)
        why = strerror(errno);
    if (!why && rename(tmp, path) != 0)
        why = strerror(errno);
    capsa_free(data);
    if (why) {
        if (fd >= 0)
            unlink(tmp);
        cli_error("--session: cannot save '%s': %s", path, why);
        return -1;
    }
    session_dir(path, dir, sizeof(dir));
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

/* Makes the sandbox from a session's checkpoint data[0..len), its tools bound by
 * name to the commands of the --tools files (tools, already read and checked) and
 * to the --mcp-config servers' tools (*mcp_generation then as cli_tools_apply
 * sets it). Returns 0, or -1 after saying what failed. */
static int session_restore(capsa_engine *engine, const run_opts *o, const cli_tools *tools,
                           const capsa_options *opts, const char *data, size_t len,
                           uint64_t *mcp_generation, capsa_sandbox **out)
{
    capsa_tool_def defs[CLI_MAX_TOOLS];
    int n = cli_tools_defs(tools, defs);
    capsa_tool_def *mcp = NULL;
    long n_mcp = cli_tools_mcp_defs(tools, &mcp, mcp_generation);
    const capsa_tool_def **bind = n_mcp >= 0 ? malloc(((size_t)n + (size_t)n_mcp + 1) * sizeof(*bind))
                                             : NULL;
    if (!bind) {
        free(mcp);
        cli_error("--session %s: out of memory", o->session);
        return -1;
    }
    for (int i = 0; i < n; i++)
        bind[i] = &defs[i];
    for (long i = 0; i < n_mcp; i++)
        bind[n + i] = &mcp[i];
    capsa_restore_options ro;
    capsa_restore_options_init(&ro);
    ro.tools = bind;
    ro.n_tools = (size_t)n + (size_t)n_mcp;
    ro.on_output = opts->on_output;
    ro.on_audit = opts->on_audit;
    char msg[1024];
    int rc = capsa_sandbox_restore(engine, data, len, &ro, out, msg, sizeof(msg));
    free(bind);
    free(mcp);
    if (rc != CAPSA_OK) {
        cli_error("--session %s: %s%s", o->session, msg,
                  rc == CAPSA_ENOENT ? " (with --tools and --mcp-config: the files the "
                                       "session's tools came from)"
                                     : "");
        return -1;
    }
    if (o->limits_given || o->t.policy_file || o->t.n_allows)
        fprintf(stderr, "capsa: --session %s: the session keeps its own limits and policy (the "
                        "options that set them are ignored)\n", o->session); /* a warning */
    return 0;
}

/* Gives the script its arguments (process.argv after its path) and environment.
 * Returns 0, or -1 after saying what failed. */
static int give_args(capsa_sandbox *sb, const run_opts *o)
{
    if ((o->n_args && capsa_set_args(sb, (size_t)o->n_args, (const char *const *)o->args) !=
                          CAPSA_OK) ||
        (o->env.n && capsa_set_env(sb, o->env.n, (const char *const *)o->env.vars) != CAPSA_OK)) {
        cli_error("%s", capsa_errmsg(sb));
        return -1;
    }
    return 0;
}

/* Gives the program capsa's standard input, read as the program reads it (with
 * --max-stdin's limit), unless the program itself came from there. Returns 0, or
 * -1 after saying what failed. */
static int give_stdin(capsa_sandbox *sb, const run_opts *o)
{
    if (o->path && strcmp(o->path, "-") == 0)
        return 0; /* read already: the program's stdin is empty */
    if (capsa_set_stdin_fd(sb, 0, o->max_stdin) != CAPSA_OK) {
        cli_error("%s", capsa_errmsg(sb));
        return -1;
    }
    return 0;
}

/* Reads the program: -e's CODE as is, a file, or stdin ("-"). *code is NULL for
 * -e (the caller uses code_arg) and for the interactive shell. Returns 0, or an
 * input error's status after saying what failed. */
static int read_program(const run_opts *o, char **code, size_t *len, const char **filename)
{
    *code = NULL;
    *len = 0;
    *filename = "<input>";
    if (o->code_arg) {
        *len = strlen(o->code_arg);
    } else if (!o->path) {
        /* capsa shell: the interactive loop */
    } else if (strcmp(o->path, "-") == 0) {
        *code = cli_read_all(stdin, len);
        *filename = "<stdin>";
        if (!*code)
            return cli_error("cannot read standard input: %s",
                             errno == EFBIG ? "over 64 MiB" : strerror(errno));
    } else {
        *code = cli_read_file("", o->path, len);
        if (!*code)
            return CLI_EXIT_USAGE;
        *filename = o->path;
    }
    return 0;
}

/* Prints the result of a JS run (its value, or its error) and returns the exit
 * status. */
static int finish_run(capsa_sandbox *sb, const run_opts *o, int rc, const capsa_result *r)
{
    if (o->json) {
        char *json = capsa_result_json(r);
        if (!json)
            return cli_error("out of memory writing the result"), CLI_EXIT_THREW;
        puts(json);
        capsa_free(json);
        cli_json_printed();
    } else if (rc == CAPSA_OK) {
        const char *value = capsa_result_value(r);
        if (value)
            puts(value);
    } else if (rc == CAPSA_ETRAP || rc == CAPSA_ETIMEOUT || rc == CAPSA_EFUEL ||
               rc == CAPSA_EINTERRUPTED) {
        fprintf(stderr, "capsa: %s\n", capsa_errmsg(sb));
    } else {
        cli_print_error(r);
    }
    if (rc == CAPSA_OK && capsa_result_exit_code(r) >= 0)
        return capsa_result_exit_code(r); /* process.exit(), process.exitCode */
    return rc == CAPSA_OK ? CLI_EXIT_OK
         : rc == CAPSA_ETIMEOUT || rc == CAPSA_EFUEL ? CLI_EXIT_LIMIT : CLI_EXIT_THREW;
}

/* Runs a shell command line or script; its standard input is the sandbox's
 * (give_stdin), as for sh -c. */
static int run_shell(capsa_sandbox *sb, const run_opts *o, const char *code, size_t len,
                     const char *filename)
{
    if (code && strlen(code) != len)
        return cli_error("%s: the script contains a NUL byte", filename);
    const capsa_result *r = NULL;
    int rc = capsa_shell(sb, code ? code : o->code_arg, NULL, 0, &r);
    if (o->json && r) {
        char *json = capsa_result_json(r);
        if (json) {
            puts(json);
            cli_json_printed();
        }
        capsa_free(json);
    }
    return cli_shell_status(sb, rc, r);
}

/* Before each line of the interactive shell: the tools that upstream MCP servers
 * added since are registered. */
typedef struct repl_tools {
    const cli_tools *tools;
    capsa_sandbox *sb;
    uint64_t *generation;
} repl_tools;

static void refresh_tools(void *ud)
{
    repl_tools *rt = ud;
    cli_tools_refresh(rt->tools, rt->sb, rt->generation);
}

/* Runs the command o describes. */
static int run_command(run_opts *o)
{
    char *code = NULL;
    size_t len = 0;
    const char *filename;
    int status = read_program(o, &code, &len, &filename);
    if (status)
        return status;

    capsa_engine *engine = NULL;
    capsa_sandbox *sb = NULL;
    cli_tools *tools = NULL;
    char *session = NULL;
    size_t session_len = 0;
    uint64_t mcp_generation = 0;
    int ran = 0;
    status = CLI_EXIT_THREW;
    int rc = capsa_engine_new(NULL, &engine);
    if (rc != CAPSA_OK) {
        cli_error("cannot start the engine: %s", capsa_errstr(rc));
        goto out;
    }
    capsa_options opts = o->limits;
    if (!o->json) /* the interactive shell holds back what may be a parse error */
        opts.on_output = o->shell && !o->code_arg && !o->path ? cli_repl_output : stream_output;
    status = CLI_EXIT_USAGE;
    if (o->t.audit_file) {
        if (cli_audit_open(o->t.audit_file) != 0)
            goto out;
        opts.on_audit = write_audit;
        opts.audit_max_bytes = CLI_AUDIT_MAX; /* fail closed past it, as /log does */
    }
    uint64_t max_result = opts.tool_max_result ? opts.tool_max_result : 16u << 20;
    if (cli_tools_load(o->t.tool_files, o->t.n_tool_files, o->t.policy_file, o->t.allows,
                       o->t.n_allows, max_result, &tools) != 0 ||
        cli_tools_mcp(tools, o->t.mcp_files, o->t.n_mcp_files, o->t.mcp_log) != 0 ||
        (o->session && (session_read(o->session, &session, &session_len) != 0 ||
                        session_writable(o->session) != 0)))
        goto out;
    if (session) {
        if (session_restore(engine, o, tools, &opts, session, session_len, &mcp_generation,
                            &sb) != 0 ||
            seed_files(sb, o) != 0)
            goto out;
    } else {
        rc = capsa_sandbox_new(engine, &opts, &sb);
        if (rc != CAPSA_OK) {
            cli_error("cannot create a sandbox: %s", capsa_errstr(rc));
            status = CLI_EXIT_THREW;
            goto out;
        }
        if (seed_files(sb, o) != 0 || cli_tools_apply(tools, sb, &mcp_generation) != 0)
            goto out;
    }
    if (give_args(sb, o) != 0 ||
        (!(o->shell && !o->code_arg && !o->path) && give_stdin(sb, o) != 0))
        goto out;
    ran = 1; /* from here on, the session is saved whatever the run does */
    if (o->shell && !o->code_arg && !o->path) {
        repl_tools rt = { tools, sb, &mcp_generation };
        status = cli_repl(sb, refresh_tools, &rt);
    } else if (o->shell) {
        status = run_shell(sb, o, code, len, filename);
    } else {
        const capsa_result *r = NULL;
        rc = capsa_run(sb, code ? code : o->code_arg, len, filename, &r);
        if (!r) {
            cli_error("%s", capsa_errmsg(sb));
            status = rc == CAPSA_ETOOBIG || rc == CAPSA_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_THREW;
            goto out;
        }
        status = finish_run(sb, o, rc, r);
    }
    if (o->out_dir && capsa_fs_copy_out(sb, "/workspace", o->out_dir) != CAPSA_OK) {
        cli_error("--out: %s", capsa_errmsg(sb));
        status = CLI_EXIT_USAGE;
    }
out:
    if (ran && o->session && session_write(sb, o->session) != 0)
        status = CLI_EXIT_USAGE;
    free(session);
    capsa_sandbox_free(sb);
    capsa_engine_free(engine);
    cli_tools_free(tools);
    cli_audit_close();
    free(code);
    fflush(stdout);
    return status;
}

int cli_run(int argc, char **argv, int shell)
{
    run_opts o;
    memset(&o, 0, sizeof(o));
    o.shell = shell;
    capsa_options_init(&o.limits);
    cli_set_program("capsa", shell ? "shell" : "run");
    cli_set_json_errors(cli_wants_json(argc, argv));
    int status = parse_options(&o, argc, argv);
    if (status == 0)
        status = run_command(&o);
    else if (status < 0)
        status = CLI_EXIT_OK; /* --help */
    run_opts_free(&o);
    return cli_finish(status);
}
