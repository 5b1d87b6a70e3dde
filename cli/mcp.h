/* capsa mcp: the MCP server subcommand (cli/mcp.c). */
#ifndef CAPSA_CLI_MCP_H
#define CAPSA_CLI_MCP_H

#include <stddef.h>

/* Runs `capsa mcp` with its arguments (after "mcp"); returns the exit status. */
int cli_mcp(int argc, char **argv);

/* Writes a new session id (32 hex digits of the kernel's cryptographic random
 * source, NUL-terminated) to out[0..size). Returns 0, or -1 when size is under 33
 * or no random bytes could be had. */
int cli_random_id(char *out, size_t size);

#endif
