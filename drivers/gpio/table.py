"""The table's GPIO on an asyncio event loop: gpiozero devices around :class:`TableCore`.

:class:`GpioTable` opens an ``InputDevice`` per sensor / button / key switch and an ``LED`` per
lamp over the configured pin factory, feeds raw edges to the pure
:class:`~drivers.gpio.core.TableCore`, and applies its lamp levels. Everything above it sees
:class:`~drivers.gpio.events.TableEvent` objects ("stake placed on seat 3"), never pin levels.

Threads: gpiozero calls edge callbacks from its backend's thread on a Pi (RPi.GPIO, lgpio, the
rig link) and synchronously on the caller's thread for mock pins. The callback only stamps the
time and hands the edge to the loop with ``call_soon_threadsafe``; the core is only ever touched
on the loop thread. The loop task sleeps until the core's next deadline (a debounce settling,
a lamp blinking) or the next edge: an idle table costs no wake-ups.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping
from typing import Any

from gpiozero import LED, GPIOZeroError, InputDevice
from gpiozero.pins import Factory

from drivers.asynctools import wait_for_event
from drivers.errors import DriverError, PinOpenError
from drivers.gpio.core import TableCore
from drivers.gpio.devices import open_input, open_lamp
from drivers.gpio.events import LampFault, SeatState, TableEvent
from drivers.gpio.pinmap import GpioConfig, InputLine, OutputLine


class GpioTable:
    """Use ``async with GpioTable(config, factory) as table:`` inside the event loop."""

    def __init__(
        self,
        config: GpioConfig,
        factory: Factory,
        *,
        clock: Callable[[], float] = time.monotonic,
        report_edges: bool = False,
        excluded: Mapping[int, str] | None = None,
    ) -> None:
        """``excluded``: seats excluded before a restart (seat -> why), excluded again as the
        core starts, before any of its events is handed out (TableCore.exclude_at_start)."""
        self.config = config
        self.factory = factory
        self._excluded = dict(excluded or {})
        self._clock = clock
        self._report_edges = report_edges
        self._inputs: dict[str, InputDevice] = {}
        self._lamps: dict[str, LED] = {}
        self._lit: dict[str, bool] = {}
        self.lamp_faults: dict[str, str] = {}  # lamp -> why its pin cannot be written
        self._callbacks: list[Callable[[Any, Any], None]] = []  # gpiozero keeps weak references
        self._events: asyncio.Queue[TableEvent] = asyncio.Queue()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.core: TableCore | None = None
        self._commands_seen = -1  # the core's commands when the loop task last woke

    async def __aenter__(self) -> GpioTable:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def start(self) -> None:
        """Open every pin and watch the inputs. Raises :class:`PinOpenError` naming the pin
        when the backend refuses one (busy line, no edge detection, hidden device)."""
        loop = asyncio.get_running_loop()
        line: InputLine | OutputLine | None = None
        try:
            for name, line in self.config.inputs.items():
                self._inputs[name] = open_input(line, self.factory)
            for name, line in self.config.lamps.items():
                self._lamps[name] = open_lamp(line, self.factory)
            # Watch first, then read: an edge between the two is queued for the loop (and
            # ignored if the read already saw it); read first, and it could be lost.
            for name, line in self.config.inputs.items():
                self._watch(loop, line, self._inputs[name])
        except DriverError:
            self._close_devices()
            raise
        except Exception as exc:  # each backend has its own errors (RuntimeError, lgpio.error)
            self._close_devices()
            raise self._open_error(line, exc) from exc
        initial = {
            name: line.is_active(self._inputs[name].pin.state)
            for name, line in self.config.inputs.items()
        }
        now = self._clock()
        self.core = TableCore(self.config, now, initial, self._report_edges)
        self.core.exclude_at_start(self._excluded, now)
        self._task = loop.create_task(self._pump(), name="croupier-gpio")

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self._close_devices()

    # -- events -----------------------------------------------------------------------------

    async def next_event(self) -> TableEvent:
        return await self._events.get()

    # -- commands (see TableCore) -----------------------------------------------------------

    def lock(self) -> tuple[int, ...]:
        return self._command(lambda core, now: core.lock(now))

    def round_boundary(self, *, void: bool = False) -> None:
        self._command(lambda core, now: core.round_boundary(now, void=void))

    def set_winner(self, seat: int) -> None:
        self._command(lambda core, now: core.set_winner(seat, now))

    def clear(self, seat: int) -> bool:
        return self._command(lambda core, now: core.clear(seat, now))

    def set_status_lamp(self, name: str, pattern: str) -> None:
        self._command(lambda core, now: core.set_status_lamp(name, pattern, now))

    def seat_states(self) -> dict[int, SeatState]:
        return self._core().seat_states()

    def refresh(self) -> None:
        """The core may have been commanded directly (the table core holds the same pure
        object, on the same clock): apply its lamps and deadlines now if it was, or if a lamp
        is to be written again (a pin that failed). Called after every table event: a wake-up
        of the loop task that finds nothing to do was most of what the GPIO cost a round."""
        core = self.core
        if core is None or core.commands != self._commands_seen or self.lamp_faults:
            self._wake.set()

    def lamp_levels(self) -> dict[str, bool]:
        """Lamp levels as last written to the pins."""
        return dict(self._lit)

    # -- internals --------------------------------------------------------------------------

    def _open_error(self, line: InputLine | OutputLine | None, exc: Exception) -> PinOpenError:
        backend = type(self.factory).__name__
        where = f"GPIO{line.pin} ({line.name})" if line is not None else "a pin"
        message = f"{backend} cannot open {where}: {exc}"
        if "edge detection" in str(exc):  # RPi.GPIO's sysfs edges (drivers.gpio.board)
            from drivers.gpio.board import board_facts, rpigpio_problem

            message += f"; {rpigpio_problem(board_facts())}"
        return PinOpenError(message)

    def _core(self) -> TableCore:
        if self.core is None:
            raise RuntimeError("GpioTable.start() has not run")
        return self.core

    def _command(self, action: Callable[[TableCore, float], Any]) -> Any:
        result = action(self._core(), self._clock())
        self._wake.set()
        return result

    def _watch(self, loop: asyncio.AbstractEventLoop, line: InputLine, device: InputDevice) -> None:
        factory = self.factory

        def changed(ticks: Any, state: Any) -> None:  # on the backend's thread
            # when the edge happened, on our clock: a backend with edge timestamps (lgpio, the
            # rig) keeps the spacing of edges the loop reads late (see Debouncer)
            at = self._clock() - max(0.0, factory.ticks_diff(factory.ticks(), ticks))
            with contextlib.suppress(RuntimeError):  # the loop is closing
                loop.call_soon_threadsafe(self._edge, line.name, line.is_active(state), at)

        self._callbacks.append(changed)
        device.pin.when_changed = changed

    def _edge(self, name: str, active: bool, at: float) -> None:
        self._core().edge(name, active, at)
        self._wake.set()

    async def _pump(self) -> None:
        core = self._core()
        while True:
            self._wake.clear()
            self._commands_seen = core.commands
            now = self._clock()
            for event in core.poll(now):
                self._events.put_nowait(event)
            self._apply_lamps(now)
            deadline = core.next_deadline(now)
            timeout = None if deadline is None else max(0.0, deadline - self._clock())
            await wait_for_event(self._wake, timeout)

    def _apply_lamps(self, now: float) -> None:
        """Write the lamps that changed. A pin that cannot be written is reported once as a
        :class:`LampFault` (and again, with no error, once it takes writes) and retried at
        the next wake-up; the other lamps go on."""
        for name, lit in self._core().lamp_levels(now).items():
            if self._lit.get(name) == lit:
                continue
            try:
                self._lamps[name].value = lit
            except (GPIOZeroError, OSError) as exc:
                error = f"{type(exc).__name__}: {exc}"
                if self.lamp_faults.get(name) != error:
                    self.lamp_faults[name] = error
                    self._events.put_nowait(LampFault(now, name, error))
                continue
            self._lit[name] = lit
            if self.lamp_faults.pop(name, None) is not None:
                self._events.put_nowait(LampFault(now, name, ""))

    def _close_devices(self) -> None:
        for device in [*self._inputs.values(), *self._lamps.values()]:
            device.close()
        self._inputs.clear()
        self._lamps.clear()
