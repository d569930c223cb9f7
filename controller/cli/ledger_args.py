"""Options and helpers the ledger command groups share (meters, events, selfcheck).

They work on the database file directly: read-only commands never take the writer's lock, so
they run beside the daemon or on a dead controller's SD card; commands that change the ledger
(a technician's correction, clearing the self-check) take the lock and refuse while the daemon
runs. The two a technician reads most, ``meters`` and ``events tail``, ask the running daemon
instead when no ``--db`` is given (:func:`from_daemon`): it has the ledger open, and the CLI
then loads none of the ledger's code (quick on a Pi-class CPU, bench/pi_budget.py).
"""

from __future__ import annotations

import os
import sys
import time

from controller.books.ledger.paths import DEFAULT_KEY_PATH, DEFAULT_PATH, KEY_ENV, default_key_path
from controller.cli.argtypes import input_name, journal_text
from controller.cli.daemon_client import DEFAULT_SOCKET, add_socket_flag, call, named_socket
from controller.cli.output import add_json_flag
from controller.table.control.wire import ControlError

TYPE_CHECKING = False
if TYPE_CHECKING:  # the ledger's code is imported by the commands that open the file
    import argparse
    from collections.abc import Callable
    from typing import Any

    from controller.books.ledger.keys import Keyring
    from controller.books.ledger.reader import LedgerReader
    from controller.books.ledger.store import Ledger


def add_db_flag(parser: argparse.ArgumentParser) -> None:
    """``--db`` (and ``--key``, ``--socket``): a path that is empty or not a regular file is a
    usage error naming the option, before any lock file or database is made."""
    import argparse  # loaded already: a parser is being built

    # SUPPRESS: a sub-command's own --db must not reset one given before the sub-command
    parser.add_argument(
        "--db",
        type=input_name,
        default=argparse.SUPPRESS,
        metavar="PATH",
        help=f"the ledger database (default {DEFAULT_PATH})",
    )
    add_key_flag(parser)
    add_socket_flag(parser)


def add_key_flag(parser: argparse.ArgumentParser) -> None:
    import argparse

    parser.add_argument(
        "--key",
        type=input_name,
        default=argparse.SUPPRESS,
        metavar="PATH",
        help=f"the ledger keyring (default ${KEY_ENV}, else {DEFAULT_KEY_PATH} when readable)",
    )


def keyring(args: argparse.Namespace) -> Keyring | None:
    """``--key`` (errors are errors); else the default keyring when this user may read it
    (a technician who may not still reads the meters; verify says what it could not check);
    else the simulated table's, beside the ledger."""
    from pathlib import Path

    from controller.books.ledger.keys import keyring_beside, load_keyring

    if getattr(args, "key", None) is not None:
        return load_keyring(Path(args.key))
    path = default_key_path()
    if os.environ.get(KEY_ENV) or os.access(path, os.R_OK):
        return load_keyring(path)
    return keyring_beside(Path(db_path(args)))


def db_path(args: argparse.Namespace) -> str:
    """``--db``; else, with ``--socket`` or $CROUPIER_SOCKET, the ledger of that running daemon;
    else the default.
    Read-only commands open it without the writer's lock, beside the live daemon."""
    if hasattr(args, "db"):
        return args.db
    if named_socket(args):
        return call(args, "ledger.path")
    return DEFAULT_PATH


def from_daemon(args: argparse.Namespace, cmd: str, **kwargs: Any) -> Any | None:
    """A read-only command's answer from the running daemon, or ``None``: read the file.
    Without ``--db``, a daemon named (``--socket``, $CROUPIER_SOCKET) is asked, and its errors
    are the command's; else the one on the default socket, if it answers (a socket left by a
    daemon that was killed, or a daemon that does not answer, leaves the file to read). With
    ``--db`` (a copy, another table's SD card) the file."""
    if hasattr(args, "db"):
        return None
    if named_socket(args):
        return call(args, cmd, **kwargs)
    if not os.path.exists(DEFAULT_SOCKET):
        return None
    try:
        return call(args, cmd, **kwargs)
    except ControlError as exc:
        print(f"croupier: the daemon did not answer ({exc}): reading the file", file=sys.stderr)
        return None


def add_action(
    actions: argparse._SubParsersAction, name: str, help: str, func: Callable, *, db: bool = True
) -> argparse.ArgumentParser:
    """A sub-command with --json (and --db unless ``db`` is false) running ``func``."""
    parser = actions.add_parser(name, help=help)
    if db:
        add_db_flag(parser)
    add_json_flag(parser)
    parser.set_defaults(func=func)
    return parser


def add_technician_flags(parser: argparse.ArgumentParser) -> None:
    """``--technician`` and ``--reason``: texts the ledger keeps, read by the daemon's rule
    (argtypes.journal_text)."""
    parser.add_argument(
        "--technician", type=journal_text, required=True, help="who does it (journaled)"
    )
    parser.add_argument("--reason", type=journal_text, required=True, help="why (journaled)")


def reader(args: argparse.Namespace) -> LedgerReader:
    from controller.books.ledger.reader import LedgerReader

    return LedgerReader.open(db_path(args), keyring(args))


def writer(args: argparse.Namespace, *, keyed: bool = True) -> Ledger:
    """The ledger for writing (``keyed=False``: open an unkeyed ledger to adopt a key)."""
    from controller.books.ledger.store import Ledger

    ring = keyring(args) if keyed else None
    return Ledger.open(db_path(args), now=time.monotonic(), create=False, keyring=ring)
