"""amla-sandbox's agent-facing helpers: ``create_sandbox_tool``, ``SandboxTool``,
``ExecutionResult``.

Differences from amla, all on the strict side:

- constraint strings capsa does not understand raise ``PolicyError`` (amla drops them
  silently), as do constraints for tools that are not in ``tools``;
- a script that throws gives ``ExecutionResult.error`` and ``success=False`` (amla
  reports success with the error only on stderr); a shell command line that exits
  with a non-zero status gives ``success=False`` and ``error="exit status N"``.

The shell is the library's (see ``Sandbox.run_shell``): ``shell()`` and ``run(...,
language="shell")`` run a POSIX-sh command line in the same sandbox as the JavaScript
(same files, same tools and capabilities through its ``tool`` command), and
``as_langchain_tools()`` returns a JavaScript and a shell tool, as amla's. Its
``tool`` command reaches synchronous tools; ``async def`` ones are for JavaScript.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from .capabilities import Constraint, ConstraintSet, ToolCallCap, strip_mcp
from .errors import CapsaError, PolicyError, ShellNotAvailable
from .sandbox import RunResult, Sandbox, returned_text
from .tools import bind_tools, canonical_name

__all__ = ["ExecutionResult", "SandboxTool", "create_sandbox_tool", "DEFAULT_MAX_CALLS"]

DEFAULT_MAX_CALLS = 100
"""Calls each tool may make when ``create_sandbox_tool`` is given no ``max_calls`` (amla's)."""

_LANGCHAIN_MISSING = ("{what} needs LangChain, which is not installed: pip install langchain-core "
                      "(capsa itself does not need it: sandbox.run(code) returns the same text)")


@dataclass
class ExecutionResult:
    """Result of ``SandboxTool.execute`` and ``shell`` (amla's): output (for JavaScript,
    followed by the returned value as ``Sandbox.execute`` prints it), the returned value,
    the error; ``exit_code`` is the shell's exit status (None for JavaScript)."""

    stdout: str = ""
    stderr: str = ""
    return_value: Any = None
    error: str | None = None
    success: bool = True
    exit_code: int | None = None

    def __str__(self) -> str:
        if self.error:
            return f"Error: {self.error}\n{self.stderr}"
        return self.stdout

    def to_tool_message(self) -> str:
        """The result as one text for the model."""
        parts = []
        if self.stdout:
            parts.append(self.stdout)
        if self.stderr:
            parts.append(f"[stderr]: {self.stderr}")
        if self.error:
            parts.append(f"[error]: {self.error}")
        return "\n".join(parts) if parts else "(no output)"


_JS_DESCRIPTION = """Execute JavaScript in a secure sandbox.
- Call tools with async/await: `const data = await toolName({param: "value"});`
- Print what you need with console.log(); `return x` gives a value.
- Files: `await fs.writeFile('/workspace/data.json', text)`, `await fs.readFile(path, 'utf8')`.
"""

_SHELL_DESCRIPTION = """Run a POSIX shell command line in the same secure sandbox (same files).
- Pipes, redirections, variables, if/for/while; applets: cat, grep, sed, awk, jq, sort,
  head, tail, wc, ... (`help` lists them). The working directory is /workspace.
- Call a tool: `tool toolName --param value` (prints its JSON result).
- JavaScript from the shell: `js -e 'console.log(1 + 1)'`.
"""


@dataclass
class SandboxTool:
    """A sandbox packaged as one tool for an agent (amla's SandboxTool): the model writes
    JavaScript, ``run`` executes it and returns text for the model."""

    sandbox: Sandbox
    tools: list[Callable[..., Any]] = field(default_factory=list)
    _tool_map: dict[str, Callable[..., Any]] = field(default_factory=dict, repr=False)
    default_language: str = "javascript"
    name: str = "sandbox"
    description: str = _JS_DESCRIPTION

    @classmethod
    def from_functions(cls, tools: Sequence[Callable[..., Any]], *,
                       capabilities: Sequence[ToolCallCap] | None = None,
                       sandbox_class: type[Sandbox] = Sandbox) -> "SandboxTool":
        """A SandboxTool over Python functions; without ``capabilities`` each function
        may be called without constraints or budget (amla's). ``sandbox_class``: the
        Sandbox (sub)class to make."""
        tools_list = list(tools)
        bound = bind_tools(tools_list)
        caps = list(capabilities) if capabilities is not None else \
            [ToolCallCap(method_pattern=b.name) for b in bound]
        return cls(sandbox=sandbox_class(tools=tools_list, capabilities=caps), tools=tools_list,
                   _tool_map=_tool_map(bound, tools_list))

    def execute(self, code: str, *, stdin: str | bytes | None = None) -> ExecutionResult:
        """Runs JavaScript; never raises for the script's or a limit's failure."""
        source = code if stdin is None else (stdin.decode() if isinstance(stdin, bytes) else stdin)
        try:
            r = self.sandbox.run(self.sandbox._js_source(source))
        except CapsaError as exc:
            res = exc.result
            return ExecutionResult(stdout=res.stdout if res else "", stderr=res.stderr if res else "",
                                   error=f"{type(exc).__name__}: {exc}", success=False)
        return ExecutionResult(stdout=r.stdout + returned_text(r), stderr=r.stderr,
                               return_value=r.value, error=str(r.error) if r.error else None,
                               success=r.error is None)

    def shell(self, command: str, *, stdin: str | bytes | None = None) -> ExecutionResult:
        """Runs a shell command line (``stdin`` is its standard input); never raises for
        the command's or a limit's failure. ``success`` is exit status 0."""
        try:
            r: RunResult = self.sandbox.run_shell(command, stdin)
        except CapsaError as exc:
            res = exc.result
            return ExecutionResult(stdout=res.stdout if res else "", stderr=res.stderr if res else "",
                                   error=f"{type(exc).__name__}: {exc}", success=False)
        failed = r.exit_code != 0
        return ExecutionResult(stdout=r.stdout, stderr=r.stderr, return_value=r.exit_code,
                               error=f"exit status {r.exit_code}" if failed else None,
                               success=not failed, exit_code=r.exit_code)

    def run(self, code: str, language: str | None = None, *,
            stdin: str | bytes | None = None) -> str:
        """Executes code ("javascript", or "shell" for a command line; "js", "bash" and
        "sh" are synonyms) and returns text for the model
        (``ExecutionResult.to_tool_message``)."""
        lang = (language or self.default_language).lower()
        if lang in ("shell", "bash", "sh"):
            result = self.shell(code, stdin=stdin)
        elif lang in ("javascript", "js"):
            result = self.execute(code, stdin=stdin)
        else:
            raise ValueError(f"unknown language {language!r}: 'javascript' or 'shell'")
        return result.to_tool_message()

    def as_langchain_tool(self) -> Any:
        """This sandbox as a LangChain StructuredTool (needs langchain-core): ``code``,
        and ``language`` ("javascript" or "shell", by default ``default_language``), as
        amla's."""
        StructuredTool, BaseModel, Field = _langchain()
        default = self.default_language

        class CodeInput(BaseModel):  # type: ignore[misc, valid-type]
            code: str = Field(description="Code to execute")
            language: str = Field(default=default,
                                  description=f"'javascript' or 'shell' (default: {default})")

        def _run(code: str, language: str = default) -> str:
            return self.run(code, language)

        return StructuredTool(name=self.name, description=self._tool_description(),
                              args_schema=CodeInput, func=_run)

    def as_langchain_tools(self) -> list[Any]:
        """A JavaScript tool (``sandbox_js``) and a shell tool (``sandbox_shell``) over
        the same sandbox, as amla's."""
        StructuredTool, BaseModel, Field = _langchain()

        class JSInput(BaseModel):  # type: ignore[misc, valid-type]
            code: str = Field(description="JavaScript code to execute")

        class ShellInput(BaseModel):  # type: ignore[misc, valid-type]
            command: str = Field(description="Shell command line to run")

        def _run_js(code: str) -> str:
            return self.run(code, "javascript")

        def _run_shell(command: str) -> str:
            return self.run(command, "shell")

        return [StructuredTool(name="sandbox_js", description=self._tool_description(),
                               args_schema=JSInput, func=_run_js),
                StructuredTool(name="sandbox_shell", description=self._shell_description(),
                               args_schema=ShellInput, func=_run_shell)]

    def _signature(self, func: Callable[..., Any]) -> str:
        params = []
        try:
            sig = inspect.signature(func)
        except (TypeError, ValueError):
            return "..."
        for pname, p in sig.parameters.items():
            t = "any" if p.annotation is inspect.Parameter.empty else \
                getattr(p.annotation, "__name__", str(p.annotation))
            params.append(f"{pname}: {t}")
        return ", ".join(params)

    def _limits_summary(self) -> str:
        lines = []
        for cap in self.sandbox.get_capabilities():
            if cap.max_calls is not None:
                lines.append(f"  - {cap.method_pattern}: max {cap.max_calls} calls")
            if not cap.constraints.is_empty():
                lines.append(f"  - {cap.method_pattern}: "
                             + ", ".join(str(c) for c in cap.constraints.constraints))
        return "\n".join(lines)

    def _tool_description(self) -> str:
        lines = [_JS_DESCRIPTION.rstrip()]
        if self.tools:
            lines.append("Available functions:")
            for name, func in self._tool_map.items():
                doc = (inspect.getdoc(func) or "").split("\n")[0]
                lines.append(f"  - {name}({{{self._signature(func)}}})" + (f" - {doc}" if doc else ""))
        limits = self._limits_summary()
        if limits:
            lines += ["LIMITS:", limits]
        return "\n".join(lines)

    def _shell_description(self) -> str:
        lines = [_SHELL_DESCRIPTION.rstrip()]
        if self._tool_map:
            lines.append("Available tools (`tool NAME --param value`): " + ", ".join(self._tool_map))
        limits = self._limits_summary()
        if limits:
            lines += ["LIMITS:", limits]
        return "\n".join(lines)

    def get_tool_descriptions(self) -> str:
        """The tools' signatures and full docstrings, for a system prompt (amla's)."""
        if not self.tools:
            return "No custom tools available. Use basic JavaScript."
        lines = ["Available functions in the sandbox:", ""]
        for name, func in self._tool_map.items():
            lines.append(f"### {name}({self._signature(func)})")
            lines.append(inspect.getdoc(func) or "No description")
            lines.append("")
        return "\n".join(lines)

    def get_system_prompt(self, *, include_tools: bool = True) -> str:
        """A system-prompt fragment teaching the model to use the sandbox tool (amla's)."""
        sections = [f"""## Sandbox Tool Usage

You have a `{self.name}` tool that runs JavaScript securely. Pass the code as `code`.
Call functions with async/await and print results with console.log().

**Batch many operations in one call, with loops:**
```javascript
const results = [];
for (const id of ["a", "b", "c"]) {{
    results.push(await getData({{id}}));
}}
console.log(JSON.stringify(results));
```

Keep intermediate data in files: `await fs.writeFile("/workspace/data.json", JSON.stringify(results));`
A failed tool call throws an Error whose `code` says why (e.g. permission_denied)."""]
        if include_tools and self.tools:
            docs = []
            for name, func in self._tool_map.items():
                doc = (inspect.getdoc(func) or "No description").split("\n")[0]
                docs.append(f"- `{name}({{{self._signature(func)}}})` - {doc}")
            sections.append("\n### Available Functions\n" + "\n".join(docs))
        limits = self._limits_summary()
        if limits:
            sections.append("\n### Limits\n" + limits)
        return "\n".join(sections)

    def get_system_prompt_for_separate_tools(self, *, include_tools: bool = True) -> str:
        """The prompt for ``as_langchain_tools()``: ``sandbox_js`` and ``sandbox_shell``."""
        prompt = self.get_system_prompt(include_tools=include_tools).replace(
            f"a `{self.name}` tool", "a `sandbox_js` tool")
        return prompt + """

### Shell

The `sandbox_shell` tool runs a POSIX shell command line (pass it as `command`) in the
same sandbox: the same files (working directory /workspace), pipes and the applets cat,
grep, sed, awk, jq, sort, head, wc, ... (`help` lists them). Call a tool with
`tool toolName --param value`; its JSON result is printed. Example:
```sh
cat /workspace/data.json | jq '.[] | .id' | sort | uniq -c
```"""


def _langchain() -> tuple[Any, Any, Any]:
    try:
        from langchain_core.tools import StructuredTool
        from pydantic import BaseModel, Field
    except ImportError as exc:
        raise ImportError(_LANGCHAIN_MISSING.format(what="as_langchain_tool()")) from exc
    return StructuredTool, BaseModel, Field


def create_sandbox_tool(tools: Sequence[Callable[..., Any]] | None = None, *,
                        constraints: dict[str, Any] | None = None,
                        max_calls: int | dict[str, int] | None = None,
                        default_language: str = "javascript",
                        sandbox_class: type[Sandbox] = Sandbox,
                        tool_class: type[SandboxTool] = SandboxTool) -> SandboxTool:
    """A SandboxTool over Python functions with capabilities made for you (amla's).

    Args:
        tools: Python functions (or any tool ``Sandbox`` accepts); each may be called.
        constraints: per tool, per parameter: ``"<=1000"``, ``">=0"``, ``"<10"``,
            ``">5"``, ``"==42"``, ``"!=0"``, ``"startswith:/api/"``, ``"endswith:.csv"``,
            ``"contains:x"``, a list (allowed values), a number or bool (exact value), or
            a ``Constraint``/``ConstraintSet``. Anything else raises PolicyError.
        max_calls: calls per tool: an int for all, a dict per tool; default 100 each.
        sandbox_class, tool_class: the Sandbox and SandboxTool (sub)classes to make.
    """
    tools_list = list(tools) if tools else []
    bound = bind_tools(tools_list)
    names = [b.name for b in bound]
    if constraints is not None and not isinstance(constraints, dict):
        raise TypeError("constraints must be a dict {tool: {param: spec}}")
    if isinstance(constraints, dict):
        constraints = _by_tool(constraints, "constraints")
    if isinstance(max_calls, dict):
        max_calls = _by_tool(max_calls, "max_calls")
    unknown = set(constraints or {}) - set(names)
    if unknown:
        raise PolicyError(f"constraints for tools that are not given: {sorted(unknown)}")
    if isinstance(max_calls, dict):
        extra = set(max_calls) - set(names)
        if extra:
            raise PolicyError(f"max_calls for tools that are not given: {sorted(extra)}")
    elif max_calls is not None and (not isinstance(max_calls, int) or isinstance(max_calls, bool)):
        raise TypeError("max_calls must be an int or a dict {tool: int}")
    caps = []
    for name in names:
        limit = (max_calls.get(name, DEFAULT_MAX_CALLS) if isinstance(max_calls, dict)
                 else DEFAULT_MAX_CALLS if max_calls is None else max_calls)
        caps.append(ToolCallCap(method_pattern=name,
                                constraints=parse_constraints((constraints or {}).get(name, {}), name),
                                max_calls=limit))
    sandbox = sandbox_class(tools=tools_list, capabilities=caps)
    return tool_class(sandbox=sandbox, tools=tools_list,
                       _tool_map=_tool_map(bound, tools_list), default_language=default_language)


def _by_tool(spec: dict[str, Any], what: str) -> dict[str, Any]:
    """A per-tool dict keyed by canonical tool names (amla's "mcp:" prefix and '/'
    read as the bare name and '.')."""
    out: dict[str, Any] = {}
    for key, value in spec.items():
        if not isinstance(key, str):
            raise TypeError(f"{what} keys are tool names, not {key!r}")
        name = canonical_name(strip_mcp(key))
        if name in out:
            raise PolicyError(f"{what} names tool {name!r} twice")
        out[name] = value
    return out


def _tool_map(bound: Sequence[Any], tools: Sequence[Any]) -> dict[str, Callable[..., Any]]:
    return {b.name: f for b, f in zip(bound, tools) if callable(f)}


def parse_constraints(spec: Any, tool: str = "") -> ConstraintSet:
    """A ConstraintSet from create_sandbox_tool's per-parameter specs (strict)."""
    if isinstance(spec, ConstraintSet):
        return spec
    if not isinstance(spec, dict):
        raise PolicyError(f"constraints of {tool!r} must be a dict {{param: spec}}, not {spec!r}")
    out: list[Constraint] = []
    for param, value in spec.items():
        if isinstance(value, Constraint):
            out.append(value)
        elif isinstance(value, ConstraintSet):
            out.extend(value.constraints)
        elif isinstance(value, str):
            out.append(_parse_string(param, value, tool))
        elif isinstance(value, (list, tuple)):
            if not value:
                raise PolicyError(f"{tool}.{param}: an empty list of allowed values allows nothing")
            out.append(Constraint.is_in(param, list(value)))
        elif isinstance(value, (bool, int, float)):
            out.append(Constraint.eq(param, value))
        else:
            raise PolicyError(f"{tool}.{param}: cannot use {value!r} as a constraint")
    return ConstraintSet(out)


def _parse_string(param: str, spec: str, tool: str) -> Constraint:
    s = spec.strip()
    for op, make in (("<=", Constraint.le), (">=", Constraint.ge), ("==", Constraint.eq),
                     ("!=", Constraint.ne), ("<", Constraint.lt), (">", Constraint.gt)):
        if s.startswith(op):
            return make(param, _number(s[len(op):], tool, param, spec))
    for prefix, make_s in (("startswith:", Constraint.starts_with), ("endswith:", Constraint.ends_with),
                           ("contains:", Constraint.contains)):
        if spec.startswith(prefix):
            return make_s(param, spec[len(prefix):])
    raise PolicyError(f"{tool}.{param}: constraint {spec!r} is not understood (capsa refuses it "
                      "rather than drop it): use '<=N', '>=N', '<N', '>N', '==N', '!=N', "
                      "'startswith:x', 'endswith:x', 'contains:x', a list, or a Constraint")


def _number(text: str, tool: str, param: str, spec: str) -> int | float:
    t = text.strip()
    try:
        return int(t)
    except ValueError:
        pass
    try:
        v = float(t)
    except ValueError:
        raise PolicyError(f"{tool}.{param}: constraint {spec!r}: {t!r} is not a number") from None
    if v != v or v in (float("inf"), float("-inf")):
        raise PolicyError(f"{tool}.{param}: constraint {spec!r}: not a finite number")
    return v


__all__ += ["parse_constraints", "ShellNotAvailable"]
