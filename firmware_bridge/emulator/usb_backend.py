"""A pyusb backend that *is* the shuffler: ``usb.core.find(backend=EmulatedUsbShuffler(...))``
returns a real ``usb.core.Device``, so the USB transport runs its real pyusb code path
(descriptors, configuration, interface claim, bulk transfers, timeouts, unplug) against the
reference firmware without libusb or hardware.

Device: one configuration, one vendor-specific interface (class 0xFF) with bulk OUT 0x01 and
bulk IN 0x81, 64-byte packets. A bulk write feeds the firmware; a bulk read waits (up to its
timeout) for the firmware's output, running the firmware's timers meanwhile. Unplugged
(``disconnect``), the device vanishes from enumeration and transfers fail with errno 19,
as with libusb. Implements the emulator-host interface of :mod:`.control`.
"""

from __future__ import annotations

import errno
import threading
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, TypeVar

import usb.backend
import usb.core

from firmware_bridge.emulator.firmware import DeviceFirmware

T = TypeVar("T")
DEFAULT_VID = 0x1209  # pid.codes; a vendor's own VID:PID goes in the table config
DEFAULT_PID = 0xC5F1
EP_OUT = 0x01
EP_IN = 0x81
BULK = 0x02
MAX_PACKET = 64


class EmulatedUsbShuffler(usb.backend.IBackend):  # type: ignore[misc]  # pyusb is untyped
    def __init__(
        self,
        firmware: DeviceFirmware,
        vid: int = DEFAULT_VID,
        pid: int = DEFAULT_PID,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.firmware = firmware
        self.vid, self.pid = vid, pid
        self.clock = clock
        self.lock = threading.RLock()
        self._cond = threading.Condition(self.lock)
        self._inbox = bytearray()
        self._unplugged_until: float | None = None
        self._config = 0

    # --- emulator host (control channel) ----------------------------------------------------

    def call(self, fn: Callable[[DeviceFirmware, float], T]) -> T:
        with self._cond:
            result = fn(self.firmware, self.clock())
            self._cond.notify_all()
        return result

    def disconnect(self, seconds: float) -> None:
        with self._cond:
            self._unplugged_until = self.clock() + seconds
            self._inbox.clear()
            self._cond.notify_all()

    @property
    def plugged(self) -> bool:
        if self._unplugged_until is not None and self.clock() >= self._unplugged_until:
            self._unplugged_until = None
        return self._unplugged_until is None

    def _require_plugged(self) -> None:
        if not self.plugged:
            raise usb.core.USBError(
                "No such device (it may have been disconnected)", -4, errno.ENODEV
            )

    # --- descriptors ------------------------------------------------------------------------

    def enumerate_devices(self):  # type: ignore[no-untyped-def]
        with self.lock:
            if self.plugged:
                yield "shuffler"

    def get_parent(self, dev: Any) -> None:
        return None

    def get_device_descriptor(self, dev: Any) -> SimpleNamespace:
        return SimpleNamespace(
            bLength=18,
            bDescriptorType=1,
            bcdUSB=0x0200,
            bDeviceClass=0,
            bDeviceSubClass=0,
            bDeviceProtocol=0,
            bMaxPacketSize0=MAX_PACKET,
            idVendor=self.vid,
            idProduct=self.pid,
            bcdDevice=0x0100,
            iManufacturer=0,
            iProduct=0,
            iSerialNumber=0,
            bNumConfigurations=1,
            address=1,
            bus=1,
            port_number=1,
            port_numbers=(1,),
            speed=2,
        )

    def get_configuration_descriptor(self, dev: Any, config: int) -> SimpleNamespace:
        if config != 0:
            raise IndexError(config)
        return SimpleNamespace(
            bLength=9,
            bDescriptorType=2,
            wTotalLength=32,
            bNumInterfaces=1,
            bConfigurationValue=1,
            iConfiguration=0,
            bmAttributes=0x80,
            bMaxPower=50,
            extra_descriptors=[],
        )

    def get_interface_descriptor(self, dev: Any, intf: int, alt: int, config: int):  # type: ignore[no-untyped-def]
        # IndexError for alternate settings that do not exist, or pyusb walks forever.
        if (intf, alt, config) != (0, 0, 0):
            raise IndexError((intf, alt, config))
        return SimpleNamespace(
            bLength=9,
            bDescriptorType=4,
            bInterfaceNumber=0,
            bAlternateSetting=0,
            bNumEndpoints=2,
            bInterfaceClass=0xFF,
            bInterfaceSubClass=0,
            bInterfaceProtocol=0,
            iInterface=0,
            extra_descriptors=[],
        )

    def get_endpoint_descriptor(self, dev: Any, ep: int, intf: int, alt: int, config: int):  # type: ignore[no-untyped-def]
        if (intf, alt, config) != (0, 0, 0) or ep not in (0, 1):
            raise IndexError((ep, intf, alt, config))
        return SimpleNamespace(
            bLength=7,
            bDescriptorType=5,
            bEndpointAddress=(EP_OUT, EP_IN)[ep],
            bmAttributes=BULK,
            wMaxPacketSize=MAX_PACKET,
            bInterval=0,
            bRefresh=0,
            bSynchAddress=0,
            extra_descriptors=[],
        )

    # --- device handle ----------------------------------------------------------------------

    def open_device(self, dev: Any) -> str:
        self._require_plugged()
        return "handle"

    def close_device(self, dev_handle: Any) -> None:
        pass

    def set_configuration(self, dev_handle: Any, config_value: int) -> None:
        self._require_plugged()
        self._config = config_value

    def get_configuration(self, dev_handle: Any) -> int:
        return self._config

    def set_interface_altsetting(self, dev_handle: Any, intf: int, altsetting: int) -> None:
        self._require_plugged()

    def claim_interface(self, dev_handle: Any, intf: int) -> None:
        self._require_plugged()

    def release_interface(self, dev_handle: Any, intf: int) -> None:
        pass

    def is_kernel_driver_active(self, dev_handle: Any, intf: int) -> bool:
        return False

    # --- transfers --------------------------------------------------------------------------

    def bulk_write(self, dev_handle: Any, ep: int, intf: int, data: Any, timeout: int) -> int:
        with self._cond:
            self._require_plugged()
            now = self.clock()
            self.firmware.receive_data(bytes(data), now)
            self._collect()
            return len(data)

    def bulk_read(self, dev_handle: Any, ep: int, intf: int, buff: Any, timeout: int) -> int:
        with self._cond:
            deadline = self.clock() + timeout / 1000
            while True:
                self._require_plugged()
                now = self.clock()
                self.firmware.poll(now)
                self._collect()
                if self._inbox:
                    n = min(len(buff), len(self._inbox))
                    buff[:n] = type(buff)(buff.typecode, self._inbox[:n])
                    del self._inbox[:n]
                    return n
                if now >= deadline:
                    raise usb.core.USBTimeoutError("Operation timed out", -7, errno.ETIMEDOUT)
                wake = [deadline, self.firmware.next_deadline(), self._unplugged_until]
                self._cond.wait(min(t for t in wake if t is not None) - now)

    def _collect(self) -> None:
        out = self.firmware.data_to_send()
        if out and self.plugged:
            self._inbox += out
            self._cond.notify_all()
