"""Lets the examples run from a checkout: `python3 examples/python/X.py` after `make python`
uses the package in python/ (an installed capsa is used when there is none)."""

import sys
from pathlib import Path

_pkg = Path(__file__).resolve().parents[2] / "python"
if (_pkg / "capsa" / "__init__.py").is_file() and str(_pkg) not in sys.path:
    sys.path.insert(0, str(_pkg))
