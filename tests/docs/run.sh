#!/bin/sh
# The documentation's examples and links: every fenced code block of README.md and
# docs/*.md runs (or says why it cannot), what a block shows as its output is what it
# prints, and every relative link and anchor resolves (tests/docs/examples.py says
# how); then the build's hints for a missing dependency name the Debian package that
# provides it, one deps/install.sh installs (tests/docs/hints.sh).
# Ends with the sum of both: "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-build}
export BUILD
log=$(mktemp)
trap 'rm -f "$log"' EXIT
pass=0
fail=0
# Runs one part, shows its output, and adds its "N passed, N failed" to the sums (a
# part that exits non-zero without failures counted is one failure).
part() {
    "$@" >"$log" 2>&1
    rc=$?
    grep -v -E '^[0-9]+ passed, [0-9]+ failed$' "$log"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
    f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed$/\1/p')
    p=${p:-0}
    f=${f:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    pass=$((pass + p))
    fail=$((fail + f))
}
if ! command -v python3 >/dev/null 2>&1; then
    echo "FAIL python3 is not installed: the examples are not run"
    fail=$((fail + 1))
elif [ ! -x "$BUILD/capsa" ] || [ ! -f "$BUILD/libcapsa.a" ]; then
    echo "FAIL no $BUILD/capsa or $BUILD/libcapsa.a: build them first (make BUILD=$BUILD all)"
    fail=$((fail + 1))
else
    part python3 "$here/examples.py"
fi
part sh "$here/hints.sh"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
