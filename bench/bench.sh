#!/bin/sh
# Runs the benchmark runners one after the other (native QuickJS, capsa, capsa
# with its guest unmetered, and the peers: Node.js's vm module, quickjs-emscripten
# and isolated-vm) on each script, for the sandbox latency, for the memory of
# many live sandboxes and for whole processes, then prints the table and writes
# the figures as JSON. Called by `make bench` with the scripts as arguments; the
# environment gives BENCH_BIN, BENCH_UNMETERED (the unmetered capsa_bench),
# BENCH_CAPSA (the CLI), BENCH_JSON, BENCH_REPS, BENCH_WARMUP, BENCH_CYCLES,
# BENCH_ROUNDS, BENCH_SANDBOXES, BENCH_PROCESS_RUNS, BENCH_NODE_MODULES,
# BENCH_CLOCK (cpu or wall, see bench/bench.h), BENCH_RUNTIME_JS, BENCH_INTL_JS (the
# guest's Intl, evaluated first by the engines that have none) and BENCH_TOOL_SCRIPT
# (the tool-heavy script, capsa only) and BENCH_SQLITE_SCRIPTS (the SQLite scripts, each
# against SQLite compiled natively). Targets over
# are reported, not failed: this is a benchmark. Exits non-zero only when a runner
# of capsa or native QuickJS fails or they disagree on a result; a peer that
# cannot run is reported as unavailable.
#
# Every timed series is measured BENCH_ROUNDS times, the engines alternating, and
# the round with the lowest median is kept for each: another process taking a
# core for a while (a build, a test run) then spoils one round, not the figure.
# Memory and whole-process figures are measured once, after the rounds.
set -eu

BIN=${BENCH_BIN:-build/bench}
UNMETERED=${BENCH_UNMETERED:-$BIN/unmetered/capsa_bench}
CAPSA=${BENCH_CAPSA:-build/capsa}
JSON=${BENCH_JSON:-build/bench.json}
REPS=${BENCH_REPS:-9}
WARMUP=${BENCH_WARMUP:-2}
CYCLES=${BENCH_CYCLES:-1000}
ROUNDS=${BENCH_ROUNDS:-2}
SANDBOXES=${BENCH_SANDBOXES:-10000}
PROCESS_RUNS=${BENCH_PROCESS_RUNS:-20}
RUNTIME_JS=${BENCH_RUNTIME_JS:-guest/runtime.js}
BENCH_NODE_MODULES=${BENCH_NODE_MODULES:-}
BENCH_CLOCK=${BENCH_CLOCK:-cpu}
BENCH_INTL_JS=${BENCH_INTL_JS:-guest/intl.js}
TOOL_SCRIPT=${BENCH_TOOL_SCRIPT:-$(dirname "$0")/tool_calls.js}
# The SQLite scripts (bench/sqlite/insert_group.js through node:sqlite and
# better_insert_group.js through better-sqlite3), each against $BIN/sqlite_native; at
# least one warm-up run, so that SQLite's first open in a sandbox is not the sample.
SQLITE_SCRIPTS=${BENCH_SQLITE_SCRIPTS:-}
SQLITE_WARMUP=$WARMUP
[ "$SQLITE_WARMUP" -ge 1 ] || SQLITE_WARMUP=1
export BENCH_NODE_MODULES BENCH_CLOCK BENCH_INTL_JS
PEERS_DIR=$(dirname "$0")/peers

if [ $# -eq 0 ]; then
    echo "bench: no scripts given" >&2
    exit 2
fi

raw=$(mktemp)
trap 'rm -f "$raw" "$raw.out" "$raw.err"' EXIT INT TERM

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

# The same for a peer, whose failure only makes its rows unavailable.
peer() {
    engine=$1
    shift
    if "$@" >"$raw.out" 2>"$raw.err"; then
        sed "s/^/$engine /" "$raw.out" >>"$raw"
    else
        echo "bench: $engine unavailable: $(tail -n 1 "$raw.err")" >&2
    fi
}

peers=""
if command -v node >/dev/null 2>&1; then
    peers="node_vm"
    if [ -n "$BENCH_NODE_MODULES" ] && [ -d "$BENCH_NODE_MODULES/quickjs-emscripten" ]; then
        peers="$peers quickjs_emscripten"
    else
        echo "bench: quickjs-emscripten is not installed (bench/deps.sh): its rows are unavailable" >&2
    fi
    if [ -n "$BENCH_NODE_MODULES" ] && [ -f "$BENCH_NODE_MODULES/isolated-vm/out/isolated_vm.node" ]; then
        peers="$peers isolated_vm"
    else
        echo "bench: isolated-vm is not installed (bench/deps.sh): its rows are unavailable" >&2
    fi
else
    echo "bench: node is missing (the Debian package nodejs; make deps installs it): the peer rows are unavailable" >&2
fi

start=$(date +%s)
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
echo "bench: $ROUNDS rounds of $REPS samples after $WARMUP warm-up runs per script," \
    "$CYCLES sandbox cycles, $SANDBOXES live sandboxes, $PROCESS_RUNS processes;" \
    "load average before: $load" >&2
round=1
while [ "$round" -le "$ROUNDS" ]; do
    for script in "$@"; do
        echo "bench: round $round: $script" >&2
        run native "$BIN/native_qjs" compute "$REPS" "$WARMUP" "$script"
        run capsa "$BIN/capsa_bench" compute "$REPS" "$WARMUP" "$script"
        run unmetered "$UNMETERED" compute "$REPS" "$WARMUP" "$script"
        for p in $peers; do
            peer "$p" node "$PEERS_DIR/inproc.mjs" "$p" compute "$REPS" "$WARMUP" "$script"
        done
    done
    echo "bench: round $round: tool calls" >&2
    run capsa "$BIN/capsa_bench" tools "$REPS" "$TOOL_SCRIPT"
    echo "bench: round $round: checkpoints" >&2
    run capsa "$BIN/capsa_bench" checkpoint "$REPS"
    if [ -n "$SQLITE_SCRIPTS" ]; then
        echo "bench: round $round: SQLite" >&2
        run native "$BIN/sqlite_native" "$REPS" "$SQLITE_WARMUP"
        # shellcheck disable=SC2086 # a list of scripts
        run capsa "$BIN/capsa_bench" sqlite "$REPS" "$SQLITE_WARMUP" $SQLITE_SCRIPTS
    fi
    echo "bench: round $round: sandbox latency" >&2
    run native "$BIN/native_qjs" latency "$CYCLES" "$RUNTIME_JS"
    run capsa "$BIN/capsa_bench" latency "$CYCLES"
    run capsa "$BIN/capsa_bench" latency "$CYCLES" pooled
    for p in $peers; do
        peer "$p" node "$PEERS_DIR/inproc.mjs" "$p" latency "$CYCLES"
    done
    echo "bench: round $round: the Python package" >&2
    run capsa env CAPSA_LIBRARY="$(dirname "$CAPSA")/libcapsa.so" \
        PYTHONPATH="python${PYTHONPATH:+:$PYTHONPATH}" python3 bench/python_bench.py "$CYCLES"
    round=$((round + 1))
done
echo "bench: $SANDBOXES live sandboxes" >&2
run native "$BIN/native_qjs" memory "$SANDBOXES"
run capsa "$BIN/capsa_bench" memory "$SANDBOXES"
if [ -n "$peers" ]; then
    echo "bench: whole processes, $PROCESS_RUNS runs each" >&2
    # This driver prints the engine itself, first on each line.
    if CAPSA_LIBRARY="$(dirname "$CAPSA")/libcapsa.so" PYTHONPATH="python${PYTHONPATH:+:$PYTHONPATH}" \
        node "$PEERS_DIR/process.mjs" "$PROCESS_RUNS" "$CAPSA" >"$raw.out" 2>"$raw.err"; then
        cat "$raw.out" >>"$raw"
    else
        echo "bench: whole-process figures unavailable: $(tail -n 1 "$raw.err")" >&2
    fi
fi

echo "bench: measured in $(($(date +%s) - start)) s" >&2

awk -v json="$JSON" -v sandboxes="$SANDBOXES" -v clock="$BENCH_CLOCK" '
function fmt(v) { return v >= 100 ? sprintf("%.0f", v) : v >= 10 ? sprintf("%.1f", v) : sprintf("%.2f", v) }
# How far past a target, in percent of it.
function past(word, x) { return sprintf("%s (%s)", word, x < 0.5 ? "<1%" : sprintf("%.0f%%", x)) }
# One row of the table and of the JSON. target: "" for none, else "ratio<=X",
# "value<=X" or "value>=X"; note: words after the verdict.
function row(name, value, unit, ref, spread, target, note,    ratio, kind, limit, shown, verdict,
             shown_value, shown_ref) {
    ratio = ref > 0 ? value / ref : 0
    shown = "-"; verdict = ""
    if (target != "") {
        kind = substr(target, 1, index(target, "=") - 2)
        limit = substr(target, index(target, "=") + 1) + 0
        if (kind == "ratio") {
            shown = sprintf("<= %.2fx", limit)
            verdict = ratio <= limit ? "ok" : past("over", (ratio / limit - 1) * 100)
        } else if (index(target, ">=")) {
            shown = sprintf(">= %d %s", limit, unit)
            verdict = value >= limit ? "ok" : past("under", (1 - value / limit) * 100)
        } else {
            shown = sprintf("<= %d %s", limit, unit)
            verdict = value <= limit ? "ok" : past("over", (value / limit - 1) * 100)
        }
    }
    if (note != "")
        verdict = verdict (verdict != "" ? "; " : "") note
    # Counts print whole; a row without a reference shows none, nor a ratio.
    shown_value = unit == "n" ? sprintf("%d", value) : fmt(value)
    shown_ref = ref <= 0 ? "-" : unit == "n" ? sprintf("%d", ref) : fmt(ref)
    printf "%-40s %9s %-3s %11s %8s %7s  %-11s %s\n", name, shown_value, unit, shown_ref,
        (ref > 0 ? sprintf("%.2fx", ratio) : "-"), spread, shown, verdict
    njson++
    rows[njson] = sprintf("  {\"name\": \"%s\", \"value\": %.3f, \"unit\": \"%s\", \"reference\": %.3f, \"ratio\": %.4f}",
        name, value, unit, ref, ratio)
}
# A row whose reference could not be measured (a peer that is not installed); the
# value is "" when it could not be measured either.
function unavailable(name, value, unit) {
    printf "%-40s %9s %-3s %11s %7s %7s  %-11s\n", name, value != "" ? fmt(value) : "-", unit,
        "unavailable", "-", "-", "-"
    njson++
    rows[njson] = sprintf("  {\"name\": \"%s\", \"value\": %s, \"unit\": \"%s\", \"reference\": null, \"ratio\": null}",
        name, value != "" ? sprintf("%.3f", value) : "null", unit)
}
# The spread of a series: (max - min) / median, in percent.
function spreadof(e, n) { return (max[e, n] - min[e, n]) / med[e, n] * 100 }
function spread(e, n) { return sprintf("%.0f%%", spreadof(e, n)) }
# The larger spread of two series, for rows that compare them.
function spread2(e1, e2, n) {
    return sprintf("%.0f%%", spreadof(e1, n) > spreadof(e2, n) ? spreadof(e1, n) : spreadof(e2, n))
}
# Capsa against a peer: the series n of capsa against the series pn of the peer,
# by their medians or (stat "p99") their p99.
function peer_row(name, p, n, pn, stat, u,    v, r, differs) {
    v = !(("capsa", n) in med) ? "" : stat == "p99" ? p99["capsa", n] : med["capsa", n]
    if (!((p, pn) in med) || v == "") {
        unavailable(name, v, u)
        return
    }
    r = stat == "p99" ? p99[p, pn] : med[p, pn]
    differs = ""
    if (n ~ /^compute\./ && check[p, pn] != check["capsa", n]) {
        printf "bench: %s: capsa computed %s, %s %s\n", n, check["capsa", n], p, check[p, pn] > "/dev/stderr"
        differs = "differs"
    }
    row(name, v, u, r, n ~ /^latency/ ? "-" : spread2("capsa", p, pn), "", differs)
}
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
    printf "%-40s %9s %-3s %11s %8s %7s  %-11s %s\n", "name", "capsa", "", "reference", "ratio",
        "spread", "target", ""
    # Compute: capsa against native QuickJS, and their geometric mean.
    lc = 0; ln = 0; k = 0
    for (i = 1; i <= ncompute; i++) {
        n = order[i]
        if (!(("native", n) in med)) { printf "bench: no native figure for %s\n", n > "/dev/stderr"; bad = 1; continue }
        if (check["native", n] != check["capsa", n]) {
            printf "bench: %s: capsa computed %s, native QuickJS %s\n", n, check["capsa", n],
                check["native", n] > "/dev/stderr"
            bad = 1
        }
        row(n, med["capsa", n], "ms", med["native", n], spread("capsa", n), "ratio<=1.3", "")
        lc += log(med["capsa", n]); ln += log(med["native", n]); k++
    }
    if (k > 0) {
        g = exp(lc / k) / exp(ln / k)
        row("compute.geomean", exp(lc / k), "ms", exp(ln / k), "-", "ratio<=1.3",
            "later goal <= 1.15x: " (g <= 1.15 ? "ok" : past("over", (g / 1.15 - 1) * 100)))
    }
    # Enforcement: the metered guest against the same guest unmetered.
    lc = 0; lu = 0; k = 0
    for (i = 1; i <= ncompute; i++) {
        n = order[i]
        if (!(("unmetered", n) in med)) { printf "bench: no unmetered figure for %s\n", n > "/dev/stderr"; bad = 1; continue }
        if (check["unmetered", n] != check["capsa", n]) {
            printf "bench: %s: capsa computed %s, unmetered %s\n", n, check["capsa", n],
                check["unmetered", n] > "/dev/stderr"
            bad = 1
        }
        s = n; sub(/^compute\./, "enforcement.", s)
        row(s, med["capsa", n], "ms", med["unmetered", n], spread2("capsa", "unmetered", n), "ratio<=1.1", "")
        lc += log(med["capsa", n]); lu += log(med["unmetered", n]); k++
    }
    if (k > 0)
        row("enforcement.geomean", exp(lc / k), "ms", exp(lu / k), "-", "ratio<=1.1", "")
    # Latency: with a pool (free restores the instance in place for the next
    # sandbox), then without (each sandbox maps the image anew).
    l = "latency.pooled"
    if (("capsa", l) in med) {
        row("latency.median", med["capsa", l], "us", med["native", "latency.bare"], "-", "value<=20", "")
        row("latency.p99", p99["capsa", l], "us", p99["native", "latency.bare"], "-", "", "")
        if (("native", "latency.same_work") in med)
            row("latency.median_full_init", med["capsa", l], "us", med["native", "latency.same_work"], "-", "", "")
    }
    l = "latency.capsa"
    if (("capsa", l) in med) {
        row("latency.fresh.median", med["capsa", l], "us", med["native", "latency.bare"], "-", "value<=300", "")
        row("latency.fresh.p99", p99["capsa", l], "us", p99["native", "latency.bare"], "-", "", "")
    }
    # Python: Sandbox() + run + close against the same cycle through the C API, and
    # a run on a live sandbox against the same call made by ctypes.
    if (("capsa", "python.cycle") in med && ("capsa", "python.c_cycle") in med) {
        row("python.overhead", med["capsa", "python.cycle"] - med["capsa", "python.c_cycle"], "us", 0,
            "-", "value<=50", sprintf("Sandbox() + run + close, %.1f us, over the C API'\''s %.1f us",
                med["capsa", "python.cycle"], med["capsa", "python.c_cycle"]))
        if (("capsa", "latency.capsa") in med)
            row("python.c_cycle", med["capsa", "python.c_cycle"], "us", med["capsa", "latency.capsa"],
                "-", "", "reference: the same cycle in capsa_bench (libcapsa.a)")
        row("python.run", med["capsa", "python.run"], "us", med["capsa", "python.c_run"], "-", "",
            "reference: the same capsa_run called by ctypes")
    }
    # Tools: the round trip of a trivial inline tool against an await of an async JS
    # function in the same sandbox; 10 concurrent 100 ms tools against one.
    if (("capsa", "tools.roundtrip") in med) {
        row("tools.roundtrip", med["capsa", "tools.roundtrip"], "us", med["capsa", "tools.js_async"],
            spread("capsa", "tools.roundtrip"), "value<=2", "reference: await of an async JS function")
        if (("capsa", "tools.agent_calls") in med)
            row("tools.agent_1000_calls", med["capsa", "tools.agent_calls"], "us", 0,
                spread("capsa", "tools.agent_calls"), "",
                sprintf("per call; %.1f ms the script; capsa only: no reference has its tools",
                    med["capsa", "tools.agent_calls"]))
        row("tools.concurrent_10x100ms", med["capsa", "tools.concurrent10"], "ms", 100, "-", "value<=150",
            "reference: one call")
    }
    # Checkpoints of a session with 1 MiB of JS data and 1 MiB of files; a new sandbox
    # from a checkpoint against one from the image, measured alternately.
    if (("capsa", "checkpoint.save") in med) {
        row("checkpoint.save", med["capsa", "checkpoint.save"], "ms", 0,
            spread("capsa", "checkpoint.save"), "value<=2", "after a turn that changed one record")
        row("checkpoint.save_first", med["capsa", "checkpoint.save_first"], "ms", 0,
            spread("capsa", "checkpoint.save_first"), "value<=2", "nothing kept: every frame compressed")
        row("checkpoint.restore", med["capsa", "checkpoint.restore"], "ms", 0,
            spread("capsa", "checkpoint.restore"), "value<=2", "engine without a pool")
        row("checkpoint.restore_pooled", med["capsa", "checkpoint.restore_pooled"], "ms", 0,
            spread("capsa", "checkpoint.restore_pooled"), "value<=2", "engine with a pool of one")
        row("checkpoint.restore_new_engine", med["capsa", "checkpoint.restore_new_engine"], "ms", 0,
            spread("capsa", "checkpoint.restore_new_engine"), "value<=2", "nothing kept: every frame decompressed")
        row("checkpoint.blob", med["capsa", "checkpoint.blob"], "KiB", 2048, "-", "",
            "reference: the session'\''s 1 MiB of JSON and 1 MiB of files")
        row("checkpoint.new_from_checkpoint", med["capsa", "checkpoint.new_from_checkpoint"], "us",
            med["capsa", "checkpoint.new_from_image"], spread2("capsa", "capsa", "checkpoint.new_from_checkpoint"),
            "", "reference: a new sandbox from the image, same run")
    }
    # SQLite: node:sqlite and better-sqlite3 in the guest against the same SQLite
    # compiled natively, doing the same SQL from C; each must compute its checksum.
    ref = "sqlite.insert_group"
    split("insert_group better_insert_group", sq, " ")
    for (i = 1; i <= 2; i++) {
        n = "sqlite." sq[i]
        if (!(("capsa", n) in med))
            continue
        if (check["capsa", n] != check["native", ref])
            { printf "bench: %s: capsa computed %s, native SQLite %s\n", n, check["capsa", n],
                check["native", ref] > "/dev/stderr"; bad = 1 }
        row(n "_100k", med["capsa", n], "ms", med["native", ref], spread("capsa", n),
            "ratio<=1.5", "reference: the same SQLite built natively (gcc -O2), the same SQL from C")
    }
    # Memory: per live sandbox against per native runtime with a context.
    split("idle_private idle_rss run_private run_rss", mem, " ")
    for (i = 1; i <= 4; i++) {
        n = "memory." mem[i]
        if (("capsa", n) in med)
            row(n, med["capsa", n], "KiB", med["native", n], "-", mem[i] ~ /private/ ? "value<=1024" : "", "")
    }
    if (("capsa", "memory.count") in med)
        row("memory.count", med["capsa", "memory.count"], "n", med["native", "memory.count"], "-",
            sandboxes >= 10000 ? "value>=10000" : "", sandboxes >= 10000 ? "" : "fewer than 10000 asked: target left to make bench")
    # Peers: capsa against each, in process and as whole processes.
    np = split("node_vm quickjs_emscripten isolated_vm", peers, " ")
    for (j = 1; j <= np; j++) {
        p = peers[j]
        peer_row("peers." p ".latency.median", p, "latency.pooled", "latency.cycle", "med", "us")
        peer_row("peers." p ".latency.p99", p, "latency.pooled", "latency.cycle", "p99", "us")
        for (i = 1; i <= ncompute; i++) {
            n = order[i]; s = n; sub(/^compute\./, "", s)
            peer_row("peers." p "." s, p, n, n, "med", "ms")
        }
        peer_row("peers." p ".process", p, "process", "process", "med", "ms")
    }
    # Whole-process start of each, on one row: capsa against the fastest peer.
    if (("capsa", "process") in med) {
        best = 0; all = ""
        for (j = 1; j <= np; j++) {
            p = peers[j]
            if (!((p, "process") in med))
                continue
            all = all sprintf("%s%s %s ms", all != "" ? ", " : "", p, fmt(med[p, "process"]))
            if (best == 0 || med[p, "process"] < best)
                best = med[p, "process"]
        }
        row("process.start", med["capsa", "process"], "ms", best, spread("capsa", "process"), "value<=5",
            "reference: the fastest peer; " (all != "" ? all : "no peer"))
    }
    # The other ways in, started the same way: capsa mcp (initialize and one
    # execute over stdio) against capsa run, the Python package against the
    # interpreter alone.
    if (("capsa_mcp", "process") in med && ("capsa", "process") in med)
        row("process.mcp_start", med["capsa_mcp", "process"], "ms", med["capsa", "process"],
            spread("capsa_mcp", "process"), "", "reference: capsa run -e")
    if (("python", "process") in med && ("python_bare", "process") in med)
        row("process.python_start", med["python", "process"], "ms", med["python_bare", "process"],
            spread("python", "process"), "", "reference: python3 -c alone")
    print ""
    if (clock == "wall")
        print "Times: wall time (BENCH_CLOCK=wall). Each figure is the median of its best round."
    else {
        print "Times: in process, CPU time of the process, user and system (BENCH_CLOCK=cpu, the"
        print "  default), so that other work on a busy machine does not count; whole processes:"
        print "  wall time. Each figure is the median of its best round."
    }
    print "compute: capsa_run of the script in one sandbox, against QuickJS built natively from"
    print "  the same sources and flags evaluating it as capsa does (async body, then its jobs)."
    print "  capsa'\''s guest C is profile-guided (GUEST_PGO, trained on the JS feature tests, not"
    print "  on these scripts); the native reference is plain -O2."
    print "  compute.geomean: geometric means of the rows above (its ratio: theirs)."
    print "enforcement: the same runs against the same guest C with its fuel metering removed."
    print "latency: capsa_sandbox_new + capsa_run(\"return 1+1\") + capsa_sandbox_free from an"
    print "  engine with a pool of one instance (free puts it back to the image in place: the"
    print "  pages the run wrote are copied back), against JS_NewRuntime + JS_NewContext +"
    print "  JS_Eval(\"1+1\") + free (p99 on its own row); latency.fresh: the same without a"
    print "  pool, each sandbox mapping the image anew (its page faults and unmapping);"
    print "  median_full_init: against native QuickJS doing the console part of the guest'\''s"
    print "  setup from scratch (runtime.js, async body, JSON result); the guest'\''s image also"
    print "  holds the built-ins, web APIs and Intl, which a native setup would add to its cost."
    print "checkpoint: capsa_checkpoint and capsa_sandbox_restore (without the free) of a session"
    print "  holding 11,230 JS records (1 MiB as JSON, 4.3 MB of guest heap) and 16 files of"
    print "  64 KiB: 5.3 MB of contents, through zstd (level -1) each way; save and restore"
    print "  (pooled or not) after the previous checkpoint'\''s, whose unchanged frames the sandbox"
    print "  (saving) and the engine (restoring) kept; save_first and restore_new_engine with"
    print "  nothing kept; blob: its checkpoint'\''s size; new_from_checkpoint: capsa_sandbox_restore of a"
    print "  sandbox that ran return 1+1, then return 1+1 and free, against capsa_sandbox_new + the"
    print "  same (no pool for either), alternately in one process."
    print "sqlite: bench/sqlite/insert_group.js, node:sqlite in one sandbox (better_insert_group:"
    print "  the same through better-sqlite3): 100,000 rows inserted"
    print "  by one prepared statement in one transaction, then a grouped aggregate over them"
    print "  (:memory:), against the same SQLite (build/sqlite/sqlite3.c, same options) compiled"
    print "  natively with gcc -O2 and driven by bench/sqlite_native.c with the same SQL."
    print "python: bench/python_bench.py; overhead: Sandbox() + run(\"return 1+1\") + close()"
    print "  against capsa_sandbox_new + capsa_run + capsa_sandbox_free called by ctypes in the"
    print "  same process, alternately; python.c_cycle: that C cycle (libcapsa.so, in Python)"
    print "  against capsa_bench'\''s (libcapsa.a, in C); run: a run on a live sandbox against"
    print "  the same capsa_run called by ctypes."
    printf "memory: %d sandboxes alive at once, per sandbox: the process'\''s private dirty memory\n", sandboxes
    print "  and RSS (smaps_rollup) before any run (idle) and after return 1+1 in each (run),"
    print "  against as many native runtimes with a context, idle and after 1+1. Image pages"
    print "  that all sandboxes only read are shared, not private; idle ones have their own"
    print "  copies of the pages a run writes (learned from a first sandbox, run and freed)."
    print "  count: sandboxes created."
    print "  agent_1000_calls: bench/tool_calls.js, 1,000 awaited calls of an inline tool with"
    print "  small JSON arguments, each result checked: time per call (the script'\''s in the note)."
    print "peers: capsa'\''s figure against Node.js'\''s vm module, quickjs-emscripten and isolated-vm:"
    print "  latency: new context + 1+1 + dispose (node: the context is left to the garbage"
    print "  collector; isolated-vm: a new isolate and context) against capsa'\''s pooled cycle;"
    print "  compute scripts: the script as a global script in one context (node'\''s CPU time"
    print "  counts its compiler and collector threads); process: a whole process creating one"
    print "  sandbox and printing 1+1 (capsa run -e; node -e with vm.runInNewContext; node with"
    print "  quickjs-emscripten or isolated-vm); process.start: capsa'\''s against the fastest"
    print "  peer'\''s, every peer'\''s in the note; process.mcp_start: capsa mcp answering"
    print "  initialize and one execute over stdio until its input ends, against capsa run -e;"
    print "  process.python_start: python3 -c with Sandbox().run(), against python3 -c alone."
    print "date_intl: QuickJS has no Intl; capsa'\''s is the guest'\''s own, in JS (guest/intl.js),"
    print "  and native QuickJS and quickjs-emscripten evaluate that same file (untimed) before"
    print "  the scripts, so its rows compare the same JS work; Node.js and isolated-vm use ICU."
    print "spread: (max - min) / median of the samples kept: capsa'\''s on compute rows, the larger"
    print "  of the two series on enforcement and peer rows."
    printf "[\n" > json
    for (i = 1; i <= njson; i++)
        printf "%s%s\n", rows[i], i < njson ? "," : "" > json
    printf "]\n" > json
    close(json)
    print "figures written to " json
    exit bad
}' "$raw"
