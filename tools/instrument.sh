#!/bin/sh
# Meters the guest: rewrites the C that wasm2c generated so that every backward
# branch (a loop's next iteration) and the entry of every function that calls
# others spends one unit of fuel from a counter (see src/fuel.h). Code can only
# run for long by looping or by calling: a loop is metered at each iteration, and
# any chain of calls, recursion included, passes through metered entries (a
# function that calls nothing runs its own body once, loops aside). So no guest
# code escapes the meter: not a JS loop, not a regular expression backtracking
# inside the engine, not a recursion. Leaf functions are left unmetered because
# they are the small, hot ones: metering them too cost about 7% more time on mixed
# work (make bench).
# The counter may live in a register while guest code runs (src/fuel.h), so the
# places where guest code meets the host hand it over: each exported function
# (CAPSA_FUEL_EXPORT), each call of an imported function (CAPSA_FUEL_TO_HOST and
# _FROM_HOST around it) and each trap (TRAP). Every one of them is checked below:
# a wasm2c whose output looks different stops the build rather than leave a
# place unmetered or a register unsaved.
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
# The unit starts with fuel.h, so that the register is reserved before any code.
# A function's body runs from its FUNC_PROLOGUE line to the "}" that closes it at
# the start of a line; it is held until then to know whether it calls (a direct
# w2c_ call with the instance, or CALL_INDIRECT). An exported function's one
# statement calls its w2c_ function; its return type tells the macro.
{ printf '#define CAPSA_FUEL_UNIT 1\n#include "fuel.h"\n'; cat "$in_c"; } |
sed -e "s|^#include \"$in_base\"\$|#include \"$base\"|" \
    -e 's/^#define TRAP(x) (wasm_rt_trap(WASM_RT_TRAP_##x), 0)$/#define TRAP(x) (CAPSA_FUEL_TRAP(WASM_RT_TRAP_##x), 0)/' \
    -e '/(\*Z_[A-Za-z0-9_]*)(instance->/s/^\( *\)\(.*;\)$/\1{ CAPSA_FUEL_TO_HOST(instance); \2 CAPSA_FUEL_FROM_HOST(instance); }/' \
    -e 's/goto \(w2c_L[0-9]*\);/{ CAPSA_FUEL(instance); goto \1; }/g' |
awk '
    /^\/\* export: / { export = 1; print; next }
    export == 1 { void = ($0 ~ /^void /); export = 2; print; next }
    export == 2 {
        if ($0 == "}") { export = 0; print; next }
        if ($0 ~ /^  return w2c_[A-Za-z0-9_]+\(instance[,)].*;$/) {
            call = substr($0, 10, length($0) - 10)
            if (void)
                print "  CAPSA_FUEL_EXPORT_VOID(instance, " call ");"
            else
                print "  return CAPSA_FUEL_EXPORT(instance, " call ");"
            next
        }
        print; next
    }
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
fail() { echo "instrument: $in_c: $1" >&2; rm -f "$out_c.tmp" "$out_h.tmp"; exit 1; }
grep -q "^#include \"$base\"\$" "$out_c.tmp" || fail "does not include $in_base"
grep -q '^#define TRAP(x) (CAPSA_FUEL_TRAP(' "$out_c.tmp" || fail "no TRAP macro of the known form"
! grep -q 'wasm_rt_trap(' "$out_c.tmp" || fail "a trap not through TRAP"
imports=$(grep -c '(\*Z_[A-Za-z0-9_]*)(instance->' "$out_c.tmp" || true)
handed=$(grep -c '{ CAPSA_FUEL_TO_HOST(instance); .*(\*Z_[A-Za-z0-9_]*)(instance->.* CAPSA_FUEL_FROM_HOST(instance); }$' "$out_c.tmp" || true)
[ "$imports" -eq "$handed" ] || fail "$imports calls of imports, $handed of them handed the counter"
calls=$(awk '/^\/\* export: /{ getline; getline; print }' "$out_c.tmp" | grep -c 'w2c_[A-Za-z0-9_]*(instance' || true)
wrapped=$(grep -c 'CAPSA_FUEL_EXPORT' "$out_c.tmp" || true)
[ "$calls" -eq "$wrapped" ] || fail "$calls exported functions, $wrapped of them wrapped"
n=$(grep -c 'CAPSA_FUEL(instance)' "$out_c.tmp")
[ "$n" -gt 0 ] || fail "nothing metered"
mv "$out_h.tmp" "$out_h"
mv "$out_c.tmp" "$out_c"
echo "instrument: $n metering points in $out_c"
