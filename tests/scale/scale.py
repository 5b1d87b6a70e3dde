"""The cluster test of `capsa serve` on loopback (`make test-scale`): a real
redis-server (append-only file on, no snapshots) and haproxy with
examples/deploy/haproxy.cfg (its ports put in), 3 `capsa serve` replicas behind
it, round robin. It checks that:

- 50 sessions of 20 runs each, every run building on the state the runs before
  it left, all land on several replicas and each run sees exactly the state of
  the runs before it;
- `kill -9` of one replica while runs are in flight: they fail with a
  retryable answer (502/503/504 or a cut connection), no session loses a
  committed run, the other sessions go on, and the dead replica's leases lapse
  so its sessions go on too; the replica started again serves again;
- two runs at once on one session: exactly one succeeds, the other gets 409
  conflict at once (with Retry-After);
- Redis restarted (SIGTERM, then started again on the same files): every
  session is there and goes on where it was; while Redis is down a replica
  answers 503 store_unavailable;

and prints runs/s with 1 replica and with 3 (each behind haproxy). Prints a line
a check and "N passed, N failed". Every server listens on 127.0.0.1 on a port
picked free, and is stopped at the end.
  python3 tests/scale/scale.py        (BUILD=build; KEEP=1 keeps the logs)"""
import ctypes
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD", "build")
CAPSA = os.path.join(BUILD if os.path.isabs(BUILD) else os.path.join(TOP, BUILD), "capsa")
HAPROXY_CFG = os.path.join(TOP, "examples", "deploy", "haproxy.cfg")

SESSIONS = 50
RUNS = 20
WORKERS = 10          # clients at once in the main phase
KILL_AFTER = 400      # runs done before one replica is killed
BENCH_CLIENTS = 8     # clients at once when measuring runs/s
BENCH_RUNS = 100      # runs of each of them
RETRY_FOR = 60.0      # how long a client retries a retryable answer
RETRYABLE = {409, 502, 503, 504, None}  # None: the connection failed

passed = failed = 0
lock = threading.Lock()


def check(ok, what):
    global passed, failed
    with lock:
        if ok:
            passed += 1
            print("ok   " + what, flush=True)
        else:
            failed += 1
            print("FAIL " + what, flush=True)
    return ok


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def die_with_parent():
    """In a child before its exec: SIGKILL when this test ends, however it ends
    (PR_SET_PDEATHSIG), so no server outlives it."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass


class Procs:
    """The servers this test starts, each logging to a file of its own."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.procs = {}

    def start(self, name, argv):
        log = open(os.path.join(self.tmp, name + ".log"), "ab")
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                             preexec_fn=die_with_parent)
        log.close()
        self.procs[name] = p
        return p

    def stop(self, name, sig=signal.SIGTERM):
        p = self.procs.pop(name, None)
        if p and p.poll() is None:
            p.send_signal(sig)
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def stop_all(self):
        for name in list(self.procs):
            self.stop(name)

    def log_tail(self, name, n=30):
        try:
            with open(os.path.join(self.tmp, name + ".log"), errors="replace") as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""


class Client:
    """One keep-alive HTTP connection to 127.0.0.1:port, with the bearer token."""

    def __init__(self, port, token):
        self.port = port
        self.token = token
        self.conn = None

    def request(self, method, path, body=None, timeout=120, again=True):
        """(status, headers with lower-case names, body bytes); status None when
        the connection failed (body then says how). again: a kept-alive
        connection found closed is tried once more on a new one (runs say no:
        run() retries them, and counts why)."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": "Bearer " + self.token}
        if data is not None:
            headers["Content-Type"] = "application/json"
        for attempt in range(2):
            reused = self.conn is not None
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
            try:
                self.conn.request(method, path, body=data, headers=headers)
                r = self.conn.getresponse()
                out = r.read()
                hdrs = {k.lower(): v for k, v in r.getheaders()}
                if hdrs.get("connection", "").lower() == "close":
                    self.close()
                return r.status, hdrs, out
            except (OSError, http.client.HTTPException) as e:
                self.close()
                # A kept-alive connection the other end closed while it was idle:
                # once more on a new one, as browsers do. Any other failure is the
                # caller's to judge (a run is retried by run()).
                if again and reused and isinstance(e, (http.client.RemoteDisconnected,
                                                       BrokenPipeError, ConnectionResetError)):
                    continue
                return None, {}, str(e).encode()
        return None, {}, b"the connection failed twice"

    def json(self, method, path, body=None, again=True):
        status, hdrs, out = self.request(method, path, body, again=again)
        try:
            return status, hdrs, json.loads(out) if out else None
        except ValueError:
            return status, hdrs, {"raw": out.decode(errors="replace")}

    def close(self):
        if self.conn:
            self.conn.close()
            self.conn = None


def wait_for(what, fn, timeout=30.0):
    end = time.time() + timeout
    while time.time() < end:
        if fn():
            return True
        time.sleep(0.1)
    return False


def healthy(port, token):
    status, _, _ = Client(port, token).request("GET", "/healthz", timeout=2)
    return status == 200


def haproxy_config(tmp, name, lb_port, replica_ports):
    """examples/deploy/haproxy.cfg with this test's ports: the bind line and the
    server lines (those marked "# port") replaced."""
    out, servers_done = [], False
    with open(HAPROXY_CFG) as f:
        for line in f:
            if "# port" in line and line.strip().startswith("bind "):
                out.append("    bind 127.0.0.1:%d\n" % lb_port)
            elif "# port" in line and line.strip().startswith("server "):
                if not servers_done:
                    for i, p in enumerate(replica_ports):
                        out.append("    server capsa%d 127.0.0.1:%d\n" % (i + 1, p))
                    servers_done = True
            else:
                out.append(line)
    path = os.path.join(tmp, name + ".cfg")
    with open(path, "w") as f:
        f.writelines(out)
    return path


def step_code(k, m):
    """Run k of a session: appends k*m to the steps the runs before it left, but
    only when they are exactly k-1 (a run that was committed and then retried
    does not append twice), after about 10 ms of work; returns the steps."""
    return ("globalThis.steps = globalThis.steps || [];\n"
            "{ const t0 = Date.now(); while (Date.now() - t0 < 10) {} }\n"
            "if (steps.length === %d) steps.push(%d);\n"
            "return steps;" % (k - 1, k * m))


def run(client, sid, code, log=None):
    """A run, retried on retryable answers for RETRY_FOR seconds. Returns the
    final (status, headers, body); log (a list) gets each retryable status met."""
    end = time.time() + RETRY_FOR
    while True:
        status, hdrs, body = client.json("POST", "/v1/sessions/%s/run" % sid,
                                         {"code": code, "language": "javascript"}, again=False)
        if status not in RETRYABLE or time.time() > end:
            return status, hdrs, body
        if log is not None:
            log.append((time.time(), status, hdrs.get("x-capsa-replica"),
                        (body or {}).get("error", {}).get("code") if isinstance(body, dict) else None))
        wait = 0.2
        if status in (409, 503) and hdrs.get("retry-after", "").isdigit():
            wait = min(float(hdrs["retry-after"]), 1.0)
        time.sleep(wait * (0.5 + random.random()))


def new_session(client):
    status, _, body = client.json("POST", "/v1/sessions", {})
    if status != 201 or not isinstance(body, dict) or "id" not in body:
        raise RuntimeError("POST /v1/sessions: %s %s" % (status, body))
    return body["id"]


def throughput(port, token, label):
    """runs/s of BENCH_CLIENTS clients at once, each making BENCH_RUNS runs on a
    session of its own (created and deleted outside the timing)."""
    clients = [Client(port, token) for _ in range(BENCH_CLIENTS)]
    sids = [new_session(c) for c in clients]
    errors = []
    go = threading.Barrier(BENCH_CLIENTS + 1)

    def work(c, sid):
        go.wait()
        for k in range(1, BENCH_RUNS + 1):
            status, _, body = run(c, sid, "globalThis.n = (globalThis.n || 0) + 1; return n")
            if status != 200 or not isinstance(body, dict) or body.get("result") != k:
                errors.append((status, body))

    threads = [threading.Thread(target=work, args=(c, s)) for c, s in zip(clients, sids)]
    for t in threads:
        t.start()
    go.wait()
    t0 = time.time()
    for t in threads:
        t.join()
    elapsed = time.time() - t0
    total = BENCH_CLIENTS * BENCH_RUNS
    check(not errors, "%s: %d runs, each sees the count the runs before it left%s"
          % (label, total, "" if not errors else " (%d wrong: %s)" % (len(errors), errors[:3])))
    for c, sid in zip(clients, sids):
        c.request("DELETE", "/v1/sessions/" + sid)
        c.close()
    return total / elapsed


def main():
    for tool in ("redis-server", "haproxy"):
        if not shutil.which(tool):
            print("scale: %s is not installed (make test-scale installs it: deps/install.sh)" % tool)
            return 2
    if not os.access(CAPSA, os.X_OK):
        print("scale: %s is not built (make all)" % CAPSA)
        return 2
    tmp = tempfile.mkdtemp(prefix="capsa-scale-")
    procs = Procs(tmp)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        return scenario(tmp, procs)
    finally:
        procs.stop_all()
        if os.environ.get("KEEP"):
            print("scale: logs kept in " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def scenario(tmp, procs):
    token = "scale-%032x" % random.getrandbits(128)
    token_file = os.path.join(tmp, "tokens")
    with open(token_file, "w") as f:
        f.write(token + "\n")
    os.chmod(token_file, 0o600)

    # Redis: the append-only file only (no snapshots), so what comes back after a
    # restart comes from it.
    redis_dir = os.path.join(tmp, "redis")
    os.mkdir(redis_dir)
    redis_port = free_port()
    redis_argv = ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                  "--dir", redis_dir, "--appendonly", "yes", "--appendfsync", "everysec",
                  "--save", "", "--daemonize", "no", "--logfile", os.path.join(tmp, "redis-server.log")]
    procs.start("redis", redis_argv)

    def redis_up():
        try:
            with socket.create_connection(("127.0.0.1", redis_port), 1) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    if not check(wait_for("redis", redis_up), "redis-server answers on 127.0.0.1:%d" % redis_port):
        print(procs.log_tail("redis-server"))
        return 1
    store = "redis://127.0.0.1:%d/0" % redis_port

    ports = [free_port() for _ in range(3)]

    def start_replica(i):
        procs.start("capsa%d" % (i + 1),
                    [CAPSA, "serve", "--http", "127.0.0.1:%d" % ports[i], "--store", store,
                     "--token-file", token_file])

    for i in range(3):
        start_replica(i)
    for i in range(3):
        if not check(wait_for("replica", lambda: healthy(ports[i], token)),
                     "replica capsa%d answers /healthz on 127.0.0.1:%d" % (i + 1, ports[i])):
            print(procs.log_tail("capsa%d" % (i + 1)))
            return 1

    lb1, lb3 = free_port(), free_port()
    procs.start("haproxy1", ["haproxy", "-db", "-f", haproxy_config(tmp, "haproxy1", lb1, ports[:1])])
    procs.start("haproxy3", ["haproxy", "-db", "-f", haproxy_config(tmp, "haproxy3", lb3, ports)])
    for name, lb in (("haproxy1", lb1), ("haproxy3", lb3)):
        if not check(wait_for(name, lambda: healthy(lb, token)),
                     "%s (examples/deploy/haproxy.cfg) answers on 127.0.0.1:%d" % (name, lb)):
            print(procs.log_tail(name))
            return 1
    # haproxy's own health checks must see every replica up before the rounds
    # are counted on.
    time.sleep(2.5)

    # ---- runs/s with 1 and with 3 replicas ------------------------------------------
    rate1 = throughput(lb1, token, "1 replica")
    rate3 = throughput(lb3, token, "3 replicas")
    procs.stop("haproxy1")
    # For comparison: the same 3 replicas with each session sent to one replica
    # while it is up (a hash of /v1/sessions/ID), so its sandbox stays loaded.
    lbh = free_port()
    cfg = haproxy_config(tmp, "haproxy-hash", lbh, ports)
    with open(cfg) as f:
        text = f.read()
    with open(cfg, "w") as f:
        f.write(text.replace("balance roundrobin", "balance uri depth 3\n    hash-type consistent"))
    procs.start("haproxy-hash", ["haproxy", "-db", "-f", cfg])
    rate3h = None
    if check(wait_for("haproxy-hash", lambda: healthy(lbh, token)), "haproxy with balance uri answers"):
        time.sleep(2.5)
        rate3h = throughput(lbh, token, "3 replicas, a session to one replica")
    procs.stop("haproxy-hash")

    # ---- 50 sessions x 20 runs, one replica killed midway -----------------------------
    c0 = Client(lb3, token)
    sids = [new_session(c0) for _ in range(SESSIONS)]
    check(len(set(sids)) == SESSIONS and all(len(s) == 32 for s in sids),
          "%d sessions made, each a 32-hex-digit id of its own" % SESSIONS)
    done, checked = [0], [0]
    wrong, hard, replicas = [], [], {s: set() for s in sids}
    retried = []
    killed_at = [None]
    kill_now = threading.Event()
    last_ok = {}

    def worker(mine):
        c = Client(lb3, token)
        for k in range(1, RUNS + 1):
            for j in mine:
                sid = sids[j]
                status, hdrs, body = run(c, sid, step_code(k, j + 1), retried)
                if status != 200 or not isinstance(body, dict) or body.get("status") != "ok":
                    hard.append((sid, k, status, body))
                    continue
                replicas[sid].add(hdrs.get("x-capsa-replica"))
                with lock:
                    checked[0] += 1
                want = [(i + 1) * (j + 1) for i in range(k)]
                if body.get("result") != want:
                    wrong.append((sid, k, body.get("result"), want))
                last_ok[sid] = k
                with lock:
                    done[0] += 1
                    if done[0] == KILL_AFTER:
                        kill_now.set()
        c.close()

    # The run sure to be in flight on the replica when it is killed: on a session
    # of its own, sent to that replica directly, killed a second into it.
    victim = new_session(c0)
    status, _, body = run(c0, victim, "globalThis.marker = 0; return 0")
    check(status == 200, "a session for the run cut by the kill")
    victim_result = {}

    def killer():
        kill_now.wait()
        def cut_run():
            c = Client(ports[1], token)
            victim_result["answer"] = c.json(
                "POST", "/v1/sessions/%s/run" % victim,
                {"code": "globalThis.marker = 1;\n"
                         "{ const t0 = Date.now(); while (Date.now() - t0 < 3000) {} }\n"
                         "return 1", "language": "javascript"})
        t = threading.Thread(target=cut_run)
        t.start()
        time.sleep(1.0)
        killed_at[0] = time.time()
        os.kill(procs.procs["capsa2"].pid, signal.SIGKILL)
        t.join()
        # The session again, through haproxy: 409 while the dead replica's lease
        # lasts, then the state before the cut run.
        seen = []
        c = Client(lb3, token)
        victim_result["after"] = run(c, victim, "return globalThis.marker", seen)
        victim_result["lapse"] = time.time() - killed_at[0]
        victim_result["busy"] = seen
        c.close()

    kt = threading.Thread(target=killer, daemon=True)
    kt.start()
    t0 = time.time()
    workers = [threading.Thread(target=worker, args=(list(range(w, SESSIONS, WORKERS)),))
               for w in range(WORKERS)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    elapsed = time.time() - t0
    kill_now.set()
    kt.join(60)
    procs.procs["capsa2"].wait()
    del procs.procs["capsa2"]

    check(killed_at[0] is not None, "replica capsa2 was killed (kill -9) after %d runs" % KILL_AFTER)
    check(not hard, "every run ended in success, retrying only retryable answers%s"
          % ("" if not hard else ": %d did not, first %s" % (len(hard), hard[:2])))
    check(not wrong and checked[0] == SESSIONS * RUNS,
          "every run saw exactly the state of the runs before it (%d of %d runs)%s"
          % (checked[0] - len(wrong), SESSIONS * RUNS,
             "" if not wrong else ": %d did not, first %s" % (len(wrong), wrong[:2])))
    check(all(last_ok.get(s) == RUNS for s in sids), "all %d sessions made all %d runs" % (SESSIONS, RUNS))
    spread = [len(r - {None}) for r in replicas.values()]
    check(min(spread) >= 2, "every session's runs landed on several replicas (fewest: %d, most: %d)"
          % (min(spread), max(spread)))
    status, _, body = victim_result.get("answer", (0, {}, None))
    check(status in RETRYABLE, "the run in flight on the killed replica failed with a retryable "
          "answer (%s)" % ("a cut connection" if status is None else status))
    status, _, body = victim_result.get("after", (0, {}, None))
    lapse, seen = victim_result.get("lapse", 99), victim_result.get("busy", [])
    check(status == 200 and isinstance(body, dict) and body.get("result") == 0,
          "the cut run was not committed (the session is as before it: %s)"
          % (body.get("result") if isinstance(body, dict) else body))
    check(lapse < 30, "the killed replica's lease lapsed: its session went on %.1f s after the "
          "kill (meanwhile: %s)" % (lapse, ", ".join("%s x%d" % (k, sum(1 for x in seen if str(x[1]) == k))
                                                     for k in sorted({str(x[1]) for x in seen})) or "nothing"))
    c0.request("DELETE", "/v1/sessions/" + victim)
    after = [r for r in retried if killed_at[0] and r[0] >= killed_at[0]]
    print("scale: retryable answers the other sessions met after the kill (None: a cut "
          "connection): %s" % (", ".join("%s x%d" % (k, sum(1 for r in after if str(r[1]) == k))
                       for k in sorted({str(r[1]) for r in after})) or "none"))
    print("scale: %d runs of %d sessions in %.1f s with a replica killed after %d"
          % (SESSIONS * RUNS, SESSIONS, elapsed, KILL_AFTER))

    start_replica(1)
    check(wait_for("capsa2", lambda: healthy(ports[1], token)), "the killed replica starts again")
    time.sleep(2.5)  # haproxy's checks see it up again

    # ---- two runs at once on one session ----------------------------------------------
    sid = new_session(c0)
    for rnd in range(3):
        results = [None, None]
        go = threading.Barrier(2)

        def one(n):
            c = Client(lb3, token)
            go.wait()
            t = time.time()
            status, hdrs, body = c.json("POST", "/v1/sessions/%s/run" % sid,
                                        {"code": "{ const t0 = Date.now(); while (Date.now() - t0 < 1500) {} }\n"
                                                 "return 1", "language": "javascript"})
            results[n] = (status, hdrs, body, time.time() - t)
            c.close()

        ts = [threading.Thread(target=one, args=(n,)) for n in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        statuses = sorted(r[0] for r in results)
        check(statuses == [200, 409], "round %d: two runs at once on one session: one 200, one 409 (got %s)"
              % (rnd + 1, statuses))
        conflict = [r for r in results if r[0] == 409]
        if conflict:
            status, hdrs, body, took = conflict[0]
            check(isinstance(body, dict) and body.get("error", {}).get("code") == "conflict"
                  and "retry-after" in hdrs,
                  "round %d: the 409 says conflict, with Retry-After" % (rnd + 1))
            check(took < 1.0, "round %d: the 409 came at once (%.0f ms, the other run takes 1500)"
                  % (rnd + 1, took * 1000))
    c0.request("DELETE", "/v1/sessions/" + sid)

    # ---- Redis restarted ----------------------------------------------------------------
    procs.stop("redis")
    status, hdrs, body = Client(ports[0], token).json(
        "POST", "/v1/sessions/%s/run" % sids[0], {"code": "return steps", "language": "javascript"})
    check(status == 503 and isinstance(body, dict) and body.get("error", {}).get("code") == "store_unavailable",
          "while Redis is down a run answers 503 store_unavailable (got %s %s)" % (status, body))
    status, _, _ = Client(ports[0], token).request("GET", "/healthz", timeout=5)
    check(status == 503, "and /healthz answers 503 (got %s)" % status)
    procs.start("redis", redis_argv)
    check(wait_for("redis", redis_up), "redis-server starts again on its append-only file")
    check(all(wait_for("replica", lambda: healthy(p, token)) for p in ports),
          "every replica's /healthz is 200 again")
    time.sleep(2.5)

    c = Client(lb3, token)
    kept, went_on = 0, 0
    for j, s in enumerate(sids):
        want = [(i + 1) * (j + 1) for i in range(RUNS)]
        status, _, body = run(c, s, "return steps")
        if status == 200 and isinstance(body, dict) and body.get("result") == want:
            kept += 1
        status, _, body = run(c, s, step_code(RUNS + 1, j + 1))
        if status == 200 and isinstance(body, dict) and body.get("result") == want + [(RUNS + 1) * (j + 1)]:
            went_on += 1
    check(kept == SESSIONS, "after the Redis restart every session has its %d runs' state (%d of %d)"
          % (RUNS, kept, SESSIONS))
    check(went_on == SESSIONS, "and goes on from there (%d of %d)" % (went_on, SESSIONS))

    listed, after_id, pages = set(), None, 0
    while pages < 20:
        path = "/v1/sessions?limit=20" + ("&after=" + after_id if after_id else "")
        status, _, body = c.json("GET", path)
        if status != 200 or not isinstance(body, dict):
            break
        pages += 1
        listed.update(x["id"] if isinstance(x, dict) else x for x in body.get("sessions", []))
        after_id = body.get("next")
        if not after_id:
            break
    check(set(sids) <= listed, "GET /v1/sessions lists all %d sessions, 20 a page (%d pages)"
          % (SESSIONS, pages))
    for s in sids:
        c.request("DELETE", "/v1/sessions/" + s)
    c.close()

    print("scale: runs/s behind haproxy, %d clients at once: 1 replica %.1f, 3 replicas %.1f "
          "(round robin), 3 replicas %s (balance uri: a session to one replica); %d cores here"
          % (BENCH_CLIENTS, rate1, rate3, "%.1f" % rate3h if rate3h else "-", os.cpu_count() or 0))
    if failed:
        for name in ("capsa1", "capsa2", "capsa3", "haproxy3", "redis-server"):
            print("--- %s.log (last lines)\n%s" % (name, procs.log_tail(name)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
