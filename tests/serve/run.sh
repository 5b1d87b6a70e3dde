#!/bin/sh
# The capsa serve suite: a real `capsa serve` on a free loopback port over a
# dir: store in a temporary directory, driven with curl and checked with jq.
# Every endpoint and every error status, two tenants, bad bodies, path
# traversal in files/ paths, two concurrent runs on one session (exactly one
# 409), a session surviving a restart of the server, a stored session from
# another build, a replica killed mid-run (its lease lapses, its run is not
# committed), /mcp on the stored sessions over two replicas of one store (an MCP
# session made on one is served by the other, also once the first is stopped;
# a busy session answers a JSON-RPC error), and the same over a redis-server of
# its own (then stopped: 503).
# Prints each check and "N passed, N failed". Stops what it starts.
set -u
BUILD=${BUILD:-build}
case $BUILD in
/*) capsa="$BUILD/capsa" ;;
*) capsa="$(pwd)/$BUILD/capsa" ;;
esac
pass=0
fail=0
tmp=$(mktemp -d)
pid=""
redis_pid=""
stop() {
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
        bad "the server (pid $pid) was still running when it was to be stopped" "$(tail -n 5 "$tmp/server.err")"
    fi
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        pid=""
    fi
}
other_pid=""
trap 'stop; [ -n "$other_pid" ] && kill "$other_pid" 2>/dev/null; [ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null; rm -rf "$tmp"' EXIT

ok() {
    pass=$((pass + 1))
    echo "ok   $1"
}
bad() {
    fail=$((fail + 1))
    echo "FAIL $1"
    shift
    for l in "$@"; do echo "     $l"; done
}
# expect NAME WANT GOT
expect() {
    if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "expected: $2" "got:      $3"; fi
}
# expect_in NAME NEEDLE TEXT
expect_in() {
    case $3 in
    *"$2"*) ok "$1" ;;
    *) bad "$1" "expected to contain: $2" "got: $(printf '%s' "$3" | head -c 600)" ;;
    esac
}

A=tenant-a-0123456789abcdef
B=tenant-b-0123456789abcdef
printf '# the tenants\n%s\n\n%s\n' "$A" "$B" >"$tmp/tokens"
printf '%s\n' '{"tools": [{"name": "demo/echo", "description": "Echoes its arguments.", "command": ["cat"]}]}' >"$tmp/tools.json"
printf '%s\n' '{"capabilities": [{"pattern": "demo/*", "max_calls": 100}]}' >"$tmp/policy.json"
store="$tmp/store"

# start [OPTIONS...]: a server on a free port; sets $url.
start() {
    # The file is emptied here, not by the redirection: that happens in the
    # child, maybe after the loop below has read the last server's port.
    rm -f "$tmp/server.err"
    "$capsa" serve --http 127.0.0.1:0 --store "dir:$store" --token-file "$tmp/tokens" \
        --tools "$tmp/tools.json" --timeout 3s --memory 128M --max-body 64K "$@" \
        2>"$tmp/server.err" &
    pid=$!
    url=""
    for _ in $(seq 1 100); do
        port=$(sed -n 's/.*serving http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/server.err")
        if [ -n "$port" ]; then
            url="http://127.0.0.1:$port"
            return 0
        fi
        sleep 0.05
    done
    echo "the server did not start:"
    cat "$tmp/server.err"
    exit 1
}

# req TOKEN METHOD PATH [CURL ARGS...]: the status; the body in $tmp/body,
# the headers in $tmp/headers. TOKEN - : none.
req() {
    tok=$1
    m=$2
    p=$3
    shift 3
    if [ "$tok" = - ]; then
        curl -s --path-as-is -o "$tmp/body" -D "$tmp/headers" -w '%{http_code}' -X "$m" "$@" "$url$p"
    else
        curl -s --path-as-is -o "$tmp/body" -D "$tmp/headers" -w '%{http_code}' -X "$m" \
            -H "Authorization: Bearer $tok" "$@" "$url$p"
    fi
}
body() { cat "$tmp/body"; }
code() { jq -r '.error.code' "$tmp/body" 2>/dev/null; }
# run TOKEN ID CODE [LANGUAGE]: POST .../run; the status.
run() {
    jq -n --arg c "$3" --arg l "${4:-javascript}" '{code: $c, language: $l}' >"$tmp/run.json"
    req "$1" POST "/v1/sessions/$2/run" --data-binary "@$tmp/run.json"
}

# ---- the command line -----------------------------------------------------------
"$capsa" serve --help >"$tmp/help" 2>&1
expect "serve --help exits 0" 0 $?
expect_in "serve --help names the endpoints" "/v1/sessions/ID/run" "$(cat "$tmp/help")"
"$capsa" serve >/dev/null 2>"$tmp/e"
expect "serve without --http is a usage error" 2 $?
expect_in "and says so" "--http [HOST:]PORT is required" "$(cat "$tmp/e")"
"$capsa" serve --http 0.0.0.0:0 --store "dir:$tmp/x" >/dev/null 2>"$tmp/e"
expect "a non-loopback address without --token-file is refused" 2 $?
expect_in "saying why" "not a loopback address: without --token-file" "$(cat "$tmp/e")"
printf 'short\n' >"$tmp/short"
"$capsa" serve --http 127.0.0.1:0 --token-file "$tmp/short" >/dev/null 2>"$tmp/e"
expect "a short token is refused" 2 $?
expect_in "with its line" "line 1: a token must be at least 16 characters" "$(cat "$tmp/e")"
"$capsa" serve --http 127.0.0.1:0 --store "nope:x" >/dev/null 2>"$tmp/e"
expect "an unknown store URL is refused" 2 $?
expect_in "naming --store" "capsa serve: --store:" "$(cat "$tmp/e")"
"$capsa" serve --http 127.0.0.1:0 --session-ttl 0 >/dev/null 2>"$tmp/e"
expect "--session-ttl 0 is refused" 2 $?

start --max-sessions 3 --policy "$tmp/policy.json"

# ---- health, metrics, the document -------------------------------------------------
expect "GET /healthz" 200 "$(req - GET /healthz)"
expect "healthz says the store is ok" '{"status":"ok","store":"ok"}' "$(body)"
expect "GET /v1/openapi.json" 200 "$(req - GET /v1/openapi.json)"
expect "the OpenAPI document lists the run endpoint" '3.0.3 true' \
    "$(jq -r '.openapi + " " + (.paths | has("/v1/sessions/{id}/run") | tostring)' "$tmp/body")"

# ---- tenants -----------------------------------------------------------------------
expect "no token: 401" 401 "$(req - GET /v1/sessions)"
expect "as JSON, code unauthorized" unauthorized "$(code)"
expect_in "with WWW-Authenticate" "WWW-Authenticate: Bearer" "$(cat "$tmp/headers")"
expect "an unknown token: 401" 401 "$(req not-a-token-of-this-server GET /v1/sessions)"
expect "a token in another scheme: 401" 401 "$(req - GET /v1/sessions -H "Authorization: Basic $A")"

expect "POST /v1/sessions: 201" 201 "$(req "$A" POST /v1/sessions)"
id=$(jq -r .id "$tmp/body")
expect "the id is 128 bits of hex" 1 "$(printf '%s' "$id" | grep -c '^[0-9a-f]\{32\}$')"
expect "tenant B does not see A's session (GET)" 404 "$(req "$B" GET "/v1/sessions/$id")"
expect "as not_found" not_found "$(code)"
expect "nor run in it" 404 "$(run "$B" "$id" 'return 1')"
expect "nor read its files" 404 "$(req "$B" GET "/v1/sessions/$id/files/workspace")"
expect "nor write them" 404 "$(req "$B" PUT "/v1/sessions/$id/files/workspace/x" --data-binary x)"
expect "nor read its audit" 404 "$(req "$B" GET "/v1/sessions/$id/audit")"
expect "nor delete it" 404 "$(req "$B" DELETE "/v1/sessions/$id")"
expect "B's list is empty" '[]' "$(req "$B" GET /v1/sessions >/dev/null; jq -c .sessions "$tmp/body")"
expect "A's list has it" "$id" "$(req "$A" GET /v1/sessions >/dev/null; jq -r '.sessions[0].id' "$tmp/body")"

# ---- runs --------------------------------------------------------------------------
expect "a run: 200" 200 "$(run "$A" "$id" 'globalThis.n = 41; console.log("hello"); console.error("warn"); return {n: n + 1}')"
expect "its result, output and status" '{"n":42} hello
 warn
 ok true' "$(jq -r '(.result | tostring) + " " + .stdout + " " + .stderr + " " + .status + " " + (.committed | tostring)' "$tmp/body")"
expect "its audit lines" "run_start run_end" "$(jq -r '[.audit[].event] | join(" ")' "$tmp/body")"
run "$A" "$id" 'return ++n' >/dev/null
expect "the next run sees the state" 42 "$(jq -r .result "$tmp/body")"
run "$A" "$id" 'echo shell; echo $((6 * 7)) > /workspace/sh.txt' shell >/dev/null
expect "a shell run" "shell
 0 ok" "$(jq -r '.stdout + " " + (.exit_code | tostring) + " " + .status' "$tmp/body")"
run "$A" "$id" 'throw new TypeError("no")' >/dev/null
expect "a script that throws: status error, committed" 'error TypeError no true' \
    "$(jq -r '[.status, .error.name, .error.message, (.committed | tostring)] | join(" ")' "$tmp/body")"
run "$A" "$id" 'return await tools.demo.echo({q: 1})' >/dev/null
expect "a host tool of the server, allowed by its --policy" '{"q":1}' "$(jq -c .result "$tmp/body")"
run "$A" "$id" 'n = 1000; for (;;) {}' >/dev/null
expect "a run stopped by the time limit is not committed" 'timeout false' \
    "$(jq -r '.status + " " + (.committed | tostring)' "$tmp/body")"
run "$A" "$id" 'return typeof n === "number" ? n : "lost"' >/dev/null
expect "the session is as the last finished run left it" 42 "$(jq -r .result "$tmp/body")"
run "$A" "$id" 'return 12345678901234567890' >/dev/null
expect "a result past 64-bit integers is still a number, to the last digit" 12345678901234567168 "$(jq -r '.result | tostring' "$tmp/body" | awk '{ printf "%.0f", $1 }')"
expect "output that is not UTF-8 still makes JSON" 200 "$(run "$A" "$id" 'process.stdout.write(Buffer.from([0xff, 0x41]))')"
expect "with U+FFFD for the bad byte" "$(printf '\357\277\275A')" "$(jq -r .stdout "$tmp/body")"

# ---- bad requests ------------------------------------------------------------------
expect "a body that is not JSON: 400" 400 "$(req "$A" POST "/v1/sessions/$id/run" --data-binary '{"code":')"
expect "as bad_request" bad_request "$(code)"
expect "a body that is not an object: 400" 400 "$(req "$A" POST "/v1/sessions/$id/run" --data-binary '[1]')"
expect "a run without code: 400" 400 "$(req "$A" POST "/v1/sessions/$id/run" --data-binary '{}')"
expect "an unknown language: 400" 400 "$(req "$A" POST "/v1/sessions/$id/run" --data-binary '{"code":"1","language":"python"}')"
expect "an unknown field: 400" 400 "$(req "$A" POST "/v1/sessions/$id/run" --data-binary '{"code":"1","x":1}')"
expect "a duplicate key: 400" 400 "$(req "$A" POST "/v1/sessions/$id/run" --data-binary '{"code":"1","code":"2"}')"
head -c 70000 /dev/zero | tr '\0' 'a' >"$tmp/huge"
expect "a body over --max-body: 413" 413 "$(req "$A" POST "/v1/sessions/$id/run" --data-binary "@$tmp/huge")"
expect "as too_large" too_large "$(code)"
expect "a huge file PUT: 413" 413 "$(req "$A" PUT "/v1/sessions/$id/files/workspace/huge" --data-binary "@$tmp/huge")"
expect "a malformed id: 404" 404 "$(run "$A" "not-an-id" 'return 1')"
expect "an unknown session: 404" 404 "$(run "$A" 0123456789abcdef0123456789abcdef 'return 1')"
expect "an unknown endpoint: 404" 404 "$(req "$A" GET "/v1/sessions/$id/nope")"
expect "an unknown path: 404" 404 "$(req "$A" GET /v2)"
expect "a method the path does not take: 405" 405 "$(req "$A" PUT "/v1/sessions/$id/run")"
expect "PATCH: 405" 405 "$(req "$A" PATCH "/v1/sessions")"
expect "as method_not_allowed" method_not_allowed "$(code)"
expect "a bad page size: 400" 400 "$(req "$A" GET "/v1/sessions?limit=0")"
expect "a bad cursor: 400" 400 "$(req "$A" GET "/v1/sessions?after=../x")"

# ---- limits and policies -------------------------------------------------------------
expect "limits within the maximums: 201" 201 "$(req "$A" POST /v1/sessions --data-binary '{"limits":{"memory":67108864,"timeout":1,"disk":1048576,"max_output":1000}}')"
lid=$(jq -r .id "$tmp/body")
req "$A" GET "/v1/sessions/$lid" >/dev/null
expect "GET /v1/sessions/ID shows them" '67108864 1 1048576 1000' \
    "$(jq -r '.limits | [.memory, .timeout, .disk, .max_output] | map(tostring) | join(" ")' "$tmp/body")"
expect "memory over the server's maximum: 422" 422 "$(req "$A" POST /v1/sessions --data-binary '{"limits":{"memory":1073741824}}')"
expect "as invalid, naming it" 'invalid limits.memory is over the server'"'"'s maximum (134217728 bytes)' "$(jq -r '.error.code + " " + .error.message' "$tmp/body")"
expect "no time limit when the server has one: 422" 422 "$(req "$A" POST /v1/sessions --data-binary '{"limits":{"timeout":0}}')"
expect "a time limit under a millisecond: 201" 201 "$(req "$A" POST /v1/sessions --data-binary '{"limits":{"timeout":0.0001}}')"
tid=$(jq -r .id "$tmp/body")
expect "is a millisecond, not none (nor over the maximum)" 0.001 \
    "$(req "$A" GET "/v1/sessions/$tid" >/dev/null; jq -r .limits.timeout "$tmp/body")"
req "$A" DELETE "/v1/sessions/$tid" >/dev/null
expect "an unknown limit: 422" 422 "$(req "$A" POST /v1/sessions --data-binary '{"limits":{"cpus":2}}')"
expect "a limit that is not a number: 422" 422 "$(req "$A" POST /v1/sessions --data-binary '{"limits":{"memory":"1G"}}')"
expect "a bad policy: 422" 422 "$(req "$A" POST /v1/sessions --data-binary '{"policy":{"capabilities":[{"patern":"x"}]}}')"
expect_in "naming the field" "policy:" "$(jq -r .error.message "$tmp/body")"
expect "a policy of the session's own: 201" 201 "$(req "$A" POST /v1/sessions --data-binary '{"policy":{"capabilities":[]}}')"
pid2=$(jq -r .id "$tmp/body")
run "$A" "$pid2" 'try { await tools.demo.echo({}); return "allowed" } catch (e) { return e.code }' >/dev/null
expect "replaces the server's default" permission_denied "$(jq -r .result "$tmp/body")"
expect "the session's output limit holds" 1000 "$(run "$A" "$lid" 'console.log("x".repeat(5000))' >/dev/null; jq -r '.stdout | length' "$tmp/body" | awk '{ print ($1 <= 1100 && $1 >= 1000) ? 1000 : $1 }')"
expect "the tenant's 4th session: 429" 429 "$(req "$A" POST /v1/sessions)"
expect "as too_many_sessions" too_many_sessions "$(code)"
expect "another tenant has its own count" 201 "$(req "$B" POST /v1/sessions)"
bid=$(jq -r .id "$tmp/body")

# ---- files ------------------------------------------------------------------------
expect "PUT a file: 204" 204 "$(req "$A" PUT "/v1/sessions/$id/files/workspace/dir/a.txt" --data-binary 'hello file')"
run "$A" "$id" 'return fs.readFileSync("/workspace/dir/a.txt", "utf8")' >/dev/null
expect "the code sees it" '"hello file"' "$(jq -c .result "$tmp/body")"
expect "GET it: 200" 200 "$(req "$A" GET "/v1/sessions/$id/files/workspace/dir/a.txt")"
expect "its raw bytes" "hello file" "$(body)"
printf 'a\000b\377' >"$tmp/bin"
req "$A" PUT "/v1/sessions/$id/files/workspace/bin" --data-binary "@$tmp/bin" >/dev/null
req "$A" GET "/v1/sessions/$id/files/workspace/bin" >/dev/null
expect "binary bytes round-trip" "$(od -An -tx1 "$tmp/bin")" "$(od -An -tx1 "$tmp/body")"
expect "GET a directory: 200" 200 "$(req "$A" GET "/v1/sessions/$id/files/workspace/")"
expect "lists it as JSON" 'bin:file:4 dir:directory:1 sh.txt:file:3' \
    "$(jq -r 'map(.name + ":" + .type + ":" + (.size | tostring)) | join(" ")' "$tmp/body")"
expect "with modification times" 1 "$(jq -r '.[0].modified | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T")' "$tmp/body" | grep -c true)"
expect "a file written by a shell run" "42" "$(req "$A" GET "/v1/sessions/$id/files/workspace/sh.txt" >/dev/null; body)"
expect "GET a missing file: 404" 404 "$(req "$A" GET "/v1/sessions/$id/files/workspace/none")"
expect "PUT under the read-only root: 422" 422 "$(req "$A" PUT "/v1/sessions/$id/files/etc/x" --data-binary x)"
expect "PUT over the audit log: 422" 422 "$(req "$A" PUT "/v1/sessions/$id/files/log/actions.jsonl" --data-binary x)"
expect "DELETE of the audit log: 422" 422 "$(req "$A" DELETE "/v1/sessions/$id/files/log/actions.jsonl")"
expect "PUT into /tools: 422" 422 "$(req "$A" PUT "/v1/sessions/$id/files/tools/x.d.ts" --data-binary x)"
expect "DELETE of /workspace itself: 422" 422 "$(req "$A" DELETE "/v1/sessions/$id/files/workspace")"
expect "PUT into /tmp: 204" 204 "$(req "$A" PUT "/v1/sessions/$id/files/tmp/t" --data-binary t)"
expect "DELETE a file: 204" 204 "$(req "$A" DELETE "/v1/sessions/$id/files/workspace/bin")"
expect "then it is gone" 404 "$(req "$A" GET "/v1/sessions/$id/files/workspace/bin")"
expect "DELETE a missing file: 404" 404 "$(req "$A" DELETE "/v1/sessions/$id/files/workspace/bin")"
for p in "workspace/../etc/passwd" "../workspace/a" "workspace//dir/a.txt" "workspace/./dir" \
    "workspace/%2e%2e/x" "workspace/%2E%2e/x" "workspace/a%00b" "workspace/%zz" "workspace/%2" \
    "workspace%2f..%2f..%2fx"; do
    expect "a traversal or malformed path ($p): 400" 400 "$(req "$A" GET "/v1/sessions/$id/files/$p")"
done
expect "and PUT with one: 400" 400 "$(req "$A" PUT "/v1/sessions/$id/files/workspace/../x" --data-binary x)"
expect_in "saying what is wrong" "'..'" "$(jq -r .error.message "$tmp/body")"
expect "an encoded name is decoded: 204" 204 "$(req "$A" PUT "/v1/sessions/$id/files/workspace/a%20b.txt" --data-binary sp)"
run "$A" "$id" 'return fs.readFileSync("/workspace/a b.txt", "utf8")' >/dev/null
expect "to the name the code sees" '"sp"' "$(jq -c .result "$tmp/body")"

# ---- audit, description, list ---------------------------------------------------------
req "$A" GET "/v1/sessions/$id/audit?limit=3" >/dev/null
expect "audit: a page of 3 and a cursor" '3 3' "$(jq -r '(.entries | length | tostring) + " " + (.next | tostring)' "$tmp/body")"
req "$A" GET "/v1/sessions/$id/audit?after=3&limit=1000" >/dev/null
expect "the next page holds the tool call" 1 "$(jq '[.entries[] | select(.event == "tool_call" and .tool == "demo.echo")] | length' "$tmp/body")"
expect "bad audit paging: 400" 400 "$(req "$A" GET "/v1/sessions/$id/audit?after=-1")"
req "$A" GET "/v1/sessions/$id" >/dev/null
runs=$(jq -r .runs "$tmp/body")
expect "the session's description" "$id true true" "$(jq -r '[.id, (.created | test("Z$") | tostring), (.last_run | test("Z$") | tostring)] | join(" ")' "$tmp/body")"
expect "counts its finished runs" 1 "$([ "$runs" -ge 8 ] && echo 1)"
expect "and its usage" 1 "$(jq -r '.usage.tool_calls' "$tmp/body")"
req "$A" GET "/v1/sessions?limit=1" >/dev/null
first=$(jq -r '.sessions[0].id' "$tmp/body")
next=$(jq -r .next "$tmp/body")
expect "a page of one session with a cursor" "$first" "$next"
req "$A" GET "/v1/sessions?limit=100&after=$next" >/dev/null
expect "the rest after the cursor" 2 "$(jq '.sessions | length' "$tmp/body")"
expect "and no cursor after the last" null "$(jq -r .next "$tmp/body")"

# ---- two runs at once -------------------------------------------------------------------
jq -n '{code: "{ const t = Date.now(); while (Date.now() - t < 1500) {} } return 1"}' >"$tmp/slow.json"
curl -s -o "$tmp/c1" -D "$tmp/h1" -w '%{http_code}' -H "Authorization: Bearer $A" --data-binary "@$tmp/slow.json" \
    "$url/v1/sessions/$id/run" >"$tmp/s1" &
c1=$!
curl -s -o "$tmp/c2" -D "$tmp/h2" -w '%{http_code}' -H "Authorization: Bearer $A" --data-binary "@$tmp/slow.json" \
    "$url/v1/sessions/$id/run" >"$tmp/s2" &
c2=$!
wait "$c1" "$c2"
expect "two concurrent runs on one session: one 200 and one 409" "200 409" \
    "$(printf '%s\n%s\n' "$(cat "$tmp/s1")" "$(cat "$tmp/s2")" | sort | tr '\n' ' ' | sed 's/ $//')"
expect_in "the 409 is conflict" '"code":"conflict"' "$(cat "$tmp/c1" "$tmp/c2")"
expect_in "with Retry-After" "Retry-After: 1" "$(cat "$tmp/h1" "$tmp/h2")"
expect "a run on another session meanwhile is not held up" 200 "$(run "$A" "$lid" 'return 1')"

# ---- metrics ----------------------------------------------------------------------------
req - GET /metrics >/dev/null
expect_in "metrics: runs by status" 'capsa_runs_total{status="timeout"} 1' "$(body)"
expect_in "the run time histogram" 'capsa_run_seconds_bucket{le="+Inf"}' "$(body)"
expect_in "denials" 'capsa_denials_total 1' "$(body)"
expect_in "store latency" 'capsa_store_seconds_count' "$(body)"
expect_in "loaded sessions" 'capsa_sessions_live' "$(body)"

# ---- /mcp on the same port ------------------------------------------------------------
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
# mcp TOKEN SID BODY: POST /mcp in session SID (-: none); the status, the body in $tmp/body.
mcp() {
    if [ "$2" = - ]; then
        req "$1" POST /mcp -H 'Content-Type: application/json' \
            -H 'Accept: application/json, text/event-stream' --data-binary "$3"
    else
        req "$1" POST /mcp -H 'Content-Type: application/json' \
            -H 'Accept: application/json, text/event-stream' -H "Mcp-Session-Id: $2" \
            -H 'MCP-Protocol-Version: 2025-11-25' --data-binary "$3"
    fi
}
# call TOKEN SID CODE: a tools/call of execute; the status.
call() {
    jq -cn --arg c "$3" '{jsonrpc: "2.0", id: 2, method: "tools/call", params: {name: "execute", arguments: {code: $c}}}' >"$tmp/call.json"
    mcp "$1" "$2" "$(cat "$tmp/call.json")"
}
expect "/mcp without a token: 401" 401 "$(mcp - - "$init")"
expect "an /mcp initialize makes a stored session: it counts toward --max-sessions (429)" \
    "429 too_many_sessions" "$(mcp "$A" - "$init") $(code)"

# ---- delete -----------------------------------------------------------------------------
expect "DELETE a session: 204" 204 "$(req "$A" DELETE "/v1/sessions/$lid")"
expect "then GET: 404" 404 "$(req "$A" GET "/v1/sessions/$lid")"
expect "and run: 404" 404 "$(run "$A" "$lid" 'return 1')"
expect "and DELETE again: 404" 404 "$(req "$A" DELETE "/v1/sessions/$lid")"

# ---- a restart ------------------------------------------------------------------------
stop
start --lease-wait 5s
run "$A" "$id" 'return [n, fs.readFileSync("/workspace/dir/a.txt", "utf8"), await tools.demo.echo({after: 1})]' >/dev/null
expect "after a restart the session has its state, files and tools" '[42,"hello file",{"after":1}]' "$(jq -c .result "$tmp/body")"
expect "and B's session is still B's" 404 "$(req "$A" GET "/v1/sessions/$bid")"
expect "only B's" 200 "$(req "$B" GET "/v1/sessions/$bid")"
curl -s -o "$tmp/c1" -w '%{http_code}' -H "Authorization: Bearer $A" --data-binary "@$tmp/slow.json" \
    "$url/v1/sessions/$id/run" >"$tmp/s1" &
c1=$!
curl -s -o "$tmp/c2" -w '%{http_code}' -H "Authorization: Bearer $A" --data-binary "@$tmp/slow.json" \
    "$url/v1/sessions/$id/run" >"$tmp/s2" &
c2=$!
wait "$c1" "$c2"
expect "with --lease-wait the second run waits its turn" "200 200 1 1" \
    "$(cat "$tmp/s1") $(cat "$tmp/s2") $(jq -r .result "$tmp/c1") $(jq -r .result "$tmp/c2")"

# ---- a record edited by whoever can write the store ---------------------------------------
# Its metadata without "created" and with the largest run count, and a new version
# (so that no sandbox kept loaded stands in for it).
req "$A" POST /v1/sessions >/dev/null
eid=$(jq -r .id "$tmp/body")
erec="$store/records/s:$eid"
if [ -f "$erec" ]; then
    { head -n 1 "$erec" | awk '{ $3 = $3 + 1; print }'
      sed -n 2p "$erec"
      sed -n 3p "$erec" | sed 's/"created":"[^"]*",//; s/"runs":[0-9]*/"runs":9223372036854775807/'
      tail -n +4 "$erec"; } >"$tmp/erec" && cat "$tmp/erec" >"$erec"
    expect "a stored record without \"created\": GET 200" 200 "$(req "$A" GET "/v1/sessions/$eid")"
    expect "showing it, with created null" true \
        "$(jq --arg e "$eid" '.id == $e and .created == null and .runs == 9223372036854775807' "$tmp/body")"
    expect "listed too" 1 "$(req "$A" GET "/v1/sessions?limit=100" >/dev/null; jq --arg e "$eid" '[.sessions[] | select(.id == $e)] | length' "$tmp/body")"
    expect "a run on it: 200" 200 "$(run "$A" "$eid" 'return 1')"
    req "$A" GET "/v1/sessions/$eid" >/dev/null
    expect "its run count held at the largest integer, not overflowed" '"runs":9223372036854775807' \
        "$(grep -o '"runs":[-0-9]*' "$tmp/body")"
    req "$A" DELETE "/v1/sessions/$eid" >/dev/null
else
    bad "the dir store keeps a session as records/s:ID" "no $erec"
fi

# ---- a session saved by another build -------------------------------------------------
rec="$store/records/s:$pid2"
off=$(grep -abo CAPSACKP "$rec" | head -n 1 | cut -d: -f1)
if [ -n "$off" ]; then
    printf '\377' | dd of="$rec" bs=1 seek=$((off + 20)) conv=notrunc 2>/dev/null
    expect "a run on it: 409" 409 "$(run "$A" "$pid2" 'return 1')"
    expect "as incompatible_session" incompatible_session "$(code)"
    expect_in "saying it was saved by another build" "saved by another build of capsa" "$(jq -r .error.message "$tmp/body")"
    expect "its files too: 409" 409 "$(req "$A" GET "/v1/sessions/$pid2/files/workspace")"
    expect "and it can still be deleted" 204 "$(req "$A" DELETE "/v1/sessions/$pid2")"
else
    bad "the dir store's record of a session holds its checkpoint" "no CAPSACKP in $rec"
fi
kill -0 "$pid" 2>/dev/null
expect "the server is still up" 0 $?

# ---- a replica killed mid-run ----------------------------------------------------------
run "$A" "$id" 'globalThis.before_kill = 1; return 1' >/dev/null
jq -n '{code: "globalThis.before_kill = 2; { const t = Date.now(); while (Date.now() - t < 2500) {} } return 1"}' >"$tmp/kill.json"
curl -s -o /dev/null -H "Authorization: Bearer $A" --data-binary "@$tmp/kill.json" "$url/v1/sessions/$id/run" &
c1=$!
sleep 0.5
kill -9 "$pid"
wait "$pid" 2>/dev/null
pid=""
wait "$c1" 2>/dev/null
killed_at=$(date +%s)
start
expect "right after, the dead replica's lease still holds the session: 409" 409 "$(run "$A" "$id" 'return before_kill')"
status=409
while [ "$status" = 409 ] && [ $(($(date +%s) - killed_at)) -lt 30 ]; do
    sleep 1
    status=$(run "$A" "$id" 'return before_kill')
done
expect "the lease lapses within 30 s (here $(($(date +%s) - killed_at)) s)" 200 "$status"
expect "and the run that did not finish was not committed" 1 "$(jq -r .result "$tmp/body")"
stop

# ---- /mcp on the stored sessions: two replicas over one store ---------------------------
start --policy "$tmp/policy.json"
pid_a=$pid url_a=$url
other_pid=$pid
pid=""
start --policy "$tmp/policy.json"
pid_b=$pid url_b=$url
url=$url_a
expect "initialize on replica A: 200" 200 "$(mcp "$A" - "$init")"
msid=$(sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *\([0-9a-f]*\).*/\1/p' "$tmp/headers")
expect "its Mcp-Session-Id is a session id" 32 "${#msid}"
expect "notifications/initialized: 202" 202 "$(mcp "$A" "$msid" '{"jsonrpc":"2.0","method":"notifications/initialized"}')"
call "$A" "$msid" 'globalThis.x = 41; fs.writeFileSync("/workspace/m.txt", "from A"); return await tools.demo.echo({m: 6 * 7})' >/dev/null
expect "a tools/call on A runs with the server's tools and policy" '{"m":42}' "$(jq -c .result.structuredContent.result "$tmp/body")"
url=$url_b
expect "replica B answers a tools/call of the session made on A" 200 "$(call "$A" "$msid" 'return [x + 1, fs.readFileSync("/workspace/m.txt", "utf8")]')"
expect "and sees the state A's call left" '[42,"from A"]' "$(jq -c .result.structuredContent.result "$tmp/body")"
call "$A" "$msid" 'x = 100; console.log("out on B"); return x' >/dev/null
expect_in "B's call gets its console output" "out on B" "$(jq -r '.result.content[0].text' "$tmp/body")"
mcp "$A" "$msid" '{"jsonrpc":"2.0","id":3,"method":"tools/list"}' >/dev/null
expect "tools/list on B" execute "$(jq -r '.result.tools[0].name' "$tmp/body")"
mcp "$A" "$msid" '{"jsonrpc":"2.0","id":4,"method":"resources/list"}' >/dev/null
expect_in "resources/list on B lists A's file" "m.txt" "$(jq -r '.result.resources[].uri' "$tmp/body")"
expect "the MCP session is /v1/sessions/ID for its tenant" 200 "$(req "$A" GET "/v1/sessions/$msid")"
expect "with the runs of its calls" 3 "$(jq -r .runs "$tmp/body")"
url=$url_a
expect "a /v1 run on A sees B's call (A's loaded copy is stale, reloaded)" "200 100" "$(run "$A" "$msid" 'return x') $(jq -r .result "$tmp/body")"
url=$url_b
expect "another tenant: /v1/sessions/ID 404" 404 "$(req "$B" GET "/v1/sessions/$msid")"
expect "nor /mcp: 404" 404 "$(call "$B" "$msid" 'return x')"
expect "nor end it: 404" 404 "$(req "$B" DELETE /mcp -H "Mcp-Session-Id: $msid")"
expect "without a token: 401" 401 "$(call - "$msid" 'return x')"
expect "an id that is no session: 404" 404 "$(call "$A" 0123456789abcdef0123456789abcdef 'return 1')"
# A busy session: a slow /v1 run on A holds its lease while B gets a tools/call.
jq -n '{code: "{ const t = Date.now(); while (Date.now() - t < 2000) {} } x = 7; return 1"}' >"$tmp/slowm.json"
curl -s -o "$tmp/c1" -w '%{http_code}' -H "Authorization: Bearer $A" --data-binary "@$tmp/slowm.json" \
    "$url_a/v1/sessions/$msid/run" >"$tmp/s1" &
c1=$!
sleep 0.5
t0=$(date +%s)
expect "a tools/call while the session is busy: 200" 200 "$(call "$A" "$msid" 'return x')"
waited=$(($(date +%s) - t0))
expect_in "with a JSON-RPC error saying so" "the session is busy" "$(jq -r '.error.message' "$tmp/body")"
expect "at once, not when the run ends (here ${waited} s)" yes "$([ "$waited" -le 1 ] && echo yes)"
wait "$c1"
expect "the slow run ended" 200 "$(cat "$tmp/s1")"
call "$A" "$msid" 'return x' >/dev/null
expect "then the call runs, on its result" 7 "$(jq -r .result.structuredContent.result "$tmp/body")"
# The session outlives the replica that made it.
url=$url_a
mcp "$A" - "$init" >/dev/null
msid2=$(sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *\([0-9a-f]*\).*/\1/p' "$tmp/headers")
call "$A" "$msid2" 'globalThis.y = "kept"; return 1' >/dev/null
pid=$pid_a
stop
other_pid=""
pid=$pid_b
url=$url_b
expect "with A stopped, B answers A's MCP session" 200 "$(call "$A" "$msid2" 'return y')"
expect "with its state" kept "$(jq -r .result.structuredContent.result "$tmp/body")"
expect "DELETE /mcp on B ends it: 204" 204 "$(req "$A" DELETE /mcp -H "Mcp-Session-Id: $msid2")"
expect "and deletes the stored session" 404 "$(req "$A" GET "/v1/sessions/$msid2")"
expect "then /mcp: 404" 404 "$(call "$A" "$msid2" 'return y')"
stop

# ---- the redis:// store ---------------------------------------------------------------
if command -v redis-server >/dev/null 2>&1; then
    rport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    mkdir -p "$tmp/redis"
    redis-server --port "$rport" --bind 127.0.0.1 --dir "$tmp/redis" --save '' --appendonly no \
        >"$tmp/redis.log" 2>&1 &
    redis_pid=$!
    for _ in $(seq 1 100); do
        redis-cli -p "$rport" ping >/dev/null 2>&1 && break
        sleep 0.05
    done
    store_url="redis://127.0.0.1:$rport/0"
    start_redis() {
        rm -f "$tmp/server.err"
        "$capsa" serve --http 127.0.0.1:0 --store "$store_url" --token-file "$tmp/tokens" \
            --tools "$tmp/tools.json" --policy "$tmp/policy.json" --timeout 3s 2>"$tmp/server.err" &
        pid=$!
        url=""
        for _ in $(seq 1 100); do
            port=$(sed -n 's/.*serving http:\/\/127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$tmp/server.err")
            [ -n "$port" ] && url="http://127.0.0.1:$port" && return 0
            sleep 0.05
        done
        echo "the server did not start:"; cat "$tmp/server.err"; exit 1
    }
    start_redis
    expect "redis: healthz" 200 "$(req - GET /healthz)"
    expect "redis: create" 201 "$(req "$A" POST /v1/sessions)"
    rid=$(jq -r .id "$tmp/body")
    run "$A" "$rid" 'globalThis.r = 7; fs.writeFileSync("/workspace/r.txt", "redis"); return await tools.demo.echo({r})' >/dev/null
    expect "redis: a run with a tool" '{"r":7}' "$(jq -c .result "$tmp/body")"
    expect "redis: another tenant gets 404" 404 "$(run "$B" "$rid" 'return r')"
    expect "redis: an /mcp initialize" 200 "$(mcp "$A" - "$init")"
    rmsid=$(sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *\([0-9a-f]*\).*/\1/p' "$tmp/headers")
    call "$A" "$rmsid" 'globalThis.q = 5; return q' >/dev/null
    expect "redis: a tools/call" 5 "$(jq -r .result.structuredContent.result "$tmp/body")"
    stop
    start_redis
    run "$A" "$rid" 'return [r, fs.readFileSync("/workspace/r.txt", "utf8")]' >/dev/null
    expect "redis: the session survives a restart of the server" '[7,"redis"]' "$(jq -c .result "$tmp/body")"
    call "$A" "$rmsid" 'return q' >/dev/null
    expect "redis: so does the /mcp session" 5 "$(jq -r .result.structuredContent.result "$tmp/body")"
    curl -s -o "$tmp/c1" -w '%{http_code}' -H "Authorization: Bearer $A" --data-binary "@$tmp/slow.json" \
        "$url/v1/sessions/$rid/run" >"$tmp/s1" &
    c1=$!
    curl -s -o "$tmp/c2" -w '%{http_code}' -H "Authorization: Bearer $A" --data-binary "@$tmp/slow.json" \
        "$url/v1/sessions/$rid/run" >"$tmp/s2" &
    c2=$!
    wait "$c1" "$c2"
    expect "redis: two concurrent runs: one 200 and one 409" "200 409" \
        "$(printf '%s\n%s\n' "$(cat "$tmp/s1")" "$(cat "$tmp/s2")" | sort | tr '\n' ' ' | sed 's/ $//')"
    req "$A" GET "/v1/sessions" >/dev/null
    expect "redis: the tenant's list (its /v1 and /mcp sessions)" \
        "$(printf '%s\n%s\n' "$rid" "$rmsid" | sort | tr '\n' ' ')" \
        "$(jq -r '.sessions[].id' "$tmp/body" | tr '\n' ' ')"
    kill "$redis_pid"
    wait "$redis_pid" 2>/dev/null
    expect "redis stopped: healthz 503" 503 "$(req - GET /healthz)"
    expect "and a run: 503 store_unavailable" "503 store_unavailable" "$(run "$A" "$rid" 'return 1') $(code)"
    expect_in "with Retry-After" "Retry-After:" "$(cat "$tmp/headers")"
    kill -0 "$pid" 2>/dev/null
    expect "the server stays up" 0 $?
    stop
else
    echo "skip the redis:// store: no redis-server (deps/install.sh installs it)"
fi

stop
echo
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
