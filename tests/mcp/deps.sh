#!/bin/sh
# Installs the npm packages of the MCP tests and benchmark, pinned by
# tests/mcp/package.json and tests/mcp/package-lock.json: the official TypeScript
# SDK (@modelcontextprotocol/sdk) and the conformance suite
# (@modelcontextprotocol/conformance), into DIR/node_modules (tools/npm-ci.sh).
# Exits non-zero when they cannot be had: the tests need them.
#   deps.sh DIR
here=$(dirname "$0")
exec sh "$here/../../tools/npm-ci.sh" "$here" "$1" @modelcontextprotocol/sdk mcp
