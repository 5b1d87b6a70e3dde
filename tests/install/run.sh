#!/bin/sh
# Installing capsa as a C library, from the build in $BUILD (default build):
#   version   one version everywhere: capsa --version, capsa_version(), Python's
#             capsa.__version__, the header (pkg/version.sh)
#   exports   the shared library exports exactly the functions include/capsa.h
#             declares (nm -D), under the SONAME libcapsa.so.MAJOR
#   install   make install into a temporary prefix (and with DESTDIR): the files
#             expected and no other, a C program built with pkg-config against it
#             (shared and static) runs, each man page renders with man -l and
#             names every option and function, the bash completion completes,
#             Python finds the installed library, a reinstall renames files in
#             place of rewriting them, make uninstall leaves nothing behind
#   python    pip install ./python into a virtual environment works
#   deb       make deb: the package's fields and files, its dependencies cover
#             every library its ELF files need, extracted into a temporary root
#             capsa runs and a program builds against it
# Prints each check and "N passed, N failed" last. Never builds: `make all`
# first (make test does); a stale build fails the first checks.
#   sh tests/install/run.sh [version|exports|install|python|deb ...]
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case $BUILD in /*) build=$BUILD ;; *) build=$root/$BUILD ;; esac
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() {
    pass=$((pass + 1))
    echo "ok: $1"
}
bad() {
    fail=$((fail + 1))
    echo "FAIL: $1"
    [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/    /'
    return 0
}
# check DESCRIPTION EXPECTED ACTUAL
check() {
    if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "expected: $2
got:      $3"; fi
}
# contains DESCRIPTION NEEDLE HAYSTACK
contains() {
    case $3 in
    *"$2"*) ok "$1" ;;
    *) bad "$1" "no '$2' in: $(printf '%s' "$3" | head -c 2000)" ;;
    esac
}

version=$(sh "$root/pkg/version.sh" "$root/include/capsa.h")
major=${version%%.*}
# make with the build's directory; -o all: install from the build as it is,
# never rebuild it (with other flags, as a sanitizer build's suites would).
mk() {
    make --no-print-directory -C "$root" -o all BUILD="$build" "$@"
}

# A library built with sanitizers (make test-sanitize): programs linked against
# it are built with them too, and Python gets their runtimes preloaded.
san_libs=$(ldd "$build/libcapsa.so" 2>/dev/null | awk '/lib(asan|ubsan)/ { print $3 }' | tr '\n' ' ')
san_cflags=
py_preload=
if [ -n "$san_libs" ]; then
    san_cflags="-fsanitize=address,undefined"
    py_preload=$san_libs
fi
# python3 with the sanitizer runtimes first when needed; leaks are Python's own.
py() {
    if [ -n "$py_preload" ]; then
        LD_PRELOAD="$py_preload" ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0" "$@"
    else
        "$@"
    fi
}

# The functions include/capsa.h declares (CAPSA_API ...(), comments removed by
# the preprocessor, nothing expanded), one a line, sorted.
header_functions() {
    gcc -fpreprocessed -dD -E -P "$1" 2>/dev/null | awk '
        /^[ \t]*#/ { next }
        { text = text " " $0 }
        END {
            n = split(text, decl, "CAPSA_API")
            for (i = 2; i <= n; i++) {
                s = decl[i]
                sub(/\(.*/, "", s)
                m = split(s, w, /[^A-Za-z0-9_]+/)
                while (m > 0 && w[m] == "") m--
                if (m > 0) print w[m]
            }
        }' | sort -u
}
# The symbols a shared library defines and exports, sorted.
exports() {
    nm -D --defined-only "$1" | awk '{ print $NF }' | sort -u
}
soname() {
    readelf -d "$1" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'
}

# The example program of capsa(3), which prints 42: the man page's own code, so
# that the page cannot show code that does not build.
sed -n '/^# EXAMPLE/,/^# /p' "$root/docs/man/capsa.3.scd" |
    awk '/^```/ { inside = !inside; next } inside' | sed 's/\\\\/\\/g' > "$tmp/example.c"
cat > "$tmp/version.c" <<'EOF'
#include <stdio.h>
#include <capsa.h>
int main(void)
{
    printf("%s %s %d\n", capsa_version(), CAPSA_VERSION_STRING,
           capsa_version_number() == CAPSA_VERSION_NUMBER);
    return 0;
}
EOF

# ---- version ----------------------------------------------------------------------
t_version() {
    check "capsa --version prints the header's version" "capsa $version" \
        "$("$build/capsa" --version 2>&1)"
    check "Python's capsa.__version__ is the header's" "$version" \
        "$(cd "$tmp" && PYTHONPATH="$root/python" python3 -c 'import capsa; print(capsa.__version__)' 2>&1)"
    check "Python's capsa.version() (the library's) is the header's" "$version" \
        "$(cd "$tmp" && py env CAPSA_LIBRARY="$build/libcapsa.so" PYTHONPATH="$root/python" \
            python3 -c 'import capsa; print(capsa.version())' 2>&1)"
    check "CAPSA_VERSION_STRING spells the three numbers" "$version" \
        "$(printf '#include "capsa.h"\nCAPSA_VERSION_STRING\n' | gcc -E -P -I"$root/include" - | tail -n 1 | tr -d '" ')"
    contains "CHANGELOG.md has the version" "## $version" "$(cat "$root/CHANGELOG.md")"
}

# ---- exports ----------------------------------------------------------------------
t_exports() {
    for h in "$root"/include/*.h; do header_functions "$h"; done | sort -u > "$tmp/declared"
    exports "$build/libcapsa.so" > "$tmp/exported"
    others=
    # The net library, when built as a shared library, may define functions of
    # the header too: together the two export the header, and nothing else.
    if [ -f "$build/libcapsa-net.so" ]; then
        exports "$build/libcapsa-net.so" > "$tmp/exported-net"
        check "libcapsa-net.so: SONAME libcapsa-net.so.$major" "libcapsa-net.so.$major" \
            "$(soname "$build/libcapsa-net.so")"
        check "libcapsa.so and libcapsa-net.so export no function twice" "" \
            "$(sort "$tmp/exported" "$tmp/exported-net" | uniq -d | tr '\n' ' ')"
        others=$tmp/exported-net
    fi
    count=$(wc -l < "$tmp/declared")
    if [ "$count" -ge 50 ]; then
        ok "include/capsa.h declares $count functions"
    else
        bad "the header's functions were not read" "$(cat "$tmp/declared")"
    fi
    # shellcheck disable=SC2086
    if diff=$(sort -u "$tmp/exported" $others | diff "$tmp/declared" -); then
        ok "nm -D: the shared libraries export exactly the header's functions"
    else
        bad "nm -D: exports and the header's functions differ (< declared only, > exported only)" "$diff"
    fi
    check "libcapsa.so: SONAME libcapsa.so.$major" "libcapsa.so.$major" "$(soname "$build/libcapsa.so")"
    # The static library's objects still hold the internal symbols (the unit tests
    # use them); what a program links from it is the same API.
    if nm "$build/libcapsa.a" 2>/dev/null | grep -q ' T capsa_run$'; then
        ok "libcapsa.a defines capsa_run"
    else
        bad "libcapsa.a defines capsa_run"
    fi
}

# ---- install ----------------------------------------------------------------------
# The files make install puts under $1 (PREFIX's layout), sorted.
expected_files() {
    p=$1
    {
        echo "$p/bin/capsa"
        for lib in libcapsa $( [ -f "$build/libcapsa-net.so" ] && echo libcapsa-net); do
            echo "$p/lib/$lib.so.$version"
            echo "$p/lib/$lib.so.$major"
            echo "$p/lib/$lib.so"
            echo "$p/lib/$lib.a"
        done
        echo "$p/include/capsa.h"
        echo "$p/lib/pkgconfig/capsa.pc"
        echo "$p/share/man/man1/capsa.1"
        echo "$p/share/man/man3/capsa.3"
        echo "$p/share/bash-completion/completions/capsa"
        echo "$p/share/doc/capsa/LICENSE"
        echo "$p/share/doc/capsa/NOTICE"
        echo "$p/share/doc/capsa/CHANGELOG.md"
    } | sort
}
# Files and symlinks under $1, sorted.
files_under() {
    find "$1" ! -type d | sort
}

# Renders a man page; stdout the text, warnings (groff's, man's) in $tmp/man.err.
render() {
    MANWIDTH=80 MANPAGER=cat man --warnings -l "$1" 2>"$tmp/man.err"
}

# Checks the man pages at $1/man1/capsa.1 and $1/man3/capsa.3 ($2: suffix, e.g. .gz).
t_man_pages() {
    dir=$1 sfx=${2:-}
    for page in man1/capsa.1 man3/capsa.3; do
        text=$(render "$dir/$page$sfx")
        if [ -s "$tmp/man.err" ]; then
            bad "man -l $page$sfx renders without warnings" "$(cat "$tmp/man.err")"
        else
            contains "man -l $page$sfx renders (NAME, SYNOPSIS)" "SYNOPSIS" "$text"
        fi
    done
    # capsa(1) names every command and every option the program's help lists.
    text1=$(render "$dir/man1/capsa.1$sfx")
    commands=$("$build/capsa" --help | sed -n 's/^\(usage:\)\{0,1\} *capsa \([a-z][a-z]*\).*/\2/p' | sort -u)
    missing=
    for c in $commands; do
        case $text1 in *"capsa $c"*) ;; *) missing="$missing $c" ;; esac
        for o in $(bash -c '. "$1"; _capsa_options "$2" "$3"' _ "$root/pkg/capsa.bash" "$build/capsa" "$c" |
            awk '{ print $1 }'); do
            case $text1 in *"$o"*) ;; *) missing="$missing $c:$o" ;; esac
        done
    done
    if [ -z "$missing" ] && [ -n "$commands" ]; then
        ok "capsa(1) names every command ($(echo $commands)) and every option of their --help"
    else
        bad "capsa(1) lacks commands or options of capsa --help" "${missing:-no commands found}"
    fi
    # capsa(3) names every function of the header.
    text3=$(render "$dir/man3/capsa.3$sfx")
    missing=
    for f in $(header_functions "$root/include/capsa.h"); do
        case $text3 in *"$f("*) ;; *) missing="$missing $f" ;; esac
    done
    if [ -z "$missing" ]; then ok "capsa(3) shows the prototype of every function of capsa.h"; else
        bad "capsa(3) lacks functions of capsa.h" "$missing"; fi
}

# Builds the example against pkg-config's capsa ($1: PKG_CONFIG_* settings as
# env assignments) and runs it with $2 as LD_LIBRARY_PATH; $3 names the case.
t_program() {
    pc_env=$1 libpath=$2 what=$3
    cflags=$(env $pc_env pkg-config --cflags capsa 2>&1) &&
        libs=$(env $pc_env pkg-config --libs capsa 2>&1) || {
        bad "$what: pkg-config --cflags --libs capsa" "$cflags $libs"
        return
    }
    # shellcheck disable=SC2086
    if out=$(cc $san_cflags "$tmp/example.c" $cflags $libs -o "$tmp/prog" 2>&1); then
        ok "$what: cc prog.c \$(pkg-config --cflags --libs capsa) builds"
    else
        bad "$what: the example of capsa(3) builds with pkg-config's flags" "$out"
        return
    fi
    contains "$what: the program needs libcapsa.so.$major" "libcapsa.so.$major" \
        "$(readelf -d "$tmp/prog" | grep NEEDED)"
    check "$what: the program runs against the installed shared library" "42" \
        "$(LD_LIBRARY_PATH=$libpath "$tmp/prog" 2>&1)"
    contains "$what: the dynamic linker takes libcapsa from the installed directory" \
        "$libpath/libcapsa.so.$major" "$(LD_LIBRARY_PATH=$libpath ldd "$tmp/prog")"
    # shellcheck disable=SC2086
    cc $san_cflags "$tmp/version.c" $cflags $libs -o "$tmp/version" 2>"$tmp/cc.err"
    check "$what: header and library versions agree" "$version $version 1" \
        "$(LD_LIBRARY_PATH=$libpath "$tmp/version" 2>&1)"
}

t_install() {
    prefix=$tmp/prefix
    mkdir -p "$prefix/lib" "$prefix/share/man/man1"
    # Files of others in the same prefix, which uninstall must leave.
    echo other > "$prefix/lib/libother.so.1"
    echo other > "$prefix/share/man/man1/other.1"
    if out=$(mk install PREFIX="$prefix" LDCONFIG=: 2>&1); then
        ok "make install PREFIX=$prefix"
    else
        bad "make install PREFIX=..." "$out"
        return
    fi
    { expected_files "$prefix"; echo "$prefix/lib/libother.so.1"; echo "$prefix/share/man/man1/other.1"; } |
        sort > "$tmp/expected"
    if diff=$(files_under "$prefix" | diff "$tmp/expected" -); then
        ok "make install put the expected files, and only them"
    else
        bad "make install's files (< expected only, > installed only)" "$diff"
    fi
    check "libcapsa.so -> libcapsa.so.$major" "libcapsa.so.$major" "$(readlink "$prefix/lib/libcapsa.so")"
    check "libcapsa.so.$major -> libcapsa.so.$version" "libcapsa.so.$version" \
        "$(readlink "$prefix/lib/libcapsa.so.$major")"
    check "the installed library's SONAME" "libcapsa.so.$major" "$(soname "$prefix/lib/libcapsa.so.$version")"
    check "the installed header is include/capsa.h" "" "$(cmp "$root/include/capsa.h" "$prefix/include/capsa.h" 2>&1)"
    pcenv="PKG_CONFIG_PATH=$prefix/lib/pkgconfig PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig"
    # shellcheck disable=SC2086
    check "pkg-config --modversion capsa" "$version" "$(env $pcenv pkg-config --modversion capsa 2>&1)"
    t_program "$pcenv" "$prefix/lib" "prefix"

    # Static: libcapsa.a and what pkg-config --static names besides it.
    # shellcheck disable=SC2086
    static_libs=$(env $pcenv pkg-config --static --libs-only-l capsa | sed 's/-lcapsa\( \|$\)//')
    # shellcheck disable=SC2086,SC2046
    if out=$(cc $san_cflags "$tmp/example.c" $(env $pcenv pkg-config --cflags capsa) \
            "$prefix/lib/libcapsa.a" $static_libs -o "$tmp/prog-static" 2>&1); then
        check "a program linked with libcapsa.a runs without libcapsa.so" "42" "$("$tmp/prog-static" 2>&1)"
        check "the static program needs no libcapsa.so" "" "$(readelf -d "$tmp/prog-static" | grep 'NEEDED.*libcapsa')"
    else
        bad "the example links with libcapsa.a and pkg-config --static" "$out"
    fi

    check "the installed capsa runs" "42" "$("$prefix/bin/capsa" run -e 'return 6 * 7' 2>&1)"
    check "the installed capsa --version" "capsa $version" "$("$prefix/bin/capsa" --version 2>&1)"
    t_man_pages "$prefix/share/man"
    check "MANPATH finds capsa(1) under the prefix" "$prefix/share/man/man1/capsa.1" \
        "$(MANPATH="$prefix/share/man" man -w 1 capsa 2>&1)"

    # The bash completion, as bash-completion would load it.
    comp=$(PATH="$prefix/bin:$PATH" bash -c '
        . "$1"
        t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _capsa
              echo "${COMPREPLY[*]}"; }
        complete -p capsa
        t capsa r; t capsa run --me; t capsa mcp --ht; t capsa run --memory ""' _ \
        "$prefix/share/bash-completion/completions/capsa" 2>&1)
    check "the bash completion completes commands and options" "complete -F _capsa capsa
run
--memory
--http
" "$comp
"

    # Python finds the installed library (a copy of the package that is in no
    # checkout and carries no library of its own).
    mkdir -p "$tmp/pyonly"
    cp -R "$root/python/capsa" "$tmp/pyonly/"
    rm -f "$tmp/pyonly/capsa/"*.so
    rm -rf "$tmp/pyonly/capsa/__pycache__"
    # shellcheck disable=SC2016
    got=$(cd "$tmp" && py env -u CAPSA_LIBRARY PYTHONPATH="$tmp/pyonly" LD_LIBRARY_PATH="$prefix/lib" python3 -c '
import capsa
print(capsa.Sandbox().run("return 6 * 7").value)
print(any("libcapsa.so" in line and line.split()[-1].startswith(__import__("sys").argv[1])
          for line in open("/proc/self/maps")))' "$prefix/lib/" 2>&1)
    check "Python loads the installed libcapsa.so.$major (LD_LIBRARY_PATH=PREFIX/lib)" "42
True" "$got"
    if ldconfig -p 2>/dev/null | grep -q "libcapsa.so.$major "; then
        ok "(the system has a libcapsa.so.$major: the not-found message is not tried)"
    else
        got=$(cd "$tmp" && env -u CAPSA_LIBRARY PYTHONPATH="$tmp/pyonly" python3 -c '
import capsa
try:
    capsa.Sandbox()
except capsa.LibraryNotFoundError as e:
    print(e)' 2>&1)
        contains "Python without any library: the message says what was tried" \
            "libcapsa.so.$major (installed)" "$got"
        contains "Python without any library: the message says how to get one" "make install" "$got"
    fi

    # Reinstalling replaces each file by a rename: a process that has the old
    # library mapped keeps running, and the library is a new inode.
    ino_before=$(stat -c %i "$prefix/lib/libcapsa.so.$version")
    mkfifo "$tmp/go"
    (cd "$tmp" && py env -u CAPSA_LIBRARY LD_LIBRARY_PATH="$prefix/lib" PYTHONPATH="$tmp/pyonly" python3 -c '
import sys, capsa
sb = capsa.Sandbox()
print(sb.run("globalThis.n = 6; return n").value, flush=True)
open(sys.argv[1]).read()
print(sb.run("return n * 7").value, flush=True)' "$tmp/go" > "$tmp/live.out" 2>&1) &
    live=$!
    i=0
    while [ ! -s "$tmp/live.out" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
    out=$(mk install PREFIX="$prefix" LDCONFIG=: 2>&1) || bad "make install again" "$out"
    # A child that died before opening the FIFO would leave this open waiting.
    timeout 30 sh -c 'echo go > "$1"' sh "$tmp/go" || kill "$live" 2>/dev/null
    wait $live
    check "a process using the library runs on while make install replaces it" "6
42" "$(cat "$tmp/live.out")"
    ino_after=$(stat -c %i "$prefix/lib/libcapsa.so.$version")
    if [ "$ino_before" != "$ino_after" ]; then
        ok "make install put a new file in place (inode $ino_before -> $ino_after), not written into the old"
    else
        bad "make install wrote into the installed library in place (same inode $ino_before)"
    fi
    cp "$build/libcapsa.so" "$tmp/put-src"
    sh "$root/pkg/install-file.sh" 755 "$tmp/put-src" "$tmp/put-dest"
    ino_before=$(stat -c %i "$tmp/put-dest")
    exec 9<"$tmp/put-dest"
    sh "$root/pkg/install-file.sh" 755 "$root/include/capsa.h" "$tmp/put-dest"
    if cmp -s /dev/fd/9 "$tmp/put-src" && cmp -s "$tmp/put-dest" "$root/include/capsa.h" &&
        [ "$(stat -c %i "$tmp/put-dest")" != "$ino_before" ] && [ "$(stat -c %a "$tmp/put-dest")" = 755 ]; then
        ok "install-file.sh (make python, make install): an open copy keeps the old bytes, the name gets the new"
    else
        bad "install-file.sh replaced the file in place, or not at all"
    fi
    exec 9<&-
    check "install-file.sh leaves no temporary file" "put-dest put-src" "$(cd "$tmp" && ls -A put-* | tr '\n' ' ' | sed 's/ $//')"

    if out=$(mk uninstall PREFIX="$prefix" LDCONFIG=: 2>&1); then
        ok "make uninstall PREFIX=$prefix"
    else
        bad "make uninstall" "$out"
    fi
    check "make uninstall left nothing of capsa, and the others' files" \
        "$prefix/lib/libother.so.1 $prefix/share/man/man1/other.1" "$(files_under "$prefix" | tr '\n' ' ' | sed 's/ $//')"
    if [ ! -e "$prefix/share/doc/capsa" ]; then ok "make uninstall removed share/doc/capsa"; else
        bad "make uninstall left share/doc/capsa"; fi

    # DESTDIR: a staging root; the paths inside the files are PREFIX's.
    stage=$tmp/stage
    if out=$(mk install DESTDIR="$stage" PREFIX=/opt/capsa LDCONFIG=: 2>&1); then
        expected_files "$stage/opt/capsa" > "$tmp/expected-stage"
        if diff=$(files_under "$stage" | diff "$tmp/expected-stage" -); then
            ok "make install DESTDIR=... PREFIX=/opt/capsa stages under DESTDIR"
        else
            bad "make install with DESTDIR (< expected only, > staged only)" "$diff"
        fi
        contains "capsa.pc names PREFIX, not DESTDIR" "prefix=/opt/capsa" "$(cat "$stage/opt/capsa/lib/pkgconfig/capsa.pc")"
        mk uninstall DESTDIR="$stage" PREFIX=/opt/capsa LDCONFIG=: >/dev/null 2>&1
        check "make uninstall with DESTDIR leaves nothing" "" "$(files_under "$stage")"
    else
        bad "make install DESTDIR=..." "$out"
    fi
}

# ---- python -----------------------------------------------------------------------
t_python() {
    if ! out=$(python3 -m venv "$tmp/venv" 2>&1); then
        bad "python3 -m venv (Debian: apt-get install python3-venv)" "$out"
        return
    fi
    # In-tree build (pip >= 21.3): the backend reads ../include/capsa.h and takes
    # the library from the package (make python) or from build/.
    if out=$(cd "$tmp" && "$tmp/venv/bin/pip" install --no-index --disable-pip-version-check --quiet \
            "$root/python" 2>&1); then
        ok "pip install ./python into a virtual environment"
    else
        bad "pip install ./python into a virtual environment" "$out"
        return
    fi
    got=$(cd "$tmp" && py env -u CAPSA_LIBRARY -u PYTHONPATH "$tmp/venv/bin/python" -c '
import capsa
print(capsa.__version__)
print(capsa.__file__.startswith(__import__("sys").prefix))
print(capsa.Sandbox().run("return 6 * 7").value)' 2>&1)
    check "the venv's capsa: its version, its own copy, a sandbox runs" "$version
True
42" "$got"
    check "pip show capsa: the header's version" "Version: $version" \
        "$("$tmp/venv/bin/pip" show capsa 2>/dev/null | grep '^Version:')"
}

# ---- deb --------------------------------------------------------------------------
t_deb() {
    for cmd in dpkg-deb dpkg-shlibdeps; do
        command -v "$cmd" >/dev/null 2>&1 || { bad "$cmd is missing (make deps installs dpkg-dev)"; return; }
    done
    if out=$(mk deb 2>&1); then
        deb=$(printf '%s\n' "$out" | tail -n 1)
        ok "make deb: $(basename "$deb")"
    else
        bad "make deb" "$out"
        return
    fi
    arch=$(dpkg --print-architecture)
    check "the package's name" "capsa_${version}_$arch.deb" "$(basename "$deb")"
    check "Package and Version" "capsa $version" "$(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version)"
    depends=$(dpkg-deb -f "$deb" Depends)
    droot=$tmp/debroot
    dpkg-deb -R "$deb" "$droot"
    check "md5sums verify every file" "" "$(cd "$droot" && md5sum --quiet -c DEBIAN/md5sums 2>&1)"
    ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
    for f in usr/bin/capsa "usr/lib/$ma/libcapsa.so.$version" "usr/lib/$ma/libcapsa.a" \
        usr/include/capsa.h "usr/lib/$ma/pkgconfig/capsa.pc" usr/share/man/man1/capsa.1.gz \
        usr/share/man/man3/capsa.3.gz usr/share/doc/capsa/copyright; do
        if [ -f "$droot/$f" ]; then ok "the package holds /$f"; else bad "the package lacks /$f"; fi
    done
    # Every library an ELF file of the package needs is ours or comes from a
    # package named in Depends (asked of dpkg here, apart from how deb.sh did it).
    missing=
    # shellcheck disable=SC2044 # the paths are ours, in a mktemp directory
    for f in $(find "$droot/usr/bin" "$droot/usr/lib" -type f ! -name '*.a'); do
        [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
        for need in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
            case $need in libcapsa*) continue ;; esac
            path=$(ldconfig -p | awk -v n="$need" '$1 == n { print $NF; exit }')
            owner=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null || dpkg -S "$path" 2>/dev/null)
            owner=${owner%%:*}
            case ", $depends," in
            *", $owner "* | *", $owner,"*) ;;
            *) missing="$missing $need($owner)" ;;
            esac
        done
    done
    check "Depends ($depends) covers every library the ELF files need" "" "$missing"
    contains "Depends names libjansson4" "libjansson4" "$depends"
    # Loaded when first used (net/lazylibs.c), so named by no ELF file.
    contains "Depends names libcurl4, which capsa loads for HTTP upstreams" "libcurl4" "$depends"
    contains "Depends names libmicrohttpd12, which capsa loads for its HTTP server" \
        "libmicrohttpd12" "$depends"
    check "the extracted capsa runs" "42" \
        "$(LD_LIBRARY_PATH="$droot/usr/lib/$ma" "$droot/usr/bin/capsa" run -e 'return 6 * 7' 2>&1)"
    check "the extracted capsa --version" "capsa $version" \
        "$(LD_LIBRARY_PATH="$droot/usr/lib/$ma" "$droot/usr/bin/capsa" --version 2>&1)"
    t_program "PKG_CONFIG_SYSROOT_DIR=$droot PKG_CONFIG_LIBDIR=$droot/usr/lib/$ma/pkgconfig" \
        "$droot/usr/lib/$ma" "deb"
    t_man_pages "$droot/usr/share/man" .gz
    if readelf -S "$droot/usr/bin/capsa" | grep -q '\.debug_info'; then
        bad "the package's capsa is not stripped"
    else
        ok "the package's binaries are stripped"
    fi
}

suites=${*:-version exports install python deb}
for s in $suites; do
    echo "-- $s"
    "t_$s"
done
echo
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
