"""Serial transport: a device path (``/dev/shuffler``, ``/dev/ttyUSB0``) or any pyserial URL
(``spy:///dev/ttyUSB0`` hex-logs the traffic, ``socket://host:port``), opened **exclusively**
(a second opener gets :class:`PortBusy`), driven by asyncio through pyserial-asyncio-fast.

Transports only move bytes: ``open(on_data, on_lost)``, ``write(data)``, ``close()``. When
the device vanishes (unplug, pty closed), pyserial's read fails and ``on_lost`` is called;
reconnecting is the client's job (:mod:`drivers.reconnect`).
"""

from __future__ import annotations

import asyncio
import errno

import serial
import serial_asyncio_fast

from drivers.errors import DeviceNotFound, PortBusy, TransportError
from drivers.transport import DEFAULT_BAUD, OnData, OnLost


class _Protocol(asyncio.Protocol):
    def __init__(self, on_data: OnData, on_lost: OnLost) -> None:
        self.on_data = on_data
        self.on_lost = on_lost

    def data_received(self, data: bytes) -> None:
        self.on_data(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.on_lost(exc)


class SerialTransport:
    def __init__(self, port: str, baud: int = DEFAULT_BAUD) -> None:
        self.port = port
        self.baud = baud
        self._transport: asyncio.Transport | None = None
        self._closing = False

    @property
    def description(self) -> str:
        return f"{self.port} at {self.baud} baud"

    async def open(self, on_data: OnData, on_lost: OnLost) -> None:
        loop = asyncio.get_running_loop()
        self._closing = False

        def lost(exc: Exception | None) -> None:
            if not self._closing:  # an intentional close() is not a lost device
                on_lost(exc)

        try:
            transport, _ = await serial_asyncio_fast.create_serial_connection(
                loop,
                lambda: _Protocol(on_data, lost),
                self.port,
                baudrate=self.baud,
                exclusive=True,
            )
        except (serial.SerialException, OSError, ValueError) as exc:
            raise _open_error(self.port, exc) from exc
        self._transport = transport

    def write(self, data: bytes) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.write(data)

    def close(self) -> None:
        self._closing = True
        if self._transport is not None:
            self._transport.close()
            self._transport = None


def _open_error(port: str, exc: BaseException) -> TransportError:
    code = getattr(exc, "errno", None)
    text = str(exc)
    if code in (errno.EAGAIN, errno.EWOULDBLOCK) or "exclusive" in text.lower():
        return PortBusy(f"{port} is in use by another process (exclusive lock): {text}")
    if code == errno.ENOENT or "No such file" in text:
        return DeviceNotFound(f"{port} does not exist: is the shuffler plugged in? ({text})")
    return TransportError(f"cannot open {port}: {text}")
