#!/bin/sh
# The sandbox under attack: scripts that try to exhaust the host, to reach what the
# sandbox does not give, and to break what the runtime relies on. Each case NAME in
# cases/ is
#   NAME.js      the script, given to `capsa run -` on standard input (so that no host
#                path reaches the guest, not even as the script's file name);
#   NAME.args    the limits and other options of the run, on one line, e.g.
#                `--timeout 0.5 --memory 32 --max-output 1000` (required: every case
#                states its limits; they are split into words, no quoting; @ROOT@
#                is the repository, for --tools and --policy files: their commands
#                are found in $BUILD, where the demo tool is built);
#   NAME.expect  what must happen, one directive a line (# starts a comment):
#                  status N...     the exit status (0 ok, 1 threw, 2 usage, 3 limit);
#                                  several when either outcome is right
#                  match RE        grep -E RE matches a line of stdout or stderr
#                  nomatch RE      no line of stdout or stderr matches RE
#                  stdout RE       a line of stdout matches RE (stderr RE likewise)
#                  count N RE      exactly N lines of stdout and stderr match RE
#                  maxbytes N      stdout and stderr together hold at most N bytes
#                  within SEC      the run took at most SEC seconds of wall time
#                                  (default: the --timeout of .args plus 5, else 20)
#                  rss MIB         the capsa process peaked under MIB MiB resident
#                                  (default: the --memory of .args plus 96)
#                  fresh           the script is also run by $BUILD/tests/adv_fresh
#                                  (fresh.c, built by adversarial.mk) in one engine:
#                                  a sandbox alive during the attack, the attacked
#                                  one after capsa_reset, a new one, and one reset
#                                  by a time limit after the attack must all give
#                                  exactly what a pristine sandbox gives
#
# After every case, whatever it expects, the runner checks that the host survived
# and that nothing outside the sandbox changed:
#   - the exit status is 0, 1, 2 or 3: never a signal, never 124 from the guard of
#     `timeout $guard` around each run;
#   - the run's working directory (a scratch directory holding a canary file, also
#     the run's HOME) has the same listing and the canary the same bytes; the
#     listing of this directory is unchanged;
#   - nothing printed holds a secret of the host: the value of an environment
#     variable set for the run (CAPSA_ADV_SECRET), the canary's contents, the
#     scratch directory's path or this directory's path;
#   - TZ is set to a zone far from UTC for the run (Date must still be UTC).
# The peak resident size is measured with /usr/bin/time when it exists (GNU time,
# -f %M); without it the rss checks are skipped and said so once.
#
# Usage: BUILD=build-adv sh tests/adversarial/run.sh [NAME...]
# Prints one line per failure and "N passed, N failed" last; exits non-zero on
# failure. VERBOSE=1 prints each case's status, time and peak RSS; ADV_GUARD=SEC
# changes the guard (default 20 s).
#
# Categories (cases are named after them):
#   dos_*     denial of service: endless loops in every place code can run, the
#             microtask queue, catastrophic regular expressions, deep recursion,
#             memory bombs, output floods, promise storms
#   leak_*    information leaks and ambient authority: host objects, Node/Deno/
#             QuickJS globals, modules, the network, environment, time zone
#   tamper_*  tampering with what the runtime relies on: built-ins, console,
#             error objects with hostile getters, prototype pollution
# To come with the VFS and tools (these parts of capsa do not exist yet):
#   fs_*      path traversal, symlinks, quotas, file descriptor exhaustion
#   tool_*    the tool bridge: forged calls, oversized arguments, re-entrancy
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
case $BUILD in
/*) build_dir=$BUILD ;;
*) build_dir="$(pwd)/$BUILD" ;;
esac
capsa="$build_dir/capsa"
root=$(cd "$here/../.." && pwd)
PATH="$build_dir:$PATH"
export PATH
fresh="$build_dir/tests/adv_fresh"
cases="$here/cases"
guard=${ADV_GUARD:-20}

if [ ! -x "$capsa" ]; then
    echo "FAIL: $capsa is not built (make test-build BUILD=$BUILD)"
    echo "0 passed, 1 failed"
    exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scratch="$work/scratch"
mkdir "$scratch"
secret="capsa-adv-secret-$$-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
canary_text="canary-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
printf '%s\n' "$canary_text" >"$scratch/canary.txt"
cp "$scratch/canary.txt" "$work/canary.orig"
out="$work/out"
err="$work/err"
both="$work/both"
rssf="$work/rss"

have_time=0
[ -x /usr/bin/time ] && /usr/bin/time -f %M -o "$rssf" true 2>/dev/null && have_time=1
[ "$have_time" -eq 1 ] || echo "note: /usr/bin/time (GNU) missing: peak RSS is not checked"
# Under ASan the host's peak RSS holds shadow memory and the quarantine of freed
# blocks (256 MiB by default): the bounds are checked in the plain run only.
check_rss=$have_time
if [ "${CAPSA_TEST_SANITIZED:-0}" = 1 ]; then
    check_rss=0
    echo "note: sanitizer build: peak RSS bounds are checked by the plain run, not here"
fi

now_ms() {
    t=$(date +%s%N 2>/dev/null)
    case $t in
    *N) echo $(($(date +%s) * 1000)) ;;
    *) echo $((t / 1000000)) ;;
    esac
}

# The entries of directory $1 and the directory itself, with times to the
# nanosecond where ls can show them.
listing() {
    ls -lA --time-style=full-iso "$1" 2>/dev/null || ls -lA "$1"
    ls -ld --time-style=full-iso "$1" 2>/dev/null || ls -ld "$1"
}

pass=0
fail=0
fresh_missing=0

# The value of the first `--NAME V` in the words given, or empty.
opt_value() {
    want=$1
    shift
    while [ $# -gt 0 ]; do
        if [ "$1" = "$want" ] && [ $# -gt 1 ]; then
            echo "$2"
            return
        fi
        shift
    done
}

# Runs case $1; prints its failures and counts it.
run_case() {
    name=$1
    js="$cases/$name.js"
    argsf="$cases/$name.args"
    expectf="$cases/$name.expect"
    problems=
    note() { problems="$problems$name: $*$nl"; }
    if [ ! -f "$argsf" ] || [ ! -f "$expectf" ]; then
        note "missing $name.args or $name.expect"
        fail=$((fail + 1))
        printf '%s' "FAIL $problems"
        return
    fi
    args=$(sed "s|@ROOT@|$root|g" "$argsf")
    # shellcheck disable=SC2086
    timeout_s=$(opt_value --timeout $args)
    # shellcheck disable=SC2086
    memory_mib=$(opt_value --memory $args)

    before_scratch=$(listing "$scratch")
    before_here=$(listing "$here")
    before_cases=$(listing "$cases")

    t0=$(now_ms)
    if [ "$have_time" -eq 1 ]; then
        # shellcheck disable=SC2086
        (cd "$scratch" && env HOME="$scratch" TZ=Asia/Kathmandu CAPSA_ADV_SECRET="$secret" \
            timeout -k 5 "$guard" /usr/bin/time -f %M -o "$rssf" \
            "$capsa" run $args - <"$js" >"$out" 2>"$err")
    else
        # shellcheck disable=SC2086
        (cd "$scratch" && env HOME="$scratch" TZ=Asia/Kathmandu CAPSA_ADV_SECRET="$secret" \
            timeout -k 5 "$guard" "$capsa" run $args - <"$js" >"$out" 2>"$err")
    fi
    status=$?
    t1=$(now_ms)
    elapsed_ms=$((t1 - t0))
    cat "$out" "$err" >"$both"

    # GNU time reports a child killed by a signal as "Command terminated by
    # signal N" and exits 128+N; timeout exits 124 (or 137 after -k).
    if [ "$status" -gt 3 ]; then
        if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
            note "host did not finish within the ${guard}s guard (exit $status)"
        else
            note "host died: exit status $status $(grep -h 'signal' "$rssf" 2>/dev/null)"
        fi
    fi
    if [ "$have_time" -eq 1 ] && grep -q 'signal' "$rssf" 2>/dev/null; then
        note "host killed by a signal: $(grep -h 'signal' "$rssf")"
    fi

    # The host and everything around the sandbox must be untouched.
    after_scratch=$(listing "$scratch")
    [ "$after_scratch" = "$before_scratch" ] ||
        note "the working directory changed:$nl$before_scratch$nl--- now:$nl$after_scratch"
    if ! cmp -s "$scratch/canary.txt" "$work/canary.orig"; then
        note "the canary file changed"
    fi
    if [ -n "$problems" ]; then
        # Put the scratch directory back, so that later cases start clean.
        rm -rf "$scratch" && mkdir "$scratch" && cp "$work/canary.orig" "$scratch/canary.txt"
    fi
    [ "$(listing "$here")" = "$before_here" ] || note "tests/adversarial/ changed"
    [ "$(listing "$cases")" = "$before_cases" ] || note "tests/adversarial/cases/ changed"
    grep -q -F "$secret" "$both" && note "an environment variable of the host was printed"
    grep -q -F "$canary_text" "$both" && note "the canary file's contents were printed"
    grep -q -F "$scratch" "$both" && note "the working directory's path was printed"
    grep -q -F "$here" "$both" && note "a host path was printed"

    want_status=
    within=
    rss_max=
    want_fresh=0
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in
        '' | '#'*) continue ;;
        esac
        key=${line%% *}
        val=${line#* }
        [ "$key" = "$line" ] && val=
        case $key in
        status) want_status=$val ;;
        match) grep -q -E -e "$val" "$both" || note "no line matches: $val" ;;
        nomatch) grep -q -E -e "$val" "$both" && note "a line matches what must not be printed: $val" ;;
        stdout) grep -q -E -e "$val" "$out" || note "no line of stdout matches: $val" ;;
        stderr) grep -q -E -e "$val" "$err" || note "no line of stderr matches: $val" ;;
        count)
            n=${val%% *}
            re=${val#* }
            got=$(grep -c -E -e "$re" "$both")
            [ "$got" -eq "$n" ] || note "$got lines match, expected $n: $re"
            ;;
        maxbytes)
            got=$(wc -c <"$both")
            [ "$got" -le "$val" ] || note "$got bytes printed, expected at most $val"
            ;;
        within) within=$val ;;
        rss) rss_max=$val ;;
        fresh) want_fresh=1 ;;
        *) note "unknown directive '$key' in $name.expect" ;;
        esac
    done <"$expectf"

    if [ -z "$want_status" ]; then
        note "$name.expect has no status line"
    else
        case " $want_status " in
        *" $status "*) ;;
        *) note "exit status $status, expected $want_status" ;;
        esac
    fi
    if [ -z "$within" ]; then
        if [ -n "$timeout_s" ]; then
            within=$(awk -v t="$timeout_s" 'BEGIN { print t + 5 }')
        else
            within=$guard
        fi
    fi
    if awk -v e="$elapsed_ms" -v w="$within" 'BEGIN { exit !(e > w * 1000) }'; then
        note "took ${elapsed_ms} ms, expected at most ${within} s"
    fi
    if [ "$check_rss" -eq 1 ]; then
        [ -n "$rss_max" ] || rss_max=$((${memory_mib:-256} + 96))
        kb=$(grep -E '^[0-9]+$' "$rssf" | tail -n 1)
        if [ -n "$kb" ] && [ "$kb" -gt $((rss_max * 1024)) ]; then
            note "peak RSS $((kb / 1024)) MiB, expected under $rss_max MiB"
        fi
    fi

    if [ "$want_fresh" -eq 1 ]; then
        if [ ! -x "$fresh" ]; then
            fresh_missing=1
            note "$fresh is not built (tests/adversarial/adversarial.mk)"
        else
            ms=$(awk -v t="${timeout_s:-5}" 'BEGIN { printf "%d", t * 1000 }')
            if ! (cd "$scratch" && env TZ=Asia/Kathmandu CAPSA_ADV_SECRET="$secret" \
                timeout -k 5 "$guard" "$fresh" "$js" "$ms" "${memory_mib:-64}" \
                >"$work/fresh.out" 2>&1); then
                note "a sandbox after the attack is not pristine:$nl$(head -c 2000 "$work/fresh.out")"
            fi
        fi
    fi

    if [ -n "${VERBOSE:-}" ]; then
        kb=$(grep -E '^[0-9]+$' "$rssf" 2>/dev/null | tail -n 1)
        echo "$name: exit $status, ${elapsed_ms} ms${kb:+, $((kb / 1024)) MiB}"
    fi
    if [ -z "$problems" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        printf '%s' "$problems" | sed 's/^/FAIL /'
        echo "  --- output (first 20 lines):"
        head -n 20 "$both" | cut -c 1-300 | sed 's/^/  | /'
    fi
}

nl='
'
if [ $# -gt 0 ]; then
    for n in "$@"; do run_case "$n"; done
else
    for js in "$cases"/*.js; do
        n=${js##*/}
        run_case "${n%.js}"
    done
fi
[ "$fresh_missing" -eq 1 ] && echo "note: build adv_fresh: include tests/adversarial/adversarial.mk"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
