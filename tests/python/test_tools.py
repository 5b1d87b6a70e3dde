"""Tools: JS -> Python callbacks and back, schemas, formats, errors, concurrency."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import decimal
import enum
import threading
import uuid
import time
import unittest
import warnings
from typing import Literal

import capsa


def add(a: int, b: int = 10) -> int:
    """Add two numbers.

    Args:
        a: the first number.
        b: the second number.
    """
    return a + b


@dataclasses.dataclass
class Point:
    x: int
    y: int


class CallTest(unittest.TestCase):
    def test_values_go_and_come_back(self) -> None:
        def echo(value: object) -> object:
            """Return the value."""
            return value

        with capsa.Sandbox(tools=[echo, add], capabilities=["**"]) as sb:
            r = sb.run('return [await echo({value: {a: [1, "x", null, 2.5, true]}}), '
                       'await add({a: 1}), await tools.call("add", \'{"a": 1, "b": 2}\')]')
            self.assertEqual(r.value, [{"a": [1, "x", None, 2.5, True]}, 11, 3])
            self.assertEqual(r.stats.tool_calls, 3)
            self.assertEqual(r.tool_errors, [])

    def test_schema_from_hints_and_docstring(self) -> None:
        def forecast(city: str, days: int = 3, unit: Literal["c", "f"] = "c",
                     tags: list[str] | None = None) -> dict:
            """Weather forecast for a city.

            Args:
                city: the city's name.
                days: how many days ahead.
            """
            return {}

        bound = capsa.tool_from_function(forecast)
        self.assertEqual(bound.description, "Weather forecast for a city.")
        props = bound.parameters["properties"]
        self.assertEqual(props["city"], {"type": "string", "description": "the city's name."})
        self.assertEqual(props["days"]["type"], "integer")
        self.assertEqual(props["unit"]["enum"], ["c", "f"])
        # Optional[...] is nullable: a script may pass null for it.
        self.assertEqual(props["tags"], {"type": ["array", "null"], "items": {"type": "string"}})
        self.assertEqual(bound.parameters["required"], ["city"])
        with capsa.Sandbox(tools=[forecast], capabilities=["forecast"]) as sb:
            d = sb.run('return tools.describe("forecast")').value
            self.assertEqual(d["description"], "Weather forecast for a city.")
            self.assertIn("city", sb.files.read_text("/tools/forecast.d.ts"))

    def test_explicit_definitions(self) -> None:
        seen = []
        handler = lambda method, params: seen.append((method, params)) or {"ok": method}  # noqa: E731
        tools = [
            capsa.Tool("math.mul", lambda a, b: a * b, "Multiply",
                       {"type": "object", "properties": {"a": {"type": "number"}}}),
            capsa.ToolDefinition("db.query", "Query", {"type": "object"}),
            {"type": "function", "function": {"name": "openai_tool", "description": "o",
                                              "parameters": {"type": "object"}}},
            {"name": "anthropic_tool", "description": "a", "input_schema": {"type": "object"}},
            {"name": "mcp_tool", "description": "m", "inputSchema": {"type": "object"}},
        ]
        with capsa.Sandbox(tools=tools, capabilities=["**"], tool_handler=handler) as sb:
            r = sb.run("return [await tools.math.mul({a: 6, b: 7}), await db_query({q: 1}), "
                       "await openai_tool({}), await anthropic_tool({}), await mcp_tool({})]")
            self.assertEqual(r.value, [42, {"ok": "db.query"}, {"ok": "openai_tool"},
                                       {"ok": "anthropic_tool"}, {"ok": "mcp_tool"}])
            self.assertEqual(seen[0], ("db.query", {"q": 1}))
            self.assertEqual([t.name for t in sb.tools],
                             ["math.mul", "db.query", "openai_tool", "anthropic_tool", "mcp_tool"])

    def test_decorator_names_a_tool(self) -> None:
        @capsa.tool(name="weather.current", timeout_ms=5000)
        def current(city: str) -> str:
            """Current weather."""
            return f"sunny in {city}"

        self.assertEqual(current("Oslo"), "sunny in Oslo", "the function stays callable")
        with capsa.Sandbox(tools=[current], capabilities=["weather.current"]) as sb:
            self.assertEqual(sb.run("return await tools.weather.current({city: 'Rome'})").value,
                             "sunny in Rome")

    def test_dataclass_results_and_inline_tools(self) -> None:
        with capsa.Sandbox(tools=[capsa.Tool("pt", lambda: Point(1, 2), inline=True)],
                           capabilities=["pt"]) as sb:
            self.assertEqual(sb.run("return await pt({})").value, {"x": 1, "y": 2})


class FailureTest(unittest.TestCase):
    def run_js(self, tools: list, code: str) -> capsa.RunResult:
        with capsa.Sandbox(tools=tools, capabilities=["**"]) as sb:
            return sb.run(code)

    CATCH = "try { return await {call} } catch (e) { return [e.name, e.code, e.message] }"

    def test_exception_in_callback_becomes_tool_error(self) -> None:
        def boom(x: int) -> int:
            raise KeyError(f"no {x}")

        with self.assertWarns(capsa.ToolCallbackWarning):
            r = self.run_js([boom], self.CATCH.replace("{call}", "boom({x: 3})"))
        self.assertEqual(r.value, ["ToolError", "tool_error", "KeyError: 'no 3'"])
        self.assertEqual(len(r.tool_errors), 1)
        err = r.tool_errors[0]
        self.assertEqual((err.tool, err.error_code), ("boom", "tool_error"))
        self.assertIsInstance(err.__cause__, KeyError)

    def test_tool_error_with_own_code_is_not_warned(self) -> None:
        def find(name: str) -> str:
            raise capsa.ToolError(f"no user {name}", error_code="not_found")

        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = self.run_js([find], self.CATCH.replace("{call}", "find({name: 'x'})"))
        self.assertEqual(r.value, ["ToolError", "not_found", "no user x"])

    def test_non_serialisable_result(self) -> None:
        class Opaque:
            pass

        def give_object() -> object:
            return {"x": [Opaque()]}

        def give_nan() -> float:
            return float("nan")

        def give_cycle() -> object:
            a: list[object] = []
            a.append(a)
            return {datetime.date(2024, 1, 1): a}  # a key that takes the slow path too

        with self.assertWarns(capsa.ToolCallbackWarning):
            r = self.run_js([give_object, give_nan, give_cycle],
                            "const out = []; for (const f of [give_object, give_nan, give_cycle]) { "
                            "try { await f({}) } catch (e) { out.push([e.code, e.message]) } } "
                            "return out")
        self.assertEqual(r.value[0][0], "invalid_result")
        self.assertIn("not JSON-serialisable (dict)", r.value[0][1])
        self.assertIn("Opaque", r.value[0][1])
        self.assertEqual(r.value[1][0], "invalid_result")
        self.assertEqual(r.value[2][0], "invalid_result")
        self.assertIn("Circular", r.value[2][1])
        self.assertEqual([e.error_code for e in r.tool_errors], ["invalid_result"] * 3)

    def test_wrong_arguments(self) -> None:
        r = self.run_js([add], self.CATCH.replace("{call}", "add({b: 1, c: 2})"))
        self.assertEqual(r.value[1], "invalid_arguments")
        self.assertIn("add", r.value[2])

    def test_bad_tool_definitions(self) -> None:
        with self.assertRaisesRegex(TypeError, "lambda"):
            capsa.Sandbox(tools=[lambda: 1])
        with self.assertRaisesRegex(ValueError, "invalid tool name"):
            capsa.Sandbox(tools=[capsa.Tool("bad name!", add)])
        with self.assertRaisesRegex(ValueError, "used twice"):
            capsa.Sandbox(tools=[add, add])
        with self.assertRaisesRegex(TypeError, "cannot use 42"):
            capsa.Sandbox(tools=[42])
        with self.assertRaisesRegex(capsa.ToolDefinitionError, "a_b"):
            capsa.Sandbox(tools=[capsa.Tool("a.b", add), capsa.Tool("a_b", add)])
        with self.assertRaisesRegex(TypeError, "tool_handler must be callable"):
            capsa.Sandbox(tools=[capsa.ToolDefinition("t")], tool_handler="nope")

    def test_definition_without_handler(self) -> None:
        r = self.run_js([capsa.ToolDefinition("orphan", "no handler")],
                        self.CATCH.replace("{call}", "orphan({})"))
        self.assertEqual(r.value[1], "tool_error")
        self.assertIn("no handler", r.value[2])

    def test_callback_must_not_use_its_own_sandbox(self) -> None:
        holder: dict = {}

        def peek() -> str:
            return holder["sb"].files.read_text("/workspace/a.txt")

        with capsa.Sandbox(tools=[peek], capabilities=["peek"]) as sb:
            holder["sb"] = sb
            sb.files.write("/workspace/a.txt", "hello")
            with self.assertWarns(capsa.ToolCallbackWarning):
                r = sb.run(self.CATCH.replace("{call}", "peek({})"))
            self.assertIn("must not call into its own sandbox", r.value[2])


class ConcurrencyTest(unittest.TestCase):
    def test_ten_async_tools_of_100ms_run_concurrently_on_asyncio(self) -> None:
        loop_threads = set()

        async def slow(i: int) -> int:
            """Wait 100 ms."""
            loop_threads.add(threading.get_ident())
            await asyncio.sleep(0.1)
            return i

        async def main() -> float:
            with capsa.Sandbox(tools=[slow], capabilities=["slow"]) as sb:
                t = time.monotonic()
                r = await sb.run_async("return await Promise.all("
                                       "[...Array(10).keys()].map(i => slow({i})))")
                self.assertEqual(r.value, list(range(10)))
                return time.monotonic() - t

        elapsed = asyncio.run(main())
        self.assertLess(elapsed, 0.5, f"10 calls of 100 ms took {elapsed:.3f}s")
        self.assertEqual(len(loop_threads), 1, "async tools run on the event loop's thread")

    def test_event_loop_is_not_blocked(self) -> None:
        async def main() -> int:
            ticks = 0

            async def ticker() -> None:
                nonlocal ticks
                while True:
                    await asyncio.sleep(0.01)
                    ticks += 1

            task = asyncio.create_task(ticker())
            with capsa.Sandbox() as sb:
                await sb.run_async("const t = Date.now(); while (Date.now() - t < 300) {}")
            task.cancel()
            return ticks

        self.assertGreater(asyncio.run(main()), 10)

    def test_async_tools_in_sync_run_and_timers(self) -> None:
        async def slow(i: int) -> int:
            await asyncio.sleep(0.1)
            return i * 2

        with capsa.Sandbox(tools=[slow], capabilities=["slow"]) as sb:
            t = time.monotonic()
            r = sb.run("const log = []; setTimeout(() => log.push('timer'), 20);"
                       "const v = await Promise.all([1, 2, 3, 4, 5].map(i => slow({i})));"
                       "return [v, log]")
            self.assertEqual(r.value, [[2, 4, 6, 8, 10], ["timer"]])
            self.assertLess(time.monotonic() - t, 0.5)

    def test_sync_tools_run_on_worker_threads_concurrently(self) -> None:
        def block(i: int) -> int:
            time.sleep(0.1)
            return i

        with capsa.Sandbox(tools=[block], capabilities=["block"]) as sb:
            t = time.monotonic()
            r = sb.run("return await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(i => block({i})))")
            self.assertEqual(r.value, list(range(8)))
            self.assertLess(time.monotonic() - t, 0.5)

    def test_async_tool_failure_and_timeout(self) -> None:
        async def fail() -> None:
            raise ValueError("async kaput")

        async def hang() -> None:
            await asyncio.sleep(5)

        tools = [fail, capsa.Tool("hang", hang, timeout_ms=100)]

        async def main() -> capsa.RunResult:
            with capsa.Sandbox(tools=tools, capabilities=["**"]) as sb:
                return await sb.run_async(
                    "const out = []; for (const f of [fail, hang]) { try { await f({}) } "
                    "catch (e) { out.push(e.code + ': ' + e.message) } } return out")

        t = time.monotonic()
        with self.assertWarns(capsa.ToolCallbackWarning):
            r = asyncio.run(main())
        self.assertEqual(r.value[0], "tool_error: ValueError: async kaput")
        self.assertTrue(r.value[1].startswith("timeout"), r.value[1])
        self.assertLess(time.monotonic() - t, 2)

    def test_async_tool_can_read_its_sandbox_files(self) -> None:
        holder: dict = {}

        async def load(path: str) -> str:
            return holder["sb"].files.read_text(path)

        async def main() -> object:
            with capsa.Sandbox(tools=[load], capabilities=["load"]) as sb:
                holder["sb"] = sb
                return (await sb.run_async("await fs.writeFile('n.txt', 'from js'); "
                                           "return await load({path: '/workspace/n.txt'})")).value

        self.assertEqual(asyncio.run(main()), "from js")

    def test_async_handler_in_execute_async(self) -> None:
        async def handler(method: str, params: dict) -> dict:
            await asyncio.sleep(0.05)
            return {"method": method, **params}

        async def main() -> str:
            sb = capsa.Sandbox(tools=[capsa.ToolDefinition("svc.get", "get")],
                               capabilities=[capsa.MethodCapability("**")], tool_handler=handler)
            with sb:
                return await sb.execute_async("console.log(JSON.stringify(await svc_get({id: 1})))")

        self.assertEqual(asyncio.run(main()), '{"method":"svc.get","id":1}\n')


class IngestTest(unittest.TestCase):
    def test_from_openai_and_anthropic(self) -> None:
        openai = [{"type": "function", "function": {
            "name": "get_weather", "description": "Weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                           "required": ["city"]}}}, {"name": "unhandled", "parameters": {}}]
        funcs, defs = capsa.from_openai_tools(openai, handlers={"get_weather": lambda city: city.upper()})
        self.assertEqual([f.__name__ for f in funcs], ["get_weather", "unhandled"])
        self.assertEqual(defs[0].parameters["required"], ["city"])
        anthropic = [{"name": "lookup", "description": "Look up", "input_schema": {"type": "object"}}]
        afuncs, adefs = capsa.from_claude(anthropic, handlers={"lookup": lambda **kw: kw})
        self.assertIs(capsa.from_openai, capsa.from_openai_tools)
        with capsa.Sandbox(tools=funcs + afuncs, capabilities=["**"]) as sb:
            self.assertEqual(sb.tools[0].parameters, defs[0].parameters, "the OpenAI schema is kept")
            r = sb.run("const out = [await get_weather({city: 'oslo'}), await lookup({k: 1})];"
                       "try { await unhandled({}) } catch (e) { out.push(e.code) } return out")
            self.assertEqual(r.value, ["OSLO", {"k": 1}, "not_implemented"])

    def test_langchain_tools_duck_typed(self) -> None:
        class FakeSchema:
            @staticmethod
            def model_json_schema() -> dict:
                return {"title": "S", "type": "object", "properties": {"q": {"type": "string"}}}

        class FakeLangChainTool:  # what langchain_core.tools.StructuredTool looks like
            name = "search"
            description = "Search the web."
            args_schema = FakeSchema
            coroutine = None

            def invoke(self, params: dict) -> str:
                return f"results for {params['q']}"

            async def ainvoke(self, params: dict) -> str:
                return self.invoke(params)

        t = FakeLangChainTool()
        funcs, defs = capsa.from_langchain([t])
        self.assertEqual(defs[0].parameters, {"type": "object", "properties": {"q": {"type": "string"}}})
        for tools in ([t], funcs):
            with capsa.Sandbox(tools=tools, capabilities=["search"]) as sb:
                self.assertEqual(sb.run("return await search({q: 'capsa'})").value, "results for capsa")

    def test_helpers(self) -> None:
        h = capsa.create_tool_handler([add])
        self.assertEqual(h("add", {"a": 1, "b": 2}), 3)
        with self.assertRaises(capsa.ToolError):
            h("nope", {})
        text = capsa.format_tool_descriptions_js([add])
        self.assertIn("### `add({a: integer, b?: integer})`", text)
        cap = capsa.capability_from_function(add, max_calls=2)
        self.assertEqual((cap.method_pattern, cap.max_calls), ("add", 2))




class Color(enum.Enum):
    RED = "red"
    PAIR = (1, 2)


class Level(enum.IntEnum):
    HIGH = 3


@dataclasses.dataclass
class Event:
    name: str
    at: datetime.datetime
    color: Color
    where: Point


class DumpModel:
    """Stands for a pydantic 2 model: model_dump(mode="json")."""

    def __init__(self) -> None:
        self.seen: list[object] = []

    def model_dump(self, mode: str = "python") -> dict[str, object]:
        self.seen.append(mode)
        return {"mode": mode, "when": datetime.date(2024, 5, 6)}


class OldModel:
    """Stands for a pydantic 1 model: dict()."""

    def dict(self) -> dict[str, object]:
        return {"v": 1, "id": uuid.UUID(int=7)}


class ResultRuleTest(unittest.TestCase):
    """Tool results json cannot encode are converted by capsa.RESULT_RULE, each checked as
    the script receives it (after JSON), not only as Python encodes it."""

    def returned(self, value: object) -> object:
        def give() -> object:
            return value

        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a conversion is not a failure: nothing warned
            with capsa.Sandbox(tools=[give], capabilities=["give"]) as sb:
                r = sb.run("return await give({})")
        self.assertIsNone(r.error, r.error)
        self.assertEqual(r.tool_errors, [])
        return r.value

    def test_datetime_date_time(self) -> None:
        aware = datetime.datetime(2024, 3, 7, 10, 30, 5, 250000, tzinfo=datetime.timezone.utc)
        naive = datetime.datetime(2024, 3, 7, 10, 30)
        self.assertEqual(self.returned([aware, naive, datetime.date(2024, 3, 7),
                                        datetime.time(10, 30, 1)]),
                         ["2024-03-07T10:30:05.250000+00:00", "2024-03-07T10:30:00",
                          "2024-03-07", "10:30:01"])
        offset = datetime.timezone(datetime.timedelta(hours=-5))
        self.assertEqual(self.returned(datetime.datetime(2024, 1, 1, tzinfo=offset)),
                         "2024-01-01T00:00:00-05:00")

    def test_decimal(self) -> None:
        value = self.returned({"price": decimal.Decimal("19.990"), "int": decimal.Decimal("42"),
                               "exact": decimal.Decimal("0.10000000000000000001"),
                               "nan": decimal.Decimal("NaN"), "inf": decimal.Decimal("-Infinity")})
        self.assertEqual(value, {"price": 19.99, "int": 42, "exact": "0.10000000000000000001",
                                 "nan": "NaN", "inf": "-Infinity"})
        self.assertIsInstance(value["price"], float)

    def test_uuid(self) -> None:
        u = uuid.UUID("12345678-1234-5678-1234-567812345678")
        self.assertEqual(self.returned({"id": u}), {"id": "12345678-1234-5678-1234-567812345678"})

    def test_bytes(self) -> None:
        self.assertEqual(self.returned([b"hi\x00\xff", bytearray(b"ab"), memoryview(b"xyz"), b""]),
                         ["aGkA/w==", "YWI=", "eHl6", ""])
        with capsa.Sandbox(tools=[capsa.Tool("blob", lambda: b"\x89PNG")], capabilities=["blob"]) as sb:
            r = sb.run("return Buffer.from(await blob(), 'base64').toString('hex')")
        self.assertEqual(r.value, "89504e47", "the script decodes the base64 back to the bytes")

    def test_enum(self) -> None:
        self.assertEqual(self.returned([Color.RED, Color.PAIR, Level.HIGH]), ["red", [1, 2], 3])

    def test_dataclass(self) -> None:
        at = datetime.datetime(2024, 3, 7, 12, 0)
        self.assertEqual(self.returned(Event("launch", at, Color.RED, Point(1, 2))),
                         {"name": "launch", "at": "2024-03-07T12:00:00", "color": "red",
                          "where": {"x": 1, "y": 2}})

    def test_model_dump_and_dict(self) -> None:
        model = DumpModel()
        self.assertEqual(self.returned([model, OldModel()]),
                         [{"mode": "json", "when": "2024-05-06"},
                          {"v": 1, "id": "00000000-0000-0000-0000-000000000007"}])
        self.assertEqual(model.seen, ["json"], "model_dump is asked for JSON mode")

    def test_sets_and_tuples(self) -> None:
        self.assertEqual(self.returned({"s": {3, 1, 2}, "f": frozenset(["b", "a"]), "t": (1, (2, 3)),
                                        "mixed": {1, "x"} and {"only"}}),
                         {"s": [1, 2, 3], "f": ["a", "b"], "t": [1, [2, 3]], "mixed": ["only"]})
        unsortable = self.returned({1, "x"})
        self.assertIsInstance(unsortable, list)
        self.assertEqual(sorted(map(str, unsortable)), ["1", "x"], "members of mixed types, unsorted")

    def test_keys(self) -> None:
        value = self.returned({datetime.date(2024, 1, 2): 1, Color.RED: 2,
                               uuid.UUID(int=1): 3, 5: 4, None: 5, (1, 2): 6})
        self.assertEqual(value, {"2024-01-02": 1, "red": 2,
                                 "00000000-0000-0000-0000-000000000001": 3, "5": 4, "null": 5,
                                 "[1,2]": 6})

    def test_nested_everything(self) -> None:
        value = self.returned({"events": [Event("a", datetime.datetime(2020, 1, 1), Color.RED,
                                                Point(0, 0))],
                               "totals": {Color.RED: decimal.Decimal("1.5")}, "ids": {uuid.UUID(int=3)}})
        self.assertEqual(value["events"][0]["at"], "2020-01-01T00:00:00")
        self.assertEqual(value["totals"], {"red": 1.5})
        self.assertEqual(value["ids"], ["00000000-0000-0000-0000-000000000003"])

    def test_rule_is_documented(self) -> None:
        for word in ("datetime", "Decimal", "UUID", "base64", "Enum", "dataclass", "model_dump",
                     "dict()", "set", "tuple", "invalid_result"):
            self.assertIn(word, capsa.RESULT_RULE)
        self.assertIn("RESULT_RULE", capsa.tools.BoundTool._encode.__doc__ or "")


class NameTest(unittest.TestCase):
    """One tool name everywhere: '.' canonical, '/' the same separator."""

    def test_slash_name_is_the_dotted_name(self) -> None:
        seen: list[str] = []

        def handler(method: str, params: dict) -> object:
            seen.append(method)
            return params

        tools = [capsa.ToolDefinition("github/search_issues", "Search",
                                      {"type": "object", "properties": {"q": {"type": "string"}}})]
        with capsa.Sandbox(tools=tools, tool_handler=handler, capabilities=["github/*"]) as sb:
            r = sb.run("return [tools.list().map(t => t.name), await tools.github.search_issues({q: 'a'}),"
                       " await github_search_issues({q: 'b'}),"
                       " await tools.call('github/search_issues', {q: 'c'}),"
                       " await tools.call('github.search_issues', {q: 'd'}),"
                       " tools.describe('github/search_issues').name]")
            self.assertEqual(r.value, [["github.search_issues"], {"q": "a"}, {"q": "b"}, {"q": "c"},
                                       {"q": "d"}, "github.search_issues"])
            self.assertEqual([t.name for t in sb.tools], ["github.search_issues"])
            self.assertEqual([e.data["tool"] for e in sb.get_audit_entries("tool_call")],
                             ["github.search_issues"] * 4, "the audit names the canonical tool")
            self.assertTrue(sb.can_call("github/search_issues", {"q": "x"}))
            self.assertTrue(sb.can_call("github.search_issues", {"q": "x"}))
        self.assertEqual(seen, ["github/search_issues"] * 4,
                         "a tool_handler gets the name as it was registered")

    def test_patterns_either_way(self) -> None:
        def search(q: str) -> str:
            return q

        for pattern in ("github.*", "github/*", "github.**", "github/search", "**"):
            tool = capsa.Tool("github.search", search)
            with capsa.Sandbox(tools=[tool], capabilities=[pattern]) as sb:
                r = sb.run("return await tools.github.search({q: 'x'})")
                self.assertEqual(r.value, "x", pattern)
        with capsa.Sandbox(tools=[capsa.Tool("github.search", search)], capabilities=["*"]) as sb:
            r = sb.run("try { await github_search({q: 'x'}) } catch (e) { return e.code }")
            self.assertEqual(r.value, "permission_denied", "'*' is one segment: not github.search")

    def test_budget_key_either_way(self) -> None:
        def ping() -> int:
            return 1

        caps = [capsa.ToolCallCap("svc/*", max_calls=3)]
        with capsa.Sandbox(tools=[capsa.Tool("svc.ping", ping)], capabilities=caps) as sb:
            sb.run("await svc_ping({})")
            for key in ("cap:tool-call:svc/*", "cap:tool-call:svc.*", "svc.*", "svc/*"):
                self.assertEqual(sb.get_remaining_calls(key), 2, key)

    def test_collisions(self) -> None:
        with self.assertRaisesRegex(ValueError, "used twice"):
            capsa.Sandbox(tools=[capsa.Tool("a/b", add), capsa.Tool("a.b", add)])
        with self.assertRaisesRegex(ValueError, "invalid tool name"):
            capsa.Sandbox(tools=[capsa.Tool("a:b", add)])
        with self.assertRaisesRegex(ValueError, "invalid tool name"):
            capsa.Sandbox(tools=[capsa.Tool("a./b", add)])
        with self.assertRaisesRegex(capsa.ToolDefinitionError, "flat form"):
            capsa.Sandbox(tools=[capsa.Tool("a/b_c", add), capsa.Tool("a_b.c", add)])


if __name__ == "__main__":
    unittest.main()
