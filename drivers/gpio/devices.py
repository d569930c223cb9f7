"""The gpiozero devices of the configured lines, opened on a pin factory: what
:class:`drivers.gpio.table.GpioTable` watches and drives on the event loop, and what
``croupier lamps test`` lights by itself (without asyncio, which this module does not import).
"""

from __future__ import annotations

from gpiozero import LED, InputDevice
from gpiozero.pins import Factory

from drivers.gpio.pinmap import InputLine, OutputLine


def open_input(line: InputLine, factory: Factory) -> InputDevice:
    """An input with the configured pull; its level is read raw (the core debounces)."""
    if line.pull is None:
        device = InputDevice(
            line.pin, pull_up=None, active_state=line.active_high, pin_factory=factory
        )
    else:
        device = InputDevice(line.pin, pull_up=line.pull == "up", pin_factory=factory)
    try:
        device.pin.edges = "both"
    except BaseException:
        device.close()  # RPi.GPIO on kernel 6.6+ fails here: release the pin
        raise
    return device


def open_lamp(line: OutputLine, factory: Factory) -> LED:
    return LED(line.pin, active_high=line.active_high, initial_value=False, pin_factory=factory)


def open_lamps(lamps: dict[str, OutputLine], factory: Factory) -> dict[str, LED]:
    return {name: open_lamp(line, factory) for name, line in lamps.items()}
