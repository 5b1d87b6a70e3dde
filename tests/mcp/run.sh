#!/bin/sh
# The MCP suite (capsa mcp): the official TypeScript SDK's client over stdio and
# Streamable HTTP, bad input on the raw protocol, and the MCP conformance suite,
# all driven by main.mjs with the npm packages of deps.sh (pinned, installed into
# the build directory). Prints "N passed, N failed". Servers it starts listen on
# loopback only, on free ports, and are stopped at the end.
#   sh tests/mcp/run.sh [stdio|bad|http|conformance ...]
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/node-suite.sh" mcp "$here" mcp-node "$@"
