"""The seats excluded for a stuck or chattering sensor, kept across a daemon restart.

A seat is excluded by the GPIO core (:mod:`drivers.gpio.core`) and cleared only by a
technician (``croupier seat clear``, or the key with CONFIRM). The core lives in the daemon's
memory: after a restart a sensor stuck on counted as a stake placed at start-up, and the next
LOCK took a progressive stake no player placed (PRG-2 takes it whatever the outcome) until the
stuck sensor was found again at that round's end. The daemon now writes the excluded seats to
``seat-exclusions.json`` in its state directory whenever they change (atomically) and excludes
them again at start, before any sensor counts.

The file is read once, at start, as untrusted input: at most :data:`MAX_BYTES`, a JSON object
``{"SEAT": "reason", ...}`` with seats of this table and reasons of printable text of at most
:data:`MAX_REASON` characters. A file that fails any check is reported in one line naming the
problem and ignored (the seats then behave as before: a stuck sensor is found again at the
next round's end); a missing file means no seat is excluded.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from controller.errors import CroupierError
from controller.files import FileRefused, read_regular, write_atomic

log = logging.getLogger("croupierd.table")

FILE_NAME = "seat-exclusions.json"
MAX_BYTES = 16 * 1024
MAX_REASON = 200


class ExclusionsFileError(CroupierError):
    """The exclusions file cannot be used; the message names the file and the problem."""


def exclusions_path(state_dir: Path) -> Path:
    return state_dir / FILE_NAME


def read_exclusions(path: Path, seats: tuple[int, ...]) -> dict[int, str]:
    """The excluded seats and why; ``{}`` when there is no file. Raises
    :class:`ExclusionsFileError` for a file that fails a check (see the module docstring)."""
    try:
        raw = read_regular(path, MAX_BYTES + 1)
    except FileNotFoundError:
        return {}
    except (FileRefused, OSError) as exc:
        raise ExclusionsFileError(f"{path}: cannot be read: {exc}") from None
    if len(raw) > MAX_BYTES:
        raise ExclusionsFileError(f"{path}: larger than {MAX_BYTES} bytes")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise ExclusionsFileError(f"{path}: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ExclusionsFileError(f"{path}: expected an object of seat -> reason")
    excluded = {}
    names = {str(seat): seat for seat in seats}  # never int() of a key: 5,000 digits raise
    for key, reason in data.items():
        if key not in names:
            raise ExclusionsFileError(f"{path}: {key[:20]!r} is not a seat of this table")
        if not isinstance(reason, str) or not 0 < len(reason) <= MAX_REASON:
            raise ExclusionsFileError(
                f"{path}: seat {key}: the reason must be text of 1..{MAX_REASON} characters"
            )
        if not reason.isprintable():
            raise ExclusionsFileError(f"{path}: seat {key}: the reason is not printable text")
        excluded[names[key]] = reason
    return excluded


def write_exclusions(path: Path, excluded: dict[int, str]) -> None:
    """Keep ``excluded`` (the whole set, replacing the file's; readers see the old file or
    the new one). Raises OSError."""
    text = json.dumps({str(seat): why for seat, why in sorted(excluded.items())}, indent=1)
    write_atomic(path, text.encode() + b"\n", mode=0o640)


def exclusions_at_start(state_dir: Path, seats: tuple[int, ...]) -> dict[int, str]:
    """The seats excluded before this start, each said in the log; none from a file that
    fails its checks (said in one line)."""
    try:
        excluded = read_exclusions(exclusions_path(state_dir), seats)
    except ExclusionsFileError as exc:
        log.error("%s: ignored, no seat is excluded from before the start", exc)
        return {}
    for seat, why in sorted(excluded.items()):
        log.warning("seat %d is still excluded from before the start: %s", seat, why)
    return excluded
