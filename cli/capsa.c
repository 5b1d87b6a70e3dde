/* The capsa command: `capsa run` (JavaScript) and `capsa shell` (shell command
 * lines) in a sandbox (cli/run.c, cli/repl.c), `capsa mcp`, the MCP server
 * (cli/mcp.c), `capsa serve`, sessions over HTTP (cli/serve.c), with host tools that are external commands and the capabilities
 * that allow them (cli/tools.c). Built on include/capsa.h only. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "capsa.h"
#include "mcp.h"
#include "opts.h"
#include "run.h"
#include "serve.h"

static const char usage_text[] =
    "usage: capsa run [options] FILE [ARG...]  run a JavaScript file (-e CODE: run\n"
    "                                          CODE; -: what stdin holds)\n"
    "       capsa shell [options] [-c CMDLINE | FILE | -]\n"
    "                                          run shell command lines in the\n"
    "                                          sandbox (none: interactive)\n"
    "       capsa mcp [options]                serve MCP (stdio, or --http)\n"
    "       capsa serve --http [HOST:]PORT [options]\n"
    "                                          serve sessions over HTTP, kept in a\n"
    "                                          store that replicas share\n"
    "       capsa COMMAND --help               the options of COMMAND\n"
    "       capsa --help | --version\n"
    "\n"
    "The code, written by AI agents, runs in a WebAssembly sandbox: no network,\n"
    "only the memory and time it is given, a filesystem of its own in memory\n"
    "(/ read-only, /workspace and /tmp read-write), and host tools only as far as\n"
    "the capabilities given allow, each call audited.\n"
    "\n"
    "exit status of capsa run: 0 success, 1 the script threw (or the guest\n"
    "             trapped), 2 usage or input error (or a host file error), 3 a\n"
    "             limit stopped the run (time, fuel); process.exit(N) gives N.\n"
    "             capsa shell exits with the command line's status, 124 when a\n"
    "             limit stopped it; capsa mcp: see capsa mcp --help\n";

int main(int argc, char **argv)
{
    /* A tool command that exits without reading its input must not kill us. */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2)
        return cli_usage("missing command");
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage_text, stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 || strcmp(cmd, "version") == 0) {
        printf("capsa %s\n", capsa_version());
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "run") == 0)
        return cli_run(argc - 1, argv + 1, 0);
    if (strcmp(cmd, "shell") == 0)
        return cli_run(argc - 1, argv + 1, 1);
    if (strcmp(cmd, "mcp") == 0)
        return cli_mcp(argc - 1, argv + 1);
    if (strcmp(cmd, "serve") == 0)
        return cli_serve(argc - 1, argv + 1);
    return cli_usage("unknown command '%s'", cmd);
}
