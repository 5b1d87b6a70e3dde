#!/bin/sh
# The interactive capsa shell on a pseudo-terminal (tests/repl/repl.py): line
# editing, history, continued command lines, Ctrl-C. Expects `make all`.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case $BUILD in /*) build=$BUILD ;; *) build=$root/$BUILD ;; esac
exec python3 "$here/repl.py" "$build/capsa"
