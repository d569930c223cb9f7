"""USB transport through pyusb: one vendor-specific interface, a bulk OUT and a bulk IN
endpoint carrying the link's byte stream (docs/protocol.md). The device is found by VID:PID
(config); ``backend=`` selects the pyusb backend (libusb1 on the Pi, the emulator's in tests:
pyusb has no environment variable for it, NOTES.md).

pyusb is blocking, so a reader thread loops on bulk reads with a short timeout and hands the
bytes to the event loop; a writer thread drains a queue so a slow device never blocks the
loop. An ``USBError`` other than a timeout (errno 19 on unplug) ends the transport and calls
``on_lost`` once.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any

import usb.core
import usb.util

from drivers.errors import DeviceNotFound, TransportError
from drivers.transport import OnData, OnLost

READ_SIZE = 512
READ_TIMEOUT_MS = 100
WRITE_TIMEOUT_MS = 1000


def _bulk(direction: int) -> Callable[[Any], bool]:
    def match(ep: Any) -> bool:
        return (
            usb.util.endpoint_direction(ep.bEndpointAddress) == direction
            and usb.util.endpoint_type(ep.bmAttributes) == usb.util.ENDPOINT_TYPE_BULK
        )

    return match


class UsbTransport:
    def __init__(self, vid: int, pid: int, *, backend: Any = None, interface: int = 0) -> None:
        self.vid = vid
        self.pid = pid
        self.backend = backend
        self.interface = interface
        self._dev: Any = None
        self._stop = threading.Event()
        self._writes: queue.Queue[bytes | None] = queue.Queue()
        self._threads: list[threading.Thread] = []

    @property
    def description(self) -> str:
        return f"usb:{self.vid:04x}:{self.pid:04x}"

    async def open(self, on_data: OnData, on_lost: OnLost) -> None:
        loop = asyncio.get_running_loop()
        ep_in, ep_out = await loop.run_in_executor(None, self._claim)
        self._stop.clear()
        lost_once = threading.Event()

        def lost(exc: Exception) -> None:
            if not lost_once.is_set() and not self._stop.is_set():
                lost_once.set()
                loop.call_soon_threadsafe(on_lost, exc)

        def reader() -> None:
            while not self._stop.is_set():
                try:
                    data = ep_in.read(READ_SIZE, READ_TIMEOUT_MS)
                except usb.core.USBTimeoutError:
                    continue
                except usb.core.USBError as exc:
                    return lost(exc)
                if len(data):
                    loop.call_soon_threadsafe(on_data, bytes(data))

        def writer() -> None:
            while (data := self._writes.get()) is not None:
                try:
                    ep_out.write(data, WRITE_TIMEOUT_MS)
                except usb.core.USBError as exc:
                    return lost(exc)

        self._threads = [
            threading.Thread(target=reader, name="usb-reader", daemon=True),
            threading.Thread(target=writer, name="usb-writer", daemon=True),
        ]
        for t in self._threads:
            t.start()

    def _claim(self) -> tuple[Any, Any]:
        what = self.description
        try:
            dev = usb.core.find(idVendor=self.vid, idProduct=self.pid, backend=self.backend)
            if dev is None:
                raise DeviceNotFound(f"no USB device {what}: is the shuffler plugged in?")
            with contextlib.suppress(NotImplementedError, usb.core.USBError):
                if dev.is_kernel_driver_active(self.interface):
                    dev.detach_kernel_driver(self.interface)
            dev.set_configuration()
            intf = dev.get_active_configuration()[(self.interface, 0)]
            ep_out = usb.util.find_descriptor(intf, custom_match=_bulk(usb.util.ENDPOINT_OUT))
            ep_in = usb.util.find_descriptor(intf, custom_match=_bulk(usb.util.ENDPOINT_IN))
            if ep_in is None or ep_out is None:
                raise TransportError(f"{what} has no bulk IN/OUT endpoints: not a shuffler?")
            usb.util.claim_interface(dev, intf)
        except usb.core.NoBackendError as exc:
            raise TransportError(f"{what}: no USB backend (install libusb-1.0-0)") from exc
        except usb.core.USBError as exc:
            raise TransportError(f"cannot open {what}: {exc} (udev permissions?)") from exc
        self._dev = dev
        return ep_in, ep_out

    def write(self, data: bytes) -> None:
        if self._dev is not None:
            self._writes.put(bytes(data))

    def close(self) -> None:
        self._stop.set()
        self._writes.put(None)
        for t in self._threads:
            t.join(2)
        self._threads = []
        if self._dev is not None:
            with contextlib.suppress(usb.core.USBError):
                usb.util.dispose_resources(self._dev)
            self._dev = None
        self._writes = queue.Queue()
