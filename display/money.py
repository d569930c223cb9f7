"""Money as people read it: a :class:`Currency`, ``format_money`` (``"EUR 5,001.80"``) and
``parse_amount``. How the sign spells an amount is :mod:`display.sign_amount`.

Imports no dataclasses or typing: ``croupier status`` formats money, and on a Pi-class CPU
those modules would cost it about a third of a second (bench/pi_budget.py).
"""

from __future__ import annotations

from display.errors import AmountError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only (see above)
    from collections.abc import Callable


class Currency:
    """ISO 4217 code, the sign symbol (``None``: the sign shows no symbol) and the number of
    minor-unit digits (2 for cents, 0 for currencies without minor units). Immutable."""

    __slots__ = ("code", "exponent", "symbol")
    code: str
    symbol: str | None
    exponent: int

    def __init__(self, code: str, symbol: str | None, exponent: int) -> None:
        for name, value in (("code", code), ("symbol", symbol), ("exponent", exponent)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Currency is immutable: cannot set {name}")

    def _key(self) -> tuple[str, str | None, int]:
        return self.code, self.symbol, self.exponent

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Currency) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Currency({self.code!r}, {self.symbol!r}, {self.exponent!r})"


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


def parse_amount(text: str, cur: Currency) -> int:
    """``"1,234.56"`` -> 123456 (minor units of ``cur``). Raises :class:`AmountError` for
    anything that is not a non-negative amount with at most ``cur.exponent`` decimals."""
    from decimal import Decimal, InvalidOperation  # here: showing money (status) needs none

    cleaned = text.strip().replace(",", "").replace("_", "")
    if cur.symbol:
        cleaned = cleaned.removeprefix(cur.symbol)
    if not cleaned.isascii():  # Decimal() reads the digits of every script ("\u0665")
        raise AmountError(f"{text!r} is not an amount like 1234.56")
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
    units, fraction = split_units(abs(amount), cur)
    text = f"{'-' if amount < 0 else ''}{units:,}{fraction}"
    return f"{cur.code} {text}" if code else text


def money_writer(code: str) -> Callable[[int], str]:
    """``format_money`` in the currency ``code``, for what writes amounts it is handed (a
    refusal's :meth:`~controller.errors.RoundError.shown`); a code the sign does not know
    (refused by the configuration's checks) leaves the amounts as minor units."""
    try:
        cur = currency(code)
    except AmountError:
        return str
    return lambda amount: format_money(amount, cur)


def split_units(amount: int, cur: Currency) -> tuple[int, str]:
    """Whole units and the fraction text (``".05"``, or ``""`` without minor units)."""
    units, minor = divmod(amount, 10**cur.exponent)
    return units, (f".{minor:0{cur.exponent}d}" if cur.exponent else "")
