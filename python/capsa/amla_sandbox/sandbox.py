"""amla_sandbox.sandbox: amla-sandbox's ``Sandbox`` on capsa.

The same ``capsa.Sandbox`` (one guest, the library's checker, files, shell), with the
guest as amla's code expects it:

- each ``execute()`` runs its code in a scope of its own, as amla's does (it wraps the
  code in an async function): a second run may declare ``const x`` again, and nothing
  it declares outlives it; files persist between runs. capsa's own API (``run``) keeps
  its notebook persistence;
- in that scope ``fs.readFile(path)`` without an encoding returns a string (amla's; an
  explicit ``{encoding: null}`` still gives bytes), ``shell(cmd)`` gives ``{stdout,
  stderr, exitCode}`` and ``shell.run(cmd)`` returns stdout and throws on a non-zero
  exit, and ``listTools()``, ``getToolInfo(name)`` and ``__tools__`` describe the tools;
- a dotted tool's first segment is a name in that scope, as in amla: ``stripe.charges.
  create({...})`` is capsa's ``tools.stripe.charges.create`` (the flat
  ``stripe_charges_create`` works too);
- the shell's ``tool --list PREFIX`` lists only the tools whose names start with PREFIX.

None of this is a security boundary: it runs inside the guest, and every tool call is
still checked on the host. amla's ``pca``, ``trusted_authorities`` and ``wasm_path`` are
accepted and unused: capsa's authority is the ``capabilities`` list (a bare
``Sandbox()`` grants nothing, where amla's grants ``**``), and its guest is compiled
into the library.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Sequence

from ..audit import AuditConfig
from ..sandbox import Sandbox as _CapsaSandbox

__all__ = ["Sandbox"]

# The helpers amla's prelude gives scripts, made once per JS state (a limit or a reset
# loses them, and the next execute makes them again). Written without comments and
# with explicit semicolons: it is joined into the first line of the run, so that the
# script's own line numbers stay as they were.
_PRELUDE = r"""
globalThis.__amla || Object.defineProperty(globalThis, '__amla', { configurable: true,
  value: (() => {
    const toolFn = %(tool_fn)s;
    const text = (o) => o === undefined || o === null ? 'utf8' :
      (typeof o === 'object' && o.encoding === undefined ? Object.assign({}, o, { encoding: 'utf8' }) : o);
    const reader = (owner, read) => function readFile(path, options, callback) {
      if (typeof options === 'function') return read.call(owner, path, 'utf8', options);
      return callback === undefined ? read.call(owner, path, text(options)) :
        read.call(owner, path, text(options), callback);
    };
    const base = globalThis.fs;
    const fs = Object.create(base);
    fs.readFile = reader(base, base.readFile);
    fs.readFileSync = reader(base, base.readFileSync);
    fs.promises = Object.create(base.promises);
    fs.promises.readFile = reader(base.promises, base.promises.readFile);
    const sh = globalThis.shell;
    const shell = function shell(cmd, options) { return sh(toolFn + '\n' + cmd, options); };
    shell.run = async function run(cmd, options) {
      const r = await shell(cmd, options);
      if (r.exitCode !== 0) {
        const e = new Error(`Command failed with exit code ${r.exitCode}: ${cmd}` +
          (r.stderr ? `\n${r.stderr}` : ''));
        e.exitCode = r.exitCode; e.stdout = r.stdout; e.stderr = r.stderr;
        throw e;
      }
      return r.stdout;
    };
    const getToolInfo = function getToolInfo(name) {
      const d = globalThis.tools.describe(name);
      return d === undefined ? null :
        { name: d.name, jsName: d.flat, description: d.description, parameters: d.parameters };
    };
    const listTools = function listTools() {
      return globalThis.tools.list().map((t) => getToolInfo(t.name).jsName);
    };
    const allTools = () => globalThis.tools.list().map((t) => getToolInfo(t.name));
    return Object.freeze({ fs, shell, listTools, getToolInfo, allTools });
  })() });
"""

# The shell's `tool`, with amla's `tool --list PREFIX` (capsa's lists every tool).
_TOOL_FN = ("tool() { if [ \"$1\" = --list ] && [ $# -ge 2 ]; then command tool --list | "
            "awk -v p=\"$2\" 'BEGIN { gsub(\"/\", \".\", p) } index($0, p) == 1'; "
            "else command tool \"$@\"; fi; }")

_HEAD = (" ".join(line.strip() for line in (_PRELUDE % {"tool_fn": repr(_TOOL_FN)}).splitlines())
         + " { const { fs, shell, listTools, getToolInfo } = globalThis.__amla;"
         " const __tools__ = globalThis.__amla.allTools();")
_BODY = " return await (async () => {"
_TAIL = "\n})(); }"

_IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
# Names a namespace constant must not take: the scope's own, those of `tools` itself,
# JavaScript's reserved words and the globals scripts rely on.
_TAKEN = frozenset("""fs shell listTools getToolInfo __tools__ tools list describe call
    break case catch class const continue debugger default delete do else enum export extends
    false finally for function if import in instanceof new null return super switch this throw
    true try typeof var void while with yield let static implements interface package private
    protected public await async arguments eval undefined NaN Infinity globalThis console
    require Buffer process Object Array String Number Boolean Symbol Math JSON Promise Error
    Date RegExp Map Set""".split())


def namespaces(tool_names: list[str]) -> list[str]:
    """The first segments of dotted tool names that can be a JavaScript constant, so that
    ``stripe.charges.create({...})`` works as in amla (capsa's ``tools.stripe...``)."""
    out: list[str] = []
    for name in tool_names:
        first, dot, _ = name.partition(".")
        if dot and _IDENT.match(first) and first not in _TAKEN and first not in out:
            out.append(first)
    return out


def scoped(code: str | bytes, tool_names: list[str] | None = None) -> str:
    """``code`` as amla runs it: in an async function of its own, after the helpers and
    the tools' namespaces, all on the code's first line so that line numbers in errors
    stay the script's."""
    text = code.decode("utf-8") if isinstance(code, (bytes, bytearray)) else code
    ns = "".join(f" const {n} = globalThis.tools.{n};" for n in namespaces(tool_names or []))
    return _HEAD + ns + _BODY + text + _TAIL


class Sandbox(_CapsaSandbox):
    """amla-sandbox's Sandbox (same keywords; see the module's docstring for what
    differs). capsa's keywords (``limits``, ``mounts``, ``on_output``, ...) work too."""

    def __init__(self, pca: bytes = b"", tools: Sequence[Any] | None = None,
                 capabilities: Any = None, trusted_authorities: Sequence[str] | None = None,
                 tool_handler: Any = None, wasm_path: Path | str | None = None,
                 audit_config: AuditConfig | None = None, **capsa_options: Any) -> None:
        if not isinstance(pca, (bytes, bytearray)):
            raise TypeError(f"pca must be bytes, not {type(pca).__name__}")
        self.pca = bytes(pca)
        self.trusted_authorities = list(trusted_authorities or [])
        self.wasm_path = wasm_path
        super().__init__(tools=tools, capabilities=capabilities, tool_handler=tool_handler,
                         audit_config=audit_config, **capsa_options)

    def _js_source(self, code: str | bytes) -> str:
        return scoped(code, [t.name for t in self._bound])

    def run_shell(self, command: str, stdin: str | bytes | None = None, *,
                  on_output: Any = None) -> Any:
        """capsa's ``run_shell``, with amla's ``tool --list PREFIX`` (so ``shell``,
        ``SandboxTool.shell`` and ``run(..., language="shell")`` have it too)."""
        return super().run_shell(with_tool_list(command), stdin, on_output=on_output)

    async def run_shell_async(self, command: str, stdin: str | bytes | None = None, *,
                              on_output: Any = None) -> Any:
        return await super().run_shell_async(with_tool_list(command), stdin, on_output=on_output)


def with_tool_list(command: Any) -> Any:
    """A command line preceded by the definition of amla's ``tool`` (anything that is
    not a str is left for the shell's own type check)."""
    return _TOOL_FN + "\n" + command if isinstance(command, str) else command
