"""``croupier sensors watch``: the live per-seat view of the bet sensors, console and health.

Every event of the table I/O layer is printed as it happens (``--json``: one JSON object per
line, the first one ``{"event": "watching", ...}`` once every input is watched), followed by
the seat row: ``-`` awaiting, ``S`` stake placed, ``L`` locked, ``X``
excluded, ``W`` winner. ``--edges`` adds the raw, undebounced edges.

So that a technician can check the whole sensor cycle at the table, the console buttons run
the round flow as the daemon does: LOCK closes bets, CONFIRM ends the round (a stake still on
its sensor then is a stuck sensor), and CONFIRM with the technician key on clears every
excluded seat. Stops on Ctrl-C, after ``--duration`` seconds or after ``--events`` events.
"""

from __future__ import annotations

import argparse

from controller.cli.argtypes import integer, seconds
from controller.cli.hardware import add_pin_options, load_table_io, one_line_errors, open_factory
from controller.cli.main import add_command
from controller.cli.output import add_json_flag

EXAMPLES = {
    "sensors": [
        "croupier sensors watch",
        "croupier sensors watch --pin-factory mock --duration 5 --json",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "sensors")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    w = actions.add_parser("watch", help="live per-seat view: stakes, console, edges and health")
    add_pin_options(w)
    w.add_argument(
        "--duration", type=seconds(0, None), metavar="SECONDS", help="stop after this long"
    )
    w.add_argument("--events", type=integer(1), metavar="N", help="stop after N events")
    w.add_argument("--edges", action="store_true", help="also show raw (undebounced) edges")
    add_json_flag(w)
    w.set_defaults(func=run_watch)


def run_watch(args: argparse.Namespace) -> int:
    import asyncio

    from controller.cli.sensors_watch import watch

    io, source = load_table_io(args.config)
    factory = open_factory(args, io)
    try:
        with one_line_errors():
            asyncio.run(watch(args, io.gpio, factory, source))
    except KeyboardInterrupt:
        pass
    finally:
        factory.close()
    return 0
