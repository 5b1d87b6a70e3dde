#!/bin/sh
# Checks that what `make all` needs is installed, before the build starts, and names
# the Debian package that provides each missing thing (make deps installs them all:
# deps/install.sh). Exits 1 when anything is missing.
#   check.sh [TABLE]    TABLE: the requirements, one a line, as below (default: this
#                       file's own list; tests/docs/hints.sh gives others).
# A requirement is KIND WHAT PACKAGE, where KIND is
#   cmd     a command on PATH;
#   header  a header the host compiler ($CC, default cc) finds (#include <WHAT>);
#   file    a file that must exist (the wasm32 sysroot, which the Makefile names by path).
# Every PACKAGE must be in deps/install.sh's list; tests/docs/hints.sh checks that.
set -u
CC=${CC:-cc}
WASM_CC=${WASM_CC:-clang-14}
WASM2C=${WASM2C:-wasm2c}
res=$($WASM_CC -print-resource-dir 2>/dev/null)

requirements() {
    if [ $# -gt 0 ]; then
        cat "$1"
        return
    fi
    cat <<EOF
cmd $CC gcc
cmd $WASM_CC clang
cmd wasm-ld lld
cmd $WASM2C wabt
cmd npm npm
cmd patch patch
file /usr/include/wasm32-wasi/stdio.h wasi-libc
file ${res:-/usr/lib/llvm-14/lib/clang/14}/lib/wasi/libclang_rt.builtins-wasm32.a libclang-rt-14-dev-wasm32
header jansson.h libjansson-dev
header zstd.h libzstd-dev
header microhttpd.h libmicrohttpd-dev
header curl/curl.h libcurl4-openssl-dev
header histedit.h libedit-dev
header hiredis/hiredis.h libhiredis-dev
header openssl/sha.h libssl-dev
EOF
}

missing=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
requirements "$@" >"$tmp"
while read -r kind what package; do
    case $kind in
    '' | '#'*) continue ;;
    cmd) command -v "$what" >/dev/null 2>&1 && continue ;;
    file) [ -e "$what" ] && continue ;;
    header)
        # Without the compiler, its own hint is the one to give.
        command -v "${CC%% *}" >/dev/null 2>&1 || continue
        printf '#include <%s>\n' "$what" | $CC -E -x c - >/dev/null 2>&1 && continue
        ;;
    *)
        echo "deps/check.sh: unknown kind '$kind'" >&2
        exit 2
        ;;
    esac
    echo "capsa: $what is missing: install the Debian package $package (make deps installs every package the build needs)" >&2
    missing=1
done <"$tmp"
exit $missing
