"""Exceptions of the hardware drivers. One base class, :class:`DriverError`; each subclass
also inherits the builtin it resembles. Messages say which device and what to check."""

from __future__ import annotations


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
