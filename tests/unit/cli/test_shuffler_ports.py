"""``croupier shuffler ports`` lists the USB devices from Linux sysfs
(controller/cli/usb_sysfs.py), not through pyusb: a fake ``/sys/bus/usb/devices`` under
tmp_path with a USB-serial adapter, a bulk device, an interface, a root hub and devices whose
files are garbage, huge, unreadable or missing; the note where there is no USB bus; and a
fresh interpreter running the command loads neither pyusb nor ctypes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from controller.cli import usb_sysfs
from controller.cli.main import main

KEYS = {"kind", "port", "usb_id", "description", "manufacturer", "serial_number", "location"}


def device(root, name: str, usb_id: str, bus: str, dev: str | None, **files: str | bytes) -> None:
    """A device folder ``root/name``: ``usb_id`` VID:PID, bus and device number (None: no
    devnum file), and ``files`` (a name ending in _dir: a folder, which open() refuses)."""
    vid, pid = usb_id.split(":")
    files = {"idVendor": vid, "idProduct": pid, "busnum": bus, **files}
    if dev is not None:
        files["devnum"] = dev
    folder = root / name
    folder.mkdir()
    for key, value in files.items():
        if key.endswith("_dir"):
            (folder / key.removesuffix("_dir")).mkdir()
        else:
            (folder / key).write_bytes(value if isinstance(value, bytes) else f"{value}\n".encode())


@pytest.fixture
def sysfs(tmp_path, monkeypatch):
    """A fake /sys/bus/usb/devices; the command reads it, and finds no serial port."""
    root = tmp_path / "devices"
    root.mkdir()
    hub = {"manufacturer": "Linux 6.1.0 xhci-hcd", "serial": "0000:00:14.0"}
    device(root, "usb1", "1d6b:0002", "1", "1", product="xHCI Host Controller", **hub)
    ftdi = {"manufacturer": "FTDI", "serial": "A10K2XYZ"}
    device(root, "1-1.2", "0403:6001", "1", "5", product="FT232R USB UART", **ftdi)
    # an interface of the adapter: skipped by its name (real ones have no idVendor)
    device(root, "1-1.2:1.0", "0403:6001", "1", "5")
    device(root, "1-1.3", "zz!!:6001", "1", "6")  # garbage: skipped
    # upper-case hex, no product, a manufacturer that cannot be read
    device(root, "1-1.4", "04D8:000A", "1", "7", manufacturer_dir="")
    device(root, "1-1.5", "0403:6015", "1", None)  # no devnum: skipped
    device(root, "1-1.6", "0403:6015", "1", "9", idVendor=b"0" * 1_000_000)  # skipped
    strings = {"product": b"DeckMate\n2 \xff\n", "manufacturer": "Shufflemaster"}
    device(root, "2-1", "1234:5678", "2", "3", serial=b"X" * 1_000_000, **strings)
    (root / "not-a-device").write_text("0403\n")
    monkeypatch.setattr(usb_sysfs, "SYSFS_USB", str(root))
    from serial.tools import list_ports

    monkeypatch.setattr(list_ports, "comports", lambda include_links=False: [])
    return root


def run(capsys, argv: list[str]) -> tuple[int, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    assert err == ""
    return status, out


def test_the_devices_by_bus_and_device_number(sysfs):
    found = usb_sysfs.usb_devices(sysfs)
    assert [d["location"] for d in found] == ["1-1.2", "1-1.4", "2-1"]
    assert all(set(d) == KEYS and d["kind"] == "usb" for d in found)
    adapter, no_strings, bulk = found
    assert adapter == {
        "kind": "usb",
        "port": "usb:0403:6001",
        "usb_id": "0403:6001",
        "description": "FT232R USB UART",
        "manufacturer": "FTDI",
        "serial_number": "A10K2XYZ",
        "location": "1-1.2",
    }
    assert no_strings["port"] == "usb:04d8:000a"
    assert no_strings["description"] == "bus 1 device 7"
    assert no_strings["manufacturer"] is None and no_strings["serial_number"] is None
    assert bulk["description"] == "DeckMate?2 ?"  # one line, whatever the bytes
    assert bulk["manufacturer"] == "Shufflemaster"
    assert bulk["serial_number"] == "X" * usb_sysfs.READ_LIMIT  # a huge file: its start


def test_the_root_hubs_only_when_asked(sysfs):
    hubs = usb_sysfs.usb_devices(sysfs, include_hubs=True)
    assert [d["location"] for d in hubs] == ["usb1", "1-1.2", "1-1.4", "2-1"]
    assert hubs[0]["usb_id"] == "1d6b:0002" and hubs[0]["serial_number"] == "0000:00:14.0"


def test_the_lines_a_technician_reads(sysfs, capsys):
    status, out = run(capsys, ["shuffler", "ports"])
    assert status == 0
    lines = out.splitlines()
    assert lines == [
        f"{'usb:0403:6001':<22} {'0403:6001':<10} FT232R USB UART (FTDI, A10K2XYZ)",
        f"{'usb:04d8:000a':<22} {'04d8:000a':<10} bus 1 device 7",
        f"{'usb:1234:5678':<22} {'1234:5678':<10} DeckMate?2 ? (Shufflemaster, "
        + "X" * usb_sysfs.READ_LIMIT
        + ")",
    ]
    status, out = run(capsys, ["shuffler", "ports", "--all"])
    assert status == 0 and out.splitlines()[0].startswith("usb:1d6b:0002")
    assert "xHCI Host Controller" in out and len(out.splitlines()) == 4


def test_the_json_shape(sysfs, capsys):
    status, out = run(capsys, ["--json", "shuffler", "ports"])
    assert status == 0
    listing = json.loads(out)
    assert set(listing) == {"ports", "usb_note"} and listing["usb_note"] is None
    assert [p["location"] for p in listing["ports"]] == ["1-1.2", "1-1.4", "2-1"]
    assert all(set(p) == KEYS for p in listing["ports"])
    status, out = run(capsys, ["shuffler", "ports", "--all", "--json"])
    assert json.loads(out)["ports"][0]["port"] == "usb:1d6b:0002"


def test_no_usb_bus_is_a_note(tmp_path, monkeypatch, capsys):
    missing = tmp_path / "no-usb"
    monkeypatch.setattr(usb_sysfs, "SYSFS_USB", str(missing))
    from serial.tools import list_ports

    monkeypatch.setattr(list_ports, "comports", lambda include_links=False: [])
    status, out = run(capsys, ["shuffler", "ports"])
    assert status == 0
    assert out.splitlines() == [
        "no serial or USB device found (--all: every port)",
        f"no USB bus here ({missing} missing)",
    ]
    status, out = run(capsys, ["--json", "shuffler", "ports"])
    assert json.loads(out) == {"ports": [], "usb_note": f"no USB bus here ({missing} missing)"}
    with pytest.raises(FileNotFoundError):
        usb_sysfs.usb_devices(missing)


def test_a_folder_that_cannot_be_listed_is_a_note(tmp_path, monkeypatch, capsys):
    not_a_folder = tmp_path / "devices"
    not_a_folder.write_text("")
    monkeypatch.setattr(usb_sysfs, "SYSFS_USB", str(not_a_folder))
    status, out = run(capsys, ["--json", "shuffler", "ports"])
    assert status == 0 and json.loads(out)["usb_note"].startswith("USB devices not listed: ")


PROBE = """
import sys
from controller.cli.main import main
status = main(["shuffler", "ports"])
print(status, " ".join(sorted(sys.modules)), file=sys.stderr)
"""


def test_listing_the_ports_loads_neither_pyusb_nor_ctypes():
    """pyusb's libusb backend loads ctypes, ctypes.util, logging and platform: ~40 ms of CPU
    at full speed, ~0.3 s on a Pi 3-class CPU (the CLI answers within 0.5 s); json (~3 ms) is
    for the battery's sequence files alone (controller.cli.shuffle_battery)."""
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    status, modules = done.stderr.strip().splitlines()[-1].split(" ", 1)
    loaded = set(modules.split())
    assert status == "0" and "serial.tools.list_ports" in loaded  # the probe saw the command
    banned = ("usb", "ctypes", "_ctypes", "logging", "platform", "json")
    assert sorted(m for m in loaded if m.split(".")[0] in banned) == []
