#!/bin/sh
# The documentation's examples and links: every fenced code block of README.md and
# docs/*.md runs (or says why it cannot), what a block shows as its output is what it
# prints, and every relative link and anchor resolves (tests/docs/examples.py says
# how); then the build's hints for a missing dependency name a Debian package that
# deps/install.sh installs (tests/docs/hints.sh). Ends with "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-build}
export BUILD
if ! command -v python3 >/dev/null 2>&1; then
    echo "python3 is not installed"
    echo "0 passed, 1 failed"
    exit 1
fi
if [ ! -x "$BUILD/capsa" ] || [ ! -f "$BUILD/libcapsa.a" ]; then
    echo "no $BUILD/capsa or $BUILD/libcapsa.a: build them first (make BUILD=$BUILD all)"
    echo "0 passed, 1 failed"
    exit 1
fi
exec python3 "$here/examples.py"
