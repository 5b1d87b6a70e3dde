"""amla-sandbox's names and behaviour: Sandbox.execute, audit, create_sandbox_tool,
SandboxTool; and where capsa is deliberately stricter."""

from __future__ import annotations

import json
import tempfile
import unittest
from datetime import datetime, timedelta, timezone
from pathlib import Path

import capsa
from capsa import AuditConfig, MethodCapability, Sandbox, ToolDefinition


def get_weather(city: str) -> dict:
    """Current weather of a city.

    Args:
        city: the city's name.
    """
    return {"city": city, "temp": 21}


def transfer_money(amount: int, to: str) -> str:
    """Transfer money."""
    return f"sent {amount} to {to}"


class SandboxCompatTest(unittest.TestCase):
    def make(self, **kw: object) -> Sandbox:
        return Sandbox(tools=[ToolDefinition("stripe.listTransactions", "List transactions",
                                             {"type": "object", "properties": {"limit": {"type": "integer"}}})],
                       capabilities=[MethodCapability(method_pattern="**")],
                       tool_handler=lambda method, params: {"method": method, "n": params.get("limit")},
                       **kw)

    def test_execute_returns_stdout_and_streams(self) -> None:
        chunks: list[str] = []
        with self.make() as sb:
            out = sb.execute("const d = await stripe_listTransactions({limit: 100});"
                             "console.log(JSON.stringify(d)); console.error('not in stdout')",
                             on_output=chunks.append)
            self.assertEqual(out, '{"method":"stripe.listTransactions","n":100}\n')
            self.assertEqual("".join(chunks), out)
            self.assertEqual(sb.last_stderr, "not in stdout\n")
            self.assertEqual(sb.execute("", stdin="console.log('via stdin')"), "via stdin\n")
            self.assertEqual(sb.execute("", stdin=b"console.log('bytes')"), "bytes\n")

    def test_script_errors_go_to_last_stderr_as_amla(self) -> None:
        with self.make() as sb:
            out = sb.execute("console.log('partial'); undefined.foo")
            self.assertEqual(out, "partial\n")
            self.assertIn("TypeError", sb.last_stderr)

    def test_limits_raise_runtime_errors(self) -> None:
        with self.make(limits={"timeout_ms": 100}) as sb:
            with self.assertRaises(RuntimeError):
                sb.execute("for(;;){}")
            self.assertIs(capsa.RuntimeError, capsa.CapsaError)

    def test_shell_and_introspection(self) -> None:
        with self.make() as sb:
            sb.files.write("/tmp/x", "a\nb\n")
            self.assertEqual(sb.shell("cat /tmp/x | wc -l").strip(), "2")
            self.assertEqual(sb.shell("grep b", stdin=b"a\nb\n"), "b\n")
            self.assertEqual(sb.shell("cat /nope"), "")
            self.assertIn("/nope", sb.last_stderr)
            self.assertEqual(sb.last_exit_code, 1)
            out = sb.shell("tool stripe.listTransactions --limit 3 | jq -c .")
            self.assertEqual(out, '{"method":"stripe.listTransactions","n":3}\n')
            self.assertTrue(sb.can_call("stripe.listTransactions", {}))
            self.assertEqual([c.method_pattern for c in sb.get_capabilities()], ["**"])
            self.assertEqual(sb.get_call_counts(), {})
            self.assertIsNone(sb.get_remaining_calls("cap:method:**"))

    def test_audit_entries_with_config(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "audit.jsonl"
            seen: list[dict] = []
            cfg = AuditConfig(output_path=path, agent_id="agent-7", trace_id="t-1",
                              custom_enricher=lambda d: {**d, "team": "x"})
            before = datetime.now(timezone.utc) - timedelta(seconds=5)
            with self.make(audit_config=cfg, on_audit=seen.append) as sb:
                sb.execute("await stripe_listTransactions({limit: 1})")
                calls = list(sb.get_audit_entries(entry_type="tool_call"))
                self.assertEqual(len(calls), 1)
                e = calls[0]
                self.assertEqual((e.type, e.agent_id, e.trace_id, e.data["team"]), ("tool_call", "agent-7", "t-1", "x"))
                self.assertEqual(e.data["tool"], "stripe.listTransactions")
                self.assertEqual(e.data["args"], {"limit": 1})
                self.assertEqual(e.data["decision"], "allowed")
                self.assertGreaterEqual(e.timestamp, before)
                self.assertEqual(list(sb.get_audit_entries(since=datetime.now(timezone.utc) + timedelta(hours=1))), [])
                kinds = [x.type for x in sb.get_audit_entries()]
                self.assertEqual(kinds, ["run_start", "tool_call", "run_end"])
                self.assertEqual([d["event"] for d in seen], kinds)
            lines = [json.loads(x) for x in path.read_text().splitlines()]
            self.assertEqual([x["type"] for x in lines], kinds)
            self.assertEqual(lines[1]["agent_id"], "agent-7")

    def test_audit_entries_from_the_log_and_denials(self) -> None:
        with Sandbox(tools=[get_weather, transfer_money], capabilities=["get_weather"]) as sb:
            sb.run("await get_weather({city: 'Oslo'}); try { await transfer_money({amount: 1, to: 'x'}) } catch {}")
            entries = list(sb.get_audit_entries("tool_call"))
            self.assertEqual([e.data["decision"] for e in entries], ["allowed", "denied"])
            self.assertEqual(entries[1].data["reason"],
                             "No capability authorizes 'transfer_money'. Granted: ['get_weather']")
            self.assertEqual(sb.audit_log()[0]["event"], "run_start")

    def test_hashed_arguments(self) -> None:
        with self.make(audit_config=AuditConfig(hash_args=True)) as sb:
            sb.execute("await stripe_listTransactions({limit: 1})")
            e = next(sb.get_audit_entries("tool_call"))
            self.assertNotIn("args", e.data)
            self.assertEqual(len(e.data["args_sha256"]), 64)


class SandboxToolTest(unittest.TestCase):
    def test_create_sandbox_tool_runs_code(self) -> None:
        tool = capsa.create_sandbox_tool(tools=[get_weather])
        self.assertEqual(tool.run("const w = await get_weather({city: 'SF'}); console.log(w.temp)",
                                  language="javascript"), "21\n")
        self.assertEqual(tool.sandbox.get_remaining_calls("get_weather"), capsa.DEFAULT_MAX_CALLS - 1)
        res = tool.execute("return 1 + 1")
        self.assertTrue(res.success)
        self.assertEqual(res.return_value, 2)
        bad = tool.execute("throw new Error('boom')")
        self.assertFalse(bad.success)
        self.assertIn("Error: boom", bad.error)
        self.assertIn("[error]: Error: boom", tool.run("throw new Error('boom')"))
        self.assertEqual(tool.run("", stdin="console.log('s')"), "s\n")

    def test_shell_language(self) -> None:
        tool = capsa.create_sandbox_tool(tools=[get_weather], max_calls={"get_weather": 1})
        self.assertEqual(tool.run("echo hi | tr a-z A-Z", language="shell"), "HI\n")
        self.assertEqual(tool.run("tool get_weather --city SF | jq .temp", language="bash"), "21\n")
        self.assertIn("Call limit reached", tool.run("tool get_weather --city SF", language="sh"))
        self.assertEqual(tool.run("wc -l", language="shell", stdin="1\n2\n").strip(), "2")
        res = tool.shell("echo partial; exit 3")
        self.assertEqual((res.stdout, res.exit_code, res.success, res.error),
                         ("partial\n", 3, False, "exit status 3"))
        self.assertIn("[error]: exit status 3", tool.run("echo partial; exit 3", language="shell"))
        ok = tool.shell("echo fine")
        self.assertEqual((ok.success, ok.exit_code, ok.error), (True, 0, None))
        self.assertIsNone(tool.execute("return 1").exit_code)
        self.assertIn("syntax error", tool.run("if then", language="shell"))
        with self.assertRaisesRegex(ValueError, "unknown language"):
            tool.run("x", language="python")
        shell_default = capsa.create_sandbox_tool(default_language="shell")
        self.assertEqual(shell_default.run("echo $((6 * 7))"), "42\n")
        slow = capsa.create_sandbox_tool(tools=[get_weather])
        slow.sandbox.close()
        res = slow.shell("echo x")
        self.assertFalse(res.success)
        self.assertIn("closed", res.error)

    def test_constraints_and_budgets(self) -> None:
        tool = capsa.create_sandbox_tool(
            tools=[transfer_money],
            constraints={"transfer_money": {"amount": "<=1000", "to": ["alice", "bob"]}},
            max_calls={"transfer_money": 2})
        self.assertEqual(tool.run("console.log(await transfer_money({amount: 10, to: 'bob'}))"),
                         "sent 10 to bob\n")
        out = tool.run("await transfer_money({amount: 5000, to: 'bob'})")
        self.assertIn("amount <= 1000 (got 5000)", out)
        out = tool.run("await transfer_money({amount: 1, to: 'mallory'})")
        self.assertIn("to in", out)
        tool.run("await transfer_money({amount: 1, to: 'alice'})")
        self.assertIn("Call limit reached", tool.run("await transfer_money({amount: 1, to: 'alice'})"))
        one = capsa.create_sandbox_tool(tools=[transfer_money], max_calls=1)
        self.assertEqual(one.sandbox.get_call_counts(), {"cap:tool-call:transfer_money": 1})

    def test_constraint_strings_capsa_does_not_understand_raise(self) -> None:
        for spec in ("<=abc", "lte:5", "regex:.*", "~=3"):
            with self.subTest(spec), self.assertRaisesRegex(capsa.PolicyError, "transfer_money.amount"):
                capsa.create_sandbox_tool(tools=[transfer_money],
                                          constraints={"transfer_money": {"amount": spec}})
        with self.assertRaisesRegex(capsa.PolicyError, "not given"):
            capsa.create_sandbox_tool(tools=[transfer_money], constraints={"typo": {"a": "<1"}})
        tool = capsa.create_sandbox_tool(tools=[transfer_money], constraints={"transfer_money": {
            "to": "startswith:acct_", "amount": capsa.Param("amount") > 0}})
        self.assertIn("to starts_with", tool.run("await transfer_money({amount: 1, to: 'x'})"))

    def test_from_functions_and_prompts(self) -> None:
        tool = capsa.SandboxTool.from_functions([get_weather, transfer_money])
        self.assertEqual(tool.run("console.log((await get_weather({city: 'A'})).city)"), "A\n")
        desc = tool.get_tool_descriptions()
        self.assertIn("### get_weather(city: str)", desc)
        self.assertIn("city: the city's name.", desc)
        prompt = tool.get_system_prompt()
        self.assertIn("`get_weather({city: str})` - Current weather of a city.", prompt)
        self.assertNotIn("language=\"shell\"", prompt)
        separate = tool.get_system_prompt_for_separate_tools()
        self.assertIn("a `sandbox_js` tool", separate)
        self.assertIn("`sandbox_shell`", separate)
        self.assertIn("tool toolName --param value", separate)
        self.assertNotIn("Available Functions", tool.get_system_prompt(include_tools=False))

    def test_langchain_export_needs_langchain(self) -> None:
        try:
            import langchain_core  # noqa: F401
        except ImportError:
            tool = capsa.create_sandbox_tool()
            with self.assertRaisesRegex(ImportError, "pip install langchain-core"):
                tool.as_langchain_tool()
            with self.assertRaisesRegex(ImportError, "needs LangChain"):
                tool.as_langchain_tools()
        else:
            lc = capsa.create_sandbox_tool(tools=[get_weather]).as_langchain_tool()
            self.assertEqual(lc.invoke({"code": "console.log(2)"}), "2\n")
            js, sh = capsa.create_sandbox_tool().as_langchain_tools()
            self.assertEqual((js.name, sh.name), ("sandbox_js", "sandbox_shell"))
            self.assertEqual(sh.invoke({"command": "echo $((1 + 1))"}), "2\n")


if __name__ == "__main__":
    unittest.main()
