#!/bin/sh
# What `make bench` uses beyond the build, installed when missing. Nothing here is
# fatal: without gnuplot there is no chart, and without the npm packages the
# quickjs-emscripten and isolated-vm rows say "unavailable".
#   - gnuplot, from Debian's gnuplot-nox, for the chart (bench/plot.sh);
#   - the peers' npm packages, pinned by bench/package.json and
#     bench/package-lock.json (with their integrity hashes), installed by `npm ci`
#     into DIR/node_modules (tools/npm-ci.sh), again only when the lock file has
#     changed. isolated-vm is an optional dependency: npm ci compiles its native
#     addon with node-gyp (python3, g++, make) against the headers of Debian's
#     nodejs (/usr/include/node), as nothing can be downloaded here (neither its
#     prebuilt binary nor node's headers); if that build fails, npm leaves it out
#     and only its rows say "unavailable".
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

# isolated-vm's addon: built from source (no download of a prebuilt binary is tried)
# against Debian's node headers when they are there.
export npm_config_build_from_source=true
[ -f /usr/include/node/common.gypi ] && export npm_config_nodedir=/usr
if ! command -v npm >/dev/null 2>&1; then
    echo "bench: npm is missing (the Debian package npm; make deps installs it): the quickjs-emscripten and isolated-vm rows will say unavailable" >&2
elif ! sh "$here/../tools/npm-ci.sh" "$here" "$dir" quickjs-emscripten bench; then
    echo "bench: the quickjs-emscripten and isolated-vm rows will say unavailable" >&2
elif [ ! -f "$dir/node_modules/isolated-vm/out/isolated_vm.node" ]; then
    echo "bench: isolated-vm's native addon did not build (see $dir/npm-ci.log): its rows will say unavailable" >&2
fi
exit 0
