/* What every capsa command shares on its command line: values with units
 * (--memory 64M, --timeout 1.5s), the errors of a command (on stderr, or as one
 * JSON object under --json), getopt_long's diagnostics in our words, the --audit
 * file with its size cap, and --env / --env-file. Built on the C library only. */
#ifndef CAPSA_CLI_OPTS_H
#define CAPSA_CLI_OPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include "capsa.h"

/* Exit statuses of capsa run (capsa shell exits with its command line's status). */
enum { CLI_EXIT_OK = 0, CLI_EXIT_THREW = 1, CLI_EXIT_USAGE = 2, CLI_EXIT_LIMIT = 3 };

/* ---- values with units ------------------------------------------------------------- */

/* A size: a whole or decimal number, then optionally a unit: B, K, M, G or T
 * (powers of 1024; KiB, KB, k and the like are the same). Without a unit the
 * number counts `unit` bytes (1 for bytes, 1 << 20 for MiB). The result, a whole
 * number of bytes, must be in [lo, hi]. Returns 0 with *out, or -1. */
int cli_parse_size(const char *s, uint64_t unit, uint64_t lo, uint64_t hi, uint64_t *out);

/* A duration: a number of seconds, or a number with ms, s, m or h. The result in
 * seconds must be in [lo, hi]. Returns 0 with *out, or -1. */
int cli_parse_seconds(const char *s, double lo, double hi, double *out);

/* A whole number without a unit in [lo, hi]. Returns 0 with *out, or -1. */
int cli_parse_count(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/* The value of --http: [HOST:]PORT, [V6]:PORT, HOST 127.0.0.1 unless given,
 * into host[0..size) and *port. Returns 0, or a usage error's status after
 * saying what is wrong. */
int cli_parse_listen(const char *v, char *host, size_t size, uint16_t *port);

/* The limits every command that runs code takes: --memory, --timeout, --fuel,
 * --max-output, --disk. Their getopt_long codes and entries: */
enum { CLI_OPT_MEMORY = 1100, CLI_OPT_TIMEOUT, CLI_OPT_FUEL, CLI_OPT_MAX_OUTPUT, CLI_OPT_DISK };
#define CLI_LIMIT_LONG_OPTIONS                                                             \
    { "memory", required_argument, NULL, CLI_OPT_MEMORY },                                 \
    { "timeout", required_argument, NULL, CLI_OPT_TIMEOUT },                               \
    { "fuel", required_argument, NULL, CLI_OPT_FUEL },                                     \
    { "max-output", required_argument, NULL, CLI_OPT_MAX_OUTPUT },                         \
    { "disk", required_argument, NULL, CLI_OPT_DISK }

/* Takes getopt_long's option c with value v into *o when it is a limit: 0 when
 * taken, 1 when c is not a limit, or a usage error's status. */
int cli_limit_option(capsa_options *o, int c, const char *v);

/* Reads the host file path whole for option opt ("--policy"; "" for none) into
 * a new NUL-terminated buffer of *len bytes (free() it), or NULL after saying
 * what failed (over CLI_MAX_INPUT too). */
char *cli_read_file(const char *opt, const char *path, size_t *len);

/* ---- errors ------------------------------------------------------------------------ */

/* The name errors are prefixed with ("capsa", "capsa mcp"), and the command whose
 * --help a usage error points to ("" for capsa --help). Static strings. */
void cli_set_program(const char *prefix, const char *command);

/* Under --json, errors are kept and cli_finish prints the first as one JSON
 * object on stdout instead of lines on stderr. */
void cli_set_json_errors(int on);

/* Says what went wrong: "PREFIX: message" on stderr, or kept under --json.
 * Returns CLI_EXIT_USAGE, for `return cli_error(...)`. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A usage error: cli_error, and (not under --json) the line "Try '... --help'.". */
int cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Records that the command printed its own JSON result (a run's), after which
 * errors go to stderr again. */
void cli_json_printed(void);

/* Ends a command: under --json, when an error was kept and no result printed,
 * prints {"value":null,"error":{"name":"UsageError" or "Error","message":...},
 * "exit_status":status}. Returns status. */
int cli_finish(int status);

/* Prints a thrown error the way Node shows an uncaught one: its stack, headed by
 * "Name: message". */
void cli_print_error(const capsa_result *r);

/* getopt_long's outcome c for argv (after optind moved past it) as a usage error
 * when it is one ('?' unknown, ':' value missing): the return value for the
 * command. opts names the long options. Returns -1 for other values of c. */
int cli_getopt_error(int c, char **argv, const struct option *opts);

/* Whether argv[1..argc) holds --json among its options (before "--"): errors in
 * the options themselves are then reported as JSON too. */
int cli_wants_json(int argc, char **argv);

/* ---- tools and capabilities ------------------------------------------------------- */

#define CLI_MAX_TOOL_FILES 16
#define CLI_MAX_ALLOWS 64

/* The options every command has for its tools: --tools, --policy, --allow,
 * --audit, --mcp-config, --mcp-log (the strings are argv's). */
typedef struct cli_tool_opts {
    const char *tool_files[CLI_MAX_TOOL_FILES];
    int n_tool_files;
    const char *policy_file;
    const char *allows[CLI_MAX_ALLOWS];
    int n_allows;
    const char *audit_file;
    const char *mcp_files[CLI_MAX_TOOL_FILES];
    int n_mcp_files;
    const char *mcp_log;
} cli_tool_opts;

/* Their getopt_long codes and entries (in a command's struct option list). */
enum {
    CLI_OPT_TOOLS = 1000, CLI_OPT_POLICY, CLI_OPT_ALLOW, CLI_OPT_AUDIT, CLI_OPT_MCP_CONFIG,
    CLI_OPT_MCP_LOG,
};
#define CLI_TOOL_LONG_OPTIONS                                                              \
    { "tools", required_argument, NULL, CLI_OPT_TOOLS },                                   \
    { "policy", required_argument, NULL, CLI_OPT_POLICY },                                 \
    { "allow", required_argument, NULL, CLI_OPT_ALLOW },                                   \
    { "audit", required_argument, NULL, CLI_OPT_AUDIT },                                   \
    { "mcp-config", required_argument, NULL, CLI_OPT_MCP_CONFIG },                         \
    { "mcp-log", required_argument, NULL, CLI_OPT_MCP_LOG }

/* Takes getopt_long's option c with value v when it is one of them: 0 when taken,
 * 1 when c is not one of them, or a usage error's status. */
int cli_tool_option(cli_tool_opts *t, int c, const char *v);

/* The rest of a command's getopt_long loop: c as a limit (into *limits) or a
 * tool option (into *t), else getopt's error for argv and longs. Returns 0 when
 * taken, or a usage error's status. */
int cli_shared_option(capsa_options *limits, cli_tool_opts *t, int c, const char *v, char **argv,
                      const struct option *longs);

/* ---- the audit file ---------------------------------------------------------------- */

/* The most bytes one command appends to its --audit file (or stderr). */
#define CLI_AUDIT_MAX (64u << 20)

/* Opens --audit's FILE for appending ("-": stderr). Returns 0, or -1 after
 * saying what failed. */
int cli_audit_open(const char *path);

/* Appends a line (a newline added), prefixed with {"session":"ID", when session
 * is not NULL and the line is a JSON object. Thread-safe. */
void cli_audit_write(const char *session, const char *line, size_t len);

/* Whether an audit file is open. */
int cli_audit_active(void);

/* Closes the audit file (not stderr). */
void cli_audit_close(void);

/* ---- the script's environment ------------------------------------------------------ */

/* The environment given with --env and --env-file, "NAME=value" strings. */
typedef struct cli_env {
    char **vars;
    size_t n, cap;
} cli_env;

/* --env NAME=VALUE sets NAME; --env NAME takes NAME's value from capsa's own
 * environment (nothing is passed unless asked; unset there: not set). A later
 * setting of a name replaces an earlier one. Returns 0, or a usage error's
 * status after saying what is wrong. */
int cli_env_add(cli_env *e, const char *spec);

/* --env-file FILE: one NAME=VALUE a line; blank lines and lines starting with #
 * are skipped, an "export " before NAME is allowed, and a VALUE in matching
 * single or double quotes loses them. Returns 0, or an error status after
 * saying what is wrong (with the line number). */
int cli_env_file(cli_env *e, const char *path);

void cli_env_free(cli_env *e);

#endif
