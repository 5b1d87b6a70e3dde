#!/bin/sh
# Prints a C header that embeds a file as a NUL-terminated byte array:
#   embed.sh NAME FILE  ->  static const unsigned char NAME[] = { ..., 0 };
set -eu
name=$1
file=$2
echo "/* Generated from $file by tools/embed.sh; do not edit. */"
echo "static const unsigned char ${name}[] = {"
od -An -v -tx1 "$file" | sed -e 's/ *$//' -e 's/^ *//' -e 's/ \{1,\}/, 0x/g' -e 's/^/0x/' -e 's/$/,/' | grep -v '^0x,$' || true
echo "0x00 };"
