"""The digest of a run: SHA-256 over what the run did in simulated terms only (each round's
outcome and payments in the ledger, the crashes, the simulated time), never wall-clock figures
nor what is random by design outside the seed (the ledger's id and keyring), so the same seed
gives the same digest byte for byte."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable


def run_digest(lines: Iterable[str]) -> str:
    h = hashlib.sha256()
    for line in lines:
        h.update(line.encode())
        h.update(b"\n")
    return h.hexdigest()
