"""Runs tests/python/test_*.py with unittest, one line per test, and ends with the
"N passed, N failed" line tests/run.sh adds up. Arguments select test name patterns (-k)."""

from __future__ import annotations

import sys
import unittest
import warnings
from pathlib import Path


def main() -> int:
    here = Path(__file__).resolve().parent
    sys.path.insert(0, str(here))
    loader = unittest.TestLoader()
    if len(sys.argv) > 1:
        loader.testNamePatterns = [f"*{p}*" for p in sys.argv[1:]]
    suite = loader.discover(str(here), pattern="test_*.py", top_level_dir=str(here))
    warnings.simplefilter("default")
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    passed = result.testsRun - failed - len(result.skipped)
    if result.testsRun == 0:
        failed = max(failed, 1)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
