#!/bin/sh
# Runs the two benchmark runners (native QuickJS and capsa) one after the other on
# each script and for the sandbox latency, then prints the table and writes the
# figures as JSON. Called by `make bench` with the scripts as arguments; the
# environment gives BENCH_BIN, BENCH_JSON, BENCH_REPS, BENCH_WARMUP, BENCH_CYCLES,
# BENCH_ROUNDS and BENCH_RUNTIME_JS. Targets over are reported, not failed: this is
# a benchmark. Exits non-zero only when a runner fails or the two engines disagree
# on a result.
#
# Every series is measured BENCH_ROUNDS times, native and capsa alternating, and
# the round with the lowest median is kept for each: another process taking a
# core for a while (a build, a test run) then spoils one round, not the figure.
set -eu

BIN=${BENCH_BIN:-build/bench}
JSON=${BENCH_JSON:-build/bench.json}
REPS=${BENCH_REPS:-9}
WARMUP=${BENCH_WARMUP:-2}
CYCLES=${BENCH_CYCLES:-1000}
ROUNDS=${BENCH_ROUNDS:-2}
RUNTIME_JS=${BENCH_RUNTIME_JS:-guest/runtime.js}

if [ $# -eq 0 ]; then
    echo "bench: no scripts given" >&2
    exit 2
fi

raw=$(mktemp)
trap 'rm -f "$raw" "$raw.out"' EXIT INT TERM

# Each runner prints "name unit median min max p99 check"; the engine goes first.
run() {
    engine=$1
    shift
    if ! "$@" >"$raw.out"; then
        echo "bench: failed: $*" >&2
        exit 1
    fi
    sed "s/^/$engine /" "$raw.out" >>"$raw"
}

load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
echo "bench: $ROUNDS rounds of $REPS samples after $WARMUP warm-up runs per script" \
    "and $CYCLES sandbox cycles; load average before: $load" >&2
round=1
while [ "$round" -le "$ROUNDS" ]; do
    for script in "$@"; do
        echo "bench: round $round: $script" >&2
        run native "$BIN/native_qjs" compute "$REPS" "$WARMUP" "$script"
        run capsa "$BIN/capsa_bench" compute "$REPS" "$WARMUP" "$script"
    done
    echo "bench: round $round: sandbox latency" >&2
    run native "$BIN/native_qjs" latency "$CYCLES" "$RUNTIME_JS"
    run capsa "$BIN/capsa_bench" latency "$CYCLES"
    round=$((round + 1))
done

awk -v json="$JSON" '
function fmt(v) { return v >= 100 ? sprintf("%.0f", v) : v >= 10 ? sprintf("%.1f", v) : sprintf("%.2f", v) }
# One row of the table and of the JSON. max_ratio / max_value: the target, 0 if none.
function row(name, value, unit, ref, spread, max_ratio, max_value,    ratio, target, verdict) {
    ratio = ref > 0 ? value / ref : 0
    target = "-"; verdict = ""
    if (max_ratio > 0) {
        target = sprintf("<= %.1fx", max_ratio)
        verdict = ratio <= max_ratio ? "ok" : sprintf("over (%.0f%%)", (ratio / max_ratio - 1) * 100)
    } else if (max_value > 0) {
        target = sprintf("<= %d %s", max_value, unit)
        verdict = value <= max_value ? "ok" : sprintf("over (%.0f%%)", (value / max_value - 1) * 100)
    }
    printf "%-24s %10s %-3s %10s %7.2fx %8s  %-11s %s\n", name, fmt(value), unit, fmt(ref), ratio,
        spread, target, verdict
    njson++
    rows[njson] = sprintf("  {\"name\": \"%s\", \"value\": %.3f, \"unit\": \"%s\", \"reference\": %.3f, \"ratio\": %.4f}",
        name, value, unit, ref, ratio)
}
# The spread of a series: (max - min) / median, in percent.
function spread(e, n) { return sprintf("%.0f%%", (max[e, n] - min[e, n]) / med[e, n] * 100) }
# Keeps, per engine and series, the round with the lowest median; every round must
# have computed the same check value.
{
    e = $1; n = $2
    if (e == "capsa" && n ~ /^compute\./ && !((e, n) in med)) order[++ncompute] = n
    if (((e, n) in check) && check[e, n] != $8) {
        printf "bench: %s %s: rounds computed %s and %s\n", e, n, check[e, n], $8 > "/dev/stderr"
        bad = 1
    }
    check[e, n] = $8
    if (!((e, n) in med) || $4 + 0 < med[e, n] + 0) {
        unit[n] = $3; med[e, n] = $4; min[e, n] = $5; max[e, n] = $6; p99[e, n] = $7
    }
}
END {
    printf "%-24s %10s %-3s %10s %8s %8s  %-11s %s\n", "name", "capsa", "", "native", "ratio",
        "spread", "target", ""
    for (i = 1; i <= ncompute; i++) {
        n = order[i]
        if (!(("native", n) in med)) { printf "bench: no native figure for %s\n", n > "/dev/stderr"; bad = 1; continue }
        if (check["native", n] != check["capsa", n]) {
            printf "bench: %s: capsa computed %s, native QuickJS %s\n", n, check["capsa", n],
                check["native", n] > "/dev/stderr"
            bad = 1
        }
        row(n, med["capsa", n], "ms", med["native", n], spread("capsa", n), 1.3, 0)
    }
    l = "latency.capsa"
    if (("capsa", l) in med) {
        row("latency.median", med["capsa", l], "us", med["native", "latency.bare"], "-", 0, 300)
        row("latency.p99", p99["capsa", l], "us", p99["native", "latency.bare"], "-", 0, 0)
        if (("native", "latency.same_work") in med)
            row("latency.median_full_init", med["capsa", l], "us", med["native", "latency.same_work"], "-", 0, 0)
    }
    print ""
    print "capsa: median of in-process capsa_run of the script (ms), and of capsa_sandbox_new +"
    print "  capsa_run(\"return 1+1\") + capsa_sandbox_free (us; p99 on its own row)."
    print "native: QuickJS built natively from the same sources and flags, same run. compute: the"
    print "  script evaluated as capsa does (async body, then its jobs). latency.median/p99:"
    print "  JS_NewRuntime + JS_NewContext + JS_Eval(\"1+1\") + free. latency.median_full_init:"
    print "  the guest'\''s whole setup from scratch (capsa JS runtime, async body, JSON result)."
    print "spread: (max - min) / median of the capsa samples kept."
    printf "[\n" > json
    for (i = 1; i <= njson; i++)
        printf "%s%s\n", rows[i], i < njson ? "," : "" > json
    printf "]\n" > json
    close(json)
    print "figures written to " json
    exit bad
}' "$raw"
