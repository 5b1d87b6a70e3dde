#!/bin/sh
# The MCP rows of make bench: bench/peers/mcp.mjs drives capsa mcp and the
# reference (a minimal server built with the same SDK in Node.js, mcp_ref.mjs)
# with the same SDK client in the same run, and bench/peers/mcp_client.mjs times
# an upstream MCP tool called from a sandbox and by the SDK's client; this prints
# them as a table with the ratio of capsa to the reference and the targets of the
# MCP issue, and writes them as JSON. A target missed is reported, not failed.
#   BENCH_CAPSA=build/capsa BENCH_MCP_NODE=build/mcp-node BENCH_MCP_JSON=... \
#   BENCH_MCP_CALLS=1000 BENCH_MCP_SESSIONS=100 sh bench/mcp.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
capsa=$(cd "$(dirname "${BENCH_CAPSA:-build/capsa}")" && pwd)/$(basename "${BENCH_CAPSA:-build/capsa}")
node_dir=$(cd "${BENCH_MCP_NODE:-build/mcp-node}" && pwd)
json=${BENCH_MCP_JSON:-build/bench-mcp.json}
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT INT TERM
if ! MCP_NODE_DIR=$node_dir node "$here/peers/mcp.mjs" "$capsa" "${BENCH_MCP_CALLS:-1000}" \
    "${BENCH_MCP_SESSIONS:-100}" >"$raw"; then
    echo "bench: the MCP benchmark failed" >&2
    exit 1
fi
# The MCP client's row: an upstream tool called from a sandbox, and by the SDK.
client_dir=${BENCH_MCP_CLIENT_NODE:-$(dirname "$node_dir")/mcp-client-node}
if [ -d "$client_dir/node_modules/@modelcontextprotocol/server-everything" ]; then
    if ! MCP_CLIENT_NODE_DIR=$(cd "$client_dir" && pwd) node "$here/peers/mcp_client.mjs" "$capsa" \
        "${BENCH_MCP_CALLS:-1000}" >>"$raw"; then
        echo "bench: the MCP client benchmark failed" >&2
        exit 1
    fi
else
    echo "bench: no $client_dir (tests/mcp_client/deps.sh): the MCP client row is left out" >&2
fi
awk -v json="$json" '
{ v[$1, $2] = $4; p99[$1, $2] = $7; unit[$2] = $3; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
END {
    target["mcp.stdio.call"] = "<= 1000 us"; limit["mcp.stdio.call"] = 1000
    target["mcp.http.call"] = "<= 2000 us"; limit["mcp.http.call"] = 2000
    target["mcp.http.sessions_held"] = ">= 100 n"
    printf "\n%-34s %10s %10s %10s %8s  %s\n", "MCP (same SDK client)", "capsa", "p99", "reference", "ratio", "target"
    printf "[\n" > json
    for (i = 1; i <= n; i++) {
        k = order[i]; c = v["capsa", k]; r = v["reference", k]
        ratio = r > 0 ? c / r : 0
        met = ""
        if (k in limit) met = c <= limit[k] ? "met" : "missed"
        if (k == "mcp.http.sessions_held") met = c >= 100 ? "met" : "missed"
        printf "%-34s %10.1f %10.1f %10.1f %7.2fx  %s %s\n", k " (" unit[k] ")", c, p99["capsa", k], r, ratio,
            (k in target) ? target[k] : "", met
        printf "  {\"name\": \"%s\", \"value\": %.3f, \"unit\": \"%s\", \"p99\": %.3f, \"reference\": %.3f, \"ratio\": %.4f}%s\n",
            k, c, unit[k], p99["capsa", k], r, ratio, i < n ? "," : "" > json
    }
    printf "]\n" > json
    print "calls: tools/call of `return 1`, median and p99 of the round trip (wall, the SDK client"
    print "  included), after 50 unmeasured; sessions: that many HTTP sessions opened and held, each"
    print "  after one call, all answering again at the end; memory per session: the server'\''s PSS and"
    print "  RSS (smaps_rollup) after them minus before, divided by their number. reference: a minimal"
    print "  server with the same SDK in Node.js whose execute runs the code in a vm context (no sandbox)."
    if (("capsa", "mcp.client.call") in v) {
        printf "mcp.client.call: a call of server-everything'\''s echo (stdio) from a sandbox script (policy, audit,\n"
        printf "  capsa'\''s MCP client), timed in the script, against the SDK'\''s client calling it from Node.js:\n"
        printf "  capsa adds %.1f us a call (median; p99 %.0f us against %.0f us).\n", v["capsa", "mcp.client.call"] - v["reference", "mcp.client.call"], p99["capsa", "mcp.client.call"], p99["reference", "mcp.client.call"]
    }
}' "$raw"
