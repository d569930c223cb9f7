"""The table's seats, one model (pure): which seats have a progressive stake that counts, and
which are excluded for a sensor fault.

The round machine reads the seats through :class:`SeatBoard` and changes them only through
its seat effects (:class:`~controller.table.events.LockSeats`, ``EndSeatRound``,
``ShowWinners``, ``ClearSeats``), which the table core applies at once. There are two boards,
never both:

- :class:`SensorSeats`: a table with GPIO seat sensors. The sensor state machine
  (:class:`drivers.gpio.core.TableCore`: debounce, chatter, stuck stakes, seat lamps) is the
  truth; the board only reads it and gives it the machine's commands.
- :class:`ReportedSeats`: a table without sensors (or a test): stakes and exclusions are what
  the :class:`~controller.table.events.StakeSensed` and ``SeatHealth`` events reported.
"""

from __future__ import annotations

from typing import Protocol

from controller.errors import CroupierError
from drivers.errors import DriverError
from drivers.gpio.core import TableCore as SensorCore
from drivers.gpio.events import SeatState


class LampError(CroupierError):
    """A seat or status lamp command failed (the text names the lamp and why)."""


class SeatBoard(Protocol):
    """What the machine needs to know about seats, and the commands it gives them.

    Must: answer :meth:`with_stake` and :meth:`excluded` from its one model of the seats.
    May: do nothing for a command that has no meaning for it (no sensors, no lamps). Commands
    that drive lamps raise :class:`LampError` when the lamp cannot follow."""

    def stake_sensed(self, seat: int, present: bool) -> bool:
        """A sensor reported a stake placed (accepted) or removed; True if this changes what
        the seat holds (the machine journals changes only)."""
        ...

    def health(self, seat: int, excluded: bool, reason: str) -> None:
        """A sensor fault excluded the seat, or a technician cleared it (``reason``: the text
        a technician reads)."""
        ...

    def with_stake(self) -> frozenset[int]:
        """Seats whose progressive stake is on the sensor and counts."""
        ...

    def excluded(self) -> dict[int, str]:
        """Excluded seats and why."""
        ...

    def lock(self, now: float) -> None: ...

    def end_round(self, now: float, *, void: bool) -> None: ...

    def show_winner(self, seat: int, now: float) -> None: ...

    def clear(self, seat: int, now: float) -> bool:
        """Clear an exclusion; False if the seat was not excluded."""
        ...


class ReportedSeats:
    """Seats as the events reported them (no sensor state machine behind them)."""

    def __init__(self) -> None:
        self._stakes: set[int] = set()
        self._excluded: dict[int, str] = {}

    def stake_sensed(self, seat: int, present: bool) -> bool:
        was = seat in self._stakes
        if present:
            self._stakes.add(seat)
        else:
            self._stakes.discard(seat)
        return was != present

    def health(self, seat: int, excluded: bool, reason: str) -> None:
        if excluded:
            self._excluded[seat] = reason
        else:
            self._excluded.pop(seat, None)

    def with_stake(self) -> frozenset[int]:
        return frozenset(self._stakes)

    def excluded(self) -> dict[int, str]:
        return dict(self._excluded)

    def lock(self, now: float) -> None:
        pass

    def end_round(self, now: float, *, void: bool) -> None:
        pass

    def show_winner(self, seat: int, now: float) -> None:
        pass

    def clear(self, seat: int, now: float) -> bool:
        return self._excluded.pop(seat, None) is not None


IN_ROUND = (SeatState.LOCKED, SeatState.WINNER)


class SensorSeats:
    """Seats as the GPIO sensor state machine has them. Its events reach the machine too (to
    be journaled), but what a seat holds is always read here, never copied."""

    def __init__(self, core: SensorCore) -> None:
        self.core = core
        self._why: dict[int, str] = {}  # the technician's text of each exclusion

    def stake_sensed(self, seat: int, present: bool) -> bool:
        return True  # the sensor core reports changes only

    def health(self, seat: int, excluded: bool, reason: str) -> None:
        if excluded:
            self._why[seat] = reason
        else:
            self._why.pop(seat, None)

    def with_stake(self) -> frozenset[int]:
        states = self.core.seat_states()
        return frozenset(
            seat
            for seat, state in states.items()
            if state is SeatState.STAKE_PLACED or (state in IN_ROUND and self.core.is_on(seat))
        )

    def excluded(self) -> dict[int, str]:
        return {
            seat: self._why.get(seat) or self.core.exclusion_reason(seat)
            for seat, state in self.core.seat_states().items()
            if state is SeatState.EXCLUDED
        }

    def lock(self, now: float) -> None:
        self.core.lock(now)

    def end_round(self, now: float, *, void: bool) -> None:
        self.core.round_boundary(now, void=void)

    def show_winner(self, seat: int, now: float) -> None:
        try:
            self.core.set_winner(seat, now)
        except DriverError as exc:
            raise LampError(f"winner lamp of seat {seat}: {exc}") from exc

    def clear(self, seat: int, now: float) -> bool:
        return self.core.clear(seat, now)
