#!/bin/sh
# Installs the npm packages of the MCP client's tests and bench row, pinned by
# tests/mcp_client/package.json and package-lock.json: the real servers
# (@modelcontextprotocol/server-everything, -memory, -filesystem) and the SDK,
# into DIR/node_modules (tools/npm-ci.sh). Exits non-zero when they cannot be had.
#   deps.sh DIR
here=$(dirname "$0")
exec sh "$here/../../tools/npm-ci.sh" "$here" "$1" @modelcontextprotocol/server-everything mcp-client
