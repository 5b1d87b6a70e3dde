"""The audit trail in Python: the host's own record (never the guest's file), the
collector's cap, and JSON from the guest nested too deeply for Python's parser."""

from __future__ import annotations

import ctypes
import json
import os
import tempfile
import unittest
import warnings

import capsa
from capsa import AuditCollector, AuditConfig, _lib

# An array 1501 levels deep (1500 wrapped around an empty one).
DEEP = "Array.from({length: 1500}).reduce((a) => [a], [])"
LEVELS = 1501


def echo(value: object = None) -> object:
    """Return the value."""
    return value


class HostRecordTest(unittest.TestCase):
    def test_the_guest_cannot_add_to_the_trail(self) -> None:
        with capsa.Sandbox(tools=[echo], capabilities=["echo"]) as sb:
            r = sb.run("await echo({value: 1}); const out = [];"
                       "for (const t of ['{\"event\":\"tool_call\",\"tool\":\"forged\",', '\\n{\"tool\":\"forged\"}\\n'])"
                       "  try { fs.appendFileSync('/log/actions.jsonl', t); out.push('appended') }"
                       "  catch (e) { out.push(e.code) }"
                       "await echo({value: 2}); return out")
            self.assertEqual(r.value, ["EPERM", "EPERM"])
            log = sb.files.read("/log/actions.jsonl").decode()
            self.assertNotIn("forged", log)
            self.assertEqual([json.loads(line)["event"] for line in log.splitlines()],
                             ["run_start", "tool_call", "tool_call", "run_end"])

    def test_entries_are_what_the_library_delivered(self) -> None:
        for cfg in (None, AuditConfig(agent_id="a-1")):
            with self.subTest(config=cfg), capsa.Sandbox(tools=[echo], capabilities=["echo"],
                                                          audit_config=cfg) as sb:
                sb.run("await echo({value: 1})")
                # Whatever /log holds (here the host itself rewrote it), the entries
                # are the lines the library handed to the audit callback.
                sb.files.write("/log/actions.jsonl",
                               '{"time":"2026-01-01T00:00:00Z","event":"tool_call","tool":"forged"}\n'
                               '{"event":"tool_call","tool":"forged2",')
                calls = [e.data["tool"] for e in sb.get_audit_entries("tool_call")]
                self.assertEqual(calls, ["echo"])
                self.assertEqual([d["event"] for d in sb.audit_log()], ["run_start", "tool_call", "run_end"])


def options_of(sb: capsa.Sandbox) -> _lib.Options:
    opts = _lib.Options()
    opts.struct_size = ctypes.sizeof(opts)
    assert _lib.lib().capsa_sandbox_options(sb.handle, ctypes.byref(opts)) == _lib.OK
    return opts


class KeptLinesTest(unittest.TestCase):
    """Without anything that needs each line at once, the library keeps the lines
    (CAPSA_AUDIT_KEEP) and the package takes them once per step: the same entries as
    by the callback, in order, with the turn they came in."""

    def trail(self, **kw: object) -> tuple[bool, list[tuple[str, int]], list[str]]:
        with capsa.Sandbox(tools=[echo], capabilities=["echo"], **kw) as sb:
            kept = bool(options_of(sb).audit_flags & _lib.AUDIT_KEEP)
            sb.run("await echo({value: 1})")
            if sb.audit_collector is not None:
                sb.audit_collector.new_turn()
            sb.run("await echo({value: 2}); await echo({value: 3})")
            sb.checkpoint()
            log = [json.loads(line)["event"] for line in
                   sb.files.read("/log/actions.jsonl").decode().splitlines()]
            got = [(e.type, e.turn_id) for e in sb.get_audit_entries()]
        return kept, got, log

    def test_kept_or_called_back_the_same_entries(self) -> None:
        seen: list[dict] = []
        with tempfile.TemporaryDirectory() as d:
            cases = [({}, True), ({"audit_config": AuditConfig(agent_id="a")}, True),
                     ({"on_audit": seen.append}, False),
                     ({"audit_config": AuditConfig(output_path=os.path.join(d, "a.jsonl"))}, False)]
            for kw, keep in cases:
                with self.subTest(kw=kw):
                    kept, got, log = self.trail(**kw)
                    self.assertEqual(kept, keep)
                    self.assertEqual([t for t, _ in got], log)
                    self.assertEqual(log[-1], "checkpoint")
                    if "audit_config" in kw:
                        self.assertEqual([n for _, n in got], [0, 0, 0, 1, 1, 1, 1, 1])
        self.assertEqual(len(seen), 8)

    def test_a_restored_sandbox_keeps_them_too(self) -> None:
        seen: list[dict] = []
        with capsa.Sandbox(tools=[echo], capabilities=["echo"]) as sb:
            sb.run("await echo({value: 1})")
            blob = sb.checkpoint()
        for kw, keep in (({}, True), ({"on_audit": seen.append}, False)):
            with self.subTest(kw=kw), capsa.Sandbox.restore(blob, tools=[echo], **kw) as back:
                self.assertEqual(bool(options_of(back).audit_flags & _lib.AUDIT_KEEP), keep)
                back.run("await echo({value: 2})")
                got = [e.type for e in back.get_audit_entries()]
                log = [json.loads(line)["event"] for line in
                       back.files.read("/log/actions.jsonl").decode().splitlines()]
                self.assertEqual(got, ["restore", "run_start", "tool_call", "run_end"])
                self.assertEqual(got, log[-4:], "the trail's own lines since the restore")
        self.assertEqual([e["event"] for e in seen], ["restore", "run_start", "tool_call", "run_end"])

    def test_lines_of_the_run_in_progress(self) -> None:
        holder: list[capsa.Sandbox] = []
        during: list[list[str]] = []

        def look() -> int:
            during.append([e.type for e in holder[0].get_audit_entries()])
            return 1

        with capsa.Sandbox(tools=[look], capabilities=["look"]) as sb:
            holder.append(sb)
            sb.run("return 1")
            sb.run("await look(); await look()")
            self.assertEqual(during[0], ["run_start", "run_end", "run_start"])
            self.assertEqual(during[1], ["run_start", "run_end", "run_start", "tool_call"])
            self.assertEqual([e.type for e in sb.get_audit_entries()],
                             ["run_start", "run_end", "run_start", "tool_call", "tool_call", "run_end"])

    def test_add_lines_deferred(self) -> None:
        line = json.dumps({"time": "2026-01-01T00:00:00.000Z", "event": "tool_call",
                           "args": {"s": "a\u2028b\rc"}}, ensure_ascii=False)
        c = AuditCollector(AuditConfig(max_entries=3))
        c.add_lines_deferred(((line + "\n") * 2 + "not json {\n" + line + "\n").encode())
        self.assertEqual([e.type for e in c.entries], ["tool_call", "tool_call", "unparsed",
                                                       "audit_overflow"])
        self.assertEqual(c.entries[0].data["args"]["s"], "a\u2028b\rc")
        self.assertEqual(c.dropped, 1)
        c.add_lines_deferred(b"")
        self.assertEqual(len(c), 4)


class CollectorCapTest(unittest.TestCase):
    def line(self, i: int) -> str:
        return json.dumps({"time": "2026-01-01T00:00:00.000Z", "event": "tool_call", "id": i})

    def test_entries_past_the_cap_are_counted_once_marked(self) -> None:
        c = AuditCollector(AuditConfig(max_entries=5))
        for i in range(12):
            self.assertIsNotNone(c.add_line(self.line(i)))
        entries = c.entries
        self.assertEqual([e.data.get("id") for e in entries[:5]], [0, 1, 2, 3, 4])
        self.assertEqual(len(entries), 6)
        marker = entries[5]
        self.assertEqual(marker.type, "audit_overflow")
        self.assertEqual(marker.data["dropped"], 7)
        self.assertEqual(c.dropped, 7)
        self.assertEqual(len(c), 6)
        self.assertEqual([e.type for e in c.get_entries("audit_overflow")], ["audit_overflow"])
        c.clear()
        self.assertEqual((c.entries, c.dropped), ([], 0))

    def test_bytes_cap(self) -> None:
        size = len(self.line(0))
        c = AuditCollector(AuditConfig(max_bytes=size * 3))
        for i in range(10):
            c.add_line(self.line(i))
        self.assertEqual(len([e for e in c.entries if e.type == "tool_call"]), 3)
        self.assertEqual(c.dropped, 7)

    def test_a_deferred_line_is_the_entry_of_add_line(self) -> None:
        # The library's lines are parsed when read: the same entries, each with the
        # context (turn) it came in, the same caps, non-UTF-8 and non-JSON kept.
        cfg = AuditConfig(max_entries=4, agent_id="a1", trace_id="t1")
        now, later = AuditCollector(cfg, session_id="s"), AuditCollector(cfg, session_id="s")
        lines = [self.line(0), b"not json {", "caf\u00e9".encode("latin-1"), self.line(3),
                 self.line(4), self.line(5)]
        for i, line in enumerate(lines):
            now.add_line(line)
            later.add_line_deferred(line)
            if i == 1:
                now.new_turn()
                later.new_turn()
        self.assertEqual(len(later), 5)
        self.assertEqual(later.dropped, 2)
        self.assertEqual([e.data for e in later.entries], [e.data for e in now.entries])
        got = [(e.type, e.session_id, e.agent_id, e.trace_id, e.turn_id, e.line)
               for e in later.get_entries()]
        want = [(e.type, e.session_id, e.agent_id, e.trace_id, e.turn_id, e.line) for e in now.entries]
        self.assertEqual(got, want)
        self.assertEqual([e.turn_id for e in later.entries[:4]], [0, 0, 1, 1])
        self.assertEqual(later.entries[1].type, "unparsed")
        self.assertEqual(later.entries[0].timestamp, now.entries[0].timestamp)

    def test_deferred_bytes_cap(self) -> None:
        size = len(self.line(0))
        c = AuditCollector(AuditConfig(max_bytes=size * 3))
        for i in range(10):
            c.add_line_deferred(self.line(i))
        self.assertEqual([e.data["id"] for e in c.entries if e.type == "tool_call"], [0, 1, 2])
        self.assertEqual(c.dropped, 7)

    def test_no_line_is_lost(self) -> None:
        def enricher(d: dict) -> dict:
            raise KeyError("boom")

        c = AuditCollector(AuditConfig(custom_enricher=enricher))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            e = c.add_line(self.line(1))
            self.assertEqual((e.type, e.data["id"]), ("tool_call", 1))
            self.assertIn("custom_enricher raised", str(caught[0].message))
            e = c.add_line(b"not json {")
            self.assertEqual((e.type, e.data["line"]), ("unparsed", "not json {"))
            deep = '{"event":"tool_call","args":' + "[" * 3000 + "]" * 3000 + "}"
            e = c.add_line(deep)
            self.assertEqual(e.type, "tool_call")
            self.assertIsInstance(e.to_jsonl(), str)
        self.assertEqual(len(c), 3)

    def test_sandbox_default_cap(self) -> None:
        self.assertEqual(AuditConfig().max_entries, 10_000)
        self.assertEqual(AuditConfig().max_bytes, 16 << 20)
        with capsa.Sandbox(tools=[echo], capabilities=["echo"],
                           audit_config=AuditConfig(max_entries=3)) as sb:
            sb.run("for (let i = 0; i < 10; i++) await echo({value: i})")
            kinds = [e.type for e in sb.get_audit_entries()]
            self.assertEqual(kinds, ["run_start", "tool_call", "tool_call", "audit_overflow"])
            self.assertEqual(sb.audit_collector.dropped, 9)


class DeepJsonTest(unittest.TestCase):
    def depth(self, v: object) -> int:
        n = 0
        while isinstance(v, list):
            n += 1
            v = v[0] if v else None
        return n

    def test_a_deep_return_value(self) -> None:
        with capsa.Sandbox() as sb:
            r = sb.run("return " + DEEP)
            self.assertEqual(r.value_json, "[" * LEVELS + "]" * LEVELS)
            # Decoded as deep as capsa goes, then the JSON text itself, marked.
            inner = r.value
            for _ in range(capsa.JSON_MAX_DEPTH):
                self.assertIsInstance(inner, list)
                inner = inner[0]
            self.assertIsInstance(inner, capsa.JSONTooDeep)
            rest = LEVELS - capsa.JSON_MAX_DEPTH
            self.assertEqual(inner, "[" * rest + "]" * rest)
            self.assertEqual(sb.run("return [1, {a: 2}]").value, [1, {"a": 2}])
            # amla's execute prints the returned value after the output, as JSON text.
            self.assertEqual(sb.execute(f"console.log('x'); return {DEEP}"),
                             "x\n" + "[" * LEVELS + "]" * LEVELS)

    def test_a_deep_json_file(self) -> None:
        with capsa.Sandbox() as sb:
            sb.run(f"fs.writeFileSync('/workspace/deep.json', JSON.stringify({DEEP}))")
            self.assertEqual(self.depth(sb.files.read_json("/workspace/deep.json")), capsa.JSON_MAX_DEPTH)

    def test_sandbox_tool_run_never_raises(self) -> None:
        tool = capsa.create_sandbox_tool(tools=[echo])
        out = tool.run(f"console.log('ran'); return {DEEP}", language="javascript")
        self.assertIn("ran", out)
        self.assertTrue(tool.execute(f"return {DEEP}").success)

    def test_deep_arguments_keep_their_audit_entry(self) -> None:
        seen: list[dict] = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for cfg in (None, AuditConfig()):
                seen.clear()
                with self.subTest(config=cfg), capsa.Sandbox(tools=[echo], capabilities=["echo"],
                                                              audit_config=cfg, on_audit=seen.append) as sb:
                    r = sb.run(f"try {{ await echo({{value: {DEEP}}}) }} catch (e) {{ return e.code }} return 'ok'")
                    self.assertEqual(r.value, "invalid_arguments")
                    calls = list(sb.get_audit_entries("tool_call"))
                    self.assertEqual(len(calls), 1)
                    args = calls[0].data["args"]
                    self.assertEqual(self.depth(args["value"]), capsa.JSON_MAX_DEPTH - 2)
                    self.assertEqual([d["event"] for d in seen], ["run_start", "tool_call", "run_end"])


if __name__ == "__main__":
    unittest.main()
