#!/bin/sh
# The capsa serve rows of make bench: one replica over a redis-server of its own
# (a free loopback port, a temporary directory, no persistence), and the same over
# a dir: store, each timed by bench/serve_client.py over one kept-alive HTTP
# connection: session creation, a run of a small script on a warm session (loaded
# in the replica: lease, run, checkpoint and compare-and-set write-back), and a
# directory listing; median and p99 against the targets of the serve issue
# (a warm run <= 3 ms, a creation <= 2 ms, with Redis). A target missed is
# reported, not failed. Stops what it starts.
#   BENCH_CAPSA=build/capsa BENCH_SERVE_JSON=build/bench-serve.json \
#   BENCH_SERVE_REQUESTS=1000 sh bench/serve.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
capsa=${BENCH_CAPSA:-build/capsa}
json=${BENCH_SERVE_JSON:-build/bench-serve.json}
n=${BENCH_SERVE_REQUESTS:-1000}
tmp=$(mktemp -d)
redis_pid=""
serve_pid=""
cleanup() {
    for p in $serve_pid $redis_pid; do
        kill "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# bench_store NAME URL: a replica over URL, timed; its rows go to $tmp/raw.
bench_store() {
    rm -f "$tmp/serve.err" # not left to the redirection, which the child does later
    "$capsa" serve --http 127.0.0.1:0 --store "$2" --max-sessions 1000000 2>"$tmp/serve.err" &
    serve_pid=$!
    port=""
    for _ in $(seq 1 100); do
        port=$(sed -n 's/^capsa serve: serving http:\/\/127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$tmp/serve.err")
        [ -n "$port" ] && break
        sleep 0.05
    done
    if [ -z "$port" ]; then
        echo "bench: capsa serve did not start:" >&2
        cat "$tmp/serve.err" >&2
        exit 1
    fi
    python3 "$here/serve_client.py" 127.0.0.1 "$port" "$n" | sed "s/^serve\./serve.$1./" >>"$tmp/raw"
    kill "$serve_pid"
    wait "$serve_pid" 2>/dev/null || true
    serve_pid=""
}

: >"$tmp/raw"
if command -v redis-server >/dev/null 2>&1; then
    rport=$(free_port)
    mkdir -p "$tmp/redis"
    redis-server --port "$rport" --bind 127.0.0.1 --dir "$tmp/redis" --save '' --appendonly no \
        >"$tmp/redis.log" 2>&1 &
    redis_pid=$!
    for _ in $(seq 1 100); do
        redis-cli -p "$rport" ping >/dev/null 2>&1 && break
        sleep 0.05
    done
    bench_store redis "redis://127.0.0.1:$rport/0"
else
    echo "bench: no redis-server (deps/install.sh): the Redis rows are left out" >&2
fi
bench_store dir "dir:$tmp/sessions"

awk -v json="$json" '
{ med[$1] = $3; p99[$1] = $4; unit[$1] = $2; order[++k] = $1 }
END {
    limit["serve.redis.run.warm"] = 3000; limit["serve.redis.create"] = 2000
    printf "\n%-34s %10s %10s  %s\n", "capsa serve (HTTP, one replica)", "median", "p99", "target"
    printf "[\n" > json
    for (i = 1; i <= k; i++) {
        name = order[i]; met = ""
        if (name in limit) met = sprintf("<= %d us %s", limit[name], med[name] <= limit[name] ? "met" : "missed")
        printf "%-34s %10.1f %10.1f  %s\n", name " (" unit[name] ")", med[name], p99[name], met
        printf "  {\"name\": \"%s\", \"value\": %.3f, \"unit\": \"%s\", \"p99\": %.3f}%s\n", name, med[name],
            unit[name], p99[name], i < k ? "," : "" > json
    }
    printf "]\n" > json
    print "wall time of each request over one kept-alive connection (Python http.client), after"
    print "  unmeasured ones; create: POST /v1/sessions {}; run.warm: POST .../run of a counter on a"
    print "  session the replica holds loaded; files.list: GET .../files/workspace. redis: a"
    print "  redis-server on loopback without persistence; dir: files with fsync and rename."
}' "$tmp/raw"
