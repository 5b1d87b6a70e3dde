#!/bin/sh
# The build's hints for a missing dependency name the right Debian package:
#   - every message of the build's scripts that says something "is missing" (Makefile,
#     tests/tests.mk, deps/, pkg/, tools/, bench/) names "the Debian package NAME", and
#     NAME is one deps/install.sh installs (or, for the benchmark's chart, the one
#     bench/deps.sh installs);
#   - deps/check.sh's requirements name such packages, and each package is the one that
#     provides the thing on this machine (dpkg -S), or depends on it (clang: clang-14);
#   - deps/check.sh passes here, and on a table of missing things fails with one hint
#     each, naming its package.
# Prints "ok ..." or "FAIL ..." lines and ends with "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The packages deps/install.sh installs, and bench/deps.sh's.
sed -n '/^PACKAGES="/,/"$/p' "$root/deps/install.sh" | sed 's/^PACKAGES="//; s/"$//' | tr ' ' '\n' |
    grep . >"$tmp/packages"
sed -n 's/.*--no-install-recommends \([a-z0-9.+-]*\).*/\1/p' "$root/bench/deps.sh" >>"$tmp/packages"
if [ "$(wc -l <"$tmp/packages")" -lt 10 ]; then
    bad "deps/install.sh's package list read ($(wc -l <"$tmp/packages") packages)"
fi
known() { grep -qx "$1" "$tmp/packages"; }

# 1. The messages.
files=$(cd "$root" && ls Makefile tests/tests.mk deps/*.sh pkg/*.sh pkg/*.mk tools/*.sh bench/*.sh 2>/dev/null)
n=0
for f in $files; do
    grep -n 'echo .*is missing' "$root/$f" >"$tmp/hits" || continue
    while IFS= read -r hit; do
        n=$((n + 1))
        package=$(echo "$hit" | sed -n 's/.*the Debian package \([^ ;)]*\).*/\1/p')
        case $f:$package in
        deps/check.sh:'$package' | pkg/deb.sh:'${need#*:}')
            ok "$f:${hit%%:*}: the hint names the package its table gives (checked below)" ;;
        *'$'* | *:) bad "$f:${hit%%:*}: the hint names no Debian package: ${hit#*:}" ;;
        *) if known "$package"; then ok "$f:${hit%%:*}: the hint names $package"; else
            bad "$f:${hit%%:*}: the hint names $package, which deps/install.sh does not install"; fi ;;
        esac
    done <"$tmp/hits"
done
# pkg/deb.sh's names come from its list of command:package pairs.
for need in $(sed -n 's/^for need in \(.*\); do$/\1/p' "$root/pkg/deb.sh"); do
    if known "${need#*:}"; then ok "pkg/deb.sh: ${need%%:*} names ${need#*:}"; else
        bad "pkg/deb.sh: ${need%%:*} names ${need#*:}, which deps/install.sh does not install"; fi
done
[ "$n" -ge 6 ] || bad "only $n hints found in the build's scripts"

# 2. deps/check.sh's requirements, as it lists them here.
cc=${CC:-cc}
res=$(clang-14 -print-resource-dir 2>/dev/null)
sed -n '/cat <<EOF$/,/^EOF$/p' "$root/deps/check.sh" | grep -E '^(cmd|file|header) ' |
    sed "s|\$CC|$cc|; s|\$WASM_CC|clang-14|; s|\$WASM2C|wasm2c|; s|\${res:-[^}]*}|$res|" >"$tmp/table"
[ "$(wc -l <"$tmp/table")" -ge 10 ] || bad "deps/check.sh's requirements read ($(wc -l <"$tmp/table"))"
while read -r kind what package; do
    if ! known "$package"; then
        bad "deps/check.sh: $what names $package, which deps/install.sh does not install"
        continue
    fi
    case $kind in
    cmd) path=$(command -v "$what") ;;
    file) path=$what ;;
    header) path=$(printf '#include <%s>\n' "$what" | $cc -E -x c - 2>/dev/null |
        sed -n "s|^# [0-9]* \"\(/[^\"]*/$what\)\".*|\1|p" | head -n 1) ;;
    esac
    path=$(readlink -f "$path" 2>/dev/null || echo "$path")
    owner=$(dpkg -S "$path" 2>/dev/null | head -n 1 | sed 's/:.*//; s/, .*//')
    if [ -z "$owner" ]; then
        # Installed some other way (npm from Node.js's own build, a compiler in
        # /usr/local): nothing to compare the name with.
        ok "deps/check.sh: $what names $package ($path is no package's)"
    elif [ "$owner" = "$package" ] ||
        dpkg-query -W -f='${Depends} ${Pre-Depends}\n' "$package" 2>/dev/null | tr ',|' '\n\n' |
        sed 's/^ *//; s/[ :].*//' | grep -qx "$owner"; then
        ok "deps/check.sh: $what names $package (dpkg: $owner)"
    elif ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        # Provided here by another package (npm inside NodeSource's nodejs), as
        # deps/install.sh allows: the named one is not installed to compare with.
        ok "deps/check.sh: $what names $package (here $owner's, $package not installed)"
    else
        bad "deps/check.sh: $what names $package, but $path is $owner's"
    fi
done <"$tmp/table"

# 3. deps/check.sh at work.
if sh "$root/deps/check.sh" >"$tmp/out" 2>&1; then
    ok "deps/check.sh passes on this machine"
else
    bad "deps/check.sh fails on this machine: $(cat "$tmp/out")"
fi
cat >"$tmp/missing" <<'EOF'
cmd capsa-no-such-command pkg-one
file /nonexistent/capsa/sysroot.h pkg-two
header capsa/no-such-header.h pkg-three
EOF
sh "$root/deps/check.sh" "$tmp/missing" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/out")" -eq 3 ] &&
    grep -q '^capsa: capsa-no-such-command is missing: install the Debian package pkg-one ' "$tmp/out" &&
    grep -q '^capsa: /nonexistent/capsa/sysroot.h is missing: install the Debian package pkg-two ' "$tmp/out" &&
    grep -q '^capsa: capsa/no-such-header.h is missing: install the Debian package pkg-three ' "$tmp/out"; then
    ok "deps/check.sh names the package of each missing command, file and header"
else
    bad "deps/check.sh on missing things: status $rc, $(cat "$tmp/out")"
fi
if CC=capsa-no-such-cc sh "$root/deps/check.sh" >"$tmp/out" 2>&1 ||
    [ "$(grep -c 'is missing' "$tmp/out")" -ne 1 ] ||
    ! grep -q '^capsa: capsa-no-such-cc is missing: install the Debian package gcc ' "$tmp/out"; then
    bad "deps/check.sh without a compiler: not the compiler's hint alone: $(cat "$tmp/out")"
else
    ok "deps/check.sh without a compiler gives the compiler's hint alone, not the headers'"
fi
printf 'cmd sh dash\nheader stdio.h libc6-dev\n' >"$tmp/present"
if sh "$root/deps/check.sh" "$tmp/present" >"$tmp/out" 2>&1 && [ ! -s "$tmp/out" ]; then
    ok "deps/check.sh is silent when nothing is missing"
else
    bad "deps/check.sh on present things: $(cat "$tmp/out")"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
