#!/bin/sh
# Runs a node-driven suite of the MCP tests: checks that node is there, installs
# the suite's pinned npm packages (DIR/deps.sh, into the build directory's
# NODE_DIR) and runs DIR/main.mjs with MCP_BUILD and MCP_NODE_DIR set, within 15
# minutes. A missing node or package is one failure ("0 passed, 1 failed").
#   node-suite.sh LABEL DIR NODE_DIR [main.mjs's arguments]
set -u
label=$1 dir=$2 node_dir=$3
shift 3
BUILD=${BUILD:-build}
case $BUILD in
/*) build=$BUILD ;;
*) build=$(pwd)/$BUILD ;;
esac
if ! command -v node >/dev/null 2>&1; then
    echo "$label: node not found (deps/install.sh installs npm and node)"
    echo "0 passed, 1 failed"
    exit 1
fi
if ! sh "$dir/deps.sh" "$build/$node_dir"; then
    echo "0 passed, 1 failed"
    exit 1
fi
MCP_BUILD=$build MCP_NODE_DIR=$build/$node_dir timeout 900 node "$dir/main.mjs" "$@"
