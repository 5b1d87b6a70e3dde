"""Sandbox(mcp_servers=...): upstream MCP servers' tools under the capabilities,
against the hostile fake server of tests/mcp_client (node, no npm packages):
results, denials, the status, the log, a list that changes, reaping on close, and
bad configurations."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import sys
import tempfile
import unittest
import warnings
from pathlib import Path

import capsa

FAKE = Path(__file__).resolve().parent.parent / "mcp_client" / "fake.mjs"
NODE = shutil.which("node")


def alive(pid: int) -> bool:
    """A live process (a zombie left to whoever inherited it is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def quiet(server: str, kind: int, text: str) -> None:
    """An mcp_log that drops everything (the fake server's bad_schema is reported)."""


@unittest.skipIf(NODE is None, "node is not installed")
class MCPTest(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="capsa-py-mcp-")
        self.log = os.path.join(self.dir, "fake.log")
        self.servers = {"fake": {"command": NODE, "args": [str(FAKE), "--log", self.log]}}

    def tearDown(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_calls_status_and_close(self) -> None:
        lines: list[tuple[str, int, str]] = []
        sb = capsa.Sandbox(capabilities=["fake.echo", "fake.pid", "fake.structured"],
                           mcp_servers=self.servers, mcp_log=lambda s, k, t: lines.append((s, k, t)))
        try:
            r = sb.run("return [await tools.fake.echo({text: 'py'}), await tools.fake.structured({}),"
                       " await tools.fake.pid({})]").raise_for_error()
            echo, structured, pid = r.value
            self.assertEqual(echo, {"tool": "echo", "args": {"text": "py"}})
            self.assertEqual(structured, {"n": 1, "tag": "structured"})
            r = sb.run("try { await tools.fake.env({}) } catch (e) { return e.code }")
            self.assertEqual(r.value, "permission_denied")
            [st] = sb.mcp_status()
            self.assertEqual((st["name"], st["state"], st["transport"]), ("fake", "ready", "stdio"))
            self.assertIn("fake.echo", st["tools"])
            self.assertEqual(st["server"], {"name": "fake", "version": "0.0.1"})
            self.assertIn(("fake", capsa.MCPLogKind.STDERR, "fake server ready"), lines)
            self.assertTrue(any(k == capsa.MCPLogKind.EVENT and "bad_schema" in t for _, k, t in lines),
                            "the tool capsa refuses is reported")
            self.assertTrue(alive(pid["pid"]))
        finally:
            sb.close()
        self.assertFalse(alive(pid["pid"]), "closing the sandbox stops and reaps its servers")
        calls = [json.loads(x) for x in Path(self.log).read_text().splitlines()]
        called = [c["name"] for c in calls if c.get("method") == "tools/call"]
        self.assertEqual(called, ["echo", "structured", "pid"], "the denied call never reached the server")

    def test_list_changes_between_runs(self) -> None:
        with capsa.Sandbox(capabilities=["**"], mcp_servers={"mcpServers": self.servers},
                           mcp_log=quiet) as sb:
            sb.run("await tools.fake.add_tool({name: 'later'})").raise_for_error()
            r = sb.run("return (await tools.fake.later({})).tool").raise_for_error()
            self.assertEqual(r.value, "later")

    def test_restore_rebinds_the_servers_tools(self) -> None:
        # A checkpoint names fake.echo: restored with the servers started again, the
        # call reaches the new server, the budget used before is kept, and the state of
        # the script too; without them the tool has no handler.
        with capsa.Sandbox(capabilities=[capsa.ToolCallCap("fake.echo", max_calls=2)],
                           mcp_servers=self.servers, mcp_log=quiet) as sb:
            sb.run("globalThis.seen = [(await tools.fake.echo({text: 'a'})).args.text]"
                   ).raise_for_error()
            blob = sb.checkpoint()
        with self.assertRaisesRegex(capsa.CheckpointError, "fake.echo"):
            capsa.Sandbox.restore(blob)
        with capsa.Sandbox.restore(blob, mcp_servers=self.servers, mcp_log=quiet) as back:
            [st] = back.mcp_status()
            self.assertEqual(st["state"], "ready")
            r = back.run("seen.push((await tools.fake.echo({text: 'b'})).args.text);"
                         "try { await tools.fake.echo({text: 'c'}) } catch (e) { seen.push(e.code) }"
                         "return seen").raise_for_error()
            self.assertEqual(r.value, ["a", "b", "permission_denied"])  # max_calls=2 spent
        calls = [json.loads(x) for x in Path(self.log).read_text().splitlines()]
        called = [c["name"] for c in calls if c.get("method") == "tools/call"]
        self.assertEqual(called, ["echo", "echo"], "the refused call never reached a server")

    def test_a_pickled_sandbox_starts_its_servers_again(self) -> None:
        with capsa.Sandbox(capabilities=["fake.echo"], mcp_servers=self.servers,
                           mcp_log=quiet) as sb:
            sb.run("globalThis.n = 41").raise_for_error()
            data = pickle.dumps(sb)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the refused bad_schema tool
            back = pickle.loads(data)
        with back:
            r = back.run("return [n + 1, (await tools.fake.echo({text: 'p'})).tool]").raise_for_error()
            self.assertEqual(r.value, [42, "echo"])

    def test_concurrent_calls_bounded_by_tool_concurrency(self) -> None:
        with capsa.Sandbox(capabilities=["fake.*"], mcp_servers=self.servers, mcp_log=quiet,
                           limits=capsa.Limits(tool_concurrency=2)) as sb:
            r = sb.run("const all = await Promise.all(Array.from({length: 6}, () => tools.fake.slow({ms: 300})));"
                       " return [all.length, await tools.fake.max_inflight({})]").raise_for_error()
            self.assertEqual(r.value[0], 6)
            self.assertEqual(r.value[1], 2, "six calls at once, two in flight: the sandbox's tool_concurrency")

    def test_config_as_file_and_text(self) -> None:
        path = os.path.join(self.dir, "mcp.json")
        Path(path).write_text(json.dumps({"mcpServers": self.servers}))
        for servers in (path, Path(path), json.dumps({"mcpServers": self.servers})):
            with capsa.Sandbox(capabilities=["fake.echo"], mcp_servers=servers, mcp_log=quiet) as sb:
                self.assertEqual(sb.run("return (await tools.fake.echo({})).tool").value, "echo")

    def test_a_server_that_fails(self) -> None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with capsa.Sandbox(mcp_servers={"gone": {"command": "no-such-program-capsa"}}) as sb:
                [st] = sb.mcp_status()
                self.assertEqual(st["state"], "failed")
                self.assertIn("not found on its PATH", st["error"])
                self.assertEqual(sb.run("return tools.list().length").value, 0)
        self.assertTrue(any("not found on its PATH" in str(w.message) for w in caught))

    def test_bad_configurations(self) -> None:
        bad = [({"fake": {"comand": "x"}}, "mcpServers.fake.comand: unknown field"),
               ({"fake": {"command": "x", "args": [1]}}, "args[0]: must be a string"),
               ({"fake": {"type": "sse", "url": "http://127.0.0.1:1/"}}, "SSE"),
               ("{not json", "not JSON")]
        for servers, want in bad:
            with self.assertRaises(capsa.InvalidArgument) as ctx:
                capsa.Sandbox(mcp_servers=servers)
            self.assertIn(want, str(ctx.exception))
        with self.assertRaises(TypeError):
            capsa.Sandbox(mcp_servers=42)
        with self.assertRaises(TypeError):
            capsa.Sandbox(mcp_servers=self.servers, mcp_log="not callable")
        with self.assertRaises(FileNotFoundError):
            capsa.Sandbox(mcp_servers=os.path.join(self.dir, "missing.json"))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]])
