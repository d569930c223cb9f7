"""The rig's own books: what a progressive pool must hold after the rounds the rig played,
computed without the controller's engine, pool or ledger code (pure).

Why a second implementation. The soak checks the controller's money against something that
did not come out of the controller: the rig knows which stakes it put on the sensors, which
rounds were voided (the red lamp) or settled, and which cards the shuffler really delivered
(the emulator's own record). From those alone this module finds each seat's best progressive
line with a small classifier of its own (:func:`uth_progressive_line`, PRG-3), pays it from
the profile's pay table, and keeps the pool's meters: contributions (PRG-1) with exact
fractions, voids returning every stake and taking the contribution back (MD), the 100% award
drawn on the pool and the reset to the seed (PRG-5), the house-paid lines and the envy bonus
(PRG-4). The soak then compares these meters with the ledger's tables and with the replay of
its journal: all three must agree to the cent.

Scope: one pool with the Greek UTH rules (award to the winner; one deck makes two pool wins
in one round impossible, RULES.md; a second would be reported, not guessed at).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from controller.engine.paytable import FixedPerUnit, Odds, PoolPercent
from controller.engine.pools.config import PoolConfig

ROYAL_RANKS = frozenset(range(8, 13))  # 10 J Q K A (ranks 0..12 = 2..A; code = rank*4 + suit)
METERS = (
    "rounds",
    "stakes_in",
    "voids",
    "stakes_returned",
    "contributions",
    "won_from_pool",
    "won_fixed",
    "envy_paid",
    "current",
)


def _suited_ranks(cards: Iterable[int]) -> dict[int, set[int]]:
    by_suit: dict[int, set[int]] = {}
    for card in cards:
        by_suit.setdefault(card % 4, set()).add(card // 4)
    return by_suit


def _has_run(ranks: set[int]) -> bool:
    """Five consecutive ranks, the ace also low (A-2-3-4-5, POK-4)."""
    low = ranks | ({-1} if 12 in ranks else set())
    return any(all(r + i in low for i in range(5)) for r in range(-1, 9))


def is_royal(cards: Sequence[int]) -> bool:
    return any(ranks >= ROYAL_RANKS for ranks in _suited_ranks(cards).values())


def uth_progressive_line(hole: Sequence[int], community: Sequence[int]) -> str | None:
    """A seat's best line of the Greek UTH progressive (PRG-3) on its 7 cards: a royal with
    no hole card is a community royal, with one it wins the pool; then straight flush, four
    of a kind, full house; ``None`` below."""
    if is_royal(community):
        return "community-royal"
    cards = [*hole, *community]
    suited = _suited_ranks(cards).values()
    if any(ranks >= ROYAL_RANKS for ranks in suited):
        return "royal-flush"
    if any(len(ranks) >= 5 and _has_run(ranks) for ranks in suited):
        return "straight-flush"
    counts = sorted(Counter(c // 4 for c in cards).values(), reverse=True)
    if counts[0] == 4:
        return "four-of-a-kind"
    if counts[0] == 3 and counts[1] >= 2:
        return "full-house"
    return None


@dataclass
class RoundBooks:
    """One round as the rig booked it."""

    round_id: str
    stakes: dict[int, int]  # seat -> progressive stake
    outcome: str = "open"  # open, voided, settled
    paid: dict[int, int] = field(default_factory=dict)  # seat -> award + envy, when settled


class PoolTally:
    """The meters of one pool as the rig keeps them (names as the ledger's, see METERS)."""

    def __init__(self, config: PoolConfig) -> None:
        self.config = config
        self.meters = dict.fromkeys(METERS, 0)
        self.meters["current"] = config.seed
        self._exact = Fraction(0)  # the exact sum of stake x rate of the rounds that count
        self.rounds: dict[str, RoundBooks] = {}
        self.problems: list[str] = []

    def opened(self, round_id: str, stakes: Mapping[int, int]) -> None:
        """LOCK: the round's stakes are taken and contribute (PRG-1)."""
        total = sum(stakes.values())
        self.rounds[round_id] = RoundBooks(round_id, dict(stakes))
        self.meters["rounds"] += 1
        self.meters["stakes_in"] += total
        self._contribute(total)

    def voided(self, round_id: str) -> None:
        """A misdeal: every stake back, the contribution taken back (MD)."""
        books = self.rounds[round_id]
        total = sum(books.stakes.values())
        books.outcome, books.paid = "voided", dict(books.stakes)
        self.meters["rounds"] -= 1
        self.meters["stakes_in"] -= total
        self.meters["voids"] += 1
        self.meters["stakes_returned"] += total
        self._contribute(-total)

    def settled(self, round_id: str, lines: Mapping[int, str | None]) -> dict[int, int]:
        """The showdown: each staked seat's best line (PRG-3, PRG-4, PRG-5). Returns what
        each seat is paid (award + envy)."""
        books = self.rounds[round_id]
        pool_winners = []
        paid = dict.fromkeys(books.stakes, 0)
        for seat, stake in books.stakes.items():
            line = lines.get(seat)
            if line is None:
                continue
            pay = self.config.pay_for(line)
            if isinstance(pay, PoolPercent):
                pool_winners.append(seat)
            elif isinstance(pay, Odds):
                paid[seat] += self._house(stake * pay.ratio)
            elif isinstance(pay, FixedPerUnit):
                paid[seat] += self._house(Fraction(pay.amount * stake, self.config.rules.stake))
        if len(pool_winners) > 1:
            self.problems.append(
                f"{round_id}: seats {pool_winners} all won the pool: one deck"
                " cannot deal that (the rig's cards are wrong)"
            )
        for seat in pool_winners[:1]:
            pay = self.config.pay_for(lines[seat])
            won = math.floor(self.meters["current"] * Fraction(pay.percent, 100))
            paid[seat] += won
            self.meters["won_from_pool"] += won
            self.meters["current"] -= won
            if pay.percent == 100:
                self.meters["current"] += self.config.seed
            for other in books.stakes:
                if other != seat or self.config.rules.envy_to_winner:  # PRG-4
                    paid[other] += self.config.rules.envy_bonus
                    self.meters["envy_paid"] += self.config.rules.envy_bonus
        books.outcome, books.paid = "settled", paid
        return paid

    def _house(self, amount: Fraction) -> int:
        whole = math.floor(amount)
        self.meters["won_fixed"] += whole
        return whole

    def _contribute(self, stake: int) -> None:
        before = math.floor(self._exact)
        self._exact += stake * self.config.contribution_rate
        units = math.floor(self._exact) - before
        self.meters["contributions"] += units
        self.meters["current"] += units

    def differences(self, name: str, meters: Mapping[str, int]) -> list[str]:
        """Every meter where ``meters`` (another source) disagrees with the rig's."""
        return [
            f"{meter}: rig {self.meters[meter]}, {name} {meters.get(meter)}"
            for meter in METERS
            if meters.get(meter) != self.meters[meter]
        ]
