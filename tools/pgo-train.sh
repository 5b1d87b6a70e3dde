#!/bin/sh
# Runs the training workload of the guest's profile-guided build (see GUEST_PGO in
# the Makefile): a capsa CLI linked with the instrumented guest runs every JS
# feature test (tests/js) and the example agent, so that the profile covers the
# engine broadly: parsing, the interpreter, built-ins, JSON, regular expressions,
# strings, numbers, Buffer, fs, timers, Intl. The benchmark's scripts
# (bench/scripts) are deliberately not part of it. Outcomes do not matter (some
# tests end with an error on purpose); each run is bounded in time.
#   pgo-train.sh CAPSA
set -u
capsa=$1
[ -x "$capsa" ] || { echo "pgo-train: $capsa is not a program" >&2; exit 1; }
here=$(cd "$(dirname "$0")/.." && pwd)
n=0
for js in "$here"/tests/js/*/*.js "$here"/examples/agent.js; do
    timeout 60 "$capsa" run --timeout 30 "$js" > /dev/null 2>&1 < /dev/null
    n=$((n + 1))
done
[ "$n" -gt 100 ] || { echo "pgo-train: only $n scripts found" >&2; exit 1; }
echo "pgo-train: $n scripts run"
