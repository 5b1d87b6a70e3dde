#!/bin/sh
# Runs every test suite and prints each suite's "N passed, N failed" line, then the
# total. Exits non-zero if anything failed. Expects `make test-build` to have run.
set -u
BUILD=${BUILD:-build}
export BUILD
here=$(cd "$(dirname "$0")" && pwd)
total_pass=0
total_fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Runs one suite command; its last "N passed, N failed" line is added to the total.
# A suite that exits non-zero without failures counted is counted as one failure.
suite() {
    name=$1
    shift
    "$@" >"$log" 2>&1
    rc=$?
    line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    p=$(echo "$line" | sed -n 's/.*[^0-9]\([0-9][0-9]*\) passed.*/\1/p;s/^\([0-9][0-9]*\) passed.*/\1/p' | head -n 1)
    f=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p')
    p=${p:-0}
    f=${f:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1
    fi
    if [ "$f" -ne 0 ]; then
        echo "--- $name: output"
        cat "$log"
        echo "---"
    fi
    echo "$name: $p passed, $f failed"
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
}

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    suite "$(basename "$t")" "$t"
done
for r in "$here"/*/run.sh; do
    [ -f "$r" ] || continue
    suite "$(basename "$(dirname "$r")")" sh "$r"
done

echo
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
