"""``croupier jackpot ack`` and ``croupier seat clear``: a technician's acts on the live table,
through the daemon's socket, each with the technician credential and journaled.

- ``croupier jackpot ack``: acknowledge a 100% award; the table reopens;
- ``croupier seat clear N``: a seat excluded for a stuck or chattering sensor takes stakes
  again.

Both are also read without argparse when their command line is plain (controller.cli.quick).
"""

from __future__ import annotations

from controller.cli.argtypes import integer, journal_text
from controller.cli.daemon_client import add_daemon_action, call
from controller.cli.main import add_command
from controller.cli.output import print_json

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: importing typing costs every command time
    import argparse

EXAMPLES = {
    "jackpot": [
        "CROUPIER_CREDENTIAL=... croupier jackpot ack --technician T-4",
    ],
    "seat": [
        "CROUPIER_CREDENTIAL=... croupier seat clear 3 --technician T-4",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    j = add_command(sub, "jackpot")
    ja = j.add_subparsers(dest="action", metavar="ACTION", required=True)
    ack = add_daemon_action(
        ja, "ack", "acknowledge the 100%% award; the table reopens", jackpot_ack, privileged=True
    )
    ack.add_argument(
        "--technician", type=journal_text, required=True, help="who acknowledges (journaled)"
    )

    st = add_command(sub, "seat")
    sta = st.add_subparsers(dest="action", metavar="ACTION", required=True)
    cl = add_daemon_action(
        sta,
        "clear",
        "the sensor was checked: the seat takes stakes again",
        seat_clear,
        privileged=True,
    )
    cl.add_argument("seat", type=integer(1, 99), help="the seat number")
    cl.add_argument(
        "--technician", type=journal_text, required=True, help="who clears it (journaled)"
    )


def jackpot_ack(args: argparse.Namespace) -> int:
    result = call(args, "jackpot.ack", privileged=True, technician=args.technician)
    print_json(result) if args.json else print(f"jackpot {result}")
    return 0


def seat_clear(args: argparse.Namespace) -> int:
    result = call(args, "seat.clear", privileged=True, seat=args.seat, technician=args.technician)
    print_json(result) if args.json else print(f"seat {args.seat}: {result}")
    return 0
