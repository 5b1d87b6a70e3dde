"""amla_sandbox.codeact: CodeAct helpers (an agent that answers by writing code).

``create_amla_sandbox(tools)`` gives CodeAct's ``(code, locals) -> (output, new_vars)``
function over a ``SandboxTool`` (JavaScript, a scope per call, files kept);
``JS_CODEACT_PROMPT`` is a system prompt with a ``{tool_descriptions}`` field for
``format_tool_descriptions_js(tools)``; ``create_amla_codeact`` builds the agent and
needs ``langgraph-codeact`` (and LangChain), which capsa does not: without them it
raises ImportError saying what to install.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..capabilities import ToolCallCap
from ..tools import format_tool_descriptions_js

__all__ = ["JS_CODEACT_PROMPT", "SandboxFn", "create_amla_codeact", "create_amla_sandbox",
           "format_tool_descriptions_js"]

JS_CODEACT_PROMPT = """You solve tasks by writing JavaScript that runs in a secure sandbox.

The sandbox runs modern JavaScript (async/await at the top level) with:
- the tools below, as async functions that take one object: `await name({{param: value}})`;
- `fs` for files under /workspace and /tmp (`await fs.writeFile(path, text)`,
  `await fs.readFile(path)` gives a string);
- `shell(cmd)` for a shell command line (cat, grep, jq, sort, head, wc, ...), giving
  `{{stdout, stderr, exitCode}}`, and `shell.run(cmd)`, giving its stdout (it throws when
  the command fails).

{tool_descriptions}

Call several tools in one program: loop, filter and combine their results in code, keep
large data in files, and print only what answers the task with console.log() (or return
it). For example:

```javascript
const found = [];
for (const city of ["Paris", "Oslo"]) {{
  found.push(await get_weather({{city}}));
}}
await fs.writeFile("/workspace/weather.json", JSON.stringify(found));
const warm = await shell.run("jq -c '[.[] | select(.temp > 20)]' /workspace/weather.json");
console.log(warm);
```

A tool call that is not allowed throws an Error whose `code` says why.
"""
"""System prompt for CodeAct agents; fill ``{tool_descriptions}`` with
``format_tool_descriptions_js(tools)`` (``str.format``: literal braces are doubled)."""

SandboxFn = Callable[[str, dict[str, Any]], tuple[str, dict[str, Any]]]
"""CodeAct's sandbox function: ``(code, locals) -> (output, new_vars)``."""


def create_amla_sandbox(tools: Sequence[Callable[..., Any]], *,
                        capabilities: Sequence[ToolCallCap] | None = None) -> SandboxFn:
    """CodeAct's sandbox function over the tools (each allowed without constraints when
    ``capabilities`` is None). Returns the run's text for the model and no variables
    (JavaScript values do not cross back to Python's locals)."""
    from .langgraph import SandboxTool

    sandbox_tool = SandboxTool.from_functions(list(tools), capabilities=capabilities)

    def sandbox_fn(code: str, _locals: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return sandbox_tool.execute(code).to_tool_message(), {}

    sandbox_fn.sandbox_tool = sandbox_tool  # type: ignore[attr-defined]
    return sandbox_fn


def create_amla_codeact(model: Any, tools: Sequence[Callable[..., Any]], *,
                        capabilities: Sequence[ToolCallCap] | None = None,
                        prompt: str | None = None) -> Any:
    """A LangGraph CodeAct agent whose code runs here (needs langgraph-codeact)."""
    try:
        from langgraph_codeact import create_codeact  # type: ignore[import-not-found]
    except ImportError as exc:
        raise ImportError("create_amla_codeact() needs langgraph-codeact, which is not installed: "
                          "pip install langgraph-codeact langchain (create_amla_sandbox() and "
                          "JS_CODEACT_PROMPT work without it)") from exc
    if isinstance(model, str):
        from langchain.chat_models import init_chat_model  # type: ignore[import-not-found]

        model = init_chat_model(model)
    if prompt is None:
        prompt = JS_CODEACT_PROMPT.format(tool_descriptions=format_tool_descriptions_js(list(tools)))
    return create_codeact(model, tools=list(tools), eval_fn=create_amla_sandbox(tools, capabilities=capabilities),
                          prompt=prompt)
