"""Pure parts of the drivers and the emulator's control commands, in-process."""

from __future__ import annotations

import random

import pytest

from drivers.errors import BadPortSpec
from drivers.reconnect import Backoff
from drivers.serial_transport import SerialTransport
from drivers.transport import open_transport
from drivers.usb_transport import UsbTransport
from firmware_bridge.emulator.control import handle_command
from firmware_bridge.emulator.firmware import DeviceFirmware
from firmware_bridge.emulator.machine import ShufflerMachine


def test_backoff_doubles_to_the_ceiling_and_resets():
    b = Backoff(initial=0.5, factor=2, ceiling=3)
    assert [b.failed(t) - t for t in (0, 10, 20, 30, 40)] == [0.5, 1, 2, 3, 3]
    assert b.failures == 5
    b.succeeded()
    assert b.failed(100) == 100.5


@pytest.mark.parametrize("kw", [{"initial": 0}, {"initial": 5, "ceiling": 1}, {"factor": 0.5}])
def test_backoff_rejects_nonsense(kw):
    with pytest.raises(ValueError):
        Backoff(**kw)


def test_open_transport_picks_by_port_spec():
    assert isinstance(open_transport("/dev/shuffler"), SerialTransport)
    assert isinstance(open_transport("spy:///dev/ttyUSB0"), SerialTransport)
    usb = open_transport("usb:1209:C5F1")
    assert isinstance(usb, UsbTransport) and (usb.vid, usb.pid) == (0x1209, 0xC5F1)
    for bad in ("usb:12", "usb:xyz:1", ""):
        with pytest.raises(BadPortSpec):
            open_transport(bad)


class InProcessHost:
    def __init__(self) -> None:
        self.firmware = DeviceFirmware(ShufflerMachine(1, rng=random.Random(1)))
        self.pulled: list[float] = []

    def call(self, fn):
        return fn(self.firmware, 0.0)

    def disconnect(self, seconds: float) -> None:
        self.pulled.append(seconds)


def test_control_commands_in_process():
    host = InProcessHost()
    reply = handle_command(
        host, {"cmd": "faults", "tx": {"drop": 2}, "machine": {"jam_at_packet": 3}}
    )
    assert reply["ok"] and reply["tx"]["drop"] == 2 and reply["machine"]["jam_at_packet"] == 3
    assert handle_command(host, {"cmd": "clear"})["tx"]["drop"] == 0
    assert handle_command(host, {"cmd": "deck", "remove": [0], "foreign": 1})["ok"]
    assert host.firmware.machine.deck_check().missing == ((0, 1),)
    assert handle_command(host, {"cmd": "door", "open": True})["ok"]
    assert host.firmware.machine.door_open
    assert handle_command(host, {"cmd": "disconnect", "seconds": 2})["ok"]
    assert host.pulled == [2.0]
    assert handle_command(host, {"cmd": "state"})["cards"] == 52
    assert handle_command(host, {"cmd": "arrange", "cards": [51, 50]})["ok"]
    assert host.firmware.machine.arranged == [51, 50]


@pytest.mark.parametrize(
    ("req", "why"),
    [
        ({"cmd": "faults", "tx": {"drop": 1}, "rx": {"nope": 1}}, "unknown fault setting"),
        ({"cmd": "fault", "code": "FIRE"}, "fault code 'FIRE'"),
        ({"cmd": "deck", "remove": ["7h"]}, "card codes"),
        ({"cmd": "draw"}, "NOT_SHUFFLED"),
        ({"cmd": "arrange", "cards": [7, 7]}, "not available"),
        ({"cmd": "launch"}, "unknown command"),
    ],
)
def test_bad_control_commands_change_nothing(req, why):
    host = InProcessHost()
    reply = handle_command(host, req)
    assert not reply["ok"] and why in reply["error"]
    assert host.firmware.tx.faults.drop == 0  # validated before anything changed


def test_udev_rule_names_the_default_port_and_usb_ids():
    """The udev rule, the CLI default port and the USB IDs must agree."""
    from pathlib import Path

    from controller.cli.shuffler_cmd import DEFAULT_PORT
    from firmware_bridge.emulator.usb_backend import DEFAULT_PID, DEFAULT_VID

    rules = [
        line
        for line in (Path(__file__).parents[3] / "systemd/99-croupier-shuffler.rules")
        .read_text()
        .splitlines()
        if line and not line.startswith("#")
    ]
    assert len(rules) == 2
    tty, usb = rules
    assert f'SYMLINK+="{DEFAULT_PORT.removeprefix("/dev/")}"' in tty
    assert 'GROUP="dialout"' in tty and 'MODE="0660"' in tty
    assert f'ATTR{{idVendor}}=="{DEFAULT_VID:04x}"' in usb
    assert f'ATTR{{idProduct}}=="{DEFAULT_PID:04x}"' in usb
    assert 'GROUP="plugdev"' in usb and 'MODE="0660"' in usb
    for rule in rules:  # every key is KEY==value, KEY+=value or KEY=value, comma-separated
        for part in rule.split(", "):
            assert any(op in part for op in ("==", "+=", "=")), part


@pytest.mark.parametrize(
    ("port", "says"),
    [
        ("", "no port given"),
        ("usb:zzzz:1", "expected usb:VID:PID in hex"),
        ("usb:1209:c5f1:9", "expected usb:VID:PID in hex"),
        ("usb: 1209:c5f1", "expected usb:VID:PID in hex"),
        ("usb:12099:c5f1", "expected usb:VID:PID in hex"),
        ("ftp://x", "pyserial has no ftp://"),
        ("spy://", "no port given"),
        ("spy:///etc/hostname", "/etc/hostname is a regular file, not a serial device"),
        ("/etc", "/etc is a folder, not a serial device"),
    ],
)
def test_a_port_that_can_name_no_shuffler_is_refused_before_opening(port, says):
    """The technician's port string, checked before anything is opened (it reached pyserial:
    'Could not configure port: (25, ...)' for a regular file, 'No such file: ''' for spy://)."""
    from drivers.errors import BadPortSpec
    from drivers.transport import open_transport, port_problem

    assert says in (port_problem(port) or "")
    with pytest.raises(BadPortSpec, match=says.split(":")[0]):
        open_transport(port)


@pytest.mark.parametrize(
    "port", ["usb:1209:c5f1", "usb:0:1", "/dev/ttyUSB0", "/dev/null", "loop://", "spy://loop://"]
)
def test_ports_that_can_name_a_shuffler_pass(port):
    from drivers.transport import port_problem

    assert port_problem(port) is None
