#!/bin/bash
# Compares the shell with the system's shell and tools (bash, GNU coreutils, sed,
# gawk, jq): every case of the given case files is a command line, run once by
# bash with the system's tools and once by ours, each in a fresh copy of
# tests/shell/fixture; their standard output and exit status must be the same.
#
#   compare.sh native FILE...   ours: bash with $BUILD/sh-bin first on PATH and
#                               the bash builtins of the same names disabled
#                               (our applets, bash's grammar; make shell-native)
#   compare.sh interp FILE...   ours: $BUILD/sh-native -c LINE (our interpreter
#                               and applets, built natively; make shell-native)
#   compare.sh capsa FILE...    ours: the sandbox's shell, through the library
#                               ($BUILD/tests/shell_batch: one engine, a new
#                               sandbox per case with the fixture as /workspace)
#
# In a case file, blank lines and lines starting with # are skipped. A line may
# end with "  #! stdout" to compare the output only, not the status, or with
# "  #! native" for a case that runs a system tool by its path (/usr/bin/tar) to
# check that ours interoperates with it: it is skipped in capsa mode, where the
# sandbox has no system tools. A case of
# several lines (here-documents, long scripts) goes between a line "<<<" and a
# line ">>>".
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
disabled="enable -n echo printf test [ pwd true false kill"

# The cases: their text, whether the status is compared, and their file.
skipped=0
cases=()
statuses=()
files=()
. "$here/cases.sh"
for file in "$@"; do
    case_text=()
    case_mark=()
    read_cases "$file"
    for j in "${!case_text[@]}"; do
        check=1
        case ${case_mark[$j]} in
        stdout) check=0 ;;
        native) if [ "$mode" = capsa ]; then skipped=$((skipped + 1)); continue; fi ;;
        esac
        cases+=("${case_text[$j]}")
        statuses+=("$check")
        files+=("$(basename "$file")")
    done
done

mkdir -p "$tmp/ref" "$tmp/ours"
# Runs case $1 in a fresh copy of the fixture, with output to $2/$1.*: "ref" with
# bash and the system's tools, "ours" with our applets or interpreter.
run_one() {
    local i=$1 side=$2 dir="$tmp/work"
    rm -rf "$dir"
    cp -r "$fixture" "$dir"
    case $side in
    ref) (cd "$dir" && timeout 10 bash -c "${cases[$i]}") ;;
    native) (cd "$dir" && PATH="$root/$BUILD/sh-bin:$PATH" timeout 10 bash -c "$disabled; ${cases[$i]}") ;;
    interp) (cd "$dir" && timeout 10 "$root/$BUILD/sh-native" -c "${cases[$i]}") ;;
    esac >"$tmp/$3/$i.out" 2>"$tmp/$3/$i.err" </dev/null
    echo $? >"$tmp/$3/$i.status"
}

for i in "${!cases[@]}"; do
    run_one "$i" ref ref
done
if [ "$mode" = capsa ]; then
    (cd "$fixture" && tar -cf "$tmp/fixture.tar" .)
    for i in "${!cases[@]}"; do printf '%s\0' "${cases[$i]}"; done >"$tmp/cases"
    "$root/$BUILD/tests/shell_batch" "$tmp/fixture.tar" "$tmp/ours" <"$tmp/cases" || exit 1
else
    for i in "${!cases[@]}"; do
        run_one "$i" "$mode" ours
    done
fi

pass=0
fail=0
for i in "${!cases[@]}"; do
    ok=1
    cmp -s "$tmp/ref/$i.out" "$tmp/ours/$i.out" || ok=0
    if [ "${statuses[$i]}" = 1 ] && ! cmp -s "$tmp/ref/$i.status" "$tmp/ours/$i.status"; then
        ok=0
    fi
    if [ $ok = 1 ]; then
        pass=$((pass + 1))
        continue
    fi
    fail=$((fail + 1))
    echo "FAIL (${files[$i]}): ${cases[$i]}"
    echo "  status: system $(cat "$tmp/ref/$i.status"), ours $(cat "$tmp/ours/$i.status")"
    diff -u --label system --label ours "$tmp/ref/$i.out" "$tmp/ours/$i.out" | head -n 20 | sed 's/^/  /'
    if [ -s "$tmp/ours/$i.err" ]; then
        echo "  our stderr:"
        head -n 5 "$tmp/ours/$i.err" | sed 's/^/    /'
    fi
done
[ $skipped = 0 ] || echo "($skipped cases that run system tools by path skipped)"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
