/* The capsa command: runs JavaScript in a sandbox from a file, an argument or
 * standard input, with host tools that are external commands (--tools) and the
 * capabilities that allow them (--policy, --allow; cli/tools.c). Built on
 * include/capsa.h only. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capsa.h"
#include "mcp.h"
#include "tools.h"

/* Exit statuses. */
enum { EXIT_OK = 0, EXIT_THREW = 1, EXIT_USAGE = 2, EXIT_LIMIT = 3 };

/* The most bytes one command appends to its --audit file (or stderr). */
#define AUDIT_FILE_MAX (64u << 20)

static const char usage_text[] =
    "usage: capsa run [options] FILE     run a JavaScript file\n"
    "       capsa run [options] -e CODE  run CODE\n"
    "       capsa run [options] -        run what standard input holds\n"
    "       capsa shell [options] -c CMDLINE\n"
    "                                    run a shell command line in the sandbox\n"
    "                                    (piped input is its standard input)\n"
    "       capsa shell [options] FILE | -\n"
    "                                    run a shell script (a file, or stdin)\n"
    "       capsa shell [options]        interactive shell: one command line per\n"
    "                                    line of input, until `exit` or end of input\n"
    "       capsa mcp [options]          serve MCP (stdio, or --http): see\n"
    "                                    capsa mcp --help\n"
    "       capsa --help | --version\n"
    "\n"
    "The code runs in a WebAssembly sandbox as the body of an async function:\n"
    "top-level await works and `return x` gives the run's value, printed as JSON\n"
    "after the script's own output. The sandbox has no network and only the memory\n"
    "it is given. It sees a filesystem of its own, in memory: / read-only,\n"
    "/workspace (the working directory) and /tmp read-write, /tools read-only,\n"
    "/log append-only, /dev/null; host files only where --mount and --file put\n"
    "them.\n"
    "\n"
    "options:\n"
    "  --json          print one JSON object {stdout, stderr, value, error, stats}\n"
    "                  instead of streaming the output\n"
    "  --memory MIB    guest memory limit in MiB (default 256, 8..4096)\n"
    "  --timeout SEC   wall-clock limit of the run in seconds, fractions allowed\n"
    "                  (default 30; 0: none)\n"
    "  --fuel N        instruction budget: function entries and loop iterations\n"
    "                  the run may execute (default: none); deterministic\n"
    "  --max-output BYTES\n"
    "                  bytes of stdout and of stderr let through (default 16 MiB);\n"
    "                  then a marker line, and the rest is only counted\n"
    "  --mount HOST:GUEST[:ro|rw]\n"
    "                  copy the host directory HOST into the sandbox at GUEST\n"
    "                  (read-only by default); with :rw the script may change it\n"
    "                  and HOST is made a copy of it after the run (files the\n"
    "                  script removed are removed); repeatable\n"
    "  --file HOST:GUEST\n"
    "                  copy the host file HOST to GUEST (relative GUEST paths are\n"
    "                  under /workspace); repeatable\n"
    "  --out DIR       after the run, copy /workspace to the host directory DIR\n"
    "                  (created; files replaced, others left; symlinks skipped)\n"
    "  --disk MIB      filesystem quota in MiB (default 64); over it, writes fail\n"
    "                  with ENOSPC\n"
    "  --max-files N   files, directories and symlinks the filesystem may hold\n"
    "                  (default 10000)\n"
    "  --tools FILE    host tools the script may call, each an external command:\n"
    "                  {\"tools\": [{\"name\": \"math.add\", \"description\": \"...\",\n"
    "                  \"parameters\": {JSON Schema}, \"command\": [\"prog\", \"arg\"],\n"
    "                  \"timeout_ms\": 30000}]}. The command gets the call's JSON\n"
    "                  arguments on stdin and prints its JSON result on stdout; a\n"
    "                  non-zero exit fails the call with its stderr as message. It\n"
    "                  runs without a shell, in the file's directory, with only\n"
    "                  PATH and LANG set, and is killed at its timeout. Scripts\n"
    "                  call tools.math.add({...}) or math_add({...}); repeatable\n"
    "  --policy FILE   the capabilities that allow tool calls (none: every call\n"
    "                  is denied): {\"capabilities\": [{\"pattern\": \"math/**\",\n"
    "                  \"constraints\": [{\"param\": \"a\", \"op\": \"<=\", \"value\": 10}],\n"
    "                  \"max_calls\": 3}]}\n"
    "  --allow PATTERN allow the tools matching PATTERN, without constraints\n"
    "                  (\"math.add\", \"github/*\", \"**\"); repeatable\n"
    "  --audit FILE    append the audit trail (one JSON line per tool call and\n"
    "                  run event, also in /log/actions.jsonl) to FILE; - : stderr.\n"
    "                  At most 64 MiB per command: past it, tool calls are\n"
    "                  refused (audit_unavailable: the audit fails closed)\n"
    "  -h, --help      show this help\n"
    "  --version       print the version\n"
    "\n"
    "The shell runs inside the same sandbox (it sees only the sandbox's files;\n"
    "`js -e CODE` runs JavaScript, `tool NAME --PARAM VALUE` calls a tool under\n"
    "the same policy, `help` lists every command). Its grammar is POSIX sh's:\n"
    "pipelines, && || ;, ( ) { }, if, for, while, until, case, functions,\n"
    "redirections, here-documents, $(...), $((...)), set -e -u -o pipefail.\n"
    "\n"
    "exit status: 0 success, 1 the script threw (or the guest trapped),\n"
    "             2 usage or input error (or a host file error), 3 a limit stopped\n"
    "             the run (time, fuel); a script that calls process.exit(N) or sets\n"
    "             process.exitCode = N exits with N. capsa shell exits with the command\n"
    "             line's status, or 124 when a limit stopped it\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "capsa: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'capsa --help'.\n");
    return EXIT_USAGE;
}

static void stream_output(void *ud, int stream, const char *data, size_t len)
{
    (void)ud;
    FILE *f = stream == CAPSA_STDERR ? stderr : stdout;
    fwrite(data, 1, len, f);
    fflush(f);
}

/* Prints a thrown error the way Node shows an uncaught one: its stack, headed by
 * "Name: message". */
static void print_error(const capsa_result *r)
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

#define MAX_FS_ARGS 64

/* A --mount or --file: a host path, a guest path and (mounts) a mode. */
typedef struct fs_arg {
    char *host, *guest; /* one allocation, split at the colon */
    int mode;
} fs_arg;

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

#define MAX_TOOL_FILES 16
#define MAX_ALLOWS 64

typedef struct run_opts {
    int json;
    unsigned long memory_mib;
    int has_timeout;
    double timeout_s;
    unsigned long long fuel;
    unsigned long long max_output;
    const char *code_arg; /* -e CODE */
    const char *path;     /* FILE, or "-" */
    fs_arg mounts[MAX_FS_ARGS], files[MAX_FS_ARGS];
    int n_mounts, n_files;
    const char *out_dir;  /* --out */
    unsigned long long disk_mib, max_files;
    const char *tool_files[MAX_TOOL_FILES];
    int n_tool_files;
    const char *policy_file;
    const char *allows[MAX_ALLOWS];
    int n_allows;
    const char *audit_file;
    int shell;            /* capsa shell: code_arg is -c's command line */
} run_opts;

static void run_opts_free(run_opts *o)
{
    for (int i = 0; i < o->n_mounts; i++)
        free(o->mounts[i].host);
    for (int i = 0; i < o->n_files; i++)
        free(o->files[i].host);
}

/* Puts the --mount directories and --file files into the sandbox. Returns 0, or
 * -1 after saying what failed. */
static int seed_files(capsa_sandbox *sb, const run_opts *o)
{
    for (int i = 0; i < o->n_mounts; i++) {
        const fs_arg *m = &o->mounts[i];
        if (capsa_fs_mount(sb, m->host, m->guest, m->mode) != CAPSA_OK) {
            fprintf(stderr, "capsa: --mount: %s\n", capsa_errmsg(sb));
            return -1;
        }
    }
    for (int i = 0; i < o->n_files; i++) {
        const fs_arg *f = &o->files[i];
        FILE *in = fopen(f->host, "rb");
        if (!in) {
            fprintf(stderr, "capsa: --file: cannot open '%s': %s\n", f->host, strerror(errno));
            return -1;
        }
        size_t len = 0;
        char *data = cli_read_all(in, &len);
        int saved = errno;
        fclose(in);
        if (!data) {
            fprintf(stderr, "capsa: --file: cannot read '%s': %s\n", f->host,
                    saved == EFBIG ? "over 64 MiB" : strerror(saved));
            return -1;
        }
        int rc = capsa_fs_write(sb, f->guest, data, len);
        free(data);
        if (rc != CAPSA_OK) {
            fprintf(stderr, "capsa: --file: %s\n", capsa_errmsg(sb));
            return -1;
        }
    }
    return 0;
}

static FILE *audit_out;

static void write_audit(void *ud, const char *line, size_t len)
{
    (void)ud;
    fwrite(line, 1, len, audit_out);
    fputc('\n', audit_out);
    fflush(audit_out);
}

static int cmd_run_opts(run_opts *o, int argc, char **argv);

static int cmd_run(int argc, char **argv, int shell)
{
    run_opts o;
    memset(&o, 0, sizeof(o));
    o.shell = shell;
    int status = cmd_run_opts(&o, argc, argv);
    run_opts_free(&o);
    return status;
}

/* The exit status of capsa shell for a command line's outcome. */
static int shell_status(capsa_sandbox *sb, int rc, const capsa_result *r)
{
    if (rc == CAPSA_OK && capsa_result_exit_code(r) >= 0)
        return capsa_result_exit_code(r);
    if (r && (rc == CAPSA_ETRAP || rc == CAPSA_ETIMEOUT || rc == CAPSA_EFUEL))
        fprintf(stderr, "capsa: %s\n", capsa_errmsg(sb));
    else if (r)
        print_error(r);
    else
        fprintf(stderr, "capsa: %s\n", capsa_errmsg(sb));
    return rc == CAPSA_ETIMEOUT || rc == CAPSA_EFUEL ? 124 : 125;
}

/* capsa shell with no command line: reads command lines from stdin, one per
 * line, and runs each; stops at end of input or after `exit`. A prompt goes to
 * stderr when stdin is a terminal. */
static int shell_repl(capsa_sandbox *sb)
{
    int tty = isatty(0), status = 0;
    char *line = NULL;
    size_t cap = 0;
    for (;;) {
        if (tty) {
            fputs("$ ", stderr);
            fflush(stderr);
        }
        ssize_t n = getline(&line, &cap, stdin);
        if (n < 0)
            break;
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        if (strlen(line) != (size_t)n) {
            fprintf(stderr, "capsa: a line of input contains a NUL byte; skipped\n");
            continue;
        }
        const capsa_result *r = NULL;
        int rc = capsa_shell(sb, line, NULL, 0, &r);
        status = shell_status(sb, rc, r);
        fflush(stdout);
        if (rc == CAPSA_OK && capsa_result_shell_exited(r))
            break;
    }
    free(line);
    if (tty)
        fputc('\n', stderr);
    return status;
}

static int cmd_run_opts(run_opts *o, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(a, "--memory") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s needs a number of MiB", a);
            char *end;
            errno = 0;
            o->memory_mib = strtoul(argv[++i], &end, 10);
            if (errno || *end || end == argv[i] || o->memory_mib < 8 || o->memory_mib > 4096)
                return usage_error("--memory wants MiB from 8 to 4096, not '%s'", argv[i]);
        } else if (strcmp(a, "--timeout") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s needs a number of seconds", a);
            char *end;
            errno = 0;
            o->timeout_s = strtod(argv[++i], &end);
            if (errno || *end || end == argv[i] || !(o->timeout_s >= 0) || o->timeout_s > 1e7)
                return usage_error("--timeout wants seconds from 0 to 10000000, not '%s'", argv[i]);
            o->has_timeout = 1;
        } else if (strcmp(a, "--fuel") == 0 || strcmp(a, "--max-output") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s needs a number", a);
            char *end;
            errno = 0;
            const char *v = argv[++i];
            unsigned long long n = strtoull(v, &end, 10);
            if (errno || *end || end == v || v[0] == '-' || n == 0)
                return usage_error(strcmp(a, "--fuel") == 0
                                       ? "--fuel wants a whole number above 0, not '%s'"
                                       : "--max-output wants a whole number of bytes above 0, not '%s'",
                                   v);
            if (strcmp(a, "--fuel") == 0)
                o->fuel = n;
            else
                o->max_output = n;
        } else if (strcmp(a, "--mount") == 0 || strcmp(a, "--file") == 0) {
            int mount = strcmp(a, "--mount") == 0;
            if (i + 1 >= argc)
                return usage_error(mount ? "%s needs HOST:GUEST[:ro|rw]" : "%s needs HOST:GUEST", a);
            int *n = mount ? &o->n_mounts : &o->n_files;
            if (*n >= MAX_FS_ARGS)
                return usage_error("at most 64 of %s", a);
            if (parse_fs_arg(argv[++i], mount, mount ? &o->mounts[*n] : &o->files[*n]) != 0)
                return usage_error(mount ? "--mount wants HOST:GUEST[:ro|rw], not '%s'"
                                         : "--file wants HOST:GUEST, not '%s'",
                                   argv[i]);
            (*n)++;
        } else if (strcmp(a, "--out") == 0) {
            if (i + 1 >= argc || !argv[i + 1][0])
                return usage_error("%s needs a host directory", a);
            o->out_dir = argv[++i];
        } else if (strcmp(a, "--disk") == 0 || strcmp(a, "--max-files") == 0) {
            int disk = strcmp(a, "--disk") == 0;
            if (i + 1 >= argc)
                return usage_error("%s needs a number", a);
            char *end;
            errno = 0;
            const char *v = argv[++i];
            unsigned long long n = strtoull(v, &end, 10);
            if (errno || *end || end == v || v[0] == '-' || n == 0 || n > (disk ? 1ull << 20 : 1ull << 32))
                return usage_error(disk ? "--disk wants MiB from 1 to 1048576, not '%s'"
                                        : "--max-files wants a whole number from 1 to 4294967296, not '%s'",
                                   v);
            if (disk)
                o->disk_mib = n;
            else
                o->max_files = n;
        } else if (strcmp(a, "--tools") == 0 || strcmp(a, "--policy") == 0 ||
                   strcmp(a, "--allow") == 0 || strcmp(a, "--audit") == 0) {
            if (i + 1 >= argc || !argv[i + 1][0])
                return usage_error(strcmp(a, "--allow") == 0 ? "%s needs a pattern" : "%s needs a file", a);
            const char *v = argv[++i];
            if (strcmp(a, "--tools") == 0) {
                if (o->n_tool_files >= MAX_TOOL_FILES)
                    return usage_error("at most 16 of %s", a);
                o->tool_files[o->n_tool_files++] = v;
            } else if (strcmp(a, "--allow") == 0) {
                if (o->n_allows >= MAX_ALLOWS)
                    return usage_error("at most 64 of %s", a);
                o->allows[o->n_allows++] = v;
            } else if (strcmp(a, "--policy") == 0) {
                if (o->policy_file)
                    return usage_error("%s", "give one --policy (add patterns with --allow)");
                o->policy_file = v;
            } else {
                o->audit_file = v;
            }
        } else if (strcmp(a, o->shell ? "-c" : "-e") == 0) {
            if (i + 1 >= argc)
                return usage_error(o->shell ? "%s needs a command line" : "%s needs the code to run", a);
            if (o->code_arg || o->path)
                return usage_error("%s", "give one program: FILE, -e CODE or -");
            o->code_arg = argv[++i];
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return EXIT_OK;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("unknown option '%s'", a);
        } else {
            if (o->code_arg || o->path)
                return usage_error("%s", "give one program: FILE, -e CODE or -");
            o->path = a;
        }
    }
    if (!o->code_arg && !o->path && !o->shell)
        return usage_error("%s", "run needs a program: FILE, -e CODE or -");

    char *code = NULL;
    size_t len = 0;
    const char *filename = "<input>";
    if (o->code_arg) {
        len = strlen(o->code_arg);
    } else if (!o->path) {
        /* capsa shell: the interactive loop */
    } else if (strcmp(o->path, "-") == 0) {
        code = cli_read_all(stdin, &len);
        filename = "<stdin>";
        if (!code) {
            fprintf(stderr, "capsa: cannot read standard input: %s\n",
                    errno == EFBIG ? "over 64 MiB" : strerror(errno));
            return EXIT_USAGE;
        }
    } else {
        FILE *f = fopen(o->path, "rb");
        if (!f) {
            fprintf(stderr, "capsa: cannot open '%s': %s\n", o->path, strerror(errno));
            return EXIT_USAGE;
        }
        code = cli_read_all(f, &len);
        int saved = errno;
        fclose(f);
        if (!code) {
            fprintf(stderr, "capsa: cannot read '%s': %s\n", o->path,
                    saved == EFBIG ? "over 64 MiB" : strerror(saved));
            return EXIT_USAGE;
        }
        filename = o->path;
    }

    capsa_engine *engine = NULL;
    capsa_sandbox *sb = NULL;
    cli_tools *tools = NULL;
    int status = EXIT_THREW;
    int rc = capsa_engine_new(NULL, &engine);
    if (rc != CAPSA_OK) {
        fprintf(stderr, "capsa: cannot start the engine: %s\n", capsa_errstr(rc));
        goto out;
    }
    capsa_options opts;
    capsa_options_init(&opts);
    if (o->memory_mib)
        opts.memory_limit = (uint64_t)o->memory_mib << 20;
    if (o->has_timeout)
        opts.timeout_ms = (uint64_t)(o->timeout_s * 1000.0 + 0.5);
    if (o->has_timeout && o->timeout_s > 0 && opts.timeout_ms == 0)
        opts.timeout_ms = 1; /* a positive timeout below 0.5 ms still limits */
    opts.fuel = o->fuel;
    if (o->max_output)
        opts.max_output = o->max_output;
    if (!o->json)
        opts.on_output = stream_output;
    opts.fs_max_bytes = o->disk_mib << 20;
    opts.fs_max_entries = o->max_files;
    if (o->audit_file) {
        audit_out = strcmp(o->audit_file, "-") == 0 ? stderr : fopen(o->audit_file, "a");
        if (!audit_out) {
            fprintf(stderr, "capsa: --audit: cannot open '%s': %s\n", o->audit_file, strerror(errno));
            status = EXIT_USAGE;
            goto out;
        }
        opts.on_audit = write_audit;
        opts.audit_max_bytes = AUDIT_FILE_MAX; /* fail closed past it, as /log does */
    }
    rc = capsa_sandbox_new(engine, &opts, &sb);
    if (rc != CAPSA_OK) {
        fprintf(stderr, "capsa: cannot create a sandbox: %s\n", capsa_errstr(rc));
        goto out;
    }
    if (seed_files(sb, o) != 0 ||
        cli_tools_load(o->tool_files, o->n_tool_files, o->policy_file, o->allows, o->n_allows,
                       opts.tool_max_result ? opts.tool_max_result : 16u << 20, &tools) != 0 ||
        cli_tools_apply(tools, sb) != 0) {
        status = EXIT_USAGE;
        goto out;
    }
    const capsa_result *r = NULL;
    if (o->shell) {
        if (!o->code_arg && !o->path) {
            status = shell_repl(sb);
        } else if (code && strlen(code) != len) {
            fprintf(stderr, "capsa: %s: the script contains a NUL byte\n", filename);
            status = EXIT_USAGE;
        } else {
            /* Piped input is the command line's standard input, as for sh -c. */
            char *input = NULL;
            size_t input_len = 0;
            if ((!o->path || strcmp(o->path, "-") != 0) && !isatty(0)) {
                input = cli_read_all(stdin, &input_len);
                if (!input) {
                    fprintf(stderr, "capsa: cannot read standard input: %s\n",
                            errno == EFBIG ? "over 64 MiB" : strerror(errno));
                    status = EXIT_USAGE;
                    goto out;
                }
            }
            rc = capsa_shell(sb, code ? code : o->code_arg, input, input_len, &r);
            free(input);
            if (o->json && r) {
                char *json = capsa_result_json(r);
                if (json)
                    puts(json);
                capsa_free(json);
            }
            status = shell_status(sb, rc, r);
        }
        if (o->out_dir && capsa_fs_copy_out(sb, "/workspace", o->out_dir) != CAPSA_OK) {
            fprintf(stderr, "capsa: --out: %s\n", capsa_errmsg(sb));
            status = EXIT_USAGE;
        }
        goto out;
    }
    rc = capsa_run(sb, code ? code : o->code_arg, len, filename, &r);
    if (!r) {
        fprintf(stderr, "capsa: %s\n", capsa_errmsg(sb));
        status = rc == CAPSA_ETOOBIG || rc == CAPSA_EINVAL ? EXIT_USAGE : EXIT_THREW;
        goto out;
    }
    if (o->json) {
        char *json = capsa_result_json(r);
        if (!json) {
            fprintf(stderr, "capsa: out of memory writing the result\n");
            goto out;
        }
        puts(json);
        capsa_free(json);
    } else if (rc == CAPSA_OK) {
        const char *value = capsa_result_value(r);
        if (value)
            puts(value);
    } else if (rc == CAPSA_ETRAP || rc == CAPSA_ETIMEOUT || rc == CAPSA_EFUEL) {
        fprintf(stderr, "capsa: %s\n", capsa_errmsg(sb));
    } else {
        print_error(r);
    }
    /* process.exit(N) or process.exitCode = N: the script's own status */
    status = rc == CAPSA_OK && capsa_result_exit_code(r) >= 0 ? capsa_result_exit_code(r)
           : rc == CAPSA_OK ? EXIT_OK
           : rc == CAPSA_ETIMEOUT || rc == CAPSA_EFUEL ? EXIT_LIMIT : EXIT_THREW;
    if (o->out_dir && capsa_fs_copy_out(sb, "/workspace", o->out_dir) != CAPSA_OK) {
        fprintf(stderr, "capsa: --out: %s\n", capsa_errmsg(sb));
        status = EXIT_USAGE;
    }
out:
    capsa_sandbox_free(sb);
    capsa_engine_free(engine);
    cli_tools_free(tools);
    if (audit_out && audit_out != stderr)
        fclose(audit_out);
    audit_out = NULL;
    free(code);
    fflush(stdout);
    return status;
}

int main(int argc, char **argv)
{
    /* A tool command that exits without reading its input must not kill us. */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2)
        return usage_error("%s", "missing command");
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("capsa %s\n", capsa_version());
        return EXIT_OK;
    }
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 2, argv + 2, 0);
    if (strcmp(cmd, "shell") == 0)
        return cmd_run(argc - 2, argv + 2, 1);
    if (strcmp(cmd, "mcp") == 0)
        return cli_mcp(argc - 2, argv + 2);
    return usage_error("unknown command '%s'", cmd);
}
