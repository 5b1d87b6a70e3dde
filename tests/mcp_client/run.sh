#!/bin/sh
# The MCP client's suite (--mcp-config): capsa run, shell, mcp and serve against real
# MCP servers from the npm registry and a hostile fake one, driven by main.mjs
# with the packages of deps.sh (pinned, installed into the build directory).
# Prints "N passed, N failed". What it starts listens on loopback only, on free
# ports, and is stopped at the end.
#   sh tests/mcp_client/run.sh [fake|config|real|http|e2e|serve ...]
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../mcp/node-suite.sh" mcp_client "$here" mcp-client-node "$@"
