"""What the table I/O layer tells the controller: facts about seats and the console, never pin
levels. Each event carries ``at``, the time (injected clock) of the edge that caused it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar


class SeatState(Enum):
    AWAITING = "awaiting"  # no stake (or bets closed without one)
    STAKE_PLACED = "stake placed"  # a stake is on the sensor, bets open
    LOCKED = "locked"  # the stake is in the round (LOCK pressed)
    EXCLUDED = "excluded"  # sensor fault: no stake is taken until a technician clears it
    WINNER = "winner"  # the seat won a progressive award this round


@dataclass(frozen=True)
class TableEvent:
    kind: ClassVar[str] = "event"
    at: float

    def as_dict(self) -> dict[str, Any]:
        fields = dataclasses.asdict(self)
        return {"event": self.kind, **fields}

    def describe(self) -> str:
        """One line for a technician."""
        raise NotImplementedError


@dataclass(frozen=True)
class StakePlaced(TableEvent):
    """A stake landed on a seat's sensor. ``accepted`` is false when bets are closed (after
    LOCK) or the seat is waiting for a stuck stake to be lifted: that stake is not in play."""

    kind: ClassVar[str] = "stake_placed"
    seat: int
    accepted: bool

    def describe(self) -> str:
        return f"seat {self.seat}: stake placed" + ("" if self.accepted else " (not accepted)")


@dataclass(frozen=True)
class StakeRemoved(TableEvent):
    kind: ClassVar[str] = "stake_removed"
    seat: int

    def describe(self) -> str:
        return f"seat {self.seat}: stake removed"


@dataclass(frozen=True)
class SensorStuck(TableEvent):
    """A stake stayed on the sensor across ``rounds`` round boundaries: the seat is excluded."""

    kind: ClassVar[str] = "sensor_stuck"
    seat: int
    rounds: int

    def describe(self) -> str:
        return (
            f"seat {self.seat}: STUCK sensor (stake held across {self.rounds} round(s)) -> excluded"
        )


@dataclass(frozen=True)
class SensorChatter(TableEvent):
    """More than the allowed raw edges within the window: the seat is excluded."""

    kind: ClassVar[str] = "sensor_chatter"
    seat: int
    edges: int
    window: float

    def describe(self) -> str:
        return f"seat {self.seat}: CHATTER ({self.edges} edges in {self.window:g} s) -> excluded"


@dataclass(frozen=True)
class SeatCleared(TableEvent):
    kind: ClassVar[str] = "seat_cleared"
    seat: int

    def describe(self) -> str:
        return f"seat {self.seat}: exclusion cleared"


@dataclass(frozen=True)
class ButtonPressed(TableEvent):
    kind: ClassVar[str] = "button_pressed"
    button: str  # "lock" or "confirm"

    def describe(self) -> str:
        return f"{self.button.upper()} pressed"


@dataclass(frozen=True)
class ButtonReleased(TableEvent):
    kind: ClassVar[str] = "button_released"
    button: str

    def describe(self) -> str:
        return f"{self.button.upper()} released"


@dataclass(frozen=True)
class KeySwitched(TableEvent):
    kind: ClassVar[str] = "key_switched"
    on: bool

    def describe(self) -> str:
        return f"technician key {'ON' if self.on else 'off'}"


@dataclass(frozen=True)
class RawEdge(TableEvent):
    """An undebounced edge (diagnostics: ``croupier sensors watch --edges``)."""

    kind: ClassVar[str] = "edge"
    line: str
    active: bool

    def describe(self) -> str:
        return f"  edge {self.line} {'active' if self.active else 'inactive'}"
