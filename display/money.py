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


@dataclass(frozen=True)
class Currency:
    """ISO 4217 code, the sign symbol (``None``: the sign shows no symbol) and the number of
    minor-unit digits (2 for cents, 0 for currencies without minor units)."""

    code: str
    symbol: str | None
    exponent: int


_KNOWN = {
    "EUR": Currency("EUR", "€", 2),
    "USD": Currency("USD", "$", 2),
    "GBP": Currency("GBP", "£", 2),
    "BGN": Currency("BGN", None, 2),
    "CZK": Currency("CZK", None, 2),
    "RON": Currency("RON", None, 2),
    "HUF": Currency("HUF", None, 2),
    "JPY": Currency("JPY", None, 0),
}
CURRENCY_CODES = tuple(_KNOWN)


def currency(code: str) -> Currency:
    """The :class:`Currency` for an ISO code the sign knows; :class:`AmountError` otherwise."""
    try:
        return _KNOWN[code]
    except KeyError:
        raise AmountError(
            f"unknown currency {code!r} (the sign knows {', '.join(CURRENCY_CODES)})"
        ) from None


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
    units, fraction = _split(amount, cur)
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


def parse_amount(text: str, cur: Currency) -> int:
    """``"1,234.56"`` -> 123456 (minor units of ``cur``). Raises :class:`AmountError` for
    anything that is not a non-negative amount with at most ``cur.exponent`` decimals."""
    from decimal import Decimal, InvalidOperation  # here: showing money (status) needs none

    cleaned = text.strip().replace(",", "").replace("_", "")
    if cur.symbol:
        cleaned = cleaned.removeprefix(cur.symbol)
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        raise AmountError(f"{text!r} is not an amount like 1234.56") from None
    if not value.is_finite() or value < 0:
        raise AmountError(f"{text!r} is not a non-negative amount")
    minor = value.scaleb(cur.exponent)
    if minor != minor.to_integral_value():
        raise AmountError(f"{text!r} has more than {cur.exponent} decimals for {cur.code}")
    return int(minor)


def format_money(amount: int, cur: Currency, *, code: bool = True) -> str:
    """``500180`` -> ``"EUR 5,001.80"`` (``"5,001.80"`` without the code): how a person reads
    an amount of minor units in the CLI, the rig and logs (the sign has :func:`fit_amount`).
    Negative amounts (a correction's difference) keep their sign: ``"EUR -0.05"``."""
    units, fraction = _split(abs(amount), cur)
    text = f"{'-' if amount < 0 else ''}{units:,}{fraction}"
    return f"{cur.code} {text}" if code else text


def _split(amount: int, cur: Currency) -> tuple[int, str]:
    """Whole units and the fraction text (``".05"``, or ``""`` without minor units)."""
    units, minor = divmod(amount, 10**cur.exponent)
    return units, (f".{minor:0{cur.exponent}d}" if cur.exponent else "")
