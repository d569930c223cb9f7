"""The rig's own GPIO lines wired to a real table controller (a second Pi as the rig).

:class:`GpioRig` speaks in table terms, like :class:`~drivers.gpio.rig_server.RigTable`, but
over copper: each input of the controller under test (bet sensors, LOCK, CONFIRM, the key
switch) is wired to an output of the rig, each of its lamps to an input of the rig. The
``wiring`` maps the controller's BCM pin to the rig's BCM pin on the other end of the wire; the
controller's ``[gpio]`` configuration says which level is "active" on each line, and the rig
drives and reads exactly those levels (a direct wire: the rig's output replaces the switch; put
a series resistor in each line).

The rig's pins come from any gpiozero pin factory (``auto``, ``lgpio`` or ``rpigpio`` on the
rig's Pi; ``mock`` in tests). Lamp changes are recorded with the rig's monotonic time, as the rig
socket's history is, so blink patterns read the same way.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from time import monotonic
from typing import Any

from gpiozero import DigitalOutputDevice, InputDevice
from gpiozero.pins import Factory

from drivers.errors import RigError
from drivers.gpio.pinmap import GpioConfig, InputLine, OutputLine
from drivers.gpio.rig_server import TableInputs


class GpioRig(TableInputs):
    def __init__(self, config: GpioConfig, wiring: Mapping[int, int], factory: Factory) -> None:
        self.config = config
        lines = [*config.inputs.values(), *config.lamps.values()]
        unwired = sorted({line.pin for line in lines} - set(wiring))
        if unwired:
            raise RigError(f"rig: no wire to the controller's BCM pin(s) {unwired} ([pins.wiring])")
        self._cond = threading.Condition()
        self._history: dict[str, list[tuple[float, bool]]] = {}
        self._outputs: dict[str, tuple[InputLine, DigitalOutputDevice]] = {}
        self._inputs: dict[str, tuple[OutputLine, InputDevice]] = {}
        self._callbacks: list[Any] = []  # gpiozero keeps weak references
        try:
            for name, line in config.inputs.items():
                idle = not line.active_high  # the level of a line nobody presses
                device = DigitalOutputDevice(
                    wiring[line.pin], initial_value=idle, pin_factory=factory
                )
                self._outputs[name] = (line, device)
            for name, lamp in config.lamps.items():
                device = InputDevice(
                    wiring[lamp.pin], pull_up=None, active_state=True, pin_factory=factory
                )
                self._inputs[name] = (lamp, device)
                self._watch(name, lamp, device)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        for _, device in [*self._outputs.values(), *self._inputs.values()]:
            device.close()
        self._outputs.clear()
        self._inputs.clear()

    # --- the controller's inputs -----------------------------------------------------------

    def _set_input(self, name: str, active: bool) -> None:
        try:
            line, device = self._outputs[name]
        except KeyError:
            raise RigError(f"rig: the table has no input {name!r}") from None
        device.value = active == line.active_high

    # --- the controller's lamps ------------------------------------------------------------

    def lamp_lit(self, lamp: str) -> bool:
        line, device = self._lamp(lamp)
        return bool(device.pin.state) == line.active_high

    def lamp_history(self, lamp: str) -> list[tuple[float, bool]]:
        self._lamp(lamp)
        with self._cond:
            return list(self._history.get(lamp, []))

    def wait_for_lamp(self, lamp: str, lit: bool, timeout: float) -> None:
        self._lamp(lamp)
        with self._cond:
            if not self._cond.wait_for(lambda: self.lamp_lit(lamp) == lit, timeout):
                raise RigError(
                    f"rig: timed out after {timeout:g} s waiting for {lamp}"
                    f" {'lit' if lit else 'dark'}"
                )

    def _lamp(self, name: str) -> tuple[OutputLine, InputDevice]:
        try:
            return self._inputs[name]
        except KeyError:
            raise RigError(f"rig: the table has no lamp {name!r}") from None

    def _watch(self, name: str, lamp: OutputLine, device: InputDevice) -> None:
        def changed(ticks: Any, state: Any) -> None:  # on the pin backend's thread
            with self._cond:
                self._history.setdefault(name, []).append(
                    (monotonic(), bool(state) == lamp.active_high)
                )
                self._cond.notify_all()

        self._callbacks.append(changed)
        device.pin.edges = "both"
        device.pin.when_changed = changed
        with self._cond:
            self._history[name] = [(monotonic(), bool(device.pin.state) == lamp.active_high)]
