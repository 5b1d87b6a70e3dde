#!/bin/sh
# Golden JavaScript tests: each tests/js/GROUP/NAME.js runs in a fresh sandbox through
# the capsa CLI; its stdout must equal NAME.stdout and its stderr NAME.stderr (empty
# when that file is missing); its exit status NAME.status (0 when missing). NAME.stdin,
# when there, is its standard input (else /dev/null).
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
capsa="$BUILD/capsa"
pass=0
fail=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

for js in "$here"/*/*.js; do
    base=${js%.js}
    name=${base#"$here"/}
    stdin=/dev/null
    [ -f "$base.stdin" ] && stdin="$base.stdin"
    "$capsa" run "$js" <"$stdin" >"$out" 2>"$err"
    status=$?
    want_status=0
    [ -f "$base.status" ] && want_status=$(cat "$base.status")
    ok=1
    if [ "$status" -ne "$want_status" ]; then
        echo "FAIL $name: exit status $status, expected $want_status"
        ok=0
    fi
    if [ -f "$base.stdout" ]; then
        if ! cmp -s "$out" "$base.stdout"; then
            echo "FAIL $name: stdout differs (expected < > got)"
            diff "$base.stdout" "$out" | head -20
            ok=0
        fi
    fi
    if [ -f "$base.stderr" ]; then
        want_err="$base.stderr"
    else
        want_err=/dev/null
    fi
    if ! cmp -s "$err" "$want_err"; then
        echo "FAIL $name: stderr differs (expected < > got)"
        diff "$want_err" "$err" | head -20
        ok=0
    fi
    if [ "$ok" -eq 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
