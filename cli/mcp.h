/* capsa mcp: the MCP server subcommand (cli/mcp.c). */
#ifndef CAPSA_CLI_MCP_H
#define CAPSA_CLI_MCP_H

/* Runs `capsa mcp` with its arguments (after "mcp"); returns the exit status. */
int cli_mcp(int argc, char **argv);

#endif
