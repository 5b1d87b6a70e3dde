"""``import capsa.as_amla_sandbox``: one line that makes ``import amla_sandbox`` resolve
to capsa's amla-sandbox API (``capsa.amla_sandbox``), unless the real amla-sandbox is
installed, which is then left alone (``INSTALLED`` says which happened)."""

from .amla_sandbox import install

INSTALLED = install()
"""True when ``amla_sandbox`` is capsa's package, False when the real one is importable."""
