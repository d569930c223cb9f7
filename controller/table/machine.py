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

MD-X3 (a profile with ``dealer_exposure = "reinsert"``, Italian): dealer cards exposed after
the deal (VERIFIED, before the showdown) go back into the shuffler, VERIFIED -> DEALING until
the replacement packet is in and counted, then VERIFIED again.

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

Every transition is journaled with its cause and, where a rule decided it, the rule ID.
Card identities appear only in the settlement record, never in status views (see
:meth:`TableMachine.view`).

The machine never reads a clock: every call takes ``now`` and :meth:`next_deadline` says when
the daemon must send the next :class:`Tick`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from controller.engine.deal.validator import MISDEAL, VERIFIED, Verdict
from controller.engine.games import settle
from controller.engine.games.results import RoundResult
from controller.engine.profiles import Profile
from controller.engine.wagers import Limit
from controller.errors import CroupierError, RoundError
from controller.table.deals import HandFormingDeal, ManualDeal, RoundStakes, ShoeDeal
from controller.table.events import (
    ButtonPressed,
    CheckDeck,
    ConditionChanged,
    DealerCardsExposed,
    DeclareMisdeal,
    DeclareSeats,
    Effect,
    EnterCards,
    EnterWagers,
    Event,
    JackpotAck,
    Journal,
    LedgerResult,
    OpenRound,
    PacketDelivered,
    PoolAmount,
    SeatDecision,
    SeatHealth,
    SettleRound,
    ShufflerFault,
    StakeSensed,
    Tick,
    VoidRound,
)

Deal = HandFormingDeal | ShoeDeal | ManualDeal
# Conditions that close only the progressive (its stakes are not taken), not the table.
PROGRESSIVE_ONLY = {"progressive-link"}
MISDEAL_RULES = re.compile(r"^MD-(S[1-3]|M[1-7])$")


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


@dataclass(frozen=True)
class MachineSettings:
    table_id: str
    packet_timeout: float = 10.0  # seconds without a packet during a deal: MD-S2
    settled_display: float = 15.0  # seconds SETTLED stays before the table reopens
    limits: Mapping[str, Limit] = field(default_factory=dict)  # the table's [limits]


@dataclass
class Round:
    round_id: str
    seats: tuple[int, ...]  # seats dealt, ascending
    progressive: dict[int, int]  # seat -> progressive stake (frozen at LOCK)
    wagers: dict[int, tuple[dict[str, int], Any]]
    deal: Deal
    verdict: Verdict | None = None
    record: dict[str, Any] | None = None  # the round as `croupier settle` reads it
    result: RoundResult | None = None
    settled_at: float | None = None


class TableMachine:
    """One table's rounds. Feed it events with :meth:`handle`; carry out the effects."""

    def __init__(self, profile: Profile, settings: MachineSettings, *, next_round: int = 1) -> None:
        if profile.game not in ("uth", "casino-holdem", "blackjack"):
            raise CroupierError(f"no table machine for game {profile.game!r}")
        self.profile = profile
        self.settings = settings
        self.state = TableState.CLOSED
        self.conditions: dict[str, str] = {"startup": "the table has not started yet"}
        self.sensed: set[int] = set()
        self.excluded: dict[int, str] = {}
        self.declared: set[int] = set()
        self.entered: dict[int, tuple[dict[str, int], Any]] = {}
        self.pools: dict[str, tuple[int, int]] = {}  # pool -> (amount, seed)
        self.round: Round | None = None
        self.last_result: RoundResult | None = None
        self.next_round = next_round
        self._pending_settle = False

    # --- helpers ------------------------------------------------------------------------

    @property
    def pool_name(self) -> str | None:
        return self.profile.progressive.bet if self.profile.progressive else None

    def _move(self, state: TableState, cause: str, **data: Any) -> Journal:
        before, self.state = self.state, state
        entry = {"from": before.value, "to": state.value, "cause": cause, **data}
        if self.round is not None:
            entry.setdefault("round", self.round.round_id)
        return Journal("transition", entry)

    def _can_open(self) -> bool:
        return not (set(self.conditions) - PROGRESSIVE_ONLY)

    def _dealing(self) -> bool:
        """Cards are still coming: the deal, or (shoe) the whole round until it is complete."""
        r = self.round
        return r is not None and (
            self.state == TableState.DEALING
            or (self.state == TableState.VERIFIED and not r.deal.needs_confirm)
        )

    def next_deadline(self) -> float | None:
        r = self.round
        if self._dealing():
            return r.deal.next_deadline()
        if self.state == TableState.SETTLED and r and r.settled_at is not None:
            return r.settled_at + self.settings.settled_display
        return None

    # --- the event loop's entry point --------------------------------------------------

    def handle(self, event: Event, now: float) -> list[Effect]:
        """Apply one event; return the effects to carry out, in order."""
        handler = getattr(self, f"_on_{type(event).__name__}")
        return handler(event, now)

    def _on_Tick(self, event: Tick, now: float) -> list[Effect]:
        if self._dealing():
            return self._after_verdict(self.round.deal.poll(now), [], now)
        deadline = self.next_deadline()
        if self.state == TableState.SETTLED and deadline is not None and now >= deadline:
            return self._end_round("display time over", now)
        return []

    def _on_ConditionChanged(self, event: ConditionChanged, now: float) -> list[Effect]:
        effects: list[Effect] = []
        if event.blocking:
            if self.conditions.get(event.name) == event.detail:
                return []
            self.conditions[event.name] = event.detail
            effects.append(
                Journal("condition", {"name": event.name, "blocking": True, "detail": event.detail})
            )
            if self.state == TableState.OPEN and event.name not in PROGRESSIVE_ONLY:
                effects.append(self._move(TableState.CLOSED, f"{event.name}: {event.detail}"))
            elif self._dealing() and event.name == "link":
                verdict = self.round.deal.fault(f"link lost: {event.detail}", now)
                effects += self._after_verdict(verdict, [], now)
            return effects
        if self.conditions.pop(event.name, None) is None:
            return []
        effects.append(Journal("condition", {"name": event.name, "blocking": False}))
        if self.state == TableState.CLOSED and self._can_open():
            effects.append(self._move(TableState.OPEN, "all conditions clear"))
        if event.name in ("ledger", "progressive-link") and self._pending_settle:
            effects += self._request_settlement()
        return effects

    def _on_StakeSensed(self, event: StakeSensed, now: float) -> list[Effect]:
        if not 1 <= event.seat <= self.profile.seats:
            return [Journal("sensor-ignored", {"seat": event.seat, "reason": "no such seat"})]
        was = event.seat in self.sensed
        if event.present:
            self.sensed.add(event.seat)
        else:
            self.sensed.discard(event.seat)
        if was == event.present:
            return []
        data = {"seat": event.seat, "present": event.present, "state": self.state.value}
        if self.state not in (TableState.OPEN, TableState.CLOSED):
            data["note"] = "after LOCK: the round's stakes are frozen (PRG-2)"
        return [Journal("stake", data)]

    def _on_SeatHealth(self, event: SeatHealth, now: float) -> list[Effect]:
        if event.excluded:
            self.excluded[event.seat] = event.reason
        else:
            self.excluded.pop(event.seat, None)
        return [
            Journal(
                "seat-health",
                {"seat": event.seat, "excluded": event.excluded, "reason": event.reason},
            )
        ]

    def _on_DeclareSeats(self, event: DeclareSeats, now: float) -> list[Effect]:
        bad = [s for s in event.seats if not 1 <= s <= self.profile.seats]
        if bad or self.state not in (TableState.OPEN, TableState.CLOSED):
            why = f"no such seat {bad}" if bad else f"bets are closed ({self.state.value})"
            return [Journal("declare-refused", {"seats": list(event.seats), "reason": why})]
        self.declared = set(event.seats)
        return [Journal("seats-declared", {"seats": sorted(self.declared)})]

    def _on_EnterWagers(self, event: EnterWagers, now: float) -> list[Effect]:
        if self.state in (TableState.SETTLED, TableState.VOID, TableState.JACKPOT):
            return [Journal("wagers-refused", {"seat": event.seat, "reason": "round is over"})]
        target = self.round.wagers if self.round else self.entered
        stakes, decision = dict(event.stakes), event.decision
        if not stakes and event.seat in target:  # a decision alone keeps the stakes entered
            stakes = target[event.seat][0]
        if decision is None and event.seat in target:
            decision = target[event.seat][1]
        target[event.seat] = (stakes, decision)
        return [
            Journal(
                "wagers",
                {"seat": event.seat, "stakes": dict(event.stakes), "decision": event.decision},
            )
        ]

    def _on_PoolAmount(self, event: PoolAmount, now: float) -> list[Effect]:
        self.pools[event.pool] = (event.amount, event.seed)
        return []

    # --- LOCK, deal, verdicts ----------------------------------------------------------

    def seats_in_play(self) -> tuple[int, ...]:
        return tuple(sorted(self.sensed | self.declared | set(self.entered)))

    def _on_ButtonPressed(self, event: ButtonPressed, now: float) -> list[Effect]:
        if event.button == "lock":
            return self._lock(now)
        if event.button == "confirm":
            return self._confirm(now)
        return [Journal("button-ignored", {"button": event.button})]

    def _lock(self, now: float) -> list[Effect]:
        if self.state != TableState.OPEN:
            return [
                Journal(
                    "lock-ignored",
                    {"state": self.state.value, "reason": "LOCK only closes bets of an open table"},
                )
            ]
        seats = self.seats_in_play()
        if not seats:
            return [Journal("lock-ignored", {"reason": "no seat in play"})]
        progressive: dict[int, int] = {}
        notes: dict[str, str] = {}
        if "progressive-link" in self.conditions:
            # a linked pool is unreachable: its stakes are not taken, the other bets play
            notes["progressive_closed"] = self.conditions["progressive-link"]
        elif self.profile.progressive:
            progressive = {
                s: self.profile.progressive.stake
                for s in sorted(self.sensed)
                if s not in self.excluded
            }
        wagers = dict(self.entered)
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
            return [Journal("lock-ignored", {"reason": str(exc), "rule": exc.rule})]
        round_id = f"{self.settings.table_id}-{self.next_round:06d}"
        self.next_round += 1
        self.round = Round(round_id, seats, progressive, wagers, deal)
        self.entered = {}
        excluded = {s: why for s, why in self.excluded.items() if s in self.sensed}
        move = self._move(
            TableState.LOCKED,
            "dealer LOCK",
            seats=list(seats),
            progressive=progressive,
            excluded=excluded,
            **notes,
        )
        return [move, OpenRound(round_id, self.pool_name, progressive)]

    def _on_LedgerResult(self, event: LedgerResult, now: float) -> list[Effect]:
        r = self.round
        if r is None or event.round_id != r.round_id:
            return [Journal("ledger-result-ignored", {"round": event.round_id})]
        if not event.ok:
            return self._ledger_failed(event, now)
        if event.action == "open" and self.state == TableState.LOCKED:
            move = self._move(
                TableState.DEALING, "round opened in the ledger", plan=r.deal.plan_text()
            )
            return [move, *r.deal.start(now)]
        if event.action == "void" and self.state == TableState.VOID:
            return [Journal("round-voided", {"round": r.round_id})]
        if event.action == "settle" and self.state == TableState.SHOWDOWN:
            self._pending_settle = False
            r.settled_at = now
            self.last_result = r.result
            if r.result and any(
                p.get("jackpot_seats") for p in r.result.pools.values()
            ):  # a 100% award locks the table until a technician acknowledges
                return [
                    self._move(
                        TableState.JACKPOT, "jackpot awarded", seats=self._jackpot_seats(r.result)
                    )
                ]
            return [self._move(TableState.SETTLED, "round settled in the ledger")]
        return [Journal("ledger-result-ignored", {"round": event.round_id, "action": event.action})]

    @staticmethod
    def _jackpot_seats(result: RoundResult) -> list[int]:
        return sorted({s for p in result.pools.values() for s in p.get("jackpot_seats", [])})

    def _ledger_failed(self, event: LedgerResult, now: float) -> list[Effect]:
        effects: list[Effect] = [
            Journal(
                "ledger-failed",
                {"action": event.action, "error": event.error, "condition": event.condition},
            )
        ]
        self.conditions[event.condition] = event.error
        if event.action == "open":  # nothing was taken: the round never existed
            self.round = None
            target = TableState.OPEN if self._can_open() else TableState.CLOSED
            # a linked pool that went down at LOCK: bets stay open, LOCK again takes no
            # linked stakes; the ledger failing closes the table
            effects.append(self._move(target, f"{event.condition} failed: {event.error}"))
        elif event.action == "settle":
            self._pending_settle = True  # retried when the condition clears
        return effects

    def _on_PacketDelivered(self, event: PacketDelivered, now: float) -> list[Effect]:
        r = self.round
        if event.round_id is not None and (r is None or event.round_id != r.round_id):
            # the answer to a request of a round that is over (a slow link): not this deal
            return [
                Journal(
                    "packet-stale",
                    {"round": event.round_id, "destination": event.packet.destination},
                )
            ]
        if not self._dealing():
            return [
                Journal(
                    "packet-unexpected",
                    {
                        "state": self.state.value,
                        "destination": event.packet.destination,
                        "count": event.packet.count,
                        "rule": "MD-S1",
                    },
                )
            ]
        verdict, requests = self.round.deal.packet(event.packet, now)
        return self._after_verdict(verdict, requests, now)

    def _on_SeatDecision(self, event: SeatDecision, now: float) -> list[Effect]:
        r = self.round
        if not (self._dealing() and isinstance(r.deal, ShoeDeal)):
            return [
                Journal(
                    "decision-refused",
                    {
                        "seat": event.seat,
                        "action": event.action,
                        "reason": "no decision is awaited",
                    },
                )
            ]
        try:
            r.deal.decide(event.seat, event.action, event.amount)
        except RoundError as exc:
            return [
                Journal(
                    "decision-refused",
                    {
                        "seat": event.seat,
                        "action": event.action,
                        "reason": str(exc),
                        "rule": exc.rule,
                    },
                )
            ]
        effects: list[Effect] = [
            Journal(
                "decision", {"seat": event.seat, "action": event.action, "amount": event.amount}
            )
        ]
        return effects + self._maybe_complete(now)

    def _on_EnterCards(self, event: EnterCards, now: float) -> list[Effect]:
        r = self.round
        if (
            r is None
            or not isinstance(r.deal, ManualDeal)
            or self.state
            not in (
                TableState.DEALING,
                TableState.VERIFIED,
            )
        ):
            return [
                Journal(
                    "cards-refused",
                    {"destination": event.destination, "reason": "no manually dealt round in play"},
                )
            ]
        try:
            r.deal.enter_cards(event.destination, event.cards)
        except RoundError as exc:
            return [
                Journal(
                    "cards-refused",
                    {"destination": event.destination, "reason": str(exc), "rule": exc.rule},
                )
            ]
        return [
            Journal("cards-entered", {"destination": event.destination, "count": len(event.cards)})
        ]

    def _on_DeclareMisdeal(self, event: DeclareMisdeal, now: float) -> list[Effect]:
        r = self.round
        if r is None or self.state not in (TableState.DEALING, TableState.VERIFIED):
            return [
                Journal("misdeal-refused", {"rule": event.rule, "reason": "no deal in progress"})
            ]
        if not MISDEAL_RULES.match(event.rule):
            return [
                Journal(
                    "misdeal-refused",
                    {"rule": event.rule, "reason": "not a misdeal rule (MD-S1..3, MD-M1..7)"},
                )
            ]
        verdict = Verdict(MISDEAL, event.rule, f"declared by the dealer: {event.reason}")
        return self._after_verdict(verdict, [], now)

    def _on_DealerCardsExposed(self, event: DealerCardsExposed, now: float) -> list[Effect]:
        r = self.round
        refused = None
        if self.profile.options.get("dealer_exposure") != "reinsert":
            refused = (
                f"profile {self.profile.name} has no re-insertion procedure (MD-X3 is"
                " Italian): call the floor"
            )
        elif self.state != TableState.VERIFIED or not isinstance(r.deal, HandFormingDeal):
            refused = f"only after a verified hand-forming deal, before the showdown ({self.state})"
        if refused is None:
            try:
                effects = r.deal.reinsert_dealer(event.positions, now)
            except RoundError as exc:
                refused = str(exc)
        if refused is not None:
            return [
                Journal(
                    "exposure-refused",
                    {"positions": list(event.positions), "reason": refused, "rule": "MD-X3"},
                )
            ]
        cause = "dealer cards exposed: back into the shuffler, replacements dealt"
        move = self._move(TableState.DEALING, cause, rule="MD-X3", positions=list(event.positions))
        return [move, *effects]

    def _on_ShufflerFault(self, event: ShufflerFault, now: float) -> list[Effect]:
        effects: list[Effect] = [Journal("shuffler-fault", {"description": event.description})]
        if self._dealing():
            effects += self._after_verdict(self.round.deal.fault(event.description, now), [], now)
        return effects

    def _after_verdict(self, verdict: Verdict, requests: list[Effect], now: float) -> list[Effect]:
        r = self.round
        assert r is not None
        effects: list[Effect] = [Journal("exposure", {"note": n}) for n in verdict.notes]
        if verdict.status == MISDEAL:
            if r.verdict is not None and r.verdict.status == MISDEAL:
                return effects
            r.verdict = verdict
            effects.append(
                self._move(
                    TableState.VOID, verdict.reason, rule=verdict.rule, detail=verdict.detail
                )
            )
            effects.append(VoidRound(r.round_id, verdict.rule or "MD-S2", verdict.reason))
            if verdict.rule == "MD-S1" or verdict.deck_error:
                # a wrong count takes the deck out of play until the dealer confirms a
                # replacement (shuffler trust)
                self.conditions["deck"] = "deck out of play after " + (verdict.rule or "")
            return effects
        if verdict.status == VERIFIED and self.state == TableState.DEALING:
            r.verdict = verdict
            effects.append(self._move(TableState.VERIFIED, "card count verified"))
        return effects + requests + self._maybe_complete(now)

    def _maybe_complete(self, now: float) -> list[Effect]:
        """A shoe round goes to the showdown by itself once the engine has every card."""
        r = self.round
        if (
            self.state == TableState.VERIFIED
            and r
            and r.deal.is_complete
            and not r.deal.needs_confirm
        ):
            return self._showdown(now)
        return []

    # --- CONFIRM: showdown, and closing the round --------------------------------------

    def _confirm(self, now: float) -> list[Effect]:
        r = self.round
        if self.state == TableState.DEALING and r and isinstance(r.deal, ManualDeal):
            r.verdict = r.deal.confirm_dealt()
            return [self._move(TableState.VERIFIED, "the dealer confirmed the manual deal")]
        if self.state == TableState.VERIFIED:
            return self._showdown(now)
        if self.state in (TableState.SETTLED, TableState.VOID):
            effects: list[Effect] = []
            if "deck" in self.conditions:
                # the dealer confirms a replacement deck: the shuffler counts it before the
                # table may open again (the daemon answers with ConditionChanged("deck"))
                effects += [Journal("deck-replaced", {"by": "dealer CONFIRM"}), CheckDeck()]
            return effects + self._end_round("dealer CONFIRM", now)
        return [Journal("confirm-ignored", {"state": self.state.value})]

    def _showdown(self, now: float) -> list[Effect]:
        r = self.round
        assert r is not None
        if r.deal.unrecognised():
            reason = "cards not recognised by the shuffler; enter the round for settlement"
            return [Journal("showdown-waiting", {"reason": reason})]
        if not r.deal.is_complete:
            return [Journal("confirm-ignored", {"reason": "the round is still being played"})]
        try:
            r.record = r.deal.record(
                RoundStakes(
                    r.progressive, self.pool_name, self.pools, r.wagers, self.settings.limits
                )
            )
            r.result = settle(self.profile, r.record)
        except RoundError as exc:  # e.g. entered wagers the engine refuses
            return [Journal("settlement-refused", {"reason": str(exc), "rule": exc.rule})]
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
        target = TableState.OPEN if self._can_open() else TableState.CLOSED
        move = self._move(target, cause)
        self.round = None
        self.declared = set()
        return [move, Journal("round-ended", {"round": finished.round_id if finished else None})]

    def _on_JackpotAck(self, event: JackpotAck, now: float) -> list[Effect]:
        if self.state != TableState.JACKPOT:
            return [Journal("jackpot-ack-ignored", {"state": self.state.value})]
        effects: list[Effect] = [Journal("jackpot-acknowledged", {"technician": event.technician})]
        return effects + self._end_round("jackpot acknowledged", now)

    # --- what others may see -----------------------------------------------------------

    def view(self) -> dict[str, Any]:
        """Status for lamps, sign, CLI and other systems: no live card identities."""
        r = self.round
        return {
            "state": self.state.value,
            "round": r.round_id if r else None,
            "conditions": dict(self.conditions),
            "seats": {
                s: {
                    "stake": s in self.sensed,
                    "excluded": self.excluded.get(s),
                    "locked": bool(r and s in r.progressive),
                    "in_play": bool(r and s in r.seats) or s in self.seats_in_play(),
                }
                for s in range(1, self.profile.seats + 1)
            },
            "verdict": (
                {"status": r.verdict.status, "rule": r.verdict.rule, "reason": r.verdict.reason}
                if r and r.verdict
                else None
            ),
            "pools": {name: amount for name, (amount, _seed) in self.pools.items()},
        }
