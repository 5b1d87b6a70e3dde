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
# "N passed, N failed, N skipped". The suite's location: $JSON_SCHEMA_TEST_SUITE
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
# shellcheck disable=SC2086 # the file names have no spaces
exec "$build/tests/schema_suite" -7 "$here/known-failures.txt" "$suite" $files $optional
