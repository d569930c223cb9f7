"""``croupier ledger-key``: the per-table key that seals the ledger (docs/ledger.md, keyed ledgers).

- ``croupier ledger-key create --key PATH``: provision a table's keyring (mode 0400; run at
  install time as the daemon's user: ``systemd/install.sh`` does it); refuses to overwrite one;
- ``croupier ledger-key show [--key PATH]``: the key IDs of the keyring (never a secret);
- ``croupier ledger-key adopt --technician T --reason R``: an existing, unkeyed ledger is keyed
  from now on (the migration of ledgers written before keys existed); daemon stopped;
- ``croupier ledger-key rotate --technician T --reason R``: add a key to the keyring and key the
  ledger with it from now on (older keys stay to verify older entries); daemon stopped.

Both writers journal ``ledger.keyed`` and seal every row again, and refuse while the journal or
a row does not verify.
"""

from __future__ import annotations

import argparse
import time

from controller.books.ledger.paths import default_key_path
from controller.cli.argtypes import output_file, path
from controller.cli.ledger_args import (
    add_action,
    add_key_flag,
    add_technician_flags,
    keyring,
    writer,
)
from controller.cli.main import add_command
from controller.cli.output import print_json

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: importing typing costs every command time
    from pathlib import Path
    from typing import Any

EXAMPLES = {
    "ledger-key": [
        "croupier ledger-key create --key /etc/croupier/ledger.key   # at install (0400)",
        "sudo -u croupier croupier ledger-key show",
        "croupier ledger-key adopt --technician T --reason 'keyed ledger'   # daemon stopped",
        "croupier ledger-key rotate --technician T --reason 'yearly'        # daemon stopped",
    ]
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "ledger-key")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    c = add_action(actions, "create", "provision the table's keyring", create, db=False)
    c.add_argument(  # required: a secret is never written to a path nobody named
        "--key",
        type=output_file,
        required=True,
        metavar="PATH",
        help="where (mode 0400), in a folder that exists",
    )
    add_key_flag(add_action(actions, "show", "the key IDs of the keyring", show, db=False))
    add_technician_flags(add_action(actions, "adopt", "key an unkeyed ledger", adopt))
    add_technician_flags(add_action(actions, "rotate", "re-key the ledger with a new key", rotate))


def _path(args: argparse.Namespace) -> Path:
    return path(getattr(args, "key", None) or default_key_path())


def emit(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    if args.json:
        print_json(data)
    else:
        print(text)


def create(args: argparse.Namespace) -> int:
    from controller.books.ledger.keys import create_keyring

    ring = create_keyring(args.key)
    emit(
        args,
        {"keyring": str(ring.path), "key": ring.current.key_id},
        f"created {ring.path} (mode 0400) with key {ring.current.key_id}",
    )
    return 0


def show(args: argparse.Namespace) -> int:
    from controller.books.ledger.keys import load_keyring

    ring = load_keyring(_path(args))
    ids = [k.key_id for k in ring.keys]
    emit(
        args,
        {"keyring": str(ring.path), "keys": ids, "current": ids[-1]},
        "\n".join(f"{i}{'  (current)' if i == ids[-1] else ''}" for i in ids),
    )
    return 0


def adopt(args: argparse.Namespace) -> int:
    from controller.books.ledger.keys import load_keyring

    ring = load_keyring(_path(args))
    with writer(args, keyed=False) as ledger:
        key_id = ledger.rekey(
            ring, time.monotonic(), technician=args.technician, reason=args.reason
        )
    emit(args, {"key": key_id}, f"the ledger is keyed with {key_id} from now on")
    return 0


def rotate(args: argparse.Namespace) -> int:
    from controller.books.ledger.keys import add_key, load_keyring

    ring = keyring(args) or load_keyring(_path(args))
    with writer(args) as ledger:
        ring = add_key(ring)
        key_id = ledger.rekey(
            ring, time.monotonic(), technician=args.technician, reason=args.reason
        )
    text = f"the ledger is keyed with {key_id} from now on; keep {ring.path} (all its keys)"
    emit(args, {"key": key_id, "keys": [k.key_id for k in ring.keys]}, text)
    return 0
