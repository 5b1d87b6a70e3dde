"""Tools: JS -> Python callbacks and back, schemas, formats, errors, concurrency."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
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
        self.assertEqual(props["tags"], {"type": "array", "items": {"type": "string"}})
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
        def give_set() -> object:
            return {1, 2}

        def give_nan() -> float:
            return float("nan")

        with self.assertWarns(capsa.ToolCallbackWarning):
            r = self.run_js([give_set, give_nan],
                            "const out = []; for (const f of [give_set, give_nan]) { "
                            "try { await f({}) } catch (e) { out.push([e.code, e.message]) } } "
                            "return out")
        self.assertEqual(r.value[0][0], "invalid_result")
        self.assertIn("not JSON-serialisable (set)", r.value[0][1])
        self.assertEqual(r.value[1][0], "invalid_result")
        self.assertEqual([e.error_code for e in r.tool_errors], ["invalid_result"] * 2)

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


if __name__ == "__main__":
    unittest.main()
