#!/bin/bash
# Compares the shell's applets with the system's tools (GNU coreutils, sed, gawk,
# jq): every line of the given case files is a command line, run once with the
# system's tools and once with ours, each in a fresh copy of tests/shell/fixture;
# their standard output and exit status must be the same.
#
#   compare.sh native FILE...   ours: bash with $BUILD/sh-bin first on PATH and
#                               the bash builtins of the same names disabled
#                               (make shell-native first)
#   compare.sh capsa FILE...    ours: `capsa shell -c LINE` with the copy mounted
#                               read-write as /workspace
#
# In a case file, blank lines and lines starting with # are skipped. A line may
# end with "  #! stdout" to compare the output only, not the status.
set -u
BUILD=${BUILD:-build}
mode=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fixture=$here/fixture
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C TZ=UTC
pass=0
fail=0
disabled="enable -n echo printf test [ pwd true false kill"

run_ref() {
    (cd "$tmp/ref" && timeout 10 bash -c "$1" >"$tmp/ref.out" 2>"$tmp/ref.err" </dev/null)
    echo $? >"$tmp/ref.status"
}

run_ours() {
    case $mode in
    native)
        (cd "$tmp/ours" && PATH="$root/$BUILD/sh-bin:$PATH" timeout 10 \
            bash -c "$disabled; $1" >"$tmp/ours.out" 2>"$tmp/ours.err" </dev/null)
        ;;
    capsa)
        timeout 20 "$root/$BUILD/capsa" shell --mount "$tmp/ours:/workspace:rw" -c "$1" \
            >"$tmp/ours.out" 2>"$tmp/ours.err" </dev/null
        ;;
    esac
    echo $? >"$tmp/ours.status"
}

for file in "$@"; do
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in '' | '#'*) continue ;; esac
        check_status=1
        case $line in *'  #! stdout') check_status=0; line=${line%  #! stdout} ;; esac
        rm -rf "$tmp/ref" "$tmp/ours"
        cp -r "$fixture" "$tmp/ref"
        cp -r "$fixture" "$tmp/ours"
        run_ref "$line"
        run_ours "$line"
        ok=1
        cmp -s "$tmp/ref.out" "$tmp/ours.out" || ok=0
        if [ $check_status = 1 ] && ! cmp -s "$tmp/ref.status" "$tmp/ours.status"; then ok=0; fi
        if [ $ok = 1 ]; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            echo "FAIL ($(basename "$file")): $line"
            echo "  status: system $(cat "$tmp/ref.status"), ours $(cat "$tmp/ours.status")"
            diff -u --label system --label ours "$tmp/ref.out" "$tmp/ours.out" | head -n 20 | sed 's/^/  /'
            if [ -s "$tmp/ours.err" ]; then
                echo "  our stderr:"
                head -n 5 "$tmp/ours.err" | sed 's/^/    /'
            fi
        fi
    done <"$file"
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
