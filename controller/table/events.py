"""What happens to the table (events in) and what the table asks for (effects out).

The round state machine (:mod:`controller.table.machine`) consumes events and returns effects;
the daemon turns hardware, shuffler, ledger and control-socket activity into events and carries
the effects out. Both are plain frozen dataclasses, so a test can script a whole round.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.engine.deal.validator import Packet

# --- events ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tick:
    """Time passed (the daemon sends one at the machine's next deadline)."""


@dataclass(frozen=True)
class ConditionChanged:
    """A reason to keep the table closed appeared (``blocking``) or went away.

    Names in use: ``link`` (shuffler link down or not identified), ``firmware`` (shuffler
    firmware not on the allow-list), ``selfcheck`` (power-up self-check failed), ``ledger``
    (the ledger cannot commit), ``deck`` (deck out of play until the dealer confirms a
    replacement), ``progressive-link`` (a linked pool is unreachable), ``shuffler`` (the
    machine reports a fault or an open door until it is cleared and reset), ``clock`` (the
    system clock is not synchronised), ``ledger-storage`` (the ledger is on a volatile
    filesystem: see :mod:`controller.table.host_checks`) and ``internal`` (an event the daemon
    could not handle: the round is in doubt until a restart voids it)."""

    name: str
    blocking: bool
    detail: str = ""


@dataclass(frozen=True)
class StakeSensed:
    """A seat's progressive bet sensor reports a stake placed (True) or removed (False)."""

    seat: int
    present: bool


@dataclass(frozen=True)
class SeatHealth:
    """Sensor health: a stuck or chattering sensor excludes the seat until cleared."""

    seat: int
    excluded: bool
    reason: str = ""


@dataclass(frozen=True)
class ButtonPressed:
    """Dealer console: ``lock`` (bets closed) or ``confirm``."""

    button: str


@dataclass(frozen=True)
class PacketDelivered:
    packet: Packet
    at: float | None = None  # when its last byte arrived (loop clock), for the metrics
    round_id: str | None = None  # the round whose request it answers (None: shoe events)


@dataclass(frozen=True)
class ShufflerFault:
    description: str


@dataclass(frozen=True)
class LedgerResult:
    """The outcome of a ledger effect the machine asked for."""

    round_id: str
    action: str  # "open", "void" or "settle"
    ok: bool
    error: str = ""
    condition: str = "ledger"  # what a failure stands for: "ledger" or "progressive-link"


@dataclass(frozen=True)
class PoolAmount:
    """The ledger's current amount (and seed) of a pool, after every commit."""

    pool: str
    amount: int
    seed: int


@dataclass(frozen=True)
class DeclareSeats:
    """Control socket: the seats that play the round besides the sensed ones."""

    seats: tuple[int, ...]


@dataclass(frozen=True)
class EnterWagers:
    """Control socket: a seat's main stakes and decision, for full settlement."""

    seat: int
    stakes: dict[str, int]
    decision: Any = None


@dataclass(frozen=True)
class SeatDecision:
    """Control socket: a blackjack player's decision: ``hit stand double split`` or
    ``insurance`` with an amount (0 declines), BJ-6..8."""

    seat: int
    action: str
    amount: int = 0


@dataclass(frozen=True)
class EnterCards:
    """Control socket: cards of a manually dealt round (``community``, ``dealer``,
    ``seat:N``), for the showdown."""

    destination: str
    cards: tuple[int, ...]


@dataclass(frozen=True)
class DeclareMisdeal:
    """Control socket: the dealer or a supervisor declares a misdeal with its rule (MD-S*,
    MD-M*), e.g. a card exposed during a manual deal (MD-M2)."""

    rule: str
    reason: str


@dataclass(frozen=True)
class DealerCardsExposed:
    """Control socket: the dealer exposed his own cards (``positions``, 1-based, of his hand)
    with only the flop shown: with a profile that allows it they go back into the shuffler
    and replacements are dealt (MD-X3)."""

    positions: tuple[int, ...]


@dataclass(frozen=True)
class JackpotAck:
    """A technician acknowledged the jackpot (credential already checked, journaled)."""

    technician: str


Event = (
    Tick
    | ConditionChanged
    | StakeSensed
    | SeatHealth
    | ButtonPressed
    | PacketDelivered
    | ShufflerFault
    | LedgerResult
    | PoolAmount
    | DeclareSeats
    | EnterWagers
    | SeatDecision
    | EnterCards
    | DeclareMisdeal
    | DealerCardsExposed
    | JackpotAck
)

# --- effects ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Journal:
    """Append to the hash-chained journal: every transition with its cause and rule."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class OpenRound:
    """Ledger: open the round, record the progressive stakes and contributions (PRG-1)."""

    round_id: str
    pool: str | None
    stakes: dict[int, int]  # seat -> progressive stake


@dataclass(frozen=True)
class VoidRound:
    """Ledger: void the round: every stake returned, contributions reversed (MD)."""

    round_id: str
    rule: str
    reason: str


@dataclass(frozen=True)
class SettleRound:
    """Ledger: record the settlement (awards, resets to seed)."""

    round_id: str
    result: Any  # controller.engine.games.results.RoundResult


@dataclass(frozen=True)
class RequestPacket:
    """Shuffler: deal ``count`` cards to ``destination``."""

    destination: str
    count: int


@dataclass(frozen=True)
class ShuffleDeck:
    """Shuffler: shuffle the deck for the round about to be dealt (hand-forming, CH-1)."""


@dataclass(frozen=True)
class ReinsertCards:
    """Shuffler: take these delivered cards back into the remaining stack and shuffle it
    (MD-X3); the replacement packet follows as a :class:`RequestPacket`."""

    cards: tuple[int | None, ...]


@dataclass(frozen=True)
class CheckDeck:
    """Shuffler: count the deck (after a replacement); the daemon reports the outcome as
    ``ConditionChanged("deck", blocking=...)``."""


Effect = (
    Journal | OpenRound | VoidRound | SettleRound | RequestPacket | ShuffleDeck | ReinsertCards
    | CheckDeck
)  # fmt: skip
