"""The package's version, whose one home is include/capsa.h (CAPSA_VERSION_MAJOR,
_MINOR and _PATCH): in a source checkout this module reads the header beside the
package; the build backend (python/_build/capsa_build.py) writes the version it read
into the wheel's and the sdist's copy of this file, so that an installed package
needs no header."""

from __future__ import annotations

import re
from pathlib import Path

HEADER = Path(__file__).resolve().parent.parent.parent / "include" / "capsa.h"


def read_header(path: Path = HEADER) -> str:
    """The version "MAJOR.MINOR.PATCH" from the #define lines of capsa.h at path."""
    text = path.read_text(encoding="utf-8")
    parts = []
    for key in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(rf"^#define CAPSA_VERSION_{key}\s+(\d+)\s*$", text, re.M)
        if not m:
            raise RuntimeError(f"{path}: no #define CAPSA_VERSION_{key}")
        parts.append(m.group(1))
    return ".".join(parts)


# A copy of the package without its checkout or a build (python/capsa taken alone)
# still imports; its version is then unknown.
__version__ = read_header() if HEADER.is_file() else "0+unknown"
