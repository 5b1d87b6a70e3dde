#!/bin/sh
# Runs the official JSON-Schema-Test-Suite against the validator (src/schema.c):
# Debian's json-schema-test-suite (deps/install.sh installs it), whose version
# has no draft2020-12/ directory, so its draft7/ files run with the validator in
# draft-07 mode (the keywords are those of 2020-12 but for the spellings of
# items/additionalItems, dependencies and definitions, and $ref's siblings; the
# 2020-12 forms are in tests/unit/test_schema.c). Every required file runs, and
# the optional ones about numbers, regular expressions and content; not the
# format/ ones (format is not asserted). The cases allowed to fail are listed with
# their reasons in tests/schema/known-failures.txt. Prints each file's count, then
# "N passed, N failed, N skipped"; then the differential test of the 2020-12 forms
# (diff2020.py, below), and the total. The suite's location: $JSON_SCHEMA_TEST_SUITE
# (default /usr/share/json-schema-test-suite).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) build=$BUILD ;; *) build=$root/$BUILD ;; esac
suite=${JSON_SCHEMA_TEST_SUITE:-/usr/share/json-schema-test-suite}/tests/draft7

if [ ! -d "$suite" ]; then
    echo "FAIL JSON-Schema-Test-Suite: no directory $suite (apt-get install json-schema-test-suite)"
    echo "0 passed, 1 failed"
    exit 1
fi
files=$(cd "$suite" && ls *.json)
optional="optional/bignum.json optional/zeroTerminatedFloats.json optional/ecmascript-regex.json
optional/content.json"
log=$(mktemp)
out=$(mktemp)
trap 'rm -f "$log" "$out"' EXIT
# shellcheck disable=SC2086 # the file names have no spaces
"$build/tests/schema_suite" -7 "$here/known-failures.txt" "$suite" $files $optional >"$out"
status=$?
cat "$out" && cat "$out" >>"$log"

# The 2020-12 forms, differentially: diff2020.py has Debian's python3-jsonschema
# (Debian's own interpreter, not another on PATH) decide its pairs, and the driver
# checks capsa's verdicts against them; the disagreements by design are listed in
# diff2020-known.txt.
python=${DEBIAN_PYTHON:-/usr/bin/python3}
if "$python" "$here/diff2020.py" "$build/tests/diff2020.json" >"$out" 2>&1; then
    cat "$out"
    "$build/tests/schema_suite" -n "2020-12 pairs agreeing with python3-jsonschema" \
        "$here/diff2020-known.txt" "$build/tests" diff2020.json >"$out" || status=1
    cat "$out" && cat "$out" >>"$log"
else
    cat "$out"
    echo "FAIL diff2020.py could not make its pairs (apt-get install python3-jsonschema)" >>"$log"
    tail -n 1 "$log"
    status=1
fi
# The total of both, as tests/run.sh adds it up.
awk '/: [0-9]+ passed, [0-9]+ failed/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i;
     if ($(i+1) ~ /^failed/) f += $i } } /^FAIL diff2020.py/ { f++ }
     END { printf "%d passed, %d failed\n", p, f }' "$log"
exit $status
