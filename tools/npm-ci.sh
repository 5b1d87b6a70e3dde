#!/bin/sh
# Installs the npm packages pinned by SRC/package.json and SRC/package-lock.json
# (with their integrity hashes) into DEST/node_modules with `npm ci`, unless DEST
# already holds that lock file and MODULE is installed. Few and short retries:
# offline, it fails in seconds. On failure it says why on stderr (npm's log is
# DEST/npm-ci.log), leaves no half install and exits 1.
#   npm-ci.sh SRC DEST MODULE LABEL       (LABEL prefixes the messages)
set -u
src=$1 dest=$2 module=$3 label=$4
if cmp -s "$src/package-lock.json" "$dest/package-lock.json" && [ -d "$dest/node_modules/$module" ]; then
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "$label: npm is missing: install the Debian package npm (make deps installs it)" >&2
    exit 1
fi
echo "$label: installing the pinned npm packages (npm ci) into $dest/node_modules" >&2
mkdir -p "$dest"
cp "$src/package.json" "$src/package-lock.json" "$dest/"
if ! (cd "$dest" && timeout 300 npm ci --no-audit --no-fund --loglevel=error \
    --fetch-retries=1 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=5000 \
    >/dev/null 2>npm-ci.log); then
    rm -rf "$dest/node_modules" "$dest/package-lock.json"
    echo "$label: npm ci failed ($(head -n 1 "$dest/npm-ci.log"); see $dest/npm-ci.log)" >&2
    exit 1
fi
