#!/bin/sh
# The deployment examples (examples/deploy/): the haproxy configuration as
# haproxy reads it, the systemd unit as systemd-analyze reads it (when systemd
# is there), and the Kubernetes manifests against each other and against
# `capsa serve --help` (manifests.py). Starts nothing. Prints "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) build=$BUILD ;; *) build=$top/$BUILD ;; esac
deploy=$top/examples/deploy
capsa=$build/capsa
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

if out=$(haproxy -c -f "$deploy/haproxy.cfg" 2>&1); then
    ok "haproxy.cfg is valid for haproxy $(haproxy -v | sed -n '1s/HA-Proxy version \([^ ]*\).*/\1/p;1s/HAProxy version \([^ ]*\).*/\1/p')"
else
    bad "haproxy.cfg: $out"
fi
grep -q '^ *balance roundrobin' "$deploy/haproxy.cfg" && ok "haproxy.cfg balances round robin" ||
    bad "haproxy.cfg does not balance round robin"
grep -q 'uri /healthz' "$deploy/haproxy.cfg" && ok "haproxy.cfg checks /healthz" ||
    bad "haproxy.cfg does not check /healthz"

"$capsa" serve --help >"$tmp/help" 2>&1 || bad "capsa serve --help failed: $(cat "$tmp/help")"

# The unit's ExecStart, its lines joined: each option must be one capsa serve knows.
unit=$deploy/capsa-serve@.service
exec_line=$(sed -n '/^ExecStart=/,/[^\\]$/p' "$unit" | tr -d '\\\n')
unknown=""
for o in $(echo "$exec_line" | grep -o -- '--[a-z][a-z0-9-]*'); do
    grep -q -- "$o" "$tmp/help" || unknown="$unknown $o"
done
[ -z "$unknown" ] && ok "the unit passes options capsa serve knows" ||
    bad "the unit passes options capsa serve does not list:$unknown"
if command -v systemd-analyze >/dev/null 2>&1; then
    # Verified as instance 8081 with this build's capsa in place of /usr/bin/capsa
    # (the man page is not installed here, which is not the unit's fault).
    sed "s|/usr/bin/capsa|$capsa|" "$unit" >"$tmp/capsa-serve@.service"
    out=$(cd "$tmp" && systemd-analyze verify "$tmp/capsa-serve@8081.service" 2>&1 |
        grep -v "Command 'man capsa(1)' failed")
    [ -z "$out" ] && ok "systemd-analyze verify finds nothing in the unit" ||
        bad "systemd-analyze verify: $out"
else
    echo "skip systemd-analyze verify: systemd is not installed here"
fi

docker_opts=$(sed -n 's/^CMD //p' "$deploy/Dockerfile" | grep -o -- '--[a-z][a-z0-9-]*')
unknown=""
for o in $docker_opts; do grep -q -- "$o" "$tmp/help" || unknown="$unknown $o"; done
[ -n "$docker_opts" ] && [ -z "$unknown" ] && ok "the Dockerfile's CMD passes options capsa serve knows" ||
    bad "the Dockerfile's CMD: unknown options:$unknown"

# Debian's python3, which python3-yaml is for (another python3 may come first in PATH).
py=/usr/bin/python3
[ -x "$py" ] || py=python3
"$py" "$here/manifests.py" "$deploy/kubernetes" "$tmp/help" >"$tmp/out" 2>&1
cat "$tmp/out"
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$tmp/out" | tail -n 1)
if [ -n "$line" ]; then
    pass=$((pass + ${line%% passed*}))
    f=${line#*passed, }
    fail=$((fail + ${f%% failed*}))
else
    bad "manifests.py did not finish"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
