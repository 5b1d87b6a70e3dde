#!/bin/sh
# The shell inside the sandbox against the system's shell and tools: every case
# file of compare/ (grammar.txt the interpreter, the others the applets) is run
# through `capsa shell -c` and through bash with GNU coreutils, sed, gawk and jq,
# and the outputs and exit statuses compared (compare.sh). First, the shell's
# files must call each other downwards only (layers.sh).
here=$(cd "$(dirname "$0")" && pwd)
sh "$here/layers.sh" || exit 1
exec bash "$here/compare.sh" capsa "$here"/compare/*.txt
