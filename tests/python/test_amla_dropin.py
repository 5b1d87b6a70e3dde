"""The amla_sandbox package (capsa.amla_sandbox): programs written against amla-sandbox
0.1.x's public API, run through capsa by changing one import; amla's module layout,
return values, errors, mcp: names, compact constraints, the guest's helpers; and
attempts to use the compatibility layer to get past the host's checks."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Optional

import capsa
import capsa.as_amla_sandbox  # noqa: F401 - the one line under test: amla_sandbox -> capsa

import amla_sandbox  # noqa: E402 - resolves to capsa.amla_sandbox now
from amla_sandbox import (  # noqa: E402
    ConstraintSet,
    MethodCapability,
    Param,
    Sandbox,
    SandboxTool,
    ToolDefinition,
    create_bash_tool,
    create_sandbox_tool,
)

ROOT = Path(__file__).resolve().parents[2]

SUBMODULES = [
    "capabilities", "capabilities.constraints", "capabilities.method", "capabilities.patterns",
    "capabilities.tool_call", "tools", "tools.definition", "tools.conversion", "tools.handlers",
    "tools.ingest", "audit", "codeact", "langgraph", "bash_tool", "runtime", "runtime.wasm",
    "schema", "auth", "sandbox",
]


def get_weather(city: str) -> dict:
    """Get weather for a city."""
    return {"city": city, "temp": 72}


def transfer_money(amount: int, currency: str = "USD") -> str:
    """Transfer money."""
    return f"sent {amount} {currency}"


def python_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "python"), **extra}


class LayoutTest(unittest.TestCase):
    def test_import_resolves_to_capsa(self) -> None:
        self.assertIs(amla_sandbox, importlib.import_module("capsa.amla_sandbox"))
        for name in SUBMODULES:
            with self.subTest(name):
                self.assertIs(importlib.import_module(f"amla_sandbox.{name}"),
                              importlib.import_module(f"capsa.amla_sandbox.{name}"))
        for name in amla_sandbox.__all__:
            with self.subTest(name):
                self.assertTrue(hasattr(amla_sandbox, name), name)

    def test_same_objects_as_capsa(self) -> None:
        from amla_sandbox.capabilities.constraints import MissingParamError, Param as P
        from amla_sandbox.capabilities.method import CallLimitExceededError, ToolCallCap
        from amla_sandbox.tools.definition import ToolDefinition as TD

        self.assertIs(P, capsa.Param)
        self.assertIs(ToolCallCap, capsa.ToolCallCap)
        self.assertIs(MissingParamError, capsa.MissingParamError)
        self.assertIs(CallLimitExceededError, capsa.CallLimitExceededError)
        self.assertIs(TD, capsa.ToolDefinition)
        self.assertTrue(issubclass(Sandbox, capsa.Sandbox))

    def test_alias_leaves_a_real_amla_sandbox_alone(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            real = Path(tmp) / "amla_sandbox"
            real.mkdir()
            (real / "__init__.py").write_text("REAL = True\n")
            code = ("import capsa.as_amla_sandbox as a, amla_sandbox; "
                    "print(a.INSTALLED, getattr(amla_sandbox, 'REAL', False))")
            p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               timeout=60, env=python_env(PYTHONPATH=f"{tmp}:{ROOT / 'python'}"))
            self.assertEqual(p.stdout.split(), ["False", "True"], p.stderr)
            p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               timeout=60, env=python_env())
            self.assertEqual(p.stdout.split(), ["True", "False"], p.stderr)

    def test_run_a_program_unchanged(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            prog = Path(tmp) / "prog.py"
            # A module beside the program imports as with `python3 prog.py`.
            (Path(tmp) / "beside.py").write_text("X = 'beside'\n")
            prog.write_text("import sys\nfrom amla_sandbox import create_sandbox_tool\nimport beside\n"
                            "print(create_sandbox_tool().run('return 6 * 7'), sys.argv[1:], beside.X)\n")
            p = subprocess.run([sys.executable, "-m", "capsa.amla_sandbox", str(prog), "x"],
                               capture_output=True, text=True, timeout=60, env=python_env())
            self.assertEqual(p.stdout.strip(), "42 ['x'] beside", p.stderr)
            p = subprocess.run([sys.executable, "-m", "capsa.amla_sandbox"], capture_output=True,
                               text=True, timeout=60, env=python_env())
            self.assertEqual(p.returncode, 2)
            self.assertIn("usage:", p.stderr)


class ReadmeExamplesTest(unittest.TestCase):
    """amla-sandbox's README examples, through the compatibility layer."""

    def test_quick_start(self) -> None:
        sandbox = create_sandbox_tool()
        self.assertEqual(sandbox.run("console.log('hello'.toUpperCase())", language="javascript"),
                         "HELLO\n")
        self.assertEqual(sandbox.run("echo 'hello' | tr 'a-z' 'A-Z'", language="shell"), "HELLO\n")
        sandbox = create_sandbox_tool(tools=[get_weather])
        out = sandbox.run("const w = await get_weather({city: 'SF'}); console.log(w);",
                          language="javascript")
        self.assertEqual(out, "{ city: 'SF', temp: 72 }\n")

    def test_shell_pipelines_over_a_tool(self) -> None:
        def list_transactions(customer: str) -> list:
            """List transactions."""
            return [{"id": "t1", "disputed": False}, {"id": "t2", "disputed": True}]

        sandbox = create_sandbox_tool(tools=[list_transactions])
        out = sandbox.run("const txns = await list_transactions({customer: 'cus_123'});"
                          "const disputed = txns.filter(t => t.disputed); console.log(disputed[0]);",
                          language="javascript")
        self.assertEqual(out, "{ id: 't2', disputed: true }\n")
        out = sandbox.run("tool list_transactions --customer cus_123 | "
                          "jq -c '[.[] | select(.disputed)] | .[0]'", language="shell")
        self.assertEqual(out, '{"id":"t2","disputed":true}\n')

    def test_with_constraints(self) -> None:
        sandbox = create_sandbox_tool(
            tools=[transfer_money],
            constraints={"transfer_money": {"amount": "<=1000", "currency": ["USD", "EUR"]}},
            max_calls={"transfer_money": 10})
        self.assertEqual(sandbox.run("return await transfer_money({amount: 10, currency: 'EUR'})"),
                         "sent 10 EUR")
        self.assertIn("amount <= 1000 (got 5000)",
                      sandbox.run("await transfer_money({amount: 5000, currency: 'USD'})"))
        self.assertIn("currency in", sandbox.run("await transfer_money({amount: 1, currency: 'GBP'})"))
        self.assertEqual(sandbox.sandbox.get_remaining_calls("cap:tool-call:transfer_money"), 9)

    def test_capability_enforcement(self) -> None:
        calls: list[dict] = []

        def my_handler(method: str, params: dict) -> dict:
            calls.append(params)
            return {"id": "ch_1", **params}

        # amla's README passes no tools; capsa calls only registered tools.
        charge = ToolDefinition("stripe/charges/create", "Create a charge",
                                {"type": "object", "properties": {"amount": {"type": "integer"},
                                                                  "currency": {"type": "string"}}})
        sandbox = Sandbox(
            tools=[charge],
            capabilities=[MethodCapability(
                method_pattern="stripe/charges/*",
                constraints=ConstraintSet([Param("amount") <= 10000,
                                           Param("currency").is_in(["USD", "EUR"])]),
                max_calls=100)],
            tool_handler=my_handler)
        sandbox.execute('await stripe.charges.create({amount: 500, currency: "USD"})')
        self.assertEqual(sandbox.last_stderr, "")
        sandbox.execute('await stripe.charges.create({amount: 50000, currency: "USD"})')
        self.assertIn("amount <= 10000 (got 50000)", sandbox.last_stderr)
        self.assertEqual(calls, [{"amount": 500, "currency": "USD"}])
        self.assertEqual(sandbox.get_remaining_calls("cap:method:stripe/charges/*"), 99)

    def test_javascript_api_notes(self) -> None:
        sandbox = create_sandbox_tool(tools=[get_weather])
        self.assertIn("must be an object", sandbox.run('await get_weather("SF");'))
        self.assertEqual(sandbox.run('return await get_weather({city: "SF"});'),
                         '{"city":"SF","temp":72}')
        self.assertEqual(sandbox.run("return {a: 1, b: 2};"), '{"a":1,"b":2}')
        self.assertEqual(sandbox.run('return "hello";'), "hello")
        self.assertEqual(sandbox.run("console.log(JSON.stringify({a: 1}));"), '{"a":1}\n')
        self.assertEqual(sandbox.run("const x = 42;"), "(no output)")
        self.assertEqual(sandbox.run("await fs.writeFile('/workspace/data.json', '{}');"
                                     "await fs.mkdir('/tmp/cache'); return 'ok'"), "ok")
        # amla says EACCES; capsa reports the read-only root as Node does.
        self.assertIn("EROFS", sandbox.run("await fs.mkdir('/mydir');"))

    def test_persisting_state_between_executions(self) -> None:
        sb = Sandbox(tools=[get_weather], capabilities=["get_weather"])
        sb.execute("const result = [1, 2, 3];"
                   "await fs.writeFile('/workspace/cache.json', JSON.stringify(result));"
                   "console.log('Computed');")
        out = sb.execute("const cached = JSON.parse(await fs.readFile('/workspace/cache.json'));"
                         "console.log('Using cached:', cached.length, 'items');")
        self.assertEqual(out, "Using cached: 3 items\n", sb.last_stderr)

    def test_fine_grained_capabilities_with_mcp_names(self) -> None:
        seen: list[str] = []

        def search_db(query: str) -> dict:
            seen.append(query)
            return {"results": [query]}

        caps = [MethodCapability(method_pattern="mcp:search_db",
                                 constraints=ConstraintSet([Param("query").starts_with("SELECT")]),
                                 max_calls=5)]
        tool = SandboxTool.from_functions([search_db], capabilities=caps)
        self.assertEqual(tool.run("return (await search_db({query: 'SELECT 1'})).results[0]"),
                         "SELECT 1")
        self.assertIn('query starts_with "SELECT"', tool.run("await search_db({query: 'DROP x'})"))
        self.assertEqual(seen, ["SELECT 1"])
        sb = tool.sandbox
        self.assertEqual(sb.get_remaining_calls("cap:method:mcp:search_db"), 4)
        self.assertEqual(sb.get_call_counts(), {"cap:method:mcp:search_db": 4})
        self.assertTrue(sb.can_call("mcp:search_db", {"query": "SELECT 2"}))
        self.assertFalse(sb.can_call("mcp:search_db", {"query": "x"}))

    def test_langgraph_needs_langchain(self) -> None:
        try:
            import langchain_core  # noqa: F401
        except ImportError:
            with self.assertRaisesRegex(ImportError, "langchain-core"):
                create_sandbox_tool(tools=[get_weather]).as_langchain_tool()
        else:
            lc = create_sandbox_tool(tools=[get_weather]).as_langchain_tool()
            self.assertEqual(lc.invoke({"code": "return 1"}), "1")


class ScopeTest(unittest.TestCase):
    def test_each_execute_has_its_own_scope(self) -> None:
        sb = Sandbox(capabilities=[])
        self.assertEqual(sb.execute("const x = 1; var v = 2; function f() { return 3 } return x + v + f()"), "6")
        self.assertEqual(sb.execute("const x = 10; return x"), "10", sb.last_stderr)
        self.assertEqual(sb.execute("return [typeof v, typeof f].join()"), "undefined,undefined")
        self.assertEqual(sb.last_stderr, "")
        # Error lines are the script's own.
        sb.execute("\n\nnull.x")
        self.assertIn("(<input>:3)", sb.last_stderr)

    def test_capsa_keeps_notebook_persistence(self) -> None:
        with capsa.Sandbox() as sb:
            sb.run("const kept = 5")
            self.assertEqual(sb.run("return kept").value, 5)
            self.assertEqual(sb.execute("return kept"), "5")

    def test_stdin_is_the_code_in_its_scope(self) -> None:
        sb = Sandbox(capabilities=[])
        self.assertEqual(sb.execute("", stdin="const y = 1; return y"), "1")
        self.assertEqual(sb.execute("", stdin=b"const y = 2; return y"), "2")

    def test_a_limit_loses_nothing_but_the_run(self) -> None:
        sb = Sandbox(capabilities=[], limits={"timeout_ms": 200})
        sb.execute("await fs.writeFile('/workspace/k', 'v')")
        with self.assertRaises(capsa.TimeLimitExceeded):
            sb.execute("for (;;) {}")
        # The helpers are made again after the reset; the file is still there.
        self.assertEqual(sb.execute("return await fs.readFile('/workspace/k')"), "v")
        self.assertEqual(sb.execute("return typeof shell.run"), "function")


class ReturnValueTest(unittest.TestCase):
    def test_execute_prints_the_value_after_the_output(self) -> None:
        sb = Sandbox(capabilities=[])
        cases = [("return 42", "42"), ("return 'text'", "text"), ("return null", "null"),
                 ("return [1, {a: 'b'}]", '[1,{"a":"b"}]'), ("return", ""),
                 ("return undefined", ""), ("console.log('a'); return 1", "a\n1"),
                 ("throw new Error('x')", "")]
        for code, want in cases:
            with self.subTest(code):
                self.assertEqual(sb.execute(code), want)
        chunks: list[str] = []
        self.assertEqual(sb.execute("console.log('x'); return 7", on_output=chunks.append), "x\n7")
        self.assertEqual("".join(chunks), "x\n7")
        self.assertEqual(capsa.Sandbox().execute("return 42"), "42")

    def test_execute_async(self) -> None:
        async def slow(n: int) -> int:
            await asyncio.sleep(0)
            return n * 2

        sb = Sandbox(tools=[slow], capabilities=["slow"])
        out = asyncio.run(sb.execute_async("const a = await slow({n: 4}); console.log('got'); return a"))
        self.assertEqual(out, "got\n8")

    def test_sandbox_tool_shows_the_value(self) -> None:
        tool = create_sandbox_tool()
        self.assertEqual(tool.run("return 42"), "42")
        res = tool.execute("return {ok: true}")
        self.assertEqual((res.stdout, res.return_value, res.success), ('{"ok":true}', {"ok": True}, True))
        self.assertEqual(tool.run("let z = 1"), "(no output)")


class ErrorsTest(unittest.TestCase):
    def test_fields_and_messages(self) -> None:
        e = capsa.MissingParamError("amount")
        self.assertEqual((e.param, str(e)), ("amount", "Missing parameter: amount"))
        e = capsa.TypeMismatchError("p", "string", "int")
        self.assertEqual((e.param, e.expected, e.actual, str(e)),
                         ("p", "string", "int", "Type mismatch for p: expected string, got int"))
        e = capsa.ViolationError("amount", "<= 5", "6")
        self.assertEqual(str(e), "Constraint violation: amount <= 5, actual: 6")
        e = capsa.CallLimitExceededError("cap:tool-call:x", 3)
        self.assertEqual((e.capability_key, e.max_calls, str(e)),
                         ("cap:tool-call:x", 3, "Call limit exceeded for 'cap:tool-call:x': max 3 calls allowed"))
        for cls in (capsa.MissingParamError, capsa.TypeMismatchError, capsa.ViolationError):
            self.assertTrue(issubclass(cls, capsa.ConstraintError))
            self.assertTrue(issubclass(cls, capsa.CapabilityError))
        self.assertTrue(issubclass(capsa.CallLimitExceededError, capsa.CapabilityError))

    def test_raised_by_evaluate_and_validate_call(self) -> None:
        cs = ConstraintSet([Param("amount") <= 100, Param("path").starts_with("/api/")])
        with self.assertRaises(capsa.MissingParamError) as cm:
            cs.evaluate({"path": "/api/x"})
        self.assertEqual(cm.exception.param, "amount")
        with self.assertRaises(capsa.ViolationError) as cm2:
            cs.evaluate({"amount": 500, "path": "/api/x"})
        self.assertEqual((cm2.exception.param, cm2.exception.actual), ("amount", "500"))
        with self.assertRaises(capsa.TypeMismatchError) as cm3:
            cs.evaluate({"amount": 5, "path": ["/api/"]})
        self.assertEqual((cm3.exception.expected, cm3.exception.actual), ("string", "array"))
        cs.evaluate({"amount": 5, "path": "/api/x"})
        cap = MethodCapability(method_pattern="mcp:api/*", constraints=cs)
        cap.validate_call("mcp:api/get", {"amount": 1, "path": "/api/"})
        cap.validate_call("api/get", {"amount": 1, "path": "/api/"})
        with self.assertRaises(capsa.ViolationError):
            cap.validate_call("api/get", {"amount": 101, "path": "/api/"})
        with self.assertRaisesRegex(capsa.CapabilityError, "No capability authorizes"):
            cap.validate_call("other", {"amount": 1, "path": "/api/"})

    def test_a_spent_budget_reads_as_call_limit_exceeded(self) -> None:
        from capsa.capabilities import denial_error

        sb = Sandbox(tools=[get_weather], capabilities=[MethodCapability("get_weather", max_calls=1)])
        sb.execute("await get_weather({city: 'a'})")
        allowed, message = sb.check_call("get_weather", {"city": "b"})
        self.assertFalse(allowed)
        err = denial_error(message)
        self.assertIsInstance(err, capsa.CallLimitExceededError)
        self.assertEqual((err.capability_key, err.max_calls), ("cap:tool-call:get_weather", 1))
        sb.execute("await get_weather({city: 'b'})")
        self.assertIn("Call limit reached", sb.last_stderr)


class CapabilityDictTest(unittest.TestCase):
    def test_to_dict_is_amlas_format_and_round_trips(self) -> None:
        cap = MethodCapability(
            method_pattern="mcp:stripe/charges/*",
            constraints=ConstraintSet([
                Param("amount") <= 100, Param("currency").is_in(["USD"]),
                Param("path").starts_with("/api/"), Param("f").ends_with(".csv"),
                Param("q").contains("x"), Param("id").exists(), Param("old").not_exists(),
                capsa.Constraint.or_([Param("a") == 1, Param("b") != 2])]),
            max_calls=5, input_schema={"type": "object"})
        d = cap.to_dict()
        self.assertEqual(d["method_pattern"], "mcp:stripe/charges/*")
        self.assertEqual(d["constraints"][0], {"type": "le", "param": "amount", "value": 100})
        self.assertEqual(d["constraints"][1], {"type": "in", "param": "currency", "values": ["USD"]})
        self.assertEqual(d["constraints"][2], {"type": "starts_with", "param": "path", "prefix": "/api/"})
        self.assertEqual(d["constraints"][7]["type"], "or")
        self.assertEqual((d["max_calls"], d["input_schema"]), (5, {"type": "object"}))
        back = MethodCapability.from_dict(json.loads(json.dumps(d)))
        self.assertEqual(back.to_dict(), d)
        self.assertEqual(back.constraints, cap.constraints)
        # The library's policy form is read too.
        p = MethodCapability.from_dict({"pattern": "x", "constraints": [{"param": "a", "op": "<", "value": 3}]})
        self.assertEqual(p.constraints.constraints[0], capsa.Constraint.lt("a", 3))
        for bad in ([{"type": "regex"}], [{"type": "in", "param": "a", "values": "ab"}],
                    [{"type": "or", "constraints": {"a": 1}}], ["le"], {"type": "le"}):
            with self.subTest(bad), self.assertRaises(capsa.PolicyError):
                MethodCapability.from_dict({"method_pattern": "x", "constraints": bad})

    def test_mcp_prefix_means_the_same_tool(self) -> None:
        self.assertTrue(capsa.method_matches_pattern("mcp:get_weather", "get_weather"))
        self.assertTrue(capsa.method_matches_pattern("get_weather", "mcp:*"))
        self.assertTrue(capsa.pattern_is_subset("mcp:a/b", "a/*"))
        self.assertTrue(MethodCapability("mcp:a/b").is_subset_of(MethodCapability("a/**")))
        cap = amla_sandbox.capability_from_function(get_weather, max_calls=2)
        self.assertEqual(cap.method_pattern, "mcp:get_weather")
        sb = Sandbox(tools=[get_weather], capabilities=[cap])
        self.assertEqual(sb.execute("return (await get_weather({city: 'x'})).city"), "x")
        self.assertEqual(sb.get_remaining_calls("cap:tool-call:mcp:get_weather"), 1)
        self.assertEqual(sb.get_remaining_calls("mcp:get_weather"), 1)
        # A tool registered as "mcp:search" is the tool "search"; its handler gets the
        # name as it was given.
        seen: list[str] = []
        sb = Sandbox(tools=[ToolDefinition("mcp:search", "Search", {"type": "object"})],
                     capabilities=["mcp:search"], tool_handler=lambda m, p: seen.append(m) or m)
        self.assertEqual(sb.execute("return [await search({}), await tools.call('search', {})].join()"),
                         "mcp:search,mcp:search", sb.last_stderr)
        self.assertEqual(seen, ["mcp:search", "mcp:search"])
        with self.assertRaises(ValueError):
            Sandbox(tools=[ToolDefinition("foo:bar", "", {"type": "object"})])


class CompactConstraintsTest(unittest.TestCase):
    def tool(self, spec: object) -> SandboxTool:
        def f(n: float = 0, s: str = "") -> str:
            """f."""
            return "ok"

        return create_sandbox_tool(tools=[f], constraints={"f": spec})  # type: ignore[dict-item]

    def test_each_form(self) -> None:
        cases = [({"n": "<=1000"}, 1000, 1001), ({"n": ">=0"}, 0, -1), ({"n": "<10"}, 9, 10),
                 ({"n": ">5"}, 6, 5), ({"n": "==42"}, 42, 41), ({"n": 7}, 7, 8),
                 ({"n": [1, 2]}, 2, 3), ({"n": "<=1.5"}, 1.5, 1.6)]
        for spec, good, bad in cases:
            with self.subTest(spec):
                t = self.tool(spec)
                self.assertEqual(t.run(f"return await f({{n: {good}}})"), "ok")
                self.assertIn("permission_denied", t.run(f"try {{ await f({{n: {bad}}}) }} "
                                                         "catch (e) { return e.code }"))
        t = self.tool({"s": "startswith:/api/"})
        self.assertEqual(t.run("return await f({s: '/api/x'})"), "ok")
        self.assertIn('s starts_with "/api/"', t.run("return await f({s: '/etc/passwd'})"))

    def test_anything_else_is_an_error(self) -> None:
        for spec in ("<=", "<=ten", "~5", "regex:.*", "startswith", {"a": 1}, None, "=>3"):
            with self.subTest(spec), self.assertRaises((capsa.PolicyError, TypeError)):
                self.tool({"n": spec})
        with self.assertRaises(capsa.PolicyError):
            self.tool({"n": []})


class ParametersTest(unittest.TestCase):
    def test_missing_required_parameter_is_refused_on_the_host(self) -> None:
        ran: list[int] = []

        def pay(amount: int, note: Optional[str] = None) -> str:
            """Pay."""
            ran.append(amount)
            return f"{amount} {note}"

        sb = Sandbox(tools=[pay], capabilities=[MethodCapability("pay", max_calls=5)])
        out = sb.execute("try { await pay({note: 'x'}) } catch (e) { return e.code + ': ' + e.message }")
        self.assertIn("invalid_arguments", out)
        self.assertIn("missing required property 'amount'", out)
        self.assertEqual(ran, [])
        self.assertEqual(sb.get_remaining_calls("pay"), 5)
        # Optional[...] is nullable.
        self.assertEqual(sb.execute("return await pay({amount: 1, note: null})"), "1 None")
        ran.clear()
        schema = amla_sandbox.tool_from_function(pay).parameters
        self.assertEqual(schema["properties"]["note"]["type"], ["string", "null"])
        self.assertEqual(schema["required"], ["amount"])
        handler = amla_sandbox.create_tool_handler([pay])
        with self.assertRaises(capsa.MissingParamError) as cm:
            handler("mcp:pay", {})
        self.assertEqual(cm.exception.param, "amount")
        self.assertEqual(ran, [])

    def test_schema_module_shapes(self) -> None:
        from amla_sandbox.schema import extract_param_description, python_type_to_json_schema

        self.assertEqual(python_type_to_json_schema(str), "string")
        self.assertEqual(python_type_to_json_schema(list[int]), {"type": "array", "items": {"type": "integer"}})
        self.assertEqual(python_type_to_json_schema(Optional[int]), {"type": ["integer", "null"]})
        self.assertEqual(extract_param_description("Do.\n\nArgs:\n    name: The name.\n", "name"), "The name.")
        self.assertIsNone(extract_param_description("Do.", "name"))

    def test_ingestion_keeps_descriptions_and_types(self) -> None:
        funcs, defs = amla_sandbox.from_langchain([get_weather])
        self.assertEqual(defs[0].description, "Get weather for a city.")
        self.assertEqual(defs[0].parameters["properties"]["city"]["type"], "string")
        self.assertEqual(funcs[0](city="x"), {"city": "x", "temp": 72})
        openai = [{"type": "function", "function": {
            "name": "lookup", "description": "Look up.",
            "parameters": {"type": "object", "properties": {"id": {"type": "integer", "description": "the id"}},
                           "required": ["id"]}}}]
        fns, ds = amla_sandbox.from_openai_tools(openai, handlers={"lookup": lambda id: {"id": id}})
        self.assertEqual((ds[0].description, ds[0].parameters["properties"]["id"]["description"]),
                         ("Look up.", "the id"))
        anthropic = [{"name": "lookup", "description": "Look up.", "input_schema": openai[0]["function"]["parameters"]}]
        fns2, ds2 = amla_sandbox.from_anthropic_tools(anthropic, handlers={"lookup": lambda id: {"id": id}})
        self.assertEqual(ds2[0].parameters, openai[0]["function"]["parameters"])
        sb = Sandbox(tools=fns, capabilities=["lookup"])
        self.assertEqual(sb.execute("return (await lookup({id: 3})).id"), "3")
        self.assertIn("invalid_arguments", sb.execute("try { await lookup({id: 'x'}) } catch (e) { return e.code }"))


class GuestHelpersTest(unittest.TestCase):
    def make(self) -> Sandbox:
        def get_time(zone: str = "UTC") -> str:
            """Current time."""
            return "12:00"

        return Sandbox(tools=[get_weather, get_time, ToolDefinition("db/query", "Query", {"type": "object"})],
                       capabilities=["get_weather", "get_time"],
                       tool_handler=lambda m, p: {"rows": []})

    def test_tool_introspection(self) -> None:
        sb = self.make()
        self.assertEqual(json.loads(sb.execute("return listTools()")), ["get_weather", "get_time", "db_query"])
        info = json.loads(sb.execute("return getToolInfo('db/query')"))
        self.assertEqual((info["name"], info["jsName"], info["description"]), ("db.query", "db_query", "Query"))
        self.assertEqual(sb.execute("return getToolInfo('nope')"), "null")
        tools = json.loads(sb.execute("return __tools__"))
        self.assertEqual([t["name"] for t in tools], ["get_weather", "get_time", "db.query"])
        self.assertEqual(tools[0]["parameters"]["required"], ["city"])

    def test_shell_run_and_shell(self) -> None:
        sb = self.make()
        self.assertEqual(sb.execute("return await shell.run('echo hi | tr a-z A-Z')"), "HI\n")
        out = json.loads(sb.execute("try { await shell.run('echo out; echo err >&2; exit 3') } catch (e) "
                                    "{ return {code: e.exitCode, out: e.stdout, err: e.stderr, m: e.message} }"))
        self.assertEqual((out["code"], out["out"], out["err"]), (3, "out\n", "err\n"))
        self.assertIn("exit code 3", out["m"])
        r = json.loads(sb.execute("return await shell('cat /nope')"))
        self.assertEqual(r["exitCode"], 1)
        self.assertIn("No such file", r["stderr"])
        self.assertEqual(sb.execute("return await shell.run('tool --list get_t')"), "get_time\tCurrent time.\n")

    def test_read_file_without_encoding_is_text(self) -> None:
        sb = self.make()
        sb.files.write("/workspace/a.txt", "héllo")
        self.assertEqual(sb.execute("return await fs.readFile('/workspace/a.txt')"), "héllo")
        self.assertEqual(sb.execute("return await fs.promises.readFile('/workspace/a.txt')"), "héllo")
        self.assertEqual(sb.execute("return fs.readFileSync('/workspace/a.txt')"), "héllo")
        self.assertEqual(sb.execute("return await new Promise((ok, no) => fs.readFile('/workspace/a.txt', "
                                    "(e, d) => e ? no(e) : ok(typeof d)))"), "string")
        self.assertEqual(sb.execute("return (await fs.readFile('/workspace/a.txt', {encoding: null})).length"), "6")
        self.assertEqual(sb.execute("return await fs.readFile('/workspace/a.txt', 'base64')"), "aMOpbGxv")
        self.assertIn("ENOENT", sb.execute("try { await fs.readFile('/nope') } catch (e) { return e.code }"))
        # capsa's own API keeps Node's default (bytes).
        with capsa.Sandbox() as native:
            native.files.write("/workspace/a.txt", "x")
            self.assertEqual(native.run("return typeof (await fs.readFile('/workspace/a.txt'))").value, "object")

    def test_tool_list_prefix_in_the_shell(self) -> None:
        sb = self.make()
        self.assertEqual(sb.shell("tool --list get_"), "get_weather\tGet weather for a city.\nget_time\tCurrent time.\n")
        self.assertEqual(sb.shell("tool --list db/"), "db.query\tQuery\n")
        self.assertEqual(sb.shell("tool --list zzz; echo $?"), "0\n")
        self.assertEqual(len(sb.shell("tool --list").splitlines()), 3)
        self.assertEqual(json.loads(sb.shell("tool get_weather --city Oslo"))["city"], "Oslo")
        tool = create_bash_tool(tools=[get_weather, transfer_money])
        self.assertEqual(tool.run("tool --list tr"), "transfer_money\tTransfer money.\n")
        self.assertEqual(tool.shell("tool --list get").stdout, "get_weather\tGet weather for a city.\n")
        rt_out = asyncio.run(amla_sandbox.Runtime.for_testing(
            tools_json=json.dumps([{"name": "a.b", "description": "d"}, {"name": "c", "description": "e"}]),
            tool_handler=lambda m, p: m).execute_async("tool --list a"))
        self.assertEqual(rt_out, "a.b\td\n")


class BreakOutTest(unittest.TestCase):
    """The compatibility layer runs inside the guest: nothing in it may let a script
    past the host's checks."""

    def test_closing_the_scope_wrapper_changes_nothing_on_the_host(self) -> None:
        ran: list[str] = []

        def secret() -> str:
            ran.append("secret")
            return "s"

        sb = Sandbox(tools=[get_weather, secret], capabilities=["get_weather"])
        # Code that closes the wrapper's function and calls a tool outside it.
        out = sb.execute("})(), await secret({}); } { (async () => {")
        self.assertEqual(out, "")
        self.assertIn("No capability authorizes 'secret'", sb.last_stderr)
        out = sb.execute("globalThis.__amla = {fs, shell, listTools: () => [], getToolInfo: () => null,"
                         " allTools: () => []}; return 1")
        self.assertEqual(out, "1")
        out = sb.execute("try { return await secret({}) } catch (e) { return e.code }")
        self.assertEqual(out, "permission_denied")
        out = sb.execute("try { return await tools.call('secret', '{}') } catch (e) { return e.code }")
        self.assertEqual(out, "permission_denied")
        self.assertEqual(ran, [])

    def test_a_hostile_prefix_is_only_a_prefix(self) -> None:
        sb = Sandbox(tools=[get_weather], capabilities=["get_weather"])
        sb.files.write("/workspace/keep", "1")
        for prefix in ("'; rm -rf /workspace; '", '"; system("rm -rf /workspace"); "', "$(rm /workspace/keep)",
                       "\\", "x\"'$(rm /workspace/keep)"):
            with self.subTest(prefix):
                self.assertEqual(sb.shell(f"tool --list {shlex.quote(prefix)}; echo $?"), "0\n")
                self.assertEqual(sb.files.read("/workspace/keep"), b"1")

    def test_a_namespace_constant_cannot_shadow_the_helpers(self) -> None:
        tools = [ToolDefinition(n, "", {"type": "object"}) for n in
                 ("fs.read", "shell.x", "console.log", "list.x", "ok.go")]
        sb = Sandbox(tools=tools, capabilities=["ok.go"], tool_handler=lambda m, p: m)
        self.assertEqual(sb.execute("return [typeof fs.readFile, typeof shell.run, await ok.go({})].join()"),
                         "function,function,ok.go")
        self.assertEqual(sb.execute("try { await tools.fs.read({}) } catch (e) { return e.code }"),
                         "permission_denied")


class CodeActAuditTest(unittest.TestCase):
    def test_prompt_and_sandbox_fn(self) -> None:
        prompt = amla_sandbox.JS_CODEACT_PROMPT.format(
            tool_descriptions=amla_sandbox.format_tool_descriptions_js([get_weather]))
        self.assertIn("### `get_weather({city: string})`", prompt)
        self.assertIn("{city}", prompt)
        fn = amla_sandbox.create_amla_sandbox([get_weather])
        out, new_vars = fn("const w = await get_weather({city: 'SF'}); console.log(w.temp)", {})
        self.assertEqual((out, new_vars), ("72\n", {}))
        out, _ = fn("const w = 1; return w", {})  # its own scope again
        self.assertEqual(out, "1")
        try:
            import langgraph_codeact  # noqa: F401
        except ImportError:
            with self.assertRaisesRegex(ImportError, "langgraph-codeact"):
                amla_sandbox.create_amla_codeact("model", [get_weather])

    def test_capture_binary(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            bdir = Path(tmp) / "bin"
            collector = amla_sandbox.AuditCollector(amla_sandbox.AuditConfig(binary_dir=bdir))
            path = collector.capture_binary("abc123", b"\x00\x01")
            self.assertEqual((path, path.read_bytes()), (bdir / "abc123.bin", b"\x00\x01"))
            for bad in ("../x", "a/b", "", "x" * 129, ".", "a\x00"):
                with self.subTest(bad), self.assertRaises(ValueError):
                    collector.capture_binary(bad, b"x")
            self.assertEqual(sorted(p.name for p in Path(tmp).rglob("*")), ["abc123.bin", "bin"])
            with self.assertRaises(TypeError):
                collector.capture_binary("h", "text")  # type: ignore[arg-type]
            self.assertIsNone(amla_sandbox.AuditCollector().capture_binary("h", b"x"))

    def test_runtime_and_auth(self) -> None:
        from amla_sandbox.auth import EphemeralAuthority
        from amla_sandbox.runtime import Runtime

        rt = Runtime.for_testing(tool_handler=lambda m, p: {"m": m},
                                 tools_json=json.dumps([{"name": "t.x", "description": "", "inputSchema": {"type": "object"}}]))
        self.assertEqual(rt.execute("echo hi"), "hi\n")
        self.assertEqual(json.loads(rt.execute("tool t.x"))["m"], "t.x")
        self.assertTrue(rt.can_call("t.x"))
        self.assertIsNone(amla_sandbox.precompile_module())
        auth = EphemeralAuthority()
        pca = auth.create_pca(capabilities=["tool_call:**"])
        # A token grants nothing in capsa: the capabilities list does.
        sb = Sandbox(pca=pca.to_cbor(), trusted_authorities=[auth.public_key_hex()], tools=[get_weather])
        self.assertIn("permission_denied", sb.execute("try { await get_weather({city: 'x'}) } catch (e) { return e.code }"))


if __name__ == "__main__":
    unittest.main()
