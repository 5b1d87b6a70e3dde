"""The engine: what sandboxes share (the compiled guest image, a pool of instances).

One engine per process is typical and is made on first use (``default_engine()``);
make your own to set ``pool_size`` or ``max_sandboxes``.
"""

from __future__ import annotations

import ctypes
import threading

from . import _lib
from .errors import CapsaError, error_for


class Engine:
    """A capsa engine. It lives as long as the process unless ``close()`` is called
    after every sandbox made from it has been closed.

    ``pool_size`` guest instances are kept ready: a new sandbox takes one, and closing
    a sandbox puts its instance back, restored to the engine's image in place (the
    fastest way to run many short tasks one after another)."""

    def __init__(self, *, pool_size: int = 0, max_sandboxes: int | None = None) -> None:
        if not isinstance(pool_size, int) or isinstance(pool_size, bool) or not 0 <= pool_size <= 1024:
            raise TypeError("pool_size must be an int from 0 to 1024")
        lib = _lib.lib()
        opts = _lib.EngineOptions()
        lib.capsa_engine_options_init(ctypes.byref(opts))
        opts.pool_size = pool_size
        if max_sandboxes is not None:
            if not isinstance(max_sandboxes, int) or max_sandboxes <= 0:
                raise TypeError("max_sandboxes must be a positive int")
            opts.max_sandboxes = max_sandboxes
        handle = ctypes.c_void_p()
        rc = lib.capsa_engine_new(ctypes.byref(opts), ctypes.byref(handle))
        if rc != _lib.OK:
            raise error_for(rc, f"capsa_engine_new failed: {lib.capsa_errstr(rc).decode()}")
        self._handle: int | None = handle.value
        self._live = 0
        self._lock = threading.Lock()

    @property
    def handle(self) -> int:
        if self._handle is None:
            raise CapsaError("the engine is closed")
        return self._handle

    def _retain(self) -> None:
        with self._lock:
            self._live += 1

    def _release(self) -> None:
        with self._lock:
            self._live -= 1

    def close(self) -> None:
        """Frees the engine; every sandbox made from it must have been closed."""
        with self._lock:
            if self._handle is None:
                return
            if self._live:
                raise CapsaError(f"the engine still has {self._live} live sandboxes")
            _lib.lib().capsa_engine_free(self._handle)
            self._handle = None


_default: Engine | None = None
_default_lock = threading.Lock()


def default_engine() -> Engine:
    """The process-wide engine, made on first use."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Engine()
    return _default


def version() -> str:
    """The library's version string ("0.1.0")."""
    return _lib.lib().capsa_version().decode()
