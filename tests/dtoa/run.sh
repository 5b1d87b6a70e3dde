#!/bin/sh
# Number formatting: the guest's exact tie rounding (CONFIG_EXACT_DTOA_TIES) must give
# what native QuickJS gives with fesetround, for millions of toFixed/toPrecision/
# toExponential results. Prints "N passed, N failed" over the compared results.
set -u
BUILD=${BUILD:-build}
summary=$("$BUILD/tests/dtoa_ref" 2>/dev/null | "$BUILD/tests/dtoa_exact" - 2>&1 >/dev/null)
rc=$?
echo "$summary"
results=$(echo "$summary" | sed -n 's/.*values, \([0-9]*\) results compared.*/\1/p' | tail -n 1)
diffs=$(echo "$summary" | sed -n 's/.*, \([0-9]*\) differences.*/\1/p' | tail -n 1)
results=${results:-0}
diffs=${diffs:-0}
if [ "$rc" -ne 0 ] && [ "$diffs" -eq 0 ]; then diffs=1; fi
echo "$((results - diffs)) passed, $diffs failed"
[ "$rc" -eq 0 ]
