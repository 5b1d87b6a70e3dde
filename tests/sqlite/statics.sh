#!/bin/sh
# The sqlite3 applet runs SQLite's shell.c many times in one process, so every
# file-scope variable of shell.c that a run may change must be put back before the
# next (sh_sqlite3_cli_reset in guest/shell/sqlite3_cli.c). Compiles sqlite3_cli.c
# natively, lists its writable variables with nm, and checks that each is reset
# there or listed in statics.txt with the reason it need not be: a newer shell.c
# with a new variable fails here until it is looked at.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
CC=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$root/guest/shell/sqlite3_cli.c
# SQLite's sources are the guest's: those of GUEST_FROM's build when the build shares
# another's guest (make test-sanitize).
sqlite=$root/${GUEST_FROM:-$BUILD}/sqlite
flags=$(make -s --no-print-directory -C "$root" BUILD="$BUILD" print-sqlite-native-cflags)
# shellcheck disable=SC2086 # the flags are words
if ! "$CC" -std=gnu11 -O0 -w -DNDEBUG $flags -I"$sqlite" -c "$src" -o "$tmp/cli.o"; then
    echo "statics: cannot compile $src"
    echo "0 passed, 1 failed"
    exit 1
fi
nm "$tmp/cli.o" | awk '$2 ~ /^[bdBD]$/ { print $3 }' | sed 's/\.[0-9]*$//' | sort -u >"$tmp/vars"
# The names the reset function mentions (home_dir through find_home_dir), and the
# names statics.txt lists (the words before two spaces).
sed -n '/^void sh_sqlite3_cli_reset(void)/,/^}/p' "$src" | grep -oE '[A-Za-z_][A-Za-z_0-9]*' >"$tmp/known"
if grep -qx find_home_dir "$tmp/known"; then echo home_dir >>"$tmp/known"; fi
grep -v '^#' "$here/statics.txt" | sed 's/  .*//' | tr ' ' '\n' >>"$tmp/known"
sort -u "$tmp/known" -o "$tmp/known"
missing=$(comm -23 "$tmp/vars" "$tmp/known")
n=$(wc -l <"$tmp/vars")
if [ -n "$missing" ]; then
    for v in $missing; do
        echo "statics: shell.c's $v is neither reset by sh_sqlite3_cli_reset nor listed in statics.txt"
    done
    echo "0 passed, 1 failed"
    exit 1
fi
echo "statics: $n writable variables of shell.c, each reset or listed"
