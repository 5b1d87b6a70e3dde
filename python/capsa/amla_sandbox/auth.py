"""amla_sandbox.auth: amla's capability tokens (PCA) and the ephemeral authority that
signs them, kept so that programs building them still run.

capsa has no tokens: the host holds the policy (the sandbox's ``capabilities``) and no
guest ever sees or presents it, so there is nothing to sign or verify. ``create_pca``
returns a token that records the capability strings it was asked for; a capsa
``Sandbox`` accepts it (``pca=``) and ignores it, so it grants nothing: give the
sandbox ``capabilities`` for that.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Sequence

__all__ = ["PCA", "EphemeralAuthority"]


@dataclass
class PCA:
    """A capability token (amla's); in capsa an unsigned record with no authority."""

    cbor_bytes: bytes = field(repr=False, default=b"")

    def to_cbor(self) -> bytes:
        return self.cbor_bytes


@dataclass
class EphemeralAuthority:
    """amla's development authority. ``public_key_hex()`` is a random identifier (no key
    pair is made: nothing is signed)."""

    _id: str = field(default_factory=lambda: secrets.token_hex(32), repr=False)

    def public_key_hex(self) -> str:
        return f"ed25519:{self._id}"

    def create_pca(self, capabilities: Sequence[str] = ("tool_call:**",),
                   expires_in_secs: int = 3600) -> PCA:
        body = {"issuer": self.public_key_hex(), "capabilities": list(capabilities),
                "expires_in_secs": expires_in_secs, "signed": False}
        return PCA(json.dumps(body).encode())
