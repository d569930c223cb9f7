"""``croupier selfcheck``: the power-up self-check (see controller/books/ledger/selfcheck.py).

- ``croupier selfcheck manifest [--output PATH]``: hash the installed software (run at build
  or install time; ``make manifest`` does it for the venv);
- ``croupier selfcheck status [--db PATH]``: the persisted status the daemon consults;
- ``croupier selfcheck run [--db PATH] [--manifest PATH | --no-software] [--full]``: run the
  checks now and report (read-only: records nothing);
- ``croupier selfcheck clear --technician T --reason R [--accept-rows]``: clear a failed
  self-check once its cause is fixed (takes the writer's lock; journaled).
"""

from __future__ import annotations

import argparse
import time

from controller.books.ledger.paths import MANIFEST_ENV, MANIFEST_IN_PREFIX, default_manifest_path
from controller.cli.argtypes import input_file, output_file, path
from controller.cli.ledger_args import add_action, add_technician_flags, reader, writer
from controller.cli.main import add_command
from controller.cli.output import print_json

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: pathlib is imported when a path is given
    from pathlib import Path

EXAMPLES = {
    "selfcheck": [
        "croupier selfcheck status",
        "croupier selfcheck run --full",
        "croupier selfcheck clear --technician T-4 --reason 'software updated'",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "selfcheck")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    m = add_action(actions, "manifest", "hash the installed software", manifest, db=False)
    m.add_argument(
        "--output",
        type=output_file,
        metavar="PATH",
        help=f"where, in a folder that exists (default ${MANIFEST_ENV}, else"
        f" {MANIFEST_IN_PREFIX} in the software's prefix, its folder made)",
    )
    add_action(actions, "status", "the persisted self-check status", status)
    r = add_action(actions, "run", "run the checks now and report (records nothing)", run)
    _add_manifest_flags(r)
    r.add_argument("--full", action="store_true", help="also verify every row and the journal")
    c = add_action(actions, "clear", "clear a failed self-check (technician, journaled)", clear)
    _add_manifest_flags(c)
    add_technician_flags(c)
    c.add_argument(
        "--accept-rows",
        action="store_true",
        help="accept rows with a bad checksum as they are now (their content is journaled)",
    )


def _add_manifest_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--manifest",
        type=input_file,
        help=f"the software manifest (default ${MANIFEST_ENV}, else {MANIFEST_IN_PREFIX} in the"
        " software's prefix, /opt/croupier/venv on an installed table)",
    )
    group.add_argument("--no-software", action="store_true", help="skip the software check")


def _manifest(args: argparse.Namespace) -> Path | None:
    if args.no_software:
        return None
    return args.manifest or path(default_manifest_path())


def manifest(args: argparse.Namespace) -> int:
    from controller.books.ledger import selfcheck
    from controller.books.ledger.journal import wall_text

    target = args.output or path(default_manifest_path())
    made = selfcheck.make_manifest(target, wall_text(time.time()))
    if args.json:
        print_json({"path": str(target), "files": len(made["files"]), "version": made["version"]})
    else:
        print(f"{target}: {len(made['files'])} files hashed (croupier {made['version']})")
    return 0


def status(args: argparse.Namespace) -> int:
    with reader(args) as ledger:
        current = ledger.selfcheck_status()
    if args.json:
        print_json(current.to_json())
    else:
        verdict = "OK" if current.table_may_open else "FAILED: the table stays closed"
        print(f"self-check {verdict} (since {current.since}, journal entry {current.seq})")
        for failure in current.failures:
            print(f"  {failure}")
    return 0 if current.table_may_open else 1


def run(args: argparse.Namespace) -> int:
    from controller.books.ledger import selfcheck

    with reader(args) as ledger:
        failures = selfcheck.run_checks(ledger, _manifest(args), full=args.full)
    if args.json:
        print_json({"ok": not failures, "failures": [f.text for f in failures]})
    else:
        for failure in failures:
            print(f"FAIL [{failure.kind}] {failure.text}")
        print("self-check: OK" if not failures else f"self-check: {len(failures)} failure(s)")
    return 0 if not failures else 1


def clear(args: argparse.Namespace) -> int:
    from controller.books.ledger import selfcheck

    with writer(args) as ledger:
        cleared = selfcheck.clear(
            ledger,
            time.monotonic(),
            technician=args.technician,
            reason=args.reason,
            manifest=_manifest(args),
            accept_rows=args.accept_rows,
        )
    if args.json:
        print_json(cleared.to_json())
    else:
        print(f"self-check cleared by {args.technician} (journal entry {cleared.seq})")
    return 0
