#!/bin/bash
# compare.sh: the sandbox's sqlite3 command against Debian's (/usr/bin/sqlite3, SQLite 3.40.1;
# ours is SQLite 3.52.0's own shell.c): every case of cases.txt is a command line,
# run once by bash with Debian's sqlite3 and once by the sandbox's shell
# ($BUILD/tests/shell_batch: a new sandbox per case), each in a fresh copy of
# fixture/ (the SQL corpus, a CSV, a script) as its working directory (the
# sandbox's /workspace). Their stdout, stderr and exit status must be the same.
#
# cases.txt is read as tests/shell/cases.sh says. A case where the two versions
# legitimately differ is marked "  #! differs PART...: REASON": PART stdout,
# stderr or status is not compared, PART crlf compares stdout without its
# carriage returns; the rest is compared, and the reason is printed.
#
# Then refusals.txt: cases run in the sandbox only, "STATUS|TEXT|COMMAND LINE":
# the exit status must be STATUS and stdout or stderr must contain TEXT.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
batch=$root/$BUILD/tests/shell_batch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C TZ=UTC

if [ ! -x /usr/bin/sqlite3 ]; then
    echo "sqlite: /usr/bin/sqlite3 is missing (make deps installs the Debian package sqlite3)"
    echo "0 passed, 1 failed"
    exit 1
fi

. "$here/../shell/cases.sh"
case_text=()
case_mark=()
read_cases "$here/cases.txt"
cases=()
skip=()
why=()
for j in "${!case_text[@]}"; do
    mark=${case_mark[$j]}
    parts=""
    reason=""
    case $mark in
    '') ;;
    'differs '*)
        mark=${mark#differs }
        parts=${mark%%:*}
        reason=${mark#*: }
        if [ "$reason" = "$mark" ] || [ -z "$reason" ]; then
            echo "sqlite: a '#! differs' mark without a reason: ${case_text[$j]}"
            echo "0 passed, 1 failed"
            exit 1
        fi ;;
    *)
        echo "sqlite: unknown mark '#! $mark': ${case_text[$j]}"
        echo "0 passed, 1 failed"
        exit 1 ;;
    esac
    cases+=("${case_text[$j]}")
    skip+=("$parts")
    why+=("$reason")
done

# Debian's side: bash in a fresh copy of the fixture, no ~/.sqliterc.
mkdir -p "$tmp/ref" "$tmp/ours" "$tmp/home"
for i in "${!cases[@]}"; do
    rm -rf "$tmp/work"
    cp -r "$here/fixture" "$tmp/work"
    (cd "$tmp/work" && HOME="$tmp/home" PATH=/usr/bin:/bin timeout 20 bash -c "${cases[$i]}") \
        >"$tmp/ref/$i.out" 2>"$tmp/ref/$i.err" </dev/null
    echo $? >"$tmp/ref/$i.status"
done

# The sandbox's side, and the refusals, in one batch.
(cd "$here/fixture" && tar -cf "$tmp/fixture.tar" .)
n=${#cases[@]}
refusals=()
while IFS= read -r line || [ -n "$line" ]; do
    case $line in '' | '#'*) continue ;; esac
    refusals+=("$line")
done <"$here/refusals.txt"
{
    for i in "${!cases[@]}"; do printf '%s\0' "${cases[$i]}"; done
    for r in "${refusals[@]}"; do printf '%s\0' "${r#*|*|}"; done
} >"$tmp/cases"
"$batch" "$tmp/fixture.tar" "$tmp/ours" <"$tmp/cases" || { echo "0 passed, 1 failed"; exit 1; }

# What differs in case $1, both sides' stdout and stderr as diffs.
report() {
    echo "FAIL: ${cases[$1]}"
    echo "  status: debian $(cat "$tmp/ref/$1.status"), ours $(cat "$tmp/ours/$1.status")"
    diff -u --label debian --label ours "$tmp/ref/$1.out" "$tmp/ours/$1.out" | head -n 20 |
        sed 's/^/  /'
    diff -u --label debian-stderr --label ours-stderr "$tmp/ref/$1.err" "$tmp/ours/$1.err" |
        head -n 12 | sed 's/^/  /'
}

pass=0
fail=0
marked=0
# shell.c's state is reset between runs (statics.sh).
if sh "$here/statics.sh" | grep -v ' passed, '; [ "${PIPESTATUS[0]}" = 0 ]; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
fi
for i in "${!cases[@]}"; do
    ok=1
    for part in out err status; do
        case $part in out) name=stdout ;; err) name=stderr ;; *) name=status ;; esac
        case " ${skip[$i]} " in *" $name "*) continue ;; esac
        if [ $part = out ] && case " ${skip[$i]} " in *" crlf "*) true ;; *) false ;; esac; then
            tr -d '\r' <"$tmp/ref/$i.out" >"$tmp/ref.lf"
            tr -d '\r' <"$tmp/ours/$i.out" >"$tmp/ours.lf"
            cmp -s "$tmp/ref.lf" "$tmp/ours.lf" || ok=0
            continue
        fi
        cmp -s "$tmp/ref/$i.$part" "$tmp/ours/$i.$part" || ok=0
    done
    if [ -n "${skip[$i]}" ]; then
        marked=$((marked + 1))
        echo "marked (${skip[$i]}): ${why[$i]}"
        echo "  $(printf '%s' "${cases[$i]}" | head -n 1)"
    fi
    [ $ok = 1 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); report "$i"; }
done
echo "differential: ${#cases[@]} cases, $marked with a marked version difference"

for j in "${!refusals[@]}"; do
    r=${refusals[$j]}
    want_status=${r%%|*}
    rest=${r#*|}
    want_text=${rest%%|*}
    cmd=${rest#*|}
    k=$((n + j))
    got_status=$(cat "$tmp/ours/$k.status")
    if [ "$got_status" = "$want_status" ] &&
        cat "$tmp/ours/$k.out" "$tmp/ours/$k.err" | grep -qF -- "$want_text"; then
        pass=$((pass + 1))
        continue
    fi
    fail=$((fail + 1))
    echo "FAIL (refusal): $cmd"
    echo "  expected status $want_status and stderr with: $want_text"
    echo "  got status $got_status, stderr:"
    head -n 5 "$tmp/ours/$k.err" | sed 's/^/    /'
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
