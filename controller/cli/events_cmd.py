"""``croupier events``: the hash-chained event journal.

- ``croupier events tail [-n N] [--kind KIND] [-f] [--db PATH]``: the last entries, oldest
  first; ``-f`` then follows the journal as the daemon writes it (JSON lines with ``--json``);
- ``croupier events verify [--db PATH]``: check the whole chain; names the first bad entry
  (exit status 1).

Both open the database read-only. ``tail`` without ``--db`` or ``-f`` (and for at most
EVENTS_TAIL_MAX entries) asks the running daemon instead (ledger_args.from_daemon), which
shows a settled round's hands of an old journal by their category only, as the socket does.
"""

from __future__ import annotations

import sys
import time

from controller.cli.argtypes import integer, seconds
from controller.cli.ledger_args import add_action, db_path, from_daemon, reader
from controller.cli.main import add_command
from controller.cli.output import print_json
from controller.quick_json import dumps
from controller.table.control.wire import EVENTS_TAIL_MAX

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

# The journal's code is imported by the actions that open the file: `events tail` beside the
# running daemon asks it instead, and stays quick on a Pi (ledger_args).

# The kinds the table journals, for the suggestion a mistyped --kind gets (`round.setled`: did
# you mean round.settled?). Written here, not imported: `events tail` is a quick command. The
# set is open (a refusal is journaled as "<command>-refused", a later version adds kinds, an
# old journal holds retired ones), so a kind not listed is looked for all the same; every kind
# the code writes is listed (tests/unit/cli/test_cli_light_choices.py holds them equal).
JOURNAL_KINDS = (
    "access-refused",
    "alarm.round-reused",
    "alert-acknowledged",
    "cards-entered",
    "cards-exposed",
    "cards-refused",
    "condition",
    "confirm-ignored",
    "decision",
    "decision-refused",
    "deck-replaced",
    "evidence-failed",
    "evidence-made",
    "exposure",
    "exposure-refused",
    "jackpot-acknowledged",
    "ledger-failed",
    "ledger-result-ignored",
    "ledger-writable",
    "ledger.created",
    "ledger.keyed",
    "linked.opened",
    "linked.recovered",
    "linked.settled",
    "linked.void-queued",
    "linked.voided",
    "lock-ignored",
    "meter.corrected",
    "misdeal-refused",
    "packet-held",
    "packet-stale",
    "packet-unexpected",
    "pool.configured",
    "pool.created",
    "pool.retired",
    "pools.rebuilt",
    "round-ended",
    "round-voided",
    "round.ids-skipped",
    "round.opened",
    "round.settled",
    "round.voided",
    "rules.changed",
    "seat-cleared",
    "seat-health",
    "seats-cleared",
    "seats-declared",
    "selfcheck.cleared",
    "selfcheck.failed",
    "selfcheck.passed",
    "sensor-ignored",
    "shoe-shuffled",
    "showdown-waiting",
    "shuffle-audit-alarm",
    "shuffler-fault",
    "shuffler-reset",
    "stake",
    "stake-not-taken",
    "surveillance-access",
    "technician-key",
    "transition",
    "wagers",
    "wagers-refused",
    "wagers-withdrawn",
)

EXAMPLES = {
    "events": [
        "croupier events tail -n 50 --kind round.settled",
        "croupier events tail -f",
        "croupier events verify",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "events")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    t = add_action(
        actions, "tail", "the last journal entries as recorded (amounts in minor units)", tail
    )
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
    kinds = sorted(set(args.kind)) if args.kind else None
    entries: list[dict[str, Any]] | None = None
    if not args.follow and args.n <= EVENTS_TAIL_MAX:
        filters = {"kinds": kinds} if kinds else {}
        entries = from_daemon(args, "events.tail", n=args.n, **filters)
    if entries is not None:
        if args.json:
            print_json(entries)
        else:
            _show_all(args, entries, kinds)
        return 0
    with reader(args) as ledger:
        wanted = set(kinds) if kinds else None
        found = ledger.journal.tail(args.n, wanted)
        if args.json and not args.follow:
            print_json([e.to_json() for e in found])
            return 0
        _show_all(args, [e.to_json() for e in found], kinds, follow=args.follow)
        if args.follow:  # like tail -f: the read-only connection sees each new commit
            last = ledger.journal.head()[0]
            while True:
                time.sleep(args.interval)
                for e in ledger.journal.entries(wanted, start=last + 1):
                    _show(args, e.to_json())
                last = max(last, ledger.journal.head()[0])
    return 0


def _show_all(
    args: argparse.Namespace,
    entries: list[dict[str, Any]],
    kinds: list[str] | None,
    *,
    follow: bool = False,
) -> None:
    """The entries; none, said in a line as journalctl does, with the kind meant when one
    asked for is not a kind the table journals (``round.setled``: round.settled)."""
    for entry in entries:
        _show(args, entry)
    if not entries and not follow:
        print(f"-- no entries{' of kind ' + ', '.join(kinds) if kinds else ''} --")
    if not entries:
        _suggest_kinds(kinds)


def _suggest_kinds(kinds: list[str] | None) -> None:
    """On stderr, for each kind asked for that the table never journals, the one it is close
    to (or that it is unknown): found nothing because of a typo is not "nothing happened"."""
    from controller.texts import escaped, suggestion

    for kind in kinds or ():
        if kind not in JOURNAL_KINDS:
            hint = suggestion(kind, JOURNAL_KINDS)
            print(
                f"croupier events tail: {escaped(kind)!r} is not a kind the table journals{hint}",
                file=sys.stderr,
            )


def _show(args: argparse.Namespace, entry: dict[str, Any]) -> None:
    """One entry (``Entry.to_json``): a line for people, or a JSON object per line with
    ``--follow --json``."""
    if args.json:
        print(dumps(entry), flush=True)
        return
    data = dumps(entry["data"], sort_keys=True, separators=(",", ":"))
    print(f"{entry['seq']:>8}  {entry['wall']}  {entry['kind']:<18} {data}", flush=True)


def verify(args: argparse.Namespace) -> int:
    from controller.books.ledger.journal import verify_chain
    from controller.cli.progress import progress_bar

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
