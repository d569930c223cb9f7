"""``croupier events``: the hash-chained event journal.

- ``croupier events tail [-n N] [--kind KIND] [--db PATH]``: the last entries, oldest first;
- ``croupier events verify [--db PATH]``: check the whole chain; names the first bad entry
  (exit status 1).

Both open the database read-only.
"""

from __future__ import annotations

import argparse
import json

from controller.books.ledger.journal import verify_chain
from controller.cli.argtypes import integer
from controller.cli.ledger_args import add_action, db_path, reader
from controller.cli.output import print_json

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
    add_action(actions, "verify", "check the journal's hash chain", verify)


def tail(args: argparse.Namespace) -> int:
    with reader(args) as ledger:
        entries = ledger.journal.tail(args.n, set(args.kind) if args.kind else None)
    if args.json:
        print_json([e.to_json() for e in entries])
        return 0
    for e in entries:
        data = json.dumps(e.data, sort_keys=True, separators=(",", ":"))
        print(f"{e.seq:>8}  {e.wall}  {e.kind:<18} {data}")
    return 0


def verify(args: argparse.Namespace) -> int:
    with reader(args) as ledger:
        report = verify_chain(ledger.journal)
    if args.json:
        print_json({"ok": report.ok, "entries": report.entries, "first_bad": report.first_bad,
                    "problems": report.problems})  # fmt: skip
    else:
        print(f"journal {db_path(args)}: {report.entries} entries checked")
        for problem in report.problems:
            print(f"PROBLEM: {problem}")
        print(
            "verify: OK" if report.ok else f"verify: FAILED (first bad entry: {report.first_bad})"
        )
    return 0 if report.ok else 1
