"""``python3 -m capsa.amla_sandbox PROGRAM.py [ARGS]``: runs a program written for
amla-sandbox unchanged, with ``import amla_sandbox`` resolving to capsa's package
(unless the real one is installed)."""

from __future__ import annotations

import os
import runpy
import sys

from . import install


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print("usage: python3 -m capsa.amla_sandbox PROGRAM.py [ARGS...]\n"
              "Runs PROGRAM.py with `import amla_sandbox` resolving to capsa's amla-sandbox "
              "API (capsa.amla_sandbox), unless amla-sandbox itself is installed.",
              file=sys.stderr if len(sys.argv) < 2 else sys.stdout)
        return 2 if len(sys.argv) < 2 else 0
    install()
    sys.argv = sys.argv[1:]
    # As `python3 PROGRAM.py` does: the program's directory first on the path (for -m
    # it is the working directory), so modules beside it import.
    sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))
    runpy.run_path(sys.argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
