"""Pay tables as data: the pay forms, the lines each bet knows, and the lookup.

A pay is one of:

- :class:`Odds` ``"A:B"``: winnings are ``stake * A / B`` (exact fraction; the profile's
  rounding rule applies once, at the payout). On a table wager the stake is returned as well;
  on a progressive stake it is not (PRG-2: "an award of X:1 pays X times the stake").
- :class:`PoolPercent` ``"N%"``: N percent of the progressive pool (PRG-3 royal = 100%).
- :class:`FixedPerUnit` ``{ fixed = AMOUNT }``: AMOUNT minor units per unit stake (CH-8
  "fixed amounts per unit stake").

A pay table maps *lines* to pays. Each bet has a vocabulary of lines, best first
(:data:`BET_LINES`). A hand *satisfies* a list of lines (for category lines: its own category
and every category below it, so "flush" covers a full house when no full-house line exists),
and the pay is that of the best satisfied line the table lists. Lines are named with the
category spelling of :class:`~controller.engine.poker.Category` plus special lines
(``community-royal``, ``pair-of-aces``, ``seven-card-straight-flush``...). Blackjack's bets
have their own exact lines
(``blackjack``/``win`` for the main bet, the TRX-2 classes for Trilux); a bet listed in
:data:`REQUIRED_LINES` must price every line named there, since its settlement needs each one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from controller.engine.poker import Category


@dataclass(frozen=True)
class Odds:
    to_win: int
    per: int

    @property
    def ratio(self) -> Fraction:
        return Fraction(self.to_win, self.per)

    def __str__(self) -> str:
        return f"{self.to_win}:{self.per}"


@dataclass(frozen=True)
class PoolPercent:
    percent: Fraction

    def __str__(self) -> str:
        return f"{self.percent}%"


@dataclass(frozen=True)
class FixedPerUnit:
    amount: int  # minor units per unit stake

    def __str__(self) -> str:
        return f"fixed {self.amount}"


Pay = Odds | PoolPercent | FixedPerUnit


def parse_pay(value: object) -> Pay:
    """Parse ``"3:2"``, ``"100%"`` or ``{fixed = 500000}``; ValueError with the reason."""
    if isinstance(value, dict):
        if set(value) != {"fixed"} or isinstance(value["fixed"], bool):
            raise ValueError(f"a fixed pay is written {{ fixed = AMOUNT }}, got {value!r}")
        amount = value["fixed"]
        if not isinstance(amount, int) or amount <= 0:
            raise ValueError(
                f"fixed amount must be a positive integer (minor units), got {amount!r}"
            )
        return FixedPerUnit(amount)
    if not isinstance(value, str):
        raise ValueError(f"a pay is 'A:B', 'N%' or {{ fixed = AMOUNT }}, got {value!r}")
    text = value.strip()
    if text.endswith("%"):
        try:
            percent = Fraction(text[:-1].strip())
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{value!r} is not a percentage like '100%'") from None
        if not 0 < percent <= 100:
            raise ValueError(f"a pool percentage must be above 0% and at most 100%, got {value!r}")
        return PoolPercent(percent)
    left, sep, right = text.partition(":")
    if not sep or not left.strip().isdigit() or not right.strip().isdigit():
        raise ValueError(f"odds must be a positive ratio like '3:2', got {value!r}")
    to_win, per = int(left), int(right)
    if to_win <= 0 or per <= 0:
        raise ValueError(f"odds must be a positive ratio like '3:2', got {value!r}")
    return Odds(to_win, per)


CATEGORY_LINES: tuple[str, ...] = tuple(c.label for c in reversed(Category))

# Line vocabularies per bet, best first. Category lines are "at least" lines.
BET_LINES: dict[str, tuple[str, ...]] = {
    "blind": CATEGORY_LINES,  # UTH-8
    "trips": CATEGORY_LINES,  # UTH-9
    "progressive": ("royal-flush", "community-royal", *CATEGORY_LINES[1:]),  # PRG-3
    "ante": CATEGORY_LINES,  # CH-6
    "bonus": (*CATEGORY_LINES[:-2], "pair-of-aces"),  # CH-7
    "jumbo7": (  # CH-8
        "seven-card-straight-flush",
        "six-card-straight-flush",
        "five-card-straight-flush",
        *CATEGORY_LINES[2:],
    ),
    "main": ("blackjack", "win"),  # BJ-5 (blackjack 3:2, other wins 1:1)
    "insurance": ("dealer-blackjack",),  # BJ-8
    # TRX-2, exact three-card classes, best first; suited trips satisfy three-of-a-kind and
    # flush and are paid by the better one (the first the table lists in this order)
    "trilux": ("suited-akq", "straight-flush", "three-of-a-kind", "straight", "flush"),
}

# Lines a bet's table must price (its settlement has no "no pay" outcome for them).
REQUIRED_LINES: dict[str, tuple[str, ...]] = {
    "main": BET_LINES["main"],
    "insurance": BET_LINES["insurance"],
}


def category_lines(category: Category) -> list[str]:
    """The category lines a hand of ``category`` satisfies, best first."""
    return [c.label for c in reversed(Category) if c <= category]


@dataclass(frozen=True)
class PayTable:
    bet: str
    pays: Mapping[str, Pay]  # in vocabulary order, best first

    def lookup(self, satisfied: Iterable[str]) -> tuple[str, Pay] | None:
        """The best satisfied line this table pays, or None (the wager does not win a line)."""
        for line in satisfied:
            pay = self.pays.get(line)
            if pay is not None:
                return line, pay
        return None

    def lines(self) -> list[tuple[str, Pay]]:
        return list(self.pays.items())
