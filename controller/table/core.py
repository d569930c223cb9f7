"""The pure table core: the round machine, the seats, the ledger handshake and the outputs, as
one synchronous object with no I/O (the asyncio shell is :mod:`controller.table.runner`).

Theory of operation
-------------------
:class:`TableLogic` takes inputs with :meth:`~TableLogic.handle` and answers with outputs; it
never reads a clock (every call takes ``now``) and says when it must be called again
(:meth:`~TableLogic.next_deadline`, then with a :class:`~controller.table.events.Tick`).
Inputs are the table's events (:mod:`controller.table.events`), the seat sensors' and console's
events (:mod:`drivers.gpio.events`), the ledger's answers (:class:`LedgerWritten`) and journal
notes from the control socket. Outputs are what the shell carries out, in order:

- :class:`LedgerWrite`: ONE ledger transaction per event the machine handled: its journal
  entries and its money event (open / void / settle). The shell answers with
  :class:`LedgerWritten`, which the core turns into the machine's ``LedgerResult`` and the
  pools' amounts; a journal that cannot be written closes the table (``ledger`` condition),
  and while the ledger fails the core asks for a probe entry every
  :data:`LEDGER_PROBE_SECONDS` until one commits;
- :class:`ToShuffler`: the shuffler commands, with the round they belong to;
- :class:`ArchiveRound` / :class:`DeckChainBroken`: a settled round for surveillance and the
  shuffle audit, a voided one breaks the audit's chain of shuffles;
- :class:`ShowSign`, :class:`ReportStatus`: the sign's scene and systemd's status line, when
  they change;
- :class:`Refused`: the machine did not take the event handed in (a dealer's entry it
  refuses: a stake after LOCK, a seat not in the round...), for the shell to answer whoever
  handed it in; the refusal is journaled with the event's transaction;
- :class:`AskWitness`: while the ledger's witness has not answered (the ``witness``
  condition), ask it again, with backoff (:mod:`controller.table.witness_retry`); the shell
  answers with :class:`WitnessChecked`, which clears the condition (or raises
  ``ledger-rollback`` and ``selfcheck`` when the ledger does not hold the head it saw).

The seats are one model (:mod:`controller.table.seats`): with GPIO sensors the sensor state
machine itself (:class:`drivers.gpio.core.TableCore`, pure as well), which the core commands
directly (LOCK, the round's end, winners, clearing) and whose status lamps it sets. A lamp
command that fails is not swallowed: the ``lamps`` condition says which lamp and why (the
status shows it, the journal records it, the shell logs it) until the lamp follows again.

A deterministic simulation drives this object directly: the real ledger on SQLite behind
:class:`LedgerWrite`, the GPIO core and the shuffler session on the same fake clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from controller.table.events import (
    AppendJournal,
    ArchiveRound,
    AskWitness,
    Button,
    ClearSeats,
    Condition,
    ConditionChanged,
    DealerPressed,
    DeckChainBroken,
    Effect,
    EndSeatRound,
    Event,
    JournalNote,
    KeepExclusions,
    LedgerAction,
    LedgerResult,
    LedgerWrite,
    LedgerWritten,
    LockSeats,
    MoneyEffect,
    OpenRound,
    Output,
    PoolAmount,
    Refused,
    ReportStatus,
    SeatHealth,
    SettleRound,
    ShowSign,
    ShowWinners,
    StakeSensed,
    TechnicianKeyTurned,
    Tick,
    ToShuffler,
    VoidRound,
    WitnessChecked,
)
from controller.table.machine import TableMachine
from controller.table.machine_settings import MachineSettings
from controller.table.outputs import lamp_patterns, sign_inputs, sign_state
from controller.table.seats import LampError, SensorSeats
from controller.table.witness_retry import WitnessRetry
from display.scenes import SignState
from drivers.errors import DriverError
from drivers.gpio import events as gpio
from drivers.gpio.core import TableCore as SensorCore

if TYPE_CHECKING:  # the configuration's reader does I/O (host checks); its dataclass is data
    from controller.table.tableconfig import TableConfig

LEDGER_PROBE_SECONDS = 5.0
Input = Event | gpio.TableEvent | LedgerWritten | JournalNote | WitnessChecked


@dataclass
class _Lamps:
    """What the status lamps show and which lamps failed (lamp -> error)."""

    shown: dict[str, str] = field(default_factory=dict)
    faults: dict[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        return "; ".join(f"{lamp}: {error}" for lamp, error in sorted(self.faults.items()))


class TableLogic:
    """One table, pure. ``sensors``: the GPIO seat sensors and lamps (``None``: a table
    without them, whose seats come from :class:`StakeSensed` and :class:`SeatHealth`)."""

    def __init__(
        self,
        config: TableConfig,
        *,
        next_round: int = 1,
        sensors: SensorCore | None = None,
    ) -> None:
        self.config = config
        self.sensors = sensors
        settings = MachineSettings(
            config.table_id,
            packet_timeout=config.shuffler.packet_timeout,
            shoe_penetration=config.shuffler.shoe_penetration,
            settled_display=config.settled_display,
            limits=config.limits,
        )
        seats = SensorSeats(sensors) if sensors is not None else None
        self.machine = TableMachine(
            config.profile, settings, next_round=next_round, seats=seats, linked=bool(config.linked)
        )
        # the excluded seats the shell keeps across a restart (controller.table.exclusions)
        self._kept_exclusions = self.machine.seats.excluded()
        self._journal_failed = False
        self._probe_at: float | None = None
        self._witness = WitnessRetry()
        self._lamps = _Lamps()
        self._lamps_key: tuple[object, ...] | None = None  # what the lamps were last set from
        self._sign_shown: SignState | None = None
        self._sign_inputs: tuple[object, ...] | None = None  # what the shown sign was made of

    # --- queries ------------------------------------------------------------------------

    def next_deadline(self) -> float | None:
        """When :meth:`handle` wants a :class:`Tick` (``None``: only on the next input)."""
        first = self.machine.next_deadline()
        for t in (self._probe_at, self._witness.due):
            if t is not None and (first is None or t < first):
                first = t
        return first

    def is_current(self, round_id: str) -> bool:
        """Is ``round_id`` the round in play (its shuffler commands still wanted)?"""
        r = self.machine.round
        return r is not None and r.round_id == round_id and not self.machine.is_round_over

    # --- inputs -------------------------------------------------------------------------

    def handle(self, event: Input, now: float) -> list[Output]:
        """One input; the outputs to carry out, in order."""
        before = self.machine.state
        outputs: list[Output] = []
        if isinstance(event, LedgerWritten):
            self._ledger_written(event, now, outputs)
        elif isinstance(event, JournalNote):
            outputs.append(LedgerWrite((AppendJournal(event.kind, event.data),)))
        elif isinstance(event, WitnessChecked):
            self._witness_checked(event, now, outputs)
        elif isinstance(event, gpio.LampFault):
            if event.error:
                self._lamps.faults[f"pin {event.lamp}"] = event.error
            else:
                self._lamps.faults.pop(f"pin {event.lamp}", None)
        elif isinstance(event, gpio.TableEvent):
            translated = self._from_sensors(event)
            if translated is not None:
                self._feed(translated, now, outputs)
            if isinstance(event, gpio.SensorStuck | gpio.SensorChatter | gpio.SeatCleared):
                self._keep_exclusions(outputs)
        else:
            self._feed(event, now, outputs)
        if isinstance(event, Tick) and self._probe_at is not None and now >= self._probe_at:
            probe = AppendJournal("ledger-writable", {})
            outputs.append(LedgerWrite((probe,), probe=True))
            self._probe_at = now + LEDGER_PROBE_SECONDS
        if isinstance(event, Tick) and self._witness.tick(now):
            outputs.append(AskWitness())
        self._follow(now, outputs)
        state = self.machine.state
        if state != before:
            r = self.machine.round
            outputs.append(ReportStatus(f"{state.value} {r.round_id if r else ''}"))
        return outputs

    def _keep_exclusions(self, outputs: list[Output]) -> None:
        excluded = self.machine.seats.excluded()
        if excluded != self._kept_exclusions:
            self._kept_exclusions = excluded
            outputs.append(KeepExclusions(dict(excluded)))

    def clear_seat(self, seat: int, now: float) -> bool:
        """A technician clears an excluded seat (``croupier seat clear``); False if it was
        not excluded. Raises :class:`drivers.gpio.core.SeatError` for a seat that does not
        exist."""
        return self.machine.seats.clear(seat, now)

    @staticmethod
    def _from_sensors(event: gpio.TableEvent) -> Event | None:
        """A sensor or console fact as the machine's event (the machine decides what
        counts); ``None`` for what it does not need (releases, raw edges)."""
        if isinstance(event, gpio.StakePlaced):
            return StakeSensed(event.seat, True) if event.accepted else None
        if isinstance(event, gpio.StakeRemoved):
            return StakeSensed(event.seat, False)
        if isinstance(event, gpio.SensorStuck | gpio.SensorChatter):
            return SeatHealth(event.seat, True, event.describe())
        if isinstance(event, gpio.SeatCleared):
            return SeatHealth(event.seat, False, event.describe())
        if isinstance(event, gpio.KeySwitched):
            return TechnicianKeyTurned(event.on)
        if isinstance(event, gpio.ButtonPressed):
            return DealerPressed(Button(event.button))
        return None

    # --- the machine and its effects ------------------------------------------------------

    def _feed(self, event: Event, now: float, outputs: list[Output]) -> None:
        """One event through the machine: its journal entries and money event become one
        ledger transaction, seat commands are carried out at once, shuffler commands follow
        the transaction."""
        effects = self.machine.handle(event, now)
        writes: list[AppendJournal | MoneyEffect] = []
        later: list[Output] = []
        for effect in effects:
            if isinstance(effect, AppendJournal | OpenRound | VoidRound | SettleRound):
                writes.append(effect)
            elif isinstance(effect, LockSeats | EndSeatRound | ShowWinners | ClearSeats):
                self._seats(effect, now)
            elif isinstance(effect, Refused):
                later.append(effect)  # for whoever handed the event in
            else:
                r = self.machine.round
                later.append(ToShuffler(effect, r.round_id if r else None))
        if writes:
            outputs.append(LedgerWrite(tuple(writes)))
        outputs += later

    def _seats(self, effect: Effect, now: float) -> None:
        seats = self.machine.seats
        try:
            if isinstance(effect, LockSeats):
                seats.lock(now)
            elif isinstance(effect, EndSeatRound):
                seats.end_round(now, void=effect.void)
                # the seat lamps' commands start again from the round boundary (a pin that
                # fails stays reported until its writes work: its own LampFault says so)
                for lamp in [k for k in self._lamps.faults if k.startswith("seat")]:
                    del self._lamps.faults[lamp]
            elif isinstance(effect, ShowWinners):
                for seat in effect.seats:
                    try:
                        seats.show_winner(seat, now)
                    except LampError as exc:
                        self._lamps.faults[f"seat{seat}"] = str(exc)
            elif isinstance(effect, ClearSeats):
                for seat in effect.seats:
                    seats.clear(seat, now)
        except (LampError, DriverError) as exc:
            self._lamps.faults["seats"] = f"{type(effect).__name__}: {exc}"

    # --- the ledger handshake -------------------------------------------------------------

    def _ledger_written(self, answer: LedgerWritten, now: float, outputs: list[Output]) -> None:
        if answer.probe:
            if answer.ok:
                self._journal_failed = False
                self._feed(ConditionChanged(Condition.LEDGER, False), now, outputs)
            return
        if not answer.ok:
            if not answer.money:
                if not self._journal_failed:  # a transition could not be journaled
                    self._journal_failed = True
                    detail = f"journal not writable: {answer.error}"
                    self._feed(ConditionChanged(Condition.LEDGER, True, detail), now, outputs)
                return
            for round_id, action in answer.money:
                failed = LedgerResult(round_id, action, False, answer.error, answer.condition)
                self._feed(failed, now, outputs)
            return
        if self._journal_failed:
            self._journal_failed = False
            self._feed(ConditionChanged(Condition.LEDGER, False), now, outputs)
        for round_id, action in answer.money:
            if action is LedgerAction.SETTLE:
                outputs += self._archive(round_id)
            elif action is LedgerAction.VOID:
                outputs.append(DeckChainBroken())
        for round_id, action in answer.money:
            self._feed(LedgerResult(round_id, action, True), now, outputs)
        for name, amount in answer.amounts:
            pool = self.config.pools.get(name)
            if pool is not None:
                self._feed(PoolAmount(pool.bet, amount, pool.seed), now, outputs)

    def _witness_checked(self, answer: WitnessChecked, now: float, outputs: list[Output]) -> None:
        self._witness.answered()
        if not answer.answered:
            self._feed(ConditionChanged(Condition.WITNESS, True, answer.detail), now, outputs)
            return
        if answer.rollback:
            for name in (Condition.SELFCHECK, Condition.LEDGER_ROLLBACK):
                self._feed(ConditionChanged(name, True, answer.rollback), now, outputs)
        self._feed(ConditionChanged(Condition.WITNESS, False), now, outputs)

    def _archive(self, round_id: str) -> list[Output]:
        r = self.machine.round
        if r is None or r.round_id != round_id or r.record is None or r.result is None:
            return []
        hand_formed = r.deal.needs_confirm  # a shoe's order is not one shuffle's
        order = tuple(r.deal.delivered_order()) if hand_formed else None
        return [ArchiveRound(round_id, r.record, r.result, order)]

    # --- outputs --------------------------------------------------------------------------

    def _follow(self, now: float, outputs: list[Output]) -> None:
        """Status lamps, the lamps condition, the ledger probe, the witness's next question,
        the sign: after every input."""
        machine = self.machine
        # the status lamps follow the state and the conditions held: asked again only when
        # either changed, or while a lamp has failed (its command is retried on each input)
        lamps_key = (machine.state, tuple(machine.conditions))
        if self.sensors is not None and (lamps_key != self._lamps_key or self._lamps.faults):
            self._lamps_key = lamps_key
            for lamp, pattern in lamp_patterns(machine).items():
                if self._lamps.shown.get(lamp) == pattern:
                    continue
                try:
                    self.sensors.set_status_lamp(lamp, pattern, now)
                except DriverError as exc:
                    self._lamps.faults[lamp] = str(exc)
                    continue
                self._lamps.shown[lamp] = pattern
                self._lamps.faults.pop(lamp, None)
        if self._lamps.faults or Condition.LAMPS in machine.conditions:
            self._lamps_condition(now, outputs)
        failing = Condition.LEDGER in machine.conditions
        if not failing:
            self._probe_at = None
        elif self._probe_at is None:
            self._probe_at = now + LEDGER_PROBE_SECONDS
        self._witness.follow(Condition.WITNESS in self.machine.conditions, now)
        inputs = sign_inputs(self.machine)
        if inputs == self._sign_inputs:
            return
        wanted = sign_state(self.machine, self.config)
        self._sign_inputs = inputs
        if wanted != self._sign_shown:
            self._sign_shown = wanted
            outputs.append(ShowSign(wanted))

    def _lamps_condition(self, now: float, outputs: list[Output]) -> None:
        detail = self._lamps.describe()
        shown = self.machine.conditions.get(Condition.LAMPS)
        if detail and shown != detail:
            self._feed(ConditionChanged(Condition.LAMPS, True, detail), now, outputs)
        elif not detail and shown is not None:
            self._feed(ConditionChanged(Condition.LAMPS, False), now, outputs)

    def view(self) -> dict[str, Any]:
        """The machine's status view, with the sensors' own seat states and the lamps."""
        view = self.machine.view()
        if self.sensors is not None:
            view["sensors"] = {s: st.value for s, st in self.sensors.seat_states().items()}
        return view
