"""PAR sheets: for each pay line of a bet, its combinations, probability, pay and contribution
to the return; for the bet, its return, house edge and hit frequency.

A game computes exact *outcome counts* (exhaustive enumeration or exact combinatorics, never
sampling) and this module turns them into a :class:`BetSheet` with exact fractions, which
prints as the ``croupier par`` JSON shape (:meth:`BetSheet.to_json`).

Definitions (issue 2, PRG-2):

- the *return* of a line is what is handed back per unit staked when it hits: ``1 + A/B`` for
  odds ``A:B`` on a table wager (the stake comes back), ``A/B`` on a progressive stake (it never
  does), ``amount / unit stake`` for a fixed progressive amount, ``1`` for a push, ``0`` for a
  loss; a line paying a percentage of the pool is the *jackpot* line, left out of the return;
- return = sum of probability x line return; house edge = 1 - return;
- hit frequency = probability of any winning line, jackpot included (pushes are not hits).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from controller.engine.paytable import FixedPerUnit, Odds, Pay, PayTable, PoolPercent

WIN, PUSH, LOSE = "win", "push", "lose"
# A sheet's progress: ``progress(done, total)`` in the work's own units (board classes for the
# Blind's showdowns), for ``croupier par``'s bar; the sheets never need it.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class PayLine:
    hand: str  # the pay line, or the outcome for push and lose lines
    pays: str  # "50:1", "100% of pool", "5000 per unit", "push", "lose"
    combinations: int
    result: str  # WIN, PUSH or LOSE
    returns: Fraction | None  # handed back per unit staked; None for the jackpot line

    @property
    def is_jackpot(self) -> bool:
        return self.returns is None


@dataclass(frozen=True)
class BetSheet:
    bet: str  # wager name: "trips", "blind", "progressive", "bonus", "jumbo7", ...
    title: str  # for people: "Trips (UTH-9)"
    space: str  # what was counted
    lines: tuple[PayLine, ...]
    notes: tuple[str, ...] = ()

    @property
    def combinations(self) -> int:
        return sum(line.combinations for line in self.lines)

    def probability(self, line: PayLine) -> Fraction:
        return Fraction(line.combinations, self.combinations)

    def contribution(self, line: PayLine) -> Fraction | None:
        return None if line.returns is None else self.probability(line) * line.returns

    @property
    def return_(self) -> Fraction:
        """Expected amount handed back per unit staked, the jackpot line left out."""
        return sum(
            (
                contribution
                for line in self.lines
                if not line.is_jackpot and (contribution := self.contribution(line)) is not None
            ),
            Fraction(0),
        )

    @property
    def house_edge(self) -> Fraction:
        return 1 - self.return_

    @property
    def hit_frequency(self) -> Fraction:
        hits = sum(line.combinations for line in self.lines if line.result == WIN)
        return Fraction(hits, self.combinations)

    @property
    def jackpot_probability(self) -> Fraction | None:
        jackpot = [line for line in self.lines if line.is_jackpot]
        return sum((self.probability(x) for x in jackpot), Fraction(0)) if jackpot else None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "title": self.title,
            "return": float(self.return_),
            "house_edge": float(self.house_edge),
            "hit_frequency": float(self.hit_frequency),
        }
        if (jackpot := self.jackpot_probability) is not None:
            data["jackpot_probability"] = float(jackpot)
        data["combinations"] = self.combinations
        data["space"] = self.space
        data["notes"] = list(self.notes)
        data["lines"] = [
            {
                "hand": line.hand,
                "pays": line.pays,
                "result": line.result,
                "combinations": line.combinations,
                "probability": float(self.probability(line)),
                "contribution": None if contribution is None else float(contribution),
            }
            for line in self.lines
            for contribution in [self.contribution(line)]
        ]
        return data


def lines_satisfied(vocabulary: tuple[str, ...], outcome: str) -> list[str]:
    """The lines of a bet's vocabulary (best first) that an exclusive outcome satisfies: its own
    line and every line below it ("at least" lines, see controller.engine.paytable), except that
    only a community royal satisfies ``community-royal`` and it does not satisfy ``royal-flush``
    (PRG-3). An outcome outside the vocabulary (a pair of kings for the Bonus) satisfies none."""
    if outcome not in vocabulary:
        return []
    below = vocabulary[vocabulary.index(outcome) :]
    return [x for x in below if x == outcome or x != "community-royal"]


def describe_pay(pay: Pay, unit_stake: int | None = None) -> str:
    if isinstance(pay, Odds):
        return str(pay)
    if isinstance(pay, PoolPercent):
        return f"{pay.percent}% of pool"
    per_unit = Fraction(pay.amount, unit_stake or 1)
    return f"{float(per_unit):g} per unit"


def line_return(
    pay: Pay, *, stake_returned: bool, unit_stake: int | None = None
) -> Fraction | None:
    """Handed back per unit staked when the line hits (None: a share of the pool)."""
    if isinstance(pay, Odds):
        return pay.ratio + (1 if stake_returned else 0)
    if isinstance(pay, FixedPerUnit):
        if unit_stake is None:
            raise ValueError("a fixed pay needs the unit stake")
        return Fraction(pay.amount, unit_stake)
    return None


def paying_lines(
    outcomes: Mapping[str, int],
    table: PayTable,
    vocabulary: tuple[str, ...],
    *,
    stake_returned: bool,
    unit_stake: int | None = None,
) -> tuple[list[PayLine], int]:
    """Group exclusive outcome counts into the table's pay lines (each outcome is paid for the
    best line it satisfies, PayTable.lookup). Returns the winning lines in table order and the
    number of combinations no line pays."""
    by_line: dict[str, int] = {}
    unpaid = 0
    for outcome, count in outcomes.items():
        hit = table.lookup(lines_satisfied(vocabulary, outcome))
        if hit is None:
            unpaid += count
        else:
            by_line[hit[0]] = by_line.get(hit[0], 0) + count
    lines = [
        PayLine(
            hand=line,
            pays=describe_pay(pay, unit_stake),
            combinations=by_line.get(line, 0),
            result=WIN,
            returns=line_return(pay, stake_returned=stake_returned, unit_stake=unit_stake),
        )
        for line, pay in table.lines()
    ]
    return lines, unpaid


def pay_table_sheet(
    bet: str,
    title: str,
    space: str,
    outcomes: Mapping[str, int],
    table: PayTable,
    *,
    vocabulary: tuple[str, ...],
    stake_returned: bool,
    unit_stake: int | None = None,
    notes: Iterable[str] = (),
) -> BetSheet:
    """The sheet of a bet decided by its pay table alone: each outcome is paid for its best
    line, or the stake is lost (line ``other``)."""
    lines, unpaid = paying_lines(
        outcomes, table, vocabulary, stake_returned=stake_returned, unit_stake=unit_stake
    )
    return BetSheet(bet, title, space, (*lines, other_line("other", unpaid, LOSE)), tuple(notes))


def other_line(hand: str, combinations: int, result: str) -> PayLine:
    """A push or lose line (returns 1 or 0 per unit staked)."""
    return PayLine(hand, result, combinations, result, Fraction(1 if result == PUSH else 0))


def sheets_json(profile: str, sheets: Iterable[BetSheet]) -> dict[str, Any]:
    """The ``croupier par --json`` document: ``{"profile": .., "bets": {BET: sheet}}``."""
    return {"profile": profile, "bets": {sheet.bet: sheet.to_json() for sheet in sheets}}
