#!/bin/sh
# Makes the seeds of fuzz_restore.c in fuzz/corpus/restore/ from real sessions of
# build/capsa (run from the repository root after `make all`; needs the zstd
# command). A seed's first byte says what follows: 0 a whole blob, 1 the sections
# of a checkpoint's contents (the harness seals them with this build's header, so
# they stay useful when the guest changes). Run again after a change of format.
set -eu
capsa=${CAPSA:-build/capsa}
out=fuzz/corpus/restore
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# seed NAME MODE FILE: writes MODE's byte and FILE as seed NAME.
seed() {
    { printf "\\$(printf '%03o' "$2")"; cat "$3"; } >"$out/$1"
}

# sections BLOB OUT: the sections of BLOB's contents (after the two headers).
sections() {
    tail -c +97 "$1" | zstd -d -q -c | tail -c +97 >"$2"
}

mkdir -p "$tmp/host" && echo host >"$tmp/host/h.txt"
# One tool, named as the one the harness binds.
printf '{"tools": [{"name": "echo", "description": "Returns its arguments.", "command": ["cat"]}]}' \
    >"$tmp/tools.json"
# A session whose guest was stopped by a limit (no instance, so no memory: small),
# with tools, a budget, a mount, symlinks, a hard link and an empty directory.
printf '{"capabilities": [{"pattern": "echo", "max_calls": 3}]}' >"$tmp/policy.json"
"$capsa" run --session "$tmp/trap.ckpt" --tools "$tmp/tools.json" \
    --policy "$tmp/policy.json" --mount "$tmp/host:/data:rw" --fuel 2000000 \
    -e 'await echo({}); fs.mkdirSync("/workspace/d/e", {recursive: true});
        fs.writeFileSync("/workspace/d/f.txt", "text"); fs.symlinkSync("d/f.txt", "/workspace/l");
        fs.writeFileSync("/tmp/t", ""); for (;;) {}' >/dev/null 2>&1 || true
"$capsa" shell --session "$tmp/trap.ckpt" --tools "$tmp/tools.json" \
    -c 'ln /workspace/d/f.txt /workspace/hard' >/dev/null
"$capsa" run --session "$tmp/trap.ckpt" --tools "$tmp/tools.json" --fuel 2000000 \
    -e 'for (;;) {}' >/dev/null 2>&1 || true
sections "$tmp/trap.ckpt" "$tmp/trap.sec"
seed sections_no_instance 1 "$tmp/trap.sec"
seed blob_no_instance 0 "$tmp/trap.ckpt"
# A session with guest memory (an empty run's).
"$capsa" run --session "$tmp/mem.ckpt" -e 'globalThis.x = [1, 2, 3]' >/dev/null
sections "$tmp/mem.ckpt" "$tmp/mem.sec"
seed sections_memory 1 "$tmp/mem.sec"
# Blobs that are not checkpoints, or only their header.
printf 'not a checkpoint' >"$tmp/garbage"
seed blob_garbage 0 "$tmp/garbage"
head -c 96 "$tmp/mem.ckpt" >"$tmp/header"
seed blob_header_only 0 "$tmp/header"
ls -l "$out"
