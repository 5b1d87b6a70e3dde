#!/bin/sh
# Regenerates tests/corpus/expected/NAME.stdout from Node.js (v20, the reference the
# expected files were made with): each tests/corpus/scripts/NAME.js runs as an ES module
# (`node --input-type=module`, so top-level await works) read from standard input, in a
# fresh temporary directory that is its working directory (relative paths and relative
# `import()` then resolve there, as they resolve to /workspace under capsa), with TZ=UTC
# and an en-US locale. The script must exit 0 with nothing on stderr, or this stops.
#
#   sh tests/corpus/regen.sh            # every script
#   sh tests/corpus/regen.sh 05-dates   # the scripts whose names start with 05-dates
#
# Review the diff (git diff tests/corpus/expected) before committing: the expected files
# are Node's output, and tests/corpus/run.sh compares capsa's with them byte for byte.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null 2>&1; then
    echo "regen.sh: node is not installed; it is needed to make the expected output" >&2
    exit 2
fi
version=$(node --version)
case "$version" in
v20.*) ;;
*) echo "regen.sh: warning: node $version; the expected files were made with v20" >&2 ;;
esac
mkdir -p "$here/expected"
err=$(mktemp)
out=$(mktemp)
trap 'rm -f "$err" "$out"' EXIT
status=0
for js in "$here"/scripts/"${1:-}"*.js; do
    [ -f "$js" ] || continue
    name=$(basename "$js" .js)
    dir=$(mktemp -d)
    (cd "$dir" && TZ=UTC LC_ALL=en_US.UTF-8 LANG=en_US.UTF-8 \
        node --input-type=module <"$js" >"$out" 2>"$err")
    rc=$?
    rm -rf "$dir"
    if [ "$rc" -ne 0 ] || [ -s "$err" ]; then
        echo "regen.sh: $name: node exited $rc; stderr:" >&2
        head -20 "$err" >&2
        status=1
        continue
    fi
    cp "$out" "$here/expected/$name.stdout"
    echo "$name"
done
exit $status
