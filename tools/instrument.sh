#!/bin/sh
# Meters the guest: rewrites the C that wasm2c generated so that every backward
# branch (a loop's next iteration) and the entry of every function that calls
# others spends one unit of fuel from a counter in the instance (see
# src/fuel.h). Code can only run for long by looping or by calling: a loop is
# metered at each iteration, and any chain of calls, recursion included, passes
# through metered entries (a function that calls nothing runs its own body once,
# loops aside). So no guest code escapes the meter: not a JS loop, not a regular
# expression backtracking inside the engine, not a recursion. Leaf functions are
# left unmetered because they are the small, hot ones: metering them too cost
# about 7% more time on mixed work (make bench).
#   instrument.sh IN.c IN.h OUT.c OUT.h
set -eu
in_c=$1
in_h=$2
out_c=$3
out_h=$4
base=$(basename "$out_h")

# The counter is the instance's last field.
sed -e 's/^} \(Z_[A-Za-z0-9_]*_instance_t\);$/  int64_t capsa_fuel; \/* units left in the current slice *\/\n} \1;/' \
    "$in_h" > "$out_h.tmp"
grep -q 'capsa_fuel;' "$out_h.tmp" || { echo "instrument: no instance struct in $in_h" >&2; exit 1; }

in_base=$(basename "$in_h")
# A function's body runs from its FUNC_PROLOGUE line to the "}" that closes it at
# the start of a line; it is held until then to know whether it calls (a direct
# w2c_ call with the instance, or CALL_INDIRECT).
sed -e "s|^#include \"$in_base\"\$|#include \"$base\"\n#include \"fuel.h\"|" \
    -e 's/goto \(w2c_L[0-9]*\);/{ CAPSA_FUEL(instance); goto \1; }/g' \
    "$in_c" | awk '
    /^  FUNC_PROLOGUE;$/ { body = ""; calls = 0; held = 1; next }
    held {
        body = body $0 "\n"
        if ($0 ~ /w2c_[A-Za-z0-9_]+\(instance[,)]/ || $0 ~ /CALL_INDIRECT\(/)
            calls = 1
        if ($0 == "}") {
            print (calls ? "  FUNC_PROLOGUE; CAPSA_FUEL(instance);" : "  FUNC_PROLOGUE;")
            printf "%s", body
            held = 0
        }
        next
    }
    { print }
    END { if (held) exit 1 }' > "$out_c.tmp"
grep -q '#include "fuel.h"' "$out_c.tmp" || { echo "instrument: $in_c does not include $in_base" >&2; exit 1; }
n=$(grep -c 'CAPSA_FUEL(instance)' "$out_c.tmp")
[ "$n" -gt 0 ] || { echo "instrument: nothing metered in $in_c" >&2; exit 1; }
mv "$out_h.tmp" "$out_h"
mv "$out_c.tmp" "$out_c"
echo "instrument: $n metering points in $out_c"
