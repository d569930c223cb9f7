"""``croupier shuffler info|status|deck-check|shuffle|deal N|reset --port PORT``, and
``croupier shuffler ports``: the serial and USB devices a shuffler could be on (VID:PID).

Technician tools over the same client the daemon uses. PORT is a device path
(``/dev/shuffler``, the udev name), a pyserial URL (``spy:///dev/ttyUSB0`` logs the traffic)
or ``usb:VID:PID``. Output is a line a technician can act on ("deck check: 51 cards,
missing 7h"); ``--json`` for scripts. Link and driver errors print as one line, status 2.
"""

from __future__ import annotations

import argparse

from controller.cli import shuffle_battery
from controller.cli.argtypes import integer, journal_text
from controller.cli.daemon_client import CREDENTIAL_NOTE, add_socket_flag, call, named_socket
from controller.cli.main import add_command
from controller.cli.output import add_json_flag, print_json

DEFAULT_PORT = "/dev/shuffler"


EXAMPLES = {
    "shuffler": [
        "croupier shuffler ports                       serial and USB devices, with VID:PID",
        "croupier shuffler info --port /dev/shuffler",
        "croupier shuffler deal 2 --port spy:///dev/ttyUSB0   (hex-logs the traffic)",
        "croupier shuffler reset --socket /run/croupier/control.sock",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "shuffler")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, help_text in [
        ("info", "model, serial number, firmware and capabilities"),
        ("status", "state, door, active fault, cards loaded"),
        ("deck-check", "count the cards: missing, duplicate, foreign"),
        ("shuffle", "shuffle the loaded cards"),
        ("deal", "deal a test packet of N cards"),
        ("reset", "clear the active fault (level 0) or reset fully (level 1)"),
    ]:
        a = actions.add_parser(name, help=help_text)
        a.add_argument("--port", default=DEFAULT_PORT, help=f"default {DEFAULT_PORT}")
        a.add_argument(
            "--baud",
            type=integer(300, 4_000_000),
            default=115200,
            help="line speed of a serial port (default 115200)",
        )
        add_json_flag(a)
        a.set_defaults(func=run)
        if name == "deal":
            a.add_argument(
                "count", type=integer(1, 52), metavar="N", help="cards in the packet (1..52)"
            )
            a.add_argument(
                "--tag", type=integer(0, 255), default=0, help="destination tag (0..255)"
            )
        elif name == "shuffle":
            a.add_argument("--shoe", action="store_true", help="shoe mode (one card at a time)")
        elif name == "reset":
            a.add_argument(
                "--level",
                type=integer(0, 1),
                default=0,
                help="0 clears the active fault, 1 resets fully (default 0)",
            )
            add_socket_flag(a)  # with --socket: through the running daemon (technician)
            a.description = (
                "Reset the shuffler; with --socket or $CROUPIER_SOCKET through the running"
                " daemon\n(it holds the port), which then asks for the credential.\n"
                + CREDENTIAL_NOTE
            )
            a.add_argument(
                "--technician",
                type=journal_text,
                default="technician",
                help="who resets (journaled; default 'technician')",
            )
    ports = actions.add_parser(
        "ports", help="candidate serial and USB devices for the shuffler, with VID:PID"
    )
    ports.add_argument(
        "--all", action="store_true", help="also ports with no device behind, and USB root hubs"
    )
    add_json_flag(ports)
    ports.set_defaults(func=list_ports)
    audit = actions.add_parser("audit", help="the live daemon's shuffle audit (chi-square)")
    add_socket_flag(audit)
    add_json_flag(audit)
    audit.set_defaults(func=show_audit)
    shuffle_battery.add_battery_flags(audit)


def list_ports(args: argparse.Namespace) -> int:
    """Serial ports (pyserial's list_ports: USB-serial adapters with VID:PID, built-in UARTs)
    and USB devices (read from Linux sysfs, ``/sys/bus/usb/devices``: controller/cli/usb_sysfs.py,
    not pyusb, whose libusb backend costs ~0.3 s of CPU on a Pi 3-class CPU), for the
    technician wiring a machine: the ``--port`` (``/dev/ttyUSB0``, ``usb:VID:PID``) to give and
    the udev rule to write. A USB device's location is its sysfs name (``1-1.2``, the socket it
    is plugged into), not bus-device number. With ``--all`` also UARTs with nothing known
    behind them and the USB root hubs. Without a USB bus (a container) a note says so."""
    from serial.tools import list_ports as serial_ports

    found = []
    for port in sorted(serial_ports.comports(include_links=True), key=lambda p: p.device):
        usb_id = f"{port.vid:04x}:{port.pid:04x}" if port.vid is not None else None
        if usb_id is None and port.description == "n/a" and not args.all:
            continue  # a UART with nothing known behind it (ttyS*)
        found.append(
            {
                "kind": "serial",
                "port": port.device,
                "usb_id": usb_id,
                "description": port.description,
                "manufacturer": port.manufacturer,
                "serial_number": port.serial_number,
                "location": port.location,
            }
        )
    from controller.cli import usb_sysfs

    root = usb_sysfs.SYSFS_USB
    usb_note = None
    try:
        found += usb_sysfs.usb_devices(root, include_hubs=args.all)
    except FileNotFoundError:
        usb_note = f"no USB bus here ({root} missing)"
    except OSError as exc:  # a folder that cannot be listed: say so, the serial ports stand
        usb_note = f"USB devices not listed: {exc}"
    if args.json:
        print_json({"ports": found, "usb_note": usb_note})
        return 0
    if not found:
        print("no serial or USB device found" + ("" if args.all else " (--all: every port)"))
    for f in found:
        extra = ", ".join(x for x in (f["manufacturer"], f["serial_number"]) if x)
        print(
            f"{f['port']:<22} {f['usb_id'] or '-':<10} {f['description']}"
            + (f" ({extra})" if extra else "")
        )
    if usb_note:
        print(usb_note)
    return 0


def show_audit(args: argparse.Namespace) -> int:
    """Position statistics of every shuffle the table dealt, with p-values; exit 1 on alarm.
    With ``--battery``: the test battery on whole decks (controller/cli/shuffle_battery.py)."""
    if args.battery or args.port or args.sequences:  # decks to test: the battery, not the daemon
        return shuffle_battery.run(args)
    report = call(args, "shuffler.audit")
    if args.json:
        print_json(report)
    else:
        print(
            f"shuffle audit: {report['shuffles']} shuffles, first {report['positions']}"
            " positions of each deal"
        )
        for t in report["tests"]:
            note = "" if t["ready"] else "  (too few shuffles yet)"
            print(
                f"  {t['name']:<14} chi2 {t['statistic']:10.1f}  df {t['df']:4d}"
                f"  p {t['p_value']:.4g}{note}"
            )
        print("ALARM: the shuffle is not uniform" if report["alarm"] else "no alarm")
    return 1 if report["alarm"] else 0


def run(args: argparse.Namespace) -> int:
    if args.action == "reset" and named_socket(args):  # --socket or $CROUPIER_SOCKET
        # the daemon holds the port: it resets the machine (RESET 0) and counts the deck
        result = call(args, "shuffler.reset", privileged=True, technician=args.technician)
        print_json(result) if args.json else print(f"shuffler: {result}")
        return 0
    from controller.cli.shuffler_talk import talk

    return talk(args)
