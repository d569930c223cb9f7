"""``croupier emulator --link PATH``: serve the reference shuffler firmware on a pty.

PATH becomes a symlink to the pty, so the daemon or ``croupier shuffler --port PATH`` opens
it like ``/dev/ttyUSB0``. ``--baud`` paces the output at that rate (a pty has no baud rate of
its own). ``--port DEVICE`` serves on a real serial port instead (a rig cabled to a
controller's shuffler port; the line runs at ``--baud`` and paces itself). ``--control
SOCKET`` opens the fault-injection channel (JSON lines; see
firmware_bridge/emulator/control.py). Serves until SIGTERM, SIGHUP or SIGINT, then removes
PATH; with ``--exit-with-parent`` also when the process that started it is gone (the simulated
table's daemon starts it so: a daemon killed with ``kill -9`` leaves no orphan shuffler).

Exit status when stopped by a signal: 128 + N (``emulator: stopped by SIGTERM``, 143), as
every ``croupier`` command, so that a shell or a script sees how it ended. It is a tool run in
a terminal or by the simulated table's daemon (which stops it with SIGTERM and does not read
its status), never a systemd service: croupierd, the service, exits 0 after SIGTERM, systemd's
way of stopping it. 0 when it stopped because its parent is gone (``--exit-with-parent``).
"""

from __future__ import annotations

import argparse
import os
import sys

from controller.cli.argtypes import integer, link_path, seconds, socket_path
from controller.cli.main import add_command
from controller.errors import CroupierError

TYPE_CHECKING = False
if TYPE_CHECKING:  # the emulator is imported by the command, not by its parser (--help)
    import threading

    from firmware_bridge.emulator.firmware import DeviceFirmware

EXAMPLES = {
    "emulator": [
        "croupier emulator --link /tmp/shuffler --control /tmp/shuffler.ctl",
        "croupier emulator --port /dev/ttyUSB1 --baud 115200   (a rig cabled to a controller)",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "emulator")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument(  # a path that exists and is not a symlink is refused, never replaced
        "--link", type=link_path, metavar="PATH", help="symlink to the pty to create (new)"
    )
    where.add_argument("--port", metavar="DEVICE", help="a real serial port instead (a rig)")
    p.add_argument("--decks", type=integer(1, 8), default=1, help="1..8 (default 1)")
    p.add_argument(
        "--baud",
        type=integer(0, 4_000_000),
        default=115200,
        help="output pacing; 0 = none (default 115200)",
    )
    p.add_argument("--seed", type=integer(0), help="deterministic shuffles (tests only)")
    p.add_argument(
        "--control", type=socket_path, metavar="SOCKET", help="Unix socket for fault injection"
    )
    p.add_argument(
        "--card-time", type=seconds(0, 60), default=0.0, help="seconds per card dealt (default 0)"
    )
    p.add_argument(
        "--shuffle-time", type=seconds(0, 600), default=0.0, help="seconds per shuffle (default 0)"
    )
    p.add_argument("--no-recognition", action="store_true", help="a machine without a reader")
    p.add_argument(
        "--exit-with-parent", action="store_true", help="stop when the starting process dies"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import contextlib
    import random
    import signal
    import threading

    from controller.table.instance_lock import InstanceLock
    from firmware_bridge.emulator.firmware import DeviceFirmware
    from firmware_bridge.emulator.machine import MachineTiming, ShufflerMachine

    if not 1 <= args.decks <= 8:
        raise CroupierError(f"--decks {args.decks}: a shuffler holds 1 to 8 decks")
    seeded = args.seed is not None
    machine = ShufflerMachine(
        args.decks,
        recognition=not args.no_recognition,
        rng=random.Random(args.seed) if seeded else None,
        timing=MachineTiming(per_card=args.card_time, shuffle=args.shuffle_time),
    )
    firmware = DeviceFirmware(machine, rng=random.Random(args.seed + 1) if seeded else None)
    stop = threading.Event()
    parent = os.getppid()
    signals: list[int] = []  # the stop signal received, for the exit status

    def stop_on(signum: int, _frame: object) -> None:
        signals.append(signum)
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, stop_on)
    # one emulator per link: a second one would take the link over, then delete it
    held = (
        InstanceLock(f"{args.link}.lock", f"an emulator on {args.link}")
        if args.link
        else contextlib.nullcontext()  # a real serial port: pyserial's exclusive open
    )
    with held:
        _serve(args, firmware, stop, parent)
    if not signals:  # --exit-with-parent: the parent is gone, nobody waits for a status
        print("emulator: stopped", file=sys.stderr)
        return 0
    from controller.stop_signals import signal_name

    print(f"emulator: stopped by {signal_name(signals[0])}", file=sys.stderr)
    return 128 + signals[0]  # as every croupier command stopped by a signal


def _serve(
    args: argparse.Namespace, firmware: DeviceFirmware, stop: threading.Event, parent: int
) -> None:
    from controller.files import clear_socket_path
    from firmware_bridge.emulator.control import EmulatorControlServer
    from firmware_bridge.emulator.pty_runner import PtyEmulator
    from firmware_bridge.emulator.serial_runner import SerialPortEmulator

    try:
        if args.port:
            emulator = SerialPortEmulator(firmware, args.port, baud=args.baud or 115200).start()
        else:
            emulator = PtyEmulator(firmware, args.link, baud=args.baud or None).start()
    except (OSError, ValueError) as exc:
        raise CroupierError(f"cannot serve on {args.port or args.link}: {exc}") from exc
    try:
        if args.control:  # a live emulator's socket is refused, never taken over
            clear_socket_path(args.control)
        control = EmulatorControlServer(emulator, args.control).start() if args.control else None
    except (OSError, ValueError) as exc:
        emulator.stop()
        raise CroupierError(
            f"--control {args.control}: {getattr(exc, 'strerror', None) or exc}"
        ) from exc
    print(
        f"emulator: {args.port or args.link} -> {emulator.slave_path} ({args.decks} deck(s), "
        f"{args.baud or 'unpaced'} baud{', control ' + args.control if control else ''})",
        flush=True,
    )
    try:
        while not stop.wait(0.5):
            if args.exit_with_parent and os.getppid() != parent:  # reparented: the parent died
                print("emulator: the process that started it is gone", file=sys.stderr)
                break
    finally:
        if control is not None:
            control.stop()
        emulator.stop()
