"""The client of bench/serve.sh: times requests to a capsa serve over one
kept-alive connection (http.client), so that what is timed is the server and
the store, not a new connection or process per request. Prints one line per
figure: NAME UNIT MEDIAN P99 N.
    python3 bench/serve_client.py HOST PORT REQUESTS"""
import http.client
import json
import sys
import time


def main():
    host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    conn = http.client.HTTPConnection(host, port)

    def call(method, path, body=None):
        conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        data = r.read()
        return r.status, data

    def timed(method, path, body, want, count, warmup):
        times = []
        for i in range(warmup + count):
            t0 = time.perf_counter()
            status, data = call(method, path, body)
            t = time.perf_counter() - t0
            if status != want:
                sys.exit("bench: %s %s answered %d: %s" % (method, path, status, data[:300]))
            if i >= warmup:
                times.append(t * 1e6)
        times.sort()
        return times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.99))]

    created = []
    t_create = []
    for i in range(n + 20):
        t0 = time.perf_counter()
        status, data = call("POST", "/v1/sessions", b"{}")
        t = time.perf_counter() - t0
        if status != 201:
            sys.exit("bench: POST /v1/sessions answered %d: %s" % (status, data[:300]))
        created.append(json.loads(data)["id"])
        if i >= 20:
            t_create.append(t * 1e6)
    t_create.sort()
    print("serve.create us %.1f %.1f %d" % (t_create[len(t_create) // 2],
                                            t_create[int(len(t_create) * 0.99)], len(t_create)))
    sid = created[0]
    body = json.dumps({"code": "globalThis.n = (globalThis.n || 0) + 1; return n"}).encode()
    med, p99 = timed("POST", "/v1/sessions/%s/run" % sid, body, 200, n, 50)
    print("serve.run.warm us %.1f %.1f %d" % (med, p99, n))
    med, p99 = timed("GET", "/v1/sessions/%s/files/workspace" % sid, None, 200, n, 20)
    print("serve.files.list us %.1f %.1f %d" % (med, p99, n))
    for sid in created:
        call("DELETE", "/v1/sessions/%s" % sid)


main()
