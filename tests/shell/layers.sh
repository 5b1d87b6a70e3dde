#!/bin/sh
# Checks that the shell's files call each other downwards only, in the layers of
# docs/ARCHITECTURE.md: every function a file calls (or data it names) in another
# file must be in a lower layer. The files are compiled natively and their
# symbols read with nm. A file of a big applet (jq_*.c, awk_*.c, sqlite3_*.c) may
# call the other files of the same applet (sqlite3_cli.c includes SQLite's shell.c
# from $BUILD/sqlite, or $GUEST_FROM/sqlite when set). Prints "layers: N files, calls downwards
# only", or each call that goes up or sideways, and exits 1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../guest/shell" && pwd)
CC=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The layer of a file: the plumbing and the tree at the bottom, the base of
# state and reports on them, then parse, arith, expand, exec, the applets, the
# registry, the builtins, and sh_new's shell.c on top.
layer() {
    case $1 in
        io | ast) echo 0 ;;
        state | helpers) echo 1 ;;
        parse) echo 2 ;;
        arith) echo 3 ;;
        expand) echo 4 ;;
        exec) echo 5 ;;
        applets) echo 7 ;;
        builtins) echo 8 ;;
        shell) echo 9 ;;
        *) echo 6 ;; # an applet
    esac
}

n=0
for f in "$src"/*.c; do
    b=$(basename "$f" .c)
    "$CC" -std=gnu11 -O0 -w -I"$here/../../${GUEST_FROM:-${BUILD:-build}}/sqlite" -I"$src" -c "$f" -o "$tmp/$b.o" ||
        exit 1
    nm "$tmp/$b.o" | awk -v f="$b" '$2 ~ /^[TDRB]$/ { print $3, f }' >> "$tmp/defs"
    nm -u "$tmp/$b.o" | awk -v f="$b" '{ print $2, f }' >> "$tmp/uses"
    n=$((n + 1))
done
sort -o "$tmp/defs" "$tmp/defs"
sort -o "$tmp/uses" "$tmp/uses"
# "caller callee symbol" for every symbol used in one file and defined in another
join "$tmp/uses" "$tmp/defs" | awk '$2 != $3 { print $2, $3, $1 }' > "$tmp/calls"

bad=0
while read -r from to sym; do
    case $from:$to in jq*:jq* | awk*:awk* | sqlite3*:sqlite3*) continue ;; esac
    if [ "$(layer "$from")" -le "$(layer "$to")" ]; then
        echo "layers: $from.c calls $sym of $to.c, a layer that is not below it"
        bad=1
    fi
done < "$tmp/calls"
[ "$bad" = 0 ] || exit 1
echo "layers: $n files, calls downwards only"
