"""How a meter amount (integer minor units) becomes sign text.

The rule (tested in ``tests/display/test_money.py``), for an amount and a sign that can only show
so many digits:

1. The sign shows the **exact amount** with its cents when it fits, in the first of these
   spellings that the sign can draw and that fits: ``€1,234,567.89``, ``1,234,567.89``,
   ``1234567.89`` (a seven-segment sign has no ``,`` and no ``€``: see
   :mod:`display.segments`).
2. Otherwise it shows the **whole units only**, without a decimal point, cents cut off (never
   rounded: ``1,234,567.99`` shows ``1234567``, because the sign must never show more than the
   meter): ``€1,234,567``, ``1,234,567``, ``1234567``.
3. Otherwise (the whole units alone do not fit) it shows **dashes across the sign** and the
   renderer reports the overflow. Dropping leading digits or abbreviating would put a wrong
   number in front of the players.

A negative amount is a controller bug, not something to display: :class:`AmountError`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum

from display.errors import AmountError
from display.money import Currency, split_units


class Shown(Enum):
    """Which step of the rule produced the sign text."""

    EXACT = "exact"
    UNITS = "units"
    OVERFLOW = "overflow"


@dataclass(frozen=True)
class SignAmount:
    """The text to put on the sign (``None`` on overflow) and which rule step chose it."""

    text: str | None
    shown: Shown


def spellings(amount: int, cur: Currency) -> Iterator[tuple[str, Shown]]:
    """Every spelling of ``amount``, most informative first (steps 1 and 2 of the rule)."""
    if not isinstance(amount, int) or isinstance(amount, bool):
        raise AmountError(f"amount {amount!r} is not an integer number of minor units")
    if amount < 0:
        raise AmountError(f"amount {amount} is negative: a meter is never below zero")
    units, fraction = split_units(amount, cur)
    symbol = cur.symbol or ""
    grouped = f"{units:,}"
    plain = str(units)
    steps = [(fraction, Shown.EXACT), ("", Shown.UNITS)] if fraction else [("", Shown.EXACT)]
    for tail, shown in steps:
        if symbol:
            yield symbol + grouped + tail, shown
        yield grouped + tail, shown
        if grouped != plain:
            yield plain + tail, shown


def fit_amount(amount: int, cur: Currency, fits: Callable[[str], bool]) -> SignAmount:
    """The first spelling of ``amount`` for which ``fits(text)`` is true (the sign can draw
    every character and has room), else :attr:`Shown.OVERFLOW`."""
    for text, shown in spellings(amount, cur):
        if fits(text):
            return SignAmount(text, shown)
    return SignAmount(None, Shown.OVERFLOW)
