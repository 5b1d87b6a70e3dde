#!/bin/sh
# Golden tests of the capsa command, in the manner of wabt's: each case NAME is
#   NAME.args    the arguments, one per line (an empty line is an empty argument; a file
#                with no lines gives no arguments). In each argument @DIR@ becomes this
#                directory, @TMP@ the temporary directory of generated inputs (below),
#                @NL@ a newline (for -e code of several lines).
#   NAME.stdin   standard input (optional; /dev/null when missing, unless the generator
#                below made @TMP@/NAME.stdin: a file, or a pipe that never ends).
#   NAME.stdout, NAME.stderr, NAME.status
#                what capsa must print and its exit status; a missing .stdout or .stderr
#                means empty, a missing .status means 0.
# REBASE=1 sh tests/cli/run.sh rewrites the expected output files from what the build
# prints (for an intended change of output; review the diff before committing).
# capsa runs with this directory as its working directory, so a case names its scripts
# by relative paths and the stack traces stay the same on every machine. A case that
# runs for more than a minute is stopped and fails.
#
# Before comparing, both outputs are normalised:
#   - this directory's absolute path is written @DIR@, the temporary directory @TMP@,
#     the version capsa --version prints @VERSION@;
#   - in --json stats, "wall_ms":<number> is written "wall_ms":N and
#     "memory_bytes":<number> "memory_bytes":N, and "fuel_used" likewise (the first is a
#     time, the others change with any change of the guest; the other stats are exact).
#
# Inputs too large to commit, or with bytes that do not belong in a text file (NUL,
# invalid UTF-8), are written by generate() below into @TMP@ just before their case
# runs and removed after it. The temporary directory is removed at exit.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
case $BUILD in
/*) capsa="$BUILD/capsa" ;;
*) capsa="$(pwd)/$BUILD/capsa" ;;
esac
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out="$tmp/.out"
err="$tmp/.err"
gen="$tmp/gen"
mkdir "$gen"

# A case that runs longer than this is stopped and fails (no case should hang).
limit=60
if command -v timeout >/dev/null 2>&1; then
    with_timeout="timeout $limit"
else
    with_timeout=
fi

nl='
'

# Sets $replaced to $1 with every $2 replaced by $3 (POSIX sh has no ${var//}).
replace_all() {
    replaced=
    rest=$1
    while :; do
        case $rest in
        *"$2"*)
            replaced=$replaced${rest%%"$2"*}$3
            rest=${rest#*"$2"}
            ;;
        *) break ;;
        esac
    done
    replaced=$replaced$rest
}

# Prints $1 escaped for the left side of a sed s||| command.
sed_escape() {
    printf '%s\n' "$1" | sed 's/[][\\|.*^$&]/\\&/g'
}
here_re=$(sed_escape "$here")
gen_re=$(sed_escape "$gen")
version_re=$(sed_escape "$("$capsa" --version | sed 's/^capsa //')")

normalise() {
    sed -e "s|$gen_re|@TMP@|g" -e "s|$here_re|@DIR@|g" -e "s|$version_re|@VERSION@|g" \
        -e 's/"wall_ms":[0-9.eE+-]*/"wall_ms":N/g' \
        -e 's/"memory_bytes":[0-9]*/"memory_bytes":N/g' \
        -e 's/"fuel_used":[0-9]*/"fuel_used":N/g' "$1"
}

# Writes $1 copies of the character $2 to stdout.
fill() {
    head -c "$1" /dev/zero | tr '\000' "$2"
}

# Writes the generated inputs of case $1 into $gen.
generate() {
    case $1 in
    big_10mib_string)
        # A string literal of 10 MiB.
        { printf 'const s = "'; fill 10485760 a; printf '";\nreturn s.length;\n'; } \
            >"$gen/big.js"
        ;;
    big_10mb_statements)
        # 1,310,720 statements of 8 bytes: 10 MiB of code.
        awk 'BEGIN { print "let n = 0;"; for (i = 0; i < 1310720; i++) print "n += 1;";
                     print "return n;" }' >"$gen/big.js"
        ;;
    big_exactly_64mib)
        # The largest script accepted: 64 MiB exactly, mostly spaces.
        { fill 67108855 ' '; printf 'return 1;'; } >"$gen/big.js"
        ;;
    big_64mib_plus_one)
        { fill 67108856 ' '; printf 'return 1;'; } >"$gen/big.js"
        ;;
    big_65mib_file | big_65mib_stdin)
        # A 65 MiB string literal: over the 64 MiB limit.
        { printf 'return "'; fill 68157440 a; printf '".length;\n'; } >"$gen/big.js"
        [ "$1" = big_65mib_stdin ] && mv "$gen/big.js" "$gen/$1.stdin"
        ;;
    big_130mib_file | big_130mib_stdin)
        # Past twice the limit, the command stops reading before the end.
        fill 136314880 ' ' >"$gen/big.js"
        [ "$1" = big_130mib_stdin ] && mv "$gen/big.js" "$gen/$1.stdin"
        ;;
    empty_file)
        : >"$gen/empty.js"
        ;;
    stdin_over_limit_stream | shell_stdin_over_limit)
        fill 2000 s >"$gen/$1.stdin"
        ;;
    stdin_over_default_limit)
        # One byte past the 64 MiB capsa reads by default.
        fill 67108865 d >"$gen/$1.stdin"
        ;;
    stdin_never_ends_* | shell_stdin_never_ends)
        # A pipe that never ends: this script holds its writing end open (fd 9, closed
        # after the case) and writes nothing.
        mkfifo "$gen/$1.stdin"
        exec 9<>"$gen/$1.stdin"
        ;;
    nul_in_string_literals)
        # NUL bytes inside '', "" and `` literals, a regexp and a comment. The
        # backquotes are JavaScript's, hence the single quotes.
        # shellcheck disable=SC2016
        printf 'const a = "a\000b", b = '"'"'\000'"'"', c = `x\000`;\n' >"$gen/$1.stdin"
        printf '// comment \000 with NUL\nconst r = /a\000b/;\n' >>"$gen/$1.stdin"
        printf 'return [a.length, a.charCodeAt(1), b.length, c.length, a, r.test("a\\0b")];\n' \
            >>"$gen/$1.stdin"
        ;;
    nul_between_statements)
        # A NUL where a statement could start: a syntax error, so nothing runs.
        printf 'console.log(1);\nreturn 1;\000\n' >"$gen/$1.stdin"
        ;;
    nul_inside_expression)
        printf 'return 1 \000 + 2;\n' >"$gen/$1.stdin"
        ;;
    invalid_utf8_in_string)
        # A valid two-byte sequence, then the byte FF, which UTF-8 never uses.
        printf 'let ok = "\303\251";\nlet bad = "a\377b";\n' >"$gen/$1.stdin"
        ;;
    invalid_utf8_outside_string)
        # The byte FF between two operands.
        printf 'let x = 1;\nlet y = x \377 2;\n' >"$gen/$1.stdin"
        ;;
    invalid_utf8_in_comment)
        # Comments are skipped byte by byte: bad sequences there are ignored.
        printf '// \377\376 not UTF-8\n/* \300\200 */\nreturn "fine";\n' >"$gen/$1.stdin"
        ;;
    invalid_utf8_over_max_code_point)
        # F4 90 80 80 would be U+110000, past the last code point.
        printf 'return "\364\220\200\200";\n' >"$gen/$1.stdin"
        ;;
    session_resume | session_limits_ignored)
        # The first command of the session, in a process of its own.
        (cd "$here" && "$capsa" run --session "$gen/s.ckpt" -e 'globalThis.n = 41;
            class Point {}; fs.writeFileSync("a.txt", "saved")' >/dev/null)
        ;;
    session_budget | session_tool_unbound)
        printf '{"capabilities": [{"pattern": "echo", "max_calls": 3}]}' >"$gen/policy.json"
        (cd "$here" && "$capsa" run --session "$gen/s.ckpt" --tools tooldata/tools.json \
            --policy "$gen/policy.json" -e 'await echo({}); await echo({})' >/dev/null)
        ;;
    session_real_constraint)
        # Reals in the policy and in a tool's schema: saved as they were written
        # (0.1, not 0.10000000000000001), so that the session loads again.
        printf '{"capabilities": [{"pattern": "*", "constraints": [{"param": "n", "op": "<=", "value": 0.1}]}]}' \
            >"$gen/policy.json"
        printf '{"tools": [{"name": "e", "command": ["cat"], "parameters": {"type": "object", "properties": {"n": {"type": "number", "maximum": 19.99}}}}]}' \
            >"$gen/reals.json"
        (cd "$here" && "$capsa" run --session "$gen/s.ckpt" --tools "$gen/reals.json" \
            --policy "$gen/policy.json" -e 'globalThis.k = (await e({n: 0.05})).n' >/dev/null)
        ;;
    session_not_checkpoint)
        printf '{"not": "a checkpoint"}\n' >"$gen/bad.ckpt"
        ;;
    session_truncated)
        (cd "$here" && "$capsa" run --session "$gen/full.ckpt" -e 'globalThis.n = 1' >/dev/null)
        head -c 500 "$gen/full.ckpt" >"$gen/s.ckpt"
        ;;
    session_bit_flipped)
        # One bit of the last zstd frame's checksum (the file's last 4 bytes) flipped.
        (cd "$here" && "$capsa" run --session "$gen/full.ckpt" -e 'globalThis.n = 1' >/dev/null)
        size=$(wc -c <"$gen/full.ckpt")
        head -c $((size - 1)) "$gen/full.ckpt" >"$gen/s.ckpt"
        last=$(tail -c 1 "$gen/full.ckpt" | od -An -tu1)
        printf "\\$(printf %03o $((last ^ 1)))" >>"$gen/s.ckpt"
        ;;
    session_other_version)
        # Format version 3 in the header (its ninth byte).
        (cd "$here" && "$capsa" run --session "$gen/full.ckpt" -e 'globalThis.n = 1' >/dev/null)
        head -c 8 "$gen/full.ckpt" >"$gen/s.ckpt"
        printf '\003' >>"$gen/s.ckpt"
        tail -c +10 "$gen/full.ckpt" >>"$gen/s.ckpt"
        ;;
    session_mount_rw)
        # The host removes a file between the two commands: it does not come back.
        mkdir "$gen/d" && echo host >"$gen/d/h.txt"
        (cd "$here" && "$capsa" run --session "$gen/s.ckpt" --mount "$gen/d:/data:rw" \
            -e 'fs.writeFileSync("/data/g.txt", "guest")' >/dev/null)
        rm "$gen/d/h.txt"
        ;;
    session_shell)
        (cd "$here" && "$capsa" shell --session "$gen/s.ckpt" -c 'X=5; cd /tmp; echo hi > f' \
            >/dev/null)
        ;;
    utf8_encoded_surrogate)
        # ED A0 80 is U+D800 encoded as UTF-8 (CESU-8), which strict UTF-8 forbids.
        printf 'return "\355\240\200".length;\n' >"$gen/$1.stdin"
        ;;
    esac
}

for argsf in "$here"/*.args; do
    base=${argsf%.args}
    name=${base#"$here"/}
    generate "$name"

    set --
    while IFS= read -r line || [ -n "$line" ]; do
        replace_all "$line" @DIR@ "$here"
        replace_all "$replaced" @TMP@ "$gen"
        replace_all "$replaced" @NL@ "$nl"
        set -- "$@" "$replaced"
    done <"$argsf"

    stdin=/dev/null
    if [ -f "$base.stdin" ]; then
        stdin="$base.stdin"
    elif [ -e "$gen/$name.stdin" ]; then
        stdin="$gen/$name.stdin"
    fi

    (cd "$here" && $with_timeout "$capsa" "$@" <"$stdin" >"$out" 2>"$err")
    status=$?

    want_status=0
    [ -f "$base.status" ] && want_status=$(cat "$base.status")
    ok=1
    if [ "$status" -ne "$want_status" ]; then
        if [ -n "$with_timeout" ] && [ "$status" -eq 124 ]; then
            echo "FAIL $name: stopped after ${limit}s, expected exit status $want_status"
        else
            echo "FAIL $name: exit status $status, expected $want_status"
        fi
        ok=0
    fi
    for stream in stdout stderr; do
        if [ "$stream" = stdout ]; then got=$out; else got=$err; fi
        want="$base.$stream"
        [ -f "$want" ] || want=/dev/null
        normalise "$got" >"$got.n"
        if ! cmp -s "$got.n" "$want" && [ -n "${REBASE:-}" ]; then
            # REBASE=1: take what the build prints as the new expectation (then
            # review the diff of the golden files before committing them).
            if [ -s "$got.n" ]; then cp "$got.n" "$base.$stream"; else rm -f "$base.$stream"; fi
            echo "rebased $name.$stream"
        elif ! cmp -s "$got.n" "$want"; then
            echo "FAIL $name: $stream differs (expected < > got)"
            diff "$want" "$got.n" | head -20
            ok=0
        fi
    done
    if [ "$ok" -eq 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
    exec 9>&- # a never-ending pipe's writer
    rm -rf "$gen" && mkdir "$gen"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
