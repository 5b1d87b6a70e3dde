#!/bin/sh
# The MCP suite (capsa mcp): the official TypeScript SDK's client over stdio and
# Streamable HTTP, bad input on the raw protocol, and the MCP conformance suite,
# all driven by main.mjs with the npm packages of deps.sh (pinned, installed into
# the build directory). Prints "N passed, N failed". Servers it starts listen on
# loopback only, on free ports, and are stopped at the end.
#   sh tests/mcp/run.sh [stdio|bad|http|conformance ...]
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
case $BUILD in
/*) build=$BUILD ;;
*) build=$(pwd)/$BUILD ;;
esac
if ! command -v node >/dev/null 2>&1; then
    echo "mcp: node not found (deps/install.sh installs npm and node)"
    echo "0 passed, 1 failed"
    exit 1
fi
if ! sh "$here/deps.sh" "$build/mcp-node"; then
    echo "0 passed, 1 failed"
    exit 1
fi
MCP_BUILD=$build MCP_NODE_DIR=$build/mcp-node timeout 900 node "$here/main.mjs" "$@"
