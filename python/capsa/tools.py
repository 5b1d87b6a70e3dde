"""Tools: Python callables and tool definitions that sandboxed scripts may call.

A sandbox accepts, in its ``tools`` list:

- plain Python callables (``def`` or ``async def``): the name is the function's, the
  description and the JSON Schema of the arguments come from the docstring and the
  type hints; scripts call ``await name({...})`` and the function gets keyword
  arguments;
- ``Tool(name, handler, description, parameters)``: an explicit definition;
- ``ToolDefinition(name, description, parameters)`` (amla's): no handler of its own,
  calls go to the sandbox's ``tool_handler(method, params)``;
- tool dicts in the OpenAI (``{"type": "function", "function": {...}}``), Anthropic
  (``{"name", "description", "input_schema"}``) or MCP (``inputSchema``) formats,
  handled by ``tool_handler`` too;
- LangChain tools (``@tool`` functions, ``BaseTool`` objects), called through their
  own ``invoke``/``ainvoke`` (LangChain is never imported here).

Values cross as JSON; a result's values that ``json`` cannot encode (datetime, Decimal,
UUID, bytes, Enum, dataclasses, pydantic models, sets, ...) are converted by the rule
of ``capsa.RESULT_RULE``. A callback's failure never reaches the library as a Python
exception: it becomes the script's ToolError (``tool_error``, ``invalid_arguments``,
``invalid_result``, or the code of a ``capsa.ToolError`` the tool raised), is recorded
as a ``ToolCallbackError`` in the run's result, and, when unexpected, warned about
(``ToolCallbackWarning``).
"""

from __future__ import annotations

# asyncio (and concurrent.futures) are imported by the async functions that use
# them: they cost a process about 20 ms to import, and most callers are synchronous.
import functools
import inspect
import json
import re
import threading
import warnings
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Sequence

from ._json import dumps_result
from ._schema import function_schema
from .capabilities import strip_mcp
from .errors import ToolCallbackError, ToolCallbackWarning, ToolError

__all__ = [
    "Tool", "ToolDefinition", "tool", "tool_from_function", "capability_from_function",
    "create_tool_handler", "from_langchain", "from_openai_tools", "from_openai",
    "from_anthropic_tools", "from_claude", "format_tool_descriptions_js", "ToolHandler",
]

ToolHandler = Callable[[str, dict[str, Any]], Any]
"""amla's handler of every call: ``handler(method, params) -> result`` (or a coroutine)."""

_tls = threading.local()


def in_tool_of(owner: int) -> bool:
    """Whether this thread is inside a tool callback of the sandbox with key ``owner``."""
    return getattr(_tls, "owner", None) == owner


_NAME = re.compile(r"^[A-Za-z0-9_-]+([./][A-Za-z0-9_-]+)*$")


def canonical_name(name: str) -> str:
    """A tool name or pattern in its canonical form: '/' is the same separator as
    '.', which the library, the audit and ``tools.list()`` use ("a/b" -> "a.b")."""
    return name.replace("/", ".")


@dataclass
class ToolDefinition:
    """A tool's name, description and JSON Schema of its arguments (amla's ToolDefinition).

    Its calls go to the sandbox's ``tool_handler(method, params)``.
    """

    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The MCP form: ``{"name", "description", "inputSchema"}``."""
        return {"name": self.name, "description": self.description, "inputSchema": self.parameters}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ToolDefinition":
        """From the MCP form, or with ``parameters`` instead of ``inputSchema``."""
        params = data.get("inputSchema") or data.get("parameters") or {}
        return cls(name=data["name"], description=data.get("description", ""), parameters=params)


@dataclass
class Tool:
    """An explicit tool: a name, its handler (called with keyword arguments; ``def`` or
    ``async def``; None: calls go to the sandbox's ``tool_handler``), a description and
    the JSON Schema of its arguments (None: derived from the handler's signature).

    ``timeout_ms``: the call's time limit (0: the sandbox's ``tool_timeout_ms``).
    ``inline``: run a fast, non-blocking *sync* handler directly on the thread running
    the script (no thread hop; the per-call timeout does not apply).
    """

    name: str
    handler: Callable[..., Any] | None = None
    description: str = ""
    parameters: dict[str, Any] | None = None
    timeout_ms: int = 0
    inline: bool = False


def tool(fn: Callable[..., Any] | None = None, *, name: str | None = None,
         description: str | None = None, parameters: dict[str, Any] | None = None,
         timeout_ms: int = 0, inline: bool = False) -> Any:
    """Decorator that sets a function's tool name, description, schema or timeout
    (the function itself is returned unchanged and stays callable)::

        @capsa.tool(name="weather.current", timeout_ms=5000)
        def current(city: str) -> dict: ...
    """

    def mark(f: Callable[..., Any]) -> Callable[..., Any]:
        f.__capsa_tool__ = Tool(name=name or f.__name__, handler=f,  # type: ignore[attr-defined]
                                description=description or "", parameters=parameters,
                                timeout_ms=timeout_ms, inline=inline)
        return f

    return mark(fn) if fn is not None else mark


class BoundTool:
    """A tool ready to register: its definition and how to call its handler.

    ``style`` says how: "kwargs" (``handler(**params)``), "method"
    (``handler(method, params)``, amla's tool_handler) or "langchain"
    (``tool.invoke(params)`` / ``tool.ainvoke(params)``).
    """

    def __init__(self, name: str, description: str, parameters: dict[str, Any],
                 handler: Any, style: str, *, is_async: bool = False, timeout_ms: int = 0,
                 inline: bool = False, source: Any = None) -> None:
        if not isinstance(name, str) or not _NAME.match(strip_mcp(name)):
            raise ValueError(f"invalid tool name {name!r}: segments of letters, digits, '_' and '-' "
                             "joined by '.' (or '/', the same separator)")
        if not isinstance(parameters, dict):
            raise TypeError(f"tool {name!r}: parameters must be a JSON Schema dict, "
                            f"not {type(parameters).__name__}")
        if timeout_ms is not None and (not isinstance(timeout_ms, int) or timeout_ms < 0):
            raise TypeError(f"tool {name!r}: timeout_ms must be an int >= 0")
        self.name = canonical_name(strip_mcp(name))
        self.given_name = name  # as the user wrote it: what a tool_handler(method, ...) gets
        self.description = description or ""
        self.parameters = parameters
        self.handler = handler
        self.style = style
        self.is_async = is_async
        self.timeout_ms = timeout_ms or 0
        self.inline = inline and not is_async
        self.source = source  # what the user passed (a function, a dict, ...)
        self.sink: Callable[[ToolCallbackError], None] | None = None
        self.owner: int | None = None  # the registry key of the sandbox it belongs to
        self._sig: inspect.Signature | None = None
        if style == "kwargs" and handler is not None:
            try:
                self._sig = inspect.signature(handler)
            except (TypeError, ValueError):
                self._sig = None

    def definition(self) -> ToolDefinition:
        return ToolDefinition(self.name, self.description, self.parameters)

    # ---- calling ----

    def _call(self, params: dict[str, Any]) -> Any:
        """Calls the handler; may return an awaitable. Raises _Fail for bad arguments."""
        if self.handler is None:
            raise _Fail("tool_error", f"tool '{self.name}' has no handler: give the sandbox a "
                                      "tool_handler, or register a callable")
        if self.style == "method":
            return self.handler(self.given_name, params)
        if self.style == "langchain":
            return self.handler(params)
        if self._sig is not None:
            try:
                self._sig.bind(**params)
            except TypeError as exc:
                raise _Fail("invalid_arguments", f"tool '{self.name}': {exc}") from None
        return self.handler(**params)

    def _start(self, args: bytes) -> dict[str, Any]:
        try:
            params = json.loads(args)
        except RecursionError:
            raise _Fail("invalid_arguments", f"tool '{self.name}': the arguments are nested "
                                             "deeper than Python's JSON parser can take") from None
        if not isinstance(params, dict):
            raise _Fail("invalid_arguments", f"tool '{self.name}': the arguments are not an object")
        return params

    def invoke_sync(self, _name: str, args: bytes, cancelled: Callable[[], bool]
                    ) -> tuple[bool, Any]:
        """Runs the call on the current thread: (True, JSON bytes) or (False, (code, message))."""
        outer = getattr(_tls, "owner", None)
        _tls.owner = self.owner
        try:
            result = self._call(self._start(args))
            if inspect.isawaitable(result):
                result = _run_awaitable(result)
            return True, self._encode(result)
        except BaseException as exc:  # noqa: BLE001 - a callback's failure goes to the script
            return False, self._failure(exc)
        finally:
            _tls.owner = outer

    async def invoke_async(self, args: bytes) -> tuple[bool, Any]:
        """Runs the call on the running event loop (sync handlers in its executor)."""
        import asyncio
        try:
            params = self._start(args)
            if self.is_async:
                result = self._call(params)
            else:
                loop = asyncio.get_running_loop()
                result = await loop.run_in_executor(None, self._call, params)
            if inspect.isawaitable(result):
                result = await result
            return True, self._encode(result)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # noqa: BLE001 - a callback's failure goes to the script
            return False, self._failure(exc)

    def _encode(self, result: Any) -> bytes:
        """The result as JSON, with the types ``json`` cannot take converted by the rule
        of ``capsa.RESULT_RULE`` (datetime as ISO 8601 text, Decimal, UUID, bytes as
        base64, Enum, dataclasses, pydantic models, sets ...)."""
        try:
            return dumps_result(result)
        except (TypeError, ValueError, UnicodeEncodeError, RecursionError) as exc:
            raise _Fail("invalid_result",
                        f"tool '{self.name}' returned a value that is not JSON-serialisable "
                        f"({type(result).__name__}): {exc}", cause=exc) from None

    def _failure(self, exc: BaseException) -> tuple[str, str]:
        """The (code, message) the script gets; records (and maybe warns about) it."""
        warn = True
        cause: BaseException = exc
        if isinstance(exc, _Fail):
            code, message, cause = exc.code, exc.message, exc.cause or exc
            warn = code == "invalid_result"
        elif isinstance(exc, ToolError):
            code, message, warn = _code(exc.error_code), str(exc), False
        else:
            code, message = "tool_error", f"{type(exc).__name__}: {exc}"
        record = ToolCallbackError(message, tool=self.name, error_code=code)
        record.__cause__ = cause
        if self.sink is not None:
            try:
                self.sink(record)
            except Exception:  # noqa: BLE001
                pass
        if warn:
            warnings.warn(f"capsa: tool '{self.name}' failed in Python, the script gets "
                          f"ToolError {code}: {message}", ToolCallbackWarning, stacklevel=2)
        return code, message


class _Fail(Exception):
    def __init__(self, code: str, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.cause = cause


def _code(code: str) -> str:
    return code if isinstance(code, str) and re.fullmatch(r"[A-Za-z0-9_]{1,47}", code) else "tool_error"


def _run_awaitable(aw: Awaitable[Any]) -> Any:
    """Runs an awaitable to completion on a private loop (tool worker threads have none)."""

    import asyncio

    async def wrap() -> Any:
        return await aw

    return asyncio.run(wrap())


# ---- normalising what users pass -------------------------------------------------------


def _is_langchain_tool(obj: Any) -> bool:
    mod = type(obj).__module__ or ""
    return (mod.startswith(("langchain", "langchain_core")) or
            (hasattr(obj, "invoke") and hasattr(obj, "args_schema") and hasattr(obj, "name")))


def _is_async_callable(fn: Any) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))


def _langchain_schema(obj: Any) -> dict[str, Any]:
    schema_src = getattr(obj, "args_schema", None)
    if isinstance(schema_src, dict):
        schema = dict(schema_src)
    elif schema_src is not None and hasattr(schema_src, "model_json_schema"):
        schema = dict(schema_src.model_json_schema())
    elif schema_src is not None and hasattr(schema_src, "schema"):
        schema = dict(schema_src.schema())
    else:
        schema = {"type": "object", "properties": dict(getattr(obj, "args", {}) or {})}
    for key in ("title", "definitions"):
        schema.pop(key, None)
    schema.setdefault("type", "object")
    return schema


def _bind_langchain(obj: Any) -> BoundTool:
    name = getattr(obj, "name", None) or type(obj).__name__
    description = (getattr(obj, "description", "") or "").strip()
    has_async = callable(getattr(obj, "ainvoke", None)) and getattr(obj, "coroutine", None) is not None
    handler = obj.ainvoke if has_async else obj.invoke
    return BoundTool(name, description, _langchain_schema(obj), handler, "langchain",
                     is_async=has_async, source=obj)


def _dict_definition(d: dict[str, Any]) -> ToolDefinition:
    """A ToolDefinition from an OpenAI, Anthropic or MCP tool dict."""
    if d.get("type") == "function" and isinstance(d.get("function"), dict):
        d = d["function"]
    if "name" not in d or not isinstance(d["name"], str):
        raise TypeError(f"a tool dict needs a 'name' (OpenAI, Anthropic or MCP format): {d!r}")
    params = d.get("parameters") or d.get("input_schema") or d.get("inputSchema") or \
        {"type": "object", "properties": {}}
    return ToolDefinition(d["name"], d.get("description", ""), params)


def bind_tools(tools: Sequence[Any] | None, tool_handler: Any = None) -> list[BoundTool]:
    """Turns what users pass as ``tools`` into BoundTools (see the module's docstring)."""
    if tools is None:
        return []
    if isinstance(tools, (str, bytes, dict)) or not isinstance(tools, (list, tuple)) and \
            not hasattr(tools, "__iter__"):
        raise TypeError(f"tools must be a list, not {type(tools).__name__}")
    if tool_handler is not None and not callable(tool_handler):
        raise TypeError(f"tool_handler must be callable (method, params) -> result, "
                        f"not {type(tool_handler).__name__}")
    handler_async = tool_handler is not None and _is_async_callable(tool_handler)
    out: list[BoundTool] = []
    for item in tools:
        if isinstance(item, Tool):
            out.append(_bind_tool(item, tool_handler, handler_async))
        elif isinstance(item, ToolDefinition):
            out.append(BoundTool(item.name, item.description, item.parameters or
                                 {"type": "object"}, tool_handler, "method",
                                 is_async=handler_async, source=item))
        elif isinstance(item, dict):
            d = _dict_definition(item)
            out.append(BoundTool(d.name, d.description, d.parameters, tool_handler, "method",
                                 is_async=handler_async, source=item))
        elif _is_langchain_tool(item) and not hasattr(item, "__capsa_tool__"):
            out.append(_bind_langchain(item))
        elif callable(item) and not isinstance(item, type):
            meta = getattr(item, "__capsa_tool__", None)
            out.append(_bind_tool(meta if isinstance(meta, Tool) else Tool(name=_fn_name(item),
                                                                           handler=item),
                                  tool_handler, handler_async))
        else:
            raise TypeError(f"cannot use {item!r} ({type(item).__name__}) as a tool: pass a "
                            "function, a capsa.Tool, a ToolDefinition, an OpenAI/Anthropic tool "
                            "dict or a LangChain tool")
    names = [t.name for t in out]  # canonical: "a/b" and "a.b" are one name
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"tool names used twice: {sorted(dup)}")
    return out


def _fn_name(fn: Any) -> str:
    name = getattr(fn, "__name__", None) or type(fn).__name__
    if name == "<lambda>":
        raise TypeError("a lambda has no name to call it by: wrap it in capsa.Tool(name, handler)")
    return name


def _bind_tool(t: Tool, tool_handler: Any, handler_async: bool) -> BoundTool:
    if t.handler is None:
        return BoundTool(t.name, t.description, t.parameters or {"type": "object"}, tool_handler,
                         "method", is_async=handler_async, timeout_ms=t.timeout_ms, source=t)
    if not callable(t.handler):
        raise TypeError(f"tool {t.name!r}: handler must be callable")
    description, schema = t.description, t.parameters
    if schema is None or not description:
        doc, derived = function_schema(t.handler)
        description = description or doc
        schema = schema if schema is not None else derived
    return BoundTool(t.name, description, schema, t.handler, "kwargs",
                     is_async=_is_async_callable(t.handler), timeout_ms=t.timeout_ms,
                     inline=t.inline, source=t.handler)


# ---- amla-compatible helpers -------------------------------------------------------------


def tool_from_function(func: Callable[..., Any]) -> ToolDefinition:
    """A ToolDefinition from a function's name, docstring and type hints (amla's)."""
    bound = bind_tools([func])[0]
    return bound.definition()


def capability_from_function(func: Callable[..., Any], constraints: Any = None,
                             max_calls: int | None = None) -> Any:
    """A ToolCallCap allowing calls of a function's tool (amla's; the pattern is the
    tool's name, not amla's ``mcp:`` prefixed one)."""
    from .capabilities import ConstraintSet, ToolCallCap

    name = bind_tools([func])[0].name
    return ToolCallCap(method_pattern=name, constraints=constraints or ConstraintSet(),
                       max_calls=max_calls)


def create_tool_handler(tools: Sequence[Callable[..., Any]]) -> ToolHandler:
    """A ``handler(method, params)`` that dispatches to functions by name (amla's)."""
    table = {_fn_name(f): f for f in tools}

    def handler(method: str, params: dict[str, Any]) -> Any:
        fn = table.get(method) or table.get(method.removeprefix("mcp:"))
        if fn is None:
            raise ToolError(f"unknown tool: {method}", "unknown_tool")
        _check_required(fn, params)
        return fn(**params)

    return handler


def _check_required(fn: Callable[..., Any], params: dict[str, Any]) -> None:
    """Raises MissingParamError (amla's) for the first required parameter of fn that
    params lack, before fn runs."""
    from .errors import MissingParamError

    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    for name, p in sig.parameters.items():
        if (p.default is inspect.Parameter.empty and name not in params
                and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)):
            raise MissingParamError(name)


def _named(fn: Callable[..., Any], definition: ToolDefinition) -> Callable[..., Any]:
    """A wrapper of fn carrying a definition's name and schema (fn is not changed)."""
    if _is_async_callable(fn):
        @functools.wraps(fn)
        async def wrapper_async(*a: Any, **kw: Any) -> Any:
            return await fn(*a, **kw)
        wrapper: Callable[..., Any] = wrapper_async
    else:
        @functools.wraps(fn)
        def wrapper_sync(*a: Any, **kw: Any) -> Any:
            return fn(*a, **kw)
        wrapper = wrapper_sync
    wrapper.__name__ = definition.name
    wrapper.__capsa_tool__ = Tool(definition.name, fn, definition.description,  # type: ignore[attr-defined]
                                  definition.parameters)
    return wrapper


def _placeholder(definition: ToolDefinition, origin: str) -> Callable[..., Any]:
    def placeholder(**_kwargs: Any) -> Any:
        raise ToolError(f"no handler was given for tool '{definition.name}' (pass "
                        f"handlers={{'{definition.name}': fn}} to {origin})", "not_implemented")

    placeholder.__doc__ = definition.description
    return _named(placeholder, definition)


def _ingest(tools: Sequence[dict[str, Any]], handlers: dict[str, Callable[..., Any]] | None,
            origin: str) -> tuple[list[Callable[..., Any]], list[ToolDefinition]]:
    handlers = handlers or {}
    funcs: list[Callable[..., Any]] = []
    defs: list[ToolDefinition] = []
    for t in tools:
        if not isinstance(t, dict):
            raise TypeError(f"{origin} takes tool dicts, not {type(t).__name__}")
        d = _dict_definition(t)
        fn = handlers.get(d.name)
        funcs.append(_named(fn, d) if fn is not None else _placeholder(d, origin))
        defs.append(d)
    return funcs, defs


def from_openai_tools(tools: Sequence[dict[str, Any]],
                      handlers: dict[str, Callable[..., Any]] | None = None
                      ) -> tuple[list[Callable[..., Any]], list[ToolDefinition]]:
    """OpenAI function-calling tools -> (functions, definitions), paired by index (amla's).

    The functions carry the OpenAI schema and call ``handlers[name]`` (a placeholder
    that fails the call with ``not_implemented`` when there is none).
    """
    return _ingest(tools, handlers, "from_openai_tools()")


def from_anthropic_tools(tools: Sequence[dict[str, Any]],
                         handlers: dict[str, Callable[..., Any]] | None = None
                         ) -> tuple[list[Callable[..., Any]], list[ToolDefinition]]:
    """Anthropic tool definitions (``input_schema``) -> (functions, definitions) (amla's)."""
    return _ingest(tools, handlers, "from_anthropic_tools()")


from_openai = from_openai_tools
from_claude = from_anthropic_tools


def from_langchain(tools: Sequence[Any]) -> tuple[list[Callable[..., Any]], list[ToolDefinition]]:
    """LangChain tools (``@tool`` objects, ``BaseTool``s) or plain functions ->
    (functions, definitions) (amla's). The functions call the tool's ``invoke`` (or
    ``ainvoke``) with the arguments; a plain function is kept as it is, its definition
    from its hints and docstring. LangChain itself is not imported."""
    funcs: list[Callable[..., Any]] = []
    defs: list[ToolDefinition] = []
    for t in tools:
        if not (_is_langchain_tool(t) or (hasattr(t, "name") and callable(getattr(t, "invoke", None)))):
            if callable(t) and not isinstance(t, type):
                # A plain function (what @tool would have wrapped): as it is.
                funcs.append(t)
                defs.append(tool_from_function(t))
                continue
            raise TypeError(f"from_langchain() takes LangChain tools or functions, "
                            f"not {type(t).__name__}")
        b = _bind_langchain(t)
        d = b.definition()
        fn = _langchain_kwargs(b)
        fn.__name__ = d.name
        fn.__doc__ = d.description
        fn.__capsa_tool__ = Tool(d.name, fn, d.description, d.parameters)  # type: ignore[attr-defined]
        funcs.append(fn)
        defs.append(d)
    return funcs, defs


def _langchain_kwargs(b: BoundTool) -> Callable[..., Any]:
    if b.is_async:
        async def h_async(**kw: Any) -> Any:
            return await b.handler(kw)
        return h_async

    def h(**kw: Any) -> Any:
        return b.handler(kw)
    return h


def format_tool_descriptions_js(tools: Sequence[Any]) -> str:
    """Markdown describing tools as the script calls them (amla's)."""
    lines = ["## Available Functions", ""]
    for b in bind_tools(list(tools)):
        props = b.parameters.get("properties", {}) or {}
        required = set(b.parameters.get("required", []) or [])
        params = ", ".join(f"{k}{'' if k in required else '?'}: {_type_name(v)}" for k, v in props.items())
        flat = re.sub(r"[./-]", "_", b.name)
        lines.append(f"### `{flat}({{{params}}})`")
        lines.append(b.description.split("\n")[0] if b.description else "No description")
        lines.append("")
    return "\n".join(lines)


def _type_name(schema: Any) -> str:
    if isinstance(schema, dict):
        if "type" in schema:
            return str(schema["type"])
        if "enum" in schema:
            return " | ".join(json.dumps(v) for v in schema["enum"])
    return "any"
