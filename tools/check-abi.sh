#!/bin/sh
# Checks that guest/abi.h names the whole guest/host boundary: every import of
# guest.wasm ("capsa" and "wasi_snapshot_preview1") and every export is listed
# there, and nothing listed is missing from the module.
# Usage: check-abi.sh GUEST_WASM ABI_H
set -eu
wasm=$1
abi=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# What the module has, as "import capsa.result" and "export capsa_run" lines.
wasm-objdump -x -j Import "$wasm" | sed -n 's/.* <- \([A-Za-z0-9_]*\.[A-Za-z0-9_]*\)$/import \1/p' \
    > "$tmp/module"
wasm-objdump -x -j Export "$wasm" | sed -n 's/.* -> "\([^"]*\)"$/export \1/p' >> "$tmp/module"
sort -u "$tmp/module" -o "$tmp/module"

# What the header lists: the CAPSA_IMPORT declarations, the functions of the WASI
# block, and the functions (and memory) of the exports block.
{
    sed -n 's/^CAPSA_IMPORT("\([a-z_]*\)").*/import capsa.\1/p' "$abi"
    sed -n '/--- the WASI imports/,/\*\//p' "$abi" |
        grep -oE '\b(args|environ|clock|random|poll|proc|sched|sock|fd|path)_[a-z_]+' |
        sed 's/^/import wasi_snapshot_preview1./'
    sed -n '/--- exports:/,/\*\//p' "$abi" | grep -E '^ \*   [a-z_]' |
        grep -oE '\b(capsa_[a-z]+|_initialize|memory)\b' | sed 's/^/export /'
} | sort -u > "$tmp/header"

if ! cmp -s "$tmp/module" "$tmp/header"; then
    echo "check-abi: $abi does not list what $wasm imports and exports:" >&2
    comm -23 "$tmp/module" "$tmp/header" | sed 's/^/  missing from the header: /' >&2
    comm -13 "$tmp/module" "$tmp/header" | sed 's/^/  listed but not in the module: /' >&2
    exit 1
fi
