"""The round state machine of a table (pure): hold'em with a hand-forming shuffler, or Trilux
blackjack with a shoe that reports each card (see :mod:`controller.table.deals`).

Theory of operation
-------------------
States (``TableState``)::

    CLOSED --conditions clear--> OPEN --LOCK--> LOCKED --ledger open ok--> DEALING
    DEALING --plan complete (count verified)--> VERIFIED --CONFIRM--> SHOWDOWN
    SHOWDOWN --ledger settle ok--> SETTLED --CONFIRM or display time--> OPEN
                                 \\-> JACKPOT (a 100% award) --technician ack--> OPEN
    DEALING --misdeal (MD-S1/S2/S3)--> VOID --ledger void ok, CONFIRM--> OPEN
    VERIFIED --misdeal declared, or a shoe's wrong count (blackjack)--> VOID
    LOCKED --ledger open failed: nothing taken--> OPEN (or CLOSED)
    OPEN --a condition--> CLOSED;  SETTLED / VOID / JACKPOT --> CLOSED if one is pending

A declared misdeal (DEALING or VERIFIED) names a rule of the round's deal mode (MD-S* from a
shuffler or shoe, MD-M* by hand), and a rule of the initial deal (MD-M2, M4, M6, M7) only
before any player acted: :mod:`controller.engine.deal.misdeals` says which, the dealer is told
why not (``misdeal-refused``).

Exposed cards that are not a misdeal (:mod:`controller.table.exposure`: MD-X1 and MD-X2 on
uth-gr, MD-X3 on uth-it): dealer or community cards exposed after the deal (VERIFIED, before
the showdown) go back into the shuffler, VERIFIED -> DEALING until the replacement packet is
in and counted, then VERIFIED again. Dealt by hand (MD-X1, MD-X2) the table stays VERIFIED:
the cards entered for that place are dropped and entered again. MD-X1 only once a player
acted (a decision entered); before, the dealer is told which misdeal to declare.

Blackjack: VERIFIED once the initial deal (BJ-2) is in; the players' decisions and the cards
they call for keep coming in VERIFIED (a card when none is due is MD-S1, a shoe fault MD-S2),
and the round goes to SHOWDOWN by itself when the engine has played every hand out.

Any blocking condition (shuffler link down, firmware not allowed, self-check failed, ledger
failing, deck out of play, linked pool unreachable) closes the table between rounds; during a
deal a link loss is a shuffler malfunction (MD-S2) and voids the round.

Money moves only through the ledger, one transaction per transition that touches money: LOCK
asks to open the round (stakes and contributions, PRG-1), a misdeal asks to void it (stakes
returned, contributions reversed), the showdown asks to settle it (awards, resets, PRG-3..5).
The machine waits for each :class:`LedgerResult` before it moves on, so a failed commit (disk
full) leaves nothing half-done: a failed open takes no stakes and closes the table; a failed
settlement is retried when the ledger is back.

Every transition goes through one method, checked against one table (:data:`TRANSITIONS`,
the diagram above as data); a move the table does not have is a bug and raises
:class:`TransitionError`. Events that only some states take are checked in one place too
(:data:`TAKEN_IN`): anything else is refused with :class:`EventRefused`, which becomes the
journal entry that says why (``lock-ignored``, ``misdeal-refused``...), never an exception out
of :meth:`TableMachine.handle`.

Seats: the machine reads the one seat model (:mod:`controller.table.seats`) and changes it
only through seat effects (LOCK, the round's end, the winners, a technician's CONFIRM with the
key on that clears excluded seats), so seats and lamps can never disagree with the round.

Every transition is journaled with its cause and, where a rule decided it, the rule ID.
Card identities appear only in the settlement record, never in status views (see
:meth:`TableMachine.view`).

The machine never reads a clock: every call takes ``now`` and :meth:`next_deadline` says when
the daemon must send the next :class:`Tick`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from controller.engine.deal.misdeals import DealMode, declaration_refusal, rule_text
from controller.engine.deal.validator import Packet, Verdict, VerdictStatus
from controller.engine.games import settle
from controller.engine.games.holdem_round import stakes_before_showdown, uth_street
from controller.engine.games.results import RoundResult
from controller.engine.profiles import Profile
from controller.engine.wagers import GAME_WAGER_RULE
from controller.errors import CroupierError, RoundError
from controller.table.deals import (
    HandFormingDeal,
    ManualDeal,
    RoundStakes,
    ShoeDeal,
    check_positions,
)
from controller.table.events import (
    AppendJournal,
    Button,
    CardsExposed,
    CheckDeck,
    ClearSeats,
    Condition,
    ConditionChanged,
    DealerPressed,
    DeclareMisdeal,
    DeclareSeats,
    Effect,
    EndSeatRound,
    EnterCards,
    EnterWagers,
    Event,
    JackpotAck,
    LedgerAction,
    LedgerResult,
    LockSeats,
    OpenRound,
    PacketDelivered,
    PoolAmount,
    Refused,
    RoundsRecorded,
    SeatDecision,
    SeatHealth,
    SettleRound,
    ShoeShuffled,
    ShowWinners,
    ShuffleDeck,
    ShufflerFault,
    StakeSensed,
    TechnicianKeyTurned,
    Tick,
    VoidRound,
    WithdrawWagers,
)
from controller.table.exposure import (
    HELD,
    ExposureProcedure,
    before_first_action,
    exposure_procedure,
    no_procedure,
    river_shown,
)
from controller.table.machine_settings import MachineSettings
from controller.table.seats import ReportedSeats, SeatBoard
from controller.table.shoe import ShoeCount
from display.money import money_writer

Deal = HandFormingDeal | ShoeDeal | ManualDeal
# Conditions that close only the progressive (its stakes are not taken), not the table.
PROGRESSIVE_ONLY = frozenset({Condition.PROGRESSIVE_LINK})
# Conditions the status shows that close nothing: the table plays on.
ADVISORY = frozenset({Condition.LAMPS})


def condition_effect(name: Condition) -> str:
    """What a blocking condition does to the table, in words for the log and the status."""
    if name in PROGRESSIVE_ONLY:
        return "progressive closed (no progressive stakes)"
    if name in ADVISORY:
        return "the table plays on"
    return "table closed"


BJ_INSURANCE = (
    "seat {seat}: an insurance is not a stake entry: it is offered when the dealer's first card"
    " is an ace, with round decide SEAT insurance --amount N (BJ-8)"
)


class TableState(StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    LOCKED = "locked"
    DEALING = "dealing"
    VERIFIED = "verified"
    SHOWDOWN = "showdown"
    SETTLED = "settled"
    VOID = "void"
    JACKPOT = "jackpot"


S = TableState  # shorthand for the two tables below
# Every move the machine may make (the diagram in the module header, as data).
TRANSITIONS: Mapping[TableState, frozenset[TableState]] = {
    S.CLOSED: frozenset({S.OPEN}),  # every condition clear
    S.OPEN: frozenset({S.CLOSED, S.LOCKED}),  # a condition; LOCK
    S.LOCKED: frozenset({S.DEALING, S.OPEN, S.CLOSED}),  # ledger open ok / failed
    S.DEALING: frozenset({S.VERIFIED, S.VOID}),  # count verified; misdeal
    S.VERIFIED: frozenset({S.SHOWDOWN, S.VOID, S.DEALING}),  # CONFIRM; misdeal; MD-X1..3
    S.SHOWDOWN: frozenset({S.SETTLED, S.JACKPOT}),  # ledger settle ok
    S.SETTLED: frozenset({S.OPEN, S.CLOSED}),  # CONFIRM or display time over
    S.VOID: frozenset({S.OPEN, S.CLOSED}),  # CONFIRM
    S.JACKPOT: frozenset({S.OPEN, S.CLOSED}),  # technician acknowledgement
}
ROUND_OVER = frozenset({S.SETTLED, S.VOID, S.JACKPOT})
# The events (and buttons) that only some states take; every other one is taken anywhere.
TAKEN_IN: Mapping[object, frozenset[TableState]] = {
    Button.LOCK: frozenset({S.OPEN}),
    Button.CONFIRM: frozenset({S.DEALING, S.VERIFIED, S.SETTLED, S.VOID}),
    JackpotAck: frozenset({S.JACKPOT}),
    DeclareSeats: frozenset({S.OPEN, S.CLOSED}),
    # entered until the showdown: there the round's record is made and settled
    EnterWagers: frozenset(TableState) - ROUND_OVER - {S.SHOWDOWN},
    WithdrawWagers: frozenset(TableState) - ROUND_OVER - {S.SHOWDOWN},
    EnterCards: frozenset({S.DEALING, S.VERIFIED}),
    DeclareMisdeal: frozenset({S.DEALING, S.VERIFIED}),
    CardsExposed: frozenset({S.VERIFIED}),
}


class TransitionError(CroupierError):
    """The machine tried a move that :data:`TRANSITIONS` does not have: a bug, never the
    outside world's doing."""


class EventRefused(CroupierError):
    """An event the table's state (or its profile) does not take. ``kind`` and ``data`` are
    the journal entry that records the refusal and why."""

    def __init__(self, kind: str, data: dict[str, Any], shown: str | None = None) -> None:
        self.kind = kind
        self.data = data
        self.shown = shown  # the reason as a person reads it (money as money), if it differs
        super().__init__(f"{kind}: {data.get('reason', data)}")


@dataclass
class Round:
    round_id: str
    seats: tuple[int, ...]  # seats dealt, ascending
    progressive: dict[int, int]  # seat -> progressive stake (frozen at LOCK)
    wagers: dict[int, tuple[dict[str, int], Any]]
    deal: Deal
    entered: dict[int, tuple[dict[str, int], Any]]  # as entered before LOCK, pool stakes too
    verdict: Verdict | None = None
    # a shoe round's cards drawn while its opening was pending (the ledger's commit): dealt
    # into it, in order, once it opens
    held: list[Packet] = field(default_factory=list)
    held_fault: str | None = None  # a shoe fault after a held card: MD-S2 once it opens
    # a UTH decision of the river (1x, a fold, no-play: UTH-4, MD-X4) entered on the verified
    # deal: the turn and river are shown (MD-X3's "with only the flop shown" is over)
    river_decided: bool = False
    record: dict[str, Any] | None = None  # the round as `croupier settle` reads it
    result: RoundResult | None = None
    settled_at: float | None = None
    decided: bool = False  # a blackjack player's decision was taken (BJ-6..8)
    # pool stakes entered that LOCK did not take as entered (journaled stake-not-taken, PRG-2):
    # (seat, wager, entered, taken, why), for the dealer who pressed LOCK
    not_taken: list[tuple[int, str, int, int, str]] = field(default_factory=list)

    @property
    def mode(self) -> DealMode:
        """How the round's cards come: by hand (MD-M*) or from a machine (MD-S*)."""
        return DealMode.MANUAL if isinstance(self.deal, ManualDeal) else DealMode.SHUFFLER

    @property
    def player_acted(self) -> bool:
        """A player's decision is in for the round (a hold'em decision entered, a blackjack
        decision taken), the table's lower bound of "a player acted": the initial deal's
        misdeals no longer apply (MD-M2/M4/M6/M7), MD-X1 does."""
        return self.decided or any(d is not None for _, d in self.wagers.values())


# Digits of a round number another record may hold: beyond, it is not this table's numbering
MAX_ROUND_DIGITS = 12
UNJOINED_STORE = "a linked pool's store, not joined since the start (it may hold this number)"


class TableMachine:
    """One table's rounds. Feed it events with :meth:`handle`; carry out the effects."""

    def __init__(
        self,
        profile: Profile,
        settings: MachineSettings,
        *,
        next_round: int = 1,
        seats: SeatBoard | None = None,
        linked: bool = False,
    ) -> None:
        """``linked``: the table has a linked pool, whose store may hold the round after the
        ledger's last (a crash between the store's commit of an opening and the ledger's):
        until the store has said which round it holds last (:class:`RoundsRecorded`), a round
        locked skips that number."""
        if profile.game not in ("uth", "casino-holdem", "blackjack"):
            raise CroupierError(f"no table machine for game {profile.game!r}")
        self.profile = profile
        self.settings = settings
        self.state = TableState.CLOSED
        self.conditions: dict[Condition, str] = {Condition.STARTUP: "the table has not started yet"}
        self.seats: SeatBoard = seats if seats is not None else ReportedSeats()
        self.key_on = False  # the technician key switch
        self.declared: set[int] = set()
        self.entered: dict[int, tuple[dict[str, int], Any]] = {}
        self.pools: dict[str, tuple[int, int]] = {}  # pool -> (amount, seed)
        self.round: Round | None = None
        self.last_result: RoundResult | None = None
        self.next_round = next_round
        self._numbering_unsure = linked
        self._pending_settle = False
        # a blackjack shoe's cards left, for its cut card (controller.table.shoe)
        self.shoe = ShoeCount(settings.shoe_penetration) if profile.game == "blackjack" else None
        self._handlers: dict[type, Callable[[Any, float], list[Effect]]] = {
            Tick: self._on_tick,
            ConditionChanged: self._on_condition,
            StakeSensed: self._on_stake_sensed,
            SeatHealth: self._on_seat_health,
            TechnicianKeyTurned: self._on_key,
            DealerPressed: self._on_button,
            PacketDelivered: self._on_packet,
            ShufflerFault: self._on_shuffler_fault,
            ShoeShuffled: self._on_shoe_shuffled,
            LedgerResult: self._on_ledger_result,
            PoolAmount: self._on_pool_amount,
            RoundsRecorded: self._on_rounds_recorded,
            DeclareSeats: self._on_declare_seats,
            EnterWagers: self._on_enter_wagers,
            WithdrawWagers: self._on_withdraw_wagers,
            SeatDecision: self._on_seat_decision,
            EnterCards: self._on_enter_cards,
            DeclareMisdeal: self._on_declare_misdeal,
            CardsExposed: self._on_cards_exposed,
            JackpotAck: self._on_jackpot_ack,
        }

    # --- helpers ------------------------------------------------------------------------

    def _money(self, amount: int) -> str:
        """An amount as the dealer reads it in a refusal (``EUR 80.00``; the journal keeps
        the minor units)."""
        return money_writer(self.profile.money.currency)(amount)

    @property
    def pool_name(self) -> str | None:
        return self.profile.progressive.bet if self.profile.progressive else None

    @property
    def is_round_over(self) -> bool:
        """The round in play (if any) is settled, voided or won: its shuffler commands are no
        longer wanted."""
        return self.state in ROUND_OVER

    def _move(self, state: TableState, cause: str, **data: Any) -> AppendJournal:
        """The one place the state changes (checked against :data:`TRANSITIONS`)."""
        if state not in TRANSITIONS[self.state]:
            raise TransitionError(f"no move {self.state} -> {state} ({cause})")
        before, self.state = self.state, state
        entry = {"from": before.value, "to": state.value, "cause": cause, **data}
        if self.round is not None:
            entry.setdefault("round", self.round.round_id)
        return AppendJournal("transition", entry)

    def _take(self, what: object, kind: str, **data: Any) -> None:
        """Refuse an event (``what``: its class, or the button) that the state does not take:
        :class:`EventRefused` with the journal entry ``kind`` and ``data``."""
        if self.state not in TAKEN_IN[what]:
            raise EventRefused(kind, data)

    def _can_open(self) -> bool:
        return not (set(self.conditions) - PROGRESSIVE_ONLY - ADVISORY)

    def _dealing(self) -> bool:
        """Cards are still coming: the deal, or (shoe) the whole round until it is complete."""
        r = self.round
        return r is not None and (
            self.state == TableState.DEALING
            or (self.state == TableState.VERIFIED and not r.deal.needs_confirm)
        )

    def next_deadline(self) -> float | None:
        r = self.round
        if r is not None and self._dealing():
            return r.deal.next_deadline()
        if self.state == TableState.SETTLED and r and r.settled_at is not None:
            return r.settled_at + self.settings.settled_display
        return None

    # --- the event loop's entry point --------------------------------------------------

    def handle(self, event: Event, now: float) -> list[Effect]:
        """Apply one event; return the effects to carry out, in order. An event the state
        does not take is journaled as refused (:class:`EventRefused`)."""
        try:
            return self._handlers[type(event)](event, now)
        except EventRefused as refused:
            data = refused.data
            reason = str(data.get("reason", refused.kind))
            return [
                AppendJournal(refused.kind, data),  # the journal keeps minor units
                Refused(refused.kind, refused.shown or reason, data.get("rule")),
            ]

    def _on_tick(self, event: Tick, now: float) -> list[Effect]:
        if self.round is not None and self._dealing():
            return self._after_verdict(self.round.deal.poll(now), [], now)
        deadline = self.next_deadline()
        if self.state == TableState.SETTLED and deadline is not None and now >= deadline:
            return self._end_round("display time over", now)
        return []

    def _on_condition(self, event: ConditionChanged, now: float) -> list[Effect]:
        effects: list[Effect] = []
        name = event.name
        if event.blocking:
            if self.conditions.get(name) == event.detail:
                return []
            self.conditions[name] = event.detail
            effects.append(
                AppendJournal("condition", {"name": name, "blocking": True, "detail": event.detail})
            )
            closes = name not in PROGRESSIVE_ONLY and name not in ADVISORY
            if self.state == TableState.OPEN and closes:
                effects.append(self._move(TableState.CLOSED, f"{name}: {event.detail}"))
            elif self.round is not None and self._dealing() and name == Condition.LINK:
                verdict = self.round.deal.fault(f"link lost: {event.detail}", now)
                effects += self._after_verdict(verdict, [], now)
            return effects
        if self.conditions.pop(name, None) is None:
            return []
        effects.append(AppendJournal("condition", {"name": name, "blocking": False}))
        if self.state == TableState.CLOSED and self._can_open():
            effects.append(self._move(TableState.OPEN, "all conditions clear"))
        if name in (Condition.LEDGER, Condition.PROGRESSIVE_LINK) and self._pending_settle:
            effects += self._request_settlement()
        return effects

    def _on_stake_sensed(self, event: StakeSensed, now: float) -> list[Effect]:
        if not 1 <= event.seat <= self.profile.seats:
            return [AppendJournal("sensor-ignored", {"seat": event.seat, "reason": "no such seat"})]
        if not self.seats.stake_sensed(event.seat, event.present):
            return []
        data = {"seat": event.seat, "present": event.present, "state": self.state.value}
        if self.state not in (TableState.OPEN, TableState.CLOSED):
            data["note"] = "after LOCK: the round's stakes are frozen (PRG-2)"
        return [AppendJournal("stake", data)]

    def _on_seat_health(self, event: SeatHealth, now: float) -> list[Effect]:
        self.seats.health(event.seat, event.excluded, event.reason)
        return [
            AppendJournal(
                "seat-health",
                {"seat": event.seat, "excluded": event.excluded, "reason": event.reason},
            )
        ]

    def _on_key(self, event: TechnicianKeyTurned, now: float) -> list[Effect]:
        self.key_on = event.on
        return [AppendJournal("technician-key", {"on": event.on})]

    def _on_declare_seats(self, event: DeclareSeats, now: float) -> list[Effect]:
        bad = [s for s in event.seats if not 1 <= s <= self.profile.seats]
        if bad:
            why = f"no such seat {bad} (seats 1..{self.profile.seats})"
            raise EventRefused("declare-refused", {"seats": list(event.seats), "reason": why})
        why = f"bets are closed ({self.state.value})"
        self._take(DeclareSeats, "declare-refused", seats=list(event.seats), reason=why)
        self.declared = set(event.seats)
        return [AppendJournal("seats-declared", {"seats": sorted(self.declared)})]

    def _on_enter_wagers(self, event: EnterWagers, now: float) -> list[Effect]:
        closed = "the round is being settled (showdown)" if self.state == S.SHOWDOWN else ""
        why = f"seat {event.seat}: stakes and decisions are closed: {closed or 'round is over'}"
        self._take(EnterWagers, "wagers-refused", seat=event.seat, reason=why)
        stakes, decision = dict(event.stakes), event.decision
        if self.round is not None:
            stakes = self._after_lock(self.round, event.seat, stakes)
        elif self.profile.game == "blackjack" and "insurance" in stakes:
            self._refuse_wagers(event.seat, BJ_INSURANCE.format(seat=event.seat), "BJ-8")
        target = self.round.wagers if self.round else self.entered
        if self.round is not None and self.state == S.VERIFIED and self.profile.game == "uth":
            # entered as it happens (one entered with the stakes says what the player will do)
            self.round.river_decided |= uth_street(event.decision) == "river"
        if not stakes and event.seat in target:  # a decision alone keeps the stakes entered
            stakes = target[event.seat][0]
        if decision is None and event.seat in target:
            decision = target[event.seat][1]
        target[event.seat] = (stakes, decision)
        return [
            AppendJournal(
                "wagers",
                {"seat": event.seat, "stakes": dict(event.stakes), "decision": event.decision},
            )
        ]

    def _on_withdraw_wagers(self, event: WithdrawWagers, now: float) -> list[Effect]:
        """Before LOCK the entry for the next round goes; in a hold'em round the seat's table
        wagers entered for its settlement (its progressive stake, taken at LOCK, stays:
        PRG-2). A blackjack round's bets were taken at LOCK and stay (BJ-1, TRX-1): only a
        misdeal returns them."""
        seat, r = event.seat, self.round
        why = f"seat {event.seat}: stakes are closed: the round is over"
        self._take(WithdrawWagers, "wagers-refused", seat=seat, reason=why)
        if r is not None:
            self._refuse_seat_not_in(r, seat)
            if self.profile.game == "blackjack":
                reason = (
                    f"seat {seat}: the round took its bets at LOCK; they cannot be withdrawn"
                    " (BJ-1), only a misdeal returns them"
                )
                self._refuse_wagers(seat, reason, "BJ-1")
            if r.wagers.get(seat, ({}, None))[1] is not None:
                # the player acted: the round's misdeal rules follow from it (MD-M*, MD-X1)
                reason = (
                    f"seat {seat}: its decision is entered (the player acted); enter the"
                    " seat's stakes again instead (round stake replaces them)"
                )
                self._refuse_wagers(seat, reason, None)
            r.entered.pop(seat, None)  # a failed opening gives the entries back: not this one
        target = r.wagers if r is not None else self.entered
        if seat not in target:
            self._refuse_wagers(seat, f"seat {seat} has no stakes entered", None)
        del target[seat]
        return [AppendJournal("wagers-withdrawn", {"seat": seat})]

    @staticmethod
    def _refuse_wagers(seat: int, reason: str, rule: str | None) -> None:
        data: dict[str, Any] = {"seat": seat, "reason": reason}
        if rule:
            data["rule"] = rule
        raise EventRefused("wagers-refused", data)

    def _round_seats(self, r: Round) -> tuple[int, ...]:
        """The seats the round plays: those dealt (hold'em), those whose bets the shoe round
        took at LOCK (blackjack)."""
        if isinstance(r.deal, ShoeDeal):
            return tuple(sorted(r.deal.opening_stakes()))
        return r.seats

    def _refuse_seat_not_in(self, r: Round, seat: int) -> None:
        seats = self._round_seats(r)
        if seat not in seats:
            rule = GAME_WAGER_RULE.get(self.profile.game)
            reason = (
                f"seat {seat} is not in this round (seats {', '.join(map(str, seats))}):"
                f" a seat joins before LOCK ({rule})"
            )
            self._refuse_wagers(seat, reason, rule)

    def _after_lock(self, r: Round, seat: int, stakes: dict[str, int]) -> dict[str, int]:
        """An entry once LOCK has taken the round's stakes: refused (EventRefused) for a seat
        not in the round, a blackjack bet (BJ-1, TRX-1: the shoe round took them at LOCK;
        double and split come with the decisions) and a pool stake LOCK did not take as
        entered (PRG-2). The stakes to keep: a hold'em seat's table wagers, which may still be
        entered until the showdown (the settlement records them), without the pool stake,
        which is the one LOCK took (the ledger opened with it and never lets it change)."""
        self._refuse_seat_not_in(r, seat)
        if self.profile.game == "blackjack":
            if "insurance" in stakes:
                self._refuse_wagers(seat, BJ_INSURANCE.format(seat=seat), "BJ-8")
            placed = r.wagers.get(seat, ({}, None))[0]
            if stakes and stakes != placed:  # the bets placed, restated, are no change
                rule = "BJ-1" if stakes.get("main") != placed.get("main") else "TRX-1"
                reason = (
                    f"seat {seat}: bets cannot be placed or raised after LOCK, except double"
                    f" and split (round decide SEAT double|split) ({rule})"
                )
                self._refuse_wagers(seat, reason, rule)
        bet = self.pool_name
        if bet is None or bet not in stakes:
            return stakes
        taken = r.progressive.get(seat, 0)
        if stakes[bet] != taken:
            reason = (
                f"seat {seat}: {bet} {stakes[bet]} refused: the {bet} stake taken at LOCK is"
                f" {taken} and never changes during the round"
                if taken
                else f"seat {seat}: {bet} {stakes[bet]} refused: no {bet} stake was taken at"
                f" LOCK for this seat, and one is placed before the round starts"
            )
            self._refuse_wagers(seat, f"{reason} (PRG-2)", "PRG-2")
        return {name: amount for name, amount in stakes.items() if name != bet}

    def _on_pool_amount(self, event: PoolAmount, now: float) -> list[Effect]:
        self.pools[event.pool] = (event.amount, event.seed)
        return []

    def round_id(self, number: int) -> str:
        return f"{self.settings.table_id}-{number:06d}"

    def _on_rounds_recorded(self, event: RoundsRecorded, now: float) -> list[Effect]:
        """Number the next round after ``event.round_id`` when it is one of this table's
        and not below the next number already (journaled: the numbers skipped)."""
        self._numbering_unsure = False
        if event.round_id is None:
            return []
        prefix = f"{self.settings.table_id}-"
        number = event.round_id.removeprefix(prefix)
        if not event.round_id.startswith(prefix) or not (number.isascii() and number.isdigit()):
            return []
        if len(number) > MAX_ROUND_DIGITS or int(number) < self.next_round:
            return []
        return [self._skip_to(int(number) + 1, event.round_id, event.source)]

    def _skip_to(self, number: int, last_taken: str, held_by: str) -> AppendJournal:
        skipped = self.round_id(self.next_round)
        self.next_round = number
        data = {"from": skipped, "to": last_taken, "next": self.round_id(number)}
        return AppendJournal("round.ids-skipped", {**data, "held_by": held_by})

    # --- LOCK, deal, verdicts ----------------------------------------------------------

    def seats_in_play(self) -> tuple[int, ...]:
        return tuple(sorted(self.seats.with_stake() | self.declared | set(self.entered)))

    def _on_button(self, event: DealerPressed, now: float) -> list[Effect]:
        if event.button is Button.LOCK:
            return self._lock(now)
        return self._confirm(now)

    def _lock(self, now: float) -> list[Effect]:
        self._take(
            Button.LOCK,
            "lock-ignored",
            state=self.state.value,
            reason=f"LOCK only closes bets of an open table (the table is {self.state.value})",
        )
        seats = self.seats_in_play()
        if not seats:
            reason = "no seat in play (no stake sensed, no seat declared, no wager entered)"
            raise EventRefused("lock-ignored", {"reason": reason})
        progressive: dict[int, int] = {}
        notes: dict[str, str] = {}
        excluded_now = self.seats.excluded()
        if Condition.PROGRESSIVE_LINK in self.conditions:
            # a linked pool is unreachable: its stakes are not taken, the other bets play
            notes["progressive_closed"] = self.conditions[Condition.PROGRESSIVE_LINK]
        elif self.profile.progressive:
            stake = self.profile.progressive.stake
            progressive = {
                s: stake for s in sorted(self.seats.with_stake()) if s not in excluded_now
            }
        why_not = self._why_not_taken(notes.get("progressive_closed"), excluded_now)
        wagers, not_taken, refused = self._pool_stakes_out(progressive, why_not)
        try:
            if self.profile.game == "blackjack":
                deal: Deal = ShoeDeal(
                    self.profile, wagers, now, self.settings.packet_timeout, self.settings.limits
                )
            elif self.profile.deal == "manual":
                deal = ManualDeal(self.profile, seats, now)
            else:
                deal = HandFormingDeal(self.profile, seats, now, self.settings.packet_timeout)
        except RoundError as exc:
            data = {"reason": str(exc), "rule": exc.rule}
            raise EventRefused("lock-ignored", data, exc.shown(self._money)) from None
        unsure: list[Effect] = []
        if self._numbering_unsure:  # locked before the linked store said what it holds
            self._numbering_unsure = False
            held = self.round_id(self.next_round)
            unsure.append(self._skip_to(self.next_round + 1, held, UNJOINED_STORE))
        round_id = self.round_id(self.next_round)
        self.next_round += 1
        self.round = Round(round_id, seats, progressive, wagers, deal, self.entered)
        self.round.not_taken = refused
        self.entered = {}
        sensed = self.seats.with_stake()
        excluded = {s: why for s, why in excluded_now.items() if s in sensed}
        move = self._move(
            TableState.LOCKED,
            "dealer LOCK",
            seats=list(seats),
            progressive=progressive,
            excluded=excluded,
            **notes,
        )
        # a shoe's bets are the engine's from LOCK on; hold'em table wagers may still be
        # entered until the showdown, so the settlement records them
        taken = deal.opening_stakes() if isinstance(deal, ShoeDeal) else {}
        opened = OpenRound(round_id, self.pool_name, progressive, taken)
        return [*unsure, move, *not_taken, LockSeats(), opened]

    def _why_not_taken(
        self, closed: str | None, excluded: Mapping[int, str]
    ) -> Callable[[int, int], str]:
        """Why LOCK took ``taken`` of a seat's entered pool stake, as the dealer reads it."""

        def why(seat: int, taken: int) -> str:
            if closed is not None:
                return f"the linked pool is unreachable: {closed}"
            if seat in excluded:
                return f"the seat is excluded: {excluded[seat]}"
            if taken == 0:
                return "no stake on the seat's sensor at LOCK: the sensor places it"
            return f"LOCK takes the fixed stake on the sensor, {self._money(taken)}"

        return why

    def _pool_stakes_out(
        self, progressive: dict[int, int], why_not: Callable[[int, int], str]
    ) -> tuple[
        dict[int, tuple[dict[str, int], Any]],
        list[Effect],
        list[tuple[int, str, int, int, str]],
    ]:
        """The round's entered wagers without their pool stakes: the round's pool stakes are
        those LOCK takes (``progressive``: sensed, not excluded, the pool reachable), the
        ones the ledger opens with (PRG-2). An entered pool stake LOCK does not take as
        entered is journaled (``stake-not-taken``) and never settled; it is listed too
        (seat, wager, entered, taken, ``why_not``) for the dealer who pressed LOCK."""
        bet = self.pool_name
        wagers: dict[int, tuple[dict[str, int], Any]] = {}
        notes: list[Effect] = []
        refused: list[tuple[int, str, int, int, str]] = []
        for seat, (stakes, decision) in self.entered.items():
            if bet is not None and bet in stakes:
                taken = progressive.get(seat, 0)
                if stakes[bet] != taken:
                    data = {"seat": seat, "wager": bet, "entered": stakes[bet], "taken": taken}
                    notes.append(AppendJournal("stake-not-taken", {**data, "rule": "PRG-2"}))
                    refused.append((seat, bet, stakes[bet], taken, why_not(seat, taken)))
                stakes = {name: amount for name, amount in stakes.items() if name != bet}
            wagers[seat] = (stakes, decision)
        return wagers, notes, refused

    def seat_stakes(self, seat: int) -> tuple[dict[str, int], Any]:
        """A seat's stakes and decision as they stand (entered before LOCK; once LOCK took
        the round's, its table wagers with the pool stake LOCK took)."""
        r = self.round
        if r is None:
            stakes, decision = self.entered.get(seat, ({}, None))
            return dict(stakes), decision
        stakes, decision = r.wagers.get(seat, ({}, None))
        shown = dict(stakes)
        if self.pool_name is not None and seat in r.progressive:
            shown[self.pool_name] = r.progressive[seat]
        return shown, decision

    def lock_notes(self) -> list[str]:
        """What the LOCK that opened the round in play did not take as entered, one line a
        stake, as money with the rule (``seat 2: progressive EUR 1.00 not taken (no stake on
        the seat's sensor at LOCK: the sensor places it) (PRG-2)``); empty without a round."""
        r = self.round
        if r is None:
            return []
        lines = []
        for seat, wager, entered, taken, why in r.not_taken:
            kept = f", {self._money(taken)} taken" if taken else ""
            lines.append(
                f"seat {seat}: {wager} {self._money(entered)} not taken{kept} ({why}) (PRG-2)"
            )
        return lines

    def _on_ledger_result(self, event: LedgerResult, now: float) -> list[Effect]:
        r = self.round
        if r is None or event.round_id != r.round_id:
            return [AppendJournal("ledger-result-ignored", {"round": event.round_id})]
        if not event.ok:
            return self._ledger_failed(event, now)
        if event.action is LedgerAction.OPEN and self.state == TableState.LOCKED:
            move = self._move(
                TableState.DEALING, "round opened in the ledger", plan=r.deal.plan_text()
            )
            effects = [move, *r.deal.start(now)]
            held, r.held = r.held, []
            for n, packet in enumerate(held):  # the cards drawn meanwhile, first of the deal
                if not self._dealing():  # an earlier one ended the round (MD-S1)
                    effects.append(self._unexpected(held[n:], "held for a round that ended"))
                    break
                effects += self._after_verdict(*r.deal.packet(packet, now), now)
            if r.held_fault is not None and self._dealing():  # the shoe failed meanwhile
                effects += self._after_verdict(r.deal.fault(r.held_fault, now), [], now)
            return effects
        if event.action is LedgerAction.VOID and self.state == TableState.VOID:
            return [AppendJournal("round-voided", {"round": r.round_id})]
        if event.action is LedgerAction.SETTLE and self.state == TableState.SHOWDOWN:
            self._pending_settle = False
            r.settled_at = now
            self.last_result = r.result
            winners = self._jackpot_seats(r.result) if r.result else []
            if winners:  # a 100% award locks the table until a technician acknowledges
                move = self._move(TableState.JACKPOT, "jackpot awarded", seats=winners)
                return [move, ShowWinners(tuple(winners))]
            return [self._move(TableState.SETTLED, "round settled in the ledger")]
        return [
            AppendJournal(
                "ledger-result-ignored", {"round": event.round_id, "action": event.action}
            )
        ]

    @staticmethod
    def _jackpot_seats(result: RoundResult) -> list[int]:
        return sorted({s for p in result.pools.values() for s in p.get("jackpot_seats", [])})

    def _ledger_failed(self, event: LedgerResult, now: float) -> list[Effect]:
        effects: list[Effect] = [
            AppendJournal(
                "ledger-failed",
                {"action": event.action, "error": event.error, "condition": event.condition},
            )
        ]
        self.conditions[event.condition] = event.error
        if event.action is LedgerAction.OPEN:  # nothing was taken: the round never existed
            if self.round is not None:  # what the dealer entered waits for the next LOCK
                self.entered = self._entered_again(self.round)
                if self.round.held:  # drawn for it: the dealer takes them back
                    why = "drawn for a round that never opened"
                    effects.append(self._unexpected(self.round.held, why))
            self.round = None
            target = TableState.OPEN if self._can_open() else TableState.CLOSED
            # a linked pool that went down at LOCK: bets stay open, LOCK again takes no
            # linked stakes; the ledger failing closes the table
            effects.append(self._move(target, f"{event.condition} failed: {event.error}"))
            effects.append(EndSeatRound(void=False))
        elif event.action is LedgerAction.SETTLE:
            self._pending_settle = True  # retried when the condition clears
        return effects

    def _unexpected(self, held: list[Packet], why: str) -> AppendJournal:
        """The journal's word for held shoe cards no round took (MD-S1)."""
        r = self.round
        count = sum(p.count for p in held)
        where = {"round": r.round_id if r else None, "state": self.state.value, "count": count}
        return AppendJournal("packet-unexpected", {**where, "rule": "MD-S1", "why": why})

    def _entered_again(self, r: Round) -> dict[int, tuple[dict[str, int], Any]]:
        """A round that never opened gives back what was entered for it: the wagers entered
        before LOCK with their pool stakes, and what the dealer entered while the opening was
        pending (taken into the round's wagers, answered "entered")."""
        bet = self.pool_name
        entered = dict(r.entered)
        for seat, (stakes, decision) in r.wagers.items():
            before = r.entered.get(seat, ({}, None))[0]
            pool = {bet: before[bet]} if bet is not None and bet in before else {}
            entered[seat] = ({**stakes, **pool}, decision)
        return entered

    def _on_packet(self, event: PacketDelivered, now: float) -> list[Effect]:
        if self.shoe is not None:  # a blackjack table's cards all come from its shoe
            self.shoe.dealt(event.packet.count)  # whatever the round makes of it, it left
        r = self.round
        if event.round_id is not None and (r is None or event.round_id != r.round_id):
            # the answer to a request of a round that is over (a slow link): not this deal
            return [
                AppendJournal(
                    "packet-stale",
                    {"round": event.round_id, "destination": event.packet.destination},
                )
            ]
        if r is not None and self.state == TableState.LOCKED and isinstance(r.deal, ShoeDeal):
            # the dealer drew before the ledger answered LOCK: the round's first card(s)
            r.held.append(event.packet)
            held = {"destination": event.packet.destination, "count": event.packet.count}
            until = {"round": r.round_id, "until": "the round opens"}
            return [AppendJournal("packet-held", {**held, **until})]
        if r is None or not self._dealing():
            return [
                AppendJournal(
                    "packet-unexpected",
                    {
                        "state": self.state.value,
                        "destination": event.packet.destination,
                        "count": event.packet.count,
                        "rule": "MD-S1",
                    },
                )
            ]
        verdict, requests = r.deal.packet(event.packet, now)
        return self._after_verdict(verdict, requests, now)

    def _on_seat_decision(self, event: SeatDecision, now: float) -> list[Effect]:
        r = self.round
        refusal = {"seat": event.seat, "action": event.action}
        if r is None or not (self._dealing() and isinstance(r.deal, ShoeDeal)):
            raise EventRefused("decision-refused", {**refusal, "reason": "no decision is awaited"})
        if event.seat not in (seats := self._round_seats(r)):
            reason = f"seat {event.seat} is not in this round (seats {', '.join(map(str, seats))})"
            raise EventRefused("decision-refused", {**refusal, "reason": reason, "rule": "BJ-1"})
        try:
            r.deal.decide(event.seat, event.action, event.amount)
        except RoundError as exc:
            raise EventRefused(
                "decision-refused",
                {**refusal, "reason": str(exc), "rule": exc.rule},
                exc.shown(self._money),
            ) from None
        r.decided = True
        effects: list[Effect] = [
            AppendJournal(
                "decision", {"seat": event.seat, "action": event.action, "amount": event.amount}
            )
        ]
        return effects + self._maybe_complete(now)

    def _on_enter_cards(self, event: EnterCards, now: float) -> list[Effect]:
        r = self.round
        refusal = {"destination": event.destination, "reason": "no manually dealt round in play"}
        if r is None or not isinstance(r.deal, ManualDeal):
            raise EventRefused("cards-refused", refusal)
        self._take(EnterCards, "cards-refused", **refusal)
        try:
            r.deal.enter_cards(event.destination, event.cards)
        except RoundError as exc:
            raise EventRefused(
                "cards-refused",
                {"destination": event.destination, "reason": str(exc), "rule": exc.rule},
            ) from None
        return [
            AppendJournal(
                "cards-entered", {"destination": event.destination, "count": len(event.cards)}
            )
        ]

    def _on_declare_misdeal(self, event: DeclareMisdeal, now: float) -> list[Effect]:
        """A misdeal the dealer declares: taken only with a rule of the round's deal mode, and
        a rule of the initial deal only before any player acted (RULES.md section 6)."""
        r = self.round
        refusal = {"rule": event.rule, "reason": "no deal in progress"}
        if r is None:
            raise EventRefused("misdeal-refused", refusal)
        self._take(DeclareMisdeal, "misdeal-refused", **refusal)
        why = declaration_refusal(
            event.rule, r.mode, player_acted=r.player_acted, game=self.profile.game
        )
        if why is not None:
            raise EventRefused("misdeal-refused", {"rule": event.rule, "reason": why})
        reason = f"declared by the dealer: {event.reason}"
        verdict = Verdict(VerdictStatus.MISDEAL, event.rule, reason, detail=rule_text(event.rule))
        return self._after_verdict(verdict, [], now)

    def _on_cards_exposed(self, event: CardsExposed, now: float) -> list[Effect]:
        """MD-X1, MD-X2, MD-X3: the exposed cards go back into the remaining cards and are
        replaced (with a shuffler: back to DEALING for the replacement packet)."""
        procedure, deal = self._exposure_taken(event)
        positions = procedure.replaced(event.positions)
        try:
            effects = deal.replace_exposed(event.destination, positions, procedure.rule, now)
        except RoundError as exc:
            raise self._exposure_refused(event, str(exc), exc.rule) from None
        where = {"destination": event.destination, "positions": list(positions)}
        if positions != event.positions:  # MD-X1 "both": the exposed ones among them
            where["exposed"] = list(event.positions)
        if isinstance(deal, ManualDeal):  # the dealer enters the new cards
            note = f"{event.destination} cards exposed: replaced by hand, enter them again"
            return [AppendJournal("cards-exposed", {**where, "rule": procedure.rule, "note": note})]
        move = self._move(TableState.DEALING, procedure.cause, rule=procedure.rule, **where)
        return [move, *effects]

    def _exposure_taken(
        self, event: CardsExposed
    ) -> tuple[ExposureProcedure, HandFormingDeal | ManualDeal]:
        """The profile's procedure for ``event`` and the deal it applies to; EventRefused
        when the profile has none, out of turn, for positions the place does not hold, and
        for MD-X1 before a player acted (with the misdeal to declare instead)."""
        procedure = exposure_procedure(self.profile, event.destination)
        if procedure is None:
            why, rule = no_procedure(self.profile, event.destination)
            raise self._exposure_refused(event, why, rule)
        r = self.round
        kind = "hand-forming" if procedure.shuffler_only else "hand-forming or manual"
        too_early = f"only after a verified {kind} deal, before the showdown ({self.state})"
        deal = None if r is None else r.deal
        if (
            r is None
            or not isinstance(deal, HandFormingDeal | ManualDeal)
            or (procedure.shuffler_only and isinstance(deal, ManualDeal))
            or self.state not in TAKEN_IN[CardsExposed]
        ):
            raise self._exposure_refused(event, too_early, procedure.rule)
        try:
            held = HELD[event.destination]
            check_positions(event.destination, event.positions, held, procedure.rule)
        except RoundError as exc:
            raise self._exposure_refused(event, str(exc), exc.rule) from None
        if procedure.after_first_action and not r.player_acted:
            manual = isinstance(deal, ManualDeal)
            exposed = 0
            if isinstance(deal, HandFormingDeal):  # the dealer's report of one the machine
                # delivered face up is the same card (MD-S3 counts it once)
                already = deal.face_up_at(event.destination, event.positions)
                exposed = procedure.counted(deal.validator.exposed - already)
            why = before_first_action(len(event.positions), manual=manual, machine_exposed=exposed)
            raise self._exposure_refused(event, why, procedure.rule)
        if procedure.before_river and r.river_decided:
            raise self._exposure_refused(event, river_shown(procedure.rule), procedure.rule)
        return procedure, deal

    @staticmethod
    def _exposure_refused(event: CardsExposed, reason: str, rule: str | None) -> EventRefused:
        data = {"destination": event.destination, "positions": list(event.positions)}
        return EventRefused("exposure-refused", {**data, "reason": reason, "rule": rule})

    def _on_shuffler_fault(self, event: ShufflerFault, now: float) -> list[Effect]:
        effects: list[Effect] = [
            AppendJournal("shuffler-fault", {"description": event.description})
        ]
        r = self.round
        if r is not None and self._dealing():
            effects += self._after_verdict(r.deal.fault(event.description, now), [], now)
        elif r is not None and r.held and self.state == TableState.LOCKED:
            r.held_fault = event.description  # the round's cards were coming: MD-S2 at OPEN
        return effects

    def _on_shoe_shuffled(self, event: ShoeShuffled, now: float) -> list[Effect]:
        if self.shoe is None:
            return [AppendJournal("shoe-shuffled", {"cards": event.cards, "ignored": "no shoe"})]
        self.shoe.shuffled(event.cards)
        effects: list[Effect] = [AppendJournal("shoe-shuffled", {"cards": event.cards})]
        return effects + self._on_condition(ConditionChanged(Condition.SHOE, False), now)

    def _after_verdict(self, verdict: Verdict, requests: list[Effect], now: float) -> list[Effect]:
        r = self.round
        assert r is not None
        effects: list[Effect] = [AppendJournal("exposure", {"note": n}) for n in verdict.notes]
        if verdict.status == VerdictStatus.MISDEAL:
            if r.verdict is not None and r.verdict.status == VerdictStatus.MISDEAL:
                return effects
            r.verdict = verdict
            effects.append(
                self._move(
                    TableState.VOID, verdict.reason, rule=verdict.rule, detail=verdict.detail
                )
            )
            rule = verdict.rule or "MD-S2"
            effects.append(VoidRound(r.round_id, rule, verdict.reason, self._stakes_now(r)))
            if verdict.rule == "MD-S1" or verdict.deck_error:
                # a wrong count takes the deck out of play until the dealer confirms a
                # replacement (shuffler trust)
                self.conditions[Condition.DECK] = "deck out of play after " + (verdict.rule or "")
            return effects
        if verdict.status == VerdictStatus.VERIFIED and self.state == TableState.DEALING:
            r.verdict = verdict
            effects.append(self._move(TableState.VERIFIED, "card count verified"))
        return effects + requests + self._maybe_complete(now)

    def _stakes_now(self, r: Round) -> dict[int, dict[str, int]]:
        """Every stake the round holds now, as its settlement would record them: the pool
        stakes LOCK took, a shoe round's bets as played so far, a hold'em seat's wagers and
        the Play or Call its decision placed. What a void returns (MD)."""
        if isinstance(r.deal, ShoeDeal):
            every = r.deal.stakes_now()
        else:
            limits = self.settings.limits
            every = {
                seat: stakes_before_showdown(self.profile, limits, seat, stakes, decision)
                for seat, (stakes, decision) in r.wagers.items()
            }
        if self.pool_name is not None:
            for seat, stake in r.progressive.items():
                every.setdefault(seat, {})[self.pool_name] = stake
        return {seat: wagers for seat, wagers in every.items() if wagers}

    def _maybe_complete(self, now: float) -> list[Effect]:
        """A shoe round goes to the showdown by itself once the engine has every card."""
        r = self.round
        if (
            self.state == TableState.VERIFIED
            and r
            and r.deal.is_complete
            and not r.deal.needs_confirm
        ):
            try:
                return self._showdown(now)
            except EventRefused as waiting:  # no press to answer: journaled only
                return [AppendJournal(waiting.kind, waiting.data)]
        return []

    # --- CONFIRM: showdown, and closing the round --------------------------------------

    def _confirm(self, now: float) -> list[Effect]:
        r = self.round
        excluded = sorted(self.seats.excluded())
        if self.key_on and excluded:
            # CONFIRM with the technician key on clears the excluded seats (docs/tableio.md);
            # it is not the dealer's CONFIRM
            data = {"seats": excluded, "by": "technician key"}
            return [AppendJournal("seats-cleared", data), ClearSeats(tuple(excluded))]
        nothing = f"CONFIRM has nothing to confirm while the table is {self.state.value}"
        self._take(Button.CONFIRM, "confirm-ignored", state=self.state.value, reason=nothing)
        if self.state == TableState.DEALING:
            if r is None or not isinstance(r.deal, ManualDeal):
                reason = "the shuffler is still dealing: CONFIRM waits for its cards"
                raise EventRefused("confirm-ignored", {"state": self.state.value, "reason": reason})
            r.verdict = r.deal.confirm_dealt()
            return [self._move(TableState.VERIFIED, "the dealer confirmed the manual deal")]
        if self.state == TableState.VERIFIED:
            return self._showdown(now)
        effects: list[Effect] = []
        if Condition.DECK in self.conditions:
            # the dealer confirms a replacement deck: the shuffler counts it before the
            # table may open again (the daemon answers with ConditionChanged(DECK))
            effects += [AppendJournal("deck-replaced", {"by": "dealer CONFIRM"}), CheckDeck()]
        return effects + self._end_round("dealer CONFIRM", now)

    def _showdown(self, now: float) -> list[Effect]:
        """Settle the round; :class:`EventRefused` while it cannot be settled yet (cards to
        enter, hands still being played, wagers the engine refuses), which the dealer's
        CONFIRM is answered with."""
        r = self.round
        assert r is not None
        if r.deal.unrecognised():
            reason = (
                "cards still to be entered (croupier round cards)"
                if isinstance(r.deal, ManualDeal)
                else "cards not recognised by the shuffler; enter the round for settlement"
            )
            raise EventRefused("showdown-waiting", {"reason": reason})
        if not r.deal.is_complete:
            raise EventRefused("confirm-ignored", {"reason": "the round is still being played"})
        try:
            r.record = r.deal.record(
                RoundStakes(
                    r.progressive, self.pool_name, self.pools, r.wagers, self.settings.limits
                )
            )
            # the live pool as the books hold it: below its seed after a technician's
            # correction, a raised seed or a void after a linked reset (docs/settle.md)
            r.result = settle(self.profile, r.record, table_record=True)
        except RoundError as exc:  # e.g. entered wagers the engine refuses
            data = {"reason": str(exc), "rule": exc.rule}
            raise EventRefused("settlement-refused", data, exc.shown(self._money)) from None
        cause = "dealer CONFIRM" if r.deal.needs_confirm else "every hand played out"
        move = self._move(TableState.SHOWDOWN, cause)
        self._pending_settle = True
        return [move, *self._request_settlement()]

    def _request_settlement(self) -> list[Effect]:
        r = self.round
        if r is None or r.result is None:
            return []
        return [SettleRound(r.round_id, r.result)]

    def _end_round(self, cause: str, now: float) -> list[Effect]:
        finished = self.round
        void = self.state == TableState.VOID
        reshuffle = self._shoe_at_cut(now)
        target = TableState.OPEN if self._can_open() else TableState.CLOSED
        move = self._move(target, cause)
        self.round = None
        self.declared = set()
        ended = AppendJournal("round-ended", {"round": finished.round_id if finished else None})
        return [*reshuffle, move, ended, EndSeatRound(void=void)]

    def _shoe_at_cut(self, now: float) -> list[Effect]:
        """A shoe dealt past its cut card is shuffled before the next round, the table closed
        meanwhile (the ``shoe`` condition; :class:`ShoeShuffled` clears it)."""
        shoe = self.shoe
        if shoe is None or not shoe.past_cut() or Condition.SHOE in self.conditions:
            return []
        closed = self._on_condition(ConditionChanged(Condition.SHOE, True, shoe.describe()), now)
        return [*closed, ShuffleDeck()]

    def _on_jackpot_ack(self, event: JackpotAck, now: float) -> list[Effect]:
        self._take(JackpotAck, "jackpot-ack-ignored", state=self.state.value)
        effects: list[Effect] = [
            AppendJournal("jackpot-acknowledged", {"technician": event.technician})
        ]
        return effects + self._end_round("jackpot acknowledged", now)

    # --- what others may see -----------------------------------------------------------

    def view(self) -> dict[str, Any]:
        """Status for lamps, sign, CLI and other systems: no live card identities."""
        r = self.round
        sensed, excluded = self.seats.with_stake(), self.seats.excluded()
        playing = set(self.seats_in_play())  # once, not once a seat (a status poll's cost)
        return {
            "state": self.state.value,
            "round": r.round_id if r else None,
            "conditions": dict(self.conditions),
            "seats": {
                s: {
                    "stake": s in sensed,
                    "excluded": excluded.get(s),
                    "locked": bool(r and s in r.progressive),
                    "in_play": bool(r and s in r.seats) or s in playing,
                }
                for s in range(1, self.profile.seats + 1)
            },
            "verdict": (
                {
                    "status": r.verdict.status.value,
                    "rule": r.verdict.rule,
                    "reason": r.verdict.reason,
                }
                if r and r.verdict
                else None
            ),
            "pools": {name: amount for name, (amount, _seed) in self.pools.items()},
        } | ({"shoe": self.shoe.to_json()} if self.shoe is not None else {})
