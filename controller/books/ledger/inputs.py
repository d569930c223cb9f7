"""Checking what callers hand the ledger before a transaction starts (BadRoundError).

Seats are positive ints, wagers non-empty names, amounts ints in minor units; JSON-style
string seat keys (``"3"``) are accepted and turned into ints, so a round read back from the
journal compares equal to the one given.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from controller.books.ledger.errors import BadRoundError
from controller.books.ledger.records import Stakes
from controller.validation import MONEY_MAX

ROUND_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}\Z")


def round_id(value: Any) -> str:
    if not isinstance(value, str) or not ROUND_ID.match(value):
        raise BadRoundError(
            f"round ID {value!r}: 1-64 letters, digits, '.', '_', ':' or '-', starting with a "
            "letter or digit"
        )
    return value


def seat(value: Any) -> int:
    try:
        number = int(value) if isinstance(value, str) else value
    except ValueError:
        number = None
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise BadRoundError(f"seat {value!r} is not a seat number (1, 2, ...)")
    return number


def amount(value: Any, what: str, *, positive: bool, high: int | None = None) -> int:
    """An amount in minor units, at least 1 (``positive``) or 0, and at most ``high``."""
    low = 1 if positive else 0
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        kind = "a positive" if positive else "a non-negative"
        raise BadRoundError(f"{what}: {value!r} is not {kind} amount in minor units")
    if high is not None and value > high:
        raise BadRoundError(f"{what}: {value} is above {high:,} minor units")
    return value


def money(value: Any, what: str) -> int:
    """An amount a person sets (a meter's correction): 0..MONEY_MAX minor units, as any one
    amount of money is (controller.validation)."""
    return amount(value, what, positive=False, high=MONEY_MAX)


def text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BadRoundError(f"{what} must be a non-empty text")
    return value


def seat_wagers(data: Mapping[Any, Mapping[str, int]], what: str, *, positive: bool) -> Stakes:
    """Stakes (``positive``) or payouts: seat -> wager -> amount."""
    if not isinstance(data, Mapping):
        raise BadRoundError(f"{what} must map seats to wagers")
    low = 1 if positive else 0
    result: Stakes = {}
    for raw_seat, wagers in data.items():
        s = seat(raw_seat)
        if s in result:
            raise BadRoundError(f"{what}: seat {s} is given twice")
        if not isinstance(wagers, Mapping):
            raise BadRoundError(f"{what}: seat {s} must map wager names to amounts")
        for w, v in wagers.items():  # messages are built only for a bad value (hot path)
            if not isinstance(w, str) or not w.strip():
                text(w, f"{what}: a wager name of seat {s}")
            if type(v) is not int or v < low:
                amount(v, f"{what} seat {s} {w}", positive=positive)
        result[s] = dict(wagers)
    return result


def pool_hits(data: Mapping[str, Mapping[Any, str | None]] | None) -> dict[str, dict[int, str]]:
    """pool -> seat -> best line of that pool's pay table; seats without a line left out."""
    result: dict[str, dict[int, str]] = {}
    for pool, seats in (data or {}).items():
        if not isinstance(seats, Mapping):
            raise BadRoundError(f"hits of pool {pool!r} must map seats to pay lines")
        result[text(pool, "a pool name")] = {
            seat(s): text(line, f"pay line of seat {s}")
            for s, line in seats.items()
            if line is not None
        }
    return result


def hands(data: Mapping[Any, str] | None) -> dict[int, str]:
    return {seat(s): text(h, f"hand of seat {s}") for s, h in (data or {}).items()}
