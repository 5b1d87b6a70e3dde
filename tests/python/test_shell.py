"""The shell: run_shell/run_shell_async (RunResult.exit_code), amla's shell() -> str,
stdin, state between command lines, limits, the `tool` command under the
capabilities, and bad input."""

from __future__ import annotations

import asyncio
import unittest

import capsa
from capsa import ConstraintSet, Param, ToolCallCap


def add(a: int, b: int = 0) -> int:
    """Add two numbers."""
    return a + b


def secret() -> str:
    """A tool no capability grants."""
    raise AssertionError("a denied call must not reach its handler")


class ShellTest(unittest.TestCase):
    def setUp(self) -> None:
        self.sb = capsa.Sandbox()

    def tearDown(self) -> None:
        self.sb.close()

    def test_output_and_exit_code(self) -> None:
        r = self.sb.run_shell("echo hello; echo oops >&2")
        self.assertTrue(r.ok)
        self.assertEqual((r.stdout, r.stderr, r.exit_code), ("hello\n", "oops\n", 0))
        self.assertFalse(r.shell_exited)
        r = self.sb.run_shell("false")
        self.assertTrue(r.ok, "a failing command is not an error of the run")
        self.assertEqual(r.exit_code, 1)
        r = self.sb.run_shell("echo bye; exit 3")
        self.assertEqual((r.stdout, r.exit_code, r.value), ("bye\n", 3, 3))
        self.assertTrue(r.shell_exited)
        self.assertEqual(self.sb.run_shell("nosuchcommand").exit_code, 127)
        self.assertEqual(self.sb.run_shell("echo after exit").stdout, "after exit\n",
                         "the shell stays usable after exit")

    def test_js_runs_have_no_exit_code(self) -> None:
        r = self.sb.run("return 1")
        self.assertIsNone(r.exit_code)
        self.assertFalse(r.shell_exited)
        r = self.sb.run("return await shell('echo js; exit 4')")
        self.assertEqual(r.value, {"stdout": "js\n", "stderr": "", "exitCode": 4})
        self.assertIsNone(r.exit_code)

    def test_pipelines_and_applets(self) -> None:
        r = self.sb.run_shell("printf 'b\\na\\nb\\n' | sort | uniq -c | sed 's/^ *//'")
        self.assertEqual(r.stdout, "1 a\n2 b\n")
        r = self.sb.run_shell("echo '{\"a\": [1, 2]}' | jq -c '.a | map(. * 10)'")
        self.assertEqual(r.stdout, "[10,20]\n")
        self.assertEqual(self.sb.run_shell("js -e 'console.log(6 * 7)'").stdout, "42\n")

    def test_stdin(self) -> None:
        r = self.sb.run_shell("tr a-z A-Z", stdin="hello\n")
        self.assertEqual(r.stdout, "HELLO\n")
        self.assertEqual(self.sb.run_shell("wc -c", stdin=b"abc").stdout.strip(), "3")
        self.assertEqual(self.sb.run_shell("cat", "é\x00x").stdout, "é\x00x")
        self.assertEqual(self.sb.run_shell("cat").stdout, "", "no stdin: empty input")

    def test_state_persists_between_command_lines(self) -> None:
        self.sb.run_shell("X=41; greet() { echo \"hi $1\"; }; mkdir -p /workspace/d; cd /workspace/d")
        r = self.sb.run_shell("echo $((X + 1)); greet you; pwd")
        self.assertEqual(r.stdout, "42\nhi you\n/workspace/d\n")
        self.sb.run_shell("echo data > file.txt")
        self.assertEqual(self.sb.files.read_text("/workspace/d/file.txt"), "data\n",
                         "the shell and the host see the same files")
        self.sb.run("globalThis.fromJs = 'js global'")
        self.assertEqual(self.sb.run_shell("js -p fromJs").stdout, "js global\n")

    def test_syntax_error_is_status_2(self) -> None:
        r = self.sb.run_shell("if then fi")
        self.assertTrue(r.ok)
        self.assertEqual(r.exit_code, 2)
        self.assertIn("syntax error", r.stderr)
        self.assertEqual(self.sb.run_shell("echo fine").exit_code, 0)

    def test_streaming_output(self) -> None:
        chunks: list[tuple[str, str]] = []
        self.sb.run_shell("echo a; echo b >&2; echo ü",
                          on_output=lambda stream, text: chunks.append((stream, text)))
        self.assertEqual("".join(t for s, t in chunks if s == "stdout"), "a\nü\n")
        self.assertEqual("".join(t for s, t in chunks if s == "stderr"), "b\n")

    def test_amla_shell_returns_stdout(self) -> None:
        seen: list[str] = []
        self.assertEqual(self.sb.shell("echo out; echo err >&2; exit 5", on_output=seen.append),
                         "out\n")
        self.assertEqual(self.sb.last_stderr, "err\n")
        self.assertEqual(self.sb.last_exit_code, 5)
        self.assertEqual("".join(seen), "out\n")
        self.assertEqual(self.sb.shell("cat | wc -l", stdin="1\n2\n").strip(), "2")
        self.assertEqual(self.sb.last_exit_code, 0)
        self.sb.execute("console.log(1)")
        self.assertIsNone(self.sb.last_exit_code)

    def test_run_shell_async(self) -> None:
        async def main() -> capsa.RunResult:
            return await self.sb.run_shell_async("read line; echo got $line", stdin="x\n")

        r = asyncio.run(main())
        self.assertEqual((r.stdout, r.exit_code), ("got x\n", 0))

    def test_bad_input(self) -> None:
        for bad in (None, 42, b"echo hi", ["echo"]):
            with self.subTest(bad=bad), self.assertRaises(TypeError):
                self.sb.run_shell(bad)  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            self.sb.shell(None)  # type: ignore[arg-type]
        with self.assertRaisesRegex(ValueError, "NUL"):
            self.sb.run_shell("echo a\x00b")
        with self.assertRaisesRegex(ValueError, "NUL"):
            self.sb.shell("echo \x00")
        with self.assertRaises(TypeError):
            self.sb.run_shell("cat", stdin=3)  # type: ignore[arg-type]
        with self.assertRaises(ValueError):
            self.sb.run_shell("cat", stdin=b"\xff\xfe")
        self.assertEqual(self.sb.run_shell("echo still fine").stdout, "still fine\n")

    def test_a_library_without_the_shell(self) -> None:
        from unittest import mock

        from capsa import _lib

        with mock.patch.object(_lib, "has_shell", lambda *a: False):
            with self.assertRaisesRegex(capsa.ShellNotAvailable, "no shell") as cm:
                self.sb.run_shell("echo")
            self.assertIsInstance(cm.exception, NotImplementedError)
            tool = capsa.create_sandbox_tool()
            res = tool.shell("echo")
            self.assertFalse(res.success)
            self.assertIn("ShellNotAvailable", res.error)
            tool.sandbox.close()
        self.assertEqual(self.sb.run_shell("echo back").stdout, "back\n")

    def test_closed_sandbox(self) -> None:
        sb = capsa.Sandbox()
        sb.close()
        with self.assertRaisesRegex(capsa.CapsaError, "closed"):
            sb.run_shell("echo")


class ShellLimitTest(unittest.TestCase):
    def test_timeout_raises_and_sandbox_stays_usable(self) -> None:
        with capsa.Sandbox(limits={"timeout_ms": 200}) as sb:
            sb.files.write("/workspace/kept.txt", "x")
            sb.run_shell("V=1")
            with self.assertRaises(capsa.TimeLimitExceeded) as cm:
                sb.run_shell("echo before; while true; do :; done")
            self.assertIsNotNone(cm.exception.result)
            self.assertEqual(cm.exception.result.stdout, "before\n")
            self.assertIsNone(cm.exception.result.exit_code)
            r = sb.run_shell("cat kept.txt; echo \"[$V]\"")
            self.assertEqual(r.stdout, "x[]\n", "files survive, the shell's state does not")
            with self.assertRaises(RuntimeError):
                sb.shell("while :; do :; done")
            self.assertIsNone(sb.last_exit_code)

    def test_fuel(self) -> None:
        with capsa.Sandbox(limits={"fuel": 2_000_000}) as sb:
            with self.assertRaises(capsa.FuelExhausted):
                sb.run_shell("while :; do :; done")
            self.assertEqual(sb.run_shell("echo alive").stdout, "alive\n")


class ShellToolTest(unittest.TestCase):
    def test_tool_command_under_the_capabilities(self) -> None:
        caps = [ToolCallCap("add", ConstraintSet([Param("a") <= 10]), max_calls=2)]
        with capsa.Sandbox(tools=[add, secret], capabilities=caps) as sb:
            r = sb.run_shell("tool add --a 1 --b 2")
            self.assertEqual((r.stdout, r.exit_code), ("3\n", 0))
            self.assertEqual(r.stats.tool_calls, 1)
            r = sb.run_shell("tool add --a 50")
            self.assertEqual((r.stdout, r.exit_code), ("", 1))
            self.assertIn("a <= 10 (got 50)", r.stderr)
            self.assertIn("permission_denied", r.stderr)
            r = sb.run_shell("tool secret")
            self.assertNotEqual(r.exit_code, 0)
            self.assertIn("No capability authorizes 'secret'", r.stderr)
            self.assertEqual(sb.run_shell("tool add --a 2 | jq '. + 1'").stdout, "3\n")
            r = sb.run_shell("tool add --a 3")
            self.assertEqual(r.exit_code, 1)
            self.assertIn("Call limit reached", r.stderr)
            self.assertEqual(sb.get_remaining_calls("add"), 0)
            decisions = [e.data["decision"] for e in sb.get_audit_entries("tool_call")]
            self.assertEqual(decisions, ["allowed", "denied", "denied", "allowed", "denied"])

    def test_a_sandbox_without_capabilities_denies(self) -> None:
        with capsa.Sandbox(tools=[add]) as sb:
            r = sb.run_shell("tool add --a 1")
            self.assertEqual((r.stdout, r.exit_code), ("", 1))
            self.assertIn("permission_denied", r.stderr)
            self.assertEqual(sb.run_shell("tool --list").stdout, "add\tAdd two numbers.\n")

    def test_tool_in_run_shell_async(self) -> None:
        async def main() -> capsa.RunResult:
            with capsa.Sandbox(tools=[add], capabilities=["add"]) as sb:
                return await sb.run_shell_async("tool add --a 20 --b 22")

        self.assertEqual(asyncio.run(main()).stdout, "42\n")

    def test_async_tools_are_for_javascript(self) -> None:
        ran: list[int] = []

        async def slow(a: int) -> int:
            ran.append(a)
            return a

        with capsa.Sandbox(tools=[slow, add], capabilities=["slow", "add"]) as sb:
            r = sb.run_shell("tool slow --a 1; echo status $?")
            self.assertEqual(r.stdout, "status 1\n")
            self.assertIn("step mode", r.stderr)
            self.assertEqual((r.exit_code, ran), (0, []), "the handler is not run")
            r = sb.run_shell("tool slow --a 2 || exit 7")
            self.assertEqual((r.exit_code, r.shell_exited, r.value, ran), (7, True, 7, []))
            self.assertEqual(sb.run_shell("tool add --a 1").stdout, "1\n")
            self.assertEqual(sb.run("return await slow({a: 5})").value, 5)
            self.assertEqual(ran, [5])


if __name__ == "__main__":
    unittest.main()
