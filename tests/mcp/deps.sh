#!/bin/sh
# Installs the npm packages of the MCP tests and benchmark, pinned by
# tests/mcp/package.json and tests/mcp/package-lock.json (with their integrity
# hashes): the official TypeScript SDK (@modelcontextprotocol/sdk) and the
# conformance suite (@modelcontextprotocol/conformance), by `npm ci` into
# DIR/node_modules, again only when the lock file has changed. Exits non-zero when
# they cannot be had: the tests need them.
#   deps.sh DIR
set -u
dir=$1
here=$(dirname "$0")
if cmp -s "$here/package-lock.json" "$dir/package-lock.json" &&
    [ -d "$dir/node_modules/@modelcontextprotocol/sdk" ]; then
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "mcp: npm not found (deps/install.sh installs it)" >&2
    exit 1
fi
echo "mcp: installing the MCP SDK and conformance suite (npm ci) into $dir/node_modules" >&2
mkdir -p "$dir"
cp "$here/package.json" "$here/package-lock.json" "$dir/"
if ! (cd "$dir" && timeout 300 npm ci --no-audit --no-fund --loglevel=error \
    --fetch-retries=1 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=5000 \
    >/dev/null 2>npm-ci.log); then
    rm -rf "$dir/node_modules" "$dir/package-lock.json"
    echo "mcp: npm ci failed ($(head -n 1 "$dir/npm-ci.log"); see $dir/npm-ci.log)" >&2
    exit 1
fi
