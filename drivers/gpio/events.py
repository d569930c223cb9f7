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
    kind: ClassVar[str] = "event"  # the name in JSON (``sensors watch --json``, the journal)
    text: ClassVar[str] = ""  # one line for a technician, formatted with the event's fields
    at: float

    def as_dict(self) -> dict[str, Any]:
        return {"event": self.kind, **dataclasses.asdict(self)}

    def describe(self) -> str:
        fields = dataclasses.asdict(self)
        fields |= {
            k: ("ON" if v else "off") if isinstance(v, bool) else v for k, v in fields.items()
        }
        return self.text.format(**fields)


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
    text: ClassVar[str] = "seat {seat}: stake removed"
    seat: int


@dataclass(frozen=True)
class SensorStuck(TableEvent):
    """A stake stayed on the sensor across ``rounds`` round boundaries: the seat is excluded."""

    kind: ClassVar[str] = "sensor_stuck"
    text: ClassVar[str] = (
        "seat {seat}: STUCK sensor (stake held across {rounds} round(s)) -> excluded"
    )
    seat: int
    rounds: int


@dataclass(frozen=True)
class SensorChatter(TableEvent):
    """More than the allowed raw edges within the window: the seat is excluded."""

    kind: ClassVar[str] = "sensor_chatter"
    text: ClassVar[str] = "seat {seat}: CHATTER ({edges} edges in {window:g} s) -> excluded"
    seat: int
    edges: int
    window: float


@dataclass(frozen=True)
class SeatCleared(TableEvent):
    kind: ClassVar[str] = "seat_cleared"
    text: ClassVar[str] = "seat {seat}: exclusion cleared"
    seat: int


@dataclass(frozen=True)
class ButtonPressed(TableEvent):
    kind: ClassVar[str] = "button_pressed"
    text: ClassVar[str] = "{button} pressed"
    button: str  # "lock" or "confirm"


@dataclass(frozen=True)
class ButtonReleased(TableEvent):
    kind: ClassVar[str] = "button_released"
    text: ClassVar[str] = "{button} released"
    button: str


@dataclass(frozen=True)
class KeySwitched(TableEvent):
    kind: ClassVar[str] = "key_switched"
    text: ClassVar[str] = "technician key {on}"
    on: bool


@dataclass(frozen=True)
class RawEdge(TableEvent):
    """An undebounced edge (diagnostics: ``croupier sensors watch --edges``)."""

    kind: ClassVar[str] = "edge"
    text: ClassVar[str] = "  edge {line} {active}"
    line: str
    active: bool


@dataclass(frozen=True)
class LampFault(TableEvent):
    """Writing a lamp's pin failed (``error`` says why), or works again (``error`` empty)."""

    kind: ClassVar[str] = "lamp_fault"
    lamp: str
    error: str

    def describe(self) -> str:
        return f"lamp {self.lamp}: " + (self.error or "works again")
