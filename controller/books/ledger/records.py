"""What the ledger returns: the results of money events and the records it keeps.

Seat numbers are ints; wagers are named as in the profiles (``progressive``, ``ante``...).
A result carries ``retried=True`` when the event had already been recorded under the same
round ID and the ledger returned the recorded result instead of applying it again.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from controller.engine.pools.awards import ProgressiveOutcome
from controller.engine.pools.meters import Contribution, Reversal

Stakes = dict[int, dict[str, int]]  # seat -> wager -> minor units


def stakes_to_json(stakes: Stakes) -> dict[str, dict[str, int]]:
    return {str(seat): dict(sorted(w.items())) for seat, w in sorted(stakes.items())}


def stakes_from_json(data: dict[str, dict[str, int]]) -> Stakes:
    return {int(seat): dict(w) for seat, w in data.items()}


def load_stakes(text: str | None) -> Stakes:
    return stakes_from_json(json.loads(text)) if text else {}


@dataclass(frozen=True)
class RoundOpened:
    round_id: str
    stakes: Stakes
    contributions: dict[str, Contribution]  # by pool
    pools: dict[str, int]  # amount displayed by each pool the round fed, after the event
    seq: int  # journal entry
    retried: bool = False


@dataclass(frozen=True)
class RoundVoided:
    round_id: str
    rule: str  # e.g. MD-S1, MD-S2
    cause: str
    returned: Stakes  # every stake of the round, progressive included (MD)
    reversals: dict[str, Reversal]
    pools: dict[str, int]
    seq: int
    retried: bool = False


@dataclass(frozen=True)
class RoundSettled:
    round_id: str
    outcomes: dict[str, ProgressiveOutcome]  # by pool
    paid: Stakes  # what each seat is paid per wager (progressive awards, shares, envy...)
    pools: dict[str, int]
    seq: int
    retried: bool = False

    @property
    def jackpot(self) -> bool:
        """A 100% award was paid (the table locks until a technician acknowledges)."""
        return any(o.resets for o in self.outcomes.values())


@dataclass(frozen=True)
class RoundRow:
    round_id: str
    state: str  # open, voided, settled
    stakes: Stakes
    staked: int
    opened_wall: str
    closed_wall: str | None
    rule: str | None
    cause: str | None
    paid: Stakes
    paid_total: int | None
    pools: dict[str, dict[str, Any]]  # pool -> contribution / reversal / outcome

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["stakes"] = stakes_to_json(self.stakes)
        data["paid"] = stakes_to_json(self.paid)
        return data


@dataclass(frozen=True)
class HitRecord:
    hit_id: int
    pool: str
    round_id: str
    seat: int
    line: str | None
    hand: str | None
    stake: int
    amount: int  # for the seat's own line
    from_pool: int
    share: int  # share-round (CH-9)
    envy: int  # PRG-4
    cycle: int
    wall: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class SelfCheckState(StrEnum):
    """The self-check status row's ``state`` (the ``selfcheck.state`` column's values)."""

    OK = "ok"
    FAILED = "failed"


@dataclass(frozen=True)
class SelfCheckStatus:
    state: SelfCheckState
    failures: list[str]
    since: str  # wall time of the last change
    seq: int  # journal entry of the last change

    @property
    def table_may_open(self) -> bool:
        return self.state == SelfCheckState.OK

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "state": self.state.value, "table_may_open": self.table_may_open}
