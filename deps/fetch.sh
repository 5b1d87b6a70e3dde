#!/bin/sh
# Fetches one pinned third-party source from the npm registry: deps/NAME.lock names the
# package, its sha512 integrity (as the registry states it) and the directory inside the
# tarball that holds the sources; a lock may also name an archive inside that directory
# (archive=) with its sha256 (archive_sha256=), whose one top directory is unpacked
# instead. The sources go into OUT (default build/NAME), patched by deps/NAME/*.patch.
# Usage: sh deps/fetch.sh NAME [OUT]
set -eu

here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: fetch.sh NAME [OUT]}
out=${2:-build/$name}
lock="$here/$name.lock"
[ -r "$lock" ] || { echo "fetch: no lock file $lock" >&2; exit 1; }
field() { sed -n "s/^$1=//p" "$lock"; }
pkg=$(field package)
integrity=$(field integrity)
srcdir=$(field srcdir)
archive=$(field archive)
archive_sha256=$(field archive_sha256)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

if ! command -v npm >/dev/null 2>&1; then
    echo "fetch: npm is missing: install the Debian package npm (make deps installs it)" >&2
    exit 1
fi
(cd "$work" && npm pack --silent "$pkg" >/dev/null)
tarball=$(ls "$work"/*.tgz)

want=${integrity#sha512-}
got=$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)
if [ "$got" != "$want" ]; then
    echo "fetch: integrity mismatch for $pkg" >&2
    echo "  expected sha512-$want" >&2
    echo "  got      sha512-$got" >&2
    exit 1
fi
tar -xzf "$tarball" -C "$work" "$srcdir"
src="$work/$srcdir"

if [ -n "$archive" ]; then
    got=$(sha256sum "$src/$archive" | cut -c1-64)
    if [ "$got" != "$archive_sha256" ]; then
        echo "fetch: sha256 mismatch for $archive in $pkg" >&2
        echo "  expected $archive_sha256" >&2
        echo "  got      $got" >&2
        exit 1
    fi
    mkdir "$work/archive"
    tar -xzf "$src/$archive" -C "$work/archive"
    set -- "$work"/archive/*
    [ $# -eq 1 ] && [ -d "$1" ] || { echo "fetch: $archive has not one top directory" >&2; exit 1; }
    src=$1
fi

rm -rf "$out.tmp"
mkdir -p "$out.tmp"
cp -R "$src/." "$out.tmp/"
for p in "$here/$name"/*.patch; do
    [ -e "$p" ] || continue
    patch -s -p1 -d "$out.tmp" < "$p" || { echo "fetch: patch $p failed" >&2; exit 1; }
done
rm -rf "$out"
mv "$out.tmp" "$out"
echo "fetch: $pkg verified and unpacked into $out"
