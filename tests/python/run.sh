#!/bin/sh
# The Python package's suite (unittest, tests/python/test_*.py) against the library of
# $BUILD (default build): CAPSA_LIBRARY=$BUILD/libcapsa.so, the package from python/.
# Prints each test, then "N passed, N failed" last, like every suite of tests/run.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in
    /*) build=$BUILD ;;
    *) if [ -d "$BUILD" ]; then build=$(cd "$BUILD" && pwd); else build=$root/$BUILD; fi ;;
esac
if ! command -v python3 >/dev/null 2>&1; then
    echo "python3 is not installed"
    echo "0 passed, 1 failed"
    exit 1
fi
if [ ! -f "$build/libcapsa.so" ]; then
    echo "no $build/libcapsa.so: build it first (make BUILD=$BUILD all)"
    echo "0 passed, 1 failed"
    exit 1
fi
# A library built with sanitizers (make test-sanitize) needs their runtimes loaded
# first; leaks are not checked, since most of this process's memory is Python's.
san=$(ldd "$build/libcapsa.so" 2>/dev/null | awk '/lib(asan|ubsan)/ { print $3 }' | tr '\n' ' ')
if [ -n "$san" ]; then
    LD_PRELOAD="$san${LD_PRELOAD:-}"
    # The runtime handles SIGSEGV itself (guard pages), as tests/tests.mk's SAN_ENV says.
    ASAN_OPTIONS="handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1:use_sigaltstack=0${ASAN_OPTIONS:+:}${ASAN_OPTIONS:-}:detect_leaks=0"
    CAPSA_SANITIZED=1
    export LD_PRELOAD ASAN_OPTIONS CAPSA_SANITIZED
fi
CAPSA_LIBRARY=$build/libcapsa.so
PYTHONPATH=$root/python${PYTHONPATH:+:$PYTHONPATH}
export CAPSA_LIBRARY PYTHONPATH
exec python3 -X faulthandler "$here/runner.py" "$@"
