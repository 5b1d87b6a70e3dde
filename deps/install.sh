#!/bin/sh
# Installs the Debian packages the build and the tests need, when they are missing.
# Safe to run again: it only calls apt-get for packages dpkg does not know as installed.
set -eu

PACKAGES="make gcc clang lld wasi-libc libclang-rt-14-dev-wasm32 libclang-rt-14-dev wabt libjansson-dev
pkg-config ca-certificates openssl patch npm python3 gawk jq xxd json-schema-test-suite python3-jsonschema
libmicrohttpd-dev libcurl4-openssl-dev scdoc man-db dpkg-dev python3-venv libzstd-dev
libedit-dev dpkg binutils gzip nodejs g++ libhiredis-dev libssl-dev redis-server haproxy python3-yaml curl
sqlite3"
# g++: node-gyp compiles isolated-vm's addon with it (a peer of make bench, bench/deps.sh).
# libhiredis-dev: the redis:// session store of `capsa serve`; redis-server: the
# store's tests and `make test-scale`, which also runs haproxy in front of replicas;
# python3-yaml: tests/deploy reads the Kubernetes manifests with Debian's python3.
# libssl-dev: libcrypto's SHA-256, which names the tenants of `capsa serve`.
# curl: the client of tests/serve.
# sqlite3: the reference of the guest sqlite3 command's differential test (tests/sqlite).
# python3-jsonschema: the other validator of tests/schema's differential test, run with
# Debian's own /usr/bin/python3 (which it brings along).

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
# Node.js and npm (npm comes with some builds of Node.js) and python3 (the Python
# package's tests) may be installed another way: do not ask apt for them then. Each
# package with the command it provides.
for need in npm:npm nodejs:node python3:python3; do
    if command -v "${need#*:}" >/dev/null 2>&1; then
        missing=$(echo "$missing" | tr ' ' '\n' | grep -vx "${need%%:*}" | tr '\n' ' ' || true)
    fi
done
# The Python package's install test makes a virtual environment: python3-venv is
# only needed when the python3 found cannot make one with pip in it.
if python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    missing=$(echo "$missing" | tr ' ' '\n' | grep -vx python3-venv | tr '\n' ' ' || true)
fi
missing=$(echo "$missing" | xargs)

if [ -n "$missing" ]; then
    echo "deps: installing $missing"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
