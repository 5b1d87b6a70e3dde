"""Checkpoints: Sandbox.checkpoint() -> bytes, Sandbox.restore(data, tools=...), and
pickling, in this process and in another one; budgets, limits, async tools, mounts,
and the errors of bad blobs and missing handlers."""

from __future__ import annotations

import asyncio
import os
import pickle
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import capsa

HERE = Path(__file__).resolve().parent


def add(a: int, b: int) -> int:
    """Adds a and b."""
    return a + b


def mul(a: int, b: int) -> int:
    """Multiplies a and b."""
    return a * b


async def slow_upper(text: str) -> str:
    """Upper-cases text, asynchronously."""
    await asyncio.sleep(0.01)
    return text.upper()


class CheckpointTest(unittest.TestCase):
    def test_round_trip_keeps_js_state_and_files(self) -> None:
        with capsa.Sandbox() as sb:
            sb.run("globalThis.m = new Map([['a', 1]]); class K { f() { return 7 } };"
                   "globalThis.k = new K(); globalThis.bytes = new Uint8Array([1, 2, 3]);"
                   "fs.writeFileSync('notes.txt', 'kept')").raise_for_error()
            sb.files.write("/tmp/host.bin", b"\x00\xff")
            blob = sb.checkpoint()
        self.assertIsInstance(blob, bytes)
        self.assertEqual(blob[:8], b"CAPSACKP")
        with capsa.Sandbox.restore(blob) as r:
            res = r.run("return [m.get('a'), k.f(), Array.from(bytes), fs.readFileSync('notes.txt', 'utf8')]")
            self.assertEqual(res.value, [1, 7, [1, 2, 3], "kept"])
            self.assertEqual(r.files.read("/tmp/host.bin"), b"\x00\xff")

    def test_budget_goes_on_after_the_restore(self) -> None:
        sb = capsa.Sandbox(tools=[add], capabilities=[capsa.ToolCallCap("add", max_calls=3)])
        self.assertEqual(sb.run("return [await add({a: 1, b: 2}), await add({a: 2, b: 2})]").value, [3, 4])
        blob = sb.checkpoint()
        sb.close()
        r = capsa.Sandbox.restore(blob, tools=[add])
        self.assertEqual(r.get_remaining_calls("add"), 1)
        self.assertEqual([c.method_pattern for c in r.get_capabilities()], ["add"])
        res = r.run("const o = []; for (let i = 0; i < 2; i++) { try { o.push(await add({a: i, b: 10})) }"
                    " catch (e) { o.push(e.code) } } return o")
        self.assertEqual(res.value, [10, "permission_denied"], "exactly one more call")
        r.close()

    def test_limits_come_from_the_checkpoint(self) -> None:
        with capsa.Sandbox(limits={"fuel": 3_000_000}) as sb:
            blob = sb.checkpoint()
        with capsa.Sandbox.restore(blob) as r:
            with self.assertRaises(capsa.FuelExhausted):
                r.run("for (;;) {}")

    def test_tools_bound_by_name_and_new_ones_added(self) -> None:
        sb = capsa.Sandbox(tools=[add, slow_upper], capabilities=["*"])
        blob = sb.checkpoint()
        sb.close()
        with self.assertRaises(capsa.CheckpointError) as cm:
            capsa.Sandbox.restore(blob, tools=[slow_upper])
        self.assertIn("'add'", str(cm.exception))
        r = capsa.Sandbox.restore(blob, tools=[add, slow_upper, mul])
        res = r.run("return [await add({a: 2, b: 3}), await slow_upper({text: 'x'}), typeof mul]")
        self.assertEqual(res.value, [5, "X", "function"], "sync, async (step mode) and an added tool")
        self.assertEqual(r.run("return await mul({a: 2, b: 3})").value, 6)
        r.close()

    def test_bad_blobs(self) -> None:
        with capsa.Sandbox() as sb:
            blob = sb.checkpoint()
        for bad, needle in ((b"", "not a capsa checkpoint"), (b"hello", "not a capsa checkpoint"),
                            (blob[:200], "truncated"), (blob[:8] + b"\x07" + blob[9:], "format version 7")):
            with self.subTest(needle=needle):
                with self.assertRaises(capsa.CheckpointError) as cm:
                    capsa.Sandbox.restore(bad)
                self.assertIn(needle, str(cm.exception))
                self.assertIsInstance(cm.exception, ValueError)
        flipped = bytearray(blob)
        flipped[len(blob) // 2] ^= 0x40
        with self.assertRaises(capsa.CheckpointError):
            capsa.Sandbox.restore(bytes(flipped))
        with self.assertRaises(TypeError):
            capsa.Sandbox.restore("CAPSACKP")  # type: ignore[arg-type]

    def test_not_during_a_run(self) -> None:
        box: list[capsa.Sandbox] = []
        seen: list[str] = []

        def grab() -> str:
            """Tries to checkpoint the sandbox it runs in."""
            try:
                box[0].checkpoint()
            except capsa.CapsaError as exc:
                seen.append(type(exc).__name__)
            return "done"

        with capsa.Sandbox(tools=[grab], capabilities=["grab"]) as sb:
            box.append(sb)
            self.assertEqual(sb.run("return await grab({})").value, "done")
            self.assertEqual(len(seen), 1, "refused inside the run")
            self.assertTrue(sb.checkpoint(), "and taken after it")

    def test_mounts_given_again(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            Path(d, "in.txt").write_text("host")
            sb = capsa.Sandbox(mounts=[(d, "/data", "rw")])
            sb.run("fs.writeFileSync('/data/out.txt', 'guest')").raise_for_error()
            blob = sb.checkpoint()
            sb.close()
            self.assertNotIn(d.encode(), blob, "no host path in the checkpoint")
            Path(d, "in.txt").unlink()
            with capsa.Sandbox.restore(blob, mounts=[(d, "/data", "rw")]) as r:
                self.assertEqual(sorted(r.files.listdir("/data")), ["out.txt"])
                r.run("fs.writeFileSync('/data/again.txt', '1')").raise_for_error()
                self.assertTrue(Path(d, "again.txt").exists(), "written back again")

    def test_pickle_in_this_process(self) -> None:
        sb = capsa.Sandbox(tools=[add], capabilities=[capsa.ToolCallCap("add", max_calls=2)])
        sb.run("globalThis.total = await add({a: 20, b: 1})").raise_for_error()
        again = pickle.loads(pickle.dumps(sb))
        sb.close()
        self.assertEqual(again.run("return total + await add({a: 0, b: 21})").value, 42)
        self.assertEqual(again.get_remaining_calls("add"), 0)
        again.close()

    def test_pickle_in_another_process(self) -> None:
        sb = capsa.Sandbox(tools=[add], capabilities=["add"])
        sb.run("globalThis.who = 'parent'; fs.writeFileSync('f.txt', 'from the parent')").raise_for_error()
        with tempfile.NamedTemporaryFile(suffix=".pickle", delete=False) as f:
            pickle.dump(sb, f)
        sb.close()
        code = ("import pickle, sys; sb = pickle.load(open(sys.argv[1], 'rb'));"
                "r = sb.run(\"return [who, fs.readFileSync('f.txt', 'utf8'), await add({a: 40, b: 2})]\");"
                "print(r.value_json)")
        env = dict(os.environ)
        env["PYTHONPATH"] = str(HERE) + os.pathsep + env.get("PYTHONPATH", "")
        out = subprocess.run([sys.executable, "-c", code, f.name], capture_output=True, text=True,
                             env=env, timeout=60, cwd=HERE)
        os.unlink(f.name)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.strip(), '["parent","from the parent",42]')


if __name__ == "__main__":
    unittest.main()
