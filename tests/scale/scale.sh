#!/bin/sh
# `make test-scale`: the cluster test of capsa serve on loopback (scale.py says
# what it checks): redis-server and haproxy from Debian, installed by
# deps/install.sh when they are missing, 3 replicas of $BUILD/capsa behind
# haproxy. Prints "N passed, N failed" and the runs/s with 1 and 3 replicas.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
for cmd in redis-server haproxy; do
    if ! command -v "$cmd" >/dev/null 2>&1; then
        sh "$here/../../deps/install.sh"
        break
    fi
done
exec python3 "$here/scale.py"
