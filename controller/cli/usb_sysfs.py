"""The USB devices of a Linux machine, read from sysfs as ``lsusb`` and pyserial's
list_ports_linux do: for ``croupier shuffler ports``.

Each entry of ``/sys/bus/usb/devices`` named like ``1-1.2`` is a device (``usbN`` a root hub,
names with ``:`` its interfaces); its files ``idVendor``, ``idProduct``, ``busnum`` and
``devnum`` say what and where it is, ``manufacturer``, ``product`` and ``serial`` (where the
device has them) who made it. Only ``os`` is needed: pyusb, which the daemon's USB transport
uses, loads ctypes, ctypes.util (which runs ``ldconfig``), logging and platform: 30-50 ms
of CPU at full speed, about 0.3 s on a Pi 3-class CPU. A file that cannot be read or holds
garbage does not stop the listing: the device is left out (its ids, bus or device number) or
the field is None (its strings)."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: importing typing costs every command time
    from typing import Any

SYSFS_USB = "/sys/bus/usb/devices"
# The most read of one file: a USB string is at most 126 UTF-16 units (378 bytes of UTF-8)
READ_LIMIT = 512
HEX = frozenset("0123456789abcdefABCDEF")


def usb_devices(
    root: str | os.PathLike[str] = SYSFS_USB, include_hubs: bool = False
) -> list[dict[str, Any]]:
    """The USB devices under ``root`` (a sysfs ``devices`` folder), by bus and device number,
    each as ``croupier shuffler ports`` prints it: kind ``usb``, port ``usb:VID:PID``, usb_id,
    description (the product string, else ``bus B device D``), manufacturer, serial_number
    and location. The location is the sysfs name (``1-1.2``: bus 1, port 1 of the root hub,
    port 2 of the hub behind it), not bus-device number: it names the socket the device is
    plugged into, stays the same when it is plugged in again (the device number does not) and
    is what a udev rule matches (``KERNELS=="1-1.2"``). Root hubs (``usbN``) only with
    ``include_hubs``. Raises OSError when ``root`` cannot be listed (FileNotFoundError: no
    USB bus, as in a container)."""
    found = []
    for name in os.listdir(root):
        if ":" in name or (name.startswith("usb") and not include_hubs):
            continue  # an interface of a device, or a root hub
        device = _device(os.path.join(root, name), name)
        if device is not None:
            found.append(device)
    return [entry for _, entry in sorted(found, key=lambda d: d[0])]


def _device(path: str, name: str) -> tuple[tuple[int, int, str], dict[str, Any]] | None:
    """(sort key, entry) of the device at ``path``; None when its ids, bus number or device
    number are missing or not numbers."""
    vid, pid = _hex4(_read(path, "idVendor")), _hex4(_read(path, "idProduct"))
    bus, dev = _number(_read(path, "busnum")), _number(_read(path, "devnum"))
    if vid is None or pid is None or bus is None or dev is None:
        return None
    usb_id = f"{vid}:{pid}"
    entry = {
        "kind": "usb",
        "port": f"usb:{usb_id}",
        "usb_id": usb_id,
        "description": _read(path, "product") or f"bus {bus} device {dev}",
        "manufacturer": _read(path, "manufacturer"),
        "serial_number": _read(path, "serial"),
        "location": name,
    }
    return (bus, dev, name), entry


def _read(path: str, name: str) -> str | None:
    """The file ``name`` of a device as one printable line (at most READ_LIMIT bytes; invalid
    UTF-8 and control characters as ``?``); None when it is missing, unreadable or empty."""
    try:
        with open(os.path.join(path, name), "rb") as f:
            raw = f.read(READ_LIMIT)
    except OSError:
        return None
    text = raw.decode("utf-8", "replace").strip()
    return "".join(c if c.isprintable() and c != "\ufffd" else "?" for c in text) or None


def _hex4(text: str | None) -> str | None:
    """A vendor or product id as sysfs writes it (four hex digits), in lower case; else None."""
    if text is None or len(text) != 4 or not HEX.issuperset(text):
        return None
    return text.lower()


def _number(text: str | None) -> int | None:
    """A bus or device number (decimal digits); else None."""
    if text is None or not text.isascii() or not text.isdigit():
        return None
    return int(text)
