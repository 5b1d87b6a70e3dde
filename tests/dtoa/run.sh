#!/bin/sh
# Number formatting: the guest's exact tie rounding (CONFIG_EXACT_DTOA_TIES) must give
# what native QuickJS gives with fesetround, for millions of toFixed/toPrecision/
# toExponential results.
set -u
BUILD=${BUILD:-build}
summary=$("$BUILD/tests/dtoa_ref" 2>/dev/null | "$BUILD/tests/dtoa_exact" - 2>&1 >/dev/null)
rc=$?
echo "$summary"
# Each known answer is one test, and the differential comparison over all the
# generated values is one more.
known=$(echo "$summary" | sed -n 's/.*: \([0-9]*\) known answers ok.*/\1/p' | tail -n 1)
diffs=$(echo "$summary" | sed -n 's/.*, \([0-9]*\) differences.*/\1/p' | tail -n 1)
known=${known:-0}
diffs=${diffs:-1}
passed=$known
failed=0
if [ "$known" -eq 0 ]; then failed=1; fi
if [ "$diffs" -eq 0 ] && [ "$rc" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
echo "$passed passed, $failed failed"
[ "$rc" -eq 0 ]
