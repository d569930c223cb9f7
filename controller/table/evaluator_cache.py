"""The poker evaluator's lookup tables kept on disk, so that croupierd starts without
building them (about 1.5 s here, several seconds on a Pi 3, before the table can open).

The file is only a cache: :func:`controller.engine.poker.evaluator.install_tables` accepts it
only if its SHA-256 is the digest the engine's code names for the canonical tables, so a file
that was altered, truncated or written by another version is ignored and rebuilt, and the
evaluation can never differ from the tables the code builds.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path

from controller.engine.poker.evaluator import encode_tables, install_tables, warm_up

log = logging.getLogger(__name__)
CACHE_NAME = "evaluator-tables.bin"


def warm_up_cached(state_dir: Path) -> bool:
    """The evaluator's tables from ``state_dir``'s cache, or built (and the cache written).
    Returns True when the cache was used. An unreadable or unwritable cache only costs time."""
    path = state_dir / CACHE_NAME
    with contextlib.suppress(OSError):
        if install_tables(path.read_bytes()):
            return True
        log.warning("%s does not hold this version's evaluator tables: rebuilding it", path)
    warm_up()
    tmp = path.with_suffix(".tmp")
    try:
        tmp.write_bytes(encode_tables())
        os.replace(tmp, path)  # readers see the old file or the whole new one
    except OSError as exc:
        log.warning("cannot cache the evaluator tables in %s: %s", path, exc.strerror or exc)
    return False
