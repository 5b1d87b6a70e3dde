"""The cost of the Python package over the C API, for make bench (bench/bench.sh).

    python3 bench/python_bench.py CYCLES

Prints, in capsa_bench's format ("NAME UNIT MEDIAN MIN MAX P99 CHECK"):
  python.cycle   Sandbox() + run("return 1+1") + close(), the cycle capsa_bench's
                 `latency` times through the C API (latency.capsa)
  python.c_cycle the same cycle through the C API from this process (ctypes calls of
                 capsa_sandbox_new, capsa_run and capsa_sandbox_free on the package's
                 engine): what the package adds to a cycle is python.cycle's rest
  python.run     run("return 1+1") on a live sandbox, beside python.c_run
  python.c_run   the same run through the C API from Python (ctypes' own cost only)
Times are the process's CPU time, or wall time with BENCH_CLOCK=wall, as capsa_bench's.
The package comes from PYTHONPATH, libcapsa.so from CAPSA_LIBRARY.
"""
import ctypes
import os
import sys
import time

import capsa
from capsa import _lib

CLOCK = os.environ.get("BENCH_CLOCK", "cpu")
if CLOCK not in ("cpu", "wall"):
    sys.exit("bench: BENCH_CLOCK is cpu or wall, not " + CLOCK)
now_ns = time.process_time_ns if CLOCK == "cpu" else time.perf_counter_ns


def series(name, fn, n, check):
    for _ in range(n // 10 + 1):  # warm-up
        fn()
    t = []
    for _ in range(n):
        t0 = now_ns()
        fn()
        t.append((now_ns() - t0) / 1e3)
    report(name, t, check)


def report(name, t, check):
    t.sort()
    p99 = t[min(len(t) - 1, int(len(t) * 0.99))]
    print(f"{name} us {t[len(t) // 2]:.3f} {t[0]:.3f} {t[-1]:.3f} {p99:.3f} {check}", flush=True)


def cycle():
    with capsa.Sandbox() as sb:
        if sb.run("return 1+1").value != 2:
            raise SystemExit("bench: python.cycle: wrong value")


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    lib = _lib.lib()
    code = b"return 1+1"
    result = ctypes.c_void_p()
    engine = capsa.engine.default_engine().handle

    def c_cycle():
        handle = ctypes.c_void_p()
        if lib.capsa_sandbox_new(engine, None, ctypes.byref(handle)) != 0:
            raise SystemExit("bench: python.c_cycle: capsa_sandbox_new failed")
        rc = lib.capsa_run(handle, code, len(code), None, ctypes.byref(result))
        value = lib.capsa_result_value(result) if rc == 0 else None
        lib.capsa_sandbox_free(handle)
        if value != b"2":
            raise SystemExit("bench: python.c_cycle: wrong value")

    # The two cycles alternate in rounds, so that a change of the machine's speed
    # during the run falls on both alike.
    for _ in range(n // 10 + 1):  # warm-up
        cycle()
        c_cycle()
    py, c = [], []
    for i in range(n):
        for fn, t in ((cycle, py), (c_cycle, c)) if i % 2 == 0 else ((c_cycle, c), (cycle, py)):
            t0 = now_ns()
            fn()
            t.append((now_ns() - t0) / 1e3)
    report("python.cycle", py, "-")
    report("python.c_cycle", c, "-")
    sb = capsa.Sandbox()
    series("python.run", lambda: sb.run("return 1+1"), n, "-")
    # The same run through the C API, by ctypes: what the package adds is the rest.
    handle = sb._handle
    def c_run():
        if lib.capsa_run(handle, code, len(code), None, ctypes.byref(result)) != 0:
            raise SystemExit("bench: python.c_run failed")
    series("python.c_run", c_run, n, "-")
    sb.close()


if __name__ == "__main__":
    main()
