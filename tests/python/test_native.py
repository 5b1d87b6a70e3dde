"""The native API: run, results, state, output, errors, limits as exceptions, bad input."""

from __future__ import annotations

import asyncio
import unittest

import capsa


class RunTest(unittest.TestCase):
    def setUp(self) -> None:
        self.sb = capsa.Sandbox()

    def tearDown(self) -> None:
        self.sb.close()

    def test_values_cross_as_python_objects(self) -> None:
        r = self.sb.run('return {n: 1.5, s: "é", l: [1, null, true], o: {a: {b: []}}}')
        self.assertTrue(r.ok)
        self.assertEqual(r.value, {"n": 1.5, "s": "é", "l": [1, None, True], "o": {"a": {"b": []}}})
        self.assertIsNone(self.sb.run("let x = 1").value, "no return gives None")
        self.assertEqual(self.sb.run("return 2 ** 53").value, 2 ** 53)

    def test_output_and_stats(self) -> None:
        r = self.sb.run('console.log("out", 1); console.error("err")')
        self.assertEqual((r.stdout, r.stderr), ("out 1\n", "err\n"))
        self.assertEqual(r.stats.stdout_bytes, 6)
        self.assertGreater(r.stats.fuel_used, 0)
        self.assertGreaterEqual(r.stats.wall_ms, 0)

    def test_state_persists_until_reset(self) -> None:
        self.sb.run("var counter = 41")
        self.assertEqual(self.sb.run("return ++counter").value, 42)
        self.sb.reset()
        self.assertEqual(self.sb.run("return typeof counter").value, "undefined")

    def test_script_error_is_a_result(self) -> None:
        r = self.sb.run("throw new RangeError('too far')", filename="task.js")
        self.assertFalse(r.ok)
        self.assertEqual((r.error.name, r.error.message), ("RangeError", "too far"))
        self.assertIn("task.js", r.error.stack or "")
        with self.assertRaises(capsa.ScriptError) as cm:
            r.raise_for_error()
        self.assertEqual(cm.exception.name, "RangeError")
        self.assertIn("RangeError: too far", str(r.error))
        self.assertIsNone(r.error.code)
        r = self.sb.run("fs.readFileSync('/workspace/nope')")
        self.assertEqual(r.error.code, "ENOENT")

    def test_streaming_output(self) -> None:
        chunks: list[tuple[str, str]] = []
        self.sb.run('console.log("a"); console.error("b"); console.log("ü")',
                    on_output=lambda stream, text: chunks.append((stream, text)))
        self.assertEqual("".join(t for s, t in chunks if s == "stdout"), "a\nü\n")
        self.assertEqual("".join(t for s, t in chunks if s == "stderr"), "b\n")

    def test_bytes_code_and_top_level_await(self) -> None:
        self.assertEqual(self.sb.run(b"return await Promise.resolve(7)").value, 7)

    def test_stdin(self) -> None:
        r = self.sb.run("return fs.readFileSync(0, 'utf8').split('\\n')", stdin="a\nb")
        self.assertEqual(r.value, ["a", "b"])
        r = self.sb.run("const b = fs.readFileSync('/dev/stdin'); return [b.length, b[0], b[3]]",
                        stdin=b"\x00\xff\x01\xfe")
        self.assertEqual(r.value, [4, 0, 254], "bytes reach the script as they are")
        r = self.sb.run("let n = 0; for await (const c of process.stdin) n += c.length; return n",
                        stdin=bytearray(b"x" * 100000))
        self.assertEqual(r.value, 100000)
        self.assertEqual(self.sb.run("return fs.readFileSync(0, 'utf8')").value, "",
                         "without stdin= a run's standard input is empty")
        async def go() -> object:
            r = await self.sb.run_async("return fs.readFileSync(0, 'utf8')", stdin="async")
            return r.value
        self.assertEqual(asyncio.run(go()), "async")
        self.sb.run("return 1", stdin="left unread")
        self.assertEqual(self.sb.run_shell("cat").stdout, "",
                         "the shell's input is its own stdin= (empty), not a run's")
        with self.assertRaises(TypeError):
            self.sb.run("1", stdin=5)  # type: ignore[arg-type]
        self.sb.run("return 1", stdin="set before a refused one")
        with self.assertRaises(capsa.CapsaError) as ctx:
            self.sb.run("1", stdin=b"\0" * ((64 << 20) + 1))
        self.assertEqual(ctx.exception.code, 5, "over 64 MiB: CAPSA_ETOOBIG")
        self.assertEqual(self.sb.run("return fs.readFileSync(0, 'utf8')").value, "",
                         "after a refused stdin= a run without one still reads nothing")

    def test_wrong_types_raise_type_errors(self) -> None:
        with self.assertRaises(TypeError):
            self.sb.run(42)  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            self.sb.run("1", filename=3)  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            capsa.Sandbox(limits={"timeout": 5})
        with self.assertRaises(TypeError):
            capsa.Sandbox(limits={"timeout_ms": -1})
        with self.assertRaises(TypeError):
            capsa.Sandbox(tools="not a list")  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            capsa.Sandbox(capabilities=[42])
        with self.assertRaises(TypeError):
            capsa.Sandbox(audit_config={"agent_id": "x"})  # type: ignore[arg-type]

    def test_closed_sandbox_says_so(self) -> None:
        sb = capsa.Sandbox()
        with sb:
            pass
        self.assertTrue(sb.closed)
        with self.assertRaisesRegex(capsa.CapsaError, "closed"):
            sb.run("1")
        sb.close()  # idempotent


class LimitTest(unittest.TestCase):
    def test_interrupt_from_another_thread(self) -> None:
        import threading
        import time
        with capsa.Sandbox(limits=capsa.Limits(timeout_ms=20000)) as sb:
            self.assertFalse(sb.interrupt(), "no run in progress: nothing to interrupt")
            sb.run("globalThis.kept = 1")
            outcome: list[bool] = []

            def stop() -> None:
                # Until the run has started, interrupt() finds none and says so.
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:
                    if sb.interrupt():
                        outcome.append(True)
                        return
                    time.sleep(0.01)

            t = threading.Thread(target=stop)
            t.start()
            started = time.monotonic()
            with self.assertRaises(capsa.Interrupted) as cm:
                sb.run("while (true) {}")
            t.join()
            self.assertEqual(outcome, [True])
            self.assertLess(time.monotonic() - started, 10, "long before the 20 s limit")
            self.assertIsInstance(cm.exception, capsa.LimitExceeded)
            self.assertEqual(cm.exception.code_name, "CAPSA_EINTERRUPTED")
            self.assertEqual(sb.run("return 1 + 1").value, 2, "the sandbox stays usable")
            self.assertFalse(sb.interrupt())

    def test_timeout_raises_and_sandbox_stays_usable(self) -> None:
        with capsa.Sandbox(limits=capsa.Limits(timeout_ms=200)) as sb:
            sb.files.write("/workspace/kept.txt", "x")
            with self.assertRaises(capsa.TimeLimitExceeded) as cm:
                sb.run("console.log('before'); while (true) {}")
            exc = cm.exception
            self.assertIsInstance(exc, capsa.LimitExceeded)
            self.assertIsInstance(exc, TimeoutError)
            self.assertIsInstance(exc, RuntimeError)
            self.assertEqual(exc.code_name, "CAPSA_ETIMEOUT")
            self.assertIn("time limit", str(exc))
            self.assertIsNotNone(exc.result)
            self.assertEqual(exc.result.stdout, "before\n")
            self.assertEqual(sb.run("return 1").value, 1)
            self.assertEqual(sb.files.read_text("/workspace/kept.txt"), "x", "files survive")

    def test_fuel(self) -> None:
        with capsa.Sandbox(limits={"fuel": 200_000}) as sb:
            with self.assertRaisesRegex(capsa.FuelExhausted, "fuel"):
                sb.run("for (;;) {}")
            self.assertEqual(sb.run("return 'alive'").value, "alive")

    def test_memory_limit_gives_out_of_memory(self) -> None:
        with capsa.Sandbox(limits={"memory_bytes": 32 << 20}) as sb:
            try:
                r = sb.run("const a = []; for (;;) a.push(new Array(100000).fill(1.5));")
                self.assertEqual(r.error.name, "InternalError")
                self.assertIn("out of memory", r.error.message)
            except (capsa.GuestTrap, capsa.OutOfMemory):
                pass  # the hard wall, if QuickJS's own limit is not reached first
            self.assertEqual(sb.run("return 2").value, 2)

    def test_output_cap(self) -> None:
        with capsa.Sandbox(limits={"max_output": 100}) as sb:
            r = sb.run("for (let i = 0; i < 100; i++) console.log('0123456789')")
            self.assertLess(len(r.stdout), 200)
            self.assertGreater(r.stats.output_dropped, 0)

    def test_timeout_in_run_async(self) -> None:
        async def main() -> None:
            with capsa.Sandbox(limits={"timeout_ms": 150}) as sb:
                with self.assertRaises(capsa.TimeLimitExceeded):
                    await sb.run_async("while (true) {}")

        asyncio.run(main())


class EngineTest(unittest.TestCase):
    def test_version_and_own_engine(self) -> None:
        self.assertRegex(capsa.version(), r"^\d+\.\d+\.\d+$")
        engine = capsa.Engine(pool_size=2)
        sb = capsa.Sandbox(engine=engine)
        with self.assertRaisesRegex(capsa.CapsaError, "live sandboxes"):
            engine.close()
        self.assertEqual(sb.run("return 3").value, 3)
        sb.close()
        engine.close()


if __name__ == "__main__":
    unittest.main()
