/* Host tools that are external commands (--tools files), the tools of upstream
 * MCP servers (--mcp-config files, through include/capsa_net.h), and the
 * capabilities that allow them (--policy, --allow), read once and registered into
 * any number of sandboxes: `capsa run` and `capsa shell` use one, `capsa mcp` one
 * per session. Built on include/capsa.h and capsa_net.h only (and jansson, to
 * read the tool files). */
#ifndef CAPSA_CLI_TOOLS_H
#define CAPSA_CLI_TOOLS_H

#include <stdint.h>
#include <stdio.h>

#include "capsa.h"

/* The largest file cli_read_all reads. */
#define CLI_MAX_INPUT (64u << 20)

/* Reads all of f into a new buffer (*len bytes, NUL-terminated) that the caller
 * frees with free(). Returns NULL with errno set on failure; EFBIG when over
 * CLI_MAX_INPUT. */
char *cli_read_all(FILE *f, size_t *len);

/* The tools and the policy of a command line. Immutable once loaded: sandboxes
 * on different threads may share it (each command tool runs in its own process). */
typedef struct cli_tools cli_tools;

/* Reads the tool files and the policy file, checking the tool files' format.
 * max_result is the largest result a command may print (the sandboxes'
 * tool_max_result). On success *out owns a new set that the caller frees with
 * cli_tools_free; on failure it is NULL, -1 is returned and stderr says what is
 * wrong ("capsa: --tools FILE: line L column C: ..." or the field at fault). */
int cli_tools_load(const char *const *tool_files, int n_tool_files, const char *policy_file,
                   const char *const *allows, int n_allows, uint64_t max_result, cli_tools **out);

/* Reads the --mcp-config files (the mcpServers format) and starts their servers,
 * all at once; a server that fails to start is reported on stderr and its tools
 * are absent. The servers' own stderr and log messages go to log_file (appended;
 * NULL: dropped), capsa's reports on them to stderr and log_file. Returns 0, or
 * -1 after saying what is wrong with a file (exit status 2). */
int cli_tools_mcp(cli_tools *ts, const char *const *files, int n_files, const char *log_file);

/* Registers the tools in sb and gives it the policy. Returns 0, or -1 after saying
 * on stderr what failed (a tool's name or schema, the policy's line or field).
 * *mcp_generation (may be NULL) gets what was registered of the MCP servers'
 * tools, for cli_tools_refresh. ts must outlive sb (its tools' callbacks use it). */
int cli_tools_apply(const cli_tools *ts, capsa_sandbox *sb, uint64_t *mcp_generation);

/* Registers in sb the MCP servers' tools that appeared since *mcp_generation
 * (a server's list changed). In both, an upstream tool that cannot be registered
 * is left out and reported on stderr. */
void cli_tools_refresh(const cli_tools *ts, capsa_sandbox *sb, uint64_t *mcp_generation);

/* The most tools a set holds. */
#define CLI_MAX_TOOLS 256

/* Fills defs[0..n) with the definitions of the set's n tools (returned), each
 * bound to its command: for capsa_sandbox_restore, which binds tools by name.
 * defs has room for CLI_MAX_TOOLS; its strings are owned by ts. */
int cli_tools_defs(const cli_tools *ts, capsa_tool_def *defs);

/* The --mcp-config servers' tools as definitions for capsa_sandbox_restore: *defs
 * gets a new array (the caller frees it; NULL when there are none) and their
 * number is returned, -1 when out of memory; *mcp_generation as for
 * cli_tools_apply. The definitions' strings and callbacks are ts's. */
long cli_tools_mcp_defs(const cli_tools *ts, capsa_tool_def **defs, uint64_t *mcp_generation);

/* Whether any tool file was given. */
int cli_tools_count(const cli_tools *ts);

/* The name of tool i (0 <= i < cli_tools_count), valid as long as ts. */
const char *cli_tools_name(const cli_tools *ts, int i);

/* Frees ts. NULL is a no-op. */
void cli_tools_free(cli_tools *ts);

#endif
