"""The rig's own books of a linked Jumbo 7 pool (CH-8, CH-9, PRG-1..6), kept without the
controller's engine, pool or ledger code (pure).

What the rig knows of each round it played: the table, the round ID, the seats whose Jumbo 7
stake it put on the sensors and whether the link took them (the rig plays a round only once
the table shows the link up, or down, as the soak wants), the outcome (settled, voided) and
the cards the shuffler delivered. From those alone this module classifies each seat's best
Jumbo 7 line (:func:`jumbo7_line`, CH-8), pays it from the profile's pay table and keeps the
pool's meters. The one thing the rig cannot see is the order in which the link's tables
reached the store; :meth:`LinkedTally.replay` takes that order (the store journal's sequence
of round IDs, nothing of its amounts) and recomputes every contribution (PRG-1), every void
(MD: the stake back, the contribution taken back) and every award: fixed lines per unit stake
(paid by the house), and the 100% line shared in proportion to stake, remainder cents one
each to the largest fractional parts, after which the pool resets to its seed (PRG-5). With
``share_scope = "link"`` (CH-9, the shipped ch-bg profile) the share runs over every round
of every table opened and not yet closed in the store's order at the hit, ties to the hitting
table's seats (ascending) first, then by table, round and seat; each other round is paid its
share when it settles, and a round voided after the hit gives its share back to the pool
(the voiding table's ``won_from_pool`` falls by it). With ``"table"`` only the hitting
round's bettors share.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TypeVar

from controller.engine.paytable import FixedPerUnit, Odds, PoolPercent
from controller.engine.pools.config import PoolConfig

# The meters the rig keeps, named as the store's pool row names them.
METERS = (
    "rounds",
    "stakes_in",
    "voids",
    "stakes_returned",
    "contributions",
    "won_from_pool",
    "won_fixed",
    "current",
)
SF_LINES = {
    7: "seven-card-straight-flush",
    6: "six-card-straight-flush",
    5: "five-card-straight-flush",
}


def _longest_run(ranks: set[int]) -> int:
    """The longest run of consecutive ranks (0..12 = 2..A; the ace also low, POK-4)."""
    low = ranks | ({-1} if 12 in ranks else set())
    best = run = 0
    for r in range(-1, 13):
        run = run + 1 if r in low else 0
        best = max(best, run)
    return best


def jumbo7_line(cards: Sequence[int]) -> str | None:
    """A seat's best Jumbo 7 line on its 7 cards (CH-8; codes rank*4 + suit): 7-, 6-, 5-card
    straight flush, four of a kind, full house, flush, straight; ``None`` below."""
    suits: dict[int, set[int]] = {}
    for card in cards:
        suits.setdefault(card % 4, set()).add(card // 4)
    run = max(_longest_run(ranks) for ranks in suits.values())
    if run >= 5:
        return SF_LINES[min(run, 7)]
    counts = sorted((sum(1 for c in cards if c // 4 == r) for r in range(13)), reverse=True)
    if counts[0] == 4:
        return "four-of-a-kind"
    if counts[0] == 3 and counts[1] >= 2:
        return "full-house"
    if any(len(ranks) >= 5 for ranks in suits.values()):
        return "flush"
    if _longest_run({c // 4 for c in cards}) >= 5:
        return "straight"
    return None


K = TypeVar("K", int, tuple[int, str, str, int])


def share_by_stake(total: int, stakes: Mapping[K, int]) -> dict[K, int]:
    """``total`` split in proportion to the stakes: floors, then one cent each to the largest
    fractional parts, ties by ascending key (seat, or (0 here / 1 other table, table, round,
    seat))."""
    weight = sum(stakes.values())
    exact = {s: Fraction(total * w, weight) for s, w in stakes.items()}
    shares = {s: math.floor(v) for s, v in exact.items()}
    order = sorted(exact, key=lambda s: (-(exact[s] - shares[s]), s))
    for s in order[: total - sum(shares.values())]:
        shares[s] += 1
    return shares


@dataclass
class LinkedRound:
    """One round as the rig played it: ``stakes`` are the Jumbo 7 stakes the link took
    (empty: it was down), ``outcome`` is what the table did with the round (settled,
    voided, not opened), ``cards`` each staked seat's 7 cards once the rig saw them."""

    table: str
    round_id: str
    stakes: dict[int, int]
    outcome: str = "open"
    cards: dict[int, tuple[int, ...]] | None = None
    paid: dict[int, int] = field(default_factory=dict)  # set by the replay: seat -> award

    @property
    def key(self) -> str:
        return f"{self.table}/{self.round_id}"


class LinkedTally:
    """Every round of every table of one linked pool, and the pool they must make."""

    def __init__(self, config: PoolConfig) -> None:
        self.config = config
        self.rounds: dict[str, LinkedRound] = {}
        self.meters: dict[str, int] = {}
        self.tables: dict[str, dict[str, int]] = {}  # table -> its share of the meters
        self.problems: list[str] = []

    def book(self, played: LinkedRound) -> None:
        self.rounds[played.key] = played

    def replay(self, order: Iterable[tuple[str, str]]) -> None:
        """Apply ``order`` ((kind, "table/round") of the store's journal: round.opened,
        round.voided, round.settled) to a fresh pool; fills :attr:`meters`, :attr:`tables`
        and each round's ``paid``."""
        m = dict.fromkeys(METERS, 0)
        m["current"] = self.config.seed
        exact = Fraction(0)
        self.tables = {}
        in_play: dict[str, LinkedRound] = {}  # opened, not yet closed (CH-9 across the link)
        fixed: dict[str, dict[int, int]] = {}  # shares a hit fixed for a round in play
        for kind, key in order:
            played = self.rounds.get(key)
            if played is None:
                self.problems.append(f"{key}: {kind} in the store, the rig never played it")
                continue
            per_table = self.tables.setdefault(played.table, dict.fromkeys(METERS[:-1], 0))
            total = sum(played.stakes.values())
            if kind == "round.opened":
                in_play[key] = played
            else:
                in_play.pop(key, None)
            if kind == "round.voided":  # CH-9: a share it will never pay goes back
                back = sum(fixed.pop(key, {}).values())
                m["current"] += back
                m["won_from_pool"] -= back
                per_table["won_from_pool"] -= back
            sign = {"round.opened": 1, "round.voided": -1}.get(kind)
            if sign is not None:
                before = math.floor(exact)
                exact += sign * total * self.config.contribution_rate
                units = math.floor(exact) - before
                for meters in (m, per_table):
                    meters["rounds"] += sign
                    meters["stakes_in"] += sign * total
                    meters["contributions"] += units
                    if sign < 0:
                        meters["voids"] += 1
                        meters["stakes_returned"] += total
                m["current"] += units
            elif kind == "round.settled":
                others = {k: r for k, r in in_play.items() if r.table != played.table}
                won, house = self._settle(played, m, others, fixed)
                per_table["won_from_pool"] += won
                per_table["won_fixed"] += house
        self.meters = m

    def _settle(
        self,
        played: LinkedRound,
        m: dict[str, int],
        others: Mapping[str, LinkedRound],
        fixed: dict[str, dict[int, int]],
    ) -> tuple[int, int]:
        received = fixed.pop(played.key, {})
        if played.cards is None:
            self.problems.append(f"{played.key}: settled, but the rig never saw its cards")
            return 0, 0
        paid = dict.fromkeys(played.stakes, 0)
        hitters, fixed_paid = [], 0
        unit = self.config.rules.stake
        for seat, stake in played.stakes.items():
            line = jumbo7_line(played.cards[seat])
            pay = self.config.pay_for(line) if line is not None else None
            if isinstance(pay, PoolPercent):
                hitters.append(pay.percent)
                paid[seat] = -1  # a hitting seat is paid its share only (CH-9)
            elif isinstance(pay, FixedPerUnit):
                paid[seat] = pay.amount * stake // unit
            elif isinstance(pay, Odds):
                paid[seat] = stake * pay.ratio.numerator // pay.ratio.denominator
            fixed_paid += max(paid[seat], 0)
        won = 0
        if hitters:
            percent = max(hitters)
            won = math.floor(m["current"] * Fraction(percent, 100))
            weights = {(0, "", "", s): v for s, v in played.stakes.items()}
            if self.config.rules.share_scope == "link":
                weights |= {
                    (1, r.table, r.round_id, s): v
                    for r in others.values()
                    for s, v in r.stakes.items()
                }
            shares = share_by_stake(won, weights)
            paid = {s: max(paid[s], 0) + shares[(0, "", "", s)] for s in paid}
            for (_, table, rid, seat), share in shares.items():
                if table:
                    owed = fixed.setdefault(f"{table}/{rid}", {})
                    owed[seat] = owed.get(seat, 0) + share
            m["current"] -= won
            if percent == 100:
                m["current"] = self.config.seed
        paid = {s: max(v, 0) + received.get(s, 0) for s, v in paid.items()}
        m["won_from_pool"] += won
        m["won_fixed"] += fixed_paid
        played.paid = {s: v for s, v in paid.items() if v}
        return won, fixed_paid

    def differences(
        self, name: str, theirs: Mapping[str, int], table: str | None = None
    ) -> list[str]:
        """Every meter ``theirs`` (another source) has and disagrees on with the rig's: the
        pool's, or with ``table`` that table's share (its row in the store)."""
        mine = self.meters if table is None else self.tables.get(table, {})
        return [
            f"{k}: rig {mine.get(k, 0)}, {name} {theirs.get(k)}"
            for k in METERS
            if k in mine and k in theirs and theirs[k] != mine[k]
        ]
