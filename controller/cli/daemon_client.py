"""Talking to the running daemon from the CLI: the socket option and the credential."""

from __future__ import annotations

import os
import sys

from controller.cli.argtypes import UsageError
from controller.cli.output import add_json_flag

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: importing typing costs every command time
    import argparse
    from typing import Any

# The control client (with the socket module) is imported by the functions that talk to the
# daemon: a command's --help or usage error does not load it.

DEFAULT_SOCKET = "/run/croupier/control.sock"
# What the help of a command the daemon asks the technician credential for says (the help
# keeps descriptions as written: lines under 80 columns)
CREDENTIAL_NOTE = (
    "Needs the technician credential: $CROUPIER_CREDENTIAL, else typed at a prompt\n"
    "(without a terminal, as in a script, CROUPIER_CREDENTIAL must be set)."
)


def add_socket_flag(parser: argparse.ArgumentParser) -> None:
    """``--socket``, a global option: also accepted before the command (controller.cli.main)."""
    from controller.cli.main import add_global_options

    add_global_options(parser, "--socket")


def add_daemon_action(
    actions: argparse._SubParsersAction,
    name: str,
    help: str,
    func: Any,
    *,
    privileged: bool = False,
) -> argparse.ArgumentParser:
    """A sub-command run by asking the daemon: its parser, with ``--socket`` and ``--json``,
    running ``func``; a ``privileged`` one's help says it needs the technician credential."""
    said = help.replace("%%", "%")  # a help is %-formatted, a description is not
    description = f"{said[:1].upper()}{said[1:]}.\n{CREDENTIAL_NOTE}" if privileged else None
    parser: argparse.ArgumentParser = actions.add_parser(name, help=help, description=description)
    add_socket_flag(parser)
    add_json_flag(parser)
    parser.set_defaults(func=func)
    return parser


def named_socket(args: argparse.Namespace) -> str | None:
    """The daemon the command line names: ``--socket``, else $CROUPIER_SOCKET; ``None`` when
    neither does (a command that can read the ledger's file itself then does)."""
    return getattr(args, "socket", None) or os.environ.get("CROUPIER_SOCKET") or None


def daemon_to_ask(args: argparse.Namespace) -> str | None:
    """The daemon a command that can also read the ledger's file asks (:func:`named_socket`),
    unless ``--db`` names that file: then ``None``, and the file is read."""
    return None if getattr(args, "db", None) else named_socket(args)


def socket_path(args: argparse.Namespace) -> str:
    return named_socket(args) or DEFAULT_SOCKET


def credential() -> str:
    """The technician credential: $CROUPIER_CREDENTIAL, else asked on the terminal."""
    secret = os.environ.get("CROUPIER_CREDENTIAL")
    if secret:
        return secret
    if not sys.stdin.isatty():
        from controller.table.control.wire import ControlError

        raise ControlError(
            "a technician credential is needed: set CROUPIER_CREDENTIAL", "unauthorised"
        )
    import getpass

    return getpass.getpass("technician credential: ")


def call(args: argparse.Namespace, cmd: str, *, privileged: bool = False, **kwargs: Any) -> Any:
    from controller.table.control.client import ControlClient
    from controller.table.control.wire import ControlError

    try:
        with ControlClient(socket_path(args)) as client:
            return client.call(cmd, credential() if privileged else None, **kwargs)
    except ControlError as exc:
        if exc.code == "bad-request":  # the daemon refused a value of the command line
            raise UsageError(str(exc)) from exc  # exit status 2, as argparse's refusals
        raise
