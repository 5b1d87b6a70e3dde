"""Checks examples/deploy/kubernetes against itself and against capsa serve:
every document parses, the kinds the README promises are there, selectors,
ports and names agree between the Deployment, its Service, the autoscaler and
Redis, and every option the manifests pass to `capsa serve` is one it knows.
Prints one "ok"/"FAIL" line a check and "N passed, N failed"; run by run.sh
with Debian's python3 (python3-yaml).
  python3 manifests.py DIR SERVE_HELP_FILE"""
import re
import sys

import yaml

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("ok   " + what)
    else:
        failed += 1
        print("FAIL " + what)


def main():
    root, help_file = sys.argv[1], sys.argv[2]
    with open(help_file) as f:
        known = set(re.findall(r"--[a-z][a-z0-9-]*", f.read()))
    check("--store" in known and "--http" in known, "capsa serve --help lists --http and --store")

    with open(root + "/kustomization.yaml") as f:
        kust = yaml.safe_load(f)
    docs = []
    for name in kust["resources"]:
        with open(root + "/" + name) as f:
            docs += [d for d in yaml.safe_load_all(f) if d]
    check(len(kust["resources"]) == 2, "kustomization.yaml lists both files")
    by = {}
    for d in docs:
        check(all(k in d for k in ("apiVersion", "kind", "metadata")),
              "%s %s has apiVersion, kind, metadata" % (d.get("kind"), d.get("metadata", {}).get("name")))
        by.setdefault(d["kind"], []).append(d)
    for kind in ("Deployment", "Service", "HorizontalPodAutoscaler", "StatefulSet", "ConfigMap"):
        check(kind in by, "a %s is there" % kind)
    dep = by["Deployment"][0]
    hpa = by["HorizontalPodAutoscaler"][0]
    services = {s["metadata"]["name"]: s for s in by["Service"]}
    redis = by["StatefulSet"][0]

    tmpl = dep["spec"]["template"]
    labels = tmpl["metadata"]["labels"]
    check(all(labels.get(k) == v for k, v in dep["spec"]["selector"]["matchLabels"].items()),
          "the Deployment's selector matches its pods' labels")
    container = tmpl["spec"]["containers"][0]
    args = container["args"]
    check(args[0] == "serve", "the container runs capsa serve")
    opts = [a for a in args if a.startswith("--")]
    check(all(o in known for o in opts), "every option it passes is one capsa serve knows: %s" % opts)
    http = args[args.index("--http") + 1]
    port = int(http.rsplit(":", 1)[1])
    check(not http.startswith("127.") and "--token-file" in args,
          "it listens beyond loopback, so it gives --token-file")
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    check(ports.get("http") == port, "the container port named http is the --http port")
    check(container["readinessProbe"]["httpGet"]["path"] == "/healthz", "readiness is /healthz")
    check("httpGet" not in container["livenessProbe"],
          "liveness does not ask /healthz (a Redis outage must not restart every pod)")
    check("cpu" in container["resources"]["requests"], "a CPU request for the autoscaler")
    token = args[args.index("--token-file") + 1]
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    check(token.startswith(mounts.get("tokens", "?") + "/"), "the token file is on the tokens volume")

    svc = services.get(dep["metadata"]["name"])
    check(svc is not None, "a Service named as the Deployment")
    if svc:
        check(all(labels.get(k) == v for k, v in svc["spec"]["selector"].items()),
              "the Service selects the Deployment's pods")
        check(all(p["targetPort"] in ports for p in svc["spec"]["ports"]),
              "the Service's target port is a container port")
    ref = hpa["spec"]["scaleTargetRef"]
    check(ref["kind"] == "Deployment" and ref["name"] == dep["metadata"]["name"],
          "the autoscaler scales the Deployment")
    check(hpa["spec"]["minReplicas"] <= dep["spec"]["replicas"] <= hpa["spec"]["maxReplicas"],
          "the Deployment's replicas are within the autoscaler's range")

    store = args[args.index("--store") + 1]
    m = re.match(r"redis://([^:/]+):(\d+)/\d+$", store)
    check(m is not None, "the store is a redis:// URL with host, port and db")
    if m:
        rsvc = services.get(m.group(1))
        check(rsvc is not None, "the store's host is a Service")
        if rsvc:
            check(any(p["port"] == int(m.group(2)) for p in rsvc["spec"]["ports"]),
                  "the store's port is that Service's")
            rlabels = redis["spec"]["template"]["metadata"]["labels"]
            check(all(rlabels.get(k) == v for k, v in rsvc["spec"]["selector"].items()),
                  "that Service selects the Redis pods")
    conf = by["ConfigMap"][0]["data"]["redis.conf"]
    check("appendonly yes" in conf, "Redis keeps an append-only file")
    check(any(v["mountPath"] == "/data" for v in redis["spec"]["template"]["spec"]["containers"][0]["volumeMounts"])
          and "dir /data" in conf, "on its volume")

    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


sys.exit(main())
