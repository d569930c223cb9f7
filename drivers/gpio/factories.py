"""The gpiozero pin factory, chosen by name.

=========  ===============================================================================
name       backend
=========  ===============================================================================
rpigpio    RPi.GPIO (the product brief's library), Raspberry Pi up to 4
lgpio      lgpio, for the Pi 5 (RPi.GPIO cannot drive its RP1 chip)
mock       gpiozero's MockFactory: tests and dry runs (pins float at their pulls)
rig        the hardware-in-the-loop rig (:mod:`drivers.gpio.rig_factory`)
=========  ===============================================================================

The Pi libraries are imported here, when asked for, never at import time: ``import RPi.GPIO``
raises off a Pi. Without a name, ``$GPIOZERO_PIN_FACTORY`` decides, then ``rpigpio``.
"""

from __future__ import annotations

import os

from gpiozero.pins import Factory

from drivers.errors import PinFactoryError
from drivers.gpio.pinmap import FACTORY_NAMES

OFF_PI_HINT = 'off a Pi use pin_factory = "mock" or "rig" (--pin-factory mock|rig)'


def make_pin_factory(name: str | None = None, *, rig_socket: str | None = None) -> Factory:
    """A new pin factory. Raises :class:`PinFactoryError` with what to do when the backend
    cannot run here."""
    name = name or os.environ.get("GPIOZERO_PIN_FACTORY") or "rpigpio"
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
            raise PinFactoryError(f"RPi.GPIO cannot run here ({exc}); {OFF_PI_HINT}") from exc
    if name == "lgpio":
        try:
            from gpiozero.pins.lgpio import LGPIOFactory

            return LGPIOFactory()
        except Exception as exc:  # lgpio raises its own error type when no gpiochip opens
            raise PinFactoryError(
                f"lgpio cannot open the GPIO chip ({exc}); {OFF_PI_HINT}"
            ) from exc
    raise PinFactoryError(f"unknown pin factory {name!r} (known: {', '.join(FACTORY_NAMES)})")
