#!/bin/sh
# What `make bench` uses beyond the build, installed when missing. Nothing here is
# fatal: without gnuplot there is no chart, and without the npm packages the
# quickjs-emscripten rows say "unavailable".
#   - gnuplot, from Debian's gnuplot-nox, for the chart (bench/plot.sh);
#   - the peers' npm packages, pinned by bench/package.json and
#     bench/package-lock.json (with their integrity hashes), installed by `npm ci`
#     into DIR/node_modules, again only when the lock file has changed.
#   deps.sh DIR
set -u
dir=$1
here=$(dirname "$0")

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "bench: installing gnuplot-nox for the chart"
    export DEBIAN_FRONTEND=noninteractive
    install="$SUDO apt-get install -y -qq --no-install-recommends gnuplot-nox"
    # A fresh machine may not have the package lists yet: update once, then retry.
    $install >/dev/null 2>&1 || { $SUDO apt-get update -qq >/dev/null 2>&1 && $install >/dev/null 2>&1; } ||
        echo "bench: could not install gnuplot-nox: there will be no chart" >&2
fi

if ! command -v npm >/dev/null 2>&1; then
    echo "bench: npm not found: the quickjs-emscripten rows will say unavailable" >&2
elif cmp -s "$here/package-lock.json" "$dir/package-lock.json" &&
    [ -d "$dir/node_modules/quickjs-emscripten" ]; then
    :
else
    echo "bench: installing the peers' npm packages (npm ci) into $dir/node_modules"
    mkdir -p "$dir"
    cp "$here/package.json" "$here/package-lock.json" "$dir/"
    # Few and short retries: offline, this should fail in seconds, not minutes.
    if ! (cd "$dir" && timeout 300 npm ci --no-audit --no-fund --loglevel=error \
        --fetch-retries=1 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=5000 \
        >/dev/null 2>npm-ci.log); then
        rm -rf "$dir/node_modules" "$dir/package-lock.json"
        echo "bench: npm ci failed ($(head -n 1 "$dir/npm-ci.log"); see $dir/npm-ci.log):" \
            "the quickjs-emscripten rows will say unavailable" >&2
    fi
fi
exit 0
