#!/bin/sh
# Runs the WASI conformance suite (WebAssembly/wasi-testsuite) on capsa's WASI
# host: one PASS/FAIL line per test program, SKIP for the exclusions listed with
# their reasons in tests/wasi/exclusions.txt, then "N passed, N failed". The
# programs are built by `make test-build` (tests/wasi/wasi.mk) into
# $BUILD/tests/wasi/bin. The data is looked up at $CONFORMANCE (default
# ../shared/conformance from the repository root); without it the suite fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) build=$BUILD ;; *) build=$root/$BUILD ;; esac
CONFORMANCE=${CONFORMANCE:-../shared/conformance}
case $CONFORMANCE in /*) data=$CONFORMANCE ;; *) data=$root/$CONFORMANCE ;; esac
suite=$data/wasi-testsuite
bin=$build/tests/wasi/bin

if [ ! -d "$suite" ]; then
    echo "FAIL wasi-testsuite: the conformance data is missing: no directory $suite"
    echo "(set CONFORMANCE to the folder that holds wasi-testsuite/)"
    echo "0 passed, 1 failed"
    exit 1
fi

pass=0
fail=0
skip=0
for set in c assemblyscript rust; do
    for wasm in "$suite/$set"/*.wasm; do
        [ -f "$wasm" ] || continue
        name=$(basename "$wasm" .wasm)
        reason=$(grep -E "^$set/$name[[:space:]]" "$here/exclusions.txt" 2>/dev/null |
            sed -E 's/^[^[:space:]]+[[:space:]]+//')
        if [ -n "$reason" ]; then
            echo "SKIP $set/$name: $reason"
            skip=$((skip + 1))
            continue
        fi
        prog=$bin/$set/$name
        if [ ! -x "$prog" ]; then
            echo "FAIL $set/$name: not built ($prog; run make test-build)"
            fail=$((fail + 1))
            continue
        fi
        # The runner stops the guest at its own 10 s deadline; timeout(1) only
        # guards against a hang in the host itself.
        out=$(timeout 60 "$prog" "$suite/$set" "$name" 2>&1)
        rc=$?
        if [ "$rc" -eq 0 ]; then
            echo "PASS $set/$name"
            pass=$((pass + 1))
        else
            echo "FAIL $set/$name (exit $rc)"
            echo "$out" | sed 's/^/    /' | tail -n 20
            fail=$((fail + 1))
        fi
    done
done
echo "wasi-testsuite: $skip excluded"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
