"""A program written for amla-sandbox, run on capsa by one added line.

Everything below the marked line is amla-sandbox 0.1.x code as its users write it:
`from amla_sandbox import ...`, per-execute scopes, `shell.run`, amla's constraint
syntax and `mcp:` capability names. Run: python3 examples/python/amla_program.py
(after `make python`), or leave out the marked line and run
`python3 -m capsa.amla_sandbox examples/python/amla_program.py`.
"""

from __future__ import annotations

import _path  # noqa: F401 - the in-repo package

import capsa.as_amla_sandbox  # noqa: F401 - the one line: amla_sandbox is capsa's now

# ---- amla-sandbox code, unchanged ---------------------------------------------------
from amla_sandbox import (  # noqa: E402
    ConstraintSet,
    MethodCapability,
    Param,
    SandboxTool,
    ViolationError,
    create_sandbox_tool,
)


def get_weather(city: str) -> dict:
    """Get weather for a city."""
    return {"Paris": {"city": "Paris", "temp": 24}, "Oslo": {"city": "Oslo", "temp": 9}}.get(
        city, {"city": city, "temp": 15})


def transfer_money(amount: int, to: str) -> str:
    """Transfer money to an account."""
    return f"sent {amount} to {to}"


sandbox = create_sandbox_tool(
    tools=[get_weather, transfer_money],
    constraints={"transfer_money": {"amount": "<=1000", "to": "startswith:acct_"}},
    max_calls={"transfer_money": 2},
)

print(sandbox.run("""
const found = [];
for (const city of ["Paris", "Oslo", "Cairo"]) found.push(await get_weather({city}));
await fs.writeFile("/workspace/weather.json", JSON.stringify(found));
return await shell.run("jq -r '.[] | select(.temp > 20) | .city' /workspace/weather.json");
""", language="javascript").strip())                                # Paris

# Each run has its own scope: `found` may be declared again; the file is still there.
print(sandbox.run("const found = JSON.parse(await fs.readFile('/workspace/weather.json'));"
                  "return found.length", language="javascript"))     # 3

print(sandbox.run("return await transfer_money({amount: 50, to: 'acct_1'})"))  # sent 50 ...
print(sandbox.run("await transfer_money({amount: 5000, to: 'acct_1'})"))       # refused

caps = [MethodCapability(method_pattern="mcp:get_weather",
                         constraints=ConstraintSet([Param("city").is_in(["Paris", "Oslo"])]),
                         max_calls=5)]
weather_only = SandboxTool.from_functions([get_weather], capabilities=caps)
print(weather_only.run("return (await get_weather({city: 'Oslo'})).temp"))    # 9
print(weather_only.sandbox.get_remaining_calls("cap:method:mcp:get_weather"))  # 4
try:
    caps[0].validate_call("mcp:get_weather", {"city": "Cairo"})
except ViolationError as e:
    print(f"refused: {e.param} {e.rule}")
