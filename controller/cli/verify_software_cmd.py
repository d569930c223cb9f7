"""``croupier verify-software``: keyed digests of every installed software component, on
demand, for a regulator or test lab (controller/books/software_verification.py).

- ``croupier verify-software --seed HEX [--algorithm hmac-sha1|hmac-sha256] [--json]``:
  with ``--socket`` the running daemon computes and journals it (nothing restarts); with
  ``--db PATH`` it is computed here and journaled in that ledger (the daemon stopped);
  otherwise computed here only. ``--json``: the combined digest and a list of objects with
  each component's absolute ``path`` and hex ``digest``.
- ``croupier verify-software --history [--db PATH | --socket]``: the results kept.
"""

from __future__ import annotations

import argparse
import getpass
import os
import time

from controller.cli.argtypes import input_file
from controller.cli.daemon_client import add_socket_flag, call, daemon_to_ask
from controller.cli.ledger_args import add_key_flag, reader, writer
from controller.cli.main import add_command
from controller.cli.output import add_json_flag, print_json
from controller.errors import CroupierError
from controller.texts import MAX_TEXT, escaped

# The algorithms and their short names (controller.books.software_verification's ALGORITHMS
# and ALIASES, which tests/unit/cli/test_cli_light_choices.py holds equal): the parser imports
# none of the books
ALGORITHMS = ("hmac-sha1", "hmac-sha256", "sha1", "sha256")

EXAMPLES = {
    "verify-software": [
        "croupier verify-software --seed 0f1e2d3c --algorithm hmac-sha1",
        "croupier verify-software --seed 0f1e2d3c --socket /run/croupier/control.sock --json",
        "croupier verify-software --history --socket /run/croupier/control.sock",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "verify-software")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--seed", metavar="HEX", help="the lab's seed, 1 to 128 bytes in hex")
    what.add_argument("--history", action="store_true", help="the results kept in the ledger")
    p.add_argument(
        "--algorithm",
        default="hmac-sha1",
        choices=ALGORITHMS,
        help="default hmac-sha1 (GAT)",
    )
    p.add_argument(
        "--db", type=input_file, metavar="PATH", help="record in (or read from) this ledger"
    )
    add_key_flag(p)
    add_socket_flag(p)
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from controller.books.software_verification import history, record, verify_software

    on_daemon = daemon_to_ask(args)
    if args.history:
        if on_daemon:
            kept = call(args, "software.history")
        elif args.db:
            with reader(args) as ledger:
                kept = history(ledger)
        else:
            raise CroupierError("--history needs --db PATH or --socket PATH")
        _print_history(kept, args.json)
        return 0
    if on_daemon:
        answer = call(
            args,
            "software.verify",
            seed=args.seed,
            algorithm=args.algorithm,
            requested_by=_who(),
        )
        result, seq = answer["result"], answer["journal_entry"]
    else:
        verification = verify_software(args.seed, args.algorithm)
        result, seq = verification.to_json(), None
        if args.db:
            # the keyring as every ledger command finds it (ledger_args.keyring)
            with writer(args) as ledger:
                seq = record(ledger.journal, verification, time.monotonic(), _who())
    if args.json:
        print_json({**result, "journal_entry": seq})
        return 0
    for c in result["components"]:
        print(f"{c['digest']}  {c['path']}")
    print(f"{len(result['components'])} components, {result['algorithm']}, seed {result['seed']}")
    print(f"combined: {result['combined']}")
    print(f"recorded in the ledger: journal entry {seq}" if seq else "not recorded (no --db)")
    return 0


def _who() -> str:
    """Who asks, as the journal keeps a text (controller.texts): the login name, with what a
    terminal would not show as written escaped; the user ID when there is no name."""
    try:
        name = escaped(getpass.getuser().strip())[:MAX_TEXT]
    except (OSError, KeyError):  # no $LOGNAME or $USER, and no passwd entry for the user ID
        name = ""
    return name or f"uid {os.getuid()}"


def _print_history(kept: list[dict], as_json: bool) -> None:
    if as_json:
        print_json(kept)
        return
    if not kept:
        print("no software verification recorded")
    for h in kept:
        print(
            f"{h['wall']}  entry {h['seq']}  {h['algorithm']}  seed {h['seed']}  combined "
            f"{h['combined']}  ({h['components']} components, by {escaped(str(h['requested_by']))})"
        )
