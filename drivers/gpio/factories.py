"""The gpiozero pin factory, chosen by name.

=========  ===============================================================================
name       backend
=========  ===============================================================================
auto       the backend this board can use (:mod:`drivers.gpio.board`): lgpio on current
           Pi OS and the Pi 5, RPi.GPIO only where it still works
lgpio      lgpio (/dev/gpiochip*): every Pi; the only one for the Pi 5's RP1 chip
rpigpio    RPi.GPIO (the product brief's library): Pi up to 4, kernels before 6.6
mock       gpiozero's MockFactory: tests and dry runs (pins float at their pulls)
rig        the hardware-in-the-loop rig (:mod:`drivers.gpio.rig_factory`)
=========  ===============================================================================

The Pi libraries are imported here, when asked for, never at import time: ``import RPi.GPIO``
raises off a Pi. Without a name, ``$GPIOZERO_PIN_FACTORY`` decides, then ``auto``. Every
failure is a :class:`PinFactoryError` whose message says what to do; the "use mock" hint is
only given off a Pi.
"""

from __future__ import annotations

import os

from gpiozero.pins import Factory

from drivers.errors import PinFactoryError
from drivers.gpio.board import board_facts, choose_backend, rpigpio_problem
from drivers.gpio.pinmap import FACTORY_NAMES


def make_pin_factory(name: str | None = None, *, rig_socket: str | None = None) -> Factory:
    """A new pin factory. Raises :class:`PinFactoryError` with what to do when the backend
    cannot run here."""
    name = name or os.environ.get("GPIOZERO_PIN_FACTORY") or "auto"
    if name == "auto":
        name = choose_backend(board_facts())
    if name == "mock":
        from gpiozero.pins.mock import MockFactory

        return MockFactory()
    if name == "rig":
        from drivers.gpio.rig_factory import RigFactory

        return RigFactory(rig_socket)
    if name == "rpigpio":
        try:
            from gpiozero.pins.rpigpio import RPiGPIOFactory

            return RPiGPIOFactory()
        except (ImportError, RuntimeError) as exc:
            raise PinFactoryError(
                f"RPi.GPIO cannot run here ({exc}); {rpigpio_problem(board_facts())}"
            ) from exc
    if name == "lgpio":
        try:
            from gpiozero.pins.lgpio import LGPIOFactory

            return LGPIOFactory()
        except Exception as exc:  # lgpio raises its own error type when no gpiochip opens
            raise PinFactoryError(
                f"lgpio cannot open the GPIO chip ({exc}); {_lgpio_hint()}"
            ) from exc
    raise PinFactoryError(f"unknown pin factory {name!r} (known: {', '.join(FACTORY_NAMES)})")


def _lgpio_hint() -> str:
    try:
        choose_backend(board_facts())
    except PinFactoryError as exc:
        return str(exc)
    return "check that the daemon's user may open /dev/gpiochip* (group gpio)"
