"""Amounts shown to people: integer minor units as money (``EUR 1,234.56``). Every currency
the profiles use has a minor unit of 1/100. Kept apart from the PDF renderer so the CLI shows
money without loading fpdf."""

from __future__ import annotations

MINOR_DIGITS = 2


def money(units: int | None, currency: str) -> str:
    if units is None:
        return "-"
    sign = "-" if units < 0 else ""
    whole, cents = divmod(abs(units), 10**MINOR_DIGITS)
    return f"{sign}{currency} {whole:,}.{cents:0{MINOR_DIGITS}d}"
