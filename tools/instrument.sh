#!/bin/sh
# Meters the guest: rewrites the C that wasm2c generated so that every function
# entry and every backward branch (a loop's next iteration) spends one unit of
# fuel from a counter in the instance (see src/fuel.h). With a loop or a call
# needed to run for long, no guest code escapes the meter: not a JS loop, not a
# regular expression backtracking inside the engine, not a recursion.
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
sed -e "s|^#include \"$in_base\"\$|#include \"$base\"\n#include \"fuel.h\"|" \
    -e 's/^  FUNC_PROLOGUE;$/  FUNC_PROLOGUE; CAPSA_FUEL(instance);/' \
    -e 's/goto \(w2c_L[0-9]*\);/{ CAPSA_FUEL(instance); goto \1; }/g' \
    "$in_c" > "$out_c.tmp"
grep -q '#include "fuel.h"' "$out_c.tmp" || { echo "instrument: $in_c does not include $in_base" >&2; exit 1; }
n=$(grep -c 'CAPSA_FUEL(instance)' "$out_c.tmp")
[ "$n" -gt 0 ] || { echo "instrument: nothing metered in $in_c" >&2; exit 1; }
mv "$out_h.tmp" "$out_h"
mv "$out_c.tmp" "$out_c"
echo "instrument: $n metering points in $out_c"
