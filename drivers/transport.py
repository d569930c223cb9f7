"""What the shuffler link needs from a byte pipe, and :func:`open_transport`, which picks one
from the technician's port string.

A transport only moves bytes (pyserial's ``serial_for_url`` is the model): framing,
sequence numbers, retransmission and reconnection policy live above it, in
:class:`~firmware_bridge.session.HostSession` and :class:`~drivers.shuffler_client.
ShufflerClient`. The concrete transports are imported only when chosen, so a command that
never opens the shuffler does not pay for pyserial or pyusb.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from drivers.errors import BadPortSpec

DEFAULT_BAUD = 115200

OnData = Callable[[bytes], None]
OnLost = Callable[[Exception | None], None]


class Transport(Protocol):
    """A bidirectional byte pipe to one shuffler, used from the asyncio loop's thread.

    A transport **must** provide:

    * ``description``: where it goes, for log lines and errors (``/dev/shuffler at 115200
      baud``, ``usb:1209:c5f1``).
    * ``async open(on_data, on_lost)``: open the device or raise a
      :class:`~drivers.errors.TransportError` subclass whose message tells the technician what
      to check (``DeviceNotFound``, ``PortBusy``...). Once open, every received chunk is handed
      to ``on_data`` **on the loop's thread**, in order, without loss or duplication; when the
      device goes away (unplugged, read or write error), ``on_lost`` is called once, on the
      loop's thread, with the exception or ``None``. An intentional :meth:`close` must not call
      ``on_lost``. ``open`` may be called again after a loss or a close (reconnection).
    * ``write(data)``: queue ``data`` for sending without blocking the loop; silently drop it
      when not open (the session retransmits what mattered).
    * ``close()``: release the device; idempotent; no callback afterwards. It may block
      briefly to join the transport's own threads.

    A transport **may** run its own threads (the USB transport reads and writes on two) as long
    as callbacks reach the loop thread-safely; it must not retry, reframe or reorder bytes.
    """

    description: str

    async def open(self, on_data: OnData, on_lost: OnLost) -> None: ...

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


# pyserial's URL handlers (serial.serial_for_url): ``spy://`` logs a port's traffic
URL_SCHEMES = ("alt", "cp2110", "hwgrep", "loop", "rfc2217", "socket", "spy")
HEX = frozenset("0123456789abcdefABCDEF")


def port_problem(port: str) -> str | None:
    """What is wrong with ``port`` as the technician wrote it (``--port``, ``[shuffler]
    port``), before anything is opened; None when it can name a shuffler: ``usb:VID:PID``
    (1-4 hex digits each), a URL of a scheme pyserial has (``spy://`` around a port), or a
    device path that is not a regular file or a folder (a device not plugged in yet is
    left to the opening, which says so)."""
    import os
    import stat

    if not port.strip():
        return "no port given (a device path, a pyserial URL or usb:VID:PID)"
    if port.startswith("usb:"):
        ids = port.split(":")[1:]
        if len(ids) != 2 or not all(0 < len(x) <= 4 and set(x) <= HEX for x in ids):
            return f"{port!r}: expected usb:VID:PID in hex, e.g. usb:1209:c5f1"
        return None
    scheme, url, rest = port.partition("://")
    if url:
        if scheme not in URL_SCHEMES:
            return f"{port!r}: pyserial has no {scheme}:// (it has {', '.join(URL_SCHEMES)})"
        if scheme == "spy":
            return port_problem(rest.partition("?")[0])  # the port it logs
        return None
    try:
        mode = os.stat(port).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        kind = "a regular file" if stat.S_ISREG(mode) else "a folder"
        return f"{port} is {kind}, not a serial device"
    return None


def open_transport(port: str, baud: int = DEFAULT_BAUD, usb_backend: Any = None) -> Transport:
    """``usb:VID:PID`` (hex) -> USB; anything else is a device path or a pyserial URL
    (``spy://``, ``socket://``, ``loop://``). Raises :class:`~drivers.errors.BadPortSpec` for
    a port string that names nothing (:func:`port_problem`); opening happens later, in
    ``Transport.open``."""
    problem = port_problem(port)
    if problem:
        raise BadPortSpec(problem)
    if port.startswith("usb:"):
        vid, pid = (int(x, 16) for x in port.split(":")[1:])
        from drivers.usb_transport import UsbTransport

        return UsbTransport(vid, pid, backend=usb_backend)
    from drivers.serial_transport import SerialTransport

    return SerialTransport(port, baud)
