"""``croupier events``: the hash-chained event journal.

- ``croupier events tail [-n N] [--kind KIND] [-f] [--db PATH]``: the last entries, oldest
  first; ``-f`` then follows the journal as the daemon writes it (JSON lines with ``--json``);
- ``croupier events verify [--db PATH]``: check the whole chain; names the first bad entry
  (exit status 1).

Both open the database read-only.
"""

from __future__ import annotations

import argparse
import json
import time

from controller.books.ledger.journal import Entry, verify_chain
from controller.cli.argtypes import integer, seconds
from controller.cli.ledger_args import add_action, db_path, reader
from controller.cli.output import print_json
from controller.cli.progress import progress_bar

EXAMPLES = {
    "events": [
        "croupier events tail -n 50 --kind round.settled",
        "croupier events tail -f",
        "croupier events verify",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("events", help="the event journal: tail, verify")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    t = add_action(actions, "tail", "the last journal entries", tail)
    t.add_argument("-n", type=integer(1), default=20, help="how many entries (default 20)")
    t.add_argument("--kind", action="append", help="only entries of this kind (repeatable)")
    t.add_argument(
        "-f",
        "--follow",
        action="store_true",
        help="then print new entries as the daemon journals them, until Ctrl-C",
    )
    t.add_argument(
        "--interval",
        type=seconds(0.05, 60),
        default=0.5,
        metavar="SECONDS",
        help="how often --follow looks for new entries (0.5)",
    )
    add_action(actions, "verify", "check the journal's hash chain", verify)


def tail(args: argparse.Namespace) -> int:
    kinds = set(args.kind) if args.kind else None
    with reader(args) as ledger:
        entries = ledger.journal.tail(args.n, kinds)
        if args.json and not args.follow:
            print_json([e.to_json() for e in entries])
            return 0
        for e in entries:
            _show(args, e)
        if args.follow:  # like tail -f: the read-only connection sees each new commit
            last = ledger.journal.head()[0]
            while True:
                time.sleep(args.interval)
                for e in ledger.journal.entries(kinds, start=last + 1):
                    _show(args, e)
                last = max(last, ledger.journal.head()[0])
    return 0


def _show(args: argparse.Namespace, e: Entry) -> None:
    """One entry: a line for people, or a JSON object per line with ``--follow --json``."""
    if args.json:
        print(json.dumps(e.to_json()), flush=True)
        return
    data = json.dumps(e.data, sort_keys=True, separators=(",", ":"))
    print(f"{e.seq:>8}  {e.wall}  {e.kind:<18} {data}", flush=True)


def verify(args: argparse.Namespace) -> int:
    with reader(args) as ledger:
        total = ledger.journal.head()[0]
        with progress_bar(args, total=total, unit="entries", what="journal") as step:
            report = verify_chain(ledger.journal, step)
    if args.json:
        print_json(
            {
                "ok": report.ok,
                "entries": report.entries,
                "first_bad": report.first_bad,
                "problems": report.problems,
            }
        )
    else:
        print(f"journal {db_path(args)}: {report.entries} entries checked")
        for problem in report.problems:
            print(f"PROBLEM: {problem}")
        print(
            "verify: OK" if report.ok else f"verify: FAILED (first bad entry: {report.first_bad})"
        )
    return 0 if report.ok else 1
