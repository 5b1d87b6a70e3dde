#!/bin/sh
# Makes the Debian package from a staged install: deb.sh ROOT VERSION OUTDIR.
# ROOT is what `make install DESTDIR=ROOT PREFIX=/usr` put there (pkg/pkg.mk's
# deb target). The ELF files are stripped, the man pages compressed, the
# dependencies computed from the libraries the binaries actually link
# (dpkg-shlibdeps; else the package that owns each library ldd finds), and
# OUTDIR/capsa_VERSION_ARCH.deb built with dpkg-deb. Prints the package's path.
set -eu
if [ $# -ne 3 ]; then
    echo "usage: deb.sh ROOT VERSION OUTDIR" >&2
    exit 2
fi
root=$1 version=$2 outdir=$3
here=$(cd "$(dirname "$0")" && pwd)
# Each command with the Debian package that provides it.
for need in dpkg-deb:dpkg dpkg:dpkg strip:binutils gzip:gzip; do
    cmd=${need%%:*}
    command -v "$cmd" >/dev/null 2>&1 ||
        { echo "deb.sh: $cmd is missing: install the Debian package ${need#*:} (make deps installs it)" >&2; exit 1; }
done
arch=$(dpkg --print-architecture)
maintainer=${DEB_MAINTAINER:-capsa maintainers <maintainers@capsa.invalid>}

# The ELF files (the program and the shared libraries) and the archives.
is_elf() {
    [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]
}
elves=$(find "$root" -type f ! -name '*.a' | sort | while read -r f; do
    if is_elf "$f"; then echo "$f"; fi
done)
static=$(find "$root" -type f -name '*.a' | sort)
for f in $elves; do
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$f"
done
for f in $static; do
    strip --strip-debug "$f"
done

# Debian compresses man pages (gzip -n: no name or time stamp, the same bytes
# from every build) and wants the licence as /usr/share/doc/PACKAGE/copyright.
find "$root/usr/share/man" -type f ! -name '*.gz' -exec gzip -9n {} +
doc=$root/usr/share/doc/capsa
mkdir -p "$doc"
cat "$here/../LICENSE" "$here/../NOTICE" > "$doc/copyright"
gzip -9n "$doc/CHANGELOG.md"

# The dependencies. dpkg-shlibdeps wants a debian/control beside it: it is given
# an empty one in a scratch directory. Our own libraries are in the package.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
libdirs=$(for f in $elves; do dirname "$f"; done | sort -u | sed 's/^/-l/' | tr '\n' ' ')
depends=
if command -v dpkg-shlibdeps >/dev/null 2>&1; then
    mkdir -p "$work/debian"
    : > "$work/debian/control"
    # Our own shared libraries (libcapsa-net links libcapsa) are in this package:
    # shlibs.local names them as capsa's, and -xcapsa drops that self-dependency.
    for f in $elves; do
        soname=$(objdump -p "$f" 2>/dev/null | awk '$1 == "SONAME" { print $2 }')
        case $soname in
        *.so.*) echo "${soname%%.so.*} ${soname##*.so.} capsa" ;;
        esac
    done > "$work/debian/shlibs.local"
    abs_elves=$(for f in $elves; do echo "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"; done)
    # shellcheck disable=SC2086
    if out=$(cd "$work" && dpkg-shlibdeps -O -xcapsa $libdirs $abs_elves 2>"$work/err"); then
        depends=$(echo "$out" | sed -n 's/^shlibs:Depends=//p')
    else
        echo "deb.sh: dpkg-shlibdeps failed, using dpkg -S instead:" >&2
        cat "$work/err" >&2
    fi
fi
if [ -z "$depends" ]; then
    # The package owning each library the dynamic linker resolves, our own (found
    # in ROOT through the $ORIGIN run path) aside.
    abs_root=$(cd "$root" && pwd)
    depends=$(for f in $elves; do ldd "$f"; done | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
        sort -u | while read -r lib; do
            case $(readlink -f "$lib") in "$abs_root"/*) continue ;; esac
            dpkg -S "$(readlink -f "$lib")" 2>/dev/null || dpkg -S "$lib" 2>/dev/null || {
                echo "deb.sh: no package owns $lib" >&2; exit 1; }
        done | sed 's/:.*//' | sort -u | paste -sd, | sed 's/,/, /g')
fi
if [ -z "$depends" ]; then
    echo "deb.sh: could not compute the dependencies" >&2
    exit 1
fi
# The libraries capsa loads when first used (net/lazylibs.c, by SONAME), which no
# ELF file names: the package that has each, from the SONAMEs in that file.
for so in $(sed -n 's/.*"\(lib[a-z0-9]*\.so\.[0-9]*\)".*/\1/p' "$here/../net/lazylibs.c"); do
    path=$(ldconfig -p | awk -v n="$so" '$1 == n { print $NF; exit }')
    owner=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null || dpkg -S "$path" 2>/dev/null) || {
        echo "deb.sh: no package has $so, which capsa loads (net/lazylibs.c)" >&2; exit 1; }
    depends="$depends, ${owner%%:*}"
done

mkdir -p "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<EOF
Package: capsa
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Section: devel
Priority: optional
Description: capability-secured WebAssembly sandbox for code written by AI agents
 capsa runs JavaScript and POSIX shell command lines written by AI agents inside
 a WebAssembly sandbox (QuickJS compiled to wasm32-wasi, then to C), where they
 reach the host only through tools that a capability policy allows, within
 memory, time, output and disk limits the host enforces.
 .
 This package holds the capsa program (run, shell, mcp), the shared and static
 libcapsa, its header and pkg-config file, and the man pages capsa(1) and
 capsa(3).
EOF
# The shared library is in the dynamic linker's cache once dpkg has run ldconfig.
echo "activate-noawait ldconfig" > "$root/DEBIAN/triggers"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | sort |
    xargs md5sum > DEBIAN/md5sums)
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/triggers" "$root/DEBIAN/md5sums"

deb=$outdir/capsa_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb.tmp" >/dev/null
mv -f "$deb.tmp" "$deb"
echo "$deb"
