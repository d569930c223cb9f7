"""The table I/O state machine: seats, console, sensor health and lamps (pure, sans-I/O).

Theory of operation. :class:`TableCore` is fed raw input edges (already mapped to "active" by
the line's configured level) with their times, and the controller's commands (LOCK the round,
the round boundary, a winner, clear an exclusion, status lamps). It answers with
:class:`~drivers.gpio.events.TableEvent` objects, the lamp levels at a time, and its next
deadline. It never reads a clock: the asyncio adapter (:mod:`drivers.gpio.table`) wakes it at
its deadline, and tests drive it on a fake clock.

Seats::

                 stake on (bets open)                LOCK
    AWAITING  ----------------------->  STAKE_PLACED  ----->  LOCKED --(winner)--> WINNER
       ^      <-----------------------                          |                    |
       |            stake off                                   |  round boundary    |
       +--------------------------------------------------------+--------------------+
                 (stake still on since LOCK: stuck -> EXCLUDED)

    any state --(chatter)--> EXCLUDED --(clear)--> AWAITING

- Sensor changes are debounced (wait-for-stable, :class:`~drivers.gpio.debounce.Debouncer`).
- **Chatter**: more than ``chatter_edges`` raw edges within ``chatter_window`` excludes the
  seat (:class:`~drivers.gpio.events.SensorChatter`).
- **Stuck sensor**: progressive stakes are taken whatever the outcome (PRG-2), so the stake
  locked into a round must leave the sensor before the next one. The controller calls
  :meth:`TableCore.round_boundary` when a round is over; a seat whose sensor has stayed active
  since it was locked has a stake left across the boundary. The stake does not count again:
  the seat waits for it to be lifted, and after ``stuck_rounds`` such boundaries (default 1)
  it is excluded (:class:`~drivers.gpio.events.SensorStuck`). After a misdeal the stakes are
  returned (MD rules) and stay for the re-deal: ``round_boundary(void=True)`` keeps them placed.
- **Clear**: a technician clears an exclusion; if a stake is still on the sensor, the seat
  waits for it to be lifted before it accepts a new one.

Lamps follow the seat states (off, slow blink, on, fast blink, winner flashes: see
:mod:`drivers.gpio.lamps`); the status lamps (green, red, beacon) are set by the controller.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from drivers.errors import DriverError
from drivers.gpio import lamps
from drivers.gpio.debounce import Debouncer, EdgeCounter
from drivers.gpio.events import (
    ButtonPressed,
    ButtonReleased,
    KeySwitched,
    RawEdge,
    SeatCleared,
    SeatState,
    SensorChatter,
    SensorStuck,
    StakePlaced,
    StakeRemoved,
    TableEvent,
)
from drivers.gpio.pinmap import CONSOLE_INPUTS, STATUS_LAMPS, GpioConfig

SEAT_LAMP = {
    SeatState.AWAITING: lamps.OFF,
    SeatState.STAKE_PLACED: lamps.SLOW,
    SeatState.LOCKED: lamps.ON,
    SeatState.EXCLUDED: lamps.FAST,
    SeatState.WINNER: lamps.WINNER,
}


class SeatError(DriverError, ValueError):
    """A command names a seat that is not configured, or does not fit the seat's state."""


@dataclass
class _Seat:
    number: int
    sensor: Debouncer
    edges: EdgeCounter
    state: SeatState = SeatState.AWAITING
    armed: bool = True  # False: a stake left on the sensor must be lifted before a new one counts
    released_since_lock: bool = False
    held: int = 0  # round boundaries crossed with the same stake on the sensor
    excluded_for: str = ""

    @property
    def name(self) -> str:
        return f"seat{self.number}"


class TableCore:
    """``initial`` gives the inputs that are active at start-up (``now``); ``report_edges``
    adds a :class:`~drivers.gpio.events.RawEdge` event for every raw edge."""

    def __init__(
        self,
        config: GpioConfig,
        now: float,
        initial: Mapping[str, bool] | None = None,
        report_edges: bool = False,
    ) -> None:
        c = self.config = config
        initial = initial or {}
        self.report_edges = report_edges
        self.bets_open = True
        # controller commands so far (lock, round boundary, winner, clear, status lamp): a
        # driver that applies the lamps and polls after each one needs not wake when it has
        # not moved (drivers.gpio.table.GpioTable.refresh)
        self.commands = 0
        self._outbox: list[TableEvent] = []
        self._seats = {
            n: _Seat(
                n,
                Debouncer(initial.get(f"seat{n}", False), c.sensor_debounce),
                EdgeCounter(c.chatter_window, c.chatter_edges + 1),
            )
            for n in c.seats
        }
        self._buttons = {
            name: Debouncer(initial.get(name, False), c.button_debounce) for name in CONSOLE_INPUTS
        }
        # the inputs with an edge whose debouncing is not over (seat numbers, button names):
        # the only ones a poll can change (a poll after every input and wake-up is the hot path)
        self._unsettled: set[int | str] = set()
        self._settles_at = math.inf  # no unsettled input can change before (an earliest bound)
        self.lamps = lamps.LampBank([f"seat{n}" for n in c.seats] + list(STATUS_LAMPS))
        # A stake already on at start-up counts as placed, and a key already turned is on: both
        # are reported like any change, or the controller would not know (a daemon restarted
        # mid-session finds the stakes of a voided round still on the sensors).
        for seat in self._seats.values():
            if seat.sensor.level:
                self._set_state(seat, SeatState.STAKE_PLACED, now)
                self._outbox.append(StakePlaced(now, seat.number, True))
        if self._buttons["key"].level:
            self._outbox.append(KeySwitched(now, True))

    # -- inputs -----------------------------------------------------------------------------

    def edge(self, line: str, active: bool, now: float) -> None:
        """A raw edge on input ``line`` (``seat3``, ``lock``, ``confirm``, ``key``)."""
        if self.report_edges:
            self._outbox.append(RawEdge(now, line, active))
        seat = self._seats.get(int(line[4:])) if line.startswith("seat") else None
        if seat is not None:
            seat.sensor.edge(active, now)
            self._unsettled.add(seat.number)
            self._may_settle(seat.sensor)
            edges = seat.edges.add(now)
            if edges > self.config.chatter_edges and seat.state is not SeatState.EXCLUDED:
                self._exclude(seat, "chatter", now)
                self._outbox.append(
                    SensorChatter(now, seat.number, edges, self.config.chatter_window)
                )
        elif line in self._buttons:
            self._buttons[line].edge(active, now)
            self._unsettled.add(line)
            self._may_settle(self._buttons[line])
        else:
            raise SeatError(f"no input line {line!r}")

    def poll(self, now: float) -> list[TableEvent]:
        """Settle debounced inputs up to ``now``; returns (and forgets) the pending events.
        Changes that settled since the last poll are taken in the order they settled, across
        all inputs (a late poll must not put a LOCK before the stake that came first)."""
        changes: list[tuple[float, bool, _Seat | str]] = []
        unsettled = self._unsettled
        if unsettled and now >= self._settles_at:  # in fixed order: ties settle in that order
            self._settles_at = math.inf
            for seat in self._seats.values():
                if seat.number in unsettled:
                    changes += [(at, level, seat) for level, at in seat.sensor.poll(now)]
                    if not self._may_settle(seat.sensor):
                        unsettled.discard(seat.number)
            for name, button in self._buttons.items():
                if name in unsettled:
                    changes += [(at, level, name) for level, at in button.poll(now)]
                    if not self._may_settle(button):
                        unsettled.discard(name)
        for at, level, source in sorted(changes, key=lambda change: change[0]):
            if isinstance(source, _Seat):
                self._sensor_changed(source, level, at)
            elif source == "key":
                self._outbox.append(KeySwitched(at, level))
            else:
                self._outbox.append((ButtonPressed if level else ButtonReleased)(at, source))
        events, self._outbox = self._outbox, []
        return events

    def _may_settle(self, debouncer: Debouncer) -> bool:
        """Fold ``debouncer``'s deadline into the earliest; False when it has none (settled)."""
        due = debouncer.deadline()
        if due is None:
            return False
        self._settles_at = min(self._settles_at, due)
        return True

    def next_deadline(self, now: float) -> float | None:
        """The earliest time an input may settle or a lamp change (``None``: nothing due)."""
        times = [d for s in self._seats.values() if (d := s.sensor.deadline()) is not None]
        times += [d for b in self._buttons.values() if (d := b.deadline()) is not None]
        if (lamp := self.lamps.deadline(now)) is not None:
            times.append(lamp)
        return min(times, default=None)

    # -- controller commands ----------------------------------------------------------------

    def lock(self, now: float) -> tuple[int, ...]:
        """LOCK: bets are closed. Returns the seats whose stake is in the round."""
        self.commands += 1
        self.bets_open = False
        locked = []
        for seat in self._seats.values():
            if seat.state is SeatState.STAKE_PLACED:
                seat.released_since_lock = False
                self._set_state(seat, SeatState.LOCKED, now)
                locked.append(seat.number)
        return tuple(locked)

    def round_boundary(self, now: float, *, void: bool = False) -> None:
        """The round is over (stakes collected) and bets open again. ``void``: a misdeal
        returned the stakes, which may stay on the sensors for the next round."""
        self.commands += 1
        self.bets_open = True
        for seat in self._seats.values():
            if seat.state is SeatState.EXCLUDED:
                continue
            on = seat.sensor.level
            in_round = seat.state in (SeatState.LOCKED, SeatState.WINNER)
            if on and not void and ((in_round and not seat.released_since_lock) or not seat.armed):
                seat.held += 1
                seat.armed = False
                if seat.held >= self.config.stuck_rounds:
                    self._exclude(seat, "stuck", now)
                    self._outbox.append(SensorStuck(now, seat.number, seat.held))
                else:
                    self._set_state(seat, SeatState.AWAITING, now)
            elif on and seat.armed:
                if seat.state is not SeatState.STAKE_PLACED:  # a late stake now counts
                    self._outbox.append(StakePlaced(now, seat.number, True))
                self._set_state(seat, SeatState.STAKE_PLACED, now)
            else:
                self._set_state(seat, SeatState.AWAITING, now)

    def exclude_at_start(self, excluded: Mapping[int, str], now: float) -> None:
        """Seats excluded before a restart (controller.table.exclusions: only a technician
        clears them), excluded again before any of their sensors counts: a stake this core
        reported at start-up on one of them is taken back from the events not handed out
        yet. Seats this table does not have are skipped."""
        for number, reason in excluded.items():
            seat = self._seats.get(number)
            if seat is not None:
                seat.armed = not seat.sensor.level
                self._exclude(seat, reason, now)
        self._outbox = [
            e for e in self._outbox if not (isinstance(e, StakePlaced) and e.seat in excluded)
        ]

    def set_winner(self, seat_number: int, now: float) -> None:
        """Show a winning seat (its lamp flashes until the round boundary)."""
        self.commands += 1
        seat = self._seat(seat_number)
        if seat.state is not SeatState.LOCKED:
            raise SeatError(f"seat {seat_number} is {seat.state.value}, not locked into the round")
        self._set_state(seat, SeatState.WINNER, now)

    def clear(self, seat_number: int, now: float) -> bool:
        """Clear an exclusion. Returns False if the seat was not excluded."""
        self.commands += 1
        seat = self._seat(seat_number)
        if seat.state is not SeatState.EXCLUDED:
            return False
        seat.armed = not seat.sensor.level
        seat.held = 0
        seat.edges.reset()
        seat.excluded_for = ""
        self._set_state(seat, SeatState.AWAITING, now)
        self._outbox.append(SeatCleared(now, seat.number))
        return True

    def set_status_lamp(self, name: str, pattern: str, now: float) -> None:
        """``green`` / ``red`` / ``beacon`` to one of :data:`drivers.gpio.lamps.PATTERNS`."""
        self.commands += 1
        if name not in STATUS_LAMPS:
            raise SeatError(f"no status lamp {name!r} (lamps: {', '.join(STATUS_LAMPS)})")
        if pattern not in lamps.PATTERNS:
            raise SeatError(f"no lamp pattern {pattern!r} (patterns: {', '.join(lamps.PATTERNS)})")
        self.lamps.set(name, lamps.PATTERNS[pattern], now)

    # -- queries ----------------------------------------------------------------------------

    def seat_state(self, seat_number: int) -> SeatState:
        return self._seat(seat_number).state

    def seat_states(self) -> dict[int, SeatState]:
        return {n: s.state for n, s in self._seats.items()}

    def exclusion_reason(self, seat_number: int) -> str:
        return self._seat(seat_number).excluded_for

    def is_on(self, seat_number: int) -> bool:
        """Is something on the seat's sensor (its debounced level)?"""
        return self._seat(seat_number).sensor.level

    def lamp_levels(self, now: float) -> dict[str, bool]:
        return self.lamps.levels(now)

    # -- internals --------------------------------------------------------------------------

    def _seat(self, number: int) -> _Seat:
        try:
            return self._seats[number]
        except KeyError:
            raise SeatError(
                f"seat {number} is not configured (seats: {list(self._seats)})"
            ) from None

    def _set_state(self, seat: _Seat, state: SeatState, now: float) -> None:
        seat.state = state
        self.lamps.set(seat.name, SEAT_LAMP[state], now)

    def _exclude(self, seat: _Seat, reason: str, now: float) -> None:
        seat.excluded_for = reason
        self._set_state(seat, SeatState.EXCLUDED, now)

    def _sensor_changed(self, seat: _Seat, on: bool, now: float) -> None:
        if not on:
            seat.armed = True
            seat.held = 0
        if seat.state is SeatState.EXCLUDED:
            return
        if on:
            accepted = self.bets_open and seat.armed and seat.state is SeatState.AWAITING
            if accepted:
                self._set_state(seat, SeatState.STAKE_PLACED, now)
            self._outbox.append(StakePlaced(now, seat.number, accepted))
            return
        if seat.state is SeatState.STAKE_PLACED:
            self._set_state(seat, SeatState.AWAITING, now)
        elif seat.state in (SeatState.LOCKED, SeatState.WINNER):
            seat.released_since_lock = True  # the stake stays in the round (PRG-2)
        self._outbox.append(StakeRemoved(now, seat.number))
