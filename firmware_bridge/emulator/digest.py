"""The emulator's 'firmware image' digest: SHA-256 of its own source files. A module of its
own so that the daemon of a simulated table, which trusts that digest, does not import the
emulator to compute it."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path


@cache
def firmware_digest() -> bytes:
    """SHA-256 of the emulator's own source: the 'firmware image' it reports."""
    h = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        h.update(path.read_bytes())
    return h.digest()
