"""What a settlement returns: every wager of every seat, with the rule that decided it.

``paid`` is everything handed to the player for that wager: the returned stake plus the
winnings; 0 when lost. A progressive stake is never returned (PRG-2), so a progressive win
pays the award alone. ``stake`` is the stake the table accepted; ``returned`` is what the
player put down above the table maximum, handed back before the deal and never in play
(BJ-1, :mod:`controller.engine.wagers`). Amounts are integer minor units.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

WIN, LOSE, PUSH = "win", "lose", "push"


@dataclass(frozen=True)
class Wager:
    stake: int
    result: str  # WIN, LOSE or PUSH
    paid: int
    rule: str  # the RULES.md ID that decided it
    line: str | None = None  # the pay line that paid, if any
    returned: int = 0  # excess over the table maximum, returned before the deal (BJ-1)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "stake": self.stake,
            "result": self.result,
            "paid": self.paid,
            "rule": self.rule,
        }
        if self.line:
            data["line"] = self.line
        if self.returned:
            data["returned"] = self.returned
        return data


@dataclass
class SeatResult:
    seat: int
    hand: str | None  # category label of the seat's final hand (None when not evaluated)
    wagers: dict[str, Wager] = field(default_factory=dict)
    cards: list[str] = field(default_factory=list)  # the cards that play (best five)
    extra: dict[str, Any] = field(default_factory=dict)  # game-specific details

    @property
    def staked(self) -> int:
        return sum(w.stake for w in self.wagers.values())

    @property
    def paid(self) -> int:
        return sum(w.paid for w in self.wagers.values())

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seat": self.seat, "hand": self.hand}
        if self.cards:
            data["cards"] = self.cards
        data["wagers"] = {name: w.to_json() for name, w in self.wagers.items()}
        data.update(self.extra)
        return data


@dataclass
class RoundResult:
    game: str
    profile: str
    dealer: dict[str, Any]
    seats: list[SeatResult]
    pools: dict[str, dict[str, Any]] = field(default_factory=dict)  # pool name -> awards

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "profile": self.profile,
            "dealer": self.dealer,
            "seats": [s.to_json() for s in self.seats],
        }
        if self.pools:
            data["pools"] = self.pools
        return data
