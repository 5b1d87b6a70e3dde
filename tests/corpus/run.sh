#!/bin/sh
# Corpus of agent-style scripts: each tests/corpus/scripts/NAME.js runs in a fresh sandbox
# through the capsa CLI; its stdout must equal expected/NAME.stdout byte for byte (Node's
# output, made by regen.sh), its stderr must be empty and its exit status 0. Node is not
# needed here. BUILD selects the build directory (default build); an argument runs only
# the scripts whose names start with it (sh tests/corpus/run.sh 05-).
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
capsa="$BUILD/capsa"
pass=0
fail=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

for js in "$here"/scripts/"${1:-}"*.js; do
    [ -f "$js" ] || continue
    name=$(basename "$js" .js)
    want="$here/expected/$name.stdout"
    "$capsa" run "$js" >"$out" 2>"$err"
    status=$?
    why=
    if [ "$status" -ne 0 ]; then
        why="exit status $status"
    elif [ -s "$err" ]; then
        why="stderr not empty"
    elif [ ! -f "$want" ]; then
        why="no expected/$name.stdout (run regen.sh)"
    elif ! cmp -s "$out" "$want"; then
        why="stdout differs from Node's (expected < > got)"
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
        continue
    fi
    fail=$((fail + 1))
    echo "FAIL $name: $why"
    if [ -s "$err" ]; then head -10 "$err"; fi
    if [ -f "$want" ]; then diff "$want" "$out" | head -20; fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
