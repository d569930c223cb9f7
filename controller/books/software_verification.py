"""Software verification on demand (GAT-style): a keyed digest of every installed software
component, for a regulator or test lab holding its own reference copy (docs/regulatory.md).

The lab chooses a fresh ``seed`` (1 to 128 bytes, given in hex) so the table cannot answer
from a stored list: each component's digest is ``HMAC(seed, file content)`` with SHA-1 (the
GAT convention, ``hmac-sha1``) or SHA-256 (``hmac-sha256``), the same value as

    openssl dgst -sha1 -mac HMAC -macopt hexkey:SEED FILE

The components are the files the power-up self-check's manifest covers
(``controller.books.ledger.selfcheck.software_files``), named as the manifest names them
(``controller/books/ledger/store.py``, ``profiles/uth-gr.toml``...). The *combined* digest is
the HMAC, with the same seed and algorithm, of the listing ``<hex digest>  <name>\\n`` of
every component sorted by name, so a lab recomputes it from its own copy with the same tools.

A result is journaled (``software.verified``: seed, algorithm, combined digest and every
component's digest) and so kept across a power loss; :func:`history` reads them back.
Hashing reads the files only; it never changes the software or the table's state.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.books.ledger.journal import Journal
from controller.books.ledger.reader import LedgerView
from controller.books.ledger.selfcheck import software_files
from controller.errors import CroupierError

ALGORITHMS: dict[str, Callable[..., Any]] = {
    "hmac-sha1": hashlib.sha1,
    "hmac-sha256": hashlib.sha256,
}
ALIASES = {"sha1": "hmac-sha1", "sha256": "hmac-sha256"}
SEED_BYTES = (1, 128)  # a seed of 1 to 128 bytes (RFC 2202 tests keys of 80)
KIND = "software.verified"
CHUNK = 1 << 16
HEX = re.compile(r"^(?:[0-9a-fA-F]{2})+\Z")


class VerificationError(CroupierError, ValueError):
    """A verification request that cannot be carried out as given (bad seed, algorithm)."""


def parse_seed(text: Any) -> bytes:
    if not isinstance(text, str) or not HEX.match(text.strip()):
        raise VerificationError("seed must be an even number of hex digits, e.g. 0b0b0b0b")
    seed = bytes.fromhex(text.strip())
    low, high = SEED_BYTES
    if not low <= len(seed) <= high:
        raise VerificationError(f"seed must be {low} to {high} bytes, got {len(seed)}")
    return seed


def parse_algorithm(text: Any) -> str:
    name = ALIASES.get(text, text) if isinstance(text, str) else None
    if name not in ALGORITHMS:
        raise VerificationError(f"algorithm must be one of {', '.join(ALGORITHMS)}")
    return name


@dataclass(frozen=True)
class Component:
    name: str  # as the manifest names it
    path: Path  # absolute
    digest: str  # hex


@dataclass(frozen=True)
class Verification:
    seed: str  # hex, as given
    algorithm: str
    components: tuple[Component, ...]
    combined: str

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "algorithm": self.algorithm,
            "combined": self.combined,
            "components": [
                {"name": c.name, "path": str(c.path), "digest": c.digest} for c in self.components
            ],
        }


def file_digest(path: Path, seed: bytes, algorithm: str) -> str:
    mac = hmac.new(seed, digestmod=ALGORITHMS[algorithm])
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            mac.update(chunk)
    return mac.hexdigest()


def listing(components: tuple[Component, ...]) -> bytes:
    return "".join(f"{c.digest}  {c.name}\n" for c in components).encode()


def verify_software(
    seed_hex: str, algorithm: str = "hmac-sha1", files: dict[str, Path] | None = None
) -> Verification:
    """Digest every software component (the manifest's files unless ``files`` is given)."""
    seed = parse_seed(seed_hex)
    algorithm = parse_algorithm(algorithm)
    found = software_files() if files is None else files
    if not found:
        raise VerificationError("no installed software components were found")
    components = []
    for name in sorted(found):
        path = Path(found[name]).resolve()
        try:
            digest = file_digest(path, seed, algorithm)
        except OSError as exc:
            raise VerificationError(
                f"cannot read component {name} ({path}): {exc.strerror}"
            ) from None
        components.append(Component(name, path, digest))
    combined = hmac.new(seed, listing(tuple(components)), ALGORITHMS[algorithm]).hexdigest()
    return Verification(seed_hex.strip().lower(), algorithm, tuple(components), combined)


def record(journal: Journal, result: Verification, now: float, requested_by: str) -> int:
    """Journal a result (durable before this returns); returns its journal entry."""
    data = {
        "seed": result.seed,
        "algorithm": result.algorithm,
        "combined": result.combined,
        "requested_by": requested_by,
        "components": {c.name: c.digest for c in result.components},
    }
    return journal.append(KIND, data, now).seq


def history(view: LedgerView, limit: int = 20) -> list[dict[str, Any]]:
    """The last results kept in the ledger, newest first (components left out)."""
    return [
        {
            "seq": e.seq,
            "wall": e.wall,
            "seed": e.data["seed"],
            "algorithm": e.data["algorithm"],
            "combined": e.data["combined"],
            "components": len(e.data["components"]),
            "requested_by": e.data.get("requested_by"),
        }
        for e in reversed(view.journal.tail(limit, {KIND}))
    ]
