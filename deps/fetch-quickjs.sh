#!/bin/sh
# Fetches the pinned QuickJS sources from the npm registry, checks their integrity hash,
# unpacks them into $1 (default build/quickjs) and applies our patches in deps/quickjs/.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-build/quickjs}
lock="$here/quickjs.lock"
pkg=$(sed -n 's/^package=//p' "$lock")
integrity=$(sed -n 's/^integrity=//p' "$lock")
srcdir=$(sed -n 's/^srcdir=//p' "$lock")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

if ! command -v npm >/dev/null 2>&1; then
    echo "fetch-quickjs: npm is missing: install the Debian package npm (make deps installs it)" >&2
    exit 1
fi
(cd "$work" && npm pack --silent "$pkg" >/dev/null)
tarball=$(ls "$work"/*.tgz)

want=${integrity#sha512-}
got=$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)
if [ "$got" != "$want" ]; then
    echo "fetch-quickjs: integrity mismatch for $pkg" >&2
    echo "  expected sha512-$want" >&2
    echo "  got      sha512-$got" >&2
    exit 1
fi

rm -rf "$out.tmp"
mkdir -p "$out.tmp"
tar -xzf "$tarball" -C "$work" "$srcdir"
cp -R "$work/$srcdir/." "$out.tmp/"
for p in "$here"/quickjs/*.patch; do
    [ -e "$p" ] || continue
    patch -s -p1 -d "$out.tmp" < "$p" || { echo "fetch-quickjs: patch $p failed" >&2; exit 1; }
done
rm -rf "$out"
mv "$out.tmp" "$out"
echo "fetch-quickjs: $pkg verified and unpacked into $out"
