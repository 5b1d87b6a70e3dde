#!/bin/sh
# Puts one file or symlink in place, always by a rename:
#   install-file.sh MODE SRC DEST     a copy of SRC with permissions MODE
#   install-file.sh link TARGET DEST  a symlink to TARGET
# The new file is written beside DEST under a temporary name and renamed over
# it, so DEST is at every moment either the old file or the whole new one: a
# process that has the old library mapped (Python with libcapsa.so loaded, a
# running capsa) keeps it intact, where writing into the old file would change
# the code under it. DEST's directory is created if missing.
set -eu
if [ $# -ne 3 ]; then
    echo "usage: install-file.sh MODE SRC DEST | install-file.sh link TARGET DEST" >&2
    exit 2
fi
mode=$1 src=$2 dest=$3
dir=$(dirname "$dest")
mkdir -p "$dir"
tmp=$(mktemp "$dir/.$(basename "$dest").XXXXXX")
trap 'rm -f "$tmp"' EXIT INT TERM
if [ "$mode" = link ]; then
    rm -f "$tmp"
    ln -s "$src" "$tmp"
else
    cp "$src" "$tmp"
    chmod "$mode" "$tmp"
fi
# -T: DEST is the name to replace, even when it is a directory or a link to one.
mv -f -T "$tmp" "$dest"
trap - EXIT INT TERM
