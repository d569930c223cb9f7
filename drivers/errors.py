"""Exceptions of the hardware drivers.

One base class, :class:`DriverError`; each subclass also inherits the builtin it resembles. The
controller (and the CLI) catch them at the boundary and show the message as one line: messages
name the device, configuration key, pin or socket and say what to check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


class DriverError(Exception):
    """Base of every error the drivers raise on purpose."""


class TransportError(DriverError, OSError):
    """A port or USB device could not be opened or was lost."""


class PortBusy(TransportError):
    """Another process holds the port (exclusive open failed)."""


class DeviceNotFound(TransportError, FileNotFoundError):
    """No such port or USB device."""


class BadPortSpec(DriverError, ValueError):
    """A ``--port`` / config value that names no transport."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a configuration: the dotted key (``gpio.seats.3.sensor``) and why."""

    key: str
    reason: str

    def __str__(self) -> str:
        return f"{self.key}: {self.reason}"


class HardwareConfigError(DriverError, ValueError):
    """The ``[gpio]`` or ``[sign]`` table is invalid. ``problems`` lists every problem found
    (the validator does not stop at the first one)."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(str(p) for p in self.problems))


class PinFactoryError(DriverError, RuntimeError):
    """The configured pin factory cannot be used here (RPi.GPIO off a Pi, lgpio without a
    gpiochip, an unknown name...)."""


class PinOpenError(DriverError, RuntimeError):
    """The pin factory loaded but a pin could not be opened or watched: the line is busy, the
    backend cannot detect its edges (RPi.GPIO on kernel 6.6 and later), its device is hidden
    by the unit's sandbox... The message names the pin, its role and the backend."""


class SignDeviceError(DriverError, RuntimeError):
    """The sign device cannot be opened or written (no SPI device, no emulator...)."""


class RigError(DriverError, RuntimeError):
    """The hardware-in-the-loop rig link failed: bad message, no daemon connected, timeout."""
