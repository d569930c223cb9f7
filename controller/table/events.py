"""What happens to the table (events in) and what the table asks for (effects out).

The round state machine (:mod:`controller.table.machine`) consumes events and returns effects;
the pure table core (:mod:`controller.table.core`) wraps it and adds the effects for the
outside world (one ledger transaction, the shuffler, the sign, the systemd status line); the
asyncio shell (:mod:`controller.table.runner`) turns hardware, shuffler, ledger and
control-socket activity into events and carries the effects out. All are plain frozen
dataclasses, so a test can script a whole round. States, buttons, ledger actions and
conditions are enums (:class:`~enum.StrEnum`: their values are what the journal and the
status views show).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from controller.engine.deal.validator import Packet
from display.scenes import SignState


class Button(StrEnum):
    """The dealer's two buttons (console pins or the tablet)."""

    LOCK = "lock"  # bets closed: the round opens in the ledger
    CONFIRM = "confirm"  # showdown, end of round, a manual deal complete, a new deck


class LedgerAction(StrEnum):
    """The money events a round asks the ledger for."""

    OPEN = "open"
    VOID = "void"
    SETTLE = "settle"


class Condition(StrEnum):
    """A reason that keeps the table closed (``progressive-link`` and ``lamps`` only something
    less)."""

    STARTUP = "startup"  # the table has not started yet
    LINK = "link"  # shuffler link down or not identified
    FIRMWARE = "firmware"  # shuffler firmware not on the allow-list
    SELFCHECK = "selfcheck"  # power-up self-check failed
    LEDGER_ROLLBACK = "ledger-rollback"  # the ledger is behind its witness (docs/ledger.md)
    WITNESS = "witness"  # the ledger's witness did not answer at power-up
    ROUND_REUSED = "round-reused"  # the surveillance store already holds this round ID
    LEDGER = "ledger"  # the ledger cannot commit
    DECK = "deck"  # deck out of play until the dealer confirms a replacement
    SHUFFLER = "shuffler"  # the machine reports a fault or an open door
    SHOE = "shoe"  # the shoe is shuffled again: its cut card came (controller.table.shoe)
    CLOCK = "clock"  # the system clock is not synchronised (controller.table.host_checks)
    LEDGER_STORAGE = "ledger-storage"  # the ledger is on a volatile filesystem (host_checks)
    PROGRESSIVE_LINK = "progressive-link"  # a linked pool is unreachable: no progressive stakes
    LAMPS = "lamps"  # a lamp command failed: the table plays, the status shows it
    INTERNAL = "internal"  # an event the daemon could not handle: in doubt until a restart


# --- events ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tick:
    """Time passed (the daemon sends one at the machine's next deadline)."""


@dataclass(frozen=True)
class ConditionChanged:
    """A :class:`Condition` appeared (``blocking``) or went away."""

    name: Condition
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
class DealerPressed:
    """The dealer pressed a :class:`Button` (on the console or the tablet). Not to be
    confused with :class:`drivers.gpio.events.ButtonPressed`, the debounced pin it may come
    from."""

    button: Button


@dataclass(frozen=True)
class TechnicianKeyTurned:
    """The technician key switch on the console turned on or off."""

    on: bool


@dataclass(frozen=True)
class PacketDelivered:
    packet: Packet
    at: float | None = None  # when its last byte arrived (loop clock), for the metrics
    round_id: str | None = None  # the round whose request it answers (None: shoe events)


@dataclass(frozen=True)
class ShufflerFault:
    description: str


@dataclass(frozen=True)
class ShoeShuffled:
    """The shoe was shuffled in SHOE mode (at identify, or at its cut card): ``cards`` in it."""

    cards: int


@dataclass(frozen=True)
class LedgerResult:
    """The outcome of a ledger effect the machine asked for."""

    round_id: str
    action: LedgerAction
    ok: bool
    error: str = ""
    condition: Condition = Condition.LEDGER  # what a failure stands for (or PROGRESSIVE_LINK)


@dataclass(frozen=True)
class PoolAmount:
    """The ledger's current amount (and seed) of a pool, after every commit."""

    pool: str
    amount: int
    seed: int


@dataclass(frozen=True)
class RoundsRecorded:
    """Another record of this table's rounds (a linked pool's store, at every join) opened
    ``round_id`` last: the next round is numbered after it. A round whose opening the store
    committed just before the table was killed is in no local ledger (the store voids it at the
    join, MD-S2), and its ID must not be used for another round."""

    round_id: str | None  # None: the store holds no round of this table
    source: str  # what holds the rounds, for the journal: "linked pool jumbo7"


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
class WithdrawWagers:
    """Control socket: the stakes entered for a seat are taken back (entered on the wrong seat,
    or the player left before LOCK); a progressive stake is the sensor's, not entered."""

    seat: int


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
class CardsExposed:
    """Control socket: cards of ``destination`` (``dealer``: his own cards, ``community``:
    the board) exposed at the wrong time, ``positions`` 1-based: with a profile that has the
    procedure they go back into the remaining cards and are replaced (MD-X1, MD-X2, MD-X3;
    :mod:`controller.table.exposure`)."""

    positions: tuple[int, ...]
    destination: str = "dealer"


@dataclass(frozen=True)
class JackpotAck:
    """A technician acknowledged the jackpot (credential already checked, journaled)."""

    technician: str


Event = (
    Tick
    | ConditionChanged
    | StakeSensed
    | SeatHealth
    | DealerPressed
    | TechnicianKeyTurned
    | PacketDelivered
    | ShufflerFault
    | ShoeShuffled
    | LedgerResult
    | PoolAmount
    | RoundsRecorded
    | DeclareSeats
    | EnterWagers
    | WithdrawWagers
    | SeatDecision
    | EnterCards
    | DeclareMisdeal
    | CardsExposed
    | JackpotAck
)

# --- effects ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class AppendJournal:
    """Append an entry to the hash-chained journal (:class:`controller.books.ledger.journal.
    Journal`): every transition with its cause and rule."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class OpenRound:
    """Ledger: open the round, record its stakes and the contributions (PRG-1): the
    progressive stakes on ``pool`` (local or linked) and the table wagers the round took at
    LOCK for good (``wagers``: a blackjack seat's main bet and Trilux, as accepted, BJ-1)."""

    round_id: str
    pool: str | None
    stakes: dict[int, int]  # seat -> progressive stake
    wagers: dict[int, dict[str, int]] = field(default_factory=dict)  # seat -> wager -> stake

    def every_stake(self) -> dict[int, dict[str, int]]:
        """Seat -> wager -> stake: the table wagers and the progressive stakes."""
        every = {seat: dict(wagers) for seat, wagers in self.wagers.items()}
        if self.pool is not None:
            for seat, stake in self.stakes.items():
                every.setdefault(seat, {})[self.pool] = stake
        return every


@dataclass(frozen=True)
class VoidRound:
    """Ledger: void the round: every stake returned, contributions reversed (MD). ``stakes``:
    every stake the table knows at the void (seat -> wager -> stake: the pool stakes LOCK
    took, the table wagers, those placed during the round), recorded as returned, as a
    settlement records its stakes; ``None``: only those the opening took are known."""

    round_id: str
    rule: str
    reason: str
    stakes: dict[int, dict[str, int]] | None = None


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
    """Shuffler: shuffle the deck for the round about to be dealt (hand-forming, CH-1), or
    (a shoe) every card back into the shoe and shuffled, at its cut card."""


@dataclass(frozen=True)
class ReinsertCards:
    """Shuffler: take these delivered cards back into the remaining stack and shuffle it
    (MD-X1, MD-X2, MD-X3); the replacement packet follows as a :class:`RequestPacket`."""

    cards: tuple[int | None, ...]


@dataclass(frozen=True)
class CheckDeck:
    """Shuffler: count the deck (after a replacement); the daemon reports the outcome as
    ``ConditionChanged("deck", blocking=...)``."""


@dataclass(frozen=True)
class LockSeats:
    """Seats: bets are closed; the seats with a stake are in the round (their lamps on)."""


@dataclass(frozen=True)
class EndSeatRound:
    """Seats: the round is over and bets open again; ``void``: a misdeal returned the stakes,
    which may stay on the sensors for the next round (the stuck-sensor check skips them)."""

    void: bool


@dataclass(frozen=True)
class ShowWinners:
    """Seats: these seats won a pool (their lamps flash until the round is over)."""

    seats: tuple[int, ...]


@dataclass(frozen=True)
class ClearSeats:
    """Seats: a technician cleared these excluded seats (stuck or chattering sensors)."""

    seats: tuple[int, ...]


@dataclass(frozen=True)
class Refused:
    """The machine did not take the event it was handed (journaled beside this as ``kind``,
    with ``reason`` and ``rule``): whoever handed it in is told why (the control socket
    answers a dealer's entry with it instead of "entered"). Nothing else comes of it."""

    kind: str
    reason: str
    rule: str | None = None

    def text(self) -> str:
        """One line: the reason, with its rule when the reason does not name it already."""
        if self.rule and self.rule not in self.reason:
            return f"{self.reason} ({self.rule})"
        return self.reason


SeatEffect = LockSeats | EndSeatRound | ShowWinners | ClearSeats
MoneyEffect = OpenRound | VoidRound | SettleRound
ShufflerEffect = RequestPacket | ShuffleDeck | ReinsertCards | CheckDeck
Effect = AppendJournal | MoneyEffect | ShufflerEffect | SeatEffect | Refused

# --- between the pure table core and its shell ---------------------------------------------


@dataclass(frozen=True)
class JournalNote:
    """Journal something that is not a transition of the machine (an access, an alarm)."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LedgerWritten:
    """The outcome of a :class:`LedgerWrite`: committed (``amounts``: each ledger pool's
    current amount after it) or not (``error``; ``condition`` says what failed)."""

    money: tuple[tuple[str, LedgerAction], ...]  # (round, action) of each money event
    ok: bool
    error: str = ""
    condition: Condition = Condition.LEDGER
    amounts: tuple[tuple[str, int], ...] = ()  # ledger pool name -> current amount
    probe: bool = False  # the answer to a probe of a failing ledger


@dataclass(frozen=True)
class WitnessChecked:
    """The ledger's witness was asked again (:class:`AskWitness`): ``answered`` or not
    (``detail``: why, the ``witness`` condition's reason); ``rollback``: the ledger does not
    hold the head it saw (the ``ledger-rollback`` reason, recorded as a failed self-check)."""

    answered: bool
    detail: str = ""
    rollback: str = ""


@dataclass(frozen=True)
class AskWitness:
    """Shell: ask the ledger's witness again (it did not answer); answer with
    :class:`WitnessChecked`."""


@dataclass(frozen=True)
class LedgerWrite:
    """Shell: ONE ledger transaction (a linked pool's part first) of these journal entries and
    money events, in order; the shell answers with :class:`LedgerWritten`. ``probe``: a
    journal entry that tests whether a failing ledger takes writes again."""

    items: tuple[AppendJournal | MoneyEffect, ...]
    probe: bool = False

    @property
    def money(self) -> tuple[tuple[str, LedgerAction], ...]:
        money = [e for e in self.items if not isinstance(e, AppendJournal)]
        return tuple((e.round_id, MONEY_ACTIONS[type(e)]) for e in money)


MONEY_ACTIONS: dict[type, LedgerAction] = {
    OpenRound: LedgerAction.OPEN,
    VoidRound: LedgerAction.VOID,
    SettleRound: LedgerAction.SETTLE,
}


@dataclass(frozen=True)
class ToShuffler:
    """Shell: a shuffler command for ``round_id`` (dropped if that round is over by the time
    its turn comes: a voided round's packets are never dealt)."""

    command: ShufflerEffect
    round_id: str | None


@dataclass(frozen=True)
class ArchiveRound:
    """Shell: keep a settled round for surveillance (card identities) and feed the shuffle
    audit with the order the cards came in (``None``: not one shuffle's order, e.g. a shoe)."""

    round_id: str
    record: dict[str, Any]
    result: Any  # controller.engine.games.results.RoundResult
    shuffle_order: tuple[int | None, ...] | None


@dataclass(frozen=True)
class DeckChainBroken:
    """Shell: a round was voided; the deck may be replaced, so the shuffle audit starts a new
    chain of shuffles."""


@dataclass(frozen=True)
class ShowSign:
    """Shell: the sign shows this from now on."""

    state: SignState


@dataclass(frozen=True)
class KeepExclusions:
    """Shell: the seats excluded now (seat -> why), kept across a restart
    (controller.table.exclusions)."""

    seats: dict[int, str]


@dataclass(frozen=True)
class ReportStatus:
    """Shell: the one-line status for systemd (``STATUS=``)."""

    text: str


Output = (
    LedgerWrite
    | ToShuffler
    | ArchiveRound
    | DeckChainBroken
    | ShowSign
    | ReportStatus
    | KeepExclusions
    | AskWitness
    | Refused
)
