#!/bin/sh
# Regenerates the expected output of tests/js/node from Node.js v20, the reference:
# each tests/js/node/NAME.js (but sandbox.js, whose expected output is the sandbox's
# own) runs with `node NAME.js` in a fresh temporary directory that is its working
# directory (as /workspace is under capsa), and its stdout, stderr and exit status
# become NAME.stdout, NAME.stderr and NAME.status (the last two only when not empty
# or not 0); NAME.stdin, when there, is its standard input (else /dev/null), as in
# tests/js/run.sh. Node's "(node:PID) " before a warning and its "(Use `node --trace-...`"
# hint are taken out of stderr: the sandbox writes neither. tests/js/run.sh then
# compares capsa's output with these files, so the suite does not need node.
#
#   sh tests/js/node/regen.sh           # every script
#   sh tests/js/node/regen.sh path      # the scripts whose names start with path
#
# Review the diff (git diff tests/js/node) before committing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null 2>&1; then
    echo "regen.sh: node is not installed; it is needed to make the expected output" >&2
    exit 2
fi
case "$(node --version)" in
v20.*) ;;
*) echo "regen.sh: warning: node $(node --version); the expected files were made with v20" >&2 ;;
esac
for js in "$here"/"${1:-}"*.js; do
    name=$(basename "$js" .js)
    [ "$name" = sandbox ] && continue
    dir=$(mktemp -d)
    cp "$js" "$dir/"
    stdin=/dev/null
    [ -f "$here/$name.stdin" ] && stdin="$here/$name.stdin"
    (cd "$dir" && TZ=UTC node "$name.js" <"$stdin" >"$here/$name.stdout" 2>"$dir/stderr")
    status=$?
    sed -E 's/^\(node:[0-9]+\) //; /^\(Use `node --trace-/d' "$dir/stderr" >"$here/$name.stderr"
    [ -s "$here/$name.stderr" ] || rm -f "$here/$name.stderr"
    if [ "$status" -ne 0 ]; then echo "$status" >"$here/$name.status"; else rm -f "$here/$name.status"; fi
    rm -rf "$dir"
    echo "regen.sh: $name (exit status $status)"
done
