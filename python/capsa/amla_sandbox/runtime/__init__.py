"""amla_sandbox.runtime: amla's Runtime names (see ``runtime.wasm``)."""

from .wasm import (
    AsyncToolHandler,
    Runtime,
    RuntimeConfig,
    RuntimeError,
    RuntimeStatus,
    SyncToolHandler,
    ToolHandler,
    precompile_module,
)

__all__ = ["AsyncToolHandler", "Runtime", "RuntimeConfig", "RuntimeError", "RuntimeStatus",
           "SyncToolHandler", "ToolHandler", "precompile_module"]
