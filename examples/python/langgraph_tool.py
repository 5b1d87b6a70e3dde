"""A LangGraph-style tool: the sandbox as one "run code" tool for an agent framework.

`create_sandbox_tool` (amla-sandbox's API) wraps Python functions in a sandbox with
capabilities made for them (constraints and call budgets), and gives the text an agent
framework needs: a system prompt, tool descriptions, and `run(code) -> str`. With
LangChain installed, `as_langchain_tool()` gives a StructuredTool for
`langgraph.prebuilt.create_react_agent(model, [tool])`; without it, everything else
still works and the example says what it skipped.
Run: python3 examples/python/langgraph_tool.py (after `make python`).
"""

from __future__ import annotations

import _path  # noqa: F401 - the in-repo package

from capsa import create_sandbox_tool


def get_weather(city: str, units: str = "metric") -> dict:
    """Current weather of a city.

    Args:
        city: the city's name.
        units: "metric" or "imperial".
    """
    temps = {"Paris": 18, "Oslo": 4, "Cairo": 31}
    t = temps.get(city, 20)
    return {"city": city, "temp": t if units == "metric" else round(t * 9 / 5 + 32)}


def send_email(to: str, subject: str, body: str) -> str:
    """Send an email.

    Args:
        to: the recipient's address.
        subject: the subject line.
        body: the text.
    """
    return f"sent to {to}"


def main() -> None:
    tool = create_sandbox_tool(
        tools=[get_weather, send_email],
        constraints={"send_email": {"to": "endswith:@example.com"}},
        max_calls={"send_email": 2},
    )
    print("--- system prompt fragment for the agent ---")
    print(tool.get_system_prompt())
    print("--- what the model's code gets back ---")
    print(tool.run("""
        const cities = ["Paris", "Oslo", "Cairo"];
        const all = await Promise.all(cities.map(city => get_weather({city})));
        const warmest = all.toSorted((a, b) => b.temp - a.temp)[0];
        await send_email({to: "team@example.com", subject: "Warmest", body: warmest.city});
        console.log(`warmest: ${warmest.city} (${warmest.temp} C)`);
    """))
    print(tool.run('await send_email({to: "eve@evil.test", subject: "x", body: "y"})'))
    try:
        lc_tool = tool.as_langchain_tool()
    except ImportError as exc:
        print(f"--- LangChain part skipped: {exc}")
        return
    print("--- as a LangChain tool ---")
    print(lc_tool.name, lc_tool.invoke({"code": "console.log(1 + 1)"}))


if __name__ == "__main__":
    main()
