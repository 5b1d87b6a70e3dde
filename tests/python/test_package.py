"""Packaging and lifetime: library loading errors, offline pip install, the examples,
and no leak after 10,000 sandboxes."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

import capsa
from capsa import _lib

ROOT = Path(__file__).resolve().parents[2]


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


class LoadingTest(unittest.TestCase):
    def test_missing_library_names_what_was_tried(self) -> None:
        p = run_python("import capsa\ntry:\n    capsa.Sandbox()\nexcept ImportError as e:\n    print(e)",
                       CAPSA_LIBRARY="/nonexistent/libcapsa.so")
        self.assertIn("tried /nonexistent/libcapsa.so ($CAPSA_LIBRARY): no such file", p.stdout)
        self.assertIn("make python", p.stdout)

    def test_import_does_not_need_the_library(self) -> None:
        p = run_python("import capsa; print(capsa.Param('a') <= 1)", CAPSA_LIBRARY="/nonexistent.so")
        self.assertEqual(p.stdout.strip(), "a <= 1", p.stderr)

    def test_synchronous_use_does_not_import_asyncio(self) -> None:
        # asyncio costs a process about 20 ms to import: only the async API loads it.
        p = run_python("import sys, capsa; s = capsa.Sandbox(); print(s.run('return 1').value)\n"
                       "print('asyncio' in sys.modules, 'concurrent.futures' in sys.modules)\n"
                       "import asyncio; print(asyncio.run(s.run_async('return 2')).value); s.close()")
        self.assertEqual(p.stdout.split(), ["1", "False", "False", "2"], p.stderr)

    def test_offline_pip_install(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--quiet",
                                "--disable-pip-version-check", "--target", tmp, str(ROOT / "python")],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            env = {"PYTHONPATH": tmp, "CAPSA_LIBRARY": os.environ["CAPSA_LIBRARY"]}
            q = subprocess.run([sys.executable, "-c", "import capsa; print(capsa.__file__); "
                                "import capsa.as_amla_sandbox, amla_sandbox; "
                                "print(amla_sandbox.create_sandbox_tool().run('return 6'), end=' '); "
                                "print(capsa.Sandbox().run('return 6 * 7').value)"],
                               capture_output=True, text=True, timeout=60, cwd=tmp,
                               env={**os.environ, **env})
            self.assertEqual(q.stdout.split()[-2:], ["6", "42"], q.stderr)
            self.assertTrue(q.stdout.startswith(tmp))


class ExamplesTest(unittest.TestCase):
    def test_examples_run(self) -> None:
        expect = {
            "agent_loop.py": "answer: Refunded 1000",
            "langgraph_tool.py": "warmest: Cairo",
            "step_mode_asyncio.py": "3 sandboxes x 10 calls",
            "vfs_files.py": "the mount is read-only: EROFS",
            "amla_program.py": "Paris\n3\nsent 50 to acct_1\n",
        }
        for name, text in expect.items():
            with self.subTest(name):
                p = subprocess.run([sys.executable, str(ROOT / "examples" / "python" / name)],
                                   capture_output=True, text=True, timeout=120)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertIn(text, p.stdout)


class LeakTest(unittest.TestCase):
    @unittest.skipIf(os.environ.get("CAPSA_SANITIZED"), "ASan's quarantine holds freed memory: RSS "
                     "says nothing there (LeakSanitizer and the C suites cover leaks)")
    def test_no_leak_after_10000_sandboxes(self) -> None:
        def add(a: int, b: int) -> int:
            return a + b

        def one() -> None:
            with capsa.Sandbox(tools=[add], capabilities=["add"]) as sb:
                r = sb.run("console.log('x'); return await add({a: 1, b: 2})")
                assert r.value == 3
                sb.files.write("/workspace/f", b"y" * 1000)
                sb.get_call_counts()

        for _ in range(500):  # warm up: allocator pools, caches
            one()
        gc.collect()
        before = rss_mib()
        t = time.monotonic()
        for i in range(10_000):
            if i % 2:
                one()
            else:
                capsa.Sandbox().run("return 1")  # closed by the garbage collector
        gc.collect()
        grown = rss_mib() - before
        print(f"\n    10,000 sandboxes in {time.monotonic() - t:.1f}s, RSS {grown:+.1f} MiB", end=" ")
        self.assertLess(grown, 48, f"RSS grew by {grown:.1f} MiB")
        self.assertEqual(len(_lib.tools_registry), 0, "every tool callback was unregistered")
        self.assertEqual(len(_lib.sandbox_registry), 0, "every sandbox was unregistered")


if __name__ == "__main__":
    unittest.main()
